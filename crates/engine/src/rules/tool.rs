//! Which tools a rule's tool position names: exact names (with legacy and proxy aliases), MCP
//! server-level rules and tool-name globs.
//!
//! - `Bash` names `Bash`; it also covers Claude Code's proxy `mcp__workspace__bash`, and
//!   `WebFetch` covers `mcp__workspace__web_fetch`. Legacy names in the *input* (`Task`) are
//!   resolved the same way as in rules.
//! - `mcp__srv`, `mcp__srv__` and `mcp__srv__*` cover every tool of server `srv` (the server is
//!   the text between `mcp__` and the next `__`, as Claude Code splits it).
//! - Any other `*` is a glob over the whole name. In **allow** rules a glob counts only after a
//!   literal `mcp__<server>__` prefix (`mcp__github__get_*`); `*`, `B*` or `mcp__*` in allow
//!   match nothing, as in Claude Code (which skips them with a warning; see `lint`).
//!
//! Names are compared case-sensitively. This module does not validate names: `parse` does.

use super::RuleKind;
use super::wildcard::Wildcard;
use crate::protocol::canonical_tool_name;

/// A compiled tool-name pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolPattern {
    /// One tool (already alias-resolved).
    Exact(String),
    /// Every tool of one MCP server.
    McpServer(String),
    /// A glob over the full name.
    Glob(Wildcard),
    /// An unanchored allow glob: matches nothing.
    Never,
}

/// `mcp__srv__tool` → `("srv", Some("tool"))`, `mcp__srv` → `("srv", None)`.
pub(crate) fn split_mcp(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    Some(match rest.split_once("__") {
        Some((server, tool)) => (server, Some(tool)),
        None => (rest, None),
    })
}

/// Whether an allow rule may use this tool-name glob: only after a literal `mcp__<server>__`.
pub(crate) fn is_anchored_allow_glob(tool: &str) -> bool {
    match split_mcp(tool) {
        Some((server, Some(_))) => !server.is_empty() && !server.contains('*'),
        _ => false,
    }
}

impl ToolPattern {
    /// Compiles the tool position of a rule (already alias-resolved by `parse`).
    pub(crate) fn new(tool: &str, kind: RuleKind) -> Self {
        if let Some((server, rest)) = split_mcp(tool)
            && !server.contains('*')
            && matches!(rest, None | Some("") | Some("*"))
        {
            return Self::McpServer(server.to_owned());
        }
        if tool.contains('*') {
            if kind == RuleKind::Allow && !is_anchored_allow_glob(tool) {
                return Self::Never;
            }
            return Self::Glob(Wildcard::parse(tool));
        }
        Self::Exact(tool.to_owned())
    }

    /// Whether the pattern names the tool called `name`.
    pub(crate) fn is_match(&self, name: &str) -> bool {
        let name = canonical_tool_name(name);
        match self {
            Self::Exact(tool) => {
                name == tool
                    || matches!(
                        (tool.as_str(), name),
                        ("Bash", "mcp__workspace__bash")
                            | ("WebFetch", "mcp__workspace__web_fetch")
                    )
            }
            Self::McpServer(server) => split_mcp(name).is_some_and(|(s, _)| s == server),
            Self::Glob(glob) => glob.is_match(name),
            Self::Never => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(tool: &str, kind: RuleKind, name: &str) -> bool {
        ToolPattern::new(tool, kind).is_match(name)
    }

    #[test]
    fn exact_names_are_case_sensitive_and_resolve_aliases() {
        assert!(m("Bash", RuleKind::Deny, "Bash"));
        assert!(!m("Bash", RuleKind::Deny, "bash"));
        assert!(!m("bash", RuleKind::Deny, "Bash"));
        assert!(m("Agent", RuleKind::Deny, "Task"));
        assert!(m("TaskStop", RuleKind::Allow, "KillShell"));
        assert!(!m("Edit", RuleKind::Deny, "Write"));
    }

    #[test]
    fn proxy_tools_are_covered() {
        assert!(m("Bash", RuleKind::Deny, "mcp__workspace__bash"));
        assert!(m("WebFetch", RuleKind::Allow, "mcp__workspace__web_fetch"));
        assert!(!m("Read", RuleKind::Deny, "mcp__workspace__bash"));
    }

    #[test]
    fn mcp_server_rules_cover_every_tool_of_the_server() {
        for rule in ["mcp__puppeteer", "mcp__puppeteer__*", "mcp__puppeteer__"] {
            for kind in [RuleKind::Allow, RuleKind::Deny] {
                assert!(m(rule, kind, "mcp__puppeteer__navigate"), "{rule}");
                assert!(m(rule, kind, "mcp__puppeteer__a__b"), "{rule}");
                assert!(!m(rule, kind, "mcp__puppeteer2__navigate"), "{rule}");
                assert!(!m(rule, kind, "mcp__puppet__navigate"), "{rule}");
                assert!(!m(rule, kind, "puppeteer__navigate"), "{rule}");
            }
        }
        assert!(m(
            "mcp__puppeteer__navigate",
            RuleKind::Allow,
            "mcp__puppeteer__navigate"
        ));
        assert!(!m(
            "mcp__puppeteer__navigate",
            RuleKind::Allow,
            "mcp__puppeteer__click"
        ));
    }

    #[test]
    fn deny_and_ask_accept_any_glob() {
        assert!(m("*", RuleKind::Deny, "Bash"));
        assert!(m("*", RuleKind::Ask, "mcp__x__y"));
        assert!(m("mcp__*", RuleKind::Deny, "mcp__github__get_issue"));
        assert!(!m("mcp__*", RuleKind::Deny, "Bash"));
        assert!(m("B*", RuleKind::Deny, "Bash"));
        assert!(m(
            "mcp__*__delete_*",
            RuleKind::Deny,
            "mcp__gh__delete_repo"
        ));
        assert!(!m("mcp__*__delete_*", RuleKind::Deny, "mcp__gh__get_repo"));
    }

    #[test]
    fn allow_globs_need_a_literal_server() {
        assert!(m(
            "mcp__github__get_*",
            RuleKind::Allow,
            "mcp__github__get_issue"
        ));
        assert!(!m(
            "mcp__github__get_*",
            RuleKind::Allow,
            "mcp__github__delete_repo"
        ));
        assert!(!m(
            "mcp__github__get_*",
            RuleKind::Allow,
            "mcp__gitlab__get_issue"
        ));
        for unanchored in ["*", "B*", "mcp__*", "mcp__*__get"] {
            assert_eq!(
                ToolPattern::new(unanchored, RuleKind::Allow),
                ToolPattern::Never
            );
            assert!(!m(unanchored, RuleKind::Allow, "Bash"));
            assert!(!m(unanchored, RuleKind::Allow, "mcp__x__get"));
        }
        assert!(is_anchored_allow_glob("mcp__github__*"));
        assert!(!is_anchored_allow_glob("mcp____x*"));
    }
}
