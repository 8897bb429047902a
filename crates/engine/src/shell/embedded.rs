//! Programs whose own languages hand commands to a shell: awk (`system("…")`, `print | "cmd"`,
//! `"cmd" | getline`), sed (its `e` command and the `e` flag of `s`), git (`rebase --exec`,
//! `submodule foreach`, `bisect run`); the options that name a command (tar's `-I`,
//! `--to-command`, `--checkpoint-action=exec=…`; zip's `-TT`; ssh's `-o ProxyCommand=…`; rsync's
//! `-e`; scp's `-S`; man's `-P`); ssh's remote command; the command a container runs in
//! another (`docker exec`) or where a new one reaches the host through a bind mount (`docker run
//! -v`); and the shell escapes of vim (`-c '!…'`,
//! `+'r !…'`, `:terminal`) and less (`+'!…'`); apt's hook options (`-o
//! DPkg::Post-Invoke::=…`) and rpm's macros (`--eval '%(…)'`, `%{lua:…}`); AppleScript's `do
//! shell script "…"`; the package.json scripts `npm pkg set` stores for a later call to run
//! ([`packages`]); and PowerShell's inline code, which is only known at run time.
//!
//! [`nested`] finds the shell text each would run. Text only known at run time (an awk
//! expression, what sed's pattern space holds, what awk prints into a shell) is
//! [`Nested::Dynamic`], so the command is never taken for harmless.
//!
//! These are small scanners, not parsers of awk or sed: where they are unsure they see a command
//! that may not be there (a question for the user), never the other way round.

mod packages;
mod vimscript;

use super::exec::{Nested, SHELLS, joined, script_or_dynamic};
use super::interp::lisp;
use super::parse::Budget;
use super::wrappers::Field;
use super::{Origin, basename};
use crate::argv::{
    GIT_CLONE_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE, GIT_GLOBAL_SHORT_VALUE, RSYNC_SHORT_VALUES,
    compose_run, container_binds, container_run, container_subcommand, container_values,
    long_option_matches, options_end, service_create,
};

/// The names awk goes by.
const AWK_NAMES: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "original-awk",
    "onetrue-awk",
    "goawk",
    "bwk",
];

/// Most commands followed in one program text; past that, the rest is only known at run time.
const MAX_FOUND: usize = 16;

/// What `program ARGS` runs through a shell, for awk, sed and git.
pub(super) fn nested(name: &str, args: &[Field], budget: &Budget) -> Vec<Nested> {
    let found = match name {
        name if AWK_NAMES.contains(&name) => {
            programs(args, &AWK).into_iter().flat_map(awk).collect()
        }
        "sed" | "gsed" => {
            if sandboxed(args) {
                return Vec::new();
            }
            programs(args, &SED).into_iter().flat_map(sed).collect()
        }
        "git" => git(args),
        "npm" | "pnpm" | "yarn" | "bun" | "pip" | "pip3" | "uv" | "pipx" | "cargo" => {
            packages::nested(name, args)
        }
        name if name.starts_with("python") || name.starts_with("pypy") => {
            packages::python_pip(args)
        }
        "tar" | "gtar" => tar(args),
        "zip" => zip(args),
        "ssh" => ssh(args),
        "scp" | "sftp" => {
            let mut found = ssh_options(args, SCP_VALUED);
            found.extend(option_values(args, Some('S'), SCP_VALUED, None));
            found
        }
        "rsync" => option_values(args, Some('e'), RSYNC_SHORT_VALUES, Some("rsh")),
        "man" => option_values(
            args,
            Some('P'),
            &['C', 'E', 'H', 'L', 'M', 'm', 'p', 'R', 'S', 'e', 'r'],
            Some("pager"),
        ),
        "vi" | "vim" | "nvim" | "view" | "gvim" | "rvim" | "vimdiff" | "ex" => {
            vim(name, args, budget)
        }
        "gdb" | "gdb-multiarch" | "cgdb" => gdb(args),
        "docker" | "podman" | "nerdctl" => {
            let mut found = container_exec(args);
            found.extend(mounted_command(name, args));
            found
        }
        "docker-compose" | "podman-compose" => mounted_command(name, args),
        "kubectl" | "oc" | "lxc" | "incus" => pod_exec(args),
        "lxc-attach" | "schroot" | "distrobox-enter" => in_container(after_dash(args)),
        "distrobox" => match args.first() {
            Some(sub) if sub.text == "enter" => in_container(after_dash(args)),
            _ => Vec::new(),
        },
        "ddev" => ddev_exec(args),
        "cmake" => cmake_tool(args),
        "hyperfine" => hyperfine(args),
        "nodemon" => option_values(args, Some('x'), NODEMON_VALUED, Some("exec")),
        "kitty" | "kitten" => kitty_remote(args),
        "wezterm" => wezterm_send_text(args),
        name if lisp::code_options(name).is_some() => lisp::expressions(name, args)
            .into_iter()
            .flat_map(|code| lisp::shell_commands(name, code, budget))
            .map(|text| Nested::Script {
                text,
                origin: Origin::Interpreter,
            })
            .collect(),
        "osascript" => option_texts(args, Some('e'), &['l', 's'], None)
            .iter()
            .flat_map(|(code, dynamic)| apple_shell_scripts(code, *dynamic))
            .collect(),
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe" | "cmd" | "cmd.exe" => {
            windows_shell(name, args, budget)
        }
        // Git Bash runs Windows programs: a Run key set, a task or a service made is judged as
        // the PowerShell front end judges it.
        "reg" | "reg.exe" | "schtasks" | "schtasks.exe" | "sc" | "sc.exe" => {
            windows_native(name, args, budget)
        }
        "apt" | "apt-get" | "aptitude" => apt(args),
        "rpm" | "rpmbuild" | "rpmspec" => rpm(args, budget),
        "less" | "more" => args
            .iter()
            .filter_map(|arg| Some((arg.text.strip_prefix('+')?, arg.dynamic)))
            .filter_map(|(command, dynamic)| bang_command(command, dynamic))
            .collect(),
        _ => return Vec::new(),
    };
    cap(found, MAX_FOUND)
}

/// Whether sed runs with `--sandbox` (an option before `--`), which refuses `e`, `r` and `w`.
fn sandboxed(args: &[Field]) -> bool {
    args.iter().take_while(|arg| arg.text != "--").any(|arg| {
        arg.text
            .strip_prefix("--")
            .is_some_and(|long| long_option_matches(long, "sandbox"))
    })
}

/// At most `max` commands, then one that stands for the rest, which is not followed.
pub(super) fn cap(mut found: Vec<Nested>, max: usize) -> Vec<Nested> {
    if found.len() > max {
        found.truncate(max);
        found.push(Nested::Dynamic(
            "more commands than the analysis follows".to_owned(),
        ));
    }
    found
}

/// How a program-running command takes its program: inline options, program-file options,
/// other options with a value, and whether options may follow operands (GNU `getopt`
/// permutes sed's argv; awk's options end at the program).
struct Syntax {
    inline_short: &'static [char],
    inline_long: &'static [&'static str],
    file_short: &'static [char],
    file_long: &'static [&'static str],
    valued_short: &'static [char],
    valued_long: &'static [&'static str],
    permutes: bool,
}

const AWK: Syntax = Syntax {
    inline_short: &['e'],
    inline_long: &["source"],
    file_short: &['f', 'E'],
    file_long: &["file", "exec"],
    // `-W` is gawk's and mawk's way to give any long option (`-W source=…`), read below.
    valued_short: &['v', 'F', 'i', 'l', 'W'],
    valued_long: &["assign", "field-separator", "include", "load"],
    permutes: false,
};

const SED: Syntax = Syntax {
    inline_short: &['e'],
    inline_long: &["expression"],
    file_short: &['f'],
    file_long: &["file"],
    valued_short: &['l'],
    valued_long: &["line-length"],
    permutes: true,
};

/// One program text given on the command line.
struct Program {
    text: String,
    dynamic: bool,
}

/// What a command's argv gives as its program.
enum Source {
    /// Program text.
    Text(Program),
    /// A program read from stdin, a process substitution or a file named at run time: not
    /// known here.
    Unknown,
}

/// The program texts of an awk- or sed-like command: the values of its inline options, or else
/// its first operand, unless a program file is given (a file is not looked into, as a script
/// file given to a shell is not; one read from stdin is unknown).
fn programs(args: &[Field], syntax: &Syntax) -> Vec<Source> {
    let mut found = Vec::new();
    let mut from_file = false;
    let mut first_operand = None;
    let mut iter = args.iter();
    let mut take = |kind: Kind, value: Option<Program>, found: &mut Vec<Source>| match kind {
        Kind::Inline => found.extend(value.map(Source::Text)),
        Kind::File => {
            from_file = true;
            let known = value.is_some_and(|file| {
                !file.dynamic
                    && !matches!(
                        file.text.as_str(),
                        "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
                    )
                    && !file.text.contains("(…)")
            });
            if !known {
                found.push(Source::Unknown);
            }
        }
        Kind::Valued => {}
    };
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if text == "--" {
            first_operand = first_operand.or_else(|| iter.next());
            break;
        }
        let (kind, attached) = if let Some(long) = text.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let matches = |names: &[&str]| names.iter().any(|n| long_option_matches(name, n));
            let kind = if matches(syntax.inline_long) {
                Kind::Inline
            } else if matches(syntax.file_long) {
                Kind::File
            } else if matches(syntax.valued_long) {
                Kind::Valued
            } else {
                continue;
            };
            (kind, attached)
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            let valued = cluster.char_indices().find_map(|(at, flag)| {
                let kind = if syntax.inline_short.contains(&flag) {
                    Kind::Inline
                } else if syntax.file_short.contains(&flag) {
                    Kind::File
                } else if syntax.valued_short.contains(&flag) {
                    Kind::Valued
                } else {
                    return None;
                };
                let rest = cluster.get(at + flag.len_utf8()..).unwrap_or("");
                Some((kind, flag, (!rest.is_empty()).then_some(rest)))
            });
            let Some((kind, flag, attached)) = valued else {
                continue;
            };
            if flag == 'W' {
                // `-W source=TEXT`, `-W exec=FILE`, `-W interactive`.
                let value = attached.or_else(|| iter.next().map(|f| f.text.as_str()));
                let (name, value) = value
                    .and_then(|v| v.split_once('='))
                    .unwrap_or((value.unwrap_or(""), ""));
                if long_option_matches(name, "source") {
                    take(Kind::Inline, Some(program(value, arg.dynamic)), &mut found);
                } else if long_option_matches(name, "exec") || long_option_matches(name, "file") {
                    take(Kind::File, Some(program(value, arg.dynamic)), &mut found);
                }
                continue;
            }
            (kind, attached)
        } else {
            first_operand = first_operand.or(Some(arg));
            if syntax.permutes {
                continue;
            }
            break;
        };
        let value = match attached {
            Some(value) => Some(program(value, arg.dynamic)),
            None => iter.next().map(|field| program(&field.text, field.dynamic)),
        };
        take(kind, value, &mut found);
    }
    if found.is_empty() && !from_file {
        found.extend(first_operand.map(|field| Source::Text(program(&field.text, field.dynamic))));
    }
    found
}

#[derive(Clone, Copy)]
enum Kind {
    Inline,
    File,
    Valued,
}

fn program(text: &str, dynamic: bool) -> Program {
    Program {
        text: text.to_owned(),
        dynamic,
    }
}

// ---------------------------------------------------------------------------------------- awk

/// What an awk program runs: `system(EXPR)`, `print … | EXPR`, `print … |& EXPR` and
/// `EXPR | getline`. A string literal EXPR is a script; anything else, and anything printed into
/// a shell or an interpreter, is only known at run time. Where the scan may have lost its place
/// (a `/` it took for division or for a regular expression), a call it counts in the raw text
/// and did not account for is only known at run time too.
fn awk(source: Source) -> Vec<Nested> {
    let program = match source {
        Source::Text(program) => program,
        Source::Unknown => return vec![dynamic("awk's program, read at run time")],
    };
    let tokens = awk_tokens(&program.text);
    let mut found = Vec::new();
    let mut calls = 0;
    let mut pipes = 0;
    let literal = |text: &str| (!program.dynamic).then(|| text.to_owned());
    for (at, token) in tokens.iter().enumerate() {
        match token {
            AwkToken::Word(word) if word == "system" => {
                if let Some(AwkToken::Open) = tokens.get(at + 1) {
                    calls += 1;
                    match (tokens.get(at + 2), tokens.get(at + 3)) {
                        (Some(AwkToken::Str(text)), Some(AwkToken::Close)) => {
                            found.extend(literal(text).map(|text| script(&text)));
                        }
                        _ => found.push(dynamic("awk's `system(…)` argument")),
                    }
                }
            }
            AwkToken::Pipe => {
                let before = at.checked_sub(1).and_then(|i| tokens.get(i));
                match tokens.get(at + 1) {
                    Some(AwkToken::Word(word)) if word == "getline" => {
                        pipes += 1;
                        match before {
                            Some(AwkToken::Str(text)) => {
                                found.extend(literal(text).map(|text| script(&text)));
                            }
                            _ => found.push(dynamic("awk's `… | getline` command")),
                        }
                    }
                    Some(AwkToken::Str(text)) => {
                        pipes += 1;
                        found.extend(literal(text).map(|text| script(&text)));
                        // What the program prints into a shell or an interpreter is its script.
                        if text
                            .split_whitespace()
                            .any(|word| runs_its_input(basename(word)))
                        {
                            found.push(dynamic("awk's output piped into a program that runs it"));
                        }
                    }
                    _ => {
                        pipes += 1;
                        found.push(dynamic("awk's `print | …` command"));
                    }
                }
            }
            _ => {}
        }
    }
    if program.dynamic && (calls > 0 || pipes > 0) {
        found.push(dynamic("awk's commands, built at run time"));
    }
    let (raw_calls, raw_pipes, indirect) = awk_raw_counts(&program.text);
    if raw_calls > calls || raw_pipes > pipes || indirect {
        found.push(dynamic("awk's commands, where the scan lost its place"));
    }
    found
}

/// Whether a program given text on its stdin runs it: a shell, an interpreter, or awk and sed
/// reading their program from `-f -`.
fn runs_its_input(name: &str) -> bool {
    SHELLS.contains(&name)
        || name.starts_with("python")
        || matches!(
            name,
            "perl" | "ruby" | "node" | "php" | "lua" | "awk" | "gawk" | "mawk" | "sed" | "xargs"
        )
}

/// In the raw program text: `system(` calls, pipes into a string or `getline` (`| "…"`,
/// `|& …`, `| getline`), and gawk's indirect calls and directives (`@f(…)`, `@include`).
fn awk_raw_counts(text: &str) -> (usize, usize, bool) {
    let bytes = text.as_bytes();
    let word_at = |at: usize, word: &str| {
        text.get(at..).is_some_and(|rest| rest.starts_with(word))
            && !at
                .checked_sub(1)
                .and_then(|i| bytes.get(i))
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let mut calls = 0;
    let mut pipes = 0;
    let mut indirect = false;
    for (at, &byte) in bytes.iter().enumerate() {
        match byte {
            b's' if word_at(at, "system") => {
                let after = text.get(at + 6..).unwrap_or("").trim_start();
                calls += usize::from(after.starts_with('('));
            }
            b'|' if bytes.get(at + 1) != Some(&b'|')
                && at.checked_sub(1).and_then(|i| bytes.get(i)) != Some(&b'|') =>
            {
                let after = text.get(at + 1..).unwrap_or("");
                let after = after.strip_prefix('&').unwrap_or(after).trim_start();
                pipes += usize::from(
                    after.starts_with('"')
                        || after.starts_with("getline")
                        || text.get(at + 1..).is_some_and(|rest| rest.starts_with('&')),
                );
            }
            b'@' => {
                let after = text.get(at + 1..).unwrap_or("");
                let name_len = after
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b':')
                    .count();
                let rest = after.get(name_len..).unwrap_or("").trim_start();
                indirect |= name_len > 0
                    && (rest.starts_with('(')
                        || ["include", "load", "namespace"]
                            .iter()
                            .any(|directive| after.starts_with(directive)));
            }
            _ => {}
        }
    }
    (calls, pipes, indirect)
}

fn dynamic(what: &str) -> Nested {
    Nested::Dynamic(what.to_owned())
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum AwkToken {
    /// An identifier.
    Word(String),
    /// A string literal, unescaped.
    Str(String),
    /// `|` or `|&` (not `||`).
    Pipe,
    /// `<` (not `<=`): a comparison, or `getline`'s input file.
    Less,
    /// `>` or `>>` (not `>=`): a comparison, or `print`'s output file.
    Greater,
    /// The end of a statement or the edge of a block: `;`, a newline, `{`, `}`.
    End,
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
            b';' | b'\n' | b'{' | b'}' => tokens.push(AwkToken::End),
            b'<' | b'>' if bytes.get(at + 1) == Some(&b'=') => {
                tokens.push(AwkToken::Other);
                at += 1;
            }
            b'<' => tokens.push(AwkToken::Less),
            b'>' => {
                tokens.push(AwkToken::Greater);
                if bytes.get(at + 1) == Some(&b'>') {
                    at += 1;
                }
            }
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

/// An awk string literal from just after its opening quote: the text with its escapes decoded
/// (`\n`, `\"`, octal `\176`, gawk's hex `\x7e`), and where it ends.
fn awk_string(bytes: &[u8], mut at: usize) -> (String, usize) {
    let mut literal = Vec::new();
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'"' => return (String::from_utf8_lossy(&literal).into_owned(), at + 1),
            b'\\' => {
                at += 1;
                let Some(&escaped) = bytes.get(at) else { break };
                at += 1;
                let digits = |at: usize, radix: u32, most: usize| {
                    bytes
                        .iter()
                        .skip(at)
                        .take(most)
                        .take_while(|b| char::from(**b).is_digit(radix))
                        .count()
                };
                let number = |from: usize, len: usize, radix: u32| {
                    std::str::from_utf8(bytes.get(from..from + len).unwrap_or(b""))
                        .ok()
                        .and_then(|digits| u32::from_str_radix(digits, radix).ok())
                        .map_or(b'?', |value| (value & 0xff) as u8)
                };
                match escaped {
                    b'0'..=b'7' => {
                        let len = 1 + digits(at, 8, 2);
                        literal.push(number(at - 1, len, 8));
                        at += len - 1;
                    }
                    b'x' if digits(at, 16, 2) > 0 => {
                        let len = digits(at, 16, 2);
                        literal.push(number(at, len, 16));
                        at += len;
                    }
                    b'n' => literal.push(b'\n'),
                    b't' => literal.push(b'\t'),
                    b'r' => literal.push(b'\r'),
                    other => literal.push(other),
                }
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
    delimited(bytes, at, b'/', true).1
}

// ---------------------------------------------------------------------------------------- sed

/// What a sed script runs: `e COMMAND` (a script), a bare `e` (the pattern space), and the `e`
/// flag of `s`, which runs the pattern space after the substitution: its replacement is judged as
/// a script, and the whole line is only known at run time.
fn sed(source: Source) -> Vec<Nested> {
    match source {
        Source::Text(program) => sed_scan(&program).runs,
        Source::Unknown => vec![dynamic("sed's script, read at run time")],
    }
}

/// The files the program of a sed or awk command reads and writes itself: `(reads, writes)`.
pub(crate) fn program_files(name: &str, args: &[String]) -> (Vec<String>, Vec<String>) {
    match name {
        "sed" | "gsed" => sed_files(args),
        name if AWK_NAMES.contains(&name) => awk_files(args),
        _ => (Vec::new(), Vec::new()),
    }
}

/// The files awk programs name in `getline [VAR] < "FILE"` and `print … > "FILE"` (or `>>`);
/// a file named by an expression is only known at run time and not listed.
fn awk_files(args: &[String]) -> (Vec<String>, Vec<String>) {
    let fields = static_fields(args);
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for source in programs(&fields, &AWK) {
        let Source::Text(program) = source else {
            continue;
        };
        let tokens = awk_tokens(&program.text);
        for (at, token) in tokens.iter().enumerate() {
            match token {
                AwkToken::Word(word) if word == "getline" => {
                    let mut next = at + 1;
                    if let Some(AwkToken::Word(_)) = tokens.get(next) {
                        next += 1;
                    }
                    if let (Some(AwkToken::Less), Some(AwkToken::Str(file))) =
                        (tokens.get(next), tokens.get(next + 1))
                    {
                        reads.push(file.clone());
                    }
                }
                AwkToken::Word(word) if word == "print" || word == "printf" => {
                    let mut depth = 0usize;
                    for (offset, token) in tokens.iter().enumerate().skip(at + 1) {
                        match token {
                            AwkToken::Open => depth += 1,
                            AwkToken::Close => depth = depth.saturating_sub(1),
                            AwkToken::End | AwkToken::Pipe if depth == 0 => break,
                            AwkToken::Greater if depth == 0 => {
                                if let Some(AwkToken::Str(file)) = tokens.get(offset + 1) {
                                    writes.push(file.clone());
                                }
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
    (reads, writes)
}

/// Whether an awk program loops over its whole environment (`for (k in ENVIRON)`), printing it
/// as `env` does. One named variable (`ENVIRON["HOME"]`) or a membership test
/// (`"CI" in ENVIRON`) is no listing, as `printenv HOME` is none.
pub(crate) fn awk_lists_environment(name: &str, args: &[String]) -> bool {
    if !AWK_NAMES.contains(&name) {
        return false;
    }
    programs(&static_fields(args), &AWK)
        .into_iter()
        .any(|source| match source {
            Source::Text(program) => loops_over_environ(&awk_tokens(&program.text)),
            Source::Unknown => false,
        })
}

/// Whether awk tokens hold `for (NAME in ENVIRON)`.
fn loops_over_environ(tokens: &[AwkToken]) -> bool {
    let word = |token: &AwkToken, text: &str| matches!(token, AwkToken::Word(w) if w == text);
    tokens.windows(5).any(|window| match window {
        [for_, AwkToken::Open, AwkToken::Word(_), in_, environ] => {
            word(for_, "for") && word(in_, "in") && word(environ, "ENVIRON")
        }
        _ => false,
    })
}

/// `args` as fields of static text.
fn static_fields(args: &[String]) -> Vec<Field> {
    args.iter()
        .map(|arg| Field {
            text: arg.clone(),
            dynamic: false,
            valued: false,
        })
        .collect()
}

/// The files a sed command's scripts read (`r FILE`, `R FILE`) and write (`w FILE`, `W FILE`,
/// the `w FILE` flag of `s`): `(reads, writes)`. None under `--sandbox`, which refuses them.
fn sed_files(args: &[String]) -> (Vec<String>, Vec<String>) {
    let fields = static_fields(args);
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    if sandboxed(&fields) {
        return (reads, writes);
    }
    for source in programs(&fields, &SED) {
        if let Source::Text(program) = source {
            let scan = sed_scan(&program);
            reads.extend(scan.reads);
            writes.extend(scan.writes);
        }
    }
    (reads, writes)
}

/// What one sed script does besides editing its input.
#[derive(Default)]
struct SedScan {
    /// What it hands to a shell.
    runs: Vec<Nested>,
    /// Files it reads.
    reads: Vec<String>,
    /// Files it writes.
    writes: Vec<String>,
}

fn sed_scan(program: &Program) -> SedScan {
    let bytes = program.text.as_bytes();
    let text = program.text.as_str();
    let mut scan = SedScan::default();
    let found = &mut scan.runs;
    let pattern_space = || Nested::Dynamic("the lines sed executes".to_owned());
    let mut at = 0;
    while at < bytes.len() && found.len() <= MAX_FOUND {
        at = skip_sed_address(bytes, at);
        let Some(&command) = bytes.get(at) else { break };
        at += 1;
        match command {
            b';' | b'\n' | b'{' | b'}' | b'!' | b' ' | b'\t' => {}
            b'r' | b'R' | b'w' | b'W' => {
                let end = line_end(bytes, at, false);
                let file = text.get(at..end).unwrap_or("").trim().to_owned();
                if !file.is_empty() {
                    match command {
                        b'r' | b'R' => scan.reads.push(file),
                        _ => scan.writes.push(file),
                    }
                }
                at = end;
            }
            b'#' | b':' | b'a' | b'i' | b'c' | b'b' | b't' | b'T' | b'v' => {
                at = line_end(
                    bytes,
                    at,
                    matches!(command, b':' | b'b' | b't' | b'T' | b'v'),
                );
            }
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
                let (_, after_pattern) = delimited(bytes, at + 1, delimiter, command == b's');
                let (replacement, after_replacement) =
                    delimited(bytes, after_pattern, delimiter, false);
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
                    let end = line_end(bytes, flags_end, false);
                    let file = text.get(flags_end..end).unwrap_or("").trim();
                    if !file.is_empty() {
                        scan.writes.push(file.to_owned());
                    }
                    end
                } else {
                    flags_end
                };
            }
            // Single-letter commands and those with an optional number (`q5`, `l 40`).
            _ => {}
        }
    }
    scan
}

/// Skips a sed address (`3`, `$`, `/re/`, `\%re%`, `1,5`, `0~4`, `addr,+3`) and blanks.
fn skip_sed_address(bytes: &[u8], mut at: usize) -> usize {
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t' | b',' | b'~' | b'+' | b'$') => at += 1,
            Some(b) if b.is_ascii_digit() => at += 1,
            Some(b'/') => at = delimited(bytes, at + 1, b'/', true).1,
            Some(b'\\') => match bytes.get(at + 1) {
                Some(&delimiter) => at = delimited(bytes, at + 2, delimiter, true).1,
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
/// after the delimiter (the end of the text when it is missing). In a regular expression
/// (`regex`), a bracket expression is skipped whole: the delimiter is literal inside it
/// (`s/[/]/x/`), as are `]` first and `[:class:]`.
fn delimited(bytes: &[u8], mut at: usize, delimiter: u8, regex: bool) -> (Vec<u8>, usize) {
    let mut text = Vec::new();
    while let Some(&byte) = bytes.get(at) {
        if regex && byte == b'[' {
            let end = bracket_end(bytes, at);
            text.extend_from_slice(bytes.get(at..end).unwrap_or(b""));
            at = end;
            continue;
        }
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

/// The index after the bracket expression opening at `open` (`[abc]`, `[^]x]`, `[[:alpha:]/]`);
/// the end of the text when it is not closed.
fn bracket_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    if bytes.get(at) == Some(&b'^') {
        at += 1;
    }
    if bytes.get(at) == Some(&b']') {
        at += 1;
    }
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b']' => return at + 1,
            b'[' if matches!(bytes.get(at + 1), Some(b':' | b'.' | b'=')) => {
                let kind = bytes.get(at + 1).copied().unwrap_or(b':');
                at += 2;
                while let Some(&inner) = bytes.get(at) {
                    at += 1;
                    if inner == kind && bytes.get(at) == Some(&b']') {
                        at += 1;
                        break;
                    }
                }
            }
            _ => at += 1,
        }
    }
    bytes.len()
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

// ------------------------------------------------------------------------------- terminals

/// kitty's remote control (`kitty @ CMD`, `kitten @ CMD`): `launch [options] PROG ARGS` opens a
/// window running the program, `send-text [options] TEXT` types the text into a window's shell
/// (read as the commands it types: a later `\r` runs what is typed). launch's options all take
/// a value but the flags listed.
fn kitty_remote(args: &[Field]) -> Vec<Nested> {
    const FLAGS: &[&str] = &[
        "--hold",
        "--keep-focus",
        "--dont-take-focus",
        "--copy-env",
        "--copy-cmdline",
        "--copy-colors",
        "--no-response",
        "--self",
        "--allow-remote-control",
        "--match-tab",
        "--bias",
        "--stdin-add-formatting",
        "--stdin-add-line-wrap-markers",
        "--all",
        "--bracketed-paste",
    ];
    let rest = match args {
        [at, rest @ ..] if at.text == "@" => rest,
        _ => return Vec::new(),
    };
    let Some((verb, rest)) = rest.split_first() else {
        return Vec::new();
    };
    let mut index = 0;
    while let Some(arg) = rest.get(index) {
        if arg.text == "--" {
            index += 1;
            break;
        }
        if !arg.text.starts_with('-') {
            break;
        }
        let flag = FLAGS.contains(&arg.text.as_str()) || arg.text.contains('=');
        index += if flag { 1 } else { 2 };
    }
    let operands = rest.get(index..).unwrap_or(&[]);
    match verb.text.as_str() {
        "launch" | "new-window" if !operands.is_empty() => vec![Nested::Command {
            fields: operands.to_vec(),
            origin: Origin::ShellString,
        }],
        "send-text" if !operands.is_empty() => vec![typed_text(operands)],
        _ => Vec::new(),
    }
}

/// `wezterm cli send-text [options] [TEXT]`: the text typed into a pane's shell (see
/// [`kitty_remote`]); without it, stdin's.
fn wezterm_send_text(args: &[Field]) -> Vec<Nested> {
    let start = options_end(args, &[], &["config", "config-file"]);
    let rest = args.get(start..).unwrap_or(&[]);
    let [cli, verb, rest @ ..] = rest else {
        return Vec::new();
    };
    if cli.text != "cli" || verb.text != "send-text" {
        return Vec::new();
    }
    let start = options_end(rest, &[], &["pane-id"]);
    match rest.get(start..) {
        Some(text) if !text.is_empty() => vec![typed_text(text)],
        _ => vec![Nested::Stdin],
    }
}

/// Text typed into a terminal's shell, its escapes (`\r`, `\n`, as kitty and WezTerm read
/// them) line breaks: the commands it runs.
fn typed_text(words: &[Field]) -> Nested {
    let Nested::Script { text, origin } = joined(words, Origin::ShellString) else {
        return joined(words, Origin::ShellString);
    };
    let text = text
        .replace("\\r", "\n")
        .replace("\\n", "\n")
        .replace("\\x0d", "\n");
    Nested::Script { text, origin }
}

// ---------------------------------------------------------------------------------------- git

/// git's ways to run commands: the settings of its `-c` options that run one
/// ([`git_config_commands`]), and its subcommands' ([`git_subcommand`]).
fn git(args: &[Field]) -> Vec<Nested> {
    let start = options_end(args, GIT_GLOBAL_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE);
    let mut found = git_config_commands(args.get(..start).unwrap_or(&[]), &['C'], None);
    found.extend(git_subcommand(args.get(start..).unwrap_or(&[])));
    found
}

/// The commands `git -c KEY=VALUE` (among git's leading options `globals`) hands to a shell
/// (see [`git_setting_command`]); `git clone -c KEY=VALUE` / `--config` writes the same into
/// the new repository, where the clone's own checkout runs them. `valued` lists the other short
/// options that take a value, `long` the long form of `-c`.
fn git_config_commands(args: &[Field], valued: &[char], long: Option<&str>) -> Vec<Nested> {
    option_texts(args, Some('c'), valued, long)
        .into_iter()
        .filter_map(|(setting, dynamic)| {
            let (key, value) = setting.split_once('=')?;
            git_setting_command(key, value, dynamic)
        })
        .collect()
}

/// The command a git setting hands to a shell, given with `-c`, to `git clone`, or stored by
/// `git config KEY VALUE` for every later git command: the programs git runs from its
/// configuration (`core.fsmonitor`, `core.sshCommand`, `core.pager`, `core.editor`,
/// `sequence.editor`, `diff.external`, `diff.<driver>.textconv`, `filter.<driver>.smudge` and
/// `.clean`, `merge.<driver>.driver`, `difftool.<tool>.cmd`, `pager.<cmd>`), and `!` aliases
/// and credential helpers (`credential.<url>.helper` too). The baseline asks for any of them
/// (`git-dangerous-config`); what they run is judged too, so `git -c alias.x='!rm -rf ~' x` is
/// the removal it runs.
fn git_setting_command(key: &str, value: &str, dynamic: bool) -> Option<Nested> {
    let key = key.to_ascii_lowercase();
    // `section.name` and `section.<subsection>.name`: the first and last parts.
    let section = key.split('.').next().unwrap_or_default();
    let name = key.rsplit('.').next().unwrap_or_default();
    match (section, name) {
        ("core", "fsmonitor" | "sshcommand" | "pager" | "editor")
        | ("sequence", "editor")
        | ("diff", "external" | "textconv" | "command")
        | ("filter", "smudge" | "clean" | "process")
        | ("merge", "driver")
        | ("difftool" | "mergetool", "cmd")
        | ("pager", _) => (!value.trim().is_empty())
            .then(|| script_or_dynamic(value.to_owned(), dynamic, Origin::ShellString)),
        ("alias", _) | ("credential", "helper") => bang_command(value, dynamic),
        _ => None,
    }
}

/// What `git config KEY VALUE` (`args` after `config`) stores for every later git command to
/// run (see [`git_setting_command`]).
fn git_config_set(args: &[Field]) -> Option<Nested> {
    let (key, value) = crate::argv::git_config_set(args)?;
    let value = value?;
    git_setting_command(&key.text, &value.text, value.dynamic)
}

/// The commands git's subcommand runs, `args` starting at the subcommand: `rebase -x CMD` /
/// `--exec CMD` (a shell script per commit), `submodule foreach CMD…` (a shell script per
/// submodule), `bisect run CMD ARGS…` (an argv), `difftool -x CMD` / `--extcmd CMD` and
/// `grep -O CMD` / `--open-files-in-pager=CMD`.
fn git_subcommand(args: &[Field]) -> Vec<Nested> {
    let Some((sub, rest)) = args.split_first() else {
        return Vec::new();
    };
    match sub.text.as_str() {
        "rebase" => option_values(rest, Some('x'), &['s', 'X', 'C'], Some("exec")),
        // The program run for the other side of a transfer (locally, for a local or `ext::`
        // remote, and for `ssh` remotes on the far end).
        "clone" => {
            let mut found =
                option_values(rest, Some('u'), GIT_CLONE_SHORT_VALUE, Some("upload-pack"));
            found.extend(git_config_commands(
                rest,
                &['o', 'b', 'u', 'j'],
                Some("config"),
            ));
            found
        }
        "config" => git_config_set(rest).into_iter().collect(),
        "fetch" | "pull" | "ls-remote" => {
            option_values(rest, None, &['j', 'o'], Some("upload-pack"))
        }
        "push" => {
            let mut found = option_values(rest, None, &['o'], Some("receive-pack"));
            found.extend(option_values(rest, None, &['o'], Some("exec")));
            found
        }
        "archive" => option_values(rest, None, &['o'], Some("exec")),
        "difftool" => option_values(rest, Some('x'), &['t', 'y'], Some("extcmd")),
        // `-O` takes its value attached only (`-Ovim`); alone it opens the default pager.
        "grep" => option_values(
            rest,
            Some('O'),
            &['e', 'f', 'm', 'A', 'B', 'C'],
            Some("open-files-in-pager"),
        ),
        "submodule" | "submodule--helper" => {
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
            vec![joined(command, Origin::ShellString)]
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

/// tar's short options that take a value, which end a flag cluster.
const TAR_VALUED: &[char] = &[
    'f', 'C', 'T', 'X', 'b', 'H', 'K', 'L', 'N', 'V', 'g', 'I', 'F',
];

/// The commands GNU tar runs: a compressor (`-I CMD`, `--use-compress-program`), volume scripts
/// (`-F CMD`, `--info-script`, `--new-volume-script`), `--to-command`, `--rsh-command` and a
/// checkpoint's `exec=CMD` action, each run by a shell.
fn tar(args: &[Field]) -> Vec<Nested> {
    let mut found = option_values(args, Some('I'), TAR_VALUED, Some("use-compress-program"));
    found.extend(option_values(
        args,
        Some('F'),
        TAR_VALUED,
        Some("info-script"),
    ));
    for long in ["new-volume-script", "to-command", "rsh-command"] {
        found.extend(option_values(args, None, TAR_VALUED, Some(long)));
    }
    found.extend(
        option_texts(args, None, TAR_VALUED, Some("checkpoint-action"))
            .into_iter()
            .filter_map(|(action, dynamic)| {
                let command = action.strip_prefix("exec=")?;
                Some(script_or_dynamic(
                    command.to_owned(),
                    dynamic,
                    Origin::ShellString,
                ))
            }),
    );
    found
}

/// zip's test command: `-TT CMD`, `-TTCMD`, `--unzip-command CMD` (run by a shell with `-T`).
fn zip(args: &[Field]) -> Vec<Nested> {
    let mut found = option_values(args, None, &[], Some("unzip-command"));
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let Some(attached) = arg.text.strip_prefix("-TT") else {
            continue;
        };
        let value = if attached.is_empty() {
            iter.next().map(|field| (field.text.clone(), field.dynamic))
        } else {
            Some((attached.to_owned(), arg.dynamic))
        };
        if let Some((text, dynamic)) = value {
            found.push(script_or_dynamic(text, dynamic, Origin::ShellString));
        }
    }
    found
}

/// ssh's short options that take a value, which end a flag cluster.
const SSH_VALUED: &[char] = &[
    'B', 'b', 'c', 'D', 'E', 'e', 'F', 'I', 'i', 'J', 'L', 'l', 'm', 'O', 'o', 'p', 'Q', 'R', 'S',
    'W', 'w',
];

/// scp's and sftp's short options that take a value.
const SCP_VALUED: &[char] = &[
    'B', 'b', 'c', 'D', 'F', 'i', 'J', 'l', 'o', 'P', 'R', 'S', 'X',
];

/// What ssh runs: the commands its `-o` options name (`ProxyCommand`, `LocalCommand`, …), run
/// here, and the command given after the destination, run by the remote user's shell (a
/// deletion there is one all the same, and what it prints comes back to the agent). Nothing
/// after the destination is a command with `-N`, `-s` (a subsystem) or `-W`.
fn ssh(args: &[Field]) -> Vec<Nested> {
    let mut found = ssh_options(args, SSH_VALUED);
    let start = options_end(args, SSH_VALUED, &[]);
    // A flag in a cluster, up to the option that takes the rest as its value
    // (`-oStrictHostKeyChecking=no` holds no `-s`).
    let no_command = args.get(..start).unwrap_or_default().iter().any(|arg| {
        let Some(cluster) = arg.text.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            return false;
        };
        for flag in cluster.chars() {
            if matches!(flag, 'N' | 's' | 'W') {
                return true;
            }
            if SSH_VALUED.contains(&flag) {
                break;
            }
        }
        false
    });
    // OpenSSH reads options after the destination too (`ssh host -v cmd`).
    let rest = args.get(start + 1..).unwrap_or_default();
    let command = rest
        .get(options_end(rest, SSH_VALUED, &[])..)
        .unwrap_or_default();
    // The remote shell starts in the home directory: `ssh host cat .ssh/id_rsa` reads
    // `~/.ssh/id_rsa`.
    if !no_command && !command.is_empty() {
        found.push(Nested::InDir {
            dir: "~".to_owned(),
            nested: Box::new(joined(command, Origin::ShellString)),
        });
    }
    found
}

/// The commands named by ssh's, scp's or sftp's `-o KEY=VALUE` (or `-o 'KEY VALUE'`) options.
fn ssh_options(args: &[Field], valued: &[char]) -> Vec<Nested> {
    const KEYS: &[&str] = &[
        "proxycommand",
        "localcommand",
        "knownhostscommand",
        "remotecommand",
    ];
    option_texts(args, Some('o'), valued, None)
        .into_iter()
        .filter_map(|(option, dynamic)| {
            let (key, value) = option.split_once(|c: char| c == '=' || c.is_whitespace())?;
            KEYS.iter()
                .any(|known| key.trim().eq_ignore_ascii_case(known))
                .then(|| script_or_dynamic(value.trim().to_owned(), dynamic, Origin::ShellString))
        })
        .collect()
}

/// The shell commands in AppleScript's `do shell script "…"` (and Terminal's `do script "…"`);
/// one whose command is not a plain string literal (`do shell script x & y`) is only known at
/// run time.
fn apple_shell_scripts(code: &str, dynamic: bool) -> Vec<Nested> {
    let mut found = Vec::new();
    let mut rest = code;
    // Terminal's `do script "…"` runs its text in a new shell too.
    let next = |text: &str| {
        ["do shell script", "do script"]
            .iter()
            .filter_map(|phrase| Some((text.find(phrase)?, phrase.len())))
            .min()
    };
    while let Some((at, len)) = next(rest) {
        let after = rest.get(at + len..).unwrap_or("");
        let literal = after.trim_start().strip_prefix('"').and_then(|text| {
            let mut command = String::new();
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => return Some((command, chars.as_str())),
                    '\\' => command.push(chars.next()?),
                    c => command.push(c),
                }
            }
            None
        });
        match literal {
            // A literal followed by `&` is joined with something else at run time.
            Some((command, tail)) if !tail.trim_start().starts_with('&') => {
                found.push(script_or_dynamic(command, dynamic, Origin::ShellString));
                rest = tail;
            }
            _ => {
                found.push(Nested::Dynamic(format!("do shell script{after}")));
                rest = after;
            }
        }
    }
    found
}

/// PowerShell given its code inline (`-Command`, `-c`, `-EncodedCommand`, `-ec`, `-e`) and
/// cmd given a line (`/c`, `/k`): the POSIX script the PowerShell front end makes of it (see
/// [`super::powershell`]); code only known at run time, or that the front end cannot read, is
/// dynamic. A script file (`-File x.ps1`) is like `bash x.sh`.
fn windows_shell(program: &str, args: &[Field], budget: &Budget) -> Vec<Nested> {
    let literal: Option<Vec<&str>> = args
        .iter()
        .map(|arg| (!arg.dynamic).then_some(arg.text.as_str()))
        .collect();
    if let Some(text) =
        literal.and_then(|args| super::powershell::invocation_to_posix(program, &args, budget))
    {
        return vec![Nested::Script {
            text,
            origin: Origin::ShellString,
        }];
    }
    let cmd = program.starts_with("cmd");
    let inline = args.iter().any(|arg| {
        let option = arg.text.to_ascii_lowercase();
        let option = option.trim_start_matches(['-', '/']);
        arg.text.starts_with(['-', '/'])
            && !option.is_empty()
            && if cmd {
                option == "c" || option == "k"
            } else {
                "command".starts_with(option)
                    || "encodedcommand".starts_with(option)
                    || option == "ec"
            }
    });
    let language = if cmd { "cmd" } else { "PowerShell" };
    if inline {
        vec![Nested::Dynamic(format!("{language} code"))]
    } else {
        Vec::new()
    }
}

/// `reg`, `schtasks` and `sc` as the PowerShell front end reads them (`reg add …\Run` is
/// `crontab -`); a word only known at run time stands as it is written (`reg add
/// 'HKCU\…\Run' /d "$P"` still names the Run key).
fn windows_native(program: &str, args: &[Field], budget: &Budget) -> Vec<Nested> {
    let texts: Vec<&str> = args.iter().map(|arg| arg.text.as_str()).collect();
    super::powershell::invocation_to_posix(program, &texts, budget)
        .map(|text| Nested::Script {
            text,
            origin: Origin::ShellString,
        })
        .into_iter()
        .collect()
}

/// The command `docker exec [OPTIONS] CONTAINER CMD …` (or `docker container exec`, podman's,
/// nerdctl's) runs in the container: judged as if run here, as ssh's remote command is (a
/// container's `rm -rf /` is still a production outage).
fn container_exec(args: &[Field]) -> Vec<Nested> {
    const EXEC_SHORT: &[char] = &['e', 'u', 'w'];
    const EXEC_LONG: &[&str] = &["env", "env-file", "user", "workdir", "detach-keys"];
    let Some(rest) = container_subcommand(args, &["exec"]) else {
        return Vec::new();
    };
    // The options, then the container, then the command.
    let command = rest
        .get(options_end(rest, EXEC_SHORT, EXEC_LONG) + 1..)
        .unwrap_or_default();
    in_container(command)
}

/// The command a container started with bind mounts of host paths runs (`docker run -v
/// "$PWD":/w alpine rm -rf /w/.claude`; `create`, podman's, nerdctl's, compose's `run`, a
/// swarm's `service create`),
/// judged as if run here where it reaches the host through a mount: each mount's target is read
/// as its source wherever the command's words name it (`/w/.claude` is `$PWD/.claude`, in a `sh
/// -c` script too; `--entrypoint` is its program), and a working directory inside a mount (`-w
/// /w`) is the source there. A command that names no mount and runs outside them acts on the
/// container's own files and is left alone, as a container without mounts is.
fn mounted_command(program: &str, args: &[Field]) -> Vec<Nested> {
    let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
    let parsed = container_run(&texts)
        .or_else(|| compose_run(program, &texts))
        .or_else(|| service_create(&texts));
    let Some(parsed) = parsed else {
        return Vec::new();
    };
    let mut mounts: Vec<(&str, &str)> = container_binds(&parsed)
        .into_iter()
        .filter_map(|bind| {
            let target = bind.target?.trim_end_matches('/');
            target.starts_with('/').then_some((target, bind.source))
        })
        .collect();
    if mounts.is_empty() {
        return Vec::new();
    }
    // The innermost mount first.
    mounts.sort_by_key(|(target, _)| std::cmp::Reverse(target.len()));
    // The image or service, then the command, end the arguments.
    let command_at = args.len() + 1 - parsed.operands.len().max(1);
    let entrypoint = container_values(&parsed, None, "entrypoint").pop();
    let entrypoint = entrypoint.map(|program| Field {
        text: program.to_owned(),
        dynamic: program.contains('$'),
        valued: false,
    });
    let mut reached = false;
    let fields: Vec<Field> = entrypoint
        .into_iter()
        .chain(args.get(command_at..).unwrap_or_default().iter().cloned())
        .map(|field| match through_mounts(&field.text, &mounts) {
            // A source such as `$PWD` is a place the reader of the text knows.
            Some(text) => {
                reached = true;
                Field { text, ..field }
            }
            None => field,
        })
        .collect();
    let workdir = container_values(&parsed, Some('w'), "workdir").pop();
    let dir = workdir.and_then(|dir| through_mounts(dir, &mounts));
    if fields.is_empty() || !(reached || dir.is_some()) {
        return Vec::new();
    }
    let nested = Nested::Command {
        fields,
        origin: Origin::Wrapper,
    };
    vec![match dir {
        Some(dir) => Nested::InDir {
            dir,
            nested: Box::new(nested),
        },
        None => nested,
    }]
}

/// `text` with each mount's target (`mounts`: target, source; the innermost first) read as its
/// source where it names a path: at the start or after a blank, a quote or a shell operator, and
/// followed by a `/`, the end or such a mark (`cd /w && rm -rf /w/x`, `--out=/w/x`). `None`
/// where it names none. In a text that may be a script (it holds a blank, a quote or an
/// operator: `sh -c 'rm -rf /w/x'`), a source with blanks or quotes is written quoted, so that
/// the script's words hold it whole (see [`quoted_source`]).
fn through_mounts(text: &str, mounts: &[(&str, &str)]) -> Option<String> {
    const MARKS: &str = "'\"`=:;|&()<> \t\n";
    let script = text.contains(|c: char| MARKS.contains(c) && !"=:".contains(c));
    let mut out = String::with_capacity(text.len());
    let mut reached = false;
    let mut rest = text;
    let mut before: Option<char> = None;
    // The quote the scan is inside, as a script's reader would see it.
    let mut quote: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        let at_start = before.is_none_or(|before| MARKS.contains(before));
        let mount = mounts.iter().find(|(target, _)| {
            rest.strip_prefix(*target).is_some_and(|after| {
                after
                    .chars()
                    .next()
                    .is_none_or(|c| c == '/' || MARKS.contains(c))
            })
        });
        if let Some((target, source)) = mount.filter(|_| at_start) {
            rest = rest.get(target.len()..).unwrap_or("");
            let source = source.trim_end_matches('/');
            match script {
                true => out.push_str(&quoted_source(source, quote)),
                false => out.push_str(source),
            }
            if source.is_empty() && !rest.starts_with('/') {
                out.push('/');
            }
            reached = true;
            before = Some('/');
            continue;
        }
        quote = match (quote, c) {
            (None, '\'' | '"') if before != Some('\\') => Some(c),
            (Some(open), _) if open == c && (open == '\'' || before != Some('\\')) => None,
            (quote, _) => quote,
        };
        out.push(c);
        before = Some(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    reached.then_some(out)
}

/// A mount's source as a script's words hold it whole inside `quote` (none, `'` or `"`): as it
/// is when it has no blank or quote, else in double quotes (closing and reopening single ones),
/// which keep its `$PWD` an expansion.
fn quoted_source(source: &str, quote: Option<char>) -> String {
    if !source.contains(|c: char| c.is_whitespace() || "'\"\\`".contains(c)) {
        return source.to_owned();
    }
    let mut escaped = String::with_capacity(source.len() + 4);
    for c in source.chars() {
        if "\"\\`".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    match quote {
        Some('"') => escaped,
        Some(_) => format!("'\"{escaped}\"'"),
        None => format!("\"{escaped}\""),
    }
}

/// The command `kubectl exec POD [flags] -- CMD …` (and `oc exec`, LXD's and Incus's `lxc|incus
/// exec INSTANCE -- CMD`) runs in the pod or instance: the words after `--`, judged as if run
/// here.
fn pod_exec(args: &[Field]) -> Vec<Nested> {
    let before_dash = args.iter().take_while(|arg| arg.text != "--");
    if !before_dash.into_iter().any(|arg| arg.text == "exec") {
        return Vec::new();
    }
    in_container(after_dash(args))
}

/// The words after the first `--`: the command `lxc-attach -n C -- CMD`, `schroot -c CHROOT --
/// CMD` and `distrobox enter NAME -- CMD` run in their container or chroot, which share the
/// host's home and project more often than not.
fn after_dash(args: &[Field]) -> &[Field] {
    args.iter()
        .position(|arg| arg.text == "--")
        .and_then(|dash| args.get(dash + 1..))
        .unwrap_or_default()
}

/// The command `ddev exec [-s SERVICE] [-d DIR] CMD …` runs in the project's web container, where
/// the project is mounted and the working directory: judged as if run here.
fn ddev_exec(args: &[Field]) -> Vec<Nested> {
    match args.split_first() {
        Some((sub, rest)) if sub.text == "exec" => {
            let start = options_end(rest, &['s', 'd'], &["service", "dir"]);
            in_container(rest.get(start..).unwrap_or_default())
        }
        _ => Vec::new(),
    }
}

/// `cmake -E COMMAND ARGS`, CMake's portable command-line tools, as the command each one is:
/// `copy` is `cp`, `remove_directory` is `rm -rf`, `chdir DIR CMD` is `env -C DIR CMD`, `env`
/// is `env`, and so on. Options before `-E` are cmake's own (`cmake -E` must come first, but
/// reading later ones errs on the side of seeing more).
fn cmake_tool(args: &[Field]) -> Vec<Nested> {
    let Some(at) = args.iter().position(|arg| arg.text == "-E") else {
        return Vec::new();
    };
    let Some((tool, rest)) = args.get(at + 1..).and_then(<[Field]>::split_first) else {
        return Vec::new();
    };
    let (program, options): (&str, &[&str]) = match tool.text.as_str() {
        "cat" => ("cat", &[]),
        "copy" | "copy_if_different" | "copy_if_newer" => ("cp", &[]),
        "copy_directory" | "copy_directory_if_different" | "copy_directory_if_newer" => {
            ("cp", &["-r"])
        }
        "rename" => ("mv", &[]),
        "rm" => ("rm", &[]),
        "remove" => ("rm", &["-f"]),
        "remove_directory" => ("rm", &["-rf"]),
        "make_directory" => ("mkdir", &["-p"]),
        "touch" | "touch_nocreate" => ("touch", &[]),
        "create_symlink" => ("ln", &["-s"]),
        "create_hardlink" => ("ln", &[]),
        "tar" => ("tar", &[]),
        "env" => ("env", &[]),
        "chdir" => ("env", &["-C"]),
        "time" => ("env", &[]),
        "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" => {
            (tool.text.as_str(), &[])
        }
        _ => return Vec::new(),
    };
    let fields = [program]
        .iter()
        .chain(options)
        .map(|text| Field {
            text: (*text).to_owned(),
            dynamic: false,
            valued: false,
        })
        .chain(rest.iter().cloned())
        .collect();
    vec![Nested::Command {
        fields,
        origin: Origin::Wrapper,
    }]
}

/// nodemon's short options with a value besides `-x`/`--exec`, whose value is a shell command.
const NODEMON_VALUED: &[char] = &['w', 'e', 'i', 'd', 'V', 's', 'C'];

/// hyperfine's options whose value is a shell command, short and long.
const HYPERFINE_COMMANDS: &[(Option<char>, &str)] = &[
    (Some('s'), "setup"),
    (Some('p'), "prepare"),
    (Some('c'), "cleanup"),
    (None, "conclude"),
    (None, "reference"),
];

/// hyperfine's other options with a value, with how many words each takes.
const HYPERFINE_VALUED: &[(&str, usize)] = &[
    ("-w", 1),
    ("--warmup", 1),
    ("-m", 1),
    ("--min-runs", 1),
    ("-M", 1),
    ("--max-runs", 1),
    ("-r", 1),
    ("--runs", 1),
    ("-S", 1),
    ("--shell", 1),
    ("-P", 3),
    ("--parameter-scan", 3),
    ("-D", 1),
    ("--parameter-step-size", 1),
    ("-L", 2),
    ("--parameter-list", 2),
    ("--style", 1),
    ("--sort", 1),
    ("-u", 1),
    ("--time-unit", 1),
    ("--export-asciidoc", 1),
    ("--export-csv", 1),
    ("--export-json", 1),
    ("--export-markdown", 1),
    ("--export-orgmode", 1),
    ("-n", 1),
    ("--command-name", 1),
    ("--output", 1),
    ("--input", 1),
    ("--min-benchmarking-time", 1),
];

/// The shell commands hyperfine benchmarks: each operand, and the values of `--setup`,
/// `--prepare`, `--cleanup`, `--conclude` and `--reference`.
fn hyperfine(args: &[Field]) -> Vec<Nested> {
    let valued: Vec<char> = HYPERFINE_COMMANDS
        .iter()
        .filter_map(|(short, _)| *short)
        .chain(
            HYPERFINE_VALUED
                .iter()
                .filter_map(|(option, _)| option.strip_prefix('-')?.chars().next())
                .filter(|c| *c != '-'),
        )
        .collect();
    let mut found: Vec<Nested> = HYPERFINE_COMMANDS
        .iter()
        .flat_map(|(short, long)| option_values(args, *short, &valued, Some(long)))
        .collect();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        let text = arg.text.as_str();
        if text == "--" {
            found.extend(
                args.get(at..).unwrap_or(&[]).iter().map(|arg| {
                    script_or_dynamic(arg.text.clone(), arg.dynamic, Origin::ShellString)
                }),
            );
            break;
        }
        if let Some((_, words)) = HYPERFINE_VALUED.iter().find(|(option, _)| *option == text) {
            at += words;
        } else if HYPERFINE_COMMANDS.iter().any(|(short, long)| {
            text.strip_prefix("--") == Some(long)
                || short.is_some_and(|short| text == format!("-{short}"))
        }) {
            at += 1;
        } else if !text.starts_with('-') {
            found.push(script_or_dynamic(
                text.to_owned(),
                arg.dynamic,
                Origin::ShellString,
            ));
        }
    }
    cap(found, MAX_FOUND)
}

fn in_container(command: &[Field]) -> Vec<Nested> {
    if command.is_empty() {
        return Vec::new();
    }
    vec![Nested::Command {
        fields: command.to_vec(),
        origin: Origin::Wrapper,
    }]
}

/// The shell commands in gdb's `-ex CMD` and `-iex CMD` (`--eval-command`,
/// `--init-eval-command`; gdb takes its long options with one dash or two): `!cmd` and `shell
/// cmd` run a shell command; `python …` runs code the analysis does not read. After `--args`,
/// the program it runs and its arguments.
fn gdb(args: &[Field]) -> Vec<Nested> {
    const EVAL: [&str; 4] = ["ex", "eval-command", "iex", "init-eval-command"];
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        // `--args PROG ARGS`: the program gdb runs, with its arguments.
        if arg.text == "--args" || arg.text == "-args" {
            found.extend(in_container(args.get(at..).unwrap_or(&[])));
            break;
        }
        let option = arg.text.trim_start_matches('-');
        if !arg.text.starts_with('-') {
            continue;
        }
        let command = match option.split_once('=') {
            Some((name, value)) if EVAL.contains(&name) => value.to_owned(),
            None if EVAL.contains(&option) => match args.get(at) {
                Some(value) => {
                    at += 1;
                    value.text.clone()
                }
                None => break,
            },
            _ => continue,
        };
        let command = command.trim_start();
        let (word, rest) = command.split_once(' ').unwrap_or((command, ""));
        if let Some(nested) = bang_command(command, arg.dynamic) {
            found.push(nested);
        } else if word == "shell" && !rest.trim().is_empty() {
            let shell = rest.trim().to_owned();
            found.push(script_or_dynamic(shell, arg.dynamic, Origin::ShellString));
        } else if matches!(
            word,
            "python" | "py" | "pi" | "python-interactive" | "guile"
        ) {
            found.push(Nested::Dynamic(command.to_owned()));
        }
    }
    found
}

/// vim's short options that take a value. `-s` types the keys of a file in, but in Ex mode
/// (`ex`, or after `-e`/`-E`) it is silent mode and takes none (`vim -es -c CMD`).
const VIM_VALUED: [char; 9] = ['S', 'T', 'u', 'i', 'w', 'W', 's', 't', 'q'];

/// How deep `:execute` strings are read (`exe "exe '!id'"`); deeper is only known at run time.
const MAX_EXECUTE_DEPTH: usize = 4;

/// The shell commands in vim's `-c CMD`, `--cmd CMD` and `+CMD` Ex commands (see
/// [`ex_commands`]).
fn vim(name: &str, args: &[Field], budget: &Budget) -> Vec<Nested> {
    let ex_mode = name == "ex"
        || args.iter().take_while(|arg| arg.text != "--").any(|arg| {
            arg.text
                .strip_prefix('-')
                .is_some_and(|cluster| !cluster.starts_with('-') && cluster.contains(['e', 'E']))
        });
    let valued: Vec<char> = VIM_VALUED
        .into_iter()
        .filter(|flag| !(ex_mode && *flag == 's'))
        .collect();
    let mut commands: Vec<(String, bool)> = args
        .iter()
        .filter_map(|arg| Some((arg.text.strip_prefix('+')?.to_owned(), arg.dynamic)))
        .collect();
    commands.extend(option_texts(args, Some('c'), &valued, Some("cmd")));
    commands
        .iter()
        .flat_map(|(command, dynamic)| ex_commands(command, *dynamic, budget, 0))
        .collect()
}

/// What an Ex command line runs: a shell command (see [`ex_shell`]), behind any command
/// modifiers (`:silent !cmd`, `:sil! keepalt r !cmd`); the code of a language interface
/// (`:lua`, `:py3`, `:perl`, `:ruby`, `:tcl` and their `…do` forms), read as the interpreter's
/// `-e`/`-c` code is; the text of an `:execute` of literal strings (`exe "!" . "id"`), read
/// again, or only known at run time when it holds anything else; and the commands after an
/// unquoted `|` (`:set nocp | !id`).
fn ex_commands(command: &str, dynamic: bool, budget: &Budget, depth: usize) -> Vec<Nested> {
    let command = without_ex_modifiers(command.trim_start_matches([':', ' ', '\t']));
    let (word, rest) = ex_word(command);
    if let Some((program, flag)) = ex_language(word) {
        let code = rest.trim();
        if code.is_empty() || code.starts_with("<<") {
            return Vec::new();
        }
        if dynamic {
            return vec![Nested::Dynamic(command.to_owned())];
        }
        let args = [flag.to_owned(), code.to_owned()];
        let mut found = super::interp::nested(program, &args, None, budget);
        // Neovim's Lua calls vimscript's functions as `vim.fn.NAME(…)`.
        if program == "lua" && code.contains("vim.fn.") {
            found.extend(
                vimscript::calls(&code.replace("vim.fn.", ""))
                    .into_iter()
                    .map(vim_nested(code, false)),
            );
        }
        return found;
    }
    if word.len() >= 3 && "execute".starts_with(word) {
        return match vim_strings(rest) {
            Some(text) if depth < MAX_EXECUTE_DEPTH => {
                ex_commands(&text, dynamic, budget, depth + 1)
            }
            _ => vec![Nested::Dynamic(command.to_owned())],
        };
    }
    if let Some(nested) = ex_shell(command, dynamic) {
        return vec![nested];
    }
    // Vimscript's calls and Ex's file commands, in this command up to its `|`.
    let this = match ex_bar(command) {
        Some(after) => command
            .get(..command.len() - after.len() - 1)
            .unwrap_or(command),
        None => command,
    };
    let mut found: Vec<Nested> = vimscript::calls(this)
        .into_iter()
        .chain(vimscript::file_command(this).map(vimscript::Vim::Shell))
        .map(vim_nested(this, dynamic))
        .collect();
    let normal = word.len() >= 4 && "normal".starts_with(word);
    if normal {
        // Keys typed in: an Ex command (`:` to a typed Enter) runs, as typed in an `:execute`
        // string (`exe "normal :!id\<CR>"`).
        let keys = rest.strip_prefix('!').unwrap_or(rest);
        let mut lines: Vec<&str> = keys.split(['\r', '\n']).collect();
        lines.pop();
        return lines
            .into_iter()
            .filter_map(|line| line.split_once(':').map(|(_, typed)| typed))
            .filter(|_| depth < MAX_EXECUTE_DEPTH)
            .flat_map(|typed| ex_commands(typed, dynamic, budget, depth + 1))
            .collect();
    }
    // `:global` and `:autocmd` take a `|` as part of their argument.
    let takes_bar = word.starts_with('g') && "global".starts_with(word)
        || word.len() >= 2 && "autocmd".starts_with(word);
    if let Some(after) = ex_bar(command)
        && !takes_bar
        && depth < MAX_EXECUTE_DEPTH
        && budget.burn_text(after)
    {
        found.extend(ex_commands(after, dynamic, budget, depth + 1));
    }
    found
}

/// What a vimscript call of the Ex command `command` runs (see [`vimscript`]).
fn vim_nested(command: &str, dynamic: bool) -> impl Fn(vimscript::Vim) -> Nested + '_ {
    move |vim| match vim {
        vimscript::Vim::Shell(text) => script_or_dynamic(text, dynamic, Origin::ShellString),
        vimscript::Vim::Unknown => Nested::Dynamic(command.to_owned()),
    }
}

/// An Ex command's name (letters, after a count or range digits) and what follows it.
fn ex_word(command: &str) -> (&str, &str) {
    let command = command.trim_start_matches(|c: char| c.is_ascii_digit());
    let end = command
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(command.len());
    command.split_at(end)
}

/// The Ex command modifiers, each with the shortest abbreviation vim takes.
const EX_MODIFIERS: &[(&str, usize)] = &[
    ("silent", 3),
    ("unsilent", 3),
    ("verbose", 4),
    ("noautocmd", 3),
    ("keepalt", 5),
    ("keepjumps", 5),
    ("keepmarks", 3),
    ("keeppatterns", 5),
    ("lockmarks", 3),
    ("aboveleft", 3),
    ("belowright", 3),
    ("botright", 2),
    ("topleft", 2),
    ("vertical", 4),
    ("horizontal", 3),
    ("tab", 3),
    ("confirm", 4),
    ("browse", 3),
    ("hide", 3),
    ("legacy", 3),
    ("vim9cmd", 4),
];

/// The command after the modifiers in front of it (`:silent! keepalt !id` → `!id`).
fn without_ex_modifiers(mut command: &str) -> &str {
    loop {
        let (word, rest) = ex_word(command);
        let modifier = EX_MODIFIERS
            .iter()
            .any(|(name, shortest)| word.len() >= *shortest && name.starts_with(word));
        if !modifier {
            return command;
        }
        command = rest.strip_prefix('!').unwrap_or(rest).trim_start();
    }
}

/// The interpreter and its code option for a vim language interface command.
fn ex_language(word: &str) -> Option<(&'static str, &'static str)> {
    match word {
        "lua" | "luado" => Some(("lua", "-e")),
        "py" | "python" | "py3" | "python3" | "pyx" | "pythonx" | "pydo" | "py3do" | "pyxdo" => {
            Some(("python3", "-c"))
        }
        "pe" | "per" | "perl" | "perld" | "perldo" => Some(("perl", "-e")),
        "rub" | "ruby" | "rubyd" | "rubydo" => Some(("ruby", "-e")),
        "tcl" | "tcld" | "tcldo" => Some(("expect", "-c")),
        _ => None,
    }
}

/// What follows the first `|` outside quotes that is not escaped (`\|`), which ends an Ex
/// command.
fn ex_bar(command: &str) -> Option<&str> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in command.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (_, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '|') => return command.get(at + 1..),
            _ => {}
        }
    }
    None
}

/// The text of a vimscript expression that is only string and number literals joined by `.` or
/// `..` (`"!" . 'id'`): `'…'` as written (`''` a quote), `"…"` with its backslash escapes and
/// key names (`"\<CR>"`). `None` for any other expression.
fn vim_strings(expression: &str) -> Option<String> {
    let mut text = String::new();
    let mut rest = expression.trim_start();
    loop {
        let end = vim_literal(rest, &mut text)?;
        rest = rest.get(end..)?.trim_start();
        if rest.is_empty() {
            return Some(text);
        }
        rest = rest
            .strip_prefix("..")
            .or_else(|| rest.strip_prefix('.'))?
            .trim_start();
    }
}

/// Appends the text of the vimscript literal `rest` begins with (see [`vim_strings`]) to `text`;
/// the byte where the literal ends, or `None` when it begins with none.
fn vim_literal(rest: &str, text: &mut String) -> Option<usize> {
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits > 0 {
        text.push_str(rest.get(..digits)?);
        return Some(digits);
    }
    let mut chars = rest.char_indices();
    let quote = chars
        .next()
        .map(|(_, c)| c)
        .filter(|c| matches!(c, '\'' | '"'))?;
    let mut escaped = false;
    let mut pending_quote = false;
    let mut key: Option<String> = None;
    for (at, c) in chars {
        if pending_quote {
            pending_quote = false;
            if c == '\'' {
                text.push('\'');
                continue;
            }
            return Some(at);
        }
        if let Some(name) = key.as_mut() {
            if c == '>' {
                text.push_str(key_text(name));
                key = None;
            } else {
                name.push(c);
            }
            continue;
        }
        match c {
            '<' if escaped => {
                escaped = false;
                key = Some(String::new());
            }
            _ if escaped => {
                escaped = false;
                text.push(match c {
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'e' => '\u{1b}',
                    other => other,
                });
            }
            '\\' if quote == '"' => escaped = true,
            '\'' if quote == '\'' => pending_quote = true,
            '"' if quote == '"' => return Some(at + 1),
            other => text.push(other),
        }
    }
    pending_quote.then_some(rest.len())
}

/// The text of a key vim names in a `"\<…>"` string: Enter for `CR`, `Enter`, `Return` and
/// `NL`, Escape for `Esc`, nothing for others.
fn key_text(name: &str) -> &'static str {
    match name.to_ascii_lowercase().as_str() {
        "cr" | "enter" | "return" | "nl" => "\r",
        "esc" => "\u{1b}",
        _ => "",
    }
}

/// The shell command an Ex command runs: `!cmd`, `:!cmd`, a filter (`%!cmd`, `.,$!cmd`),
/// `r !cmd`, `w !cmd` and `:terminal cmd` (the calls of `system()` and the like are
/// [`vimscript::calls`]).
fn ex_shell(command: &str, dynamic: bool) -> Option<Nested> {
    let command = command.trim_start_matches([':', ' ']);
    let after_range = command.trim_start_matches(|c: char| {
        c.is_ascii_digit() || matches!(c, '%' | '.' | '$' | ',' | '\'' | '<' | '>' | ' ')
    });
    // `:r !cmd` and `:r!cmd` read a command's output; `:w !cmd` writes to one, but `:w! file`
    // forces a write.
    let read = ["read", "r"]
        .iter()
        .find_map(|word| after_range.strip_prefix(word))
        .map(str::trim_start);
    let write = ["write", "w"]
        .iter()
        .find_map(|word| after_range.strip_prefix(word))
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .map(str::trim_start);
    let after_word = read.or(write).unwrap_or(after_range);
    if let Some(nested) = bang_command(after_word, dynamic) {
        return Some(nested);
    }
    // `:terminal CMD` (`:ter`, `:term`, …) runs CMD in a terminal window.
    if let Some((word, shell)) = after_range.split_once(' ')
        && word.len() >= 3
        && "terminal".starts_with(word)
        && !shell.trim().is_empty()
    {
        return Some(script_or_dynamic(
            shell.trim().to_owned(),
            dynamic,
            Origin::ShellString,
        ));
    }
    None
}

/// `!cmd` as the shell command `cmd` (less's and vim's shell escape).
fn bang_command(command: &str, dynamic: bool) -> Option<Nested> {
    let shell = command.strip_prefix('!')?.trim();
    (!shell.is_empty()).then(|| script_or_dynamic(shell.to_owned(), dynamic, Origin::ShellString))
}

/// The shell commands given to a subcommand's option (see [`option_texts`]).
fn option_values(
    args: &[Field],
    short: Option<char>,
    valued: &[char],
    long: Option<&str>,
) -> Vec<Nested> {
    option_texts(args, short, valued, long)
        .into_iter()
        .map(|(text, dynamic)| script_or_dynamic(text, dynamic, Origin::ShellString))
        .collect()
}

/// The values, and whether each holds a run-time expansion, of an option `-SHORT VALUE`,
/// `-SHORTVALUE` (also at the end of a flag cluster: `-qx CMD`), `--LONG VALUE`, `--LONG=VALUE`,
/// or a prefix of `--LONG`. `valued` lists the other short options that take a value, which end
/// a cluster. Empty values are left out.
pub(super) fn option_texts(
    args: &[Field],
    short: Option<char>,
    valued: &[char],
    long: Option<&str>,
) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if text == "--" {
            break;
        }
        let value = if let Some(name) = text.strip_prefix("--") {
            match name.split_once('=') {
                Some((name, value)) if long.is_some_and(|long| long_option_matches(name, long)) => {
                    Some((value.to_owned(), arg.dynamic))
                }
                None if long.is_some_and(|long| long_option_matches(name, long)) => {
                    iter.next().map(|field| (field.text.clone(), field.dynamic))
                }
                _ => None,
            }
        } else if let Some(cluster) = text.strip_prefix('-') {
            let flag = cluster
                .char_indices()
                .find(|(_, flag)| Some(*flag) == short || valued.contains(flag));
            match flag {
                Some((at, flag)) if Some(flag) == short => {
                    let rest = cluster.get(at + flag.len_utf8()..).unwrap_or("");
                    if !rest.is_empty() {
                        Some((rest.to_owned(), arg.dynamic))
                    } else if flag == 'O' {
                        None
                    } else {
                        iter.next().map(|field| (field.text.clone(), field.dynamic))
                    }
                }
                // Another option's value: attached, or the next argument.
                Some((at, flag)) => {
                    if cluster.get(at + flag.len_utf8()..).unwrap_or("").is_empty() {
                        iter.next();
                    }
                    None
                }
                None => None,
            }
        } else {
            None
        };
        if let Some(value) = value.filter(|(value, _)| !value.is_empty()) {
            found.push(value);
        }
    }
    found
}

/// apt's short options that take a value (apt-get's `-c`, `-t`, `-a`; aptitude's `-F`, `-w`,
/// `-S`, `-O` too).
const APT_VALUED: &[char] = &['a', 'c', 'F', 'O', 'S', 't', 'w'];

/// apt's configuration lists of shell commands (apt.conf(5)), run with `sh -c` around an
/// update (`APT::Update::…`) or each run of dpkg (`DPkg::…`).
const APT_HOOKS: &[&str] = &[
    "apt::update::pre-invoke",
    "apt::update::post-invoke",
    "apt::update::post-invoke-success",
    "dpkg::pre-invoke",
    "dpkg::post-invoke",
    "dpkg::pre-install-pkgs",
];

/// The shell commands apt, apt-get and aptitude are given as hooks on the command line: `-o
/// KEY=CMD` or `--option KEY=CMD` for a key of [`APT_HOOKS`] (any case), set whole or as a list
/// item (`KEY::=CMD`, `KEY::name=CMD`). `-c FILE` names a configuration file, not read.
fn apt(args: &[Field]) -> Vec<Nested> {
    option_texts(args, Some('o'), APT_VALUED, Some("option"))
        .into_iter()
        .filter_map(|(option, dynamic)| {
            let (key, command) = option.split_once('=')?;
            let key = key.trim().to_ascii_lowercase();
            let hook = APT_HOOKS.iter().any(|hook| {
                key.strip_prefix(hook)
                    .is_some_and(|item| item.is_empty() || item.starts_with("::"))
            });
            hook.then(|| script_or_dynamic(command.to_owned(), dynamic, Origin::ShellString))
        })
        .collect()
}

/// rpm's short options that take a value (`-D`, `-E`, `-r`).
const RPM_VALUED: &[char] = &['D', 'E', 'r'];

/// What rpm, rpmbuild and rpmspec run of the macro text they are given: `--eval`/`-E`
/// expressions and `--define`/`-D` bodies (see [`rpm_macros`]), and `--pipe CMD`, rpm's output
/// piped to a shell command.
fn rpm(args: &[Field], budget: &Budget) -> Vec<Nested> {
    let mut texts = option_texts(args, Some('E'), RPM_VALUED, Some("eval"));
    texts.extend(option_texts(args, Some('D'), RPM_VALUED, Some("define")));
    let mut found: Vec<Nested> = texts
        .iter()
        .flat_map(|(text, dynamic)| rpm_macros(text, *dynamic, budget))
        .collect();
    found.extend(option_values(args, None, RPM_VALUED, Some("pipe")));
    found
}

/// The commands of rpm macro text: `%(CMD)` is shell text, only known at run time when it
/// expands macros of its own (rpm expands them first; `%%` is a `%`, see [`expands_macros`]); `%{lua:CODE}` is Lua code,
/// read as `lua -e CODE` is. Macros nested in others (`%{expand:%(…)}`) are found too.
fn rpm_macros(text: &str, dynamic: bool, budget: &Budget) -> Vec<Nested> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text.get(at..).and_then(|rest| rest.find('%')) {
        let start = at + offset;
        let after = text.get(start + 1..).unwrap_or("");
        at = start + 1;
        if after.starts_with('%') {
            at += 1;
        } else if after.starts_with('(') {
            let body = balanced(after, '(', ')');
            found.push(script_or_dynamic(
                body.replace("%%", "%"),
                dynamic || expands_macros(&body.replace("%%", "")),
                Origin::ShellString,
            ));
        } else if after.starts_with('{') {
            // Each macro is read to its end, a nested one again inside the one around it.
            let inner = balanced(after, '{', '}');
            if !budget.burn_text(inner) {
                break;
            }
            if let Some(code) = inner.strip_prefix("lua:") {
                let args = ["-e".to_owned(), code.to_owned()];
                found.extend(super::interp::nested("lua", &args, None, budget));
            }
        }
        if found.len() > MAX_FOUND {
            break;
        }
    }
    cap(found, MAX_FOUND)
}

/// Whether rpm expands a macro in `text` (`%%` taken out): `%{…}`, `%(…)`, `%[…]`, `%?name`,
/// `%!name`, or a name of three characters or more (rpm's shortest; `date +%s` keeps its `%s`).
fn expands_macros(text: &str) -> bool {
    text.split('%').skip(1).any(|after| {
        let name = after.trim_start_matches(['?', '!']);
        name.starts_with(['{', '(', '['])
            || name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .count()
                >= 3
    })
}

/// The text between `open`, which `text` starts with, and the `close` that balances it (the
/// rest of the text when none does).
fn balanced(text: &str, open: char, close: char) -> &str {
    let body = text.get(open.len_utf8()..).unwrap_or("");
    let mut depth = 1usize;
    let end = body.char_indices().find_map(|(at, c)| {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
        }
        (depth == 0).then_some(at)
    });
    body.get(..end.unwrap_or(body.len())).unwrap_or("")
}

fn script(text: &str) -> Nested {
    Nested::Script {
        text: text.to_owned(),
        origin: Origin::ShellString,
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
                valued: false,
            })
            .collect();
        let (program, args) = fields.split_first().expect("a program");
        nested(&program.text, args, &Budget::default())
            .into_iter()
            .map(describe)
            .collect()
    }

    pub(super) fn describe(nested: Nested) -> String {
        match nested {
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
            Nested::InDir { dir, nested } => format!("in {dir}: {}", describe(*nested)),
        }
    }

    #[test]
    fn commands_in_containers_reach_the_host_through_their_mounts() {
        let words = |line: &str| scripts(&line.split(' ').collect::<Vec<_>>());
        assert_eq!(
            words("docker run -v $PWD:/w alpine rm -rf /w/.claude"),
            ["argv: rm -rf $PWD/.claude"]
        );
        assert_eq!(
            scripts(&[
                "podman",
                "run",
                "--rm",
                "-v",
                "/:/host",
                "-v",
                ".:/src:Z",
                "-w",
                "/src/app",
                "--entrypoint",
                "sh",
                "fedora",
                "-c",
                "cd /host/etc && rm -rf x /srcx"
            ]),
            ["in ./app: argv: sh -c cd /etc && rm -rf x /srcx"]
        );
        assert_eq!(
            words("docker compose run --mount type=bind,src=~,dst=/h/ web cat --file=/h/.env"),
            ["argv: cat --file=~/.env"]
        );
        // Nothing of the host named, or no mount: the container's own files.
        for line in [
            "docker run -v $PWD:/w alpine rm -rf /var/cache",
            "docker run alpine rm -rf /",
            "docker run -v data:/w alpine rm -rf /w",
            "docker run -v $PWD:/w -w /tmp alpine make",
            "docker run -v $PWD:/w alpine",
        ] {
            assert!(words(line).is_empty(), "{line}");
        }
        // A source with blanks is quoted where the command's words are a script.
        let blank = |command: &[&str]| {
            let line = ["docker", "run", "-v", "$PWD/my dir:/w", "alpine"];
            scripts(&[&line[..], command].concat())
        };
        assert_eq!(
            blank(&["rm", "/w/.claude"]),
            ["argv: rm $PWD/my dir/.claude"]
        );
        assert_eq!(
            blank(&["sh", "-c", "rm -rf /w/.claude '/w/x' \"/w/y\""]),
            ["argv: sh -c rm -rf \"$PWD/my dir\"/.claude ''\"$PWD/my dir\"'/x' \"$PWD/my dir/y\""]
        );
        // A swarm service's command.
        assert_eq!(
            words(
                "docker service create --with-registry-auth --mount type=bind,src=.,dst=/w alpine rm -rf /w/.claude"
            ),
            ["argv: rm -rf ./.claude"]
        );
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
            [
                "sh",
                "dynamic: awk's output piped into a program that runs it"
            ]
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
    fn awk_red_team() {
        // Past the cap, the rest stands as unknown: no dangerous call hides behind 16 others.
        let many = format!(
            "BEGIN {{ {} system(\"rm -rf ~\") }}",
            "system(\"ls\");".repeat(16)
        );
        let found = scripts(&["awk", &many]);
        assert_eq!(found.len(), MAX_FOUND + 1);
        assert_eq!(
            found.last().unwrap(),
            "dynamic: more commands than the analysis follows"
        );
        // Octal and hex escapes.
        assert_eq!(
            scripts(&["awk", "BEGIN{system(\"rm -rf \\176\")}"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts(&["gawk", "BEGIN{system(\"rm -rf \\x7e\")}"]),
            ["rm -rf ~"]
        );
        // A `/` taken for the wrong thing: the raw count still sees the call.
        for program in [
            "NR\n/\"*/{system(\"rm -rf ~\")}",
            "{ x = i++ / 2; system(\"rm -rf ~\"); y = i / 1 }",
        ] {
            let found = scripts(&["gawk", program]);
            assert!(
                found
                    .iter()
                    .any(|f| f == "rm -rf ~" || f.starts_with("dynamic:")),
                "{program}: {found:?}"
            );
        }
        // Options that carry the program or take a value; indirect calls; program from stdin.
        assert_eq!(scripts(&["gawk", "--sourc=BEGIN{system(\"id\")}"]), ["id"]);
        assert_eq!(
            scripts(&["gawk", "-W", "source=BEGIN{system(\"id\")}"]),
            ["id"]
        );
        assert_eq!(
            scripts(&["mawk", "-W", "interactive", "BEGIN{system(\"id\")}"]),
            ["id"]
        );
        assert_eq!(
            scripts(&["gawk", "BEGIN{f=\"system\"; @f(\"rm -rf ~\")}"]),
            ["dynamic: awk's commands, where the scan lost its place"]
        );
        for file in ["-", "/dev/stdin", "<(…)"] {
            assert_eq!(
                scripts(&["awk", "-f", file, "x"]),
                ["dynamic: awk's program, read at run time"],
                "{file}"
            );
        }
        assert_eq!(
            scripts(&["awk", "{ print | \"/usr/bin/env bash\" }"]),
            [
                "/usr/bin/env bash",
                "dynamic: awk's output piped into a program that runs it"
            ]
        );
        assert_eq!(scripts(&["original-awk", "BEGIN{system(\"id\")}"]), ["id"]);
    }

    #[test]
    fn sed_red_team() {
        let pattern_space = "dynamic: the lines sed executes";
        // The delimiter inside a bracket expression, `v`, abbreviations, `--sandbox` as a file.
        assert_eq!(scripts(&["sed", "s/[/]/x/;1e rm -rf ~", "f"]), ["rm -rf ~"]);
        assert_eq!(
            scripts(&["sed", "s/[/]*/rm -rf ~/e", "f"]),
            ["rm -rf ~", pattern_space]
        );
        assert_eq!(scripts(&["sed", "v;1e rm -rf ~", "f"]), ["rm -rf ~"]);
        assert_eq!(scripts(&["sed", "--expr=1e id", "f"]), ["id"]);
        assert_eq!(
            scripts(&["sed", "-e", "1e id", "--", "--sandbox", "f"]),
            ["id"]
        );
        assert!(scripts(&["sed", "--sand", "-e", "1e id", "f"]).is_empty());
        // Options after operands (GNU getopt permutes them).
        assert_eq!(scripts(&["sed", "f", "-e", "1e id"]), ["id"]);
        assert_eq!(
            scripts(&["sed", "-f", "/dev/stdin", "f"]),
            ["dynamic: sed's script, read at run time"]
        );
        // Brackets that hold no delimiter are no trouble.
        assert!(scripts(&["sed", "s/[^/]*$/index.html/", "f"]).is_empty());
        assert!(scripts(&["sed", "-E", "s/[^/]+\\.tsx?$/index.ts/", "f"]).is_empty());
        assert!(scripts(&["sed", "s/[[:space:]]*$//", "f"]).is_empty());
    }

    #[test]
    fn awk_environment_listing() {
        let args = |list: &[&str]| list.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
        let lists = |name: &str, list: &[&str]| awk_lists_environment(name, &args(list));
        assert!(lists(
            "awk",
            &["BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}"]
        ));
        assert!(lists(
            "gawk",
            &["-F:", "BEGIN { for ( k in ENVIRON ) print k }"]
        ));
        assert!(lists("mawk", &["-e", "END{for (v in ENVIRON) print v}"]));
        assert!(!lists("awk", &["BEGIN{print ENVIRON[\"HOME\"]}"]));
        assert!(!lists("awk", &["BEGIN{if (\"CI\" in ENVIRON) print 1}"]));
        assert!(!lists("awk", &["-f", "prog.awk", "for (k in ENVIRON)"]));
        assert!(!lists("sed", &["for (k in ENVIRON)"]));
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
        assert_eq!(scripts(&["git", "rebase", "-qx", "id", "main"]), ["id"]);
        assert_eq!(scripts(&["git", "rebase", "--exe=id", "main"]), ["id"]);
        assert_eq!(scripts(&["git", "rebase", "--ex", "id", "main"]), ["id"]);
        assert_eq!(
            scripts(&["git", "rebase", "-s", "x", "main"]),
            Vec::<String>::new()
        );
        assert_eq!(
            scripts(&["git", "submodule--helper", "foreach", "id"]),
            ["id"]
        );
        assert_eq!(
            scripts(&["git", "difftool", "--extcmd=rm -rf ~"]),
            ["rm -rf ~"]
        );
        assert_eq!(scripts(&["git", "grep", "-Orm -rf ~", "x"]), ["rm -rf ~"]);
        assert!(scripts(&["git", "grep", "-O", "x"]).is_empty());
        assert!(scripts(&["git", "rebase", "-i", "main"]).is_empty());
        assert!(scripts(&["git", "log", "-x"]).is_empty());
    }

    /// Asserts what each argv runs.
    fn check(cases: &[(&[&str], &[&str])]) {
        for (argv, expected) in cases {
            assert_eq!(scripts(argv), *expected, "{argv:?}");
        }
    }

    #[test]
    fn options_that_name_commands() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["tar", "-xf", "a.tar", "--to-command=sh x"], &["sh x"]),
            (
                &["tar", "--checkpoint-action", "exec=id", "-cf", "x", "y"],
                &["id"],
            ),
            (&["tar", "--checkpoint-action=echo", "-cf", "x", "y"], &[]),
            (&["tar", "-cvzf", "out.tgz", "src"], &[]),
            (&["tar", "-xIzstd", "-f", "x"], &["zstd"]),
            (&["zip", "-T", "-TTid", "x.zip", "y"], &["id"]),
            (&["ssh", "-oProxyCommand=nc %h %p", "host"], &["nc %h %p"]),
            (&["ssh", "-o", "LocalCommand id", "host"], &["id"]),
            (
                &["ssh", "-p", "22", "host", "-v", "ls", "-la"],
                &["in ~: ls -la"],
            ),
            (&["ssh", "-N", "-L", "1:h:2", "host"], &[]),
            (&["ssh", "-s", "host", "sftp"], &[]),
            (
                &["ssh", "-oStrictHostKeyChecking=no", "host", "id"],
                &["in ~: id"],
            ),
            (&["ssh", "-iNkey", "host", "id"], &["in ~: id"]),
            (&["ssh", "-qW", "h:22", "jump"], &[]),
            (&["scp", "-S", "id", "a", "b:"], &["id"]),
            (
                &["rsync", "-avz", "-e", "ssh -p 2", "a", "b:"],
                &["ssh -p 2"],
            ),
            (&["man", "--pager=id", "ls"], &["id"]),
            (&["git", "clone", "-u", "id", "r"], &["id"]),
            (&["git", "push", "--receive-pack=id", "o"], &["id"]),
        ];
        check(cases);
    }

    #[test]
    fn benchmarkers_watchers_and_debuggers_run_their_commands() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["hyperfine", "-w", "3", "id", "ls -l"], &["id", "ls -l"]),
            (
                &["hyperfine", "--prepare", "make clean", "make"],
                &["make clean", "make"],
            ),
            (
                &[
                    "hyperfine",
                    "-P",
                    "n",
                    "1",
                    "3",
                    "-L",
                    "x",
                    "a,b",
                    "sleep {n}",
                ],
                &["sleep {n}"],
            ),
            (&["nodemon", "-w", "src", "--exec", "id"], &["id"]),
            (&["nodemon", "src/index.js"], &[]),
            (
                &["gdb", "-batch", "-ex", "run", "--args", "rm", "x"],
                &["argv: rm x"],
            ),
        ];
        check(cases);
    }

    #[test]
    fn cmake_tools_are_their_commands() {
        let cases: &[(&[&str], &[&str])] = &[
            (
                &["cmake", "-E", "remove_directory", "d"],
                &["argv: rm -rf d"],
            ),
            (&["cmake", "-E", "copy", "a", "b"], &["argv: cp a b"]),
            (
                &["cmake", "-E", "chdir", "d", "make", "x"],
                &["argv: env -C d make x"],
            ),
            (&["cmake", "-E", "env", "A=1", "id"], &["argv: env A=1 id"]),
            (&["cmake", "-E", "capabilities"], &[]),
            (&["cmake", "--build", "build"], &[]),
        ];
        check(cases);
    }

    #[test]
    fn shell_escapes_of_editors_and_pagers() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["vim", "-c", ":!id"], &["id"]),
            (&["vim", "+.,$!sort"], &["sort"]),
            (&["vim", "-c", "r!id"], &["id"]),
            (&["vim", "-c", "w !id"], &["id"]),
            (&["vim", "-c", "w! out"], &["printf %s \"$X\" > out"]),
            (&["vim", "--cmd", "term id"], &["id"]),
            (&["vim", "-c", "set termguicolors"], &[]),
            (&["vim", "-c", "%s/a!/b/"], &[]),
            (&["vim", "-c", "call system('id')"], &["id"]),
            (
                &["vim", "-c", "call system(cmd)"],
                &["dynamic: call system(cmd)"],
            ),
            (&["vim", "-c", "!"], &[]),
            // `-es` is silent Ex mode: its `s` takes no value.
            (&["vim", "-es", "-c", "!id"], &["id"]),
            (&["vim", "-E", "-s", "-c", "!id"], &["id"]),
            (&["ex", "-s", "-c", "!id"], &["id"]),
            (&["vim", "-s", "-c", "!id"], &[]),
            // Modifiers, `|`, `:execute` and `:normal`'s typed Ex commands.
            (&["vim", "-c", "sil! keepalt !id"], &["id"]),
            (&["vim", "-c", "set nocp | 3verbose !id"], &["id"]),
            (&["vim", "-c", "%s/a\\|b/c/ | w"], &[]),
            (&["vim", "-c", "exe '!' . \"id\""], &["id"]),
            (&["vim", "-c", "exe \"exe '!id'\""], &["id"]),
            (&["vim", "-c", "exe \"normal gg:!id\\<CR>\""], &["id"]),
            (&["vim", "-c", "normal :!id"], &[]),
            (&["vim", "-c", "exe \"set ts=\" . 4"], &[]),
            (&["vim", "-c", "exe '!' . cmd"], &["dynamic: exe '!' . cmd"]),
            (&["vim", "-c", "g/x/d|!id"], &[]),
            // Language interfaces run their code as the interpreter's `-e`/`-c` does.
            (&["nvim", "+lua os.execute('id')"], &["id"]),
            (&["vim", "-c", "py3 import os; os.system('id')"], &["id"]),
            (&["vim", "-c", "perldo system('id')"], &["id"]),
            (&["vim", "-c", "py3 print(1)"], &[]),
            (&["vim", "-c", "é!"], &[]),
            (&["less", "+!id", "f"], &["id"]),
            (&["less", "+G", "f"], &[]),
        ];
        check(cases);
    }

    #[test]
    fn applescript_and_powershell() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["osascript", "-e", "do shell script \"id\""], &["id"]),
            (
                &["osascript", "-e", "do shell script \"echo \\\"a\\\"\""],
                &["echo \"a\""],
            ),
            (
                &["osascript", "-e", "do shell script \"a\" & b"],
                &["dynamic: do shell script \"a\" & b"],
            ),
            (
                &["osascript", "-e", "do shell script \"unterminated"],
                &["dynamic: do shell script \"unterminated"],
            ),
            (
                &["osascript", "-e", "do shell script \"a\\"],
                &["dynamic: do shell script \"a\\"],
            ),
            (
                &[
                    "osascript",
                    "-e",
                    "do script \"ls\" in w",
                    "-e",
                    "do shell script \"id\"",
                ],
                &["ls", "id"],
            ),
            (&["osascript", "-e", "beep"], &[]),
            (&["osascript", "script.scpt"], &[]),
            (&["pwsh", "-c", "x"], &["{ x\n}"]),
            (
                &["powershell.exe", "/Command", "gc", "a"],
                &["{ cat -- a\n}"],
            ),
            (
                &["pwsh", "-c", "[Reflection.Assembly]::Load('a')"],
                &["dynamic: PowerShell code"],
            ),
            // Not UTF-16 text.
            (&["pwsh", "-ec", "eA=="], &["dynamic: PowerShell code"]),
            (&["cmd.exe", "//c", "type a"], &["{ cat -- a\n}"]),
            (&["cmd", "/c", "[x]::y()"], &["dynamic: cmd code"]),
            (&["cmd", "/d"], &[]),
            (&["pwsh", "-File", "x.ps1"], &[]),
        ];
        check(cases);
    }

    #[test]
    fn apt_hooks() {
        for argv in [
            &[
                "apt-get",
                "-o",
                "APT::Update::Pre-Invoke::=rm -rf ~",
                "update",
            ][..],
            &[
                "apt-get",
                "-oAPT::Update::Post-Invoke-Success::=rm -rf ~",
                "update",
            ],
            &[
                "apt",
                "--option",
                "dpkg::post-invoke=rm -rf ~",
                "install",
                "jq",
            ],
            &[
                "aptitude",
                "--option=DPkg::Pre-Install-Pkgs::x=rm -rf ~",
                "install",
            ],
            &[
                "apt-get",
                "-t",
                "-o",
                "-o",
                "DPkg::Pre-Invoke=rm -rf ~",
                "install",
            ],
        ] {
            assert_eq!(scripts(argv), ["rm -rf ~"], "{argv:?}");
        }
        for argv in [
            &["apt-get", "install", "-y", "jq"][..],
            &["apt-get", "-o", "Acquire::Retries=3", "update"],
            &[
                "apt-get",
                "-o",
                "DPkg::Options::=--force-confdef",
                "install",
            ],
            &[
                "apt-get",
                "-o",
                "DPkg::Pre-Invoke-Extra=rm -rf ~",
                "install",
            ],
            &["apt-get", "-c", "-oDPkg::Pre-Invoke=x", "update"],
        ] {
            assert!(scripts(argv).is_empty(), "{argv:?}");
        }
    }

    #[test]
    fn rpm_macros_that_run_commands() {
        for argv in [
            &["rpm", "--eval", "%(rm -rf ~)"][..],
            &["rpm", "-E", "%{lua:os.execute('rm -rf ~')}"],
            &["rpm", "-E%{lua: os.execute(\"rm -rf ~\") }"],
            &[
                "rpmbuild",
                "--define",
                "x %{expand:%(rm -rf ~)}",
                "-ba",
                "x.spec",
            ],
            &["rpm", "-D", "x %(rm -rf (~))", "-qa"],
            &["rpm", "-qa", "--pipe", "rm -rf ~"],
        ] {
            let found = scripts(argv);
            assert_eq!(found.len(), 1, "{argv:?}: {found:?}");
            assert!(
                found.iter().all(|f| f.starts_with("rm -rf ")),
                "{argv:?}: {found:?}"
            );
        }
        assert_eq!(scripts(&["rpm", "-E", "%(date +%%s)"]), ["date +%s"]);
        assert_eq!(scripts(&["rpm", "-E", "%(date +%Y%m%d)"]), ["date +%Y%m%d"]);
        assert_eq!(
            scripts(&["rpm", "-E", "%(ls %_libdir)"]),
            ["dynamic: ls %_libdir"]
        );
        assert_eq!(
            scripts(&["rpm", "-E", "%(rm -rf %{_libdir})"]),
            ["dynamic: rm -rf %{_libdir}"]
        );
        for argv in [
            &["rpm", "-qa"][..],
            &["rpm", "--eval", "%{_libdir}"],
            &["rpm", "--eval", "%%(rm -rf ~)"],
            &["rpm", "--eval", "%{lua: print(1)}"],
            &["rpm", "-q", "--qf", "%(rm -rf ~)", "bash"],
        ] {
            assert!(scripts(argv).is_empty(), "{argv:?}");
        }
    }
}
