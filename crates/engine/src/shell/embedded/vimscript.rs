//! Vimscript's own calls in an Ex command line, and Ex's file commands, as the shell commands
//! they amount to:
//!
//! - `delete(F)` is `rm -f -- F`, with `'rf'` `rm -rf -- F`, with `'d'` `rmdir -- F`;
//! - `writefile(LIST, F)` is `printf %s "$X" > F` (`>>` with the `'a'` flag), `readfile(F)` and
//!   `readblob(F)` `cat -- F`, `rename(A, B)` `mv -- A B`, `filecopy(A, B)` `cp -- A B`;
//! - `system()`, `systemlist()`, vim's `job_start()` and `term_start()`, Neovim's `jobstart()`
//!   and `termopen()` run a literal string as shell text and a literal list as an argv; any
//!   other command is only known at run time;
//! - `:w FILE` (`:write`, `:wq`, `:x`, `:update`, `:saveas`) writes the buffer to the file,
//!   `:w >> FILE` appends; `:r FILE` (`:read`) and `:e FILE` (`:edit`, `:split`, `:vsplit`,
//!   `:tabedit`, `:view`, `:new`) read it.
//!
//! A file name is what vim makes of it: a literal string, `expand('~/x')` and
//! `fnamemodify('~/x', …)` their literal (vim expands `~` and `$HOME` there), `$HOME` and
//! `getenv('HOME')` the home, joined by `.` or `..`; anything else is a run-time part (`$X`),
//! and a call with no literal and no home in a file name is not looked into, as in the
//! interpreters' readers. A method call (`expand('~')->delete('rf')`) takes its file from what
//! only the run knows.

use super::vim_strings;
use crate::shell::interp::{path_quote, quote};

/// Most calls read in one command line; past that, the rest is not looked at (the command
/// line's own length bounds the work before it).
const MAX_CALLS: usize = 16;

/// A run-time part of a command, as the interpreters' readers write it.
const RUN_TIME: &str = "\"$X\"";

/// What one call or file command amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Vim {
    /// Shell text.
    Shell(String),
    /// A command only known at run time (`system(cmd)`).
    Unknown,
}

/// The calls of `command` (one Ex command, up to its `|`) that touch files or run commands.
pub(super) fn calls(command: &str) -> Vec<Vim> {
    let bytes = command.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() && found.len() < MAX_CALLS {
        match bytes.get(at) {
            Some(b'\'' | b'"') => at = string_end(command, at),
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
                let start = at;
                while bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'#'))
                {
                    at += 1;
                }
                let name = command.get(start..at).unwrap_or("");
                let method = command
                    .get(..start)
                    .is_some_and(|before| before.ends_with("->"));
                // The arguments are read on for the calls nested in them.
                if bytes.get(at) == Some(&b'(') {
                    found.extend(call(name, &arguments(command, at + 1), method));
                }
            }
            _ => at += 1,
        }
    }
    found
}

/// The shell command an Ex file command amounts to (`:w ~/.bashrc`, `:r ~/.ssh/id_rsa`), when
/// `command` is one with a file named.
pub(super) fn file_command(command: &str) -> Option<String> {
    let command = command.trim_start_matches(|c: char| {
        c.is_ascii_digit() || matches!(c, '%' | '.' | '$' | ',' | '\'' | '<' | '>' | ' ' | ':')
    });
    let end = command
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(command.len());
    let (word, rest) = command.split_at(end);
    let rest = rest.strip_prefix('!').unwrap_or(rest);
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let abbreviates =
        |name: &str, shortest: usize| word.len() >= shortest && name.starts_with(word);
    let writes = [
        ("write", 1),
        ("wq", 2),
        ("xit", 1),
        ("exit", 3),
        ("update", 2),
        ("saveas", 3),
    ]
    .iter()
    .any(|(name, shortest)| abbreviates(name, *shortest));
    let reads = [
        ("read", 1),
        ("edit", 1),
        ("split", 2),
        ("vsplit", 2),
        ("tabedit", 4),
        ("view", 3),
        ("sview", 2),
        ("new", 3),
        ("vnew", 3),
    ]
    .iter()
    .any(|(name, shortest)| abbreviates(name, *shortest));
    let (redirect, file) = match rest.strip_prefix(">>") {
        Some(file) if writes => (">>", file.trim_start()),
        _ => (">", rest),
    };
    // A file name ends at a blank or a `|` that no backslash escapes.
    let mut name = String::new();
    let mut chars = file.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.extend(chars.next()),
            ' ' | '\t' | '|' => break,
            _ => name.push(c),
        }
    }
    if name.is_empty() || name.starts_with('!') {
        return None;
    }
    let word = file_word(&[Part::Literal(name)])?;
    if writes {
        Some(format!("printf %s {RUN_TIME} {redirect} {word}"))
    } else if reads {
        Some(format!("cat -- {word}"))
    } else {
        None
    }
}

/// The command one call amounts to.
fn call(name: &str, args: &[&str], method: bool) -> Option<Vim> {
    // A method's receiver is its first argument, which only the run knows here.
    let shifted = |index: usize| {
        if method {
            index.checked_sub(1)
        } else {
            Some(index)
        }
    };
    let flag = |index: usize| {
        shifted(index)
            .and_then(|index| args.get(index))
            .map(|arg| vim_strings(arg).unwrap_or_else(|| "rf".to_owned()))
    };
    let nth = |index: usize| -> Option<String> {
        if method && index == 0 {
            return Some(RUN_TIME.to_owned());
        }
        let arg = args.get(shifted(index)?)?;
        file_word(&parts(arg))
    };
    match name {
        "delete" => {
            let path = nth(0)?;
            let command = match flag(1).as_deref() {
                Some(flags) if flags.contains('r') => "rm -rf --",
                Some("d") => "rmdir --",
                _ => "rm -f --",
            };
            Some(Vim::Shell(format!("{command} {path}")))
        }
        "writefile" => {
            let path = nth(1)?;
            let redirect = if flag(2).is_some_and(|flags| flags.contains('a')) {
                ">>"
            } else {
                ">"
            };
            Some(Vim::Shell(format!(
                "printf %s {RUN_TIME} {redirect} {path}"
            )))
        }
        "readfile" | "readblob" => Some(Vim::Shell(format!("cat -- {}", nth(0)?))),
        "rename" => Some(Vim::Shell(format!("mv -- {} {}", nth(0)?, nth(1)?))),
        "filecopy" => Some(Vim::Shell(format!("cp -- {} {}", nth(0)?, nth(1)?))),
        "system" | "systemlist" | "job_start" | "jobstart" | "termopen" | "term_start" => {
            if method {
                return Some(Vim::Unknown);
            }
            let command = args.first()?.trim();
            Some(match vim_strings(command) {
                Some(text) if !text.trim().is_empty() => Vim::Shell(text),
                _ => list_argv(command).map_or(Vim::Unknown, Vim::Shell),
            })
        }
        _ => None,
    }
}

/// A literal list (`['rm', '-rf', expand('~')]`) as an argv of shell words: each item a
/// literal, or a file name (see [`parts`]); `None` for anything else, or when its program is
/// not a literal.
fn list_argv(expression: &str) -> Option<String> {
    let inner = expression.strip_prefix('[')?.strip_suffix(']')?;
    let items = split_top(inner, b',');
    let program = vim_strings(items.first()?.trim())?;
    let mut words = vec![quote(&program)];
    for item in items.iter().skip(1).map(|item| item.trim()) {
        if item.is_empty() {
            continue;
        }
        words.push(file_word(&parts(item)).unwrap_or_else(|| RUN_TIME.to_owned()));
    }
    Some(words.join(" "))
}

/// A piece of a file name expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Literal text, with a leading `~` and `$HOME` as vim expands them in a file name.
    Literal(String),
    /// What only the run knows.
    RunTime,
}

/// How deep calls that take a file name are read within one another
/// (`expand(fnamemodify(…))`); deeper, the name is only known at run time.
const MAX_DEPTH: usize = 8;

/// The pieces of an expression joined by `.` or `..`.
fn parts(expression: &str) -> Vec<Part> {
    parts_at(expression, 0)
}

fn parts_at(expression: &str, depth: usize) -> Vec<Part> {
    let mut found = Vec::new();
    for piece in split_concatenation(expression) {
        let piece = piece.trim();
        let part = if let Some(text) = vim_strings(piece) {
            Part::Literal(text)
        } else if piece == "$HOME" || piece == "getenv('HOME')" || piece == "getenv(\"HOME\")" {
            Part::Literal("~".to_owned())
        } else if let Some(inner) = [
            "expand(",
            "fnamemodify(",
            "simplify(",
            "resolve(",
            "fnameescape(",
        ]
        .iter()
        .find_map(|call| piece.strip_prefix(call)?.strip_suffix(')'))
        .filter(|_| depth < MAX_DEPTH)
        {
            let first = split_top(inner, b',').into_iter().next().unwrap_or("");
            found.extend(parts_at(first, depth + 1));
            continue;
        } else {
            Part::RunTime
        };
        found.push(part);
    }
    found
}

/// A file name as one shell word: literals quoted, a leading `~` or `$HOME` the home, run-time
/// parts `"$X"`. `None` when it holds no literal text and no home.
fn file_word(parts: &[Part]) -> Option<String> {
    if !parts.iter().any(|part| matches!(part, Part::Literal(_))) {
        return None;
    }
    let mut word = String::new();
    for (index, part) in parts.iter().enumerate() {
        match part {
            Part::Literal(text) => {
                let text = match text.strip_prefix("$HOME") {
                    Some(rest) if index == 0 => format!("~{rest}"),
                    _ => text.clone(),
                };
                match index {
                    _ if text.is_empty() => {}
                    0 => word.push_str(&path_quote(&text)),
                    _ => word.push_str(&quote(&text)),
                }
            }
            Part::RunTime => word.push_str(RUN_TIME),
        }
    }
    (!word.is_empty()).then_some(word)
}

/// The index after the string starting at `at` (`'…'` with `''` for a quote, `"…"` with
/// backslash escapes); the end of `text` when it is not closed.
fn string_end(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes.get(at).copied().unwrap_or(b'"');
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if quote == b'"' => i += 2,
            _ if b == quote => {
                if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The arguments of a call whose `(` ends before `from`, split at commas outside strings and
/// brackets, up to its `)`.
fn arguments(text: &str, from: usize) -> Vec<&str> {
    split_top(text.get(from..).unwrap_or(""), b',')
        .into_iter()
        .map(str::trim)
        .filter(|arg| !arg.is_empty())
        .collect()
}

/// `text` split at each `separator` outside strings and brackets.
fn split_top(text: &str, separator: u8) -> Vec<&str> {
    split_outside(text, |bytes, i| {
        (bytes.get(i) == Some(&separator)).then_some(1)
    })
}

/// An expression split at its top-level `.` and `..` concatenations (not a `.` in a number
/// or a name).
fn split_concatenation(expression: &str) -> Vec<&str> {
    let word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    split_outside(expression, |bytes, i| {
        if bytes.get(i) != Some(&b'.') {
            return None;
        }
        let inside_word =
            word(i.checked_sub(1).and_then(|j| bytes.get(j))) && word(bytes.get(i + 1));
        let dots = if bytes.get(i + 1) == Some(&b'.') {
            2
        } else {
            1
        };
        (!inside_word).then_some(dots)
    })
}

/// `text` split where `separator` (given the bytes and an index) says a separator of that
/// length stands, outside strings and brackets, up to a bracket it does not open.
fn split_outside(text: &str, separator: impl Fn(&[u8], usize) -> Option<usize>) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\'' | b'"' => {
                i = string_end(text, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => {
                pieces.extend(text.get(start..i));
                return pieces;
            }
            b')' | b']' | b'}' => depth -= 1,
            _ if depth == 0 => {
                if let Some(length) = separator(bytes, i) {
                    pieces.extend(text.get(start..i));
                    start = i + length;
                    i += length;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    pieces.extend(text.get(start..));
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(command: &str) -> Vec<String> {
        calls(command)
            .into_iter()
            .map(|call| match call {
                Vim::Shell(text) => text,
                Vim::Unknown => "?".to_owned(),
            })
            .collect()
    }

    #[test]
    fn file_calls() {
        assert_eq!(shell(r#"call delete(expand("~"), "rf")"#), ["rm -rf -- ~"]);
        assert_eq!(
            shell("call delete($HOME . '/.claude/settings.json')"),
            ["rm -f -- ~/.claude/settings.json"]
        );
        assert_eq!(shell("call delete('build', 'd')"), ["rmdir -- build"]);
        assert_eq!(
            shell(r#"call writefile(["x"], expand("~/.bashrc"), "a")"#),
            ["printf %s \"$X\" >> ~/.bashrc"]
        );
        assert_eq!(
            shell(r#"call writefile(readfile(expand("~/.ssh/id_rsa")), "/tmp/x")"#),
            ["printf %s \"$X\" > /tmp/x", "cat -- ~/.ssh/id_rsa"]
        );
        assert_eq!(
            shell("call rename('~/.bashrc', '/tmp/b')"),
            ["mv -- ~/.bashrc /tmp/b"]
        );
        assert_eq!(
            shell("call delete(getenv('HOME') .. '/' . name, 'rf')"),
            ["rm -rf -- ~/\"$X\""]
        );
        // A method's receiver is only known at run time; a call with no literal is not read.
        assert_eq!(
            shell("call expand('~')->delete('rf')"),
            ["rm -rf -- \"$X\""]
        );
        assert!(shell("call delete(f)").is_empty());
        assert!(shell("echo 'delete(\"~\", \"rf\")'").is_empty());
    }

    #[test]
    fn command_calls() {
        assert_eq!(shell("call system('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(shell("call job_start('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            shell(r#"call jobstart(["rm", "-rf", "/home/u"])"#),
            ["rm -rf /home/u"]
        );
        assert_eq!(
            shell("call jobstart(['rm', '-rf', expand('~')])"),
            ["rm -rf ~"]
        );
        assert_eq!(shell("call system(cmd)"), ["?"]);
    }

    #[test]
    fn file_commands() {
        for (command, expected) in [
            ("w! ~/.bashrc", Some("printf %s \"$X\" > ~/.bashrc")),
            ("write >> ~/.bashrc", Some("printf %s \"$X\" >> ~/.bashrc")),
            (
                "sav .claude/settings.json",
                Some("printf %s \"$X\" > .claude/settings.json"),
            ),
            ("e ~/.ssh/id_rsa", Some("cat -- ~/.ssh/id_rsa")),
            ("r ~/.aws/credentials", Some("cat -- ~/.aws/credentials")),
            ("w !sh", None),
            ("wq", None),
            ("set nocp", None),
            ("q!", None),
        ] {
            assert_eq!(file_command(command).as_deref(), expected, "{command}");
        }
    }
}
