//! Word normalisation: one raw shell word in, its unquoted text out.
//!
//! Quotes and escapes are removed (`r''m`, `\rm`, `"rm"`, `$'\x72\x6d'` all give `rm`), static words
//! are brace-expanded (`f{,.bak}` gives `f` and `f.bak`), and every `$(…)` or backtick body found
//! anywhere in the word — inside double quotes, `${X:-…}` defaults, `$((…))` — is handed back so the
//! caller can analyse it as a command. Expansions (`$VAR`, `${X}`, `$(…)`) are kept as their source
//! text and make the word dynamic; `~` does not.
//!
//! This module must not parse whole scripts or decide anything about commands; it only reads words.

use std::borrow::Cow;

use brush_parser::word::{
    self, BraceExpressionMember, BraceExpressionOrText, TildeExpr, WordPiece, WordPieceWithSource,
};

use super::parse::{Budget, OPTIONS, WordSyntax, guarded, nesting_depth};

/// Most fields one word may brace-expand to; a larger expansion is left unexpanded.
const MAX_BRACE_FIELDS: usize = 256;
/// Deepest `{` nesting that brace expansion is tried on. brush-parser's brace-expansion parser
/// backtracks exponentially with nesting, balanced or not (18 unclosed `{` before a comma cost
/// ~30 s; found by fuzzing), while real brace expressions nest two or three deep. A deeper word is
/// not expanded and counts as unparseable, unless it is quoted whole: bash never brace-expands that.
const MAX_BRACE_DEPTH: usize = 6;
/// Deepest nesting of `${…}` / `$((…))` scanned for substitutions inside one word.
const MAX_SCAN_DEPTH: usize = 32;
/// Longest digit run handed to the word parser; brush-parser panics on integer overflow in
/// `~NNN` and `{N..M}`, so words holding longer runs are not parsed.
const MAX_DIGIT_RUN: usize = 18;

/// Longest text a word may reach through variables' known values (`$a$a…`, `${a//x/xxxx}`):
/// past it the word fails, so that values built up over a command line cannot make a word ever
/// larger.
const MAX_EXPANDED_TEXT: usize = 64 * 1024;

/// Marks where a variable's known value breaks into separate fields: the blanks of an unquoted
/// value (`X="rm -rf"; $X ~` runs `rm -rf ~`), and between a function call's arguments in `$@`
/// (see [`join_fields`]). It never stays in a word's text.
const FIELD_BREAK: char = '\u{1f}';

/// The suffix of the name an array's known elements are kept under (`a[@]`), joined as `$@`'s
/// are: `"${a[@]}"` gives each its own field, `${a[1]}` one of them, `$a` the first.
pub(super) const ARRAY_ELEMENTS: &str = "[@]";

/// The value IFS stands for once the command line gave it one only known at run time
/// (`IFS=$(…)`, `read IFS`): words split at it are unknown (see [`Rendered::push_value`]).
pub(super) const UNKNOWN_IFS: &str = "${IFS:?}";

/// Marks a variable's known value whose leading `~` the assignment quoted (`x="~/.ssh/id_rsa"`):
/// bash never expands it, in the assignment or where the value is read, so a word the value
/// begins names a file below the working directory (`cat $x` reads `./~/.ssh/id_rsa`), while
/// the value of `x=~/.ssh/id_rsa` is the home's. It never stays in a word's text.
pub(super) const LITERAL_TILDE: char = '\u{1e}';

/// `value` without its [`LITERAL_TILDE`] mark.
pub(super) fn unmarked(value: &str) -> &str {
    value.strip_prefix(LITERAL_TILDE).unwrap_or(value)
}

/// One word after normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NormWord {
    /// The unquoted text; expansions are kept as source text.
    pub text: String,
    /// Whether the word holds an expansion only known at run time.
    pub dynamic: bool,
    /// The fields after brace expansion (a static word may become several); `[text]` otherwise.
    pub fields: Vec<String>,
    /// Whether the word could not be parsed (it is then kept as written, and marked dynamic).
    pub failed: bool,
    /// Whether the text is all known from the command line: static, or with variables the
    /// command line assigned static values earlier.
    pub resolved: bool,
}

/// Normalises `raw`, pushing every command-substitution body found in it onto `subs`. The word
/// parser's work is taken from `budget`; a word that does not fit is unparseable.
pub(super) fn normalize(raw: &str, subs: &mut Vec<String>, budget: &Budget) -> NormWord {
    normalize_with(raw, subs, budget, &[])
}

/// [`normalize`], with `$NAME` and `${NAME}` replaced by the values the command line gave those
/// variables earlier (`variables`: name, static value). A word with such a value is still
/// dynamic (the variable may hold something else when the assignment did not run), but its text
/// is what it most likely is.
pub(super) fn normalize_with(
    raw: &str,
    subs: &mut Vec<String>,
    budget: &Budget,
    variables: &[(String, String)],
) -> NormWord {
    normalize_in(raw, subs, budget, variables, &[])
}

/// [`normalize_with`], reading the variables named in `unset` as unset: `${GEN:-gen.sh}` is
/// `gen.sh`, `$GEN` empty (the reading of a command in which the environment does not set
/// them; see [`defaulted_names`]).
pub(super) fn normalize_unset(
    raw: &str,
    budget: &Budget,
    variables: &[(String, String)],
    unset: &[String],
) -> NormWord {
    normalize_in(raw, &mut Vec::new(), budget, variables, unset)
}

/// The text of `word`, the WORD of a `${NAME:-WORD}`, when it is known: plain text, variables
/// with the values the command line gave them (`$D.sh`), the home's or the working directory's
/// (`$HOME/gen.sh`), and defaults of the variables named in `unset` read as unset
/// (`${ALT:-gen.sh}`), to the same depth and with the same fuel as a word's own operators.
pub(super) fn known_default(
    word: &str,
    budget: &Budget,
    variables: &[(String, String)],
    unset: &[String],
) -> Option<String> {
    let mut rendered = Rendered::new(budget);
    rendered.variables = variables;
    rendered.unset = unset;
    rendered.operand(word, 0)
}

/// The names a word gives a default value (`GEN` of `${GEN:-gen.sh}`, `${GEN-…}`, `${GEN:=…}`,
/// `${GEN=…}`), as its text shows them; a name in single quotes is listed too, and reads the
/// same either way.
pub(super) fn defaulted_names(raw: &str) -> Vec<&str> {
    raw.match_indices("${")
        .filter_map(|(at, _)| {
            let inner = raw.get(at + 2..)?;
            let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
            let (name, rest) = inner.split_at(end);
            let defaulted = ["-", ":-", "=", ":="]
                .iter()
                .any(|operator| rest.starts_with(operator));
            let variable = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            (defaulted && variable).then_some(name)
        })
        .collect()
}

/// The variable a `${NAME:-WORD}` (`-`, `:=`, `=`, `:?`, `?`) of a variable every shell sets
/// stands for, whose WORD never applies: `$HOME` of `${HOME:-/tmp}`, `$PWD`.
fn always_set(source: &str) -> Option<&'static str> {
    let inner = source.strip_prefix("${")?;
    let (name, operator) = ["HOME", "PWD"]
        .iter()
        .find_map(|name| Some((*name, inner.strip_prefix(name)?)))?;
    let operator = operator.strip_prefix(':').unwrap_or(operator);
    operator.starts_with(['-', '=', '?']).then_some(match name {
        "HOME" => "$HOME",
        _ => "$PWD",
    })
}

/// [`normalize_with`] and [`normalize_unset`].
fn normalize_in(
    raw: &str,
    subs: &mut Vec<String>,
    budget: &Budget,
    variables: &[(String, String)],
    unset: &[String],
) -> NormWord {
    // The walk notices when this runs out, at its next step.
    budget.burn_text(raw);
    if is_plain(raw) {
        return NormWord {
            text: raw.to_owned(),
            dynamic: false,
            fields: vec![raw.to_owned()],
            failed: false,
            resolved: true,
        };
    }
    let Some(pieces) = parse_word(raw, budget) else {
        return NormWord {
            text: raw.to_owned(),
            dynamic: true,
            fields: vec![raw.to_owned()],
            failed: true,
            resolved: false,
        };
    };
    let mut out = Rendered::new(budget);
    out.variables = variables;
    out.unset = unset;
    out.render(raw, &pieces, subs, 0);
    let fields = if out.substituted && out.text.contains(FIELD_BREAK) {
        let fields = out
            .text
            .split(FIELD_BREAK)
            .filter(|field| !field.is_empty())
            .map(str::to_owned)
            .collect();
        out.text = out.text.replace(FIELD_BREAK, " ");
        fields
    } else if out.dynamic || out.failed || out.folded || out.substituted || quoted_whole(raw) {
        vec![out.text.clone()]
    } else if nesting_depth(raw, b'{', b'}') > MAX_BRACE_DEPTH
        || !budget.spend(raw, WordSyntax::Word)
    {
        return NormWord {
            text: raw.to_owned(),
            dynamic: true,
            fields: vec![raw.to_owned()],
            failed: true,
            resolved: false,
        };
    } else {
        brace_fields(raw, budget).unwrap_or_else(|| vec![out.text.clone()])
    };
    NormWord {
        text: out.text,
        // A folded substitution still runs at run time: the word is no plain text to an allow
        // rule, nor a known command name. Nor is a variable's value from earlier on the line.
        dynamic: out.dynamic || out.failed || out.folded || out.substituted,
        fields,
        failed: out.failed,
        resolved: !(out.dynamic || out.failed || out.folded),
    }
}

/// Collects the command substitutions in a here-doc body whose delimiter was unquoted
/// (the outer shell expands those before the command reads the body). `false` when the body
/// could not be parsed or its parse does not fit in `budget`.
pub(super) fn heredoc_substitutions(body: &str, subs: &mut Vec<String>, budget: &Budget) -> bool {
    if !body.contains('$') && !body.contains('`') {
        return true;
    }
    if has_long_digit_run(body) || !budget.spend(body, WordSyntax::HereDoc) {
        return false;
    }
    let Some(Ok(pieces)) = guarded(|| word::parse_heredoc(body, &OPTIONS)) else {
        return false;
    };
    let mut out = Rendered::new(budget);
    out.render(body, &pieces, subs, 0);
    !out.failed
}

/// Whether a word needs no parsing at all: no quotes, escapes, expansions, braces or tilde.
/// What [`normalize_with`] makes of a word with nothing to normalise (its one field, `raw`
/// itself, after burning the same fuel), without the text and the list it builds around it;
/// `None` for any other word.
pub(super) fn plain_field(raw: &str, budget: &Budget) -> Option<String> {
    is_plain(raw).then(|| {
        budget.burn_text(raw);
        raw.to_owned()
    })
}

fn is_plain(raw: &str) -> bool {
    !raw.bytes()
        .any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'$' | b'`' | b'{' | b'~'))
}

fn has_long_digit_run(text: &str) -> bool {
    let mut run = 0usize;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            run += 1;
            if run > MAX_DIGIT_RUN {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Parses one word with brush-parser, unless it holds a digit run that would overflow there or
/// its parse does not fit in what is left of `budget` (the word grammar backtracks
/// exponentially with nesting: see [`super::parse::word_work`]).
fn parse_word(raw: &str, budget: &Budget) -> Option<Vec<WordPieceWithSource>> {
    if has_long_digit_run(raw) || !budget.spend(raw, WordSyntax::Word) {
        return None;
    }
    guarded(|| word::parse(raw, &OPTIONS)).and_then(Result::ok)
}

struct Rendered<'b> {
    text: String,
    dynamic: bool,
    failed: bool,
    /// Whether an expansion other than the home's or the working directory's (`$HOME`,
    /// `$PWD`, which a path's reader knows) is only known at run time.
    opaque: bool,
    /// Whether a substitution was replaced by its known output (`$(echo .env)`).
    folded: bool,
    /// Whether a variable was replaced by the value the command line gave it.
    substituted: bool,
    /// The variables with values known from the command line.
    variables: &'b [(String, String)],
    /// The variables read as unset (see [`normalize_unset`]).
    unset: &'b [String],
    /// Whether the pieces being rendered are inside double quotes, where a value is one field.
    quoted: bool,
    budget: &'b Budget,
}

impl<'b> Rendered<'b> {
    fn new(budget: &'b Budget) -> Self {
        Self {
            text: String::new(),
            dynamic: false,
            opaque: false,
            failed: false,
            folded: false,
            substituted: false,
            variables: &[],
            unset: &[],
            quoted: false,
            budget,
        }
    }

    /// The known value of a plain `$NAME` or `${NAME}`, and of the operators on a variable whose
    /// value is known: `${NAME:-WORD}`, `${NAME:=WORD}`, `${NAME:?WORD}`, `${NAME:+WORD}` (with or
    /// without the colon; `p=~/.bashrc; echo x >> "${p:-/dev/null}"`, `p=~/.ssh; cat
    /// ${p:+$p/id_rsa}`), the removal of a prefix or suffix (`${f#PATTERN}`, `${f##…}`,
    /// `${f%…}`, `${f%%…}`) and replacement (`${f/OLD/NEW}`, `${f//…}`, `${f/#…}`, `${f/%…}`).
    /// A WORD or pattern counts when its own text is known (see [`Self::operand`]); a
    /// replacement's pattern must be plain text. Anything else is not known. A variable read as
    /// unset ([`Self::unset`]) is empty and takes its default.
    fn known_value<'s>(&self, source: &'s str, depth: usize) -> Option<Cow<'s, str>>
    where
        'b: 's,
    {
        let (name, operator) = match source.strip_prefix("${") {
            Some(inner) => {
                let inner = inner.strip_suffix('}')?;
                let end = inner
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(inner.len());
                inner.split_at(end)
            }
            None => (source.strip_prefix('$')?, ""),
        };
        let (known, operator) = self.element(name, operator)?;
        let (marked, unset) = match known {
            Some(value) => (value, false),
            None if self.unset.iter().any(|unset| unset == name) => (Cow::Borrowed(""), true),
            None => return None,
        };
        // The value as it is, for the operators that give it whole; its text for the others,
        // whose result keeps a quoted `~` it begins with (`${x%/*}`).
        let (value, literal_tilde) = match marked.strip_prefix(LITERAL_TILDE) {
            Some(text) => (Cow::Owned(text.to_owned()), true),
            None => (marked.clone(), false),
        };
        let computed = |text: String| match literal_tilde && text.starts_with('~') {
            true => Cow::Owned(format!("{LITERAL_TILDE}{text}")),
            false => Cow::Owned(text),
        };
        // Without the colon an empty value counts as set: `${x-/}` is empty when `x=`.
        let (colon, operator) = match operator.strip_prefix(':') {
            Some(rest) => (true, rest),
            None => (false, operator),
        };
        let set = !unset && (!value.is_empty() || !colon);
        let mut chars = operator.chars();
        match chars.next() {
            None => Some(marked),
            Some('-' | '=' | '?') if set => Some(marked),
            Some('-' | '=') => self.operand(chars.as_str(), depth).map(Cow::Owned),
            Some('+') if !set => Some(Cow::Borrowed("")),
            Some('+') => self.operand(chars.as_str(), depth).map(Cow::Owned),
            Some('#' | '%') if !colon => {
                let longest = operator.starts_with("##") || operator.starts_with("%%");
                let pattern = operator.get(if longest { 2 } else { 1 }..)?;
                // A quoted `*` is a plain one, which the text no longer shows.
                let quoted = pattern.contains(['\'', '"', '\\']);
                let pattern = self.operand(pattern, depth)?;
                if quoted && pattern.contains(['*', '?', '[']) {
                    return None;
                }
                let from_end = operator.starts_with('%');
                removed(&value, &pattern, from_end, longest).map(computed)
            }
            Some('/') if !colon => {
                let rest = chars.as_str();
                let (all, anchor, rest) = match rest.chars().next() {
                    Some('/') => (true, None, rest.get(1..)?),
                    Some(anchor @ ('#' | '%')) => (false, Some(anchor), rest.get(1..)?),
                    _ => (false, None, rest),
                };
                let (pattern, replacement) = rest.split_once('/').unwrap_or((rest, ""));
                let pattern = self.operand(pattern, depth)?;
                let replacement = self.operand(replacement, depth)?;
                replaced(&value, &pattern, &replacement, all, anchor).map(computed)
            }
            // An array's elements are sliced, not its text.
            Some(first)
                if colon && (first.is_ascii_digit() || matches!(first, ' ' | '(' | ':')) =>
            {
                let single = !value.contains(FIELD_BREAK);
                single
                    .then(|| substring(&value, operator))
                    .flatten()
                    .map(computed)
            }
            Some('^' | ',' | '@') if !colon => case_changed(&value, operator).map(computed),
            Some(_) => None,
        }
    }

    /// The known value of variable `name` before `operator` applies, and the operator left: an
    /// array's element (`${a[1]}`, `${a[@]}`, `${a[*]}`, `$a` its first) when the command line
    /// gave its elements (see [`ARRAY_ELEMENTS`]). `Some((None, …))` where the variable has no
    /// known value; `None` for an index the walk does not read (`${a[$i]}`).
    fn element<'s>(
        &self,
        name: &str,
        operator: &'s str,
    ) -> Option<(Option<Cow<'b, str>>, &'s str)> {
        let variables: &'b [(String, String)] = self.variables;
        let find_by = |is_key: &dyn Fn(&str) -> bool| {
            variables
                .iter()
                .rev()
                .find(|(known, _)| is_key(known))
                .map(|(_, value)| value.as_str())
        };
        let find = |key: &str| find_by(&|known| known == key);
        let elements = find_by(&|known| {
            known
                .strip_suffix(ARRAY_ELEMENTS)
                .is_some_and(|k| k == name)
        });
        let nth = |index: usize| {
            elements.map(|all| Cow::Borrowed(all.split(FIELD_BREAK).nth(index).unwrap_or("")))
        };
        let Some(indexed) = operator.strip_prefix('[') else {
            return Some((find(name).map(Cow::Borrowed).or_else(|| nth(0)), operator));
        };
        let (index, rest) = indexed.split_once(']')?;
        // A scalar is the array's only element.
        let scalar = find(name).map(Cow::Borrowed);
        let value = match index {
            "@" => elements.map(Cow::Borrowed).or(scalar),
            "*" => elements
                .map(|all| Cow::Owned(all.replace(FIELD_BREAK, " ")))
                .or(scalar),
            _ => {
                let index: usize = index.parse().ok()?;
                match find(&format!("{name}[{index}]")) {
                    Some(value) => Some(Cow::Borrowed(value)),
                    None if index == 0 && elements.is_none() => scalar,
                    None => nth(index),
                }
            }
        };
        Some((value, rest))
    }

    /// [`Self::known_value`], when the word stays within [`MAX_EXPANDED_TEXT`] with it and the
    /// analysis within [`super::parse::MAX_EXPANSION_BYTES`]; past either, the word fails (the
    /// analysis then reports more than it follows) rather than lose the value.
    fn affordable_value<'s>(&mut self, source: &'s str, depth: usize) -> Option<Cow<'s, str>>
    where
        'b: 's,
    {
        let value = self.known_value(source, depth)?;
        let fits = self.text.len() + value.len() <= MAX_EXPANDED_TEXT
            && self.budget.spend_expansion(value.len());
        if !fits {
            self.failed = true;
            return None;
        }
        Some(value)
    }

    /// The text of an operator's WORD or pattern when it is known: plain text, or text whose
    /// expansions are all variables with known values (`$p/id_rsa`), or the home's or the working
    /// directory's, which stay as they are (`$HOME/.cache`). Quotes are removed; a
    /// substitution, arithmetic or another unknown variable makes it unknown.
    fn operand(&self, word: &str, depth: usize) -> Option<String> {
        let plain = word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-~+@%,*?".contains(c));
        if plain && !word.starts_with('~') {
            return Some(word.to_owned());
        }
        if depth >= MAX_SCAN_DEPTH {
            return None;
        }
        let pieces = parse_word(word, self.budget)?;
        let mut nested = Self::new(self.budget);
        nested.variables = self.variables;
        nested.unset = self.unset;
        nested.quoted = true;
        let mut subs = Vec::new();
        nested.render(word, &pieces, &mut subs, depth + 1);
        let known = !(nested.opaque || nested.failed || nested.folded) && subs.is_empty();
        known.then_some(nested.text)
    }

    fn render(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        subs: &mut Vec<String>,
        depth: usize,
    ) {
        for piece in pieces {
            let source = raw.get(piece.start_index..piece.end_index).unwrap_or("");
            match &piece.piece {
                WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => {
                    self.text.push_str(text);
                }
                WordPiece::AnsiCQuotedText(text) => decode_ansi_c(text, &mut self.text),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    let outer = std::mem::replace(&mut self.quoted, true);
                    self.render(raw, inner, subs, depth);
                    self.quoted = outer;
                }
                // `~` is `$HOME`: the value the command line gave HOME, if it did.
                WordPiece::TildeExpansion(TildeExpr::Home) => {
                    match self.affordable_value("$HOME", depth) {
                        Some(home) => {
                            self.substituted = true;
                            self.text.push_str(&home);
                        }
                        None => self.text.push_str(source),
                    }
                }
                // `~-` and `~N`, `~+N`, `~-N` are `$OLDPWD` and the directory stack's entries:
                // directories only known at run time.
                WordPiece::TildeExpansion(
                    TildeExpr::OldWorkingDir
                    | TildeExpr::NthDirFromTopOfDirStack { .. }
                    | TildeExpr::NthDirFromBottomOfDirStack { .. },
                ) => {
                    self.dynamic = true;
                    self.opaque = true;
                    self.text.push_str("$OLDPWD");
                }
                WordPiece::TildeExpansion(_) => self.text.push_str(source),
                WordPiece::EscapeSequence(escaped) => {
                    let mut chars = escaped.chars();
                    chars.next();
                    let rest = chars.as_str();
                    if rest != "\n" {
                        self.text.push_str(rest);
                    }
                }
                WordPiece::ParameterExpansion(_) => {
                    if let Some(value) = self.affordable_value(source, depth) {
                        self.substituted = true;
                        self.push_value(&value);
                        continue;
                    }
                    self.dynamic = true;
                    let place = always_set(source).or_else(|| {
                        ["$HOME", "${HOME}", "$PWD", "${PWD}"]
                            .contains(&source)
                            .then_some(source)
                    });
                    self.opaque |= place.is_none();
                    self.text.push_str(place.unwrap_or(source));
                    let inner = source
                        .strip_prefix("${")
                        .and_then(|s| s.strip_suffix('}'))
                        .unwrap_or("");
                    self.scan(inner, subs, depth);
                }
                WordPiece::CommandSubstitution(body)
                | WordPiece::BackquotedCommandSubstitution(body) => {
                    match echoed(body) {
                        Some(output) => {
                            self.folded = true;
                            self.text.push_str(&output);
                        }
                        None => {
                            self.dynamic = true;
                            self.opaque = true;
                            self.text.push_str(source);
                        }
                    }
                    subs.push(body.clone());
                }
                WordPiece::ArithmeticExpression(expr) => {
                    self.dynamic = true;
                    self.opaque = true;
                    self.text.push_str(source);
                    self.scan(&expr.value, subs, depth);
                }
            }
        }
    }

    /// Appends a variable's known value: inside double quotes as it is, except that the
    /// arguments of `"$@"` stay separate fields; unquoted, broken into fields where IFS says,
    /// at its blanks unless the command line gave IFS a value (`IFS=,; c=rm,-rf,/home/u; $c`
    /// runs `rm -rf /home/u`; an empty IFS splits nothing). Where IFS was given a value only
    /// known at run time (or one of a variable's), so are the fields: the word is unknown.
    fn push_value(&mut self, value: &str) {
        // A quoted `~` that begins the word is a directory's name (see [`LITERAL_TILDE`]).
        let value = match value.strip_prefix(LITERAL_TILDE) {
            Some(text) if self.text.is_empty() => {
                self.text.push_str("./");
                text
            }
            Some(text) => text,
            None => value,
        };
        if self.quoted {
            self.text.push_str(value);
            return;
        }
        let ifs = self
            .variables
            .iter()
            .rev()
            .find(|(name, _)| name == "IFS")
            .map(|(_, value)| value.as_str());
        // A value holding an expansion (`IFS=$OLD`) stands for its text elsewhere, not here.
        if ifs.is_some_and(|ifs| ifs == UNKNOWN_IFS || ifs.contains('$')) {
            self.dynamic = true;
            self.opaque = true;
        }
        for c in value.chars() {
            let splits = match ifs {
                None => c.is_whitespace(),
                Some(ifs) => ifs.contains(c),
            };
            self.text.push(if splits { FIELD_BREAK } else { c });
        }
    }

    /// Looks for substitutions nested in the text of a parameter or arithmetic expansion.
    fn scan(&mut self, text: &str, subs: &mut Vec<String>, depth: usize) {
        if !text.contains('$') && !text.contains('`') {
            return;
        }
        if depth >= MAX_SCAN_DEPTH {
            self.failed = true;
            return;
        }
        match parse_word(text, self.budget) {
            Some(pieces) => {
                let mut nested = Self::new(self.budget);
                nested.render(text, &pieces, subs, depth + 1);
                self.failed |= nested.failed;
            }
            None => self.failed = true,
        }
    }
}

/// `${x:OFFSET}` and `${x:OFFSET:LENGTH}` of a value, in characters, for whole numbers
/// (`${x: -2}` and `${x:(-2)}` count from the end, as a negative LENGTH does); `None` for
/// arithmetic the walk does not do (`${x:i}`) or a LENGTH that ends before the OFFSET (an
/// error in bash).
fn substring(value: &str, spec: &str) -> Option<String> {
    let number = |text: &str| -> Option<i64> {
        let text = text.trim();
        let text = text
            .strip_prefix('(')
            .and_then(|inner| inner.strip_suffix(')'))
            .unwrap_or(text)
            .trim();
        // An empty OFFSET is 0 (`${x::-2}`).
        if text.is_empty() {
            return Some(0);
        }
        text.parse().ok()
    };
    let (offset, length) = match spec.split_once(':') {
        Some((offset, length)) => (number(offset)?, Some(number(length)?)),
        None => (number(spec)?, None),
    };
    let chars: Vec<char> = value.chars().collect();
    let len = i64::try_from(chars.len()).ok()?;
    let start = if offset < 0 { len + offset } else { offset };
    if start < 0 || start > len {
        return Some(String::new());
    }
    let end = match length {
        None => len,
        Some(length) if length < 0 => len + length,
        Some(length) => start.saturating_add(length).min(len),
    };
    if end < start {
        return None;
    }
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    Some(chars.get(start..end)?.iter().collect())
}

/// A value with its case changed by `${x^^}`, `${x,,}`, `${x^}`, `${x,}` (without a pattern)
/// or `${x@U}`, `${x@L}`, `${x@u}`; `None` for any other operator. The first letter of an
/// array's joined elements is not each element's, so `^`, `,` and `@u` give `None` for one.
fn case_changed(value: &str, operator: &str) -> Option<String> {
    let first_only = |upper: bool| {
        if value.contains(FIELD_BREAK) {
            return None;
        }
        let mut chars = value.chars();
        let first: String = match chars.next() {
            Some(c) if upper => c.to_uppercase().collect(),
            Some(c) => c.to_lowercase().collect(),
            None => String::new(),
        };
        Some(first + chars.as_str())
    };
    match operator {
        "^^" | "@U" => Some(value.to_uppercase()),
        ",," | "@L" => Some(value.to_lowercase()),
        "^" | "@u" => first_only(true),
        "," => first_only(false),
        _ => None,
    }
}

/// Longest value a glob pattern is removed from (`${f%.*}`): each cut is tried against the
/// pattern, so the work grows with the value's length times the pattern's.
const MAX_PATTERN_VALUE: usize = 256;

/// `value` with the shortest (or `longest`) prefix matching `pattern` removed, or suffix when
/// `from_end` (`${f#*/}`, `${f%%.*}`); the value itself when nothing matches. `None` for a glob
/// pattern on a value past [`MAX_PATTERN_VALUE`].
fn removed(value: &str, pattern: &str, from_end: bool, longest: bool) -> Option<String> {
    let glob = pattern.contains(['*', '?', '[']);
    if !glob {
        let cut = match from_end {
            true => value.strip_suffix(pattern),
            false => value.strip_prefix(pattern),
        };
        return Some(cut.unwrap_or(value).to_owned());
    }
    if value.len() > MAX_PATTERN_VALUE {
        return None;
    }
    let mut cuts: Vec<usize> = (0..=value.len())
        .filter(|at| value.is_char_boundary(*at))
        .collect();
    // The shortest match first: a prefix grows from the start, a suffix from the end.
    if from_end {
        cuts.reverse();
    }
    if longest {
        cuts.reverse();
    }
    let matches = |at: usize| {
        let part = match from_end {
            true => value.get(at..),
            false => value.get(..at),
        };
        part.is_some_and(|part| crate::packs::places::find_name_match(part, pattern, false))
    };
    let kept = match cuts.into_iter().find(|at| matches(*at)) {
        Some(at) if from_end => value.get(..at),
        Some(at) => value.get(at..),
        None => Some(value),
    };
    kept.map(str::to_owned)
}

/// `value` with the first (or `all`) occurrences of the plain text `pattern` replaced, or only
/// at the start (`anchor` `#`) or end (`%`): `${f/x/y}`, `${f//x/y}`. `None` for a glob pattern.
fn replaced(
    value: &str,
    pattern: &str,
    replacement: &str,
    all: bool,
    anchor: Option<char>,
) -> Option<String> {
    if pattern.contains(['*', '?', '[', '\\']) {
        return None;
    }
    if pattern.is_empty() {
        return Some(value.to_owned());
    }
    let count = if all {
        value.matches(pattern).count()
    } else {
        1
    };
    if value.len() + count.saturating_mul(replacement.len()) > MAX_EXPANDED_TEXT {
        return None;
    }
    let out = match anchor {
        Some('#') => match value.strip_prefix(pattern) {
            Some(rest) => format!("{replacement}{rest}"),
            None => value.to_owned(),
        },
        Some(_) => match value.strip_suffix(pattern) {
            Some(rest) => format!("{rest}{replacement}"),
            None => value.to_owned(),
        },
        None if all => value.replace(pattern, replacement),
        None => value.replacen(pattern, replacement, 1),
    };
    Some(out)
}

/// The value `$@` takes for a function call's arguments: each argument its own field, even
/// inside double quotes (`rm -rf "$@"` removes each).
pub(super) fn join_fields(args: &[&str]) -> String {
    args.join(&FIELD_BREAK.to_string())
}

/// Whether the normalised text of a dynamic word is dynamic only through plain `$NAME`,
/// `${NAME}` or `$1` (`$HOME/.ssh/id_rsa`), so that the text may stand for the word where a
/// variable assigned it is read: `p=$HOME/.ssh/id_rsa; cat "$p"` reads as `cat
/// "$HOME/.ssh/id_rsa"`. A command substitution, an operator (`${x:-…}`) or arithmetic may give
/// another value there, and keeps its source text, so any of them makes this false.
pub(super) fn only_plain_parameters(text: &str) -> bool {
    if text.contains('`') {
        return false;
    }
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        let after = rest.get(at + 1..).unwrap_or("");
        let (name, tail) = match after.strip_prefix('{') {
            Some(braced) => match braced.split_once('}') {
                Some((name, tail)) => (name, tail),
                None => return false,
            },
            None => {
                let end = if after.starts_with(|c: char| c.is_ascii_digit()) {
                    1
                } else {
                    after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len())
                };
                (
                    after.get(..end).unwrap_or(""),
                    after.get(end..).unwrap_or(""),
                )
            }
        };
        let mut chars = name.chars();
        let plain = match chars.next() {
            Some(first) if first.is_ascii_alphabetic() || first == '_' => {
                chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            }
            Some(first) => first.is_ascii_digit() && name.len() == 1,
            None => false,
        };
        if !plain {
            return false;
        }
        rest = tail;
    }
    true
}

/// The output of a substitution that only echoes static text (`$(echo .env)`, `` `printf
/// .env` ``), when it is one field whatever the quoting: no blank, glob or escape in it; or
/// that prints a static path (see [`printed_path`]). Such a substitution hides a name from a
/// reader of the command line, never from the shell.
fn echoed(body: &str) -> Option<String> {
    const PLAIN: &[u8] = b"._/~+=:,@%^-";
    // One command line: after a newline another command would run, and print.
    if body.trim().contains(['\n', '\r']) {
        return None;
    }
    // `cat <<< WORD` prints the here-string as `echo WORD` does.
    let (program, words) = match body.split_once("<<<") {
        Some((cat, word)) if cat.trim() == "cat" => ("echo", word),
        Some(_) => return None,
        None => body
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or((body.trim(), "")),
    };
    let mut output: Vec<String> = Vec::new();
    for word in words.split_ascii_whitespace() {
        let unquoted = match word.as_bytes() {
            [quote @ (b'\'' | b'"'), inner @ .., last] if last == quote => inner,
            bytes => bytes,
        };
        if !unquoted
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || PLAIN.contains(b))
        {
            return None;
        }
        output.push(String::from_utf8_lossy(unquoted).into_owned());
    }
    match program {
        "echo" => {
            if output.first().is_some_and(|first| first.starts_with('-')) {
                return None;
            }
            Some(output.join(" ")).filter(|text| !text.contains(' '))
        }
        "printf" => match output.as_slice() {
            [format] if !format.contains('%') && !format.starts_with('-') => Some(format.clone()),
            _ => None,
        },
        _ => printed_path(program, &output),
    }
}

/// The path a command prints for its static arguments: `realpath P` and `readlink -f P` print
/// P made absolute (`$(realpath ~/.ssh/id_rsa)`), `git rev-parse --git-dir` (and
/// `--git-common-dir`, `--absolute-git-dir`) the repository's `.git`, `git rev-parse --git-path
/// P` `.git/P` (`$(git rev-parse --git-dir)/hooks/commit-msg` is a git hook), `git rev-parse
/// --show-toplevel` the repository's root, taken for the working directory. `mktemp` prints a
/// name no file had (`/tmp/tmp.XXXXXXXXXX`, or its template), a new scratch file or directory:
/// `rm -rf "$(mktemp -d)"` removes nothing of anyone's.
fn printed_path(program: &str, args: &[String]) -> Option<String> {
    if program == "mktemp" {
        let (flags, template): (Vec<&String>, Vec<&String>) =
            args.iter().partition(|arg| arg.starts_with('-'));
        let flags_known = flags
            .iter()
            .all(|flag| matches!(flag.as_str(), "-d" | "--directory" | "-q" | "--quiet"));
        return match template.as_slice() {
            [] if flags_known => Some("/tmp/tmp.XXXXXXXXXX".to_owned()),
            [template] if flags_known && template.contains("XXX") => Some((*template).clone()),
            _ => None,
        };
    }
    const REALPATH_FLAGS: &[&str] = &["-e", "-m", "-s", "-q", "-L", "-P"];
    const READLINK_CANONICAL: &[&str] = &[
        "-f",
        "-e",
        "-m",
        "--canonicalize",
        "--canonicalize-existing",
        "--canonicalize-missing",
    ];
    const GIT_DIRS: &[&str] = &["--git-dir", "--git-common-dir", "--absolute-git-dir"];
    let (path, flags) = args.split_last()?;
    let flag_texts: Vec<&str> = flags.iter().map(String::as_str).collect();
    let plain_path = !path.starts_with('-');
    match (program, flag_texts.as_slice()) {
        ("realpath", flags) if plain_path && flags.iter().all(|f| REALPATH_FLAGS.contains(f)) => {
            Some(path.clone())
        }
        ("readlink", flags)
            if plain_path
                && flags.iter().all(|f| READLINK_CANONICAL.contains(f))
                && !flags.is_empty() =>
        {
            Some(path.clone())
        }
        ("git", ["rev-parse"]) if GIT_DIRS.contains(&path.as_str()) => Some(".git".to_owned()),
        ("git", ["rev-parse"]) if path == "--show-toplevel" => Some(".".to_owned()),
        ("git", ["rev-parse", "--git-path"]) if plain_path => Some(format!(".git/{path}")),
        _ => None,
    }
}

/// Whether `raw` is one single- or double-quoted string with no other quote (or escape) inside.
fn quoted_whole(raw: &str) -> bool {
    ['\'', '"'].into_iter().any(|quote| {
        raw.strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
            .is_some_and(|inner| !inner.contains(quote) && (quote == '\'' || !inner.contains('\\')))
    })
}

/// Brace-expands a static word, returning its unquoted fields, or `None` when the word holds no
/// brace expression (or expands past [`MAX_BRACE_FIELDS`]).
fn brace_fields(raw: &str, budget: &Budget) -> Option<Vec<String>> {
    if !raw.contains('{') || !(raw.contains(',') || raw.contains("..")) {
        return None;
    }
    let items = guarded(|| word::parse_brace_expansions(raw, &OPTIONS))?
        .ok()
        .flatten()?;
    if !items
        .iter()
        .any(|item| matches!(item, BraceExpressionOrText::Expr(_)))
    {
        return None;
    }
    let alternatives = expand_items(&items)?;
    let mut fields = Vec::with_capacity(alternatives.len());
    for alternative in alternatives {
        let pieces = parse_word(&alternative, budget)?;
        let mut out = Rendered::new(budget);
        let mut ignored = Vec::new();
        out.render(&alternative, &pieces, &mut ignored, 0);
        fields.push(out.text);
    }
    Some(fields)
}

fn expand_items(items: &[BraceExpressionOrText]) -> Option<Vec<String>> {
    let mut acc = vec![String::new()];
    for item in items {
        let alternatives = match item {
            BraceExpressionOrText::Text(text) => vec![text.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut all = Vec::new();
                for member in members {
                    all.extend(expand_member(member)?);
                    if all.len() > MAX_BRACE_FIELDS {
                        return None;
                    }
                }
                all
            }
        };
        if acc.len().saturating_mul(alternatives.len()) > MAX_BRACE_FIELDS {
            return None;
        }
        acc = acc
            .iter()
            .flat_map(|prefix| alternatives.iter().map(move |alt| format!("{prefix}{alt}")))
            .collect();
    }
    Some(acc)
}

fn expand_member(member: &BraceExpressionMember) -> Option<Vec<String>> {
    match member {
        BraceExpressionMember::Child(items) => expand_items(items),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => {
            let values = sequence(*start, *end, *increment)?;
            Some(values.into_iter().map(|n| n.to_string()).collect())
        }
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => {
            let values = sequence(
                i64::from(u32::from(*start)),
                i64::from(u32::from(*end)),
                *increment,
            )?;
            Some(
                values
                    .into_iter()
                    .filter_map(|n| u32::try_from(n).ok().and_then(char::from_u32))
                    .map(String::from)
                    .collect(),
            )
        }
    }
}

/// The inclusive sequence `start..end` by `|increment|`, or `None` past [`MAX_BRACE_FIELDS`].
fn sequence(start: i64, end: i64, increment: i64) -> Option<Vec<i64>> {
    let step = increment.checked_abs().filter(|s| *s != 0).unwrap_or(1);
    let span = start.abs_diff(end) / step.unsigned_abs();
    if span >= MAX_BRACE_FIELDS as u64 {
        return None;
    }
    let mut values = Vec::new();
    let mut current = start;
    loop {
        values.push(current);
        if current == end || values.len() > MAX_BRACE_FIELDS {
            break;
        }
        let next = if start <= end {
            current.checked_add(step)?
        } else {
            current.checked_sub(step)?
        };
        if (start <= end && next > end) || (start > end && next < end) {
            break;
        }
        current = next;
    }
    Some(values)
}

/// The character of a one-letter escape that `$'…'` and `echo` decode alike: `\a`, `\b`, `\f`,
/// `\n`, `\r`, `\t`, `\v`.
pub(super) fn letter_escape(letter: char) -> Option<char> {
    Some(match letter {
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{b}',
        _ => return None,
    })
}

/// The value of up to `max` digits in `radix` at the front of `chars` (`\x41`, `\0101`), and
/// how many there were.
pub(super) fn escape_digits(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    max: usize,
) -> (u32, usize) {
    let mut value = 0u32;
    let mut count = 0;
    while count < max {
        let Some(digit) = chars.peek().and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(digit);
        chars.next();
        count += 1;
    }
    (value, count)
}

/// What an escape's reader made of it (see [`decode_escapes`]).
pub(super) enum Escape {
    /// Decoded (written to the output); go on.
    Next,
    /// The output ends here (`echo`'s `\c`).
    Stop,
    /// Not an escape the reader knows how to decode: the text is unknown.
    Unknown,
}

/// Copies `text` to `out`, decoding its backslash escapes: the letters of [`letter_escape`]
/// here, any other by `escape` (given the letter and the rest of the text, for escapes that read
/// digits). A lone backslash at the end is copied. `false` where `escape` found one unknown.
pub(super) fn decode_escapes(
    text: &str,
    out: &mut String,
    mut escape: impl FnMut(char, &mut std::iter::Peekable<std::str::Chars<'_>>, &mut String) -> Escape,
) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(letter) = chars.next() else {
            out.push('\\');
            break;
        };
        if let Some(decoded) = letter_escape(letter) {
            out.push(decoded);
            continue;
        }
        match escape(letter, &mut chars, out) {
            Escape::Next => {}
            Escape::Stop => break,
            Escape::Unknown => return false,
        }
    }
    true
}

/// Decodes the body of a `$'…'` string (bash's ANSI-C quoting).
pub(super) fn decode_ansi_c(text: &str, out: &mut String) {
    decode_escapes(text, out, |letter, chars, out| {
        match letter {
            'e' | 'E' => out.push('\u{1b}'),
            '\\' | '\'' | '"' | '?' => out.push(letter),
            'x' => push_code(chars, 16, 2, out),
            'u' => push_code(chars, 16, 4, out),
            'U' => push_code(chars, 16, 8, out),
            '0'..='7' => {
                let first = letter.to_digit(8).unwrap_or(0);
                let (rest, count) = escape_digits(chars, 8, 2);
                let value = first * 8u32.pow(count as u32) + rest;
                out.extend(char::from_u32(value & 0xff));
            }
            'c' => {
                if let Some(control) = chars.next() {
                    out.extend(char::from_u32(u32::from(control) & 0x1f));
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
        Escape::Next
    });
}

fn push_code(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    max_digits: usize,
    out: &mut String,
) {
    match escape_digits(chars, radix, max_digits) {
        (_, 0) => out.push('\\'),
        (value, _) => out.extend(char::from_u32(value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(raw: &str) -> (NormWord, Vec<String>) {
        let mut subs = Vec::new();
        let word = normalize(raw, &mut subs, &Budget::default());
        (word, subs)
    }

    /// A plain word's field is what normalising it gives, for the same fuel.
    #[test]
    fn plain_fields_are_what_normalising_gives() {
        for raw in [
            "status",
            "-rf",
            "src/",
            "node_modules",
            "a=b",
            "~/x",
            "$HOME",
            "'q'",
            "a{b,c}",
        ] {
            let (plain, normalised) = (Budget::default(), Budget::default());
            let field = plain_field(raw, &plain);
            let word = normalize_with(raw, &mut Vec::new(), &normalised, &[]);
            if let Some(field) = field {
                assert_eq!(word.fields, [field], "{raw}");
                assert!(!word.dynamic && !word.failed && word.resolved, "{raw}");
                assert_eq!(plain.fuel_left(), normalised.fuel_left(), "{raw}");
            } else {
                assert!(!is_plain(raw), "{raw}");
            }
        }
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        for (raw, text) in [
            ("r''m", "rm"),
            ("\"rm\"", "rm"),
            ("\\rm", "rm"),
            ("g'i't", "git"),
            ("$'\\x72\\x6d'", "rm"),
            ("$'\\162\\155'", "rm"),
            ("$'\\u0072m'", "rm"),
            ("'a b'\"c\"", "a bc"),
            ("\"a\\$b\"", "a$b"),
        ] {
            let (word, subs) = norm(raw);
            assert_eq!(word.text, text, "{raw}");
            assert!(!word.dynamic, "{raw}");
            assert!(subs.is_empty());
        }
    }

    #[test]
    fn expansions_keep_source_text_and_are_dynamic() {
        let (word, _) = norm("\"$HOME/.ssh/id_rsa\"");
        assert_eq!(word.text, "$HOME/.ssh/id_rsa");
        assert!(word.dynamic);
        let (word, _) = norm("${X}");
        assert_eq!(word.text, "${X}");
        assert!(word.dynamic);
    }

    #[test]
    fn defaults_of_unset_variables() {
        let budget = Budget::default();
        let unset = ["GEN".to_owned()];
        let read = |raw: &str| normalize_unset(raw, &budget, &[], &unset).text;
        assert_eq!(read("${GEN:-gen.sh}"), "gen.sh");
        assert_eq!(read("\"${GEN-./gen.sh}\""), "./gen.sh");
        assert_eq!(read("${GEN:=x}/$GEN"), "x/");
        assert_eq!(read("${GEN:+x}y"), "y");
        assert_eq!(read("${GEN:-$HOME/.cache}"), "$HOME/.cache");
        assert_eq!(read("${GEN:-$DIR/x}"), "${GEN:-$DIR/x}");
        assert_eq!(read("${OTHER:-x}"), "${OTHER:-x}");
        assert_eq!(
            defaulted_names("${A:-x}${B-y}${C:=z}${D=w}${E:+v}$F${1:-u}"),
            ["A", "B", "C", "D"]
        );
        assert!(defaulted_names("${HOME}").is_empty());
    }

    #[test]
    fn substrings_and_case_changes_of_known_values() {
        let budget = Budget::default();
        let variables = [("S".to_owned(), "abcdef".to_owned())];
        let text = |raw: &str| normalize_with(raw, &mut Vec::new(), &budget, &variables).text;
        assert_eq!(text("${S:2}"), "cdef");
        assert_eq!(text("${S:1:2}"), "bc");
        assert_eq!(text("${S::-2}"), "abcd");
        assert_eq!(text("${S: -2}"), "ef");
        assert_eq!(text("${S:(-3):2}"), "de");
        assert_eq!(text("${S:9}"), "");
        assert_eq!(text("${S^^}"), "ABCDEF");
        assert_eq!(text("${S^}"), "Abcdef");
        assert_eq!(text("${S@U}"), "ABCDEF");
        // `${S:-2}` is a default, not a substring; arithmetic and patterns are not read.
        assert_eq!(text("${S:-2}"), "abcdef");
        assert_eq!(text("${S:i}"), "${S:i}");
        assert_eq!(text("${S:3:-4}"), "${S:3:-4}");
        assert_eq!(text("${S^^[a-c]}"), "${S^^[a-c]}");
    }

    #[test]
    fn a_quoted_tilde_in_a_value_is_a_directory_name() {
        let budget = Budget::default();
        let variables = [
            ("q".to_owned(), format!("{LITERAL_TILDE}~/.ssh/id_rsa")),
            ("h".to_owned(), "~/.ssh/id_rsa".to_owned()),
        ];
        let text = |raw: &str| normalize_with(raw, &mut Vec::new(), &budget, &variables).text;
        // Where it begins the word, below the working directory; the home's stays the home.
        assert_eq!(text("$q"), "./~/.ssh/id_rsa");
        assert_eq!(text("\"${q}\""), "./~/.ssh/id_rsa");
        assert_eq!(text("${q:-x}"), "./~/.ssh/id_rsa");
        assert_eq!(text("${q%_rsa}"), "./~/.ssh/id");
        assert_eq!(text("$h"), "~/.ssh/id_rsa");
        // Inside a word it is text; the mark never stays.
        assert_eq!(text("a$q"), "a~/.ssh/id_rsa");
        assert_eq!(text("${q#\\~/}"), ".ssh/id_rsa");
    }

    #[test]
    fn array_elements_are_read() {
        let budget = Budget::default();
        let all = format!("x{FIELD_BREAK}y z");
        let variables = [("a[@]".to_owned(), all), ("s".to_owned(), "v".to_owned())];
        let fields = |raw: &str| normalize_with(raw, &mut Vec::new(), &budget, &variables).fields;
        assert_eq!(fields("\"${a[@]}\""), ["x", "y z"]);
        assert_eq!(fields("${a[@]}"), ["x", "y", "z"]);
        assert_eq!(fields("\"${a[*]}\""), ["x y z"]);
        assert_eq!(fields("${a[1]}"), ["y", "z"]);
        assert_eq!(fields("$a"), ["x"]);
        assert_eq!(fields("\"${s[0]}${s[@]}\""), ["vv"]);
        assert_eq!(fields("${a[$i]}"), ["${a[$i]}"]);
    }

    #[test]
    fn known_defaults_are_expanded() {
        let budget = Budget::default();
        let variables = [("D".to_owned(), "/tmp/x".to_owned())];
        let unset = ["ALT".to_owned()];
        let known = |word: &str| known_default(word, &budget, &variables, &unset);
        assert_eq!(known("gen.sh").as_deref(), Some("gen.sh"));
        assert_eq!(known("$D.sh").as_deref(), Some("/tmp/x.sh"));
        assert_eq!(known("\"$D\"/gen.sh").as_deref(), Some("/tmp/x/gen.sh"));
        assert_eq!(known("$HOME/gen.sh").as_deref(), Some("$HOME/gen.sh"));
        assert_eq!(known("${ALT:-$D.sh}").as_deref(), Some("/tmp/x.sh"));
        assert_eq!(
            known("${ALT:-${ALT-./gen.sh}}").as_deref(),
            Some("./gen.sh")
        );
        assert_eq!(known("$X/gen.sh"), None);
        assert_eq!(known("${OTHER:-gen.sh}"), None);
        assert_eq!(known("$(pwd)/gen.sh"), None);
        // Nested past the scan depth, a default is not known.
        let deep = format!("{}x{}", "${ALT:-".repeat(40), "}".repeat(40));
        assert_eq!(known(&deep), None);
    }

    #[test]
    fn defaults_of_the_home_and_working_directory_are_theirs() {
        assert_eq!(norm("\"${HOME:-/tmp}\"/x").0.text, "$HOME/x");
        assert_eq!(norm("${PWD-.}").0.text, "$PWD");
        assert_eq!(norm("${HOMEDIR:-/tmp}").0.text, "${HOMEDIR:-/tmp}");
        assert_eq!(norm("${HOME#/}").0.text, "${HOME#/}");
    }

    #[test]
    fn echoed_text_is_known() {
        let (word, subs) = norm("$(echo .env)");
        assert_eq!((word.text.as_str(), word.dynamic), (".env", true));
        assert_eq!(word.fields, [".env"]);
        assert_eq!(subs, ["echo .env"]);
        assert_eq!(norm("\"$(echo ~/.ss)h/id_rsa\"").0.text, "~/.ssh/id_rsa");
        assert_eq!(
            norm("`printf '.aws'`/credentials").0.text,
            ".aws/credentials"
        );
        // Commands that print a static path.
        assert_eq!(norm("$(realpath ~/.ssh/id_rsa)").0.text, "~/.ssh/id_rsa");
        assert_eq!(norm("$(readlink -f .env)").0.text, ".env");
        assert_eq!(norm("$(cat <<< ~/.ssh/id_rsa)").0.text, "~/.ssh/id_rsa");
        assert_eq!(norm("$(cat<<<'.env')").0.text, ".env");
        assert_eq!(
            norm("\"$(git rev-parse --git-dir)/hooks/x\"").0.text,
            ".git/hooks/x"
        );
        assert_eq!(
            norm("$(git rev-parse --git-path hooks)/x").0.text,
            ".git/hooks/x"
        );
        assert_eq!(norm("$(git rev-parse --show-toplevel)/x").0.text, "./x");
        // `mktemp` prints a new name: the default's, or its template's.
        assert_eq!(norm("$(mktemp -d)").0.text, "/tmp/tmp.XXXXXXXXXX");
        assert_eq!(norm("$(mktemp -q b.XXXX)").0.text, "b.XXXX");
        // Not folded: options, several fields, expansions, formats, other programs.
        for raw in [
            "$(echo -e .env)",
            "$(echo a b)",
            "$(echo $X)",
            "$(printf %s .env)",
            "$(echo .env; rm x)",
            "$(cat .env)",
            "$(echo *)",
            "$(echo\nls)",
            "$(readlink x)",
            "$(tr a b <<< x)",
            "$(cat <<< 'a b')",
            "$(realpath --relative-to=/ x)",
            "$(git rev-parse HEAD)",
            "$(mktemp -p ~)",
            "$(mktemp -d x)",
        ] {
            let (word, _) = norm(raw);
            assert_eq!(word.text, raw, "{raw}: {word:?}");
        }
    }

    #[test]
    fn tilde_is_not_dynamic() {
        let (word, _) = norm("~/.bashrc");
        assert_eq!(word.text, "~/.bashrc");
        assert!(!word.dynamic);
        // The previous directory and the directory stack's are.
        for raw in ["~-/x", "~1/x", "~-2/x"] {
            let (word, _) = norm(raw);
            assert_eq!(
                (word.text.as_str(), word.dynamic),
                ("$OLDPWD/x", true),
                "{raw}"
            );
        }
    }

    #[test]
    fn substitutions_are_found_everywhere() {
        for (raw, body) in [
            ("$(rm -rf /)", "rm -rf /"),
            ("`rm -rf /`", "rm -rf /"),
            ("\"x $(id) y\"", "id"),
            ("${X:-$(rm -rf /)}", "rm -rf /"),
            ("$((1 + $(id -u)))", "id -u"),
        ] {
            let (word, subs) = norm(raw);
            assert!(word.dynamic, "{raw}");
            assert_eq!(subs, vec![body.to_owned()], "{raw}");
        }
    }

    #[test]
    fn brace_expansion_of_static_words() {
        assert_eq!(norm("{rm,-rf,/}").0.fields, ["rm", "-rf", "/"]);
        assert_eq!(norm("f{,.bak}").0.fields, ["f", "f.bak"]);
        assert_eq!(norm("{1..3}").0.fields, ["1", "2", "3"]);
        assert_eq!(norm("{a..c}x").0.fields, ["ax", "bx", "cx"]);
        assert_eq!(norm("'{a,b}'").0.fields, ["{a,b}"]);
        assert_eq!(norm("{1..100000}").0.fields, ["{1..100000}"]);
    }

    #[test]
    fn huge_numbers_do_not_reach_the_parser() {
        let (word, _) = norm("~99999999999999999999999");
        assert!(word.failed);
        let (word, _) = norm("{1..99999999999999999999999}");
        assert_eq!(word.fields.len(), 1);
    }

    #[test]
    fn words_past_the_parse_budget_are_not_parsed() {
        // Minimised from a fuzzing timeout: ~0.3 s in brush-parser, one more `${_[` ~15 s.
        let budget = Budget::default();
        let mut subs = Vec::new();
        let word = normalize("${_[''${_[''${_[${_['' '", &mut subs, &budget);
        assert!(word.failed && word.dynamic);
        assert!(budget.refused());
        let mut subs = Vec::new();
        let body = "x ${_[${_[${_[0]}]}]} $(id)\n";
        assert!(!heredoc_substitutions(body, &mut subs, &budget));
        assert!(subs.is_empty());
    }

    #[test]
    fn heredoc_bodies_yield_substitutions() {
        let mut subs = Vec::new();
        assert!(heredoc_substitutions(
            "a $(rm -rf /) `id`\n",
            &mut subs,
            &Budget::default()
        ));
        assert_eq!(subs, ["rm -rf /", "id"]);
    }
}
