//! The regular expressions of a bundle's rules (`tool`, `args`, `content`, `fields`), compiled
//! within a budget.
//!
//! A short pattern can compile to a large automaton: `\w{20}` (Unicode word characters) is
//! about a megabyte and 18 ms of CPU, so a 48 KB bundle of a thousand such rules took 18 s and
//! 1.2 GB to compile, on every replica that loads it. Each regex is limited as before (1 MiB of
//! automaton), and a bundle's regexes together to [`BUNDLE_REGEX_BYTES`]: each one is compiled
//! with what the ones before it left as its own limit, and once one does not fit the rest are
//! refused uncompiled, so a bundle past the budget fails after compiling at most its worth.

pub(crate) use regex_automata::meta::Regex;

/// Largest automaton one regex of a bundle may compile to (regex's own `size_limit`).
const REGEX_BYTES: usize = 1 << 20;

/// Largest memory all of a bundle's regexes may take together, compiled.
pub(crate) const BUNDLE_REGEX_BYTES: usize = 16 << 20;

/// What is left of a bundle's regex budget as its rules are compiled, in order.
#[derive(Debug)]
pub(crate) struct RegexBudget {
    left: usize,
}

impl Default for RegexBudget {
    fn default() -> Self {
        Self {
            left: BUNDLE_REGEX_BYTES,
        }
    }
}

impl RegexBudget {
    /// Compiles `pattern` within the budget, and takes the memory it uses out of it.
    pub(crate) fn compile(&mut self, pattern: &str) -> Result<Regex, String> {
        let limit = REGEX_BYTES.min(self.left);
        let over_budget = || {
            format!(
                "regex `{pattern}` does not fit in what is left of the bundle's regex budget \
                 ({} MiB for all its regexes together, compiled)",
                BUNDLE_REGEX_BYTES >> 20
            )
        };
        // Once spent, the rest are refused without the parse (a Unicode class alone takes
        // milliseconds to translate).
        if self.left == 0 {
            return Err(over_budget());
        }
        let regex = Regex::builder()
            .configure(Regex::config().nfa_size_limit(Some(limit)))
            .build(pattern)
            .map_err(|e| match e.size_limit() {
                Some(_) if limit < REGEX_BYTES => {
                    self.left = 0;
                    over_budget()
                }
                Some(_) => format!(
                    "regex `{pattern}` compiles to more than {} MiB; write a smaller pattern \
                     (`(?-u:\\w)` matches ASCII word characters only)",
                    REGEX_BYTES >> 20
                ),
                None => format!("invalid regex `{pattern}`: {}", error_line(&e.to_string())),
            })?;
        let used = regex.memory_usage();
        let Some(left) = self.left.checked_sub(used) else {
            self.left = 0;
            return Err(over_budget());
        };
        self.left = left;
        Ok(regex)
    }
}

/// The line of a regex error that says what is wrong: its last (a syntax error draws the
/// pattern with a caret below it first).
fn error_line(text: &str) -> &str {
    text.lines().last().unwrap_or(text).trim()
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
        assert!(error.starts_with("invalid regex `(`"), "{error}");
        assert!(!error.contains('\n'), "{error}");
        let error = budget.compile(r"\w{200}").unwrap_err();
        assert!(error.contains("more than 1 MiB"), "{error}");
        // A failed pattern takes nothing.
        assert_eq!(budget.left, BUNDLE_REGEX_BYTES);
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
