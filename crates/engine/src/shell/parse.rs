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
use brush_parser::{
    ParseError, Parser, ParserImpl, ParserOptions, Token, TokenizerError, uncached_tokenize_str,
};

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
/// How many times, at most, brush-parser's word grammar parses the text inside one open
/// construct per parse of the construct itself. The grammar has no memoisation: every
/// alternative of `${…}` (about 25: `:-`, `%%`, `/`, `^^`, `@Q`, …) re-parses the parameter with
/// its `[index]`, and a construct that fails to close (`${`, `$(`, `$((`, `[`, extglob `(`) is
/// parsed again as literal text, so text under `n` open constructs is parsed up to `16^n` times.
/// Measured: each nesting level multiplies the time by 4 to 11 (`${_[${_[${_[${_'` ≈ 0.3 s,
/// one level more ≈ 15 s, release build).
const WORD_RETRY_FACTOR: u64 = 16;
/// Word-parser work ([`word_work`]) one analysis may spend, all words, here-doc bodies and nested
/// scripts together. Real commands stay far below it: a word costs about its length times 16 to
/// 256 (one or two open expansions), `"${arr[$((i+1))]}"` ~270K, an 11 KiB here-doc script with
/// three substitutions a line ~320K; a word that buries one byte under six open constructs costs
/// more than all of it. In a release build the slowest inputs found within it take a few ms.
pub(super) const WORD_WORK_BUDGET: u64 = 1 << 23;
/// The fuel one step of the walk costs (a node of a script's syntax tree entered, a command
/// run), against one unit for a byte of text read: a step allocates and copies, and takes about
/// as long as reading a few hundred bytes (see [`Budget::burn`]).
pub(super) const STEP: u64 = 256;
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

/// How the word parser reads the top level of a text: as a word (quotes quote) or as a here-doc
/// body (quotes are plain text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WordSyntax {
    /// A shell word, or the text inside `${…}`.
    Word,
    /// An unquoted here-doc body, or arithmetic text.
    HereDoc,
    /// The text after `name[` in a word the program grammar tries as an assignment: it starts
    /// inside the subscript.
    Subscript,
}

/// Most readings of a text [`word_work`] follows at once before it falls back to
/// [`conservative_work`].
const MAX_READINGS: usize = 64;

/// An upper bound on the work brush-parser's word parser does on `text`: the sum over its bytes
/// of [`WORD_RETRY_FACTOR`] to the power of the number of constructs that may be open around the
/// byte, in any reading the parser tries.
///
/// Every construct the word grammar nests (`${…}`, `${name[…]}`, `$(…)`, `$((…))`, `$[…]`, extglob
/// and subshell parentheses) opens on a `{`, `[` or `(`, and the parser tries it both as a
/// construct and, when the construct fails, as plain text read by the enclosing context. Every
/// such reading is followed, merged when readings meet again: in a reading, an opener (`${`,
/// `$(`, `$((`, `$[` anywhere, a bare `{`, `[` or `(` inside a construct outside double quotes)
/// opens a construct or is text; a construct closes at the first closer of its own kind at its
/// own level outside quotes (`))` for `$((`), and any other closer is text; quotes are read as the grammar reads them there (`'…'` and `$'…'` quote in a word
/// and inside constructs, not inside `"…"` nor at the top level of a here-doc body; backticks
/// quote everywhere; an unterminated quote is text). Past [`MAX_READINGS`] readings, or once
/// following them has burnt all of `budget`'s fuel, the estimate falls back to
/// [`conservative_work`].
pub(super) fn word_work(text: &str, syntax: WordSyntax, budget: &Budget) -> u64 {
    // Every construct opens on one of these bytes: with none, nothing is ever open beyond the
    // frames the syntax starts in, and the bound is exact without following any reading (most
    // words: `git`, `status`, `-la`).
    if !text.bytes().any(|byte| matches!(byte, b'{' | b'[' | b'(')) {
        let depth = u32::try_from(initial_frames(syntax).len()).unwrap_or(u32::MAX);
        let per_byte = WORD_RETRY_FACTOR.saturating_pow(depth);
        return per_byte.saturating_mul(text.len() as u64);
    }
    Readings::new(text.as_bytes(), syntax)
        .work(budget)
        .unwrap_or_else(|| conservative_work(text, syntax))
}

/// The closer recorded for `$((`, which only `))` closes (a lone `)` inside is text).
const ARITHMETIC: u8 = b'A';

/// One way of reading a text so far.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Reading {
    /// The constructs open, innermost last: each one's closer ([`ARITHMETIC`] for `$((`) and
    /// whether the reading is inside `"…"` at that construct's level.
    frames: Vec<(u8, bool)>,
    /// Inside `"…"` at the top level.
    top_double: bool,
    /// Inside a quote: `'` for `'…'`, `$` for `$'…'`, a backtick for `` `…` ``.
    quote: Option<u8>,
    /// The previous byte was a backslash that escapes this one.
    escaped: bool,
    /// The previous byte was an unescaped, unquoted `$`.
    dollar: bool,
}

/// Every reading of one text, advanced in step, byte by byte.
struct Readings<'t> {
    bytes: &'t [u8],
    syntax: WordSyntax,
    /// For each position, whether a `'` follows it anywhere (a `'…'` opened there terminates).
    single_ends: Vec<bool>,
    /// For each position, whether a body starting there ends on an unescaped `'` (`$'…'`).
    ansi_ends: Vec<bool>,
    /// For each position, whether a body starting there ends on an unescaped backtick.
    backtick_ends: Vec<bool>,
}

impl<'t> Readings<'t> {
    fn new(bytes: &'t [u8], syntax: WordSyntax) -> Self {
        let ends = |quote: u8, escapes: bool| {
            let mut ends = vec![false; bytes.len() + 2];
            for at in (0..bytes.len()).rev() {
                let end = match bytes.get(at) {
                    Some(&byte) if byte == quote => true,
                    Some(b'\\') if escapes => ends.get(at + 2).copied().unwrap_or(false),
                    _ => ends.get(at + 1).copied().unwrap_or(false),
                };
                if let Some(slot) = ends.get_mut(at) {
                    *slot = end;
                }
            }
            ends
        };
        Self {
            bytes,
            syntax,
            single_ends: ends(b'\'', false),
            ansi_ends: ends(b'\'', true),
            backtick_ends: ends(b'`', true),
        }
    }

    /// The work bound, or `None` when the readings outgrow [`MAX_READINGS`] or `budget`'s fuel.
    fn work(&self, budget: &Budget) -> Option<u64> {
        let mut work = 0u64;
        self.walk(budget, |depth| {
            work = work.saturating_add(WORD_RETRY_FACTOR.saturating_pow(depth));
        })?;
        Some(work)
    }

    /// Calls `each` with the number of constructs that may be open around each byte, or returns
    /// `None` when the readings outgrow [`MAX_READINGS`] or `budget`'s fuel. Each byte burns
    /// fuel for every reading followed over it, as deep as the deepest: they are stepped,
    /// sorted and compared frame by frame.
    fn walk(&self, budget: &Budget, mut each: impl FnMut(u32)) -> Option<()> {
        let mut readings = vec![Reading {
            frames: initial_frames(self.syntax)
                .iter()
                .map(|&c| (c, false))
                .collect(),
            top_double: false,
            quote: None,
            escaped: false,
            dollar: false,
        }];
        for (at, &byte) in self.bytes.iter().enumerate() {
            let mut opened = Vec::new();
            for reading in &mut readings {
                self.step(reading, at, byte, &mut opened);
            }
            if !opened.is_empty() || b"'\"`)]}".contains(&byte) {
                readings.append(&mut opened);
                readings.sort_unstable();
                readings.dedup();
                if readings.len() > MAX_READINGS {
                    return None;
                }
            }
            let depth = readings.iter().map(|r| r.frames.len()).max().unwrap_or(0);
            let effort = readings.len().saturating_mul(1 + depth);
            if !budget.burn(effort as u64) {
                return None;
            }
            each(u32::try_from(depth).unwrap_or(u32::MAX));
        }
        Some(())
    }

    /// Advances `reading` over `byte` at `at`. When `byte` may open a construct, `reading` takes
    /// it as text and the readings that take it as a construct are pushed onto `opened`.
    fn step(&self, reading: &mut Reading, at: usize, byte: u8, opened: &mut Vec<Reading>) {
        if std::mem::take(&mut reading.escaped) {
            return;
        }
        let after_dollar = std::mem::take(&mut reading.dollar);
        if let Some(quote) = reading.quote {
            let end = if quote == b'$' { b'\'' } else { quote };
            if byte == end {
                reading.quote = None;
            } else if byte == b'\\' && quote != b'\'' {
                reading.escaped = true;
            }
            return;
        }
        let in_construct = !reading.frames.is_empty();
        let double = reading
            .frames
            .last()
            .map_or(reading.top_double, |frame| frame.1);
        let quoting = !double && (in_construct || self.syntax == WordSyntax::Word);
        let ends = |table: &Vec<bool>| table.get(at + 1).copied().unwrap_or(false);
        let next = self.bytes.get(at + 1).copied();
        match byte {
            b'{' | b'[' | b'(' if after_dollar || (in_construct && !double) => {
                let mut construct = reading.clone();
                construct.frames.push((closer(byte), false));
                opened.push(construct);
                if after_dollar && byte == b'(' && next == Some(b'(') {
                    // `$((…))`: arithmetic, which only `))` closes.
                    let mut arithmetic = reading.clone();
                    arithmetic.frames.push((ARITHMETIC, false));
                    arithmetic.escaped = true;
                    opened.push(arithmetic);
                }
            }
            b')' if !double
                && next == Some(b')')
                && reading.frames.last().map(|f| f.0) == Some(ARITHMETIC) =>
            {
                reading.frames.pop();
                reading.escaped = true;
            }
            b'}' | b']' | b')' if !double && reading.frames.last().map(|f| f.0) == Some(byte) => {
                reading.frames.pop();
            }
            // `$'…'`, where a backslash escapes the quote; recorded as `$`.
            b'\'' if after_dollar && quoting && ends(&self.ansi_ends) => reading.quote = Some(b'$'),
            b'\'' if quoting && ends(&self.single_ends) => reading.quote = Some(b'\''),
            b'`' if ends(&self.backtick_ends) => reading.quote = Some(b'`'),
            b'"' if in_construct || self.syntax == WordSyntax::Word => {
                match reading.frames.last_mut() {
                    Some(frame) => frame.1 = !frame.1,
                    None => reading.top_double = !reading.top_double,
                }
            }
            b'\\' => reading.escaped = true,
            b'$' => reading.dollar = true,
            _ => {}
        }
    }
}

/// The fallback bound of [`word_work`], linear whatever the text: the same sum, with the
/// constructs that may be open counted without following readings.
///
/// Every construct the word grammar nests (`${…}`, `${name[…]}`, `$(…)`, `$((…))`, `$[…]`, extglob
/// and subshell parentheses) opens on a `{`, `[` or `(`. At the top level, where nothing is open,
/// the grammar's reading is fixed: only `${`, `$(` and `$[` open a construct, and quoted spans
/// (`'…'`, `$'…'`, backticks; in a here-doc body quotes are text) are plain text. Inside a
/// construct every `{`, `[` and `(` is counted as an opener, and a construct is only known to be
/// closed at a closer of its own kind (`}`, `]`, `)`) when no quote character (`'`, `"`, a
/// backtick) stands between the two: a quote may hide the closer (`${a:-'}'…`), and the parser
/// tries a quote both as a quote and, when an enclosing construct fails, as plain text. A closer
/// of another kind (`${a[}}`) closes nothing: the parser reads it as text. A backslash escapes the
/// next byte, which then opens and closes nothing (an escaped quote still counts as a quote).
/// The bound only ever over-estimates.
fn conservative_work(text: &str, syntax: WordSyntax) -> u64 {
    // INVARIANT: `open` holds, for every construct that may be open, its closer and the number of
    // quotes seen before it opened; it is known closed only if no quote was seen since. While it
    // is empty the parser is at the top level in every reading, inside `"…"` when `in_double`.
    let bytes = text.as_bytes();
    let mut open: Vec<(u8, usize)> = initial_frames(syntax).iter().map(|&c| (c, 0)).collect();
    let mut quotes = 0usize;
    let mut in_double = false;
    let mut work = 0u64;
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let start = at;
        at += 1;
        if open.is_empty() {
            let quoting = syntax == WordSyntax::Word && !in_double;
            match byte {
                b'\\' => at += 1,
                b'$' => match bytes.get(at) {
                    Some(&next @ (b'{' | b'(' | b'[')) => {
                        open.push((closer(next), quotes));
                        at += 1;
                    }
                    Some(b'\'') if quoting => at = skip_quoted(bytes, at + 1, b'\'', true),
                    _ => {}
                },
                b'`' => at = skip_quoted(bytes, at, b'`', true),
                b'\'' if quoting => at = skip_quoted(bytes, at, b'\'', false),
                b'"' if syntax == WordSyntax::Word => in_double = !in_double,
                _ => {}
            }
            if at > bytes.len() {
                // An unterminated quote: the parser fails there, but count it as a quote.
                quotes += 1;
                at = start + 1;
            }
        } else {
            match byte {
                b'{' | b'[' | b'(' => open.push((closer(byte), quotes)),
                b'}' | b']' | b')' if open.last() == Some(&(byte, quotes)) => {
                    open.pop();
                }
                b'\\' => {
                    if bytes
                        .get(at)
                        .is_some_and(|next| matches!(next, b'\'' | b'"' | b'`'))
                    {
                        quotes += 1;
                    }
                    at += 1;
                }
                b'\'' | b'"' | b'`' => quotes += 1,
                _ => {}
            }
        }
        let depth = u32::try_from(open.len()).unwrap_or(u32::MAX);
        let width = u64::try_from(at.min(bytes.len()) - start).unwrap_or(u64::MAX);
        work = work.saturating_add(
            WORD_RETRY_FACTOR
                .saturating_pow(depth)
                .saturating_mul(width),
        );
    }
    work
}

/// The closers of the constructs open where a text of `syntax` starts.
fn initial_frames(syntax: WordSyntax) -> &'static [u8] {
    match syntax {
        WordSyntax::Subscript => b"]",
        WordSyntax::Word | WordSyntax::HereDoc => b"",
    }
}

fn closer(opener: u8) -> u8 {
    match opener {
        b'{' => b'}',
        b'[' => b']',
        _ => b')',
    }
}

/// The position just past the `quote` that closes a quoted span whose body starts at `from`
/// (a backslash escapes the next byte when `escapes`), or past the end when it is unterminated.
fn skip_quoted(bytes: &[u8], from: usize, quote: u8, escapes: bool) -> usize {
    let mut at = from;
    while let Some(&byte) = bytes.get(at) {
        if byte == quote {
            return at + 1;
        }
        at += if escapes && byte == b'\\' { 2 } else { 1 };
    }
    bytes.len() + 1
}

/// What one analysis may still spend, shared by the walk and every analysis nested in it
/// (payloads, substitutions, interpreter code, the PowerShell front end):
///
/// - the word parser's work, from [`WORD_WORK_BUDGET`]: every call into brush-parser's word
///   parser spends its [`word_work`] first; once that is spent the word is not parsed;
/// - the bytes of variables' known values put in words, from [`MAX_EXPANSION_BYTES`];
/// - fuel: the work of the whole analysis, in units (see [`Budget::burn`]), from
///   [`ShellLimits::max_fuel`](super::ShellLimits::max_fuel). Once it is spent, the walk stops
///   and the analysis is unresolved ([`Unresolved::TooMuchWork`](super::Unresolved::TooMuchWork)).
#[derive(Debug)]
pub(super) struct Budget {
    left: std::cell::Cell<u64>,
    refused: std::cell::Cell<bool>,
    /// What is left of [`MAX_EXPANSION_BYTES`].
    expansion_left: std::cell::Cell<usize>,
    /// The fuel left.
    fuel_left: std::cell::Cell<u64>,
    /// Whether something asked for more fuel than was left.
    out_of_fuel: std::cell::Cell<bool>,
}

/// Most bytes of variables' known values all the words of one analysis take in their place
/// (`a=<4 KiB>; echo $a $a $a …`): past it a word is refused as too deep.
pub(super) const MAX_EXPANSION_BYTES: usize = 1 << 20;

impl Default for Budget {
    /// The budget of an analysis under [`ShellLimits::default`](super::ShellLimits::default).
    fn default() -> Self {
        Self::new(super::ShellLimits::default().max_fuel)
    }
}

impl Budget {
    /// A budget of `fuel` units, with the word parser's and the expansions' default shares.
    pub(super) fn new(fuel: u64) -> Self {
        Self {
            left: std::cell::Cell::new(WORD_WORK_BUDGET),
            refused: std::cell::Cell::new(false),
            expansion_left: std::cell::Cell::new(MAX_EXPANSION_BYTES),
            fuel_left: std::cell::Cell::new(fuel),
            out_of_fuel: std::cell::Cell::new(false),
        }
    }

    /// Spends `units` of fuel, or returns `false` once there is not that much left (and from
    /// then on: the analysis is out of fuel for good).
    ///
    /// A unit is a small, fixed amount of work: a byte of text a scanner reads, a token of
    /// interpreter code, a part of a PowerShell word; a step of the walk (a node of a script's
    /// syntax tree, a command run) costs [`STEP`]. Every loop whose trip count can grow with the
    /// input faster than the input itself (readings of wrappers, function calls, loop bodies,
    /// values copied into values) burns fuel as it goes, so that any such path stops after the
    /// same bounded work on every machine.
    pub(super) fn burn(&self, units: u64) -> bool {
        match self.fuel_left.get().checked_sub(units) {
            Some(left) if !self.out_of_fuel.get() => {
                self.fuel_left.set(left);
                true
            }
            _ => {
                self.fuel_left.set(0);
                self.out_of_fuel.set(true);
                false
            }
        }
    }

    /// Spends fuel for reading `text` whole.
    pub(super) fn burn_text(&self, text: &str) -> bool {
        self.burn(text.len() as u64)
    }

    /// The fuel left.
    pub(super) fn fuel_left(&self) -> u64 {
        self.fuel_left.get()
    }

    /// Whether the analysis ran out of fuel.
    pub(super) fn out_of_fuel(&self) -> bool {
        self.out_of_fuel.get()
    }

    /// Whether some text has been refused: the analysis met nesting it could not afford.
    pub(super) fn refused(&self) -> bool {
        self.refused.get()
    }

    /// Spends the word-parser work brush-parser's program grammar does on `script` itself: it
    /// tries every word as an assignment, and parses the subscript of a word that starts
    /// `name[` with the word grammar (`a[${b[${c[…`). `false` (spending nothing) when that does
    /// not fit; `true` when the script does not tokenise (the parse then fails early).
    pub(super) fn spend_assignments(&self, script: &str) -> bool {
        if here_tag_problem(script).is_some() {
            return true;
        }
        // A subscript needs a name character right before a `[`: without one, there is nothing
        // to charge, and the script need not be tokenised twice.
        let subscripted = script.as_bytes().windows(2).any(
            |pair| matches!(pair, [name, b'['] if name.is_ascii_alphanumeric() || *name == b'_'),
        );
        if !subscripted {
            return true;
        }
        let tokens = guarded(|| uncached_tokenize_str(script, &OPTIONS.tokenizer_options()));
        let Some(Ok(tokens)) = tokens else {
            return true;
        };
        let mut cost = 0u64;
        for token in &tokens {
            let Token::Word(word, _) = token else {
                continue;
            };
            let name = word
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let starts_name = word.bytes().next().is_some_and(|b| !b.is_ascii_digit());
            if name > 0 && starts_name && word.as_bytes().get(name) == Some(&b'[') {
                let subscript = word.get(name + 1..).unwrap_or_default();
                cost = cost.saturating_add(word_work(subscript, WordSyntax::Subscript, self));
            }
        }
        self.take(cost)
    }

    /// Spends the work of parsing `text` read as `syntax`, or returns `false` (spending nothing)
    /// when it does not fit.
    pub(super) fn spend(&self, text: &str, syntax: WordSyntax) -> bool {
        self.take(word_work(text, syntax, self))
    }

    /// Spends `len` bytes of a variable's known value put in a word, or returns `false`
    /// (spending nothing, and refusing) when they do not fit in [`MAX_EXPANSION_BYTES`]. The
    /// bytes are copied either way: they burn fuel.
    pub(super) fn spend_expansion(&self, len: usize) -> bool {
        self.burn(len as u64);
        match self.expansion_left.get().checked_sub(len) {
            Some(left) => {
                self.expansion_left.set(left);
                true
            }
            None => {
                self.refused.set(true);
                false
            }
        }
    }

    fn take(&self, cost: u64) -> bool {
        match self.left.get().checked_sub(cost) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => {
                self.refused.set(true);
                false
            }
        }
    }
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
    if let Some(problem) = here_tag_problem(text) {
        // brush-parser's tokenizer loops, allocating without end, on an empty here-document
        // delimiter, or one holding an unclosed `$(` or `$[`, followed by blanks at the end of
        // the input (`cat << "" `, `cat <<\r `, `cat <<$(  `; found by fuzzing).
        return Err(problem.to_owned());
    }
    match guarded(|| Parser::new(text.as_bytes(), &OPTIONS).parse_program()) {
        Some(Ok(program)) => Ok(program),
        Some(Err(error)) => Err(describe(&error)),
        None => Err("the parser failed on this input".to_owned()),
    }
}

/// Whether a here-document operator (`<<`, `<<-`) in `text` has a delimiter brush-parser's
/// tokenizer may loop on: an empty one, made of nothing but quotes and whitespace other than
/// blanks (`""`, `''`, `\r`, form feed), or one holding an expansion (`$(`, `$[`, `${`, a
/// backtick), which bash never expands in a delimiter and no real command writes. Looked for
/// anywhere, quoted or not. Where the text opens a nested context the tokenizer re-enters (`$(`,
/// `${`, `$[`, a backtick, `<(`, `>(`), which every loop found had, an odd delimiter or a body
/// that never ends is refused too; elsewhere a `<<` in quotes or in a here-document's body is
/// text (`echo '1 << 2'`, C++'s `std::cout << x` written with `cat <<'EOF'`).
fn here_tag_problem(text: &str) -> Option<&'static str> {
    let bytes = text.as_bytes();
    let nests = bytes
        .windows(2)
        .any(|pair| matches!(pair, [b'$', b'(' | b'{' | b'['] | [b'<' | b'>', b'(']))
        || bytes.contains(&b'`');
    let mut from = 0;
    while let Some(found) = memchr::memmem::find(bytes.get(from..).unwrap_or_default(), b"<<") {
        // A run of `<` is tokenised greedily: `<<<` (here-strings) as long as it lasts, then
        // `<<` when two are left over, which opens a here-document (`<<<<<` is `<<<` `<<`).
        let run_start = from + found;
        let run = bytes
            .get(run_start..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| **b == b'<')
            .count();
        let at = run_start + run;
        from = at;
        if run % 3 != 2 {
            continue;
        }
        let rest = bytes.get(at..).unwrap_or_default();
        let rest = rest.strip_prefix(b"-").unwrap_or(rest);
        let start = rest
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(rest.len());
        let tag = rest.get(start..).unwrap_or_default();
        let end = word_end(tag);
        let with_next = tag.get(..=end).unwrap_or(tag);
        let tag = tag.get(..end).unwrap_or_default();
        if !tag.is_empty()
            && tag
                .iter()
                .all(|b| matches!(b, b'"' | b'\'') || b.is_ascii_whitespace())
        {
            return Some("empty here-document delimiter");
        }
        // No delimiter at all (an operator, a newline or the end follows): a syntax error, on
        // which the tokenizer loops inside an unclosed `$(` or `$[` (`$( << <  `, `$[$[]<<  `).
        if tag.is_empty() {
            return Some("here-document without a delimiter");
        }
        let expands = |pair: &[u8]| matches!(pair, [b'$', b'(' | b'[' | b'{'] | [b'`', _]);
        if with_next.windows(2).any(expands) || tag.ends_with(b"`") {
            return Some("here-document delimiter with an expansion");
        }
        // Real delimiters are words (`EOF`, `'PY'`, `"END-OF-FILE"`, `\EOT`). The tokenizer has
        // looped on odd ones inside an unclosed `$[` (`$[$[]<<  '<<<' `, found by fuzzing), so
        // anything but word characters, quotes and a backslash is refused.
        let plain = |b: &u8| b.is_ascii_alphanumeric() || b"\"'\\_-.!@%+=:,/^".contains(b);
        if nests && !tag.iter().all(plain) {
            return Some("here-document delimiter of an unusual form");
        }
        // A body that never ends: every loop found so far had one (inside an unclosed `$(`,
        // `${` or `$[` at the end of the input). Bash reads such a body to the end of the input
        // with a warning; commands agents run close their here-documents.
        let strip_tabs = bytes.get(run_start + run) == Some(&b'-');
        if nests && !closes(bytes.get(at..).unwrap_or_default(), tag, strip_tabs) {
            return Some("here-document without its closing line");
        }
    }
    None
}

/// Whether a line after the first newline of `text` is the here-document delimiter `tag` (as
/// written, quotes and backslashes removed; with leading tabs for `<<-`).
fn closes(text: &[u8], tag: &[u8], strip_tabs: bool) -> bool {
    let delimiter: Vec<u8> = tag
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'"' | b'\'' | b'\\'))
        .collect();
    let Some(newline) = memchr::memchr(b'\n', text) else {
        return false;
    };
    text.get(newline + 1..)
        .unwrap_or_default()
        .split(|b| *b == b'\n')
        .any(|line| {
            let line = if strip_tabs {
                let tabs = line.iter().take_while(|b| **b == b'\t').count();
                line.get(tabs..).unwrap_or_default()
            } else {
                line
            };
            line == delimiter.as_slice()
        })
}

/// Where the shell word at the start of `text` ends: at the first blank, newline or operator
/// byte outside quotes (a backslash escapes the next byte).
fn word_end(text: &[u8]) -> usize {
    let mut quote = None;
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        match quote {
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None if byte == b'\'' || byte == b'"' => quote = Some(byte),
            None if b" \t\n;&|<>()".contains(&byte) => return at,
            None if byte == b'\\' => at += 1,
            None => {}
        }
        at += 1;
    }
    text.len()
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

    /// The deepest nesting the bound assumes anywhere in `text`.
    fn depth_of(text: &str, syntax: WordSyntax) -> u32 {
        let mut deepest = 0;
        let walked = Readings::new(text.as_bytes(), syntax).walk(&Budget::default(), |depth| {
            deepest = deepest.max(depth);
        });
        assert!(walked.is_some(), "{text}");
        deepest
    }

    #[test]
    fn word_work_counts_constructs_that_may_be_open() {
        use WordSyntax::{HereDoc, Word};
        // Top level: plain text, quoted spans, globs and bare braces cost one unit a byte.
        for text in [
            "git",
            "'{\"a\":{\"b\":[1,{\"c\":2}]}}'",
            "*.[ch]",
            "{a,b}",
            "$'\\'{'",
            "`echo ${`",
            "\\${",
        ] {
            assert_eq!(
                word_work(text, Word, &Budget::default()),
                text.len() as u64,
                "{text}"
            );
        }
        assert_eq!(depth_of("\"${A}/${B}/${C}/${D}/${E}/${F}/${G}\"", Word), 1);
        assert_eq!(depth_of("\"${arr[$((i+1))]}\"", Word), 4);
        assert_eq!(
            depth_of("$(dirname \"$(readlink -f \"${BASH_SOURCE[0]}\")\")", Word),
            4
        );
        // Unclosed constructs stay open; a quote may hide any later closer.
        assert_eq!(depth_of("${_[''${_[''${_[${_['' '", Word), 8);
        assert_eq!(depth_of("${a:-'}'${a:-'}'${a:-'}'x", Word), 3);
        // A closer of another kind closes nothing.
        assert_eq!(depth_of("${a[}}${a[}}${a[}}", Word), 6);
        // Quotes inside a construct are read as the grammar reads them there.
        assert_eq!(
            depth_of("\"$(a \"x\") $(b 'y)') $(c \"$(d \"z\")\")\"", Word),
            2
        );
        // A construct that fails (`${.`) leaves its text to the enclosing `"…"`, where `'` is
        // text and the next `"` ends the quote: what follows is read unquoted too.
        assert_eq!(depth_of("\"${.'\"${a[${a[${a[x]}]}]}'\"", Word), 6);
        // Only `))` closes `$((`: a lone `)` in it is text.
        assert_eq!(depth_of("$((a)+b)+${x[${y[1]}]}))", Word), 5);
        // In a here-doc body quotes are text; `$(`, `${` still open.
        assert_eq!(word_work("it's \"$x\"", HereDoc, &Budget::default()), 9);
        assert_eq!(depth_of("$(a \"${b[0]}\")", HereDoc), 3);
    }

    #[test]
    fn too_many_readings_fall_back_to_the_linear_bound() {
        let text = format!("$({}x", "([{".repeat(12));
        assert_eq!(
            word_work(&text, WordSyntax::Word, &Budget::default()),
            conservative_work(&text, WordSyntax::Word)
        );
        assert!(word_work(&text, WordSyntax::Word, &Budget::default()) > WORD_WORK_BUDGET);
    }

    #[test]
    fn the_word_budget_is_shared_and_refuses_what_does_not_fit() {
        let budget = Budget {
            left: std::cell::Cell::new(10),
            ..Budget::default()
        };
        assert!(budget.spend("abcdef", WordSyntax::Word));
        assert!(!budget.refused());
        assert!(!budget.spend("abcdef", WordSyntax::Word));
        assert!(budget.spend("abcd", WordSyntax::Word));
        assert!(budget.refused());
        assert!(!budget.spend("a", WordSyntax::Word));
        // One byte under six open constructs costs the whole default budget.
        let budget = Budget::default();
        assert!(!budget.spend("${a[${b[${c[x", WordSyntax::Word));
        assert!(budget.spend("${a[${b[x", WordSyntax::Word));
    }

    #[test]
    fn messages_do_not_quote_here_tags() {
        let message = parse_program("cat <<SECRET_TAG\nbody")
            .err()
            .unwrap_or_default();
        assert!(message.contains("here-document"), "{message}");
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
