//! Rule data and its compilation: the vendored gitleaks rule set (`gitleaks/rules.json`, read with
//! serde_json on first use), the per-rule and global allowlists, and the Shannon entropy measure.
//!
//! Patterns are compiled as ASCII byte regexes (`unicode(false)`), which is both the faithful port
//! of Go RE2's ASCII `\w`/`\s`/`\b` and ~100× cheaper to compile than Unicode mode. A pattern that
//! does not compile is skipped and counted, never a panic. Nothing here sees or keeps scanned text.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The vendored rule data (see `gitleaks/NOTICE`).
pub(super) const RULES_JSON: &str = include_str!("gitleaks/rules.json");

/// Compiled-program size limit per pattern; the largest gitleaks pattern needs a few MiB.
const SIZE_LIMIT: usize = 64 << 20;
/// Lazy-DFA cache limit per pattern.
const DFA_SIZE_LIMIT: usize = 8 << 20;

/// The rule file as stored.
#[derive(Deserialize)]
pub(super) struct RawData<'a> {
    #[serde(borrow)]
    pub allowlist: RawAllowlist<'a>,
    #[serde(borrow)]
    pub rules: Vec<RawRule<'a>>,
}

/// One `[[rules]]` entry as stored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawRule<'a> {
    pub id: &'a str,
    #[serde(borrow)]
    pub description: Cow<'a, str>,
    #[serde(borrow)]
    pub regex: Cow<'a, str>,
    #[serde(default)]
    pub secret_group: Option<usize>,
    #[serde(default)]
    pub entropy: Option<f64>,
    #[serde(default, borrow)]
    pub keywords: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub path: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub allowlists: Vec<RawAllowlist<'a>>,
}

/// One allowlist as stored (gitleaks field names; `secretSha256` is toolgate's).
#[derive(Debug, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawAllowlist<'a> {
    #[serde(default, borrow)]
    pub condition: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub regex_target: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub regexes: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub paths: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub stopwords: Vec<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub secret_sha256: Vec<Cow<'a, str>>,
}

/// What an allowlist's regexes are matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// The secret (capture group).
    Secret,
    /// The whole regex match.
    Match,
    /// The line(s) holding the match.
    Line,
}

/// A compiled allowlist: a finding is allowed when any (`or`) or every (`and`) of its configured
/// checks holds.
#[derive(Debug)]
pub(super) struct Allowlist {
    and: bool,
    pub target: Target,
    regexes: Option<RegexSet>,
    paths: Option<RegexSet>,
    stopwords: Option<AhoCorasick>,
    sha256: Vec<[u8; 32]>,
}

/// The parts of one candidate finding an allowlist may look at.
pub(super) struct Subject<'h> {
    pub secret: &'h [u8],
    pub whole: &'h [u8],
    pub line: &'h [u8],
    pub path: Option<&'h str>,
}

impl Allowlist {
    /// Whether this allowlist lets the candidate through as "not a secret".
    pub fn allows(&self, subject: &Subject<'_>) -> bool {
        let target = match self.target {
            Target::Secret => subject.secret,
            Target::Match => subject.whole,
            Target::Line => subject.line,
        };
        let checks = [
            self.paths
                .as_ref()
                .map(|set| subject.path.is_some_and(|p| set.is_match(p.as_bytes()))),
            self.regexes.as_ref().map(|set| set.is_match(target)),
            self.stopwords
                .as_ref()
                .map(|words| words.is_match(subject.secret)),
            (!self.sha256.is_empty()).then(|| {
                let digest: [u8; 32] = Sha256::digest(subject.secret).into();
                self.sha256.contains(&digest)
            }),
        ];
        let mut configured = checks.into_iter().flatten().peekable();
        if configured.peek().is_none() {
            return false;
        }
        if self.and {
            configured.all(|hit| hit)
        } else {
            configured.any(|hit| hit)
        }
    }

    /// Whether the allowlist needs the line around the match.
    pub fn wants_line(&self) -> bool {
        self.target == Target::Line && self.regexes.is_some()
    }
}

/// Counts what could not be compiled or read (dropped allowlist patterns, the rule file).
#[derive(Debug, Default, Clone)]
pub(super) struct Problems {
    /// Allowlist patterns dropped because they did not compile (the rule becomes stricter).
    pub dropped_allow_patterns: usize,
    /// Set when the rule file itself could not be read.
    pub data_error: Option<String>,
}

/// Compiles one rule regex: ASCII mode, raised size limit; on failure retries once with Go RE2's
/// literal braces escaped.
pub(super) fn compile_regex(pattern: &str) -> Option<Regex> {
    let build = |p: &str| {
        RegexBuilder::new(p)
            .unicode(false)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .ok()
    };
    build(pattern).or_else(|| {
        let escaped = escape_literal_braces(pattern);
        if escaped == pattern {
            None
        } else {
            build(&escaped)
        }
    })
}

/// Compiles a list of patterns into one set, dropping (and counting) the ones that fail.
fn compile_set(patterns: &[Cow<'_, str>], problems: &mut Problems) -> Option<RegexSet> {
    let mut good: Vec<String> = Vec::with_capacity(patterns.len());
    for p in patterns {
        match compile_regex(p) {
            Some(re) => good.push(re.as_str().to_owned()),
            None => problems.dropped_allow_patterns += 1,
        }
    }
    if good.is_empty() {
        return None;
    }
    match RegexSetBuilder::new(&good)
        .unicode(false)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
    {
        Ok(set) => Some(set),
        Err(_) => {
            problems.dropped_allow_patterns += good.len();
            None
        }
    }
}

/// An ASCII case-insensitive automaton over `words` (lower-cased), or `None` when empty.
pub(super) fn word_matcher(words: &[Cow<'_, str>]) -> Option<AhoCorasick> {
    let words: Vec<String> = words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    if words.is_empty() {
        return None;
    }
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(&words)
        .ok()
}

/// Compiles one stored allowlist.
pub(super) fn compile_allowlist(raw: &RawAllowlist<'_>, problems: &mut Problems) -> Allowlist {
    let target = match raw.regex_target.as_deref() {
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        _ => Target::Secret,
    };
    let sha256 = raw
        .secret_sha256
        .iter()
        .filter_map(|h| {
            let mut out = [0u8; 32];
            hex::decode_to_slice(h.as_bytes(), &mut out)
                .ok()
                .map(|()| out)
        })
        .collect();
    Allowlist {
        and: raw
            .condition
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("and")),
        target,
        regexes: compile_set(&raw.regexes, problems),
        paths: compile_set(&raw.paths, problems),
        stopwords: word_matcher(&raw.stopwords),
        sha256,
    }
}

/// Escapes `{`/`}` that Go RE2 reads as literals (a `{` not starting a `{n}`, `{n,}` or `{n,m}`
/// repetition, and the `}` closing it), which the Rust regex crate rejects.
pub(super) fn escape_literal_braces(pattern: &str) -> String {
    let bytes = pattern.as_bytes();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut literal_open = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => {
                out.push('\\');
                if let Some(next) = pattern.get(i + 1..).and_then(|rest| rest.chars().next()) {
                    out.push(next);
                    i += 1 + next.len_utf8();
                } else {
                    i += 1;
                }
                continue;
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class && !is_repetition(bytes.get(i + 1..).unwrap_or_default()) => {
                out.push_str("\\{");
                literal_open += 1;
                i += 1;
                continue;
            }
            b'}' if !in_class && literal_open > 0 => {
                out.push_str("\\}");
                literal_open -= 1;
                i += 1;
                continue;
            }
            _ => {}
        }
        match pattern.get(i..).and_then(|rest| rest.chars().next()) {
            Some(c) => {
                out.push(c);
                i += c.len_utf8();
            }
            None => break,
        }
    }
    out
}

/// Whether `rest` (the text after a `{`) is `n}`, `n,}` or `n,m}`.
fn is_repetition(rest: &[u8]) -> bool {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    let rest = rest.get(digits..).unwrap_or_default();
    match rest.first() {
        Some(b'}') => true,
        Some(b',') => {
            let rest = rest.get(1..).unwrap_or_default();
            let more = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            rest.get(more) == Some(&b'}')
        }
        _ => false,
    }
}

/// Shannon entropy of `data` in bits per symbol (bytes; the same as gitleaks' runes for ASCII).
pub(super) fn shannon_entropy(data: &[u8]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in data {
        if let Some(c) = counts.get_mut(usize::from(b)) {
            *c += 1;
        }
    }
    let len = data.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}
