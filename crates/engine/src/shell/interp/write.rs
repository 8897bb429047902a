//! Files that code writes through its language's library rather than a shell
//! (`open('/x', 'a').write(…)`, `fs.writeFileSync`, Perl's `open(F, ">>…")`, `File.write`,
//! `file_put_contents`, `shutil.copy`), as the shell command that writes them the same way, so
//! that every rule about writing a file judges them as it judges the shell's:
//!
//! - a write that replaces the file's contents is `printf %s "$X" > PATH`, one that keeps them
//!   (an append, an update in place) `printf %s "$X" >> PATH`: the contents are a run-time
//!   part, so that replacing a file is not read as emptying it (`: > PATH`);
//! - a copy is `cp -- SRC… DST`, a move or rename `mv -- SRC… DST`, a source without a literal
//!   a run-time part.
//!
//! The file is read as a path expression (see [`path_value`]); one that holds no literal and
//! not the home directory (`open(p, 'w')`) is not looked into, as for removals. A call that only
//! reads (`open(p)`, mode `'r'`) is nothing.

use super::{
    Lang, Piece, RUN_TIME, Token, called_on, clean, is_keyword_argument, is_method, path_value,
    path_words, r_argument, receiver_name, shell_word,
};

/// How a library call writes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Write {
    /// It replaces the file at argument `path` (`fs.writeFileSync`, `File.write`,
    /// `file_put_contents`, R's `writeLines(x, con)`), or appends to it when an option says so
    /// (`{flag: 'a'}`, `mode: 'a'`, `FILE_APPEND`, `append = TRUE`). R's arguments are also
    /// found by name (`file`, `con`).
    Replaces { path: usize },
    /// It appends to the file at its first argument (`fs.appendFileSync`).
    Appends,
    /// It opens the file at its first argument in the mode at argument `mode` (or in a `mode`
    /// or `flags` option): `open(p, 'w')`, `fopen`, `File.open`, `io.open`. Called on a path
    /// (`Path(p).open('w')`) it opens that path, the mode first.
    Opens { mode: usize },
    /// Pathlib's `write_text` and `write_bytes`: it replaces the path it is called on.
    ReplacesReceiver,
    /// Kotlin's `appendText`, Groovy's `append` and `<<`: it appends to the path it is called on.
    AppendsReceiver,
    /// Perl's `open(FH, '>', p)`, and `open(FH, ">p")` with the mode in front of the name.
    PerlOpen,
    /// It copies its first argument (a list: each of them) to its second.
    Copies,
    /// It moves or renames its first argument to its second.
    Moves,
}

/// The write a call makes, by its name.
pub(super) fn kind(word: &str, last: &str, lang: Lang) -> Option<Write> {
    let receiver = receiver_name(word, last);
    let receiver = receiver.as_str();
    let bare = receiver.is_empty();
    let fs = receiver.contains("fs");
    Some(match (lang, last) {
        (Lang::Python, "open") if bare || matches!(receiver, "io" | "codecs" | "builtins") => {
            Write::Opens { mode: 1 }
        }
        (Lang::Python, "write_text" | "write_bytes") => Write::ReplacesReceiver,
        (Lang::Python, "copy" | "copy2" | "copyfile" | "copytree") if receiver == "shutil" => {
            Write::Copies
        }
        (Lang::Python, "move") if receiver == "shutil" => Write::Moves,
        (Lang::Python, "rename" | "replace" | "renames") if receiver == "os" => Write::Moves,
        (
            Lang::JavaScript,
            "writefile" | "writefilesync" | "writetextfile" | "writetextfilesync",
        ) => Write::Replaces { path: 0 },
        (Lang::JavaScript, "createwritestream" | "outputfile" | "outputfilesync") => {
            Write::Replaces { path: 0 }
        }
        (Lang::JavaScript, "write") if word == "Bun.write" => Write::Replaces { path: 0 },
        (Lang::JavaScript, "appendfile" | "appendfilesync") => Write::Appends,
        (Lang::JavaScript, "open" | "opensync") if fs => Write::Opens { mode: 1 },
        (Lang::JavaScript, "copyfile" | "copyfilesync" | "cpsync" | "copysync") => Write::Copies,
        (Lang::JavaScript, "cp" | "copy") if fs => Write::Copies,
        (Lang::JavaScript, "renamesync" | "movesync") => Write::Moves,
        (Lang::JavaScript, "rename" | "move") if fs => Write::Moves,
        (Lang::Perl, "write_file" | "overwrite_file") => Write::Replaces { path: 0 },
        (Lang::Perl, "append_file") => Write::Appends,
        (Lang::Perl, "copy" | "cp") if bare || word == format!("File::Copy::{last}") => {
            Write::Copies
        }
        (Lang::Perl, "move" | "mv" | "rename") if bare || word == format!("File::Copy::{last}") => {
            Write::Moves
        }
        (Lang::Ruby, "write" | "binwrite") if matches!(receiver, "file" | "io") => {
            Write::Replaces { path: 0 }
        }
        (Lang::Ruby, "cp" | "copy" | "cp_r" | "install" | "copy_file" | "copy_entry")
            if receiver.ends_with("fileutils") =>
        {
            Write::Copies
        }
        (Lang::Ruby, "mv" | "move") if receiver.ends_with("fileutils") => Write::Moves,
        (Lang::Ruby, "rename") if receiver == "file" => Write::Moves,
        (Lang::Ruby, "new") if receiver == "file" => Write::Opens { mode: 1 },
        (Lang::Php, "file_put_contents") => Write::Replaces { path: 0 },
        (Lang::Php, "fopen") => Write::Opens { mode: 1 },
        (Lang::Php, "copy") if bare => Write::Copies,
        (Lang::Php, "rename") if bare => Write::Moves,
        (Lang::Lua, "open") if word == "io.open" => Write::Opens { mode: 1 },
        (Lang::Lua, "output") if word == "io.output" => Write::Replaces { path: 0 },
        (Lang::Lua, "rename") if word == "os.rename" => Write::Moves,
        (Lang::Julia, "write") if bare || receiver == "base" => Write::Replaces { path: 0 },
        (Lang::Julia, "open") if bare || receiver == "base" => Write::Opens { mode: 1 },
        (Lang::Julia, "cp") if bare || receiver == "base" => Write::Copies,
        (Lang::Julia, "mv") if bare || receiver == "base" => Write::Moves,
        (Lang::Jvm, "write" | "writestring") if receiver == "files" => Write::Replaces { path: 0 },
        (Lang::Jvm, "copy") if receiver == "files" => Write::Copies,
        (Lang::Jvm, "move") if receiver == "files" => Write::Moves,
        (Lang::Jvm, "write" | "settext" | "writetext" | "writebytes") => Write::ReplacesReceiver,
        (Lang::Jvm, "append" | "appendtext" | "appendbytes" | "leftshift") => {
            Write::AppendsReceiver
        }
        (Lang::Elixir, "write") if receiver == "file" => Write::Replaces { path: 0 },
        (Lang::Elixir, "cp" | "cp_r" | "copy") if receiver == "file" => Write::Copies,
        (Lang::Elixir, "rename") if receiver == "file" => Write::Moves,
        (Lang::Erlang, "write_file") if receiver == "file" => Write::Replaces { path: 0 },
        (Lang::Erlang, "copy") if receiver == "file" => Write::Copies,
        (Lang::Erlang, "rename") if receiver == "file" => Write::Moves,
        (Lang::R, _) => match word {
            "writeLines" | "base::writeLines" | "write" | "saveRDS" | "write.csv"
            | "write.table" | "readr::write_csv" | "readr::write_file" => {
                Write::Replaces { path: 1 }
            }
            // `cat(…, file = p)`: the file only by name.
            "cat" | "base::cat" => Write::Replaces { path: usize::MAX },
            "file.copy" | "fs::file_copy" | "fs::dir_copy" => Write::Copies,
            "file.rename" | "fs::file_move" => Write::Moves,
            _ => return None,
        },
        _ => return None,
    })
}

/// What a write does to the file: replace its contents (`>`) or keep them (`>>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    Replaces,
    Keeps,
}

impl Effect {
    /// The shell's redirection that does the same.
    fn redirection(self) -> &'static str {
        match self {
            Self::Replaces => ">",
            Self::Keeps => ">>",
        }
    }
}

/// The shell command a write call amounts to (see the module documentation); `None` when it
/// only reads, or when the file it writes holds no literal and not the home directory.
/// `word_at` is the index of the call's name in `tokens`.
pub(super) fn command(
    write: Write,
    tokens: &[Token],
    word_at: usize,
    args: &[&[Token]],
    lang: Lang,
) -> Option<String> {
    let method = is_method(tokens, word_at);
    let called_on = || called_on(tokens, word_at, lang).filter(|word| !word.is_empty());
    let (effect, file) = match write {
        Write::Replaces { path } => {
            let file = if lang == Lang::R {
                r_argument(args, path, &["file", "con"]).and_then(|arg| first_path(&arg, lang))?
            } else {
                first_path(&clean(args.get(path)?), lang)?
            };
            (option_effect(args).unwrap_or(Effect::Replaces), file)
        }
        Write::Appends => (Effect::Keeps, first_path(&clean(args.first()?), lang)?),
        Write::Opens { mode } if method && lang == Lang::Python => {
            (opened(args, mode.checked_sub(1))?, called_on()?)
        }
        Write::Opens { mode } => (
            opened(args, Some(mode))?,
            first_path(&clean(args.first()?), lang)?,
        ),
        Write::ReplacesReceiver if method => (Effect::Replaces, called_on()?),
        Write::AppendsReceiver if method => (Effect::Keeps, called_on()?),
        Write::ReplacesReceiver | Write::AppendsReceiver => return None,
        Write::PerlOpen => perl_open(args)?,
        Write::Copies => return transfer("cp", args, lang),
        Write::Moves => return transfer("mv", args, lang),
    };
    Some(format!(
        "printf %s \"{RUN_TIME}\" {} {file}",
        effect.redirection()
    ))
}

/// The shell word of the file an argument names (see [`path_words`]), when it names one.
fn first_path(arg: &[&Token], lang: Lang) -> Option<String> {
    path_words(arg, lang)
        .into_iter()
        .next()
        .filter(|word| !word.is_empty())
}

/// `cp -- SRC… DST` or `mv -- SRC… DST` for a call whose first argument is what it copies or
/// moves (a list: each of them) and whose second is where to.
fn transfer(program: &str, args: &[&[Token]], lang: Lang) -> Option<String> {
    let (sources, rest) = args.split_first()?;
    let target = clean(rest.first()?);
    if is_keyword_argument(&target) {
        return None;
    }
    let target = first_path(&target, lang)?;
    let mut words = path_words(&clean(sources), lang);
    if words.is_empty() {
        words.push(format!("\"{RUN_TIME}\""));
    }
    Some(format!("{program} -- {} {target}", words.join(" ")))
}

/// What opening a file in the mode at argument `mode` (or in a `mode` or `flags` option) does
/// to it; `None` when it only reads it, or when the mode is not literal.
fn opened(args: &[&[Token]], mode: Option<usize>) -> Option<Effect> {
    let positional = mode
        .and_then(|index| args.get(index))
        .map(|arg| clean(arg))
        .filter(|arg| !is_keyword_argument(arg));
    match positional.as_deref() {
        Some([Token::Str { text, .. }]) => mode_effect(text),
        Some(_) => None,
        None => option_effect(args),
    }
}

/// Whether a call that opens the file its first argument names (`open(p, "w")`, `fopen($p,
/// "a")`, `fs.openSync(p, "w")`, `open(p, mode="x")`) does so without reading what the file
/// holds: its mode truncates (`w`, `w+`), creates (`x`) or only appends (`a`, not `a+`).
pub(super) fn opens_without_reading(args: &[&[Token]]) -> bool {
    let mode = |arg: &[&Token]| match arg {
        [Token::Str { text, runs: false }] => Some(text.clone()),
        [
            Token::Word(key),
            Token::Punct(b':' | b'='),
            Token::Str { text, runs: false },
        ] if matches!(key.as_str(), "mode" | "flag" | "flags") => Some(text.clone()),
        _ => None,
    };
    let Some(mode) = args.iter().skip(1).find_map(|arg| mode(&clean(arg))) else {
        return false;
    };
    let mode = mode.split(':').next().unwrap_or_default();
    mode.contains(['w', 'x']) || (mode.contains('a') && !mode.contains(['+', 'r']))
}

/// What a mode option among the arguments says: `mode='a'`, `{flags: 'w'}`, `{flag: 'a'}`,
/// `mode: "a"`, and for an append `append = TRUE`, `{append: true}` and PHP's `FILE_APPEND`.
fn option_effect(args: &[&[Token]]) -> Option<Effect> {
    args.iter().find_map(|arg| {
        let arg = clean(arg);
        // PHP's `FILE_APPEND`, Elixir's `[:append]`, Erlang's `[append]`.
        arg.iter()
            .any(|t| matches!(t, Token::Word(flag) if flag == "FILE_APPEND" || flag == "append"))
            .then_some(Effect::Keeps)
            .or_else(|| {
                arg.windows(3).find_map(|w| match w {
                    [
                        Token::Word(key),
                        Token::Punct(b':' | b'='),
                        Token::Str { text, .. },
                    ] if matches!(key.as_str(), "mode" | "flag" | "flags") => mode_effect(text),
                    [
                        Token::Word(key),
                        Token::Punct(b':' | b'='),
                        Token::Word(value),
                    ] if key == "append" && value.eq_ignore_ascii_case("true") => {
                        Some(Effect::Keeps)
                    }
                    _ => None,
                })
            })
    })
}

/// What a C-style open mode does (`fopen(3)`, Python's `open`, Node's flags, Ruby's
/// `"w:UTF-8"`): `w` and `x` (which makes a new file) replace, `a`, PHP's `c` and `r+` keep
/// the contents; `r` only reads. `None` for a read or for text that is no mode (`'_blank'`).
fn mode_effect(mode: &str) -> Option<Effect> {
    let mode = mode.split(':').next().unwrap_or(mode);
    let mut chars = mode.chars();
    let first = chars.next()?;
    if !chars.clone().all(|c| "bt+esUx".contains(c)) {
        return None;
    }
    match first {
        'w' | 'x' => Some(Effect::Replaces),
        'a' | 'c' => Some(Effect::Keeps),
        'r' if chars.any(|c| c == '+') => Some(Effect::Keeps),
        _ => None,
    }
}

/// Perl's `open`: three arguments, a mode (`'>'`, `'>>'`, `'+<'`, `'>:raw'`) and the file;
/// two, the mode in front of the file (`">>$ENV{HOME}/.bashrc"`, `'>' . $path`). `None` for a
/// read, a duplicated handle (`">&STDERR"`) or a pipe (see [`super::piped_open`]).
fn perl_open(args: &[&[Token]]) -> Option<(Effect, String)> {
    let mut arg: Vec<Token> = clean(args.get(1)?).into_iter().cloned().collect();
    let Some(Token::Str { text, .. }) = arg.first_mut() else {
        return None;
    };
    let (effect, rest) = perl_mode(text)?;
    if let Some(file) = args.get(2) {
        if !rest.trim().is_empty() && !rest.starts_with(':') {
            return None;
        }
        return Some((effect, first_path(&clean(file), Lang::Perl)?));
    }
    let rest = rest.trim_start();
    if rest.starts_with('&') {
        return None;
    }
    *text = rest.to_owned();
    let (mut value, end) = path_value(&arg, 0, Lang::Perl);
    if end < arg.len() {
        value.push(Piece::RunTime);
    }
    // `'>' . $path`: the mode was the only literal.
    let names = value.iter().any(|piece| match piece {
        Piece::Home => true,
        Piece::Text(text) => !text.is_empty(),
        Piece::RunTime => false,
    });
    Some((effect, shell_word(&value).filter(|_| names)?))
}

/// A Perl open mode at the start of `text` and what follows it: `>` and `+>` replace, `>>`,
/// `+>>` and `+<` keep the contents; `None` for `<` and for none.
fn perl_mode(text: &str) -> Option<(Effect, &str)> {
    let text = text.trim_start();
    [
        ("+>>", Effect::Keeps),
        (">>", Effect::Keeps),
        ("+<", Effect::Keeps),
        ("+>", Effect::Replaces),
        (">", Effect::Replaces),
    ]
    .into_iter()
    .find_map(|(mode, effect)| text.strip_prefix(mode).map(|rest| (effect, rest)))
}
