//! The regular expressions of a bundle's rules (`tool`, `args`, `content`, `fields`), compiled
//! within a budget.
//!
//! A short pattern can compile to a large automaton: `\w{20}` (Unicode word characters) is
//! about a megabyte and 18 ms of CPU, so a 48 KB bundle of a thousand such rules took 18 s and
//! 1.2 GB to compile, on every replica that loads it. Each regex is limited as before (1 MiB of
//! automaton), and a bundle's regexes together to [`BUNDLE_REGEX_BYTES`]: each one is compiled
//! with what the ones before it left as its own limit, and once one does not fit the rest are
//! refused uncompiled, so a bundle past the budget fails after compiling at most its worth.

use std::collections::HashMap;
use std::sync::Arc;

pub(crate) use regex_automata::meta::Regex;

/// Largest automaton one regex of a bundle may compile to (regex's own `size_limit`).
const REGEX_BYTES: usize = 1 << 20;

/// Largest memory all of a bundle's regexes may take together, compiled.
pub(crate) const BUNDLE_REGEX_BYTES: usize = 16 << 20;

/// What is left of a bundle's regex budget as its rules are compiled, in order, and the regexes
/// compiled so far by their pattern: a pattern met again is not compiled again.
#[derive(Debug)]
pub(crate) struct RegexBudget {
    left: usize,
    compiled: HashMap<String, Regex>,
}

impl Default for RegexBudget {
    fn default() -> Self {
        Self {
            left: BUNDLE_REGEX_BYTES,
            compiled: HashMap::new(),
        }
    }
}

/// A validated bundle's regexes, compiled by validation (which must compile them to report
/// errors) and taken from here when the bundle is compiled, instead of compiled a second time:
/// on a push and on every replica's load of a bundle of heavy patterns, that was seconds.
#[derive(Clone, Default)]
pub(crate) struct CompiledRegexes(Arc<HashMap<String, Regex>>);

impl std::fmt::Debug for CompiledRegexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledRegexes({} patterns)", self.0.len())
    }
}

/// Derived from the document, which bundles are compared by.
impl PartialEq for CompiledRegexes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl RegexBudget {
    /// A budget that takes the regexes validation compiled from `compiled` first.
    pub(crate) fn with_compiled(compiled: &CompiledRegexes) -> Self {
        Self {
            compiled: compiled.0.as_ref().clone(),
            ..Self::default()
        }
    }

    /// The regexes compiled within this budget.
    pub(crate) fn into_compiled(self) -> CompiledRegexes {
        CompiledRegexes(Arc::new(self.compiled))
    }

    /// Compiles `pattern` within the budget, and takes the memory it uses out of it.
    pub(crate) fn compile(&mut self, pattern: &str) -> Result<Regex, String> {
        self.compile_written(pattern, pattern, 0)
    }

    /// Compiles `pattern`, which holds the pattern a bundle's author `written` from byte
    /// `shift` on (a rule's `tool` is anchored around what was written); errors name and
    /// point into `written`.
    pub(crate) fn compile_written(
        &mut self,
        pattern: &str,
        written: &str,
        shift: usize,
    ) -> Result<Regex, String> {
        let over_budget = || {
            format!(
                "regex `{written}` does not fit in what is left of the bundle's regex budget \
                 ({} MiB for all its regexes together, compiled)",
                BUNDLE_REGEX_BYTES >> 20
            )
        };
        // Once spent, the rest are refused without the parse (a Unicode class alone takes
        // milliseconds to translate).
        if self.left == 0 {
            return Err(over_budget());
        }
        let regex = match self.compiled.get(pattern) {
            Some(regex) => regex.clone(),
            None => self.build(pattern, written, shift, &over_budget)?,
        };
        // A pattern met again is counted again: its uses each hold a search cache.
        let used = regex.memory_usage();
        let Some(left) = self.left.checked_sub(used) else {
            self.left = 0;
            return Err(over_budget());
        };
        self.left = left;
        self.compiled
            .entry(pattern.to_owned())
            .or_insert_with(|| regex.clone());
        Ok(regex)
    }

    /// Compiles `pattern` within what is left of the budget.
    fn build(
        &mut self,
        pattern: &str,
        written: &str,
        shift: usize,
        over_budget: &dyn Fn() -> String,
    ) -> Result<Regex, String> {
        let limit = REGEX_BYTES.min(self.left);
        Regex::builder()
            .configure(Regex::config().nfa_size_limit(Some(limit)))
            .build(pattern)
            .map_err(|e| match e.size_limit() {
                Some(_) if limit < REGEX_BYTES => {
                    self.left = 0;
                    over_budget()
                }
                Some(_) => format!(
                    "regex `{written}` compiles to more than {} MiB; write a smaller pattern \
                     (`(?-u:\\w)` matches ASCII word characters only)",
                    REGEX_BYTES >> 20
                ),
                None => format!(
                    "invalid regex `{written}`: {}",
                    e.syntax_error().map_or_else(
                        || error_line(&e.to_string()).to_owned(),
                        |syntax| syntax_problem(syntax, pattern, written, shift)
                    )
                ),
            })
    }
}

/// The line of a regex error that says what is wrong: its last.
fn error_line(text: &str) -> &str {
    text.lines().last().unwrap_or(text).trim()
}

/// What is wrong with a pattern and where, on one line: `unclosed group at character 4
/// (`(`)`. The position counts characters of `written` from 1; `pattern` holds `written` from
/// byte `shift` on.
pub(crate) fn syntax_problem(
    error: &regex_syntax::Error,
    pattern: &str,
    written: &str,
    shift: usize,
) -> String {
    let (kind, span) = match error {
        regex_syntax::Error::Parse(e) => (e.kind().to_string(), *e.span()),
        regex_syntax::Error::Translate(e) => (e.kind().to_string(), *e.span()),
        // The enum is non-exhaustive: whatever comes later says what it says.
        other => return error_line(&other.to_string()).to_owned(),
    };
    // The span, within what was written (not the wrapper around it).
    let start = span.start.offset;
    let end = span.end.offset.clamp(start, shift + written.len());
    let Some(offset) = start
        .checked_sub(shift)
        .filter(|offset| *offset <= written.len() && written.is_char_boundary(*offset))
    else {
        return kind;
    };
    let at = written[..offset].chars().count() + 1;
    match pattern.get(start..end) {
        Some(text) if !text.is_empty() && text.chars().count() <= 24 => {
            format!("{kind} at character {at} (`{text}`)")
        }
        _ => format!("{kind} at character {at}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regex_compiles_and_takes_its_memory_out_of_the_budget() {
        let mut budget = RegexBudget::default();
        let regex = budget.compile("^(?:Bash|Write)$").unwrap();
        assert!(regex.is_match("Bash"));
        assert!(!regex.is_match("Bashful"));
        assert_eq!(budget.left, BUNDLE_REGEX_BYTES - regex.memory_usage());
    }

    #[test]
    fn errors_name_the_pattern_and_the_problem() {
        let mut budget = RegexBudget::default();
        let error = budget.compile("(").unwrap_err();
        assert_eq!(
            error,
            "invalid regex `(`: unclosed group at character 1 (`(`)"
        );
        let error = budget.compile("(?i(prod").unwrap_err();
        assert!(
            error.starts_with("invalid regex `(?i(prod`: ") && error.contains("at character 4"),
            "{error}"
        );
        let error = budget.compile("a{2,1}").unwrap_err();
        assert!(error.contains("repetition"), "{error}");
        assert!(error.contains("at character 2 (`{2,1}`)"), "{error}");
        // Inside an anchoring wrapper, the author's own pattern is named and pointed into.
        let error = budget
            .compile_written("^(?:Edit|[Write)$", "Edit|[Write", 4)
            .unwrap_err();
        assert!(
            error.starts_with(
                "invalid regex `Edit|[Write`: unclosed character class at character 6"
            ),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        let error = budget.compile(r"\w{200}").unwrap_err();
        assert!(error.contains("more than 1 MiB"), "{error}");
        // A failed pattern takes nothing.
        assert_eq!(budget.left, BUNDLE_REGEX_BYTES);
    }

    /// The compilation of a validated bundle takes the regexes validation compiled: a pattern
    /// found there is not compiled again (here the entry for `\w+a` is a regex of `\w+b`, so
    /// what is returned shows where it came from), and it is still counted against the budget.
    #[test]
    fn regexes_compiled_by_validation_are_taken_not_compiled_again() {
        let mut validation = RegexBudget::default();
        let b = validation.compile(r"\w+b").unwrap();
        let compiled = CompiledRegexes(Arc::new(HashMap::from([(r"\w+a".to_owned(), b)])));
        let mut budget = RegexBudget::with_compiled(&compiled);
        let taken = budget.compile(r"\w+a").unwrap();
        assert!(taken.is_match("xb") && !taken.is_match("xa"));
        assert!(budget.left < BUNDLE_REGEX_BYTES);
        let fresh = budget.compile("c").unwrap();
        assert!(fresh.is_match("c"));
    }

    /// A bundle of many large regexes stops at the budget, long before it has compiled them
    /// all: the rule past it is refused, naming the budget.
    #[test]
    fn a_bundle_of_large_regexes_stops_at_the_budget() {
        let mut budget = RegexBudget::default();
        let mut compiled = 0;
        let error = loop {
            match budget.compile(r"\w{20}") {
                Ok(_) => compiled += 1,
                Err(error) => break error,
            }
            assert!(compiled < 1000, "the budget never ran out");
        };
        assert!(error.contains("regex budget"), "{error}");
        assert!(compiled > 0 && compiled < 32, "{compiled} compiled");
    }
}
