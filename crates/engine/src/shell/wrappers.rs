//! Exec-wrapper stripping: `sudo -u root env -i X=1 timeout 5 rm …` → `rm …`.
//!
//! Each wrapper in [`WRAPPERS`] is described by its option grammar (which short and long options take
//! an argument, how many operands precede the command), so its options are consumed properly rather
//! than guessed. Stripping repeats to a fixed point, alternating with `NAME=value` words. A wrapper
//! followed by no command is not stripped: it is then the command itself (`sudo -v`, `env`). Wrappers
//! that run a *shell string* rather than an argv (`watch 'cmd'`, `flock f -c 'cmd'`, `env -S 'cmd'`)
//! stay the command and hand the string back as a payload for the caller to parse.
//!
//! This module must not parse shell text; it works on already-normalised fields.

use super::{Assignment, basename};

/// One normalised argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Field {
    /// Unquoted text (expansions kept as source text).
    pub text: String,
    /// Whether the text holds a run-time expansion.
    pub dynamic: bool,
}

impl AsRef<str> for Field {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// What a stripped segment was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SegmentKind {
    /// A `NAME=value` assignment.
    Assignment,
    /// A wrapper with its options; `safe` when Claude Code strips it for allow rules too.
    Wrapper {
        /// Stripped for allow rules.
        safe: bool,
    },
}

/// A run of source tokens in front of the command, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Segment {
    /// Assignment or wrapper.
    pub kind: SegmentKind,
    /// The tokens, unquoted.
    pub tokens: Vec<String>,
    /// For an assignment: whether its value is dynamic.
    pub dynamic: bool,
}

/// A shell string a wrapper runs (`watch 'cmd'`, `flock f -c 'cmd'`, `env -S 'cmd'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Payload {
    /// The text to parse.
    pub text: String,
    /// Whether it holds a run-time expansion.
    pub dynamic: bool,
}

/// The result of stripping.
#[derive(Debug, Default)]
pub(super) struct Stripped {
    /// Segments stripped, in source order.
    pub segments: Vec<Segment>,
    /// Wrapper names stripped, outermost first.
    pub wrappers: Vec<String>,
    /// Assignments found among the wrappers (`env X=1`, `nohup FOO=bar`).
    pub assignments: Vec<Assignment>,
    /// Index of the inner command in the input fields.
    pub start: usize,
    /// Shell strings the (unstripped) final wrapper runs.
    pub payloads: Vec<Payload>,
}

/// How a wrapper treats what follows its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Special {
    /// Options, then `operands` operands, then the command.
    Plain,
    /// `env`: options, `NAME=VALUE` pairs, command; `-S STRING` is a payload.
    Env,
    /// `flock`: options, lock file, then either `-c STRING` (payload) or the command.
    Flock,
    /// `watch`: options, then the rest joined is a shell string (unless `-x`).
    Watch,
}

/// One wrapper's option grammar.
struct Spec {
    name: &'static str,
    /// Short options that take an argument (attached or separate).
    short_arg: &'static str,
    /// Long options that take a separate argument when written without `=`.
    long_arg: &'static [&'static str],
    /// Short options meaning "no command follows / not an exec" (`command -v`, `sudo -l`).
    stop: &'static str,
    /// Positional operands before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// Stripped for allow rules too (Claude Code's own list).
    safe: bool,
    special: Special,
}

const fn plain(name: &'static str) -> Spec {
    Spec {
        name,
        short_arg: "",
        long_arg: &[],
        stop: "",
        operands: 0,
        safe: false,
        special: Special::Plain,
    }
}

/// Every exec wrapper stripped in front of a command. `safe` marks Claude Code's allow-side list
/// (`timeout time nice nohup stdbuf command builtin noglob`).
const WRAPPERS: &[Spec] = &[
    Spec {
        short_arg: "CDgpRrtTUu",
        long_arg: &[
            "--close-from",
            "--chdir",
            "--group",
            "--host",
            "--prompt",
            "--chroot",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--user",
        ],
        stop: "lvVKe",
        ..plain("sudo")
    },
    Spec {
        short_arg: "uC",
        stop: "C",
        ..plain("doas")
    },
    Spec {
        long_arg: &["--user"],
        ..plain("pkexec")
    },
    Spec {
        short_arg: "uCS",
        long_arg: &["--unset", "--chdir", "--split-string"],
        special: Special::Env,
        ..plain("env")
    },
    Spec {
        short_arg: "sk",
        long_arg: &["--signal", "--kill-after"],
        operands: 1,
        safe: true,
        ..plain("timeout")
    },
    Spec {
        short_arg: "n",
        long_arg: &["--adjustment"],
        safe: true,
        ..plain("nice")
    },
    Spec {
        safe: true,
        ..plain("nohup")
    },
    Spec {
        short_arg: "ioe",
        long_arg: &["--input", "--output", "--error"],
        safe: true,
        ..plain("stdbuf")
    },
    Spec { ..plain("setsid") },
    Spec {
        short_arg: "cnp",
        long_arg: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        stop: "pPu",
        ..plain("ionice")
    },
    Spec {
        short_arg: "wEc",
        long_arg: &["--timeout", "--wait", "--conflict-exit-code", "--command"],
        operands: 1,
        special: Special::Flock,
        ..plain("flock")
    },
    Spec {
        short_arg: "nq",
        long_arg: &["--interval", "--equexit"],
        special: Special::Watch,
        ..plain("watch")
    },
    Spec {
        safe: true,
        stop: "vV",
        ..plain("command")
    },
    Spec {
        safe: true,
        ..plain("builtin")
    },
    Spec {
        short_arg: "a",
        ..plain("exec")
    },
    Spec {
        short_arg: "fo",
        long_arg: &["--format", "--output"],
        safe: true,
        ..plain("time")
    },
    Spec {
        safe: true,
        ..plain("noglob")
    },
    Spec {
        ..plain("nocorrect")
    },
    Spec {
        long_arg: &["--userspec", "--groups"],
        operands: 1,
        ..plain("chroot")
    },
    Spec {
        ..plain("unbuffer")
    },
    Spec {
        short_arg: "tw",
        ..plain("caffeinate")
    },
    Spec {
        short_arg: "f",
        ..plain("proxychains")
    },
    Spec {
        short_arg: "f",
        ..plain("proxychains4")
    },
    Spec {
        short_arg: "udaP",
        ..plain("torsocks")
    },
    Spec {
        stop: "p",
        operands: 1,
        ..plain("taskset")
    },
    Spec {
        short_arg: "T",
        stop: "pm",
        operands: 1,
        ..plain("chrt")
    },
    Spec { ..plain("busybox") },
    // Tracers, sandboxes and namespaces run the command they are given (red-teamed 2026-11-23:
    // `strace rm -rf ~`, `unshare -r rm -rf ~`, `nsenter -t 1 -m rm -rf /` went unseen).
    Spec {
        short_arg: "aAbeEIoOpPsSuX",
        long_arg: &["--output", "--attach", "--user", "--env", "--trace-path"],
        ..plain("strace")
    },
    Spec {
        short_arg: "aAeFlnopsuwx",
        long_arg: &["--output", "--library", "--config"],
        ..plain("ltrace")
    },
    Spec {
        short_arg: "lsib",
        long_arg: &["--lib", "--faked"],
        ..plain("fakeroot")
    },
    Spec {
        ..plain("valgrind")
    },
    Spec {
        ..plain("catchsegv")
    },
    Spec {
        ..plain("firejail")
    },
    Spec {
        short_arg: "SGRw",
        long_arg: &[
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
        ],
        ..plain("unshare")
    },
    Spec {
        short_arg: "tSG",
        long_arg: &["--target", "--setuid", "--setgid"],
        ..plain("nsenter")
    },
    Spec {
        short_arg: "pMuEH",
        long_arg: &[
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--setenv",
            "--machine",
            "--host",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--service-type",
        ],
        ..plain("systemd-run")
    },
];

fn spec(name: &str) -> Option<&'static Spec> {
    WRAPPERS.iter().find(|spec| spec.name == name)
}

/// Whether `text` is a `NAME=value` or `NAME+=value` word, returning name and value.
pub(super) fn split_assignment(text: &str) -> Option<(&str, &str)> {
    let (name, value) = text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    let valid = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

/// Strips wrappers and interleaved assignments from the front of `fields`.
pub(super) fn strip(fields: &[Field]) -> Stripped {
    let mut out = Stripped::default();
    let mut index = 0;
    while let Some(field) = fields.get(index) {
        // `NAME=value` words count as assignments wherever a command could start (after `nohup`,
        // or at the start of an `xargs`/`find -exec` argv): over-reporting the command that follows
        // is safer than hiding it behind a word bash might run as a program name.
        if let Some((name, value)) = split_assignment(&field.text) {
            if fields.get(index + 1).is_none() {
                break;
            }
            out.assignments.push(Assignment {
                name: name.to_owned(),
                value: value.to_owned(),
            });
            out.segments.push(Segment {
                kind: SegmentKind::Assignment,
                tokens: vec![field.text.clone()],
                dynamic: field.dynamic,
            });
            index += 1;
            continue;
        }
        if field.dynamic {
            break;
        }
        let Some(spec) = spec(basename(&field.text)) else {
            break;
        };
        let rest = fields.get(index + 1..).unwrap_or(&[]);
        let Some(parsed) = parse_wrapper(spec, rest) else {
            break;
        };
        out.payloads.extend(parsed.payload);
        let Some(command) = parsed.command.filter(|_| !parsed.keep) else {
            break;
        };
        let end = index + 1 + command;
        out.wrappers.push(spec.name.to_owned());
        out.assignments.extend(parsed.assignments);
        out.segments.push(Segment {
            kind: SegmentKind::Wrapper { safe: spec.safe },
            tokens: fields
                .get(index..end)
                .unwrap_or(&[])
                .iter()
                .map(|f| f.text.clone())
                .collect(),
            dynamic: false,
        });
        index = end;
    }
    out.start = index;
    out
}

/// What one wrapper's arguments hold.
#[derive(Default)]
struct Parsed {
    /// Index (into the wrapper's arguments) of the command; `None` when none follows.
    command: Option<usize>,
    /// The wrapper must stay the command (it runs a payload instead of an argv).
    keep: bool,
    payload: Option<Payload>,
    assignments: Vec<Assignment>,
}

/// Parses one wrapper's options. `None` when the wrapper is used in a form that runs no command.
fn parse_wrapper(spec: &Spec, args: &[Field]) -> Option<Parsed> {
    let mut parsed = Parsed::default();
    let mut index = 0;
    let mut watch_exec = false;
    while let Some(arg) = args.get(index) {
        let text = arg.text.as_str();
        if text == "--" {
            index += 1;
            break;
        }
        if text == "-" && spec.special == Special::Env {
            index += 1;
            continue;
        }
        if let Some(long) = text.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let option = format!("--{name}");
            let takes_arg = spec.long_arg.contains(&option.as_str());
            let value = match (takes_arg, inline) {
                (true, None) => {
                    index += 1;
                    args.get(index).map(|f| f.text.clone())
                }
                (_, value) => value.map(str::to_owned),
            };
            if let Some(value) = value {
                take_payload(spec, &option, value, arg.dynamic, &mut parsed);
            }
            if spec.name == "watch" && option == "--exec" {
                watch_exec = true;
            }
            index += 1;
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            break;
        };
        for (at, flag) in cluster.char_indices() {
            if spec.stop.contains(flag) {
                return None;
            }
            if spec.name == "watch" && flag == 'x' {
                watch_exec = true;
            }
            if spec.short_arg.contains(flag) {
                let attached = cluster.get(at + flag.len_utf8()..).unwrap_or("");
                let value = if attached.is_empty() {
                    index += 1;
                    args.get(index).map(|f| (f.text.clone(), f.dynamic))
                } else {
                    Some((attached.to_owned(), arg.dynamic))
                };
                if let Some((value, dynamic)) = value {
                    take_payload(spec, &format!("-{flag}"), value, dynamic, &mut parsed);
                }
                break;
            }
        }
        index += 1;
    }
    index = index.checked_add(spec.operands)?;
    match spec.special {
        Special::Env => {
            while let Some(arg) = args.get(index) {
                let Some((name, value)) = split_assignment(&arg.text) else {
                    break;
                };
                parsed.assignments.push(Assignment {
                    name: name.to_owned(),
                    value: value.to_owned(),
                });
                index += 1;
            }
        }
        Special::Flock => {
            let option = args.get(index).map(|f| f.text.as_str());
            if matches!(option, Some("-c" | "--command")) {
                if let Some(arg) = args.get(index + 1) {
                    take_payload(spec, "-c", arg.text.clone(), arg.dynamic, &mut parsed);
                }
                return Some(parsed);
            }
        }
        Special::Watch if !watch_exec => {
            let rest = args.get(index..).unwrap_or(&[]);
            if !rest.is_empty() {
                parsed.payload = Some(Payload {
                    text: rest
                        .iter()
                        .map(|f| f.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                    dynamic: rest.iter().any(|f| f.dynamic),
                });
            }
            parsed.keep = true;
            return Some(parsed);
        }
        _ => {}
    }
    if parsed.payload.is_some() {
        parsed.keep = true;
    }
    if index < args.len() {
        parsed.command = Some(index);
    }
    Some(parsed)
}

/// Records the payload options: `env -S`, `flock -c`.
fn take_payload(spec: &Spec, option: &str, value: String, dynamic: bool, parsed: &mut Parsed) {
    let is_payload = match spec.special {
        Special::Env => matches!(option, "-S" | "--split-string"),
        Special::Flock => matches!(option, "-c" | "--command"),
        _ => false,
    };
    if is_payload {
        parsed.payload = Some(Payload {
            text: value,
            dynamic,
        });
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Fields of literal words; a word holding `$` is dynamic.
    pub(in crate::shell) fn fields(words: &[&str]) -> Vec<Field> {
        words
            .iter()
            .map(|w| Field {
                text: (*w).to_owned(),
                dynamic: w.contains('$'),
            })
            .collect()
    }

    fn inner(words: &[&str]) -> (Vec<String>, Vec<String>) {
        let fields = fields(words);
        let stripped = strip(&fields);
        let rest = fields
            .get(stripped.start..)
            .unwrap_or(&[])
            .iter()
            .map(|f| f.text.clone())
            .collect();
        (stripped.wrappers, rest)
    }

    #[test]
    fn strips_wrapper_options() {
        for (words, wrappers, rest) in [
            (
                &["sudo", "-u", "root", "--", "rm", "-rf", "/"][..],
                &["sudo"][..],
                &["rm", "-rf", "/"][..],
            ),
            (
                &["sudo", "-E", "-H", "-n", "-uroot", "rm"],
                &["sudo"],
                &["rm"],
            ),
            (&["timeout", "-s", "KILL", "5", "rm"], &["timeout"], &["rm"]),
            (
                &["timeout", "--kill-after=1", "5s", "rm"],
                &["timeout"],
                &["rm"],
            ),
            (&["nice", "-n", "10", "rm"], &["nice"], &["rm"]),
            (&["nice", "-10", "rm"], &["nice"], &["rm"]),
            (&["stdbuf", "-o0", "-eL", "rm"], &["stdbuf"], &["rm"]),
            (&["stdbuf", "-o", "0", "rm"], &["stdbuf"], &["rm"]),
            (
                &["ionice", "-c", "2", "-n", "7", "-t", "rm"],
                &["ionice"],
                &["rm"],
            ),
            (&["setsid", "-f", "-w", "rm"], &["setsid"], &["rm"]),
            (&["flock", "-w", "5", "/tmp/l", "rm"], &["flock"], &["rm"]),
            (&["exec", "-a", "name", "-c", "rm"], &["exec"], &["rm"]),
            (&["chroot", "/mnt", "rm"], &["chroot"], &["rm"]),
            (&["command", "-p", "rm"], &["command"], &["rm"]),
            (
                &["/usr/bin/env", "-i", "-u", "X", "-C", "/", "A=1", "rm"],
                &["env"],
                &["rm"],
            ),
            (
                &["watch", "-x", "-n", "1", "rm", "x"],
                &["watch"],
                &["rm", "x"],
            ),
            (&["taskset", "-c", "0", "rm"], &["taskset"], &["rm"]),
            (
                &["busybox", "rm", "-rf", "/"],
                &["busybox"],
                &["rm", "-rf", "/"],
            ),
        ] {
            let (got_wrappers, got_rest) = inner(words);
            assert_eq!(got_wrappers, wrappers, "{words:?}");
            assert_eq!(got_rest, rest, "{words:?}");
        }
    }

    #[test]
    fn strips_to_a_fixed_point() {
        let (wrappers, rest) = inner(&[
            "nohup", "FOO=bar", "timeout", "5", "sudo", "env", "X=1", "rm", "-rf", "/",
        ]);
        assert_eq!(wrappers, ["nohup", "timeout", "sudo", "env"]);
        assert_eq!(rest, ["rm", "-rf", "/"]);
    }

    #[test]
    fn queries_and_bare_wrappers_are_not_stripped() {
        for words in [
            &["command", "-v", "rm"][..],
            &["sudo", "-l"],
            &["sudo", "-v"],
            &["env"],
            &["nohup"],
            &["timeout", "5"],
            &["$W", "rm"],
        ] {
            let (wrappers, rest) = inner(words);
            assert!(wrappers.is_empty(), "{words:?}");
            assert_eq!(rest.len(), words.len(), "{words:?}");
        }
    }

    #[test]
    fn payload_wrappers_stay_the_command() {
        let fields = fields(&["watch", "-n", "1", "rm", "-rf", "/tmp/x"]);
        let stripped = strip(&fields);
        assert_eq!(stripped.start, 0);
        assert_eq!(
            stripped.payloads.first().map(|p| p.text.as_str()),
            Some("rm -rf /tmp/x")
        );

        let fields = fields_of(&["flock", "/tmp/l", "-c", "rm -rf /"]);
        let stripped = strip(&fields);
        assert_eq!(stripped.start, 0);
        assert_eq!(
            stripped.payloads.first().map(|p| p.text.as_str()),
            Some("rm -rf /")
        );

        let fields = fields_of(&["env", "-S", "rm -rf /"]);
        let stripped = strip(&fields);
        assert_eq!(stripped.start, 0);
        assert_eq!(
            stripped.payloads.first().map(|p| p.text.as_str()),
            Some("rm -rf /")
        );
    }

    fn fields_of(words: &[&str]) -> Vec<Field> {
        fields(words)
    }

    #[test]
    fn assignments_split() {
        assert_eq!(split_assignment("A=1"), Some(("A", "1")));
        assert_eq!(split_assignment("A+=1"), Some(("A", "1")));
        assert_eq!(split_assignment("1A=1"), None);
        assert_eq!(split_assignment("--x=1"), None);
    }
}
