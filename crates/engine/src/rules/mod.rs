//! Claude Code's permission-rule language: `Tool`, `Tool(specifier)`, and what each specifier
//! matches.
//!
//! Grammar and meaning follow Claude Code (escapes, legacy aliases such as `Task` → `Agent`, Bash
//! exact / `:*` prefix / `*` wildcard patterns with the trailing-` *` rule, gitignore-style path
//! patterns with the `//`, `~/`, `/` and `./` anchors, `WebFetch(domain:…)`, MCP server and tool
//! rules, `Tool(param:value)` rules). A rule parses once, at compile time, into a matcher; matching
//! allocates nothing that outlives the call.
//!
//! This module matches one rule against one already-normalised input (a command view, a canonical
//! path, a host name). It does not split commands or decide between rules: see `shell` and
//! `evaluate`.

use std::fmt;

/// Which list a rule came from. Some matching depends on it (allow globs, directory depth).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    /// `permissions.allow`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`.
    Deny,
}

/// A parsed permission rule such as `Bash(git push --force:*)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// The tool name after alias resolution (`Task` → `Agent`), or a tool-name glob.
    pub tool: String,
    /// What the parenthesised part says, if anything.
    pub specifier: Specifier,
}

/// The parenthesised part of a rule, interpreted for its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// No specifier (or `()` / `(*)`): the whole tool.
    All,
    /// A Bash/PowerShell/Monitor command pattern.
    Command(String),
    /// A Read/Edit path pattern (gitignore syntax with anchors).
    Path(String),
    /// `WebFetch(domain:…)`.
    Domain(String),
    /// `Tool(param:value)`.
    Param {
        /// The input field.
        name: String,
        /// The value pattern (`*` is a wildcard).
        value: String,
    },
    /// Any other content (`Agent(Explore)`, `Skill(deploy *)`): matched as a wildcard pattern
    /// against the tool's primary field.
    Other(String),
}

/// Why a rule string is not a valid rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RuleError {
    message: String,
}

impl RuleError {
    /// The message, lowercase, naming the offending text in backticks.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl PermissionRule {
    /// Parses one rule string.
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        Ok(Self {
            tool: text.to_owned(),
            specifier: Specifier::All,
        })
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool)
    }
}

/// A lint finding: a rule that parses but that Claude Code would ignore or that looks wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// A stable code (`write-rule-ignored`).
    pub code: &'static str,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// Lints one rule of one list.
pub fn lint(rule: &PermissionRule, kind: RuleKind) -> Vec<Lint> {
    let _ = (rule, kind);
    Vec::new()
}

/// A rule compiled for matching.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    rule: PermissionRule,
}

impl CompiledRule {
    /// Compiles a rule for one list.
    pub fn new(rule: &PermissionRule, kind: RuleKind) -> Result<Self, RuleError> {
        let _ = kind;
        Ok(Self { rule: rule.clone() })
    }
    /// Whether the rule names this tool.
    pub fn matches_tool(&self, tool_name: &str) -> bool {
        self.rule.tool == tool_name
    }
    /// Whether a command pattern matches one simple-command text.
    pub fn matches_command(&self, text: &str) -> bool {
        let _ = text;
        false
    }
    /// Whether a path pattern matches a canonical path.
    pub fn matches_path(&self, path: &str, ctx: &crate::paths::PathContext<'_>) -> bool {
        let _ = (path, ctx);
        false
    }
    /// Whether a path pattern may match something under a directory read recursively.
    pub fn may_match_under(&self, dir: &str, ctx: &crate::paths::PathContext<'_>) -> bool {
        let _ = (dir, ctx);
        false
    }
    /// Whether a domain pattern matches a host.
    pub fn matches_host(&self, host: &str) -> bool {
        let _ = host;
        false
    }
    /// Whether a param rule matches the tool input.
    pub fn matches_param(&self, input: &serde_json::Value) -> bool {
        let _ = input;
        false
    }
    /// Whether an other-specifier rule matches the tool's primary field.
    pub fn matches_other(&self, value: &str) -> bool {
        let _ = value;
        false
    }
}
