//! The one door to brush-parser: parser options, panic containment and stack bounding.
//!
//! brush-parser is recursive descent, so deeply nested input (`((((…`, `$($($(…`) would overflow the
//! caller's stack, and a few inputs make it panic (integer overflow in `~NNN`). Every call into it goes
//! through [`guarded`], and whole-script parses go through [`with_stack`], which runs the parse (and the
//! walk that follows it) on a thread with a stack sized to the input's nesting budget when that budget
//! is above what any caller's stack can be trusted to hold. Budgets of parses nested in one another
//! (a payload parsed while its parent's walk is on the stack) add up in a [`StackBudget`].
//!
//! This module must not interpret the AST.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast::Program;
use brush_parser::{ParseError, Parser, ParserImpl, ParserOptions, TokenizerError};

/// The parser options used for every parse: bash mode, extglob on, tilde at word start.
pub(super) const OPTIONS: ParserOptions = ParserOptions {
    enable_extended_globbing: true,
    posix_mode: false,
    sh_mode: false,
    tilde_expansion_at_word_start: true,
    tilde_expansion_after_colon: false,
    parser_impl: ParserImpl::Peg,
};

/// Nesting budget parsed on the caller's stack (a 2 MiB thread stack holds this even unoptimised).
pub(super) const INLINE_OPENERS: usize = 40;
/// Nesting budget above which the input is not parsed at all.
pub(super) const MAX_OPENERS: usize = 4096;
/// Stack granted per unit of nesting budget on the dedicated parse thread.
const STACK_PER_OPENER: usize = 64 * 1024;
/// Smallest dedicated parse stack.
const MIN_STACK: usize = 8 * 1024 * 1024;
/// Deepest nesting of parentheses, of any kind, parsed at all. brush-parser backtracks
/// exponentially on unbalanced parentheses — operator ones (`((`, subshells, `[[ ( ]]`) in its
/// grammar and word ones (`$(`, extglob `@(`) in its word parser: each `(` is tried as the start
/// of a nested group, then again as a plain token. 20 levels cost ~85 ms, 40 would cost hours.
/// Quotes do not protect it (an unterminated quote is only found late), so the count is raw.
pub(super) const MAX_PAREN_DEPTH: usize = 12;
/// Longest parse error message kept.
const MAX_MESSAGE: usize = 120;

/// Runs `f`, turning a panic inside brush-parser into `None`.
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// The deepest nesting of `open`…`close` pairs in `text`, unclosed ones included, counting every
/// `open` and `close` byte wherever it stands (quoted or not).
pub(super) fn nesting_depth(text: &str, open: u8, close: u8) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for byte in text.bytes() {
        if byte == open {
            depth += 1;
            deepest = deepest.max(depth);
        } else if byte == close {
            depth = depth.saturating_sub(1);
        }
    }
    deepest
}

/// An upper bound on how deeply `text` can make the parser recurse: every construct that opens a
/// nesting level in brush-parser's grammar needs one of `(`, `{`, `[`, a backtick, `!` (`[[ ! ! x ]]`),
/// `&` or `|` (`[[ a && b … ]]` nests its AST), or one of the words `if`, `do`, `case`.
pub(super) fn nesting_budget(text: &str) -> usize {
    let bytes = text.as_bytes();
    let punctuation = bytes
        .iter()
        .filter(|b| matches!(b, b'(' | b'{' | b'[' | b'`' | b'!' | b'&' | b'|'))
        .count();
    let mut keywords = 0;
    let mut previous_is_word = false;
    for (at, byte) in bytes.iter().enumerate() {
        if !previous_is_word {
            let rest = bytes.get(at..).unwrap_or_default();
            for keyword in [&b"if"[..], b"do", b"case"] {
                if rest.starts_with(keyword)
                    && !rest.get(keyword.len()).is_some_and(|b| is_word_byte(*b))
                {
                    keywords += 1;
                }
            }
        }
        previous_is_word = is_word_byte(*byte);
    }
    punctuation + keywords
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// How much nesting budget the current stack may still take, so that nested parses (a payload
/// parsed while its parent's walk is still on the stack) add up instead of each assuming a fresh
/// stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StackBudget {
    used: usize,
    capacity: usize,
}

impl Default for StackBudget {
    /// The caller's stack: [`INLINE_OPENERS`] units, none used.
    fn default() -> Self {
        Self {
            used: 0,
            capacity: INLINE_OPENERS,
        }
    }
}

/// Runs `f` on the current stack when `budget` still fits in `stack`, otherwise on a scoped thread
/// whose stack is sized to the budget. `f` gets the stack budget it runs under (for the parses it
/// nests). `None` when the thread could not be started or `f` panicked.
pub(super) fn with_stack<T: Send>(
    budget: usize,
    stack: StackBudget,
    f: impl FnOnce(StackBudget) -> T + Send,
) -> Option<T> {
    let inline = StackBudget {
        used: stack.used.saturating_add(budget),
        capacity: stack.capacity,
    };
    if inline.used <= inline.capacity {
        return guarded(|| f(inline));
    }
    let bytes = budget.saturating_mul(STACK_PER_OPENER).max(MIN_STACK);
    let fresh = StackBudget {
        used: budget,
        capacity: bytes / STACK_PER_OPENER,
    };
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("toolgate-shell-parse".to_owned())
            .stack_size(bytes)
            .spawn_scoped(scope, move || f(fresh))
            .ok()?;
        handle.join().ok()
    })
}

/// Parses a whole script. The error message never echoes the script.
pub(super) fn parse_program(text: &str) -> Result<Program, String> {
    if has_empty_here_tag(text) {
        // brush-parser's tokenizer loops, allocating without end, on an empty here-document
        // delimiter followed by blanks at the end of the input (`cat << "" `, `cat <<\r `;
        // found by fuzzing).
        return Err("empty here-document delimiter".to_owned());
    }
    match guarded(|| Parser::new(text.as_bytes(), &OPTIONS).parse_program()) {
        Some(Ok(program)) => Ok(program),
        Some(Err(error)) => Err(describe(&error)),
        None => Err("the parser failed on this input".to_owned()),
    }
}

/// Whether a here-document operator (`<<`, `<<-`) in `text` has an empty delimiter: one made of
/// nothing but quotes and whitespace other than blanks (`""`, `''`, `\r`, form feed). Looked for
/// anywhere, quoted or not.
fn has_empty_here_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(bytes.get(from..).unwrap_or_default(), b"<<") {
        let at = from + found + 2;
        from = at;
        if bytes.get(at) == Some(&b'<') {
            continue;
        }
        let rest = bytes.get(at..).unwrap_or_default();
        let rest = rest.strip_prefix(b"-").unwrap_or(rest);
        let start = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(rest.len());
        let tag = rest.get(start..).unwrap_or_default();
        let end = tag
            .iter()
            .position(|b| b" \t\n;&|<>()".contains(b))
            .unwrap_or(tag.len());
        let tag = tag.get(..end).unwrap_or_default();
        if !tag.is_empty()
            && tag
                .iter()
                .all(|b| matches!(b, b'"' | b'\'') || b.is_ascii_whitespace())
        {
            return true;
        }
    }
    false
}

/// A parse error's message, without the input text brush-parser quotes in some of them
/// (here-doc tags).
fn describe(error: &ParseError) -> String {
    let ParseError::Tokenizing { inner, position } = error else {
        return truncate(error.to_string());
    };
    let what = match inner {
        TokenizerError::MissingHereTag(_) => "missing here-document delimiter".to_owned(),
        TokenizerError::UnterminatedHereDocuments(..) => "unterminated here-document".to_owned(),
        other => other.to_string(),
    };
    let at = position.as_ref().map_or_else(String::new, |p| {
        format!(" (detected near line {} col {})", p.line, p.column)
    });
    truncate(format!("{what}{at}"))
}

fn truncate(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_counts_openers() {
        assert_eq!(nesting_budget("git status"), 0);
        assert_eq!(nesting_budget("echo $(id)"), 1);
        assert_eq!(nesting_budget("if true; then :; fi"), 1);
        assert_eq!(nesting_budget("for x in a; do :; done"), 1);
        assert_eq!(nesting_budget("cat docs | caseload"), 1);
        assert_eq!(nesting_budget("[[ ! ! x ]]"), 4);
        assert_eq!(nesting_budget("((((("), 5);
    }

    #[test]
    fn messages_do_not_quote_here_tags() {
        let message = parse_program("cat <<SECRET_TAG\nbody")
            .err()
            .unwrap_or_default();
        assert!(
            message.starts_with("unterminated here-document"),
            "{message}"
        );
        assert!(!message.contains("SECRET_TAG"), "{message}");
    }

    #[test]
    fn messages_are_truncated() {
        let long = "é".repeat(200);
        let short = truncate(long);
        assert!(short.len() <= MAX_MESSAGE + '…'.len_utf8());
    }

    fn thread_name() -> Option<String> {
        std::thread::current().name().map(str::to_owned)
    }

    #[test]
    fn nested_budgets_add_up() {
        let outer = with_stack(30, StackBudget::default(), |inner| {
            let here = thread_name();
            let nested = with_stack(30, inner, |_| thread_name());
            (here, nested)
        });
        let (here, nested) = outer.unwrap_or_default();
        assert_ne!(here.as_deref(), Some("toolgate-shell-parse"));
        assert_eq!(nested.flatten().as_deref(), Some("toolgate-shell-parse"));
    }

    #[test]
    fn deep_input_parses_on_a_big_stack() {
        let depth = 300;
        let text = format!("{}true{}", "{ ".repeat(depth), "; }".repeat(depth));
        let result = with_stack(nesting_budget(&text), StackBudget::default(), |inner| {
            assert!(inner.capacity >= inner.used);
            parse_program(&text).is_ok()
        });
        assert_eq!(result, Some(true));
    }
}
