//! Bash / PowerShell / Monitor command patterns, and the same syntax for `Skill(…)`/`Agent(…)`.
//!
//! Three shapes, as in Claude Code (`shellRuleMatching.ts`):
//! - **legacy prefix** `prefix:*` (`:*` at the very end only): the text equals the prefix or
//!   starts with the prefix followed by a space (a word boundary);
//! - **wildcard**: an unescaped `*` matches any text. When the pattern ends in ` *` and that is
//!   its only wildcard, the tail is optional, which is the same word-boundary prefix match
//!   (`ls *` matches `ls` and `ls -la` but not `lsof`);
//! - **exact**: no unescaped `*`; the text must be equal.
//!
//! Pattern and text are trimmed and runs of spaces and tabs collapse to one space before
//! comparing. Matching is case-sensitive.
//!
//! This module matches one already-split simple command. It must not split compound commands,
//! strip wrappers or environment assignments: that is `shell`'s job.

use std::borrow::Cow;

use super::wildcard::Wildcard;

/// A compiled command (or other-content) pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommandPattern {
    /// Equal to the text (escapes resolved).
    Exact(String),
    /// Equal to the text, or a prefix of it followed by a space.
    Prefix(String),
    /// Unescaped `*` matches anything; every wildcard is mandatory.
    Wildcard(Wildcard),
}

impl CommandPattern {
    /// Compiles a pattern. `content` is the rule content after rule-level unescaping.
    pub(crate) fn new(content: &str) -> Self {
        let content = normalize_whitespace(content);
        if let Some(prefix) = content.strip_suffix(":*")
            && !prefix.is_empty()
        {
            // Legacy `prefix:*`: the prefix is compared literally, as Claude Code does.
            return Self::Prefix(prefix.trim_end().to_owned());
        }
        let wildcard = Wildcard::parse(&content);
        match wildcard.pieces() {
            [exact] => Self::Exact(exact.clone()),
            [head, tail] if tail.is_empty() && head.ends_with(' ') => {
                Self::Prefix(head.trim_end().to_owned())
            }
            _ => Self::Wildcard(wildcard),
        }
    }

    /// Whether the pattern matches one simple-command text.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let text = normalize_whitespace(text);
        match self {
            Self::Exact(exact) => *text == **exact,
            Self::Prefix(prefix) => text
                .strip_prefix(prefix.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' ')),
            Self::Wildcard(wildcard) => wildcard.is_match(&text),
        }
    }
}

/// Trims, and collapses runs of spaces and tabs into one space. Borrows when nothing changes.
pub(crate) fn normalize_whitespace(text: &str) -> Cow<'_, str> {
    let trimmed = text.trim();
    let needs_work = trimmed.contains('\t') || trimmed.contains("  ");
    if !needs_work {
        return Cow::Borrowed(trimmed);
    }
    let mut out = String::with_capacity(trimmed.len());
    let mut in_run = false;
    for c in trimmed.chars() {
        if c == ' ' || c == '\t' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, text: &str) -> bool {
        CommandPattern::new(pattern).is_match(text)
    }

    #[test]
    fn shapes_are_recognised() {
        assert_eq!(
            CommandPattern::new("npm run test:*"),
            CommandPattern::Prefix("npm run test".into())
        );
        assert_eq!(
            CommandPattern::new("ls *"),
            CommandPattern::Prefix("ls".into())
        );
        assert_eq!(
            CommandPattern::new("npm run build"),
            CommandPattern::Exact("npm run build".into())
        );
        assert!(matches!(
            CommandPattern::new("git * main"),
            CommandPattern::Wildcard(_)
        ));
        assert!(matches!(
            CommandPattern::new("ls*"),
            CommandPattern::Wildcard(_)
        ));
        // `:*` only counts at the end: mid-pattern the colon is literal and the star a wildcard.
        assert_eq!(
            CommandPattern::new("git:* push"),
            CommandPattern::Wildcard(Wildcard::parse("git:* push"))
        );
    }

    #[test]
    fn exact_rules_compare_the_trimmed_normalised_command() {
        assert!(m("npm run build", "npm run build"));
        assert!(m("npm run build", "  npm   run\tbuild "));
        assert!(!m("npm run build", "npm run build --watch"));
        assert!(!m("npm run build", "npm run buil"));
        assert!(!m("Npm run build", "npm run build"));
        assert!(m("  npm  run build ", "npm run build"));
    }

    #[test]
    fn legacy_prefix_needs_a_word_boundary() {
        assert!(m("npm run test:*", "npm run test"));
        assert!(m("npm run test:*", "npm run test --watch"));
        assert!(!m("npm run test:*", "npm run test:unit"));
        assert!(!m("npm run test:*", "npm run tests"));
        assert!(m("git:*", "git status"));
        assert!(!m("git:*", "gitk"));
        assert!(m("git push --force:*", "git   push --force origin"));
        // The legacy prefix is literal: a star inside it is not a wildcard.
        assert!(m("echo *:*", "echo * x"));
        assert!(!m("echo *:*", "echo x"));
    }

    #[test]
    fn trailing_space_star_is_an_optional_tail() {
        assert!(m("ls *", "ls"));
        assert!(m("ls *", "ls -la"));
        assert!(!m("ls *", "lsof"));
        assert!(m("git log *", "git log"));
        assert!(m("npm run test *", "npm run test"));
        assert!(!m("npm run test *", "npm run test:unit"));
    }

    #[test]
    fn several_wildcards_are_all_mandatory() {
        assert!(m("* --help *", "npm --help x"));
        assert!(!m("* --help *", "npm --help"));
        assert!(m("git * main", "git push origin main"));
        assert!(m("git * main", "git -c core.fsmonitor=x diff main"));
        assert!(!m("git log * main", "git log main"));
        assert!(m("git log * main", "git log --oneline main"));
    }

    #[test]
    fn star_without_space_matches_inside_a_word() {
        assert!(m("ls*", "lsof"));
        assert!(m("ls*", "ls"));
        assert!(m("python*", "python3 -c 'x'"));
        assert!(m("rm -rf *", "rm -rf /"));
        assert!(m("rm -rf *", "rm -rf"));
    }

    #[test]
    fn escaped_star_is_literal() {
        assert!(m(r"echo \*", "echo *"));
        assert!(!m(r"echo \*", "echo hi"));
        assert!(m(r"rm \* *", "rm * -f"));
        assert!(!m(r"rm \* *", "rm x -f"));
    }

    #[test]
    fn normalisation_borrows_when_it_can() {
        assert!(matches!(
            normalize_whitespace("ls -la"),
            Cow::Borrowed("ls -la")
        ));
        assert!(matches!(normalize_whitespace(" ls "), Cow::Borrowed("ls")));
        assert_eq!(normalize_whitespace("a \t b\t\tc"), "a b c");
        // Newlines are not spaces: they stay (a wildcard may span them).
        assert_eq!(normalize_whitespace("a\nb"), "a\nb");
    }
}
