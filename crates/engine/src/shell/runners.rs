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
use super::exec::{Nested, joined, script_or_dynamic};
use super::wrappers::Field;
use crate::argv::{Parsed, options_end};

/// tmux's own options that take a value (`tmux -L sock new …`); `-c` runs a shell command.
const TMUX_SHORT_ARG: &[char] = &['c', 'f', 'L', 'S', 'T'];

/// tmux commands that run a shell command given as their trailing arguments, with the short
/// options of each that take a value.
const TMUX_RUNS: &[(&[&str], &[char])] = &[
    (
        &["new-session", "new"],
        &['c', 'e', 'f', 'F', 'n', 's', 't', 'x', 'y'],
    ),
    (&["new-window", "neww"], &['c', 'e', 'F', 'n', 't']),
    (&["split-window", "splitw"], &['c', 'e', 'l', 't', 'F']),
    (&["respawn-pane", "respawnp"], &['c', 'e', 't']),
    (&["respawn-window", "respawnw"], &['c', 'e', 't']),
    (
        &["display-popup", "popup"],
        &['b', 'c', 'd', 'e', 'h', 's', 'S', 't', 'T', 'w', 'x', 'y'],
    ),
    (&["run-shell", "run"], &['c', 'd', 't']),
    (&["pipe-pane", "pipep"], &['t']),
];

/// Key names `send-keys` turns into the end of a line.
const ENTER_KEYS: &[&str] = &["Enter", "C-m", "C-j", "KPEnter"];

/// What `tmux ARGS` runs: the shell command of `-c`, and of each command in the list (commands
/// are separated by `;` arguments): `new-session`, `new-window`, `split-window`, `respawn-*`,
/// `display-popup`, `run-shell`, `pipe-pane` run their trailing arguments (one argument is shell
/// text, several an argv, as tmux runs them); `if-shell` its condition; `send-keys` types its
/// keys into a shell, a line at each Enter.
pub(super) fn tmux(args: &[Field]) -> Vec<Nested> {
    let origin = Origin::Wrapper;
    let start = options_end(args, TMUX_SHORT_ARG, &[]);
    let head = args.get(..start).unwrap_or(&[]);
    let mut runs: Vec<Nested> = shell_option(head, TMUX_SHORT_ARG, 'c')
        .map(|field| script_or_dynamic(field.text.clone(), field.dynamic, origin))
        .into_iter()
        .collect();
    for command in args.get(start..).unwrap_or(&[]).split(|f| f.text == ";") {
        let Some((name, rest)) = command.split_first() else {
            continue;
        };
        if let Some((_, valued)) = TMUX_RUNS
            .iter()
            .find(|(names, _)| names.contains(&name.text.as_str()))
        {
            let operands = rest.get(options_end(rest, valued, &[])..).unwrap_or(&[]);
            let shell = name.text.starts_with("run") && !has_short(rest, valued, 'C');
            runs.extend(match operands {
                [] => None,
                [one] => Some(script_or_dynamic(one.text.clone(), one.dynamic, origin)),
                many if shell => Some(joined(many, origin)),
                many => Some(Nested::Command {
                    fields: many.to_vec(),
                    origin,
                }),
            });
        } else if matches!(name.text.as_str(), "if-shell" | "if") && !has_short(rest, &['t'], 'F') {
            let operands = rest.get(options_end(rest, &['t'], &[])..).unwrap_or(&[]);
            runs.extend(
                operands
                    .first()
                    .map(|cond| script_or_dynamic(cond.text.clone(), cond.dynamic, origin)),
            );
        } else if matches!(name.text.as_str(), "send-keys" | "send") {
            runs.extend(typed_lines(rest, origin));
        }
    }
    runs
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

/// `send-keys [options] KEY…`: the lines the keys type, each ended by an Enter key (a line
/// left without one is typed but not run). With `-l` every key is literal text.
fn typed_lines(args: &[Field], origin: Origin) -> Vec<Nested> {
    let valued = ['c', 'N', 't'];
    let literal = has_short(args, &valued, 'l');
    let keys = args.get(options_end(args, &valued, &[])..).unwrap_or(&[]);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut dynamic = false;
    for key in keys {
        match key.text.as_str() {
            enter if !literal && ENTER_KEYS.contains(&enter) => {
                lines.push(script_or_dynamic(
                    std::mem::take(&mut line),
                    dynamic,
                    origin,
                ));
                dynamic = false;
            }
            "Space" if !literal => line.push(' '),
            text => {
                line.push_str(text);
                dynamic |= key.dynamic;
            }
        }
    }
    lines
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
    let from_stdin = parsed
        .values(&['f'], &["file", "makefile"])
        .iter()
        .any(|file| matches!(*file, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"));
    if from_stdin {
        texts.extend(stdin);
    }
    texts.into_iter().flat_map(makefile_commands).collect()
}

/// The shell commands of makefile text: each recipe line (after a tab; `@`, `-` and `+`
/// prefixes dropped; a line ending in `\` continued) and each `$(shell …)` call. make's `$$` is
/// the shell's `$`; a command that expands a make variable or function is only known at run
/// time.
fn makefile_commands(text: &str) -> Vec<Nested> {
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
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

    #[test]
    fn tmux_runs_its_commands_shell_commands() {
        let w = Origin::Wrapper;
        assert_eq!(
            tmux(&fields(&["new", "-d", "-s", "x", "rm -rf ~"])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            tmux(&fields(&["-L", "s", "new-window", "rm", "-rf", "~"])),
            [Nested::Command {
                fields: fields(&["rm", "-rf", "~"]),
                origin: w
            }]
        );
        assert_eq!(
            tmux(&fields(&[
                "new",
                "-d",
                ";",
                "send-keys",
                "-t",
                "x",
                "rm -rf ~",
                "Enter"
            ])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            tmux(&fields(&[
                "send", "rm", "Space", "-rf", "Space", "~", "C-m"
            ])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(tmux(&fields(&["-c", "rm -rf ~"])), [script("rm -rf ~", w)]);
        assert_eq!(
            tmux(&fields(&["if-shell", "rm -rf ~", "new"])),
            [script("rm -rf ~", w)]
        );
        assert_eq!(
            tmux(&fields(&["run-shell", "-b", "rm", "-rf", "~"])),
            [script("rm -rf ~", w)]
        );
        assert!(tmux(&fields(&["ls"])).is_empty());
        assert!(tmux(&fields(&["attach", "-t", "x"])).is_empty());
        assert!(tmux(&fields(&["new", "-s", "dev"])).is_empty());
        assert!(
            tmux(&fields(&["send-keys", "-t", "x", "ls"])).is_empty(),
            "no Enter"
        );
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
        assert!(make(&fields(&["test"]), Some("all:\n\trm -rf ~\n")).is_empty());
        assert!(make(&fields(&["-f", "build.mk"]), None).is_empty());
    }
}
