//! Programs whose own languages hand commands to a shell: awk (`system("…")`, `print | "cmd"`,
//! `"cmd" | getline`), sed (its `e` command and the `e` flag of `s`), and git (`rebase --exec`,
//! `submodule foreach`, `bisect run`).
//!
//! [`nested`] finds the shell text each would run. Text only known at run time (an awk
//! expression, what sed's pattern space holds, what awk prints into a shell) is
//! [`Nested::Dynamic`], so the command is never taken for harmless.
//!
//! These are small scanners, not parsers of awk or sed: where they are unsure they see a command
//! that may not be there (a question for the user), never the other way round.

use super::exec::{Nested, SHELLS};
use super::wrappers::Field;
use super::{Origin, basename};
use crate::argv::{GIT_GLOBAL_LONG_VALUE, GIT_GLOBAL_SHORT_VALUE, options_end};

/// Most commands one program text yields (the rest of the text is still judged by what it is).
const MAX_FOUND: usize = 16;

/// What `program ARGS` runs through a shell, for awk, sed and git.
pub(super) fn nested(name: &str, args: &[Field]) -> Vec<Nested> {
    match name {
        "awk" | "gawk" | "mawk" | "nawk" => programs(args, AWK_VALUED, &["e", "source"])
            .into_iter()
            .flat_map(|program| awk(&program))
            .take(MAX_FOUND)
            .collect(),
        "sed" | "gsed" => {
            if args.iter().any(|arg| arg.text == "--sandbox") {
                return Vec::new();
            }
            programs(args, SED_VALUED, &["e", "expression"])
                .into_iter()
                .flat_map(|program| sed(&program))
                .take(MAX_FOUND)
                .collect()
        }
        "git" => git(args),
        _ => Vec::new(),
    }
}

/// Options of awk that take a value (besides the program options), short and long.
const AWK_VALUED: &[&str] = &[
    "f", "v", "F", "i", "l", "E", "file", "assign", "include", "load",
];
/// Options of sed that take a value (besides the program options).
const SED_VALUED: &[&str] = &["f", "l", "file", "line-length"];

/// One program text given on the command line.
struct Program {
    text: String,
    dynamic: bool,
}

/// The program texts of an awk- or sed-like command: the values of `inline` options (`-e`,
/// `--expression`), or else the first operand, unless a program file (`-f`) is given.
fn programs(args: &[Field], valued: &[&str], inline: &[&str]) -> Vec<Program> {
    let mut found = Vec::new();
    let mut from_file = false;
    let mut iter = args.iter();
    let mut first_operand = None;
    let takes_value: Vec<&str> = valued.iter().chain(inline).copied().collect();
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if text == "--" {
            first_operand = iter.next();
            break;
        }
        let Some((name, attached)) = option(text, &takes_value) else {
            first_operand = Some(arg);
            break;
        };
        if !takes_value.contains(&name) {
            continue;
        }
        // `-E` is gawk's program file (sed's `-E` takes no value and never gets here).
        from_file |= matches!(name, "f" | "file" | "E");
        let value = match attached {
            Some(value) => Some(Program {
                text: value.to_owned(),
                dynamic: arg.dynamic,
            }),
            None => iter.next().map(|field| Program {
                text: field.text.clone(),
                dynamic: field.dynamic,
            }),
        };
        if inline.contains(&name) {
            found.extend(value);
        }
    }
    if found.is_empty() && !from_file {
        found.extend(first_operand.map(|field| Program {
            text: field.text.clone(),
            dynamic: field.dynamic,
        }));
    }
    found
}

/// An option's name and attached value: `-f x` → `f`, `-fx` → `f` + `x`, `--file=x` → `file` +
/// `x`. In a cluster, the first flag that takes a value (`takes_value`) ends it (`-nef x`); a
/// cluster without one gives an empty name.
fn option<'t>(text: &'t str, takes_value: &[&str]) -> Option<(&'t str, Option<&'t str>)> {
    if let Some(long) = text.strip_prefix("--") {
        return Some(match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        });
    }
    let cluster = text.strip_prefix('-').filter(|c| !c.is_empty())?;
    for (at, flag) in cluster.char_indices() {
        let end = at + flag.len_utf8();
        let name = cluster.get(at..end).unwrap_or("");
        if takes_value.contains(&name) {
            let rest = cluster.get(end..).unwrap_or("");
            return Some((name, (!rest.is_empty()).then_some(rest)));
        }
    }
    Some(("", None))
}

// ---------------------------------------------------------------------------------------- awk

/// What an awk program runs: `system(EXPR)`, `print … | EXPR`, `print … |& EXPR` and
/// `EXPR | getline`. A string literal EXPR is a script; anything else, and anything printed into
/// a shell, is only known at run time.
fn awk(program: &Program) -> Vec<Nested> {
    let tokens = awk_tokens(&program.text);
    let mut found = Vec::new();
    let dynamic = |what: &str| Nested::Dynamic(format!("awk's {what}"));
    for (at, token) in tokens.iter().enumerate() {
        match token {
            AwkToken::Word(word) if word == "system" => {
                if let Some(AwkToken::Open) = tokens.get(at + 1) {
                    match (tokens.get(at + 2), tokens.get(at + 3)) {
                        (Some(AwkToken::Str(text)), Some(AwkToken::Close)) if !program.dynamic => {
                            found.push(script(text));
                        }
                        _ => found.push(dynamic("`system(…)` argument")),
                    }
                }
            }
            AwkToken::Pipe => match (
                tokens.get(at + 1),
                at.checked_sub(1).and_then(|i| tokens.get(i)),
            ) {
                (Some(AwkToken::Word(word)), before) if word == "getline" => match before {
                    Some(AwkToken::Str(text)) if !program.dynamic => found.push(script(text)),
                    _ => found.push(dynamic("`… | getline` command")),
                },
                (Some(AwkToken::Str(text)), _) if !program.dynamic => {
                    found.push(script(text));
                    // What the program prints into a shell is that shell's script.
                    let first = text.split_whitespace().next().unwrap_or("");
                    if SHELLS.contains(&basename(first)) {
                        found.push(dynamic("output piped into a shell"));
                    }
                }
                _ => found.push(dynamic("`print | …` command")),
            },
            _ => {}
        }
    }
    found
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AwkToken {
    /// An identifier.
    Word(String),
    /// A string literal, unescaped.
    Str(String),
    /// `|` or `|&` (not `||`).
    Pipe,
    Open,
    Close,
    /// Anything else (operators, numbers, fields, regular expressions).
    Other,
}

/// The tokens of an awk program that matter here: strings, words, pipes and parentheses.
/// Regular-expression literals are skipped where an operand is expected, so `/a|b/` is no pipe.
fn awk_tokens(text: &str) -> Vec<AwkToken> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    // Whether a `/` here starts a regular expression (no operand before it).
    let mut operand_expected = true;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => {
                let (literal, end) = awk_string(bytes, at + 1);
                tokens.push(AwkToken::Str(literal));
                at = end;
                operand_expected = false;
                continue;
            }
            b'/' if operand_expected => {
                at = skip_regex(bytes, at + 1);
                tokens.push(AwkToken::Other);
                operand_expected = false;
                continue;
            }
            b'#' => {
                while bytes.get(at).is_some_and(|b| *b != b'\n') {
                    at += 1;
                }
                continue;
            }
            b'|' if bytes.get(at + 1) == Some(&b'|') => {
                tokens.push(AwkToken::Other);
                at += 2;
                operand_expected = true;
                continue;
            }
            b'|' => {
                tokens.push(AwkToken::Pipe);
                at += if bytes.get(at + 1) == Some(&b'&') {
                    2
                } else {
                    1
                };
                operand_expected = true;
                continue;
            }
            b'(' => tokens.push(AwkToken::Open),
            b')' => tokens.push(AwkToken::Close),
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let start = at;
                while bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    at += 1;
                }
                let word = text.get(start..at).unwrap_or("");
                tokens.push(AwkToken::Word(word.to_owned()));
                // After a keyword that takes an expression, a `/` is a regular expression.
                operand_expected = matches!(word, "print" | "printf" | "return" | "in" | "case");
                continue;
            }
            b if b.is_ascii_whitespace() => {
                at += 1;
                continue;
            }
            _ => tokens.push(AwkToken::Other),
        }
        operand_expected = !matches!(byte, b')' | b']' | b'$') && !byte.is_ascii_digit();
        at += 1;
    }
    tokens
}

/// An awk string literal from just after its opening quote: the text, and where it ends.
fn awk_string(bytes: &[u8], mut at: usize) -> (String, usize) {
    let mut literal = Vec::new();
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return (String::from_utf8_lossy(&literal).into_owned(), at + 1),
            b'\\' => {
                match bytes.get(at + 1) {
                    Some(b'n') => literal.push(b'\n'),
                    Some(b't') => literal.push(b'\t'),
                    Some(&other) => literal.push(other),
                    None => {}
                }
                at += 2;
            }
            _ => {
                literal.push(byte);
                at += 1;
            }
        }
    }
    (String::from_utf8_lossy(&literal).into_owned(), at)
}

/// Skips a regular expression from just after its opening `/` (or a sed delimiter).
fn skip_regex(bytes: &[u8], at: usize) -> usize {
    delimited(bytes, at, b'/').1
}

// ---------------------------------------------------------------------------------------- sed

/// What a sed script runs: `e COMMAND` (a script), a bare `e` (the pattern space), and the `e`
/// flag of `s`, which runs the pattern space after the substitution: its replacement is judged as
/// a script, and the whole line is only known at run time.
fn sed(program: &Program) -> Vec<Nested> {
    let bytes = program.text.as_bytes();
    let text = program.text.as_str();
    let mut found = Vec::new();
    let pattern_space = || Nested::Dynamic("the lines sed executes".to_owned());
    let mut at = 0;
    while at < bytes.len() && found.len() < MAX_FOUND {
        at = skip_sed_address(bytes, at);
        let Some(&command) = bytes.get(at) else { break };
        at += 1;
        match command {
            b';' | b'\n' | b'{' | b'}' | b'!' | b' ' | b'\t' => {}
            b'#' | b':' | b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' | b'b' | b't' | b'T'
            | b'v' => at = line_end(bytes, at, matches!(command, b':' | b'b' | b't' | b'T')),
            b'e' => {
                let end = line_end(bytes, at, false);
                let line = text.get(at..end).unwrap_or("").trim();
                found.push(if line.is_empty() {
                    pattern_space()
                } else if program.dynamic {
                    Nested::Dynamic(line.to_owned())
                } else {
                    script(line)
                });
                at = end;
            }
            b's' | b'y' => {
                let Some(&delimiter) = bytes.get(at) else {
                    break;
                };
                let (_, after_pattern) = delimited(bytes, at + 1, delimiter);
                let (replacement, after_replacement) = delimited(bytes, after_pattern, delimiter);
                at = after_replacement;
                if command == b'y' {
                    continue;
                }
                let flags_end = bytes
                    .iter()
                    .skip(at)
                    .position(|b| !(b.is_ascii_alphanumeric()))
                    .map_or(bytes.len(), |n| at + n);
                let flags = text.get(at..flags_end).unwrap_or("");
                let (flags, writes) = match flags.find('w') {
                    // `w FILE` takes the rest of the line; flags after it are part of the name.
                    Some(w) => (flags.get(..w).unwrap_or(""), true),
                    None => (flags, false),
                };
                if flags.contains('e') {
                    let replacement = String::from_utf8_lossy(&replacement).into_owned();
                    if !program.dynamic && !replacement.contains(['\\', '&']) {
                        found.push(script(&replacement));
                    }
                    found.push(pattern_space());
                }
                at = if writes {
                    line_end(bytes, flags_end, false)
                } else {
                    flags_end
                };
            }
            // Single-letter commands and those with an optional number (`q5`, `l 40`).
            _ => {}
        }
    }
    found
}

/// Skips a sed address (`3`, `$`, `/re/`, `\%re%`, `1,5`, `0~4`, `addr,+3`) and blanks.
fn skip_sed_address(bytes: &[u8], mut at: usize) -> usize {
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t' | b',' | b'~' | b'+' | b'$') => at += 1,
            Some(b) if b.is_ascii_digit() => at += 1,
            Some(b'/') => at = delimited(bytes, at + 1, b'/').1,
            Some(b'\\') => match bytes.get(at + 1) {
                Some(&delimiter) => at = delimited(bytes, at + 2, delimiter).1,
                None => return at + 1,
            },
            _ => return at,
        }
        // Flags of a regular-expression address (`/x/I`, `/x/M`).
        while matches!(bytes.get(at), Some(b'I' | b'M')) && bytes.get(at - 1) == Some(&b'/') {
            at += 1;
        }
    }
}

/// The text up to an unescaped `delimiter` (escapes kept except `\delimiter`), and the index
/// after the delimiter (the end of the text when it is missing).
fn delimited(bytes: &[u8], mut at: usize, delimiter: u8) -> (Vec<u8>, usize) {
    let mut text = Vec::new();
    while let Some(&byte) = bytes.get(at) {
        if byte == delimiter {
            return (text, at + 1);
        }
        if byte == b'\\' {
            match bytes.get(at + 1) {
                Some(&next) if next == delimiter => text.push(next),
                Some(&next) => text.extend([b'\\', next]),
                None => {}
            }
            at += 2;
            continue;
        }
        text.push(byte);
        at += 1;
    }
    (text, bytes.len())
}

/// Where a sed command's argument ends: the newline (a backslash continues text commands), or
/// also `;` for labels.
fn line_end(bytes: &[u8], mut at: usize, semicolon_ends: bool) -> usize {
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'\n' => return at,
            b';' if semicolon_ends => return at,
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    bytes.len()
}

// ---------------------------------------------------------------------------------------- git

/// git's ways to run commands: `rebase -x CMD` / `--exec CMD` (a shell script per commit),
/// `submodule foreach CMD…` (a shell script per submodule) and `bisect run CMD ARGS…` (an argv).
fn git(args: &[Field]) -> Vec<Nested> {
    let start = options_end(args, GIT_GLOBAL_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE);
    let Some((sub, rest)) = args.get(start..).and_then(<[Field]>::split_first) else {
        return Vec::new();
    };
    match sub.text.as_str() {
        "rebase" => {
            let mut found = Vec::new();
            let mut iter = rest.iter();
            while let Some(arg) = iter.next() {
                let text = arg.text.as_str();
                let value = match text {
                    "-x" | "--exec" => iter.next(),
                    _ => None,
                };
                let attached = text
                    .strip_prefix("--exec=")
                    .or_else(|| text.strip_prefix("-x").filter(|v| !v.is_empty()));
                if let Some(field) = value {
                    found.push(script_or_dynamic(&field.text, field.dynamic));
                } else if let Some(text) = attached {
                    found.push(script_or_dynamic(text, arg.dynamic));
                }
            }
            found
        }
        "submodule" => {
            let Some(at) = rest.iter().position(|arg| arg.text == "foreach") else {
                return Vec::new();
            };
            let command: Vec<&Field> = rest
                .iter()
                .skip(at + 1)
                .skip_while(|arg| matches!(arg.text.as_str(), "--recursive" | "-q" | "--quiet"))
                .collect();
            if command.is_empty() {
                return Vec::new();
            }
            let text = command
                .iter()
                .map(|f| f.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            vec![script_or_dynamic(&text, command.iter().any(|f| f.dynamic))]
        }
        "bisect" if rest.first().is_some_and(|arg| arg.text == "run") => {
            let fields = rest.get(1..).unwrap_or(&[]).to_vec();
            if fields.is_empty() {
                return Vec::new();
            }
            vec![Nested::Command {
                fields,
                origin: Origin::Wrapper,
            }]
        }
        _ => Vec::new(),
    }
}

fn script(text: &str) -> Nested {
    Nested::Script {
        text: text.to_owned(),
        origin: Origin::ShellString,
    }
}

fn script_or_dynamic(text: &str, dynamic: bool) -> Nested {
    if dynamic {
        Nested::Dynamic(text.to_owned())
    } else {
        script(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `argv` runs; words are literal (as if single-quoted) unless they start with `$`.
    fn scripts(argv: &[&str]) -> Vec<String> {
        let fields: Vec<Field> = argv
            .iter()
            .map(|word| Field {
                text: (*word).to_owned(),
                dynamic: word.starts_with('$'),
            })
            .collect();
        let (program, args) = fields.split_first().expect("a program");
        nested(&program.text, args)
            .into_iter()
            .map(|nested| match nested {
                Nested::Script { text, .. } => text,
                Nested::Dynamic(text) => format!("dynamic: {text}"),
                Nested::Command { fields, .. } => format!(
                    "argv: {}",
                    fields
                        .iter()
                        .map(|f| f.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Nested::Stdin => "stdin".to_owned(),
            })
            .collect()
    }

    #[test]
    fn awk_system_and_pipes() {
        assert_eq!(
            scripts(&["awk", "BEGIN { system(\"rm -rf ~\") }"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts(&["gawk", "-F:", "{ system(\"echo \" $1) }", "/etc/passwd"]),
            ["dynamic: awk's `system(…)` argument"]
        );
        assert_eq!(
            scripts(&["awk", "{ print $1 | \"sort -u\" }", "x"]),
            ["sort -u"]
        );
        assert_eq!(
            scripts(&["awk", "{ print \"rm -rf ~\" | \"sh\" }"]),
            ["sh", "dynamic: awk's output piped into a shell"]
        );
        assert_eq!(
            scripts(&["awk", "BEGIN { \"id -u\" | getline uid; print uid }"]),
            ["id -u"]
        );
        assert_eq!(
            scripts(&["awk", "-e", "BEGIN { cmd | getline x }"]),
            ["dynamic: awk's `… | getline` command"]
        );
    }

    #[test]
    fn awk_data_runs_nothing() {
        for argv in [
            &["awk", "{ print $1 }", "file"][..],
            &["awk", "/error|warn/ { n++ } END { print n }", "log"],
            &["awk", "$1 == \"a|b\" || $2 > 3", "x"],
            &["awk", "-v", "q=system(\"x\")", "{ print q }"],
            &["awk", "-f", "prog.awk", "{ system(\"x y\") }"],
            &["awk", "{ print $3 / 2 }", "x"],
        ] {
            assert!(scripts(argv).is_empty(), "{argv:?}: {:?}", scripts(argv));
        }
    }

    #[test]
    fn sed_execute() {
        assert_eq!(scripts(&["sed", "1e rm -rf ~", "x"]), ["rm -rf ~"]);
        assert_eq!(
            scripts(&["sed", "-n", "-e", "/x/e touch /tmp/a", "f"]),
            ["touch /tmp/a"]
        );
        assert_eq!(
            scripts(&["sed", "s/.*/rm -rf ~/e", "x"]),
            ["rm -rf ~", "dynamic: the lines sed executes"]
        );
        assert_eq!(
            scripts(&["sed", "s|x|y|ge", "x"]),
            ["y", "dynamic: the lines sed executes"]
        );
        assert_eq!(
            scripts(&["sed", "--expression=e", "x"]),
            ["dynamic: the lines sed executes"]
        );
        assert_eq!(scripts(&["sed", "-i", "s/a/b/;3e id", "x"]), ["id"]);
    }

    #[test]
    fn sed_without_execute_runs_nothing() {
        for argv in [
            &["sed", "s/e/E/g", "x"][..],
            &["sed", "-e", "s/foo/bar/", "-e", "/^#/d", "x"],
            &["sed", "-n", "/end/p", "x"],
            &["sed", "s/a/b/w out.txt", "x"],
            &["sed", "/x/a\\\n echo e", "x"],
            &["sed", "-E", "s/(e)+/\\1/g", "x"],
            &["sed", "y/abc/efg/", "x"],
            &["sed", "--sandbox", "1e id", "x"],
            &["sed", "-f", "script.sed", "x"],
            &["sed", "b end; s/x/y/; :end", "x"],
        ] {
            assert!(scripts(argv).is_empty(), "{argv:?}: {:?}", scripts(argv));
        }
    }

    #[test]
    fn git_runs() {
        assert_eq!(
            scripts(&["git", "rebase", "-x", "rm -rf ~", "HEAD~3"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts(&["git", "-C", "repo", "rebase", "--exec=make test", "main"]),
            ["make test"]
        );
        assert_eq!(
            scripts(&[
                "git",
                "submodule",
                "foreach",
                "--recursive",
                "git",
                "clean",
                "-fdx"
            ]),
            ["git clean -fdx"]
        );
        assert_eq!(
            scripts(&["git", "bisect", "run", "rm", "-rf", "/"]),
            ["argv: rm -rf /"]
        );
        assert_eq!(
            scripts(&["git", "rebase", "-x", "$CMD", "main"]),
            ["dynamic: $CMD"]
        );
        assert!(scripts(&["git", "rebase", "-i", "main"]).is_empty());
        assert!(scripts(&["git", "log", "-x"]).is_empty());
    }
}
