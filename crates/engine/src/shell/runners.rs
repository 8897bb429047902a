//! Programs that run commands written in their own syntax: tmux's commands, whose shell
//! commands run in a session out of sight (`tmux new -d 'cmd'`, `tmux send-keys 'cmd' Enter`),
//! make's recipes given on the command line or on stdin (`make -f - <<EOF`,
//! `make --eval=$'x:\n\tcmd'`), the shell escapes of database clients' scripts (psql's `\!`,
//! mysql's `system`, sqlite3's and duckdb's `.shell`, output piped to a command) given as
//! arguments or on stdin, and ed's `!cmd` in the commands on its stdin.
//!
//! Each yields [`Nested`] scripts or argvs for the walker. A makefile named on the command line
//! (or the project's own `Makefile`), and a script given by name (`psql -f x.sql`), is a file
//! toolgate does not read, like any script file; one the same command line wrote is run by the
//! walk, as is the file of another task runner ([`task_files`]: just, Task, rake, invoke, …).
//!
//! This module must not parse shell text; the walker does that.

use super::Origin;
use super::embedded::{cap, option_texts};
use super::exec::{Nested, PROCESS_SUBSTITUTION_READ, is_stdin_path, joined, script_or_dynamic};
use super::interp::{path_quote, quote};
use super::wrappers::Field;
use crate::argv::{Parsed, options_end};

mod make_variables;
mod patches;
mod task_files;

pub(super) use make_variables::MakeVariables;
pub(super) use patches::{applied as applied_patch, patch_file};
pub(super) use task_files::{TaskFile, justfile_commands, task_files, taskfile_commands};

/// tmux's own options that take a value (`tmux -L sock new …`); `-c` runs a shell command.
const TMUX_SHORT_ARG: &[char] = &['c', 'f', 'L', 'S', 'T'];

/// What a tmux command does with its arguments, as far as running things goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TmuxKind {
    /// Runs its trailing arguments: one is shell text, several an argv (`new-session`).
    Trailing,
    /// `run-shell`: its arguments are shell text (a tmux command with `-C`).
    RunShell,
    /// `if-shell`: a shell condition, then tmux commands.
    IfShell,
    /// `send-keys`: keys typed into the pane's shell.
    SendKeys,
    /// `source-file`: tmux commands from files, `-` being stdin.
    SourceFile,
    /// `set-hook`: a tmux command after the hook's name.
    SetHook,
    /// `bind-key`: a tmux command, with its arguments, after the key.
    BindKey,
}

/// tmux's commands that run something, with their aliases and the short options of each that
/// take a value (tmux(1)).
const TMUX_COMMANDS: &[(&str, &str, TmuxKind, &[char])] = &[
    (
        "new-session",
        "new",
        TmuxKind::Trailing,
        &['c', 'e', 'f', 'F', 'n', 's', 't', 'x', 'y'],
    ),
    (
        "new-window",
        "neww",
        TmuxKind::Trailing,
        &['c', 'e', 'F', 'n', 't'],
    ),
    (
        "split-window",
        "splitw",
        TmuxKind::Trailing,
        &['c', 'e', 'l', 't', 'F'],
    ),
    (
        "respawn-pane",
        "respawnp",
        TmuxKind::Trailing,
        &['c', 'e', 't'],
    ),
    (
        "respawn-window",
        "respawnw",
        TmuxKind::Trailing,
        &['c', 'e', 't'],
    ),
    (
        "display-popup",
        "popup",
        TmuxKind::Trailing,
        &['b', 'c', 'd', 'e', 'h', 's', 'S', 't', 'T', 'w', 'x', 'y'],
    ),
    ("pipe-pane", "pipep", TmuxKind::Trailing, &['t']),
    ("run-shell", "run", TmuxKind::RunShell, &['c', 'd', 't']),
    ("if-shell", "if", TmuxKind::IfShell, &['t']),
    ("send-keys", "send", TmuxKind::SendKeys, &['c', 'N', 't']),
    ("source-file", "source", TmuxKind::SourceFile, &['t']),
    ("set-hook", "", TmuxKind::SetHook, &['t']),
    ("bind-key", "bind", TmuxKind::BindKey, &['N', 'T']),
];

/// The commands a name given to tmux may be: the command it names or is the alias of, else any
/// command it is a prefix of (tmux takes a unique prefix; an ambiguous one fails, so reading it
/// as each command it could be only ever sees more).
fn tmux_commands(given: &str) -> Vec<(TmuxKind, &'static [char])> {
    let exact: Vec<_> = TMUX_COMMANDS
        .iter()
        .filter(|(name, alias, ..)| given == *name || (!alias.is_empty() && given == *alias))
        .collect();
    let found = if exact.is_empty() && !given.is_empty() {
        TMUX_COMMANDS
            .iter()
            .filter(|(name, ..)| name.starts_with(given))
            .collect()
    } else {
        exact
    };
    found
        .into_iter()
        .map(|(_, _, kind, valued)| (*kind, *valued))
        .collect()
}

/// Key names `send-keys` turns into the end of a line (compared ignoring case).
const ENTER_KEYS: &[&str] = &["Enter", "C-m", "C-j", "^M", "^J", "KPEnter"];

/// What `tmux ARGS` runs: the shell command of `-c`, and of each command in the list (commands
/// are separated by `;`, alone or ending an argument): `new-session`, `new-window`,
/// `split-window`, `respawn-*`, `display-popup` and `pipe-pane` run their trailing arguments (one
/// argument is shell text, several an argv, as tmux runs them), `run-shell` its shell text;
/// `if-shell` its condition and its commands, `set-hook` and `bind-key` theirs, `source-file -`
/// those on stdin (each handed back as `tmux …` for the walker to split); `send-keys` types its
/// keys into a shell, a line at each Enter or newline.
pub(super) fn tmux(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let origin = Origin::Wrapper;
    let start = options_end(args, TMUX_SHORT_ARG, &[]);
    let head = args.get(..start).unwrap_or(&[]);
    let mut runs: Vec<Nested> = shell_option(head, TMUX_SHORT_ARG, 'c')
        .map(|field| script_or_dynamic(field.text.clone(), field.dynamic, origin))
        .into_iter()
        .collect();
    for command in tmux_list(args.get(start..).unwrap_or(&[])) {
        let Some((name, rest)) = command.split_first() else {
            continue;
        };
        for (kind, valued) in tmux_commands(&name.text) {
            let operands = rest.get(options_end(rest, valued, &[])..).unwrap_or(&[]);
            let flag = |flag: char| has_short(rest, valued, flag);
            let tmux_text = |field: &Field| {
                script_or_dynamic(format!("tmux {}", field.text), field.dynamic, origin)
            };
            match kind {
                TmuxKind::Trailing => runs.extend(match operands {
                    [] => None,
                    [one] => Some(script_or_dynamic(one.text.clone(), one.dynamic, origin)),
                    many => Some(Nested::Command {
                        fields: many.to_vec(),
                        origin,
                    }),
                }),
                TmuxKind::RunShell if flag('C') => runs.extend(operands.first().map(tmux_text)),
                TmuxKind::RunShell if !operands.is_empty() => {
                    runs.push(joined(operands, origin));
                }
                TmuxKind::IfShell => {
                    let (condition, commands) = operands.split_first().unzip();
                    if !flag('F') {
                        runs.extend(
                            condition.map(|c| script_or_dynamic(c.text.clone(), c.dynamic, origin)),
                        );
                    }
                    runs.extend(commands.unwrap_or(&[]).iter().map(tmux_text));
                }
                TmuxKind::SetHook => runs.extend(operands.get(1).map(tmux_text)),
                TmuxKind::BindKey => {
                    if let Some(command) = operands.get(1..).filter(|c| !c.is_empty()) {
                        let tmux = Field {
                            text: "tmux".to_owned(),
                            dynamic: false,
                            valued: false,
                        };
                        let mut fields = vec![tmux];
                        fields.extend(command.iter().cloned());
                        runs.push(Nested::Command { fields, origin });
                    }
                }
                TmuxKind::SourceFile if operands.iter().any(|f| f.text == "-") => {
                    runs.extend(
                        stdin
                            .into_iter()
                            .flat_map(str::lines)
                            .map(|line| script_or_dynamic(format!("tmux {line}"), false, origin)),
                    );
                }
                TmuxKind::SendKeys => runs.extend(typed_lines(rest, valued, origin)),
                TmuxKind::RunShell | TmuxKind::SourceFile => {}
            }
        }
    }
    runs
}

/// tmux's command list split into its commands: at a `;` argument, or after an argument that
/// ends in `;` (`'true;' send-keys …`), that `;` dropped.
fn tmux_list(args: &[Field]) -> Vec<Vec<Field>> {
    let mut commands = vec![Vec::new()];
    for arg in args {
        let ends = arg.text.ends_with(';') && !arg.text.ends_with("\\;");
        let text = if ends {
            arg.text.trim_end_matches(';')
        } else {
            arg.text.as_str()
        };
        if !text.is_empty()
            && let Some(current) = commands.last_mut()
        {
            current.push(Field {
                text: text.to_owned(),
                dynamic: arg.dynamic,
                valued: arg.valued,
            });
        }
        if ends {
            commands.push(Vec::new());
        }
    }
    commands
}

/// Whether a short flag is among the leading options of `args` (`valued` take a value).
fn has_short(args: &[Field], valued: &[char], flag: char) -> bool {
    let head = args.get(..options_end(args, valued, &[])).unwrap_or(&[]);
    let strings: Vec<String> = head.iter().map(|f| f.text.clone()).collect();
    Parsed::new(&strings, valued, &[]).shorts.contains(&flag)
}

/// The value of the short option `flag` among `head`, as the argument it came in.
fn shell_option(head: &[Field], valued: &[char], flag: char) -> Option<Field> {
    let mut iter = head.iter();
    while let Some(arg) = iter.next() {
        let Some(cluster) = arg.text.strip_prefix('-') else {
            continue;
        };
        for (at, given) in cluster.char_indices() {
            if !valued.contains(&given) {
                continue;
            }
            let rest = cluster.get(at + given.len_utf8()..).unwrap_or("");
            let value = if rest.is_empty() {
                iter.next().cloned()
            } else {
                Some(Field {
                    text: rest.to_owned(),
                    dynamic: arg.dynamic,
                    valued: arg.valued,
                })
            };
            if given == flag {
                return value;
            }
            break;
        }
    }
    None
}

/// `send-keys [options] KEY…`: the lines the keys type, each ended by an Enter key or a
/// newline in the text (a line left without one is typed but not run). With `-l` every key is
/// literal text; with `-H` each is a character's hexadecimal code.
fn typed_lines(args: &[Field], valued: &[char], origin: Origin) -> Vec<Nested> {
    let literal = has_short(args, valued, 'l');
    let hex = has_short(args, valued, 'H');
    let keys = args.get(options_end(args, valued, &[])..).unwrap_or(&[]);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut dynamic = false;
    let mut end_line = |line: &mut String, dynamic: &mut bool| {
        lines.push(script_or_dynamic(std::mem::take(line), *dynamic, origin));
        *dynamic = false;
    };
    for key in keys {
        let text = key.text.as_str();
        let decoded;
        let text = if hex {
            decoded = u8::from_str_radix(text, 16)
                .map_or(String::new(), |byte| char::from(byte).to_string());
            decoded.as_str()
        } else {
            text
        };
        if !literal
            && !hex
            && ENTER_KEYS
                .iter()
                .any(|enter| enter.eq_ignore_ascii_case(text))
        {
            end_line(&mut line, &mut dynamic);
        } else if !literal && !hex && text.eq_ignore_ascii_case("Space") {
            line.push(' ');
        } else {
            dynamic |= key.dynamic;
            for (at, part) in text.split(['\n', '\r']).enumerate() {
                if at > 0 {
                    end_line(&mut line, &mut dynamic);
                }
                line.push_str(part);
            }
        }
    }
    lines
}

/// screen's options that take a value (screen(1)).
const SCREEN_SHORT_ARG: &[char] = &['c', 'e', 'h', 'p', 's', 'S', 't', 'T', 'X'];

/// What `screen -X COMMAND` sends to a running session: `stuff TEXT` types the text into its
/// shell (a line at each newline or `^M`), `exec [FDPAT] CMD…` and `screen CMD…` run an argv.
/// A command started by screen itself is stripped as a wrapper's.
pub(super) fn screen(args: &[Field]) -> Vec<Nested> {
    let origin = Origin::Wrapper;
    let mut iter = args.iter();
    let mut command: Option<Vec<Field>> = None;
    while let Some(arg) = iter.next() {
        let Some(cluster) = arg.text.strip_prefix('-') else {
            continue;
        };
        if cluster.ends_with('X') && cluster.chars().all(char::is_alphabetic) {
            command = Some(iter.by_ref().cloned().collect());
            break;
        }
        if cluster
            .chars()
            .last()
            .is_some_and(|c| SCREEN_SHORT_ARG.contains(&c))
        {
            iter.next();
        }
    }
    let Some(command) = command else {
        return Vec::new();
    };
    match command.split_first() {
        Some((verb, rest)) if verb.text == "stuff" => rest
            .iter()
            .flat_map(|text| {
                let typed = text.text.replace("^M", "\n").replace("^J", "\n");
                let mut lines: Vec<&str> = typed.split(['\n', '\r']).collect();
                // The text after the last newline is typed but not run.
                lines.pop();
                lines
                    .into_iter()
                    .map(|line| script_or_dynamic(line.to_owned(), text.dynamic, origin))
                    .collect::<Vec<_>>()
            })
            .collect(),
        Some((verb, rest)) if verb.text == "exec" || verb.text == "screen" => {
            let skip = usize::from(
                verb.text == "exec"
                    && rest
                        .first()
                        .is_some_and(|first| first.text.starts_with(['.', '|', '!', ':'])),
            );
            let fields: Vec<Field> = rest.iter().skip(skip).cloned().collect();
            if fields.is_empty() {
                Vec::new()
            } else {
                vec![Nested::Command { fields, origin }]
            }
        }
        _ => Vec::new(),
    }
}

/// make's options that take a value.
const MAKE_SHORT_ARG: &[char] = &['f', 'C', 'I', 'o', 'W', 'E'];
const MAKE_LONG_ARG: &[&str] = &[
    "file",
    "makefile",
    "directory",
    "include-dir",
    "old-file",
    "assume-old",
    "new-file",
    "assume-new",
    "what-if",
    "eval",
];

/// What `make ARGS` runs of the makefile text it is given: `--eval TEXT` (`-E`), and the
/// makefile read from stdin (`-f -`, `-f /dev/stdin`) when the command line feeds it.
pub(super) fn make(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let parsed = Parsed::new(&strings, MAKE_SHORT_ARG, MAKE_LONG_ARG);
    // A run-time expansion in the text keeps its `$`, which reads as one of make's own.
    let mut texts: Vec<&str> = parsed.values(&['E'], &["eval"]);
    let files = parsed.values(&['f'], &["file", "makefile"]);
    if files
        .iter()
        .any(|file| matches!(*file, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"))
    {
        texts.extend(stdin);
    }
    // make reads the `--eval` texts, then the makefiles, as one makefile (`.RECIPEPREFIX` set
    // in one holds in the next).
    // What the command line's environment gives make is not known here.
    let mut runs = makefile_commands(&texts.join("\n"), &|_| true);
    // A makefile the command line makes at run time (`-f <(printf …)`, `-f /dev/fd/3`).
    runs.extend(
        files
            .iter()
            .filter(|file| {
                **file == PROCESS_SUBSTITUTION_READ
                    || (file.starts_with("/dev/fd/") && **file != "/dev/fd/0")
            })
            .map(|file| Nested::Dynamic(format!("make -f {file}"))),
    );
    runs
}

/// The makefiles `make ARGS` reads and the directories it changes to first: `-C DIR` (each
/// relative to the one before), `-f FILE` (relative to the last `-C`), or, without `-f`, the
/// names make looks for (`GNUmakefile`, `makefile`, `Makefile`, the first found). A makefile
/// read from stdin is [`make`]'s.
pub(super) fn makefiles(args: &[Field]) -> (Vec<String>, Vec<String>) {
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let parsed = Parsed::new(&strings, MAKE_SHORT_ARG, MAKE_LONG_ARG);
    let dirs = parsed.values(&['C'], &["directory"]);
    let mut files = parsed.values(&['f'], &["file", "makefile"]);
    if files.is_empty() {
        files = vec!["GNUmakefile", "makefile", "Makefile"];
    }
    files.retain(|file| !matches!(*file, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"));
    let owned = |texts: Vec<&str>| texts.into_iter().map(str::to_owned).collect();
    (owned(dirs), owned(files))
}

/// The shell commands of makefile text: each recipe line (after a tab; `@`, `-` and `+`
/// prefixes dropped; a line ending in `\` continued) and each `$(shell …)` call. make's `$$` is
/// the shell's `$`; a command that expands a make variable or function is only known at run
/// time, unless [`MakeVariables`] can tell its value (`set_outside(NAME)`: whether the command
/// line may have given NAME a value make sees; `set_outside("")`: any name).
pub(super) fn makefile_commands(text: &str, set_outside: &dyn Fn(&str) -> bool) -> Vec<Nested> {
    let variables = MakeVariables::read(text, set_outside);
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    let mut prefix = '\t';
    for line in text.lines() {
        if let Some(value) = recipe_prefix(line) {
            prefix = value.unwrap_or('\t');
            continued = false;
            continue;
        }
        let inline = (!line.starts_with(prefix))
            .then(|| inline_recipe(line))
            .flatten();
        if let Some(recipe) = line.strip_prefix(prefix).or(inline) {
            let recipe = if continued {
                recipe
            } else {
                recipe.trim_start_matches(['@', '-', '+', ' '])
            };
            match commands.last_mut().filter(|_| continued) {
                Some(last) => {
                    last.push('\n');
                    last.push_str(recipe);
                }
                None => commands.push(recipe.to_owned()),
            }
            continued = recipe.ends_with('\\');
        } else {
            continued = false;
        }
    }
    commands.extend(shell_calls(text));
    commands
        .into_iter()
        .filter(|command| !command.trim().is_empty())
        .map(|command| {
            let (script, expands) = variables.expand(&command, set_outside);
            script_or_dynamic(script, expands, Origin::ShellString)
        })
        .collect()
}

/// A `.RECIPEPREFIX` assignment: the character recipes start with from here on (none: a tab).
fn recipe_prefix(line: &str) -> Option<Option<char>> {
    let rest = line.trim_start().strip_prefix(".RECIPEPREFIX")?;
    let value = rest
        .trim_start()
        .trim_start_matches([':', ':', '?', '+'])
        .strip_prefix('=')?;
    Some(value.trim_start().chars().next())
}

/// The recipe written on a rule's own line, after a `;` (`x: ; rm -rf ~`); not in a variable
/// assignment (`X := a; b`).
fn inline_recipe(line: &str) -> Option<&str> {
    let colon = line.find(':')?;
    let after = line.get(colon + 1..)?;
    if after.starts_with(['=', ':']) || line.get(..colon)?.contains('=') {
        return None;
    }
    let semicolon = after.find(';')?;
    after.get(semicolon + 1..)
}

/// The text of every `$(shell …)` call (parentheses balanced).
fn shell_calls(text: &str) -> Vec<String> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("$(shell ") {
        let body = rest.get(at + "$(shell ".len()..).unwrap_or("");
        let mut depth = 1usize;
        let end = body.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        });
        let Some(end) = end else { break };
        calls.push(body.get(..end).unwrap_or("").to_owned());
        rest = body.get(end..).unwrap_or("");
    }
    calls
}

/// Most shell commands followed in one database client's or editor's script; past that, the
/// rest is only known at run time.
const MAX_SCRIPT_COMMANDS: usize = 16;

/// Shell commands found in texts a program runs, each with whether its text holds a run-time
/// expansion, as scripts the walker parses (capped at [`MAX_SCRIPT_COMMANDS`]).
fn shell_texts(found: Vec<(String, bool)>) -> Vec<Nested> {
    let runs = found
        .into_iter()
        .filter(|(command, _)| !command.trim().is_empty())
        .map(|(command, dynamic)| {
            script_or_dynamic(command.trim().to_owned(), dynamic, Origin::ShellString)
        })
        .collect();
    cap(runs, MAX_SCRIPT_COMMANDS)
}

/// The commands `scan` finds in each text, paired with the text's run-time flag.
fn scan_all(texts: &[(String, bool)], scan: fn(&str) -> Vec<String>) -> Vec<(String, bool)> {
    texts
        .iter()
        .flat_map(|(text, dynamic)| scan(text).into_iter().map(|found| (found, *dynamic)))
        .collect()
}

/// psql's short options that take a value (psql(1)).
const PSQL_SHORT_ARG: &[char] = &[
    'c', 'd', 'f', 'F', 'h', 'L', 'o', 'p', 'P', 'R', 'T', 'U', 'v',
];

/// What `psql ARGS` runs through a shell: what the meta-commands of each `-c` text (psql
/// takes several) run, and of the script on stdin when it reads one (no `-c` or `-f`, or
/// `-f -`); and `-o |CMD`, its output piped to a command.
pub(super) fn psql(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let mut texts = option_texts(args, Some('c'), PSQL_SHORT_ARG, Some("command"));
    let files = option_texts(args, Some('f'), PSQL_SHORT_ARG, Some("file"));
    let from_stdin = files
        .iter()
        .any(|(file, _)| file == "-" || is_stdin_path(file));
    if (texts.is_empty() && files.is_empty()) || from_stdin {
        texts.extend(stdin.map(|text| (text.to_owned(), false)));
    }
    let mut found = scan_all(&texts, psql_commands);
    found.extend(
        option_texts(args, Some('o'), PSQL_SHORT_ARG, Some("output"))
            .into_iter()
            .filter_map(|(output, dynamic)| Some((output.strip_prefix('|')?.to_owned(), dynamic))),
    );
    shell_texts(found)
}

/// The shell commands psql script text runs: `\! CMD`; `\o |CMD`, `\g |CMD` (`\gx`) and `\w
/// |CMD`, output piped to a command; text in backquotes among another meta-command's arguments
/// (`\set x `cmd``); and the program of `COPY … PROGRAM 'CMD'`. `\copy` runs that here; a plain
/// `COPY` has the server run it with `sh -c`, judged as if here, as ssh's remote command is (in
/// development the server is often this machine, and what it prints comes back to the agent).
fn psql_commands(text: &str) -> Vec<String> {
    let mut found = copy_programs(text);
    let mut rest = text;
    while found.len() <= MAX_SCRIPT_COMMANDS {
        let Some(at) = sql_backslash(rest) else {
            break;
        };
        let meta = rest.get(at + 1..).unwrap_or("");
        let (line, after) = meta.split_once('\n').unwrap_or((meta, ""));
        let name_len = if line.starts_with('!') {
            1
        } else {
            line.find(|c: char| !(c.is_ascii_alphanumeric() || c == '+'))
                .unwrap_or(line.len())
        };
        let name = line.get(..name_len).unwrap_or("");
        let args = line.get(name_len..).unwrap_or("");
        rest = after;
        match name {
            "!" => found.push(args.to_owned()),
            "o" | "out" | "g" | "gx" | "w" | "write" => found.extend(piped(args)),
            // `\copy` takes the rest of the line; its program is found above.
            "copy" => {}
            _ => {
                // The arguments end at a backslash, which starts another meta-command.
                let end = args.find('\\').unwrap_or(args.len());
                found.extend(backquoted(args.get(..end).unwrap_or("")));
                if end < args.len() {
                    rest = meta.get(name_len + end..).unwrap_or("");
                }
            }
        }
    }
    found
}

/// The command of a meta-command's output target `|CMD` (after `\g`'s `(option=value …)`).
fn piped(args: &str) -> Option<String> {
    let mut target = args.trim_start();
    if let Some(options) = target.strip_prefix('(') {
        target = options
            .split_once(')')
            .map_or("", |(_, rest)| rest)
            .trim_start();
    }
    Some(target.strip_prefix('|')?.to_owned())
}

/// The texts in backquotes, outside single quotes, among a psql meta-command's arguments.
fn backquoted(args: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut quoted = false;
    let mut chars = args.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => quoted = !quoted,
            '`' if !quoted => {
                let command: String = chars.by_ref().take_while(|c| *c != '`').collect();
                found.push(command);
            }
            _ => {}
        }
    }
    found
}

/// The programs of `COPY … FROM PROGRAM 'CMD'` and `TO PROGRAM` (and psql's `\copy`): the
/// string literal after the word `program` in a statement that starts with `copy`.
fn copy_programs(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower.get(from..).and_then(|rest| rest.find("program")) {
        let start = from + at;
        from = start + "program".len();
        let before = lower.get(..start).unwrap_or("");
        let statement = before.rsplit([';', '\n']).next().unwrap_or("");
        let is_copy = statement
            .trim_start()
            .trim_start_matches('\\')
            .starts_with("copy");
        let word_ends = !before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let after = text.get(from..).unwrap_or("");
        let literal = after.trim_start().strip_prefix('\'');
        if let Some(literal) =
            literal.filter(|_| is_copy && word_ends && after.starts_with(char::is_whitespace))
        {
            found.push(sql_literal(literal));
        }
        if found.len() > MAX_SCRIPT_COMMANDS {
            break;
        }
    }
    found
}

/// The text of a single-quoted SQL literal whose opening quote is already taken (`''` is a
/// quote).
fn sql_literal(text: &str) -> String {
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
            } else {
                break;
            }
        }
        literal.push(c);
    }
    literal
}

/// Where the first backslash outside SQL's quotes and comments is in `text`: `'…'` (`E'…'`
/// with backslash escapes), `"…"`, `$tag$…$tag$`, `-- …` and `/* … */`.
fn sql_backslash(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let next = bytes.get(at + 1).copied();
        at = match byte {
            b'\\' => return Some(at),
            b'\'' => {
                let prefix = at.checked_sub(1).and_then(|i| bytes.get(i));
                let before = at.checked_sub(2).and_then(|i| bytes.get(i));
                let escapes = matches!(prefix, Some(b'E' | b'e'))
                    && !before.is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
                quoted_end(bytes, at + 1, b'\'', escapes)
            }
            b'"' => quoted_end(bytes, at + 1, b'"', false),
            b'-' if next == Some(b'-') => text
                .get(at..)
                .and_then(|rest| rest.find('\n'))
                .map_or(bytes.len(), |end| at + end),
            b'/' if next == Some(b'*') => text
                .get(at + 2..)
                .and_then(|rest| rest.find("*/"))
                .map_or(bytes.len(), |end| at + 2 + end + 2),
            b'$' => dollar_quote_end(text, at).unwrap_or(at + 1),
            _ => at + 1,
        };
    }
    None
}

/// Just past the `quote` that closes a quoted text starting at `from`; with `escapes`, a
/// backslash escapes the next byte. The end of the text when it is not closed.
fn quoted_end(bytes: &[u8], from: usize, quote: u8, escapes: bool) -> usize {
    let mut at = from;
    while let Some(&byte) = bytes.get(at) {
        if escapes && byte == b'\\' {
            at += 2;
        } else if byte == quote {
            return at + 1;
        } else {
            at += 1;
        }
    }
    bytes.len()
}

/// Just past a dollar-quoted string (`$$…$$`, `$fn$…$fn$`) starting at `at`, when one does
/// (`$1` is a parameter).
fn dollar_quote_end(text: &str, at: usize) -> Option<usize> {
    let after = text.get(at + 1..)?;
    let tag_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let tag = after.get(..tag_len)?;
    if !after.get(tag_len..)?.starts_with('$') || tag.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let delimiter = format!("${tag}$");
    let body = at + delimiter.len();
    Some(
        text.get(body..)
            .and_then(|rest| rest.find(&delimiter))
            .map_or(text.len(), |end| body + end + delimiter.len()),
    )
}

/// mysql's and mariadb's short options that take a value (`-p` takes one only attached).
const MYSQL_SHORT_ARG: &[char] = &['D', 'e', 'h', 'P', 'S', 'u'];

/// What `mysql ARGS` (or `mariadb`) runs through a shell: the `system` and `\!` commands of its
/// `-e` texts, or of the script on stdin without one. (Its pager is not used in batch mode.)
pub(super) fn mysql(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let mut texts = option_texts(args, Some('e'), MYSQL_SHORT_ARG, Some("execute"));
    if texts.is_empty() {
        texts.extend(stdin.map(|text| (text.to_owned(), false)));
    }
    shell_texts(scan_all(&texts, mysql_commands))
}

/// The shell commands of mysql script text: `system CMD` at the start of a statement and `\!
/// CMD` anywhere outside quotes and comments, each to the end of its line.
fn mysql_commands(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    let mut statement_start = true;
    let line_end = |from: usize| {
        text.get(from..)
            .and_then(|rest| rest.find('\n'))
            .map_or(bytes.len(), |end| from + end)
    };
    while let Some(&byte) = bytes.get(at) {
        let rest = text.get(at..).unwrap_or("");
        if statement_start && !byte.is_ascii_whitespace() {
            statement_start = false;
            let word = rest.get(..6).unwrap_or("");
            let spaced = rest.get(6..).is_some_and(|r| r.starts_with([' ', '\t']));
            if word.eq_ignore_ascii_case("system") && spaced {
                let end = line_end(at);
                found.push(text.get(at + 6..end).unwrap_or("").to_owned());
                at = end;
                continue;
            }
        }
        at = match byte {
            b'\\' if rest.starts_with("\\!") => {
                let end = line_end(at);
                found.push(text.get(at + 2..end).unwrap_or("").to_owned());
                end
            }
            b'\\' => {
                statement_start = matches!(bytes.get(at + 1), Some(b'g' | b'G'));
                at + 2
            }
            b'\'' | b'"' | b'`' => quoted_end(bytes, at + 1, byte, true),
            b'#' => line_end(at),
            b'-' if rest.starts_with("--") => line_end(at),
            b'/' if rest.starts_with("/*") => text
                .get(at + 2..)
                .and_then(|r| r.find("*/"))
                .map_or(bytes.len(), |end| at + 2 + end + 2),
            b';' => {
                statement_start = true;
                at + 1
            }
            _ => at + 1,
        };
        if found.len() > MAX_SCRIPT_COMMANDS {
            break;
        }
    }
    found
}

/// sqlite3's and duckdb's options that take a value, written with one dash or two (`sqlite3
/// -help`, `duckdb -help`); `-lookaside` and `-pagecache` take two.
const SQLITE_VALUED: &[&str] = &[
    "cmd",
    "init",
    "separator",
    "newline",
    "nullvalue",
    "vfs",
    "mmap",
    "heap",
    "maxsize",
    "escape",
    "c",
    "s",
    "f",
];

/// What `sqlite3 ARGS` (or `duckdb`) runs through a shell: what the dot-commands run (see
/// [`dot_commands`]) of each `-cmd` text, of the arguments after the database file (each one
/// SQL or a dot-command; duckdb's `-c` and `-s` too), and of the script on stdin when no
/// argument gives commands. `-A` (archive mode) takes the rest as its own arguments.
pub(super) fn sqlite(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let mut texts: Vec<(String, bool)> = Vec::new();
    let mut database = false;
    let mut reads_stdin = true;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let Some(option) = arg.text.strip_prefix('-').filter(|o| !o.is_empty()) else {
            if database {
                texts.push((arg.text.clone(), arg.dynamic));
                reads_stdin = false;
            }
            database = true;
            continue;
        };
        let option = option.strip_prefix('-').unwrap_or(option);
        match option {
            "A" | "archive" => break,
            "lookaside" | "pagecache" => {
                iter.next();
                iter.next();
            }
            "c" | "s" | "f" => {
                reads_stdin = false;
                if option != "f" {
                    texts.extend(iter.next().map(|f| (f.text.clone(), f.dynamic)));
                } else {
                    iter.next();
                }
            }
            "cmd" => texts.extend(iter.next().map(|f| (f.text.clone(), f.dynamic))),
            valued if SQLITE_VALUED.contains(&valued) => {
                iter.next();
            }
            _ => {}
        }
    }
    if reads_stdin {
        texts.extend(stdin.map(|text| (text.to_owned(), false)));
    }
    shell_texts(scan_all(&texts, dot_commands))
}

/// Whether `given` names the dot-command `name`: the whole name or a prefix of at least `min`
/// characters (sqlite3 takes those).
fn abbreviates(given: &str, name: &str, min: usize) -> bool {
    given.len() >= min && name.starts_with(given)
}

/// The shell commands of sqlite3's (and duckdb's) dot-commands in script text, one a line:
/// `.shell CMD…` and `.system CMD…`; `.once |CMD` and `.output |CMD`, output piped to a
/// command (`.once -e`/`-x` open an editor or a spreadsheet: left alone); `.import '|CMD' T`
/// and `.read '|CMD'`, input read from one. The files they and `.backup`, `.save` and `.log`
/// write, and `.import` and `.read` read, stand as the shell commands that do the same (`tee
/// -- FILE`, `cat -- FILE`).
fn dot_commands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let Some(command) = line.trim_start().strip_prefix('.') else {
            continue;
        };
        let words = dot_args(command);
        let Some((name, args)) = words.split_first() else {
            continue;
        };
        let name = name.as_str();
        let operands = || {
            let mut skip_value = false;
            args.iter().filter(move |arg| {
                let option = arg.starts_with('-');
                let keep = !option && !skip_value;
                skip_value = matches!(arg.as_str(), "--skip" | "--schema");
                keep
            })
        };
        if abbreviates(name, "shell", 3) || abbreviates(name, "system", 2) {
            let quoted = args.iter().map(|arg| {
                if arg.contains(' ') {
                    format!("\"{arg}\"")
                } else {
                    arg.clone()
                }
            });
            found.push(quoted.collect::<Vec<_>>().join(" "));
        } else if abbreviates(name, "once", 2) || abbreviates(name, "output", 2) {
            let editor = args.iter().any(|arg| matches!(arg.as_str(), "-e" | "-x"));
            let Some(at) = args.iter().position(|arg| !arg.starts_with('-')) else {
                continue;
            };
            let target = args.get(at..).unwrap_or(&[]).join(" ");
            match target.strip_prefix('|') {
                Some(command) if !editor => found.push(command.to_owned()),
                None if !editor && !is_standard_stream(&target) => found.push(writes(&target)),
                _ => {}
            }
        } else if abbreviates(name, "import", 2) || abbreviates(name, "read", 3) {
            if let Some(file) = operands().next() {
                match file.strip_prefix('|') {
                    Some(command) => found.push(command.to_owned()),
                    None => found.push(format!("cat -- {}", super::interp::quote(file))),
                }
            }
        } else if abbreviates(name, "backup", 2)
            || abbreviates(name, "save", 2)
            || abbreviates(name, "log", 3)
        {
            // `.backup ?DB? FILE`, `.save FILE`, `.log FILE|on|off|stdout|stderr`.
            // The operands are skipped in order (an option's value): not from the end.
            let files: Vec<&String> = operands().collect();
            if let Some(file) = files.last().filter(|file| !is_standard_stream(file)) {
                found.push(writes(file));
            }
        }
        if found.len() > MAX_SCRIPT_COMMANDS {
            break;
        }
    }
    found
}

/// Whether a dot-command's file is a standard stream or a switch, not a file (`.output stdout`,
/// `.log off`).
fn is_standard_stream(file: &str) -> bool {
    matches!(file, "" | "stdout" | "stderr" | "on" | "off")
}

/// The shell command that writes what a dot-command sends to `file`: `tee` of it.
fn writes(file: &str) -> String {
    format!("tee -- {}", super::interp::quote(file))
}

/// A dot-command's words as sqlite3 splits them: at blanks, `'…'` taken as is, `"…"` with
/// backslash escapes.
fn dot_args(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(first) = chars.next() else {
            break;
        };
        let mut word = String::new();
        match first {
            '\'' => word.extend(chars.by_ref().take_while(|c| *c != '\'')),
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            c => {
                word.push(c);
                while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                    word.push(c);
                }
            }
        }
        words.push(word);
    }
    words
}

/// ed's short options that take a value.
const ED_SHORT_ARG: &[char] = &['p'];

/// What `ed ARGS` runs through a shell: a file operand that starts with `!` (ed reads that
/// command's output), and in the commands on stdin `!CMD` and `r`, `w`, `W`, `e` and `E` given
/// `!CMD`, after an address; text typed after `a`, `i` and `c`, up to a lone `.`, is not a
/// command. A restricted ed (`-r`) runs none.
pub(super) fn ed(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let parsed = Parsed::new(&strings, ED_SHORT_ARG, &["prompt"]);
    if parsed.has(&['r'], &["restricted"]) {
        return Vec::new();
    }
    let mut found: Vec<(String, bool)> = args
        .iter()
        .filter(|arg| parsed.operands.contains(&arg.text.as_str()))
        .filter_map(|arg| Some((arg.text.strip_prefix('!')?.to_owned(), arg.dynamic)))
        .collect();
    found.extend(
        stdin
            .into_iter()
            .flat_map(ed_commands)
            .map(|command| (command, false)),
    );
    shell_texts(found)
}

/// The shell commands of ed's command text (see [`ed`]).
fn ed_commands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut typing = false;
    for line in text.lines() {
        if typing {
            typing = line != ".";
            continue;
        }
        let command = skip_ed_address(line.trim_start());
        let mut chars = command.chars();
        let letter = chars.next();
        let rest = chars.as_str();
        match letter {
            Some('!') => found.push(rest.to_owned()),
            Some('r' | 'w' | 'W' | 'e' | 'E') => {
                found.extend(rest.trim_start().strip_prefix('!').map(str::to_owned));
            }
            // Input mode, unless a suffix (`p`, `l`, `n`) is all that follows.
            Some('a' | 'i' | 'c') => typing = rest.chars().all(|c| matches!(c, 'p' | 'l' | 'n')),
            _ => {}
        }
        if found.len() > MAX_SCRIPT_COMMANDS {
            break;
        }
    }
    found
}

/// An ed command line after its address: line numbers, `.`, `$`, `,`, `;`, `+`, `-`, marks
/// (`'a`) and regular expressions (`/re/`, `?re?`).
fn skip_ed_address(line: &str) -> &str {
    let mut rest = line;
    loop {
        let mut chars = rest.chars();
        match chars.next() {
            Some(c)
                if c.is_ascii_digit() || matches!(c, '.' | '$' | ',' | ';' | '+' | '-' | ' ') =>
            {
                rest = chars.as_str();
            }
            Some('\'') => {
                chars.next();
                rest = chars.as_str();
            }
            Some(delimiter @ ('/' | '?')) => {
                let mut escaped = false;
                let after = chars.as_str();
                let end = after.char_indices().find_map(|(at, c)| {
                    let closes = c == delimiter && !escaped;
                    escaped = c == '\\' && !escaped;
                    closes.then_some(at + c.len_utf8())
                });
                rest = end.and_then(|end| after.get(end..)).unwrap_or("");
            }
            _ => return rest,
        }
    }
}

/// sftp's short options that take a value (sftp(1)).
pub(super) const SFTP_SHORT_ARG: &[char] = &[
    'B', 'b', 'c', 'D', 'F', 'i', 'J', 'l', 'o', 'P', 'R', 'S', 's', 'X',
];

/// What `sftp ARGS` does on this machine, as the shell commands that do the same: its batch of
/// commands (on stdin, or the `-b` file the walker hands over as stdin: a here-document, text
/// piped in, a file the line wrote) and a `HOST:PATH [LOCAL]` fetch. `put LOCAL` sends a local
/// file to the host (`scp -- LOCAL HOST:`), `get REMOTE [LOCAL]` writes a local one (`scp --
/// HOST:REMOTE LOCAL`, `-r`/`-R` for trees), `lcd` and `lmkdir` are `cd` and `mkdir` here,
/// `!CMD` runs CMD in a local shell; what it does on the host is left alone. One script, so
/// that an `lcd` moves the transfers after it.
pub(super) fn sftp(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    sftp_batch(args, stdin, path_quote)
}

/// [`sftp`] of a batch whose text holds the shell's expansions, as an unquoted here-document
/// gives it (`put $HOME/.ssh/id_rsa`): the shell expands them before sftp reads the line, so
/// each local name keeps them live (in double quotes), for the walk to read as the shell would.
pub(super) fn sftp_expanded(args: &[Field], text: &str) -> Vec<Nested> {
    sftp_batch(args, Some(text), live_quote)
}

/// [`sftp`], each local name written as a shell word by `local`.
fn sftp_batch(args: &[Field], stdin: Option<&str>, local: fn(&str) -> String) -> Vec<Nested> {
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let parsed = Parsed::new(&strings, SFTP_SHORT_ARG, &[]);
    // A batch from a process substitution (`-b <(…)`) is only known at run time.
    if parsed
        .values(&['b'], &[])
        .last()
        .is_some_and(|batch| *batch == PROCESS_SUBSTITUTION_READ)
    {
        return vec![Nested::Dynamic("sftp -b <(…)".to_owned())];
    }
    let Some((destination, rest)) = parsed.operands.split_first() else {
        return Vec::new();
    };
    let host = destination.rsplit('@').next().unwrap_or(destination);
    let mut lines = Vec::new();
    match host.split_once(':') {
        // `sftp HOST:PATH [LOCAL]` fetches and exits.
        Some((host, path)) if !path.is_empty() => {
            let local = rest.first().copied().unwrap_or(".");
            lines.push(format!(
                "scp -- {}:{} {}",
                host,
                quote(path),
                path_quote(local)
            ));
        }
        _ => {
            let host = host.split(':').next().unwrap_or(host);
            lines.extend(
                stdin
                    .into_iter()
                    .flat_map(str::lines)
                    .filter_map(|line| sftp_command(line, host, local))
                    .take(MAX_SCRIPT_COMMANDS + 1),
            );
        }
    }
    shell_texts(vec![(lines.join("\n"), false)])
}

/// The shell command one line of an sftp batch amounts to (see [`sftp`]).
fn sftp_command(line: &str, host: &str, path_quote: fn(&str) -> String) -> Option<String> {
    // `-` and `@` before a command: carry on after an error, do not echo.
    let line = line
        .trim_start()
        .trim_start_matches(['-', '@'])
        .trim_start();
    if let Some(shell) = line.strip_prefix('!') {
        return (!shell.trim().is_empty()).then(|| shell.to_owned());
    }
    let words = sftp_words(line);
    let (command, rest) = words.split_first()?;
    let recursive = rest
        .iter()
        .take_while(|word| word.starts_with('-'))
        .any(|flag| flag.contains(['r', 'R']));
    let mut operands = rest.iter().skip_while(|word| word.starts_with('-'));
    let tree = if recursive { "-r " } else { "" };
    match command.as_str() {
        "put" | "reput" | "mput" => {
            let local = operands.next()?;
            Some(format!("scp {tree}-- {} {host}:", path_quote(local)))
        }
        "get" | "reget" | "mget" => {
            let remote = operands.next()?;
            let local = operands.next().map_or(".", String::as_str);
            Some(format!(
                "scp {tree}-- {host}:{} {}",
                quote(remote),
                path_quote(local)
            ))
        }
        "lcd" => Some(format!("cd -- {}", path_quote(operands.next()?))),
        "lmkdir" => Some(format!("mkdir -- {}", path_quote(operands.next()?))),
        _ => None,
    }
}

/// A local name as a shell word that keeps the shell's expansions in it live: in double quotes
/// (after a leading `~/`, which sftp expands itself), or as [`path_quote`] has it when it
/// holds none.
fn live_quote(text: &str) -> String {
    if !text.contains(['$', '`']) {
        return path_quote(text);
    }
    let (tilde, rest) = match text.strip_prefix("~/") {
        Some(rest) => ("~/", rest),
        None => ("", text),
    };
    format!(
        "{tilde}\"{}\"",
        rest.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// The words of an sftp command line, split as sftp splits them: at blanks, with quotes and
/// backslashes as a shell reads them.
fn sftp_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(open), _) if c == open => quote = None,
            (Some('"') | None, '\\') => word.extend(chars.next()),
            (Some(_), _) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, ' ' | '\t') => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, _) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// `ssh-copy-id [-f] [-i KEY] HOST`: the public key it sends and appends to the host's
/// `authorized_keys` (`KEY` with `.pub` added when it has none; by default the newest of
/// `~/.ssh/id_*.pub`), as `scp` sending it there.
pub(super) fn ssh_copy_id(args: &[Field]) -> Vec<Nested> {
    let strings: Vec<String> = args.iter().map(|f| f.text.clone()).collect();
    let parsed = Parsed::new(&strings, &['i', 'p', 'o', 'F', 't'], &[]);
    let Some(host) = parsed.operands.first() else {
        return Vec::new();
    };
    let key = match parsed.values(&['i'], &[]).last() {
        Some(key) if key.ends_with(".pub") => path_quote(key),
        Some(key) => format!("{}.pub", path_quote(key)),
        None => "~/.ssh/id_*.pub".to_owned(),
    };
    let host = host.rsplit('@').next().unwrap_or(host);
    shell_texts(vec![(format!("scp -- {key} {}:.ssh/", quote(host)), false)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sftp_batches() {
        for (line, expected) in [
            ("put ~/.ssh/id_rsa", Some("scp -- ~/.ssh/id_rsa h:")),
            ("-put -r 'my dir' /srv", Some("scp -r -- 'my dir' h:")),
            ("get /etc/x .bashrc", Some("scp -- h:/etc/x .bashrc")),
            ("@get -R logs", Some("scp -r -- h:logs .")),
            ("lcd ~", Some("cd -- ~")),
            ("!rm -rf ~", Some("rm -rf ~")),
            ("!", None),
            ("cd /srv", None),
            ("rm remote.txt", None),
        ] {
            assert_eq!(
                sftp_command(line, "h", path_quote).as_deref(),
                expected,
                "{line}"
            );
        }
        // With the shell's expansions live (an unquoted here-document), and from a `<(…)`.
        assert_eq!(
            sftp_command("put $HOME/.ssh/id_rsa", "h", live_quote).as_deref(),
            Some("scp -- \"$HOME/.ssh/id_rsa\" h:")
        );
        assert_eq!(live_quote("~/$K"), "~/\"$K\"");
        assert_eq!(live_quote("dist/a b"), "'dist/a b'");
        assert_eq!(
            texts(sftp(&fields(&["-b", PROCESS_SUBSTITUTION_READ, "h"]), None)),
            ["dynamic: sftp -b <(…)"]
        );
        assert_eq!(
            sftp_words(r#"put "a b" c\ d ''"#),
            ["put", "a b", "c d", ""]
        );
    }

    fn fields(words: &[&str]) -> Vec<Field> {
        words
            .iter()
            .map(|w| Field {
                text: (*w).to_owned(),
                dynamic: false,
                valued: false,
            })
            .collect()
    }

    fn script(text: &str, origin: Origin) -> Nested {
        Nested::Script {
            text: text.to_owned(),
            origin,
        }
    }

    fn run(words: &[&str]) -> Vec<Nested> {
        tmux(&fields(words), None)
    }

    #[test]
    fn makefiles_make_reads() {
        let read = |words: &[&str]| makefiles(&fields(words));
        let defaults = ["GNUmakefile", "makefile", "Makefile"].map(str::to_owned);
        assert_eq!(read(&["test"]), (vec![], defaults.to_vec()));
        assert_eq!(
            read(&["-C", "sub", "-f", "M", "--file=N", "all"]),
            (vec!["sub".to_owned()], vec!["M".to_owned(), "N".to_owned()])
        );
        assert_eq!(read(&["-f", "-"]), (vec![], vec![]));
    }

    #[test]
    fn tmux_runs_its_commands_shell_commands() {
        let w = Origin::Wrapper;
        assert_eq!(
            run(&["new", "-d", "-s", "x", "rm -rf ~"]),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            run(&["-L", "s", "new-window", "rm", "-rf", "~"]),
            [Nested::Command {
                fields: fields(&["rm", "-rf", "~"]),
                origin: w
            }]
        );
        assert_eq!(
            run(&[
                "new",
                "-d",
                ";",
                "send-keys",
                "-t",
                "x",
                "rm -rf ~",
                "Enter"
            ]),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            run(&["send", "rm", "Space", "-rf", "Space", "~", "C-m"]),
            [script("rm -rf ~", w)]
        );
        assert_eq!(run(&["-c", "rm -rf ~"]), [script("rm -rf ~", w)]);
        assert_eq!(
            run(&["if-shell", "rm -rf ~", "new"]),
            [script("rm -rf ~", w), script("tmux new", w)]
        );
        assert_eq!(
            run(&["run-shell", "-b", "rm", "-rf", "~"]),
            [script("rm -rf ~", w)]
        );
        assert!(run(&["ls"]).is_empty());
        assert!(run(&["attach", "-t", "x"]).is_empty());
        assert!(run(&["new", "-s", "dev"]).is_empty());
        assert!(run(&["send-keys", "-t", "x", "ls"]).is_empty(), "no Enter");
        // Prefixes, `;` ending an argument, key names in any case, newlines, hex keys.
        for words in [
            &["new-s", "-d", "rm -rf ~"][..],
            &["split", "rm -rf ~"],
            &["new", "-d", "true;", "send-keys", "rm -rf ~", "enter"],
            &["send-k", "-t", "x", "rm -rf ~", "^M"],
            &["send", "-t", "x", "rm -rf ~\n"],
            &["run-sh", "rm -rf ~"],
        ] {
            let runs = run(words);
            assert!(runs.contains(&script("rm -rf ~", w)), "{words:?}: {runs:?}");
        }
        assert_eq!(run(&["send", "-H", "6c", "73", "0a"]), [script("ls", w)]);
        assert_eq!(
            run(&["if-shell", "true", "run-shell 'rm -rf ~'"]),
            [script("true", w), script("tmux run-shell 'rm -rf ~'", w)]
        );
        assert_eq!(
            run(&["bind-key", "x", "run-shell", "rm -rf ~"]),
            [Nested::Command {
                fields: fields(&["tmux", "run-shell", "rm -rf ~"]),
                origin: w
            }]
        );
        assert_eq!(
            tmux(&fields(&["source", "-"]), Some("run-shell 'rm -rf ~'\n")),
            [script("tmux run-shell 'rm -rf ~'", w)]
        );
    }

    #[test]
    fn screen_sends_to_a_running_session() {
        let w = Origin::Wrapper;
        assert_eq!(
            screen(&fields(&["-S", "s", "-X", "stuff", "rm -rf ~\n"])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            screen(&fields(&["-S", "s", "-X", "stuff", "rm -rf ~^M"])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            screen(&fields(&["-S", "s", "-X", "exec", "rm", "-rf", "~"])),
            [Nested::Command {
                fields: fields(&["rm", "-rf", "~"]),
                origin: w
            }]
        );
        assert!(screen(&fields(&["-S", "s", "-X", "stuff", "ls"])).is_empty());
        assert!(screen(&fields(&["-ls"])).is_empty());
        assert!(screen(&fields(&["-S", "s", "-X", "quit"])).is_empty());
    }

    #[test]
    fn make_runs_the_recipes_it_is_given() {
        let s = Origin::ShellString;
        assert_eq!(
            make(
                &fields(&["-f", "-"]),
                Some("all:\n\t@rm -rf ~\n\techo $$HOME\n")
            ),
            [script("rm -rf ~", s), script("echo $HOME", s)]
        );
        assert_eq!(
            make(&fields(&["--eval=x:\n\t-rm -rf ~", "x"]), None),
            [script("rm -rf ~", s)]
        );
        assert_eq!(
            make(&fields(&["-E", "X := $(shell rm -rf ~)"]), None),
            [script("rm -rf ~", s)]
        );
        assert_eq!(
            make(
                &fields(&["-f", "/dev/stdin"]),
                Some("a:\n\trm -rf \\\n\t  ~\n")
            ),
            [script("rm -rf \\\n  ~", s)]
        );
        assert_eq!(
            make(&fields(&["-f", "-"]), Some("a:\n\trm -rf $(DIR)\n")),
            [Nested::Dynamic("rm -rf $(DIR)".to_owned())]
        );
        for (args, stdin) in [
            (&["--eval=x: ; rm -rf ~", "x"][..], None),
            (&["-f", "-"], Some("x: ; rm -rf ~")),
            (&["--eval=.RECIPEPREFIX=>", "--eval=x:\n>rm -rf ~"], None),
        ] {
            assert_eq!(
                make(&fields(args), stdin),
                [script("rm -rf ~", s)],
                "{args:?}"
            );
        }
        assert_eq!(
            make(&fields(&["-f", "<(…)"]), None),
            [Nested::Dynamic("make -f <(…)".to_owned())]
        );
        assert!(make(&fields(&["--eval=X := a; b"]), None).is_empty());
        assert!(make(&fields(&["test"]), Some("all:\n\trm -rf ~\n")).is_empty());
        assert!(make(&fields(&["-f", "build.mk"]), None).is_empty());
    }

    /// The shell texts a reader hands back.
    pub(super) fn texts(runs: Vec<Nested>) -> Vec<String> {
        runs.into_iter()
            .map(|run| match run {
                Nested::Script { text, .. } => text,
                Nested::Dynamic(text) => format!("dynamic: {text}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn psql_meta_commands_that_run_a_shell() {
        let psql_c = |text: &str| texts(psql(&fields(&["-c", text]), None));
        assert_eq!(psql_c("\\! rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("select 1 \\g |rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("select 1 \\gx (format=csv) |rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\o |rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\w |rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\set x `rm -rf ~`"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\echo '`ls`' `rm -rf ~`"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\x \\! rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(psql_c("\\copy t from program 'rm -rf ~' csv"), ["rm -rf ~"]);
        assert_eq!(
            psql_c("COPY t TO PROGRAM 'gzip > /tmp/it''s.gz'"),
            ["gzip > /tmp/it's.gz"]
        );
        assert_eq!(
            texts(psql(
                &fields(&["-c", "select 1", "--command=\\! rm -rf ~"]),
                None
            )),
            ["rm -rf ~"]
        );
        assert_eq!(
            texts(psql(&fields(&["-o", "|rm -rf ~", "-c", "select 1"]), None)),
            ["rm -rf ~"]
        );
        // Quotes, comments and dollar quotes hide a backslash.
        for text in [
            "select 1",
            "\\dt",
            "select '\\! rm -rf ~'",
            "select E'\\'\\! rm -rf ~'",
            "select \"a\\!b\"",
            "select 1 -- \\! rm -rf ~",
            "select /* \\! rm -rf ~ */ 1",
            "select $$ \\! rm -rf ~ $$",
            "select $f$ \\! rm -rf ~ $f$",
            "\\copy t to 'out.csv' csv",
            "select program 'x' from t",
            "\\o out.txt",
            "\\set x '`ls`'",
        ] {
            assert!(psql_c(text).is_empty(), "{text}");
        }
        assert_eq!(psql_c("select $1 \\! rm -rf ~"), ["rm -rf ~"]);
    }

    #[test]
    fn psql_reads_its_script_from_stdin_without_a_command() {
        let script = Some("select 1;\n\\! rm -rf ~\n");
        assert_eq!(texts(psql(&fields(&["-h", "db"]), script)), ["rm -rf ~"]);
        assert_eq!(texts(psql(&fields(&["-f", "-"]), script)), ["rm -rf ~"]);
        assert!(psql(&fields(&["-c", "select 1"]), script).is_empty());
        assert!(psql(&fields(&["-f", "x.sql"]), script).is_empty());
        assert_eq!(
            texts(psql(&fields(&["-c", "$Q"]), None)),
            Vec::<String>::new()
        );
        assert_eq!(
            psql(
                &[Field {
                    text: "-c\\! rm -rf $D".to_owned(),
                    dynamic: true,
                    valued: false,
                }],
                None
            ),
            [Nested::Dynamic("rm -rf $D".to_owned())]
        );
    }

    #[test]
    fn mysql_system_commands() {
        let mysql_e = |text: &str| texts(mysql(&fields(&["-u", "root", "-e", text]), None));
        assert_eq!(mysql_e("system rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(mysql_e("SYSTEM rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(mysql_e("select 1; system rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(mysql_e("select 1; \\! rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            texts(mysql(&fields(&["--execute=\\! rm -rf ~"]), None)),
            ["rm -rf ~"]
        );
        for text in [
            "show tables",
            "select 'system rm -rf ~'",
            "select 'it\\'s \\! rm -rf ~'",
            "select 1 # \\! rm -rf ~",
            "select 1 -- \\! rm -rf ~",
            "select /* \\! rm -rf ~ */ 1",
            "select system from t",
            "select 1\nsystem rm -rf ~",
        ] {
            assert!(mysql_e(text).is_empty(), "{text}");
        }
        assert_eq!(
            texts(mysql(&fields(&["app"]), Some("system rm -rf ~\n"))),
            ["rm -rf ~"]
        );
        assert!(mysql(&fields(&["-e", "select 1"]), Some("system rm -rf ~\n")).is_empty());
    }

    #[test]
    fn sqlite_dot_commands() {
        let sqlite_args = |words: &[&str]| texts(sqlite(&fields(words), None));
        for (words, found) in [
            (&["x.db", ".shell rm -rf ~"][..], "rm -rf ~"),
            (&["x.db", ".system rm -rf ~"], "rm -rf ~"),
            (&["x.db", ".sys rm -rf ~"], "rm -rf ~"),
            (&["x.db", ".shell rm -rf 'a b'"], "rm -rf \"a b\""),
            (&["x.db", ".once |rm -rf ~"], "rm -rf ~"),
            (&["x.db", ".once --bom '|rm -rf ~'"], "rm -rf ~"),
            (&["x.db", ".output |rm -rf ~"], "rm -rf ~"),
            (
                &["x.db", ".import --csv --skip 1 '|rm -rf ~' t"],
                "rm -rf ~",
            ),
            (&["x.db", ".read \"|rm -rf ~\""], "rm -rf ~"),
            (&["-cmd", ".shell rm -rf ~", "x.db", "select 1"], "rm -rf ~"),
            (&["--cmd", ".shell rm -rf ~", "x.db"], "rm -rf ~"),
            (&["-c", ".shell rm -rf ~"], "rm -rf ~"),
            (
                &["-separator", ",", "x.db", "select 1", ".shell rm -rf ~"],
                "rm -rf ~",
            ),
        ] {
            assert_eq!(sqlite_args(words), [found], "{words:?}");
        }
        // Files written and read, as the shell commands that do the same.
        for (dot, found) in [
            (".once out.csv", "tee -- out.csv"),
            (".output '/a b'", "tee -- '/a b'"),
            (".backup main /x/b.db", "tee -- /x/b.db"),
            (".save b.db", "tee -- b.db"),
            (".log /x/l", "tee -- /x/l"),
            (".import --csv /x/data.csv t", "cat -- /x/data.csv"),
            (".read schema.sql", "cat -- schema.sql"),
        ] {
            assert_eq!(sqlite_args(&["x.db", dot]), [found], "{dot}");
        }
        for words in [
            &["x.db", ".tables"][..],
            &["x.db", "select * from t"],
            &["x.db", ".once -e"],
            &["x.db", ".output"],
            &["x.db", ".output stdout"],
            &["x.db", ".log off"],
            &["x.db", "select '.shell rm -rf ~'"],
            &[".shell rm -rf ~"],
            &["-A", "x.db", ".shell rm -rf ~"],
        ] {
            assert!(sqlite_args(words).is_empty(), "{words:?}");
        }
        let script = Some(".tables\n  .shell rm -rf ~\n");
        assert_eq!(texts(sqlite(&fields(&["x.db"]), script)), ["rm -rf ~"]);
        assert!(sqlite(&fields(&["x.db", "select 1"]), script).is_empty());
        assert!(sqlite(&fields(&["-c", "select 1"]), script).is_empty());
    }

    #[test]
    fn ed_shell_commands() {
        let ed_stdin = |text: &str| texts(ed(&fields(&["-s", "x"]), Some(text)));
        assert_eq!(ed_stdin("!rm -rf ~\n"), ["rm -rf ~"]);
        assert_eq!(ed_stdin("1,$w !rm -rf ~\nq\n"), ["rm -rf ~"]);
        assert_eq!(ed_stdin("/x/,/y/r !rm -rf ~\n"), ["rm -rf ~"]);
        assert_eq!(ed_stdin("e !rm -rf ~\n"), ["rm -rf ~"]);
        assert_eq!(ed_stdin("a\n!ls\n.\n!rm -rf ~\n"), ["rm -rf ~"]);
        assert!(ed_stdin("a\n!rm -rf ~\n.\nw\nq\n").is_empty());
        assert!(ed_stdin(",s/x/!y/\nw out.txt\nq\n").is_empty());
        assert!(ed(&fields(&["-r", "x"]), Some("!rm -rf ~\n")).is_empty());
        assert_eq!(texts(ed(&fields(&["!rm -rf ~"]), None)), ["rm -rf ~"]);
        assert!(ed(&fields(&["-p", "!x", "file"]), None).is_empty());
    }
}
