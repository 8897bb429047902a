//! Secret detection: finds credentials in text an agent is about to write or send.
//!
//! Rules are the gitleaks default rule set (v8.30.1, vendored in `gitleaks/rules.json`, MIT, see
//! `gitleaks/NOTICE`) plus toolgate's own (`url-credentials`, `private-key-header`). Setting the
//! scanner up parses the rule data and builds the keyword automaton (under a millisecond); each
//! rule's regex, path regex and allowlists compile on first use (all of them took ~140 ms, which
//! every `toolgate hook` process paid), see [`Scanner::compile_all`]. Per scan:
//!
//! 1. one ASCII case-insensitive Aho-Corasick pass over all rule keywords selects the rules to run
//!    (a rule without keywords always runs; gitleaks lower-cases keywords and text alike): a
//!    compact DFA of toolgate's own, see `keywords.rs`, which walks a long text in interleaved
//!    parts;
//! 2. each selected rule's ASCII regex (`unicode(false)`, linear time) finds candidates; the secret
//!    is the rule's `secretGroup`, else the first non-empty capture group, else the whole match;
//!    `generic-api-key` only runs in windows around those of its keyword hits that are followed
//!    by the rest of its regex (operator and value), see `GENERIC_TAIL`;
//! 3. a candidate survives the global allowlist (placeholder regexes, stopwords), toolgate's
//!    placeholder filter, the rule's Shannon entropy threshold (`entropy <= threshold` drops it),
//!    and the rule's allowlists (regexes against the secret, match or line; stopwords; paths);
//! 4. base64 (≥ 20 chars) and hex (≥ 32 chars) runs that decode to text are scanned again (up to
//!    [`MAX_DECODE_DEPTH`] levels); a hit is reported with the inner rule's id and the encoded span;
//! 5. overlapping candidates are resolved (specific rules before `generic-*`, before decoded hits;
//!    then earliest and longest), at most [`MAX_FINDINGS`] are kept.
//!
//! Bounds: only the first [`MAX_SCAN_BYTES`] of a text are scanned; decoding work is capped too.
//! Rules restricted to a file path by gitleaks (`hashicorp-tf-password`, `kubernetes-secret-yaml`,
//! …) only run through [`Scanner::scan_file`]; gitleaks' global *path* allowlist (lockfiles,
//! images, `node_modules`) is deliberately not applied, since an agent could write a secret there.
//! The path-only rule `pkcs12-file` is not included.
//!
//! A finding names the rule and the byte span; this module never logs, stores or returns the
//! matched text itself, and callers must not either.

mod decode;
pub(crate) use decode::{decode_base64, decode_base64_bytes, is_text};
mod extra;
mod keywords;
mod rules;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Deref;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use decode::Budget;
use keywords::Keywords;
use rules::{Allowlist, Problems, RawAllowlist, RawData, Subject};

/// Most bytes of one text that are scanned; the rest is neither scanned nor redacted.
pub const MAX_SCAN_BYTES: usize = 1024 * 1024;
/// Most findings reported for one text.
pub const MAX_FINDINGS: usize = 64;
/// How many times an encoded run is decoded and rescanned (base64 in base64 = 2).
pub const MAX_DECODE_DEPTH: u8 = 2;
/// Most encoded bytes decoded during one scan (all depths together).
const MAX_DECODE_BYTES: usize = 256 * 1024;
/// Most encoded runs decoded during one scan (all depths together).
const MAX_DECODE_RUNS: usize = 256;
/// Search window around each keyword hit for `generic-api-key`: its match starts at most 50 bytes
/// before the keyword (`[\w.-]{0,50}?`) and its bounded value alternative ends < 200 bytes after
/// it; a match that reaches the window's end is redone on the whole text, which covers the
/// unbounded base64 alternative.
const GENERIC_WINDOW: (usize, usize) = (64, 256);
/// Longest value run [`follows`] checks itself before it leaves the question to the regex.
const GENERIC_RUN_CHECK: usize = 256;
/// Most candidates a scan collects before overlap resolution (a redaction resolves overlaps and
/// goes on: see [`Room`]).
const MAX_CANDIDATES: usize = 1024;
/// What must follow `generic-api-key`'s keyword in a match: the vendored regex's whole tail after
/// its keyword group. A keyword hit not followed by this (anchored) is no match's keyword, so it
/// opens no search window. Applied only when the vendored regex ends with exactly this text.
const GENERIC_TAIL: &str = r#"(?:[ \t]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)"#;

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

/// Where a built-in rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    /// The gitleaks default rule set.
    Gitleaks,
    /// toolgate's own rules.
    Toolgate,
}

/// Documentation of one compiled rule.
#[derive(Debug, Clone)]
pub struct RuleInfo {
    /// The rule id reported in findings.
    pub id: &'static str,
    /// What the rule detects.
    pub description: String,
    /// Where the rule comes from.
    pub source: RuleSource,
    /// Lower-case keywords that enable the rule (empty: always runs).
    pub keywords: Vec<String>,
    /// Shannon entropy the secret must exceed, if any.
    pub entropy: Option<f64>,
    /// Whether the rule only runs for files whose path matches (see [`Scanner::scan_file`]).
    pub path_restricted: bool,
}

/// A regex compiled on first use (most rules never run for a given text, and compiling all of
/// them took ~140 ms, which every `toolgate hook` process paid).
#[derive(Debug)]
struct LazyRegex {
    pattern: Cow<'static, str>,
    compiled: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    fn new(pattern: Cow<'static, str>) -> Self {
        LazyRegex {
            pattern,
            compiled: OnceLock::new(),
        }
    }

    /// The compiled regex, or `None` when the pattern does not compile.
    fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| rules::compile_regex(&self.pattern))
            .as_ref()
    }
}

/// A pattern that does not compile matches nothing.
impl Deref for LazyRegex {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        static NEVER: LazyLock<Regex> = LazyLock::new(|| {
            RegexBuilder::new(r"[^\x00-\xFF]")
                .unicode(false)
                .build()
                .unwrap_or_else(|e| unreachable!("an empty class compiles: {e}"))
        });
        self.get().unwrap_or(&NEVER)
    }
}

/// A rule's allowlists, compiled on the rule's first candidate.
#[derive(Debug, Default)]
struct Allowlists {
    raw: Vec<RawAllowlist<'static>>,
    compiled: OnceLock<CompiledAllowlists>,
}

#[derive(Debug)]
struct CompiledAllowlists {
    list: Vec<Allowlist>,
    wants_line: bool,
    /// Patterns dropped because they did not compile.
    dropped: usize,
}

impl Allowlists {
    fn get(&self) -> &CompiledAllowlists {
        self.compiled.get_or_init(|| {
            let mut problems = Problems::default();
            let list: Vec<Allowlist> = self
                .raw
                .iter()
                .map(|a| rules::compile_allowlist(a, &mut problems))
                .collect();
            CompiledAllowlists {
                wants_line: list.iter().any(Allowlist::wants_line),
                list,
                dropped: problems.dropped_allow_patterns,
            }
        })
    }
}

/// One rule; its regexes and allowlists are compiled on first use.
#[derive(Debug)]
struct Rule {
    id: &'static str,
    regex: LazyRegex,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    path: Option<LazyRegex>,
    allowlists: Allowlists,
    /// 0: specific, 1: generic (loses overlaps to specific rules).
    tier: u8,
    /// When set, the regex only runs in windows of (bytes before, bytes after) each keyword hit;
    /// only for rules whose every match contains a keyword within those bounds.
    window: Option<(usize, usize)>,
    /// For a windowed rule: what must follow a keyword hit (anchored) for the hit to open a
    /// window, i.e. the rule's regex after its keyword group.
    tail: Option<LazyRegex>,
    check: Option<fn(&[u8]) -> bool>,
}

/// The global allowlist (applies to every rule's secret).
#[derive(Debug, Default)]
struct Global {
    patterns: Vec<Cow<'static, str>>,
    /// The patterns as one set, and how many were dropped; compiled on the first candidate.
    regexes: OnceLock<(Option<RegexSet>, usize)>,
    stopwords: Option<AhoCorasick>,
}

impl Global {
    fn regexes(&self) -> Option<&RegexSet> {
        self.regexes
            .get_or_init(|| {
                let mut problems = Problems::default();
                let set = compile_global(&self.patterns, &mut problems);
                (set, problems.dropped_allow_patterns)
            })
            .0
            .as_ref()
    }
}

/// The detector: rule data parsed, keyword automaton built; regexes compile on first use.
#[derive(Debug, Default)]
pub struct Scanner {
    rules: Vec<Rule>,
    infos: Vec<RuleInfo>,
    /// Keyword automata; pattern `i` enables the rules in `keyword_rules[i]`.
    keywords: Keywords,
    keyword_rules: Vec<Vec<usize>>,
    /// Rules without keywords.
    always: Vec<usize>,
    global: Global,
    problems: Problems,
}

/// A finding before overlap resolution.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    end: usize,
    rule_id: &'static str,
    /// 0 specific, 1 generic, 2 decoded.
    tier: u8,
    order: usize,
}

impl Scanner {
    /// The built-in detector, set up on first use and shared.
    pub fn builtin() -> &'static Scanner {
        static SCANNER: LazyLock<Scanner> = LazyLock::new(Scanner::compile_builtin);
        &SCANNER
    }

    /// The vendored gitleaks rules and toolgate's own rules.
    fn compile_builtin() -> Scanner {
        Scanner::from_parts(rules::RULES_JSON, extra::EXTRA_RULES)
    }

    /// A scanner over gitleaks-format rule data `json` and `extras`. Never panics: a rule whose
    /// regex does not compile finds nothing and is listed in [`Scanner::skipped_rules`].
    fn from_parts(json: &'static str, extras: &[extra::ExtraRule]) -> Scanner {
        let mut scanner = Scanner::default();
        let mut keyword_index: Vec<(String, Vec<usize>)> = Vec::new();
        let mut add_keywords = |keywords: &[String], rule: usize, always: &mut Vec<usize>| {
            if keywords.is_empty() {
                always.push(rule);
            }
            for kw in keywords {
                match keyword_index.iter_mut().find(|(k, _)| k == kw) {
                    Some((_, rules)) => rules.push(rule),
                    None => keyword_index.push((kw.clone(), vec![rule])),
                }
            }
        };
        match serde_json::from_str::<RawData<'static>>(json) {
            Ok(data) => {
                scanner.global = Global {
                    patterns: data.allowlist.regexes,
                    regexes: OnceLock::new(),
                    stopwords: rules::word_matcher(&data.allowlist.stopwords),
                };
                for raw in data.rules {
                    let keywords: Vec<String> = raw
                        .keywords
                        .iter()
                        .map(|k| k.to_ascii_lowercase())
                        .collect();
                    let index = scanner.rules.len();
                    add_keywords(&keywords, index, &mut scanner.always);
                    let entropy = raw.entropy.filter(|e| *e > 0.0);
                    let generic = raw.id == "generic-api-key";
                    let tail = (generic && raw.regex.ends_with(GENERIC_TAIL))
                        .then(|| LazyRegex::new(format!("(?i)^{GENERIC_TAIL}").into()));
                    scanner.infos.push(RuleInfo {
                        id: raw.id,
                        description: raw.description.into_owned(),
                        source: RuleSource::Gitleaks,
                        keywords,
                        entropy,
                        path_restricted: raw.path.is_some(),
                    });
                    scanner.rules.push(Rule {
                        id: raw.id,
                        regex: LazyRegex::new(raw.regex),
                        secret_group: raw.secret_group.filter(|g| *g > 0),
                        entropy,
                        path: raw.path.map(LazyRegex::new),
                        allowlists: Allowlists {
                            raw: raw.allowlists,
                            compiled: OnceLock::new(),
                        },
                        tier: u8::from(raw.id.starts_with("generic")),
                        window: generic.then_some(GENERIC_WINDOW),
                        tail,
                        check: None,
                    });
                }
            }
            Err(err) => scanner.problems.data_error = Some(err.to_string()),
        }
        for extra in extras {
            let keywords: Vec<String> = extra.keywords.iter().map(|k| (*k).to_owned()).collect();
            let index = scanner.rules.len();
            add_keywords(&keywords, index, &mut scanner.always);
            scanner.infos.push(RuleInfo {
                id: extra.id,
                description: extra.description.to_owned(),
                source: RuleSource::Toolgate,
                keywords,
                entropy: None,
                path_restricted: false,
            });
            scanner.rules.push(Rule {
                id: extra.id,
                regex: LazyRegex::new(extra.regex.into()),
                secret_group: extra.secret_group,
                entropy: None,
                path: None,
                allowlists: Allowlists::default(),
                tier: 0,
                window: None,
                tail: None,
                check: extra.check,
            });
        }
        let (words, rules): (Vec<String>, Vec<Vec<usize>>) = keyword_index.into_iter().unzip();
        scanner.keywords = Keywords::new(words);
        scanner.keyword_rules = rules;
        scanner
    }

    /// Compiles every rule's regexes and allowlists now rather than on first use (for a
    /// long-running process that wants no first-hit latency).
    pub fn compile_all(&self) {
        let _ = self.global.regexes();
        for rule in &self.rules {
            let _ = rule.regex.get();
            let _ = rule.path.as_ref().map(LazyRegex::get);
            let _ = rule.tail.as_ref().map(LazyRegex::get);
            let _ = rule.allowlists.get();
        }
    }

    /// Documentation of every built-in rule, gitleaks' first, in detection priority order.
    pub fn rules(&self) -> impl Iterator<Item = &RuleInfo> {
        self.infos.iter()
    }

    /// Ids of built-in rules whose regex (or path regex) does not compile, so that they find
    /// nothing (expected empty). Compiles every rule that was not compiled yet.
    pub fn skipped_rules(&self) -> impl Iterator<Item = &str> {
        self.rules
            .iter()
            .filter(|rule| {
                rule.regex.get().is_none()
                    || rule.path.as_ref().is_some_and(|path| path.get().is_none())
            })
            .map(|rule| rule.id)
            .chain(self.problems.data_error.as_deref().map(|_| "<rule data>"))
    }

    /// How many allowlist patterns were dropped because they do not compile (expected 0; a rule
    /// with a dropped pattern is stricter). Compiles every allowlist that was not compiled yet.
    pub fn dropped_allow_patterns(&self) -> usize {
        let _ = self.global.regexes();
        self.global.regexes.get().map_or(0, |(_, dropped)| *dropped)
            + self
                .rules
                .iter()
                .map(|rule| rule.allowlists.get().dropped)
                .sum::<usize>()
    }

    /// Every secret in `text`, in order of position, spans not overlapping.
    ///
    /// Only the first [`MAX_SCAN_BYTES`] are scanned and at most [`MAX_FINDINGS`] are returned.
    /// Spans lie on `char` boundaries of `text`.
    pub fn scan(&self, text: &str) -> Vec<Finding> {
        self.scan_impl(text, None, MAX_FINDINGS)
    }

    /// Like [`Scanner::scan`] for the content of the file at `path`: also runs the rules gitleaks
    /// restricts to some file names (`*.tf`, `*.yaml`, `nuget.config`, `*.php`) and the allowlists
    /// that depend on the path.
    pub fn scan_file(&self, path: &str, text: &str) -> Vec<Finding> {
        self.scan_impl(text, Some(path), MAX_FINDINGS)
    }

    /// Whether `text` holds no secret (cheaper than `scan(text).is_empty()` only in allocation).
    pub fn is_clean(&self, text: &str) -> bool {
        self.scan(text).is_empty()
    }

    /// `text` with every finding replaced by `[REDACTED:<rule-id>]`: all of them, not only the
    /// first [`MAX_FINDINGS`] (a `.env` file's hundred keys are all masked). Only the first
    /// [`MAX_SCAN_BYTES`] are scanned.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let findings = self.scan_impl(text, None, usize::MAX);
        if findings.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for f in &findings {
            out.push_str(text.get(last..f.start).unwrap_or_default());
            out.push_str("[REDACTED:");
            out.push_str(f.rule_id);
            out.push(']');
            last = f.end;
        }
        out.push_str(text.get(last..).unwrap_or_default());
        Cow::Owned(out)
    }

    fn scan_impl(&self, text: &str, path: Option<&str>, max_findings: usize) -> Vec<Finding> {
        let hay = text.as_bytes();
        let hay = hay.get(..hay.len().min(MAX_SCAN_BYTES)).unwrap_or(hay);
        let mut budget = Budget {
            bytes: MAX_DECODE_BYTES,
            runs: MAX_DECODE_RUNS,
        };
        let mut candidates = Vec::new();
        // Redaction must mask every secret, not only those found before the cap.
        let redact = max_findings == usize::MAX;
        let mut room = Room::new(redact);
        self.collect(
            hay,
            path,
            MAX_DECODE_DEPTH,
            &mut budget,
            &mut room,
            &mut candidates,
        );
        let chosen = if redact {
            merge(candidates)
        } else {
            select(candidates, max_findings)
        };
        let mut findings: Vec<Finding> = Vec::with_capacity(chosen.len());
        for c in chosen {
            let (start, end) = (floor_boundary(text, c.start), ceil_boundary(text, c.end));
            // Widening to char boundaries may make neighbours overlap: a scan drops the later
            // one, a redaction masks both.
            let last = findings.last_mut().filter(|last| start < last.end);
            if let Some(last) = last {
                if redact {
                    last.end = last.end.max(end);
                }
            } else if end > start {
                findings.push(Finding {
                    rule_id: c.rule_id,
                    start,
                    end,
                });
            }
        }
        findings
    }

    /// Adds every accepted candidate in `hay` (rules, then decoded runs) to `out`.
    fn collect(
        &self,
        hay: &[u8],
        path: Option<&str>,
        depth: u8,
        budget: &mut Budget,
        room: &mut Room,
        out: &mut Vec<Candidate>,
    ) {
        // One bit per rule to run (a scan of a short text must not allocate per rule).
        let mut enabled = vec![0u64; self.rules.len().div_ceil(64)];
        let enable = |enabled: &mut Vec<u64>, i: usize| {
            if let Some(word) = enabled.get_mut(i / 64) {
                *word |= 1 << (i % 64);
            }
        };
        for &i in &self.always {
            enable(&mut enabled, i);
        }
        // Merged search windows around keyword hits, for the rules that have a window.
        let mut windows: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        let hits = self.keywords.hits(hay);
        if hits.is_none() {
            // Without the prefilter every rule runs: slower, never weaker.
            for i in 0..self.rules.len() {
                enable(&mut enabled, i);
            }
        }
        // Keywords none of whose rules has a window: their first hit enabled all there is to.
        let mut done = vec![0u64; self.keyword_rules.len().div_ceil(64)];
        for (pattern, start, end) in hits.unwrap_or_default() {
            let (word, bit) = (done.get_mut(pattern / 64), 1 << (pattern % 64));
            if word.as_ref().is_some_and(|w| **w & bit != 0) {
                continue;
            }
            let mut windowed = false;
            for &i in self.keyword_rules.get(pattern).into_iter().flatten() {
                let Some(rule) = self.rules.get(i) else {
                    continue;
                };
                if let Some((before, after)) = rule.window {
                    windowed = true;
                    if rule
                        .tail
                        .as_ref()
                        .is_some_and(|tail| !follows(tail, hay, end))
                    {
                        continue;
                    }
                    let slot = match windows.iter().position(|(r, _)| *r == i) {
                        Some(slot) => slot,
                        None => {
                            windows.push((i, Vec::new()));
                            windows.len() - 1
                        }
                    };
                    let (ws, we) = (
                        start.saturating_sub(before),
                        end.saturating_add(after).min(hay.len()),
                    );
                    if let Some((_, list)) = windows.get_mut(slot) {
                        match list.last_mut() {
                            Some(last) if ws <= last.1 => {
                                *last = (last.0.min(ws), last.1.max(we));
                            }
                            _ => list.push((ws, we)),
                        }
                    }
                }
                enable(&mut enabled, i);
            }
            if !windowed && let Some(word) = word {
                *word |= bit;
            }
        }
        let first_own = out.len();
        let whole_text = [(0, hay.len())];
        let mut selected: Vec<usize> = Vec::new();
        for (w, &word) in enabled.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                selected.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        for (order, rule) in selected
            .into_iter()
            .filter_map(|i| Some((i, self.rules.get(i)?)))
        {
            let windows = windows
                .iter()
                .find(|(r, _)| *r == order)
                .map_or(&[][..], |(_, list)| list.as_slice());
            if let Some(re) = &rule.path
                && !path.is_some_and(|p| re.is_match(p.as_bytes()))
            {
                continue;
            }
            let Some(regex) = rule.regex.get() else {
                continue;
            };
            let ranges: &[(usize, usize)] = if windows.is_empty() {
                &whole_text
            } else {
                windows
            };
            let mut done = 0;
            for &(ws, we) in ranges {
                let sub = hay.get(..we).unwrap_or(hay);
                let mut pos = ws.max(done);
                while pos < we {
                    let Some(mut caps) = regex.captures_at(sub, pos) else {
                        break;
                    };
                    // A match reaching the window's end may continue past it: redo it exactly.
                    if caps.get(0).is_some_and(|m| m.end() == we) && we < hay.len() {
                        match regex.captures_at(hay, pos) {
                            Some(full) => caps = full,
                            None => break,
                        }
                    }
                    let Some(whole) = caps.get(0) else { break };
                    pos = whole.end().max(whole.start() + 1);
                    done = pos;
                    if !room.for_one_more(out) {
                        return;
                    }
                    let secret = match rule.secret_group {
                        Some(g) => caps.get(g),
                        None => caps.iter().skip(1).flatten().find(|m| !m.is_empty()),
                    }
                    .unwrap_or(whole);
                    if self.accept(rule, hay, secret.as_bytes(), whole, path) {
                        out.push(Candidate {
                            start: secret.start(),
                            end: secret.end(),
                            rule_id: rule.id,
                            tier: rule.tier,
                            order,
                        });
                    }
                }
            }
        }
        if depth == 0 {
            return;
        }
        let plain: Vec<(usize, usize)> = out
            .get(first_own..)
            .unwrap_or_default()
            .iter()
            .map(|c| (c.start, c.end))
            .collect();
        let runs = decode::decoded_runs(hay, budget, |s, e| {
            plain.iter().any(|&(ps, pe)| ps <= s && e <= pe)
        });
        for run in runs {
            let mut inner = Vec::new();
            let mut inner_room = Room::new(false);
            self.collect(
                &run.text,
                path,
                depth - 1,
                budget,
                &mut inner_room,
                &mut inner,
            );
            if let Some(hit) = select(inner, 1).first() {
                if !room.for_one_more(out) {
                    return;
                }
                out.push(Candidate {
                    start: run.start,
                    end: run.end,
                    rule_id: hit.rule_id,
                    tier: 2,
                    order: hit.order,
                });
            }
        }
    }

    /// Whether a regex hit is a finding: not allowlisted, not a placeholder, entropic enough.
    fn accept(
        &self,
        rule: &Rule,
        hay: &[u8],
        secret: &[u8],
        whole: regex::bytes::Match<'_>,
        path: Option<&str>,
    ) -> bool {
        if secret.is_empty()
            || self
                .global
                .regexes()
                .is_some_and(|set| set.is_match(secret))
            || self
                .global
                .stopwords
                .as_ref()
                .is_some_and(|words| words.is_match(secret))
            || extra::is_placeholder(secret)
        {
            return false;
        }
        if let Some(threshold) = rule.entropy
            && rules::shannon_entropy(secret) <= threshold
        {
            return false;
        }
        if rule.check.is_some_and(|check| !check(secret)) {
            return false;
        }
        if rule.allowlists.raw.is_empty() {
            return true;
        }
        let allowlists = rule.allowlists.get();
        let line = if allowlists.wants_line {
            let start = memchr::memrchr(b'\n', hay.get(..whole.start()).unwrap_or_default())
                .map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', hay.get(whole.end()..).unwrap_or_default())
                .map_or(hay.len(), |i| whole.end() + i);
            hay.get(start..end).unwrap_or_default()
        } else {
            &[]
        };
        let subject = Subject {
            secret,
            whole: whole.as_bytes(),
            line,
            path,
        };
        !allowlists.list.iter().any(|a| a.allows(&subject))
    }
}

/// Whether `tail` (anchored with `^`) matches `hay` at `at`. Cheap byte tests first, for what
/// every match of the tail has:
///
/// - at most 23 bytes of `[\s'"]`, then an assignment operator, whose first byte is at
///   `operator`;
/// - a value of at least 10 bytes of `[\w.=-]` or `[a-z0-9+/=]`, which starts 1 to 9 bytes
///   after `operator` (the operator is at most 4 bytes, `:::=`, and at most 5 bytes of
///   ``[`'"\s=]`` may follow it), so it lies in a run of at least 10 bytes of `[\w.=+/-]` that
///   starts there (only `=` of the bytes before the value can be in such a run, and at most
///   8 of them);
/// - a terminator right after the value, ``[`'"\s;]``, `\n`, `\r` or the end, none of which
///   is in that run: so right after the run, which therefore ends the value.
///
/// A run longer than [`GENERIC_RUN_CHECK`] bytes is left to the regex.
fn follows(tail: &LazyRegex, hay: &[u8], at: usize) -> bool {
    let rest = hay.get(at..).unwrap_or_default();
    let Some(operator) = rest
        .iter()
        .take(24)
        .position(|b| !(b.is_ascii_whitespace() || *b == 0x0b || matches!(b, b'\'' | b'"')))
    else {
        return false;
    };
    if !rest
        .get(operator)
        .is_some_and(|b| matches!(b, b'=' | b'>' | b':' | b'|' | b'?' | b','))
    {
        return false;
    }
    let in_value =
        |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'=' | b'+' | b'/' | b'-');
    let mut run_start = operator + 1;
    let mut i = run_start;
    loop {
        if run_start > operator + 9 || i > run_start + GENERIC_RUN_CHECK {
            break;
        }
        match rest.get(i) {
            Some(b) if in_value(b) => i += 1,
            end => {
                if i - run_start >= 10 {
                    let terminated = end.is_none_or(|b| {
                        b.is_ascii_whitespace()
                            || matches!(b, 0x0b | b'`' | b'\'' | b'"' | b';' | b'\\')
                    });
                    return terminated && tail.is_match(rest);
                }
                if end.is_none() {
                    return false;
                }
                i += 1;
                run_start = i;
            }
        }
    }
    run_start <= operator + 9 && tail.is_match(rest)
}

/// Compiles the global allowlist regexes into one set (dropping any that fail).
fn compile_global(patterns: &[Cow<'_, str>], problems: &mut Problems) -> Option<RegexSet> {
    let good: Vec<String> = patterns
        .iter()
        .filter_map(|p| match rules::compile_regex(p) {
            Some(re) => Some(re.as_str().to_owned()),
            None => {
                problems.dropped_allow_patterns += 1;
                None
            }
        })
        .collect();
    RegexSetBuilder::new(&good).unicode(false).build().ok()
}

/// How many candidates a scan may hold. A scan stops at [`MAX_CANDIDATES`]: it reports at most
/// [`MAX_FINDINGS`], and past a thousand secrets it has found enough. A redaction must not stop:
/// a text packed with decoys would keep a secret after them in clear. So there the candidates are
/// merged ([`merge`]: disjoint spans, which the text's length bounds) whenever they reach a
/// limit, and the limit is set to twice what is left. Merging early loses nothing: the merge of
/// a merged set and more candidates is the merge of them all.
struct Room {
    limit: usize,
    redact: bool,
}

impl Room {
    fn new(redact: bool) -> Self {
        Self {
            limit: MAX_CANDIDATES,
            redact,
        }
    }

    /// Whether `out` may take one more candidate, after merging it if it must.
    fn for_one_more(&mut self, out: &mut Vec<Candidate>) -> bool {
        if out.len() < self.limit {
            return true;
        }
        if !self.redact {
            return false;
        }
        *out = merge(std::mem::take(out));
        self.limit = self.limit.max(out.len() * 2);
        true
    }
}

/// What a redaction masks: the union of every candidate's span, overlapping spans merged, each
/// merged span named after its most specific candidate (lowest tier, then rule order). A scan
/// [`select`]s one candidate per place instead, which could leave the bytes of an overlapping
/// candidate in clear.
fn merge(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
    let mut merged: Vec<Candidate> = Vec::with_capacity(candidates.len());
    for c in candidates.into_iter().filter(|c| c.end > c.start) {
        match merged.last_mut() {
            Some(last) if c.start < last.end => {
                last.end = last.end.max(c.end);
                if (c.tier, c.order) < (last.tier, last.order) {
                    last.rule_id = c.rule_id;
                    last.tier = c.tier;
                    last.order = c.order;
                }
            }
            _ => merged.push(c),
        }
    }
    merged
}

/// Resolves overlaps: specific before generic before decoded, then earliest, then longest, then
/// rule order; keeps at most `max` candidates, returned in position order.
fn select(mut candidates: Vec<Candidate>, max: usize) -> Vec<Candidate> {
    candidates.sort_by_key(|c| (c.tier, c.start, std::cmp::Reverse(c.end), c.order));
    // The chosen spans by start. They never overlap, so a candidate overlaps one of them exactly
    // when it overlaps the last that starts before the candidate ends.
    let mut chosen: BTreeMap<usize, Candidate> = BTreeMap::new();
    for c in candidates {
        if chosen.len() >= max {
            break;
        }
        if c.end <= c.start {
            continue;
        }
        let overlaps = chosen
            .range(..c.end)
            .next_back()
            .is_some_and(|(_, k)| c.start < k.end);
        if !overlaps {
            chosen.insert(c.start, c);
        }
    }
    chosen.into_values().collect()
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}
