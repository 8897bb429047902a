//! Claude Code's permission-rule language: `Tool`, `Tool(specifier)`, and what each specifier
//! matches.
//!
//! Grammar and meaning follow Claude Code (escapes, legacy aliases such as `Task` → `Agent`, Bash
//! exact / `:*` prefix / `*` wildcard patterns with the trailing-` *` rule, gitignore-style path
//! patterns with the `//`, `~/`, `/` and `./` anchors, `WebFetch(domain:…)`, MCP server and tool
//! rules, `Tool(param:value)` rules). A rule parses once, at compile time, into a matcher; matching
//! allocates nothing that outlives the call.
//!
//! Where Claude Code silently ignores a malformed rule (it becomes a tool name that matches
//! nothing), [`PermissionRule::parse`] returns an error instead: a deny rule that matches nothing
//! is a security bug. Rules that parse but that Claude Code would skip or that look wrong are
//! reported by [`lint`].
//!
//! This module matches one rule against one already-normalised input (a command view, a canonical
//! path, a host name). It does not split commands or decide between rules: see `shell` and
//! `evaluate`.
//!
//! ```
//! use toolgate_engine::rules::{CompiledRule, PermissionRule, RuleKind, Specifier};
//! let rule = PermissionRule::parse("Bash(npm run test:*)")?;
//! assert_eq!(rule.specifier, Specifier::Command("npm run test:*".into()));
//! let deny = CompiledRule::new(&rule, RuleKind::Deny)?;
//! assert!(deny.matches_command("npm run test --watch"));
//! assert!(!deny.matches_command("npm run test:unit"));
//! # Ok::<(), toolgate_engine::rules::RuleError>(())
//! ```

mod command;
mod domain;
mod lint;
mod path;
mod tool;
mod wildcard;

use std::fmt;

use serde_json::Value;

pub use lint::{Lint, Severity, lint};
pub use path::PathProbe;

use crate::paths::PathContext;
use command::CommandPattern;
use domain::DomainPattern;
use path::{PathKey, PathPattern};
use tool::ToolPattern;
use wildcard::Wildcard;

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
    /// A Bash/PowerShell/Monitor command pattern (trimmed, escapes of the rule syntax resolved).
    Command(String),
    /// A Read/Edit/Write/MultiEdit/NotebookEdit/Grep/Glob/LSP path pattern (gitignore syntax
    /// with anchors; trimmed).
    Path(String),
    /// `WebFetch(domain:…)`: the host pattern after `domain:` (trimmed).
    Domain(String),
    /// `Tool(param:value)`: one top-level scalar input field (whitespace around the colon
    /// dropped).
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
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message, lowercase, naming the offending text in backticks.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Tools whose content is a command pattern.
const COMMAND_TOOLS: &[&str] = &["Bash", "PowerShell", "Monitor"];
/// Tools whose content is a path pattern.
const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Grep",
    "Glob",
    "LSP",
];

/// The input fields of the tools whose content has a syntax of its own: `(primary, others)`.
/// `name:value` content is a parameter rule only when `name` is one of the others; the primary
/// field cannot be a parameter (Claude Code §1.4), and any other `name:` is ordinary content
/// (`Bash(npm:*)`, `Agent(my-plugin:reviewer)`).
fn tool_fields(tool: &str) -> Option<(&'static str, &'static [&'static str])> {
    const SHELL: &[&str] = &[
        "timeout",
        "description",
        "run_in_background",
        "dangerouslyDisableSandbox",
    ];
    Some(match tool {
        "Bash" | "PowerShell" | "Monitor" => ("command", SHELL),
        "Read" => ("file_path", &["offset", "limit", "pages"]),
        "Edit" => ("file_path", &["old_string", "new_string", "replace_all"]),
        "Write" => ("file_path", &["content"]),
        "MultiEdit" => ("file_path", &["edits"]),
        "NotebookEdit" => (
            "notebook_path",
            &["cell_id", "new_source", "cell_type", "edit_mode"],
        ),
        "Grep" => (
            "path",
            &[
                "pattern",
                "glob",
                "type",
                "output_mode",
                "multiline",
                "head_limit",
                "offset",
            ],
        ),
        "Glob" => ("path", &["pattern"]),
        "LSP" => ("file_path", &["operation", "line", "character"]),
        "WebFetch" => ("url", &["prompt"]),
        "Agent" => (
            "subagent_type",
            &[
                "description",
                "prompt",
                "model",
                "isolation",
                "run_in_background",
                "name",
                "team_name",
                "mode",
            ],
        ),
        "Skill" => ("skill", &["args"]),
        _ => return None,
    })
}

impl PermissionRule {
    /// Parses one rule string.
    ///
    /// Follows Claude Code's `permissionRuleValueFromString`: the specifier runs from the first
    /// unescaped `(` to the last unescaped `)` (unescaped: preceded by an even number of
    /// backslashes); `\(` and `\)`, then `\\`, are unescaped in it; `()` and `(*)` mean the whole
    /// tool; legacy names are resolved (`Task` → `Agent`). Where Claude Code would turn the
    /// whole string into a tool name that matches nothing, this is an error. The content is then
    /// interpreted for the tool (see [`Specifier`]) and validated (globs, domains).
    ///
    /// ```
    /// use toolgate_engine::rules::{PermissionRule, Specifier};
    /// let rule = PermissionRule::parse(r#"Bash(python -c "print\(1\)")"#)?;
    /// assert_eq!(rule.specifier, Specifier::Command(r#"python -c "print(1)""#.into()));
    /// assert_eq!(PermissionRule::parse("Task(Explore)")?.tool, "Agent");
    /// assert!(PermissionRule::parse("Bash(ls) x").is_err());
    /// # Ok::<(), toolgate_engine::rules::RuleError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleError::new("empty rule"));
        }
        let open = first_unescaped(text, '(');
        let close = last_unescaped(text, ')');
        let (tool, content) = match (open, close) {
            (None, None) => (text, None),
            (Some(open), Some(close)) if close > open => {
                if close + 1 != text.len() {
                    return Err(RuleError::new(format!(
                        "text after the closing parenthesis in `{text}`"
                    )));
                }
                let tool = text.get(..open).unwrap_or_default();
                let content = text.get(open + 1..close).unwrap_or_default();
                (tool, Some(content))
            }
            _ => {
                return Err(RuleError::new(format!(
                    "unbalanced parenthesis in `{text}`"
                )));
            }
        };
        let tool = tool.trim();
        if tool.is_empty() {
            return Err(RuleError::new(format!("missing tool name in `{text}`")));
        }
        if let Some(bad) = tool
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*')))
        {
            return Err(RuleError::new(format!(
                "invalid character `{bad}` in tool name `{tool}` of `{text}`: tool names are letters, digits, `_`, `-` and `*`"
            )));
        }
        if let Some((server, _)) = tool::split_mcp(tool)
            && server.is_empty()
        {
            return Err(RuleError::new(format!(
                "missing mcp server name in `{text}`: write `mcp__<server>` or `mcp__<server>__<tool>`"
            )));
        }
        let tool = crate::protocol::canonical_tool_name(tool).to_owned();
        let content = content.map(unescape_content);
        let raw = content.as_deref().unwrap_or_default();
        let content = raw.trim();
        if content.is_empty() && !raw.is_empty() {
            // Claude Code compares `( )` with the command and matches nothing; as an allow, our
            // tool-wide reading would approve everything. Neither is what the author meant.
            return Err(RuleError::new(format!(
                "empty pattern in `{text}`: write `{tool}` for the whole tool"
            )));
        }
        let specifier = if content.is_empty() || content == "*" {
            Specifier::All
        } else {
            interpret(&tool, content, text)?
        };
        Ok(Self { tool, specifier })
    }

    /// The specifier's content as written between the parentheses (before escaping), or `None`
    /// for a tool-wide rule.
    pub fn content(&self) -> Option<String> {
        match &self.specifier {
            Specifier::All => None,
            Specifier::Command(text) | Specifier::Path(text) | Specifier::Other(text) => {
                Some(text.clone())
            }
            Specifier::Domain(host) => Some(format!("domain:{host}")),
            Specifier::Param { name, value } => Some(format!("{name}:{value}")),
        }
    }
}

/// Interprets non-empty content for a tool (see [`Specifier`]).
fn interpret(tool: &str, content: &str, text: &str) -> Result<Specifier, RuleError> {
    let param = split_param(content);
    let fields = tool_fields(tool);
    if let (Some((name, value)), Some((primary, others))) = (param, fields) {
        if name == primary {
            let example = match value {
                "" => format!("{tool}(…)"),
                value => format!("{tool}({value})"),
            };
            return Err(RuleError::new(format!(
                "`{name}` is what `{tool}` rules match already, not a parameter: write `{example}` instead of `{text}`"
            )));
        }
        if others.contains(&name) {
            return param_specifier(name, value, text);
        }
    }
    if tool.starts_with("mcp__") || tool.contains('*') {
        return match param {
            Some((name, value)) => param_specifier(name, value, text),
            None => Err(RuleError::new(format!(
                "`{tool}` rules take no specifier other than `param:value`: write `{tool}` to match the tool in `{text}`"
            ))),
        };
    }
    if COMMAND_TOOLS.contains(&tool) {
        return Ok(Specifier::Command(content.to_owned()));
    }
    if PATH_TOOLS.contains(&tool) {
        // Validate now so that a bad glob is reported when the bundle loads. The list does not
        // change what is valid.
        PathPattern::new(content, RuleKind::Deny).map_err(RuleError::new)?;
        return Ok(Specifier::Path(content.to_owned()));
    }
    if tool == "WebFetch" {
        let Some(host) = content.strip_prefix("domain:") else {
            return Err(RuleError::new(format!(
                "webfetch rules take `domain:<host>`, got `{content}` in `{text}`"
            )));
        };
        let host = host.trim();
        DomainPattern::new(host).map_err(|e| RuleError::new(format!("{e} in `{text}`")))?;
        return Ok(Specifier::Domain(host.to_owned()));
    }
    match (param, fields) {
        (Some((name, value)), None) => param_specifier(name, value, text),
        _ => Ok(Specifier::Other(content.to_owned())),
    }
}

fn param_specifier(name: &str, value: &str, text: &str) -> Result<Specifier, RuleError> {
    if value.is_empty() {
        return Err(RuleError::new(format!(
            "empty value in parameter rule `{text}`: write `{name}:*` to match any value"
        )));
    }
    Ok(Specifier::Param {
        name: name.to_owned(),
        value: value.to_owned(),
    })
}

/// `name : value` with an identifier name → `(name, value)`, both trimmed.
fn split_param(content: &str) -> Option<(&str, &str)> {
    let (name, value) = content.split_once(':')?;
    let name = name.trim();
    let mut chars = name.chars();
    let first = chars.next()?;
    let identifier = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    identifier.then_some((name, value.trim()))
}

/// Whether the byte at `at` is preceded by an even number of backslashes.
fn is_unescaped(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or_default();
    before.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 0
}

fn first_unescaped(text: &str, wanted: char) -> Option<usize> {
    text.match_indices(wanted)
        .map(|(at, _)| at)
        .find(|at| is_unescaped(text, *at))
}

fn last_unescaped(text: &str, wanted: char) -> Option<usize> {
    text.rmatch_indices(wanted)
        .map(|(at, _)| at)
        .find(|at| is_unescaped(text, *at))
}

/// Claude Code's `unescapeRuleContent`: `\(` → `(`, `\)` → `)`, then `\\` → `\`.
fn unescape_content(content: &str) -> String {
    content
        .replace("\\(", "(")
        .replace("\\)", ")")
        .replace("\\\\", "\\")
}

/// Claude Code's `escapeRuleContent`: backslashes first, then parentheses.
fn escape_content(content: &str) -> String {
    content
        .replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

impl fmt::Display for PermissionRule {
    /// The canonical form: the resolved tool name, and the content escaped the way Claude Code
    /// writes rules. It parses back to an equal rule.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool)?;
        match self.content() {
            None => Ok(()),
            Some(content) => write!(f, "({})", escape_content(&content)),
        }
    }
}

/// A rule compiled for matching.
///
/// Every content matcher answers `true` for a tool-wide rule ([`Specifier::All`] covers every
/// input of its tool) and `false` when the rule's specifier is of another sort (a path rule never
/// matches a command).
#[derive(Debug, Clone)]
pub struct CompiledRule {
    rule: PermissionRule,
    kind: RuleKind,
    tool: ToolPattern,
    matcher: Matcher,
}

#[derive(Debug, Clone)]
enum Matcher {
    All,
    Command(CommandPattern),
    Path(Box<PathPattern>),
    Domain(DomainPattern),
    Param { name: String, value: Wildcard },
    Other(CommandPattern),
}

impl CompiledRule {
    /// Compiles a rule for one list. Globs and patterns are built here, once.
    pub fn new(rule: &PermissionRule, kind: RuleKind) -> Result<Self, RuleError> {
        let text = rule.to_string();
        let matcher = match &rule.specifier {
            Specifier::All => Matcher::All,
            Specifier::Command(pattern) => Matcher::Command(CommandPattern::new(pattern)),
            Specifier::Path(pattern) => Matcher::Path(Box::new(
                PathPattern::new(pattern, kind).map_err(RuleError::new)?,
            )),
            Specifier::Domain(host) => Matcher::Domain(
                DomainPattern::new(host).map_err(|e| RuleError::new(format!("{e} in `{text}`")))?,
            ),
            Specifier::Param { name, value } => Matcher::Param {
                name: name.clone(),
                value: Wildcard::parse(value),
            },
            Specifier::Other(pattern) => Matcher::Other(CommandPattern::new(pattern)),
        };
        Ok(Self {
            rule: rule.clone(),
            kind,
            tool: ToolPattern::new(&rule.tool, kind),
            matcher,
        })
    }

    /// The rule this was compiled from.
    pub fn rule(&self) -> &PermissionRule {
        &self.rule
    }

    /// The list the rule was compiled for.
    pub fn kind(&self) -> RuleKind {
        self.kind
    }

    /// Whether the rule names this tool: exactly (legacy names such as `Task` resolved; `Bash`
    /// also names `mcp__workspace__bash` and `WebFetch` names `mcp__workspace__web_fetch`),
    /// through an MCP server rule (`mcp__srv`, `mcp__srv__*`), or through a tool-name glob. An
    /// allow glob counts only after a literal `mcp__<server>__`; `*` or `mcp__*` in allow
    /// matches nothing.
    pub fn matches_tool(&self, tool_name: &str) -> bool {
        self.tool.is_match(tool_name)
    }

    /// Whether a command pattern matches one simple-command text (already split from compound
    /// commands and stripped of wrappers by the caller).
    ///
    /// Exact patterns compare with the trimmed text; `prefix:*` and a pattern whose only
    /// wildcard is a trailing ` *` match the prefix alone or followed by a space; otherwise each
    /// unescaped `*` matches any text (spaces included) and every one is mandatory; `\*` is a
    /// literal star. Runs of spaces and tabs count as one space. Case-sensitive.
    pub fn matches_command(&self, text: &str) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Command(pattern) => pattern.is_match(text),
            _ => false,
        }
    }

    /// Whether a path pattern matches a canonical absolute path (see
    /// [`crate::paths::canonicalize`]).
    ///
    /// `//x` is rooted at `/`, `~/x` at the home (no known home: only paths that are themselves
    /// written `~/…` can match), `/x`, `./x` and `x` at `ctx.cwd`. Below the anchor, gitignore
    /// syntax: a pattern without a slash matches at any depth, others are anchored; a match
    /// covers everything under it; `src/**` is any-depth in deny/ask, `<cwd>/src` only in allow.
    /// Deny and ask compare case-insensitively below the anchor, allow case-sensitively.
    pub fn matches_path(&self, path: &str, ctx: &PathContext<'_>) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Path(pattern) => pattern.is_match(path, ctx),
            _ => false,
        }
    }

    /// What decides [`Self::path_rejected_by_key`] (see [`PathPattern::key`]).
    pub(crate) fn path_key(&self) -> Option<PathKey<'_>> {
        match &self.matcher {
            Matcher::Path(pattern) => pattern.key(),
            _ => None,
        }
    }

    /// Whether [`Self::matches_path_probe`] is `false` from the rule's [`Self::path_key`] alone,
    /// and so for every rule with an equal key.
    pub(crate) fn path_rejected_by_key(&self, probe: &PathProbe<'_>) -> bool {
        match &self.matcher {
            Matcher::Path(pattern) => pattern.rejects_by_key(probe),
            _ => false,
        }
    }

    /// [`Self::matches_path`] for a path located once ([`PathProbe::new`]) and tried against
    /// many rules.
    pub fn matches_path_probe(&self, probe: &PathProbe<'_>) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Path(pattern) => pattern.is_match_probe(probe),
            _ => false,
        }
    }

    /// Whether a recursive read of directory `dir` (`grep -r x DIR`, `cp -r DIR`, `tar c DIR`,
    /// Grep/Glob with `path: DIR`) should count as reading what this path rule protects. `dir`
    /// is canonical. Call it in addition to [`CompiledRule::matches_path`] (which covers `dir`
    /// itself lying inside a match).
    ///
    /// The rule: split the pattern into its literal base (the anchor and the glob-free segments
    /// after it) and the rest.
    /// - The base lies strictly under `dir` → `true`: the read contains the rule's whole scope
    ///   (`Read(~/.ssh/**)` and `grep -r token ~` or `… /`).
    /// - The base is `dir`, or lies on the way from `dir` down to it through the pattern's
    ///   segments (one-segment globs compared with `dir`'s segments) → `true` when the rest
    ///   names something at a bounded depth (`~/.ssh/*.pem` read from `~/.ssh`,
    ///   `~/.aws/*/credentials` read from `~/.aws/prod`), `false` when the rest starts with `**`.
    /// - Otherwise (disjoint, or a `dir` a segment of the pattern does not match) → `false`.
    ///
    /// The `**` exception is deliberate: an any-depth pattern such as `Read(**/.env)` or
    /// `Read(.env)` is a needle, not a place. Flagging every recursive read whose root is at or
    /// below the needle's base would make `grep -r foo .` in any project with a `.env` rule
    /// ask or deny (Claude Code issue #91995), so such reads are left to content-level checks;
    /// the rule still fires when the read's root contains the rule's whole anchor (`grep -r x
    /// ~` with a project-relative `Read(.env)`).
    pub fn may_match_under(&self, dir: &str, ctx: &PathContext<'_>) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Path(pattern) => pattern.may_match_under(dir, ctx),
            _ => false,
        }
    }

    /// Whether a domain pattern matches a host: case-insensitive, trailing dots ignored;
    /// `*.example.com` matches any subdomain depth but not `example.com`; `*` matches every
    /// host; any other `*` matches within one label.
    pub fn matches_host(&self, host: &str) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Domain(pattern) => pattern.is_match(host),
            _ => false,
        }
    }

    /// Whether a parameter rule matches the tool input: the named top-level field is a string,
    /// number or boolean whose text matches the value pattern (`*` is a wildcard; otherwise
    /// exact and case-sensitive). An absent, null, array or object field never matches.
    pub fn matches_param(&self, input: &Value) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Param { name, value } => match input.get(name) {
                Some(Value::String(text)) => value.is_match(text),
                Some(Value::Bool(flag)) => value.is_match(if *flag { "true" } else { "false" }),
                Some(Value::Number(number)) => value.is_match(&number.to_string()),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether an other-specifier rule (`Agent(Explore)`, `Skill(deploy *)`) matches the tool's
    /// primary field (`subagent_type`, `skill`), with the command-pattern syntax: exact,
    /// `prefix:*`, optional trailing ` *`, `*` wildcards.
    pub fn matches_other(&self, value: &str) -> bool {
        match &self.matcher {
            Matcher::All => true,
            Matcher::Other(pattern) => pattern.is_match(value),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
