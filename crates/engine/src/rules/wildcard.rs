//! The `*` wildcard of Claude Code's command, skill, agent, parameter and tool-name patterns.
//!
//! An unescaped `*` matches any text (spaces and newlines included); `\*` is a literal asterisk
//! and `\\` a literal backslash; any other backslash is literal. The pattern is split once into
//! its literal pieces, and matching walks the text with `starts_with`/`find`/`ends_with`: no
//! regex, no allocation, linear in the text for each piece.
//!
//! This module knows nothing about rule kinds, whitespace or word boundaries: callers normalise
//! their text and decide what a trailing ` *` means.

/// A compiled wildcard pattern: literal pieces separated by `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wildcard {
    // INVARIANT: never empty; `pieces.len() - 1` is the number of unescaped stars.
    pieces: Vec<String>,
}

impl Wildcard {
    /// Parses a pattern, honouring `\*` and `\\` escapes.
    pub(crate) fn parse(pattern: &str) -> Self {
        let mut pieces = vec![String::new()];
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            let current = match pieces.last_mut() {
                Some(current) => current,
                None => break,
            };
            match c {
                '\\' => match chars.peek() {
                    Some(&next @ ('*' | '\\')) => {
                        current.push(next);
                        chars.next();
                    }
                    _ => current.push('\\'),
                },
                '*' => pieces.push(String::new()),
                other => current.push(other),
            }
        }
        Self { pieces }
    }

    /// The number of unescaped stars.
    #[cfg(test)]
    pub(crate) fn stars(&self) -> usize {
        self.pieces.len().saturating_sub(1)
    }

    /// The literal pieces (one more than [`Wildcard::stars`]).
    pub(crate) fn pieces(&self) -> &[String] {
        &self.pieces
    }

    /// Whether the whole of `text` matches.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        let Some((first, rest)) = self.pieces.split_first() else {
            return false;
        };
        let Some((last, middle)) = rest.split_last() else {
            return text == first;
        };
        let Some(mut remaining) = text.strip_prefix(first.as_str()) else {
            return false;
        };
        // Leftmost placement of each middle piece is optimal for `*`-only patterns: it leaves
        // the most text for the pieces after it.
        for piece in middle {
            let Some(at) = remaining.find(piece.as_str()) else {
                return false;
            };
            match remaining.get(at + piece.len()..) {
                Some(after) => remaining = after,
                None => return false,
            }
        }
        remaining.ends_with(last.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(pattern: &str, text: &str) -> bool {
        Wildcard::parse(pattern).is_match(text)
    }

    #[test]
    fn literal_patterns_compare_exactly() {
        assert!(m("ls -la", "ls -la"));
        assert!(!m("ls -la", "ls -la "));
        assert!(!m("ls", "LS"));
        assert!(m("", ""));
        assert!(!m("", "x"));
    }

    #[test]
    fn star_matches_any_text_including_spaces() {
        assert!(m("ls*", "lsof"));
        assert!(m("ls*", "ls"));
        assert!(m("git * main", "git push origin main"));
        assert!(!m("git * main", "git main"));
        assert!(m("* --help *", "npm --help x"));
        assert!(!m("* --help *", "npm --help"));
        assert!(m("a*b*c", "abc"));
        assert!(m("a*b*c", "a-b-b-c"));
        assert!(!m("a*b*c", "acb"));
        assert!(m("*", ""));
        assert!(m("**", "anything at all"));
        assert!(m("x*", "x\nrm -rf /"));
    }

    #[test]
    fn pieces_may_not_overlap() {
        assert!(!m("ab*ba", "aba"));
        assert!(m("ab*ba", "abba"));
        assert!(!m("aa*aa", "aaa"));
    }

    #[test]
    fn escapes_make_stars_and_backslashes_literal() {
        let escaped = Wildcard::parse(r"echo \*");
        assert_eq!(escaped.stars(), 0);
        assert!(escaped.is_match("echo *"));
        assert!(!escaped.is_match("echo x"));
        assert!(m(r"a\\*", r"a\xyz"));
        assert!(m(r"a\b", r"a\b"));
        assert!(m("tail\\", "tail\\"));
        assert_eq!(Wildcard::parse(r"\**").stars(), 1);
        assert!(m(r"\**", "*abc"));
        assert!(!m(r"\**", "abc"));
    }

    #[test]
    fn multibyte_text_is_safe() {
        assert!(m("é*ü", "éxyzü"));
        assert!(m("*ü", "ü"));
        assert!(!m("ü*ü", "ü"));
    }

    /// A reference matcher: the same semantics through a regex.
    fn reference(pattern: &Wildcard, text: &str) -> bool {
        let body: Vec<String> = pattern.pieces().iter().map(|p| regex::escape(p)).collect();
        regex::Regex::new(&format!("(?s)^{}$", body.join(".*")))
            .map(|re| re.is_match(text))
            .unwrap_or(false)
    }

    proptest! {
        #[test]
        fn agrees_with_a_regex(pattern in "[ab* \\\\]{0,8}", text in "[ab \\\\*]{0,12}") {
            let compiled = Wildcard::parse(&pattern);
            prop_assert_eq!(compiled.is_match(&text), reference(&compiled, &text));
        }

        #[test]
        fn never_panics(pattern in any::<String>(), text in any::<String>()) {
            let _ = Wildcard::parse(&pattern).is_match(&text);
        }
    }
}
