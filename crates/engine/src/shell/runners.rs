//! Programs that run commands written in their own syntax: tmux's commands, whose shell
//! commands run in a session out of sight (`tmux new -d 'cmd'`, `tmux send-keys 'cmd' Enter`),
//! and make's recipes given on the command line or on stdin (`make -f - <<EOF`,
//! `make --eval=$'x:\n\tcmd'`).
//!
//! Each yields [`Nested`] scripts or argvs for the walker. A makefile named on the command line
//! (or the project's own `Makefile`) is a file toolgate does not read, like any script file.
//!
//! This module must not parse shell text; the walker does that.

use super::Origin;
use super::exec::{Nested, PROCESS_SUBSTITUTION_READ, joined, script_or_dynamic};
use super::wrappers::Field;
use crate::argv::{Parsed, options_end};

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
    let mut runs = makefile_commands(&texts.join("\n"));
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

/// The shell commands of makefile text: each recipe line (after a tab; `@`, `-` and `+`
/// prefixes dropped; a line ending in `\` continued) and each `$(shell …)` call. make's `$$` is
/// the shell's `$`; a command that expands a make variable or function is only known at run
/// time.
fn makefile_commands(text: &str) -> Vec<Nested> {
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
            let (script, expands) = unescape_make(&command);
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

/// A recipe as the shell gets it (`$$` → `$`), and whether it expands anything of make's own
/// (`$(X)`, `${X}`, `$@`).
fn unescape_make(recipe: &str) -> (String, bool) {
    let mut script = String::with_capacity(recipe.len());
    let mut expands = false;
    let mut chars = recipe.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' {
            if chars.peek() == Some(&'$') {
                chars.next();
            } else {
                expands = true;
            }
        }
        script.push(c);
    }
    (script, expands)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(words: &[&str]) -> Vec<Field> {
        words
            .iter()
            .map(|w| Field {
                text: (*w).to_owned(),
                dynamic: false,
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
}
