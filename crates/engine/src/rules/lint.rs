//! Warnings for rules that parse but that Claude Code would skip, or that probably do not mean
//! what their author thinks.
//!
//! Each lint has a stable code:
//! - `write-rule-ignored`: `Write(path)`, `Glob(path)`, `NotebookEdit(path)`, `MultiEdit(path)`;
//!   Claude Code only consults `Edit(…)` and `Read(…)` path rules.
//! - `mid-pattern-prefix`: `:*` before the end of a pattern (`git:* push`) is literal text.
//! - `lowercase-tool`: tool names are case-sensitive; `bash(ls)` matches no tool.
//! - `single-slash-path`: `/Users/…`, `/home/…`, `/etc/…` is relative to the project root
//!   (or `~/.claude` in user settings); `//…` is the file-system root.
//! - `interpreter-allow`: an allow rule that lets any code run (`Bash(python:*)`, `Bash(*)`,
//!   `Bash(npx *)`); Claude Code drops these when it enters auto mode.
//! - `agent-allow`: any `Agent` allow rule, also dropped in auto mode.
//! - `unanchored-allow-glob`: an allow tool glob without a literal `mcp__<server>__` prefix
//!   approves nothing.
//! - `mid-pattern-wildcard`: a `*` before the end of an allow command pattern spans options and
//!   subcommands (`git * main` allows `git -c core.fsmonitor=… diff main`).
//! - `param-allow-ignored`: parameter rules only apply to deny and ask.
//! - `mcp-specifier-ignored`: Claude Code skips `mcp__…(…)` rules in settings files.
//! - `content-ignored`: content for a tool that takes none (`WebSearch(x)`, `ExitPlanMode(x)`);
//!   only `Agent(type)` and `Skill(name)` have an other-specifier to match, so the rule never
//!   matches.
//!
//! Each has a [`Severity`]: an `error` is a rule that does nothing, or not what it reads as
//! (`write-rule-ignored`, `mid-pattern-prefix`, `lowercase-tool`, `single-slash-path`,
//! `unanchored-allow-glob`, `param-allow-ignored`, `content-ignored`); a `warning` is a rule that
//! works but is risky or works differently in Claude Code and toolgate (`interpreter-allow`,
//! `agent-allow`, `mid-pattern-wildcard`, `mcp-specifier-ignored`).
//!
//! This module only reports; it must not change or reject rules (errors belong to `parse`).

use super::wildcard::Wildcard;
use super::{PermissionRule, RuleKind, Specifier, tool};

/// How much a finding about a bundle that loads matters (`toolgate lint` exits 1 on errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The rule does nothing, or something other than it reads as.
    Error,
    /// The rule works, but is risky, or works differently in Claude Code and toolgate.
    Warning,
    /// Something toolgate does not read (a settings key it does not enforce): nothing is wrong.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lint finding: a rule that parses but that Claude Code would ignore or that looks wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// A stable code (`write-rule-ignored`).
    pub code: &'static str,
    /// How much it matters ([`severity`]).
    pub severity: Severity,
    /// What is wrong and what to write instead.
    pub message: String,
}

/// The severity of a lint code: an error for a rule that does nothing or not what it reads as,
/// else a warning.
pub fn severity(code: &str) -> Severity {
    match code {
        "write-rule-ignored"
        | "mid-pattern-prefix"
        | "lowercase-tool"
        | "single-slash-path"
        | "unanchored-allow-glob"
        | "param-allow-ignored"
        | "content-ignored" => Severity::Error,
        _ => Severity::Warning,
    }
}

/// Tool names that Claude Code knows, for the lowercase-name suggestion.
const KNOWN_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "LSP",
    "Monitor",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Read",
    "Skill",
    "TaskOutput",
    "TaskStop",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Claude Code's `DANGEROUS_BASH_PATTERNS` (external users).
const DANGEROUS_COMMANDS: &[&str] = &[
    "python", "python3", "python2", "node", "deno", "tsx", "ruby", "perl", "php", "lua", "npx",
    "bunx", "npm run", "yarn run", "pnpm run", "bun run", "bash", "sh", "ssh", "zsh", "fish",
    "eval", "exec", "env", "xargs", "sudo",
];

/// Claude Code's extra PowerShell patterns.
const DANGEROUS_POWERSHELL: &[&str] = &[
    "pwsh",
    "powershell",
    "cmd",
    "wsl",
    "iex",
    "invoke-expression",
    "icm",
    "invoke-command",
    "start-process",
    "saps",
    "start",
    "start-job",
    "sajb",
    "start-threadjob",
    "register-objectevent",
    "register-engineevent",
    "register-wmievent",
    "register-scheduledjob",
    "new-pssession",
    "nsn",
    "enter-pssession",
    "etsn",
    "add-type",
    "new-object",
];

/// Top-level directories that mark a `/…` pattern as meant to be absolute.
const ABSOLUTE_LOOKING: &[&str] = &[
    "Users", "home", "etc", "root", "private", "Volumes", "usr", "var", "opt",
];

/// Lints one rule of one list.
///
/// ```
/// use toolgate_engine::rules::{lint, PermissionRule, RuleKind};
/// let rule = PermissionRule::parse("Write(src/**)")?;
/// let codes: Vec<_> = lint(&rule, RuleKind::Deny).iter().map(|l| l.code).collect();
/// assert_eq!(codes, ["write-rule-ignored"]);
/// # Ok::<(), toolgate_engine::rules::RuleError>(())
/// ```
pub fn lint(rule: &PermissionRule, kind: RuleKind) -> Vec<Lint> {
    let mut lints = Vec::new();
    let mut push = |code: &'static str, message: String| {
        lints.push(Lint {
            code,
            severity: severity(code),
            message,
        })
    };
    let tool = rule.tool.as_str();
    let shown = rule.to_string();

    if tool.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && !tool.starts_with("mcp__")
        && !tool.contains('*')
    {
        let hint = KNOWN_TOOLS
            .iter()
            .find(|known| known.eq_ignore_ascii_case(tool))
            .map(|known| format!("; did you mean `{known}`?"))
            .unwrap_or_default();
        push(
            "lowercase-tool",
            format!(
                "tool names are case-sensitive: `{shown}` matches no tool named `{tool}`{hint}"
            ),
        );
    }

    if let Specifier::Path(path) = &rule.specifier {
        let replacement = match tool {
            "Write" | "NotebookEdit" | "MultiEdit" => Some("Edit"),
            "Glob" => Some("Read"),
            _ => None,
        };
        if let Some(replacement) = replacement {
            push(
                "write-rule-ignored",
                format!(
                    "Claude Code never consults `{tool}(…)` path rules: write `{replacement}({path})`, which covers {}",
                    if replacement == "Edit" {
                        "Edit, Write and NotebookEdit"
                    } else {
                        "Read, Grep, Glob and LSP"
                    }
                ),
            );
        }
        if let Some(rest) = path.strip_prefix('/')
            && !rest.starts_with('/')
            && let Some(first) = rest.split('/').next()
            && ABSOLUTE_LOOKING.contains(&first)
        {
            push(
                "single-slash-path",
                format!(
                    "`{shown}`: a single leading `/` means the project root (in user settings, `~/.claude`), not the file-system root: write `{tool}(/{path})` for the absolute path `{path}`"
                ),
            );
        }
    }

    if let Specifier::Command(content) | Specifier::Other(content) = &rule.specifier
        && let Some(at) = content.find(":*")
        && at + 2 != content.len()
    {
        push(
            "mid-pattern-prefix",
            format!(
                "`:*` is a prefix marker only at the end of a pattern: in `{shown}` it is a literal `:` followed by a wildcard; write `*` or move `:*` to the end"
            ),
        );
    }

    if let Specifier::Other(content) = &rule.specifier
        && !matches!(tool, "Agent" | "Skill")
        && !tool.starts_with(|c: char| c.is_ascii_lowercase())
    {
        push(
            "content-ignored",
            format!(
                "`{tool}` takes no content (only `Agent(type)` and `Skill(name)` match one), so `{shown}` never matches: write `{tool}` for the whole tool, or `{tool}(field:value)` for one input field; got `{content}`"
            ),
        );
    }

    if kind == RuleKind::Allow {
        allow_lints(rule, &shown, &mut push);
    }

    if tool.starts_with("mcp__") && rule.specifier != Specifier::All {
        push(
            "mcp-specifier-ignored",
            format!(
                "Claude Code skips `mcp__…(…)` rules in settings files (it honours them only in `--disallowedTools`); toolgate applies `{shown}`"
            ),
        );
    }
    lints
}

fn allow_lints(rule: &PermissionRule, shown: &str, push: &mut impl FnMut(&'static str, String)) {
    let tool = rule.tool.as_str();
    if tool.contains('*') && !tool::is_anchored_allow_glob(tool) {
        push(
            "unanchored-allow-glob",
            format!(
                "allow rules accept a tool-name glob only after a literal `mcp__<server>__` prefix: `{shown}` approves nothing"
            ),
        );
    }
    if matches!(rule.specifier, Specifier::Param { .. }) {
        push(
            "param-allow-ignored",
            format!(
                "parameter rules apply to deny and ask only: `{shown}` approves nothing; allow rules use the tool's own specifier"
            ),
        );
    }
    if tool == "Agent" {
        push(
            "agent-allow",
            format!(
                "Claude Code drops every `Agent` allow rule, including `{shown}`, in auto mode"
            ),
        );
    }
    let shell_list: &[&[&str]] = match tool {
        "Bash" | "Monitor" => &[DANGEROUS_COMMANDS],
        "PowerShell" => &[DANGEROUS_COMMANDS, DANGEROUS_POWERSHELL],
        _ => &[],
    };
    if !shell_list.is_empty() {
        let dangerous = match &rule.specifier {
            Specifier::All => true,
            Specifier::Command(content) => {
                let lower = content.trim().to_lowercase();
                lower.chars().all(|c| c == ' ' || c == '*')
                    || shell_list.iter().flat_map(|list| list.iter()).any(|p| {
                        let exe = format!("{p}.exe");
                        [*p, exe.as_str()].iter().any(|p| runs_anything(&lower, p))
                    })
            }
            _ => false,
        };
        if dangerous {
            push(
                "interpreter-allow",
                format!(
                    "`{shown}` lets the agent run arbitrary code (an interpreter, package runner, shell or exec wrapper, or every command); Claude Code drops it in auto mode"
                ),
            );
        }
        if let Specifier::Command(content) = &rule.specifier
            && !content.trim_end().ends_with(":*")
        {
            let wildcard = Wildcard::parse(content.trim());
            let pieces = wildcard.pieces();
            if pieces.iter().skip(1).any(|piece| !piece.trim().is_empty()) {
                push(
                    "mid-pattern-wildcard",
                    format!(
                        "a `*` before the end of `{shown}` matches any options and subcommands in between (`git * main` also allows `git -c core.fsmonitor=… diff main`)"
                    ),
                );
            }
        }
    }
}

/// Claude Code's `isDangerousBashPermission` shape test for one pattern `p`.
fn runs_anything(content: &str, p: &str) -> bool {
    content == p
        || content == format!("{p}:*")
        || content == format!("{p}*")
        || content == format!("{p} *")
        || (content.starts_with(&format!("{p} -")) && content.ends_with('*'))
}
