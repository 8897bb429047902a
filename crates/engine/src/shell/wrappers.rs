//! Exec-wrapper stripping: `sudo -u root env -i X=1 timeout 5 rm …` → `rm …`.
//!
//! Each wrapper in [`WRAPPERS`] is described by its option grammar (which short and long options take
//! an argument, how many operands precede the command), so its options are consumed properly rather
//! than guessed. Stripping repeats to a fixed point, alternating with `NAME=value` words. A wrapper
//! followed by no command is not stripped: it is then the command itself (`sudo -v`, `env`). Wrappers
//! that run a *shell string* rather than an argv (`watch 'cmd'`, `flock f -c 'cmd'`, `env -S 'cmd'`)
//! stay the command and hand the string back as a payload for the caller to parse.
//!
//! Tool runners are wrappers too: a program with a subcommand (`uv run`, `npm exec`, `nix develop
//! -c`, `aws-vault exec PROFILE --`) or alone (`npx`, `uvx`, `xvfb-run`), each with its own option
//! grammar; `npx -c`, `nix-shell --run`, `doppler run --command` and `pnpm -c exec` run shell strings.
//!
//! This module must not parse shell text; it works on already-normalised fields.

use super::exec::home_of;
use super::{Assignment, basename};

/// One normalised argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Field {
    /// Unquoted text (expansions kept as source text).
    pub text: String,
    /// Whether the text holds a run-time expansion.
    pub dynamic: bool,
    /// Whether a dynamic text is all given by values the command line assigned (`CC=gcc; $CC`,
    /// a function call's `"$@"`): it is what the word most likely is, though an allow rule does
    /// not take it for plain text. A substitution's output (`$(echo rm)`) is not such a value.
    pub valued: bool,
}

impl Field {
    /// Whether the text is known well enough to bind a function's parameters: static, or with
    /// values the command line gave (`g "$@"` inside a call of `f ~`). What is only known at run
    /// time keeps its `$` or backtick.
    pub fn is_known(&self) -> bool {
        !self.dynamic || !self.text.contains(['$', '`'])
    }
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

/// Another reading of a wrapper whose spec does not know all of its options: the option may take
/// the word after it (`npx --foo bar rm -rf ~` runs `rm`), so what that reading runs is judged
/// too, and the most restrictive decision wins.
#[derive(Debug, Default)]
pub(super) struct Reading {
    /// Segments stripped up to and including the wrapper read the other way.
    pub segments: Vec<Segment>,
    /// Wrapper names stripped, outermost first.
    pub wrappers: Vec<String>,
    /// Assignments found among those wrappers.
    pub assignments: Vec<Assignment>,
    /// The command this reading runs, with its arguments; empty when it runs none.
    pub fields: Vec<Field>,
    /// A shell string this reading runs (`npx --foo bar -c 'cmd'`).
    pub payload: Option<Payload>,
    /// The directories the wrappers stripped in this reading run the command in (see
    /// [`Stripped::dirs`]).
    pub dirs: Vec<Field>,
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
    /// The fields again when a wrapper rewrote a command word (`hatch run test:pytest` runs
    /// `pytest`); same length and indices as the input.
    pub fields: Option<Vec<Field>>,
    /// Other readings of wrappers given options their specs do not know.
    pub readings: Vec<Reading>,
    /// The directories the stripped wrappers run the command in, outermost first (`env -C DIR`,
    /// `sudo -D DIR`, `chroot DIR`): each relative to the one before.
    pub dirs: Vec<Field>,
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
    /// The command, or with the `short` or `long` option the rest joined as a shell string
    /// (`pnpm exec -c`/`--shell-mode`, `entr -s`).
    ShellMode { short: char, long: &'static str },
    /// `hatch run`: `+x`/`-x` matrix selections, then the command with an `ENV:` prefix.
    Hatch,
    /// Operands and options in any order; the command follows `--` or one of these options
    /// (`nix develop -c`, `mise x node@20 --`); with neither, no command follows.
    Marked(&'static [&'static str]),
    /// `capsh`: its options, then after `--` the arguments of a shell (`capsh -- -c 'cmd'` runs
    /// `bash -c 'cmd'`; `--shell=PATH` names another); with no `--`, no command follows.
    ShellAfterDashes,
    /// `start-stop-daemon --start`: the program is the value of `--startas`/`-a` or
    /// `--exec`/`-x`, its arguments follow `--`; any other action runs no command.
    NamedProgram,
}

/// One wrapper's option grammar.
struct Spec {
    name: &'static str,
    /// Subcommands that make the program a wrapper, words separated by a space (`uv` with `run`
    /// or `tool run`); empty when the program alone is one. Options may come before them.
    sub: &'static [&'static str],
    /// Short options that take an argument (attached or separate).
    short_arg: &'static str,
    /// Long options that take a separate argument when written without `=`.
    long_arg: &'static [&'static str],
    /// Long options that take two separate arguments (bubblewrap's `--bind SRC DEST`).
    long_arg2: &'static [&'static str],
    /// Short options known to take no argument. An option in neither list may take the word
    /// after it: both readings are judged.
    short_flag: &'static str,
    /// Long options known to take no separate argument.
    long_flag: &'static [&'static str],
    /// Short options meaning "no command follows / not an exec" (`command -v`, `sudo -l`).
    stop: &'static str,
    /// Options whose value is a shell string the wrapper runs (`env -S`, `npx -c`).
    payload: &'static [&'static str],
    /// Options whose value is the directory the command runs in (`env -C DIR`, `sudo -D DIR`).
    dir: &'static [&'static str],
    /// Short and long options that run the command from a login shell, in the home directory of
    /// the user it runs as (`sudo -i`, `sudo --login`).
    login_short: &'static str,
    login_long: &'static [&'static str],
    /// Options whose value is the user the command runs as (`sudo -u USER`); root by default.
    user: &'static [&'static str],
    /// Whether the first operand is the directory the command runs in (`chroot DIR`: the new
    /// root, which is also its working directory).
    dir_operand: bool,
    /// Positional operands before the command (`timeout DURATION`, `chroot DIR`).
    operands: usize,
    /// Whether options may follow the operands (`aws-vault exec PROFILE --duration 1h -- cmd`:
    /// its parser reads flags anywhere before `--`); GNU's wrappers stop at the first operand.
    interspersed: bool,
    /// Stripped for allow rules too (Claude Code's own list).
    safe: bool,
    /// Whether a lone command word with blanks is a shell string: terminal emulators run `xterm
    /// -e 'rm -rf ~'` through a shell (or split it as one) rather than look for a program of
    /// that name.
    lone_string: bool,
    /// First operands that are no command but a mode of the program's own (`kitty @ launch`,
    /// `kitty +kitten`): with one, the program runs no command as a wrapper.
    modes: &'static [&'static str],
    special: Special,
}

const fn plain(name: &'static str) -> Spec {
    Spec {
        name,
        sub: &[],
        short_arg: "",
        long_arg: &[],
        long_arg2: &[],
        short_flag: "",
        long_flag: &[],
        stop: "",
        payload: &[],
        dir: &[],
        login_short: "",
        login_long: &[],
        user: &[],
        dir_operand: false,
        operands: 0,
        interspersed: false,
        safe: false,
        lone_string: false,
        modes: &[],
        special: Special::Plain,
    }
}

/// A terminal emulator that runs the words after `-e` (see [`WRAPPERS`]).
const fn plain_terminal(name: &'static str) -> Spec {
    Spec {
        special: Special::Marked(&["-e"]),
        lone_string: true,
        ..plain(name)
    }
}

/// GNOME Terminal's grammar, which MATE's, Xfce's and Terminator share: the command after `--`
/// or `-x`/`--execute`, or one string given to `-e`/`--command`.
const GNOME_TERMINAL: Spec = Spec {
    short_arg: "e",
    long_arg: &["--command", "--working-directory"],
    payload: &["-e", "--command"],
    dir: &["--working-directory"],
    special: Special::Marked(&["-x", "--execute"]),
    lone_string: true,
    ..plain("gnome-terminal")
};

/// foot's grammar, which its server's client, footclient, shares (its `--server-socket`).
const FOOT: Spec = Spec {
    short_arg: "cofFtTawWDdp",
    long_arg: &[
        "--config",
        "--override",
        "--font",
        "--term",
        "--title",
        "--app-id",
        "--window-size-pixels",
        "--window-size-chars",
        "--working-directory",
        "--log-level",
        "--print-pid",
        "--server-socket",
    ],
    short_flag: "LHmhvNE",
    long_flag: &[
        "--login-shell",
        "--hold",
        "--maximized",
        "--fullscreen",
        "--no-wait",
        "--check-config",
    ],
    dir: &["-D", "--working-directory"],
    lone_string: true,
    ..plain("foot")
};

/// sudo's option grammar, which sudo-rs shares.
const SUDO: Spec = Spec {
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
    short_flag: "ABbEHhiNnPSs",
    long_flag: &[
        "--askpass",
        "--bell",
        "--background",
        "--preserve-env",
        "--set-home",
        "--help",
        "--login",
        "--no-update",
        "--non-interactive",
        "--preserve-groups",
        "--stdin",
        "--shell",
    ],
    dir: &["-D", "--chdir"],
    login_short: "i",
    login_long: &["--login"],
    user: &["-u", "--user"],
    ..plain("sudo")
};

/// Every exec wrapper stripped in front of a command. `safe` marks Claude Code's allow-side list
/// (`timeout time nice nohup stdbuf command builtin noglob`).
const WRAPPERS: &[Spec] = &[
    SUDO,
    Spec {
        name: "sudo-rs",
        ..SUDO
    },
    Spec {
        short_arg: "uC",
        stop: "C",
        short_flag: "Lns",
        ..plain("doas")
    },
    Spec {
        long_arg: &["--user"],
        ..plain("pkexec")
    },
    Spec {
        short_arg: "uCS",
        long_arg: &["--unset", "--chdir", "--split-string"],
        payload: &["-S", "--split-string"],
        special: Special::Env,
        short_flag: "i0v",
        long_flag: &[
            "--ignore-environment",
            "--null",
            "--debug",
            "--block-signal",
            "--default-signal",
            "--ignore-signal",
            "--list-signal-handling",
        ],
        dir: &["-C", "--chdir"],
        ..plain("env")
    },
    Spec {
        short_arg: "sk",
        long_arg: &["--signal", "--kill-after"],
        operands: 1,
        safe: true,
        short_flag: "v",
        long_flag: &["--foreground", "--preserve-status", "--verbose"],
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
    Spec {
        short_flag: "cfw",
        long_flag: &["--ctty", "--fork", "--wait"],
        ..plain("setsid")
    },
    // corepack PACKAGE-MANAGER ARGS: the project's pinned npm, pnpm or yarn runs the rest.
    Spec {
        stop: "hv",
        ..plain("corepack")
    },
    Spec {
        short_arg: "cnp",
        long_arg: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        stop: "pPu",
        short_flag: "t",
        long_flag: &["--ignore"],
        ..plain("ionice")
    },
    Spec {
        short_arg: "wEc",
        long_arg: &["--timeout", "--wait", "--conflict-exit-code", "--command"],
        payload: &["-c", "--command"],
        operands: 1,
        special: Special::Flock,
        short_flag: "sxeunoF",
        long_flag: &[
            "--shared",
            "--exclusive",
            "--unlock",
            "--nonblock",
            "--nb",
            "--close",
            "--no-fork",
            "--verbose",
        ],
        ..plain("flock")
    },
    Spec {
        short_arg: "nq",
        long_arg: &["--interval", "--equexit"],
        special: Special::Watch,
        short_flag: "bcCdegprtwx",
        long_flag: &[
            "--beep",
            "--color",
            "--no-color",
            "--differences",
            "--errexit",
            "--chgexit",
            "--precise",
            "--no-rerun",
            "--no-title",
            "--no-wrap",
            "--exec",
        ],
        ..plain("watch")
    },
    // watchexec runs its command through a shell, joined (`watchexec -e js -- npm test`).
    Spec {
        short_arg: "wWFefisdEjo",
        long_arg: &[
            "--watch",
            "--watch-non-recursive",
            "--watch-file",
            "--exts",
            "--filter",
            "--ignore",
            "--signal",
            "--debounce",
            "--env",
            "--filter-prog",
            "--on-busy-update",
            "--shell",
            "--delay-run",
            "--stop-signal",
            "--stop-timeout",
            "--workdir",
            "--project-origin",
            "--emit-events-to",
            "--filter-file",
            "--ignore-file",
            "--color",
            "--poll",
            "--wrap-process",
            "--timeout",
            "--fs-events",
        ],
        special: Special::Watch,
        short_flag: "rcnNpqvVh",
        dir: &["--workdir"],
        ..plain("watchexec")
    },
    Spec {
        safe: true,
        stop: "vV",
        short_flag: "p",
        ..plain("command")
    },
    Spec {
        safe: true,
        ..plain("builtin")
    },
    Spec {
        short_arg: "a",
        short_flag: "cl",
        ..plain("exec")
    },
    Spec {
        short_arg: "fo",
        long_arg: &["--format", "--output"],
        safe: true,
        short_flag: "apqv",
        long_flag: &["--append", "--portability", "--quiet", "--verbose"],
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
        long_flag: &["--skip-chdir"],
        dir_operand: true,
        ..plain("chroot")
    },
    Spec {
        ..plain("unbuffer")
    },
    // moreutils' wrappers: `ifne CMD` runs it when stdin is not empty (`-n`: when it is),
    // `chronic CMD` hides its output unless it fails, `zrun CMD` decompresses its arguments,
    // `lckdo LOCKFILE CMD` holds a lock around it.
    Spec {
        short_flag: "n",
        ..plain("ifne")
    },
    Spec {
        short_flag: "ev",
        ..plain("chronic")
    },
    Spec { ..plain("zrun") },
    Spec {
        short_arg: "W",
        short_flag: "qswxt",
        operands: 1,
        ..plain("lckdo")
    },
    Spec {
        short_arg: "tw",
        short_flag: "dimsu",
        ..plain("caffeinate")
    },
    Spec {
        short_arg: "f",
        short_flag: "q",
        ..plain("proxychains")
    },
    Spec {
        short_arg: "f",
        short_flag: "q",
        ..plain("proxychains4")
    },
    Spec {
        short_arg: "udaP",
        ..plain("torsocks")
    },
    Spec {
        stop: "p",
        operands: 1,
        short_flag: "ac",
        long_flag: &["--all-tasks", "--cpu-list"],
        ..plain("taskset")
    },
    Spec {
        short_arg: "T",
        stop: "pm",
        operands: 1,
        ..plain("chrt")
    },
    Spec { ..plain("busybox") },
    Spec { ..plain("toybox") },
    // shelljs' commands from the command line: `shx rm -rf dist`.
    Spec { ..plain("shx") },
    // Tracers, sandboxes and namespaces run the command they are given (red-teamed 2026-11-23:
    // `strace rm -rf ~`, `unshare -r rm -rf ~`, `nsenter -t 1 -m rm -rf /` went unseen).
    Spec {
        short_arg: "abeEIoOpPsSuUX",
        long_arg: &[
            "--output",
            "--attach",
            "--user",
            "--env",
            "--trace-path",
            "--trace",
            "--signal",
            "--status",
            "--detach-on",
            "--interruptible",
            "--string-limit",
            "--columns",
            "--const-print-style",
            "--summary-sort-by",
            "--summary-columns",
            "--summary-syscall-overhead",
        ],
        short_flag: "AcCdDfFhiknqrtTvwxyYzZ",
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
    // perf runs its command under a profiler: `perf record -g -- cmd`, `perf stat -e E cmd`.
    Spec {
        sub: &[
            "record",
            "stat",
            "trace",
            "kvm",
            "c2c record",
            "mem record",
            "sched record",
        ],
        short_arg: "eopctFCmGIjrDSEx",
        long_arg: &[
            "--event",
            "--output",
            "--pid",
            "--tid",
            "--count",
            "--freq",
            "--cpu",
            "--mmap-pages",
            "--cgroup",
            "--call-graph",
            "--repeat",
            "--delay",
            "--field-separator",
            "--post",
            "--pre",
            "--duration",
        ],
        ..plain("perf")
    },
    Spec {
        short_arg: "eclds",
        long_arg: &[
            "--environment",
            "--config-dir",
            "--lib",
            "--elfloader",
            "--bindir",
        ],
        ..plain("fakechroot")
    },
    // Detached sessions: dtach's and abduco's mode options take the socket or session name.
    Spec {
        short_arg: "acnANper",
        short_flag: "Ez",
        ..plain("dtach")
    },
    Spec {
        short_arg: "cnAae",
        short_flag: "rlqfp",
        ..plain("abduco")
    },
    Spec {
        ..plain("catchsegv")
    },
    Spec {
        ..plain("firejail")
    },
    // bubblewrap: every option takes one or two values but a few; `--args FD` and `--file FD
    // DEST` read from descriptors.
    Spec {
        long_arg: &[
            "--args",
            "--argv0",
            "--userns",
            "--userns2",
            "--pidns",
            "--uid",
            "--gid",
            "--hostname",
            "--chdir",
            "--unsetenv",
            "--lock-file",
            "--sync-fd",
            "--remount-ro",
            "--exec-label",
            "--file-label",
            "--proc",
            "--dev",
            "--tmpfs",
            "--mqueue",
            "--dir",
            "--seccomp",
            "--add-seccomp-fd",
            "--block-fd",
            "--userns-block-fd",
            "--info-fd",
            "--json-status-fd",
            "--cap-add",
            "--cap-drop",
            "--perms",
            "--size",
        ],
        long_arg2: &[
            "--setenv",
            "--bind",
            "--bind-try",
            "--dev-bind",
            "--dev-bind-try",
            "--ro-bind",
            "--ro-bind-try",
            "--bind-fd",
            "--ro-bind-fd",
            "--file",
            "--bind-data",
            "--ro-bind-data",
            "--symlink",
            "--chmod",
            "--overlay-src",
            "--overlay",
            "--tmp-overlay",
            "--ro-overlay",
        ],
        long_flag: &[
            "--unshare-all",
            "--share-net",
            "--unshare-user",
            "--unshare-user-try",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup",
            "--unshare-cgroup-try",
            "--disable-userns",
            "--assert-userns-disabled",
            "--clearenv",
            "--new-session",
            "--die-with-parent",
            "--as-pid-1",
            "--help",
            "--version",
            "--level-prefix",
        ],
        dir: &["--chdir"],
        ..plain("bwrap")
    },
    // setarch ARCH [options] [program]: its options follow the architecture; `linux32` and
    // `linux64` are setarch with the architecture in the name.
    Spec {
        operands: 1,
        interspersed: true,
        short_flag: SETARCH_FLAGS,
        long_flag: SETARCH_LONG_FLAGS,
        stop: "lhV",
        ..plain("setarch")
    },
    Spec {
        short_flag: SETARCH_FLAGS,
        long_flag: SETARCH_LONG_FLAGS,
        ..plain("linux32")
    },
    Spec {
        short_flag: SETARCH_FLAGS,
        long_flag: SETARCH_LONG_FLAGS,
        ..plain("linux64")
    },
    Spec {
        long_arg: &["--config-file", "--dbus-daemon"],
        ..plain("dbus-run-session")
    },
    // entr [options] utility [args]: runs the utility each time a file it is fed changes; with
    // `-s` the utility is a shell string.
    Spec {
        short_flag: "acdnprsz",
        special: Special::ShellMode {
            short: 's',
            long: "",
        },
        ..plain("entr")
    },
    // cpulimit [options] [--] command: `-p PID` and `-e EXE` limit a running process instead.
    Spec {
        short_arg: "lpe",
        long_arg: &["--limit", "--pid", "--exe", "--path"],
        stop: "pe",
        short_flag: "zikrvqbfh",
        long_flag: &[
            "--lazy",
            "--include-children",
            "--verbose",
            "--quiet",
            "--background",
        ],
        ..plain("cpulimit")
    },
    // screen [options] [command [args]]: a detached session (`-dm`) runs the command out of
    // sight; `-r`, `-x`, `-X` and `-ls` reach a session that already runs.
    Spec {
        short_arg: "cehpsStT",
        short_flag: "aAdDfimOqUL",
        stop: "rRxXlQvwV",
        ..plain("screen")
    },
    // Terminal emulators open a window that runs a command instead of the user's shell: the
    // words after `-e` (xterm, urxvt, konsole, alacritty's `--command`, ghostty, Debian's
    // `x-terminal-emulator`), after `--` or `-x`/`--execute` (GNOME's, MATE's, Xfce's,
    // Terminator), or after the options (kitty, foot, st, WezTerm's `start` and `cli spawn`);
    // GNOME's, MATE's, Xfce's, Terminator's, Tilix's, LXTerminal's, QTerminal's and
    // Terminology's `-e`/`--command` take the command as one string, which they split as a
    // shell does. X toolkits' long options with one dash (`-geometry 80x24`) are read as
    // options that may take a value; the `-e` is found wherever it stands.
    plain_terminal("xterm"),
    plain_terminal("uxterm"),
    plain_terminal("urxvt"),
    plain_terminal("urxvtc"),
    plain_terminal("rxvt"),
    plain_terminal("x-terminal-emulator"),
    plain_terminal("ghostty"),
    Spec {
        long_arg: &["--workdir"],
        dir: &["--workdir"],
        ..plain_terminal("konsole")
    },
    Spec {
        long_arg: &["--working-directory"],
        dir: &["--working-directory"],
        special: Special::Marked(&["-e", "--command"]),
        ..plain_terminal("alacritty")
    },
    GNOME_TERMINAL,
    Spec {
        name: "mate-terminal",
        ..GNOME_TERMINAL
    },
    Spec {
        name: "xfce4-terminal",
        ..GNOME_TERMINAL
    },
    Spec {
        name: "terminator",
        ..GNOME_TERMINAL
    },
    Spec {
        short_arg: "ew",
        long_arg: &["--command", "--working-directory"],
        payload: &["-e", "--command"],
        dir: &["-w", "--working-directory"],
        special: Special::Marked(&["-x", "--execute"]),
        lone_string: true,
        ..plain("tilix")
    },
    Spec {
        short_arg: "e",
        long_arg: &["--command", "--working-directory"],
        payload: &["-e", "--command"],
        dir: &["--working-directory"],
        special: Special::Marked(&[]),
        ..plain("lxterminal")
    },
    Spec {
        short_arg: "ew",
        long_arg: &["--execute", "--workdir"],
        payload: &["-e", "--execute"],
        dir: &["-w", "--workdir"],
        special: Special::Marked(&[]),
        ..plain("qterminal")
    },
    Spec {
        short_arg: "e",
        long_arg: &["--exec"],
        payload: &["-e", "--exec"],
        special: Special::Marked(&[]),
        ..plain("terminology")
    },
    // kitty [options] [program [args]]; `kitty +kitten …` and `kitty @ …` run kittens and
    // remote control, no program of their own.
    Spec {
        short_arg: "cotdT1",
        long_arg: &[
            "--config",
            "--override",
            "--title",
            "--class",
            "--name",
            "--directory",
            "--working-directory",
            "--session",
            "--listen-on",
            "--start-as",
            "--instance-group",
            "--watcher",
            "--os-window-tag",
            "--grab-keyboard",
        ],
        short_flag: "vh",
        long_flag: &[
            "--hold",
            "--detach",
            "--single-instance",
            "--wait-for-single-instance-window-close",
            "--debug-input",
            "--debug-gl",
            "--debug-font-fallback",
            "--replay-commands",
            "--dump-commands",
        ],
        dir: &["-d", "--directory", "--working-directory"],
        lone_string: true,
        modes: &[
            "@",
            "+kitten",
            "+runpy",
            "+open",
            "+launch",
            "+complete",
            "+hold",
        ],
        ..plain("kitty")
    },
    // foot [options] [command [args]] (and the server's client, footclient).
    FOOT,
    Spec {
        name: "footclient",
        ..FOOT
    },
    // st [-aiv] [-c class] [-f font] [-g geometry] [-n name] [-o file] [-T title] [-t title]
    // [-l line] [-w id] [[-e] command [args]].
    Spec {
        short_arg: "cfgnoTtlw",
        short_flag: "aive",
        lone_string: true,
        ..plain("st")
    },
    // WezTerm: `wezterm start [options] [--] [prog]` and `wezterm cli spawn [options] [--]
    // [prog]`; the global options before the subcommand take a value.
    Spec {
        sub: &["start", "cli spawn"],
        long_arg: &[
            "--config-file",
            "--config",
            "--cwd",
            "--class",
            "--workspace",
            "--position",
            "--domain",
            "--pane-id",
            "--window-id",
            "--new-window",
        ],
        long_flag: &[
            "--no-auto-connect",
            "--always-new-process",
            "--new-tab",
            "--skip-config",
            "--attach",
        ],
        short_flag: "n",
        dir: &["--cwd"],
        lone_string: true,
        ..plain("wezterm")
    },
    // zellij: `zellij run [options] [--] CMD` and `zellij action new-pane [options] -- CMD` open a
    // pane running the command.
    Spec {
        sub: &["run", "r", "action new-pane"],
        short_arg: "dncs",
        long_arg: &[
            "--direction",
            "--name",
            "--cwd",
            "--session",
            "--config",
            "--layout",
        ],
        short_flag: "fi",
        long_flag: &[
            "--floating",
            "--in-place",
            "--close-on-exit",
            "--start-suspended",
            "--stacked",
        ],
        dir: &["--cwd"],
        lone_string: true,
        ..plain("zellij")
    },
    // ssh-agent [options] command: the agent runs the command with its socket in the environment.
    Spec {
        short_arg: "aEOPt",
        short_flag: "csDd",
        stop: "k",
        ..plain("ssh-agent")
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
        dir: &["-w", "--wd"],
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
        dir: &["--working-directory"],
        ..plain("systemd-run")
    },
    // Password feeders, user and privilege switchers, sandboxes and host escapes, resource and
    // time limiters, terminal adapters, locks, init shims and daemonisers (red-teamed
    // 2026-11-23: each ran `rm -rf ~` unseen).
    Spec {
        short_arg: "pfdP",
        short_flag: "ev",
        stop: "hV",
        ..plain("sshpass")
    },
    Spec {
        long_arg: &[
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
            "--seccomp-filter",
            "--ptracer",
        ],
        long_flag: &[
            "--clear-groups",
            "--keep-groups",
            "--init-groups",
            "--no-new-privs",
            "--reset-env",
        ],
        stop: "dhV",
        ..plain("setpriv")
    },
    Spec {
        operands: 1,
        ..plain("gosu")
    },
    // systemd's `run0`, sudo's stand-in: `run0 [-u USER] [-D DIR] [--setenv=K=V] CMD`.
    Spec {
        short_arg: "ugD",
        long_arg: &[
            "--user",
            "--group",
            "--chdir",
            "--setenv",
            "--nice",
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--machine",
            "--background",
        ],
        long_flag: &["--no-ask-password", "--slice-inherit", "--pty", "--pipe"],
        stop: "hV",
        dir: &["-D", "--chdir"],
        user: &["-u", "--user"],
        ..plain("run0")
    },
    // `please [-u USER] [-d DIR] CMD`, another sudo.
    Spec {
        short_arg: "acdrtu",
        long_arg: &["--allowenv", "--dir", "--reason", "--target", "--user"],
        short_flag: "n",
        long_flag: &["--noprompt"],
        stop: "hlpwc",
        dir: &["-d", "--dir"],
        user: &["-t", "--target", "-u", "--user"],
        ..plain("please")
    },
    // daemontools' and runit's chain loaders: `setuidgid USER CMD`, `envdir DIR CMD`,
    // `envuidgid USER CMD`, `softlimit -m N CMD`.
    Spec {
        operands: 1,
        ..plain("setuidgid")
    },
    Spec {
        operands: 1,
        ..plain("envuidgid")
    },
    Spec {
        operands: 1,
        ..plain("envdir")
    },
    Spec {
        short_arg: "acdflmoprst",
        ..plain("softlimit")
    },
    // Preloads that change how the command does I/O or where it renders, not what it runs.
    plain("eatmydata"),
    plain("nocache"),
    plain("tsocks"),
    Spec {
        short_arg: "dc",
        ..plain("vglrun")
    },
    plain("optirun"),
    plain("primusrun"),
    // `ip netns exec NAME CMD` runs the command in a network namespace.
    Spec {
        sub: &["netns exec"],
        operands: 1,
        ..plain("ip")
    },
    Spec {
        operands: 1,
        ..plain("su-exec")
    },
    Spec {
        operands: 1,
        ..plain("s6-setuidgid")
    },
    Spec {
        operands: 1,
        ..plain("s6-envuidgid")
    },
    Spec {
        short_arg: "uUbe/nlLmdopfcrt",
        short_flag: "vP012",
        ..plain("chpst")
    },
    Spec {
        special: Special::ShellAfterDashes,
        ..plain("capsh")
    },
    Spec {
        short_arg: "rbmqwkiRS",
        long_arg: &[
            "--rootfs",
            "--bind",
            "--mount",
            "--qemu",
            "--pwd",
            "--cwd",
            "--kernel-release",
            "--change-id",
            "--verbose",
        ],
        short_flag: "0",
        long_flag: &["--root-id", "--link2symlink", "--kill-on-exit"],
        stop: "hV",
        dir: &["-w", "--pwd", "--cwd"],
        ..plain("proot")
    },
    Spec {
        long_arg: &[
            "--env",
            "--unset-env",
            "--forward-fd",
            "--directory",
            "--app-path",
            "--usr-path",
            "--sandbox-expose",
            "--sandbox-expose-ro",
            "--sandbox-expose-path",
            "--sandbox-expose-path-ro",
            "--sandbox-flag",
        ],
        long_flag: &[
            "--host",
            "--clear-env",
            "--watch-bus",
            "--expose-pids",
            "--share-pids",
            "--latest-version",
            "--sandbox",
            "--no-network",
            "--verbose",
        ],
        dir: &["--directory"],
        ..plain("flatpak-spawn")
    },
    Spec {
        short_flag: "v",
        long_flag: &["--verbose"],
        stop: "hV",
        ..plain("distrobox-host-exec")
    },
    Spec {
        sub: &["run"],
        short_arg: "cdr",
        long_arg: &[
            "--container",
            "--distro",
            "--release",
            "--preserve-fds",
            "--log-level",
        ],
        short_flag: "yv",
        long_flag: &["--assumeyes", "--verbose"],
        ..plain("toolbox")
    },
    Spec {
        short_arg: "ipmNCPLoMfSI",
        long_arg: &[
            "--interleave",
            "--preferred",
            "--preferred-many",
            "--membind",
            "--cpunodebind",
            "--physcpubind",
            "--length",
            "--offset",
            "--shm",
            "--shmid",
            "--shmmode",
            "--file",
        ],
        short_flag: "labtTuvV",
        long_flag: &[
            "--localalloc",
            "--all",
            "--balancing",
            "--touch",
            "--strict",
            "--huge",
            "--verify",
        ],
        stop: "sH",
        ..plain("numactl")
    },
    // prlimit: a resource's limits are an optional value, attached (`-n10`, `--nofile=10`);
    // `--pid` changes a running process instead.
    Spec {
        short_arg: "o",
        long_arg: &["--output"],
        short_flag: "cdefilmnqrstuvxy",
        long_flag: &[
            "--core",
            "--data",
            "--nice",
            "--fsize",
            "--sigpending",
            "--memlock",
            "--rss",
            "--nofile",
            "--msgqueue",
            "--rtprio",
            "--stack",
            "--cpu",
            "--nproc",
            "--as",
            "--locks",
            "--rttime",
            "--noheadings",
            "--raw",
            "--verbose",
        ],
        stop: "phV",
        ..plain("prlimit")
    },
    Spec {
        operands: 1,
        short_flag: "mf",
        long_arg: &["--date-prog"],
        long_flag: &["--exclude-monotonic"],
        ..plain("faketime")
    },
    Spec {
        short_arg: "bCDefFgHlOPqsStwz",
        short_flag: "AacimnNprRUvWX",
        ..plain("rlwrap")
    },
    Spec { ..plain("winpty") },
    Spec {
        short_arg: "pe",
        short_flag: "svwg",
        stop: "lh",
        ..plain("tini")
    },
    Spec {
        short_arg: "r",
        long_arg: &["--rewrite"],
        short_flag: "cv",
        long_flag: &["--single-child", "--verbose"],
        stop: "hV",
        ..plain("dumb-init")
    },
    Spec {
        short_flag: "gp",
        stop: "PLhV",
        ..plain("catatonit")
    },
    Spec {
        short_arg: "ceopluE",
        short_flag: "av",
        dir: &["-c"],
        ..plain("daemonize")
    },
    Spec {
        special: Special::NamedProgram,
        ..plain("start-stop-daemon")
    },
    // Tool runners agents use all the time (`uv run`, `npx`, `poetry run`, …): the command they run
    // is the one that matters. Grammars from each tool's reference; an option missing here that
    // takes a value would make its value look like the command.
    uv("uv", &["run", "tool run"]),
    uv("uvx", &[]),
    Spec {
        sub: &["run"],
        short_arg: "CP",
        long_arg: &["--directory", "--project"],
        short_flag: "nqvV",
        long_flag: &[
            "--no-interaction",
            "--quiet",
            "--verbose",
            "--ansi",
            "--no-ansi",
            "--no-plugins",
            "--no-cache",
        ],
        dir: &["-C", "--directory"],
        ..plain("poetry")
    },
    Spec {
        sub: &["run"],
        long_arg: &["--python", "--pypi-mirror"],
        ..plain("pipenv")
    },
    Spec {
        sub: &["run"],
        short_arg: "pkc",
        long_arg: &["--project", "--skip", "--venv", "--config", "--pep582"],
        stop: "lj",
        ..plain("pdm")
    },
    Spec {
        sub: &["run"],
        short_arg: "ep",
        long_arg: &[
            "--env",
            "--project",
            "--data-dir",
            "--cache-dir",
            "--config",
        ],
        special: Special::Hatch,
        ..plain("hatch")
    },
    Spec {
        sub: &["run"],
        long_arg: &["--pyproject"],
        stop: "l",
        ..plain("rye")
    },
    conda("conda"),
    conda("mamba"),
    conda("micromamba"),
    Spec {
        sub: &["run"],
        short_arg: "i",
        long_arg: &[
            "--spec",
            "--python",
            "--index-url",
            "--pip-args",
            "--backend",
        ],
        short_flag: "qv",
        long_flag: &[
            "--no-cache",
            "--quiet",
            "--verbose",
            "--system-site-packages",
        ],
        ..plain("pipx")
    },
    Spec {
        short_arg: "pcw",
        long_arg: NPM_LONG_ARG,
        payload: &["-c", "--call"],
        short_flag: "yq",
        long_flag: NPM_LONG_FLAG,
        ..plain("npx")
    },
    Spec {
        sub: &["exec", "x"],
        short_arg: "cw",
        long_arg: NPM_LONG_ARG,
        payload: &["-c", "--call"],
        short_flag: "yq",
        long_flag: NPM_LONG_FLAG,
        ..plain("npm")
    },
    pnpm("pnpm", &["exec", "dlx"]),
    pnpm("pnpx", &[]),
    Spec {
        sub: &["exec", "dlx"],
        short_arg: "p",
        long_arg: &["--package", "--cwd"],
        short_flag: "s",
        long_flag: &["--silent", "--verbose", "--offline"],
        dir: &["--cwd"],
        // Yarn 2's `yarn exec 'rm -rf ~'` runs a shell script in its own shell.
        lone_string: true,
        ..plain("yarn")
    },
    Spec {
        short_arg: "p",
        long_arg: &["--package"],
        long_flag: &["--bun", "--silent"],
        ..plain("bunx")
    },
    Spec {
        sub: &["x"],
        short_arg: "p",
        long_arg: &["--package", "--cwd"],
        dir: &["--cwd"],
        ..plain("bun")
    },
    Spec {
        sub: &["exec"],
        short_arg: "r",
        long_arg: &["--gemfile", "--retry"],
        short_flag: "V",
        long_flag: &["--keep-file-descriptors", "--verbose", "--no-color"],
        ..plain("bundle")
    },
    mise("mise"),
    mise("rtx"),
    Spec {
        sub: &["run", "exec"],
        short_arg: "escp",
        long_arg: &[
            "--environment",
            "--manifest-path",
            "--spec",
            "--channel",
            "--platform",
            "--with",
            "--auth-file",
            "--pypi-keyring-provider",
            "--concurrent-downloads",
            "--concurrent-solves",
            "--color",
        ],
        short_flag: "qvxn",
        long_flag: &[
            "--frozen",
            "--locked",
            "--no-lockfile-update",
            "--no-install",
            "--clean-env",
            "--revalidate",
            "--force-reinstall",
            "--skip-deps",
            "--executable",
            "--dry-run",
            "--tls-no-verify",
            "--quiet",
            "--verbose",
        ],
        ..plain("pixi")
    },
    Spec {
        sub: &["run"],
        long_arg: &[
            "--env",
            "--path",
            "--projectId",
            "--token",
            "--domain",
            "--command",
            "--tags",
            "--watch-interval",
        ],
        payload: &["--command"],
        long_flag: &[
            "--watch",
            "--expand",
            "--include-imports",
            "--recursive",
            "--silent",
            "--secret-overriding",
        ],
        ..plain("infisical")
    },
    Spec {
        sub: &["exec"],
        ..plain("asdf")
    },
    Spec {
        sub: &["exec"],
        operands: 1,
        ..plain("direnv")
    },
    Spec {
        sub: &["develop", "shell"],
        short_arg: "fIjku",
        long_arg: &[
            "--extra-experimental-features",
            "--experimental-features",
            "--option",
            "--arg",
            "--argstr",
            "--override-input",
            "--inputs-from",
            "--reference-lock-file",
            "--output-lock-file",
            "--redirect",
            "--profile",
            "--phase",
            "--keep",
            "--unset",
            "--file",
            "--expr",
            "--include",
            "--store",
            "--eval-store",
            "--log-format",
            "--max-jobs",
        ],
        special: Special::Marked(&["-c", "--command"]),
        ..plain("nix")
    },
    Spec {
        short_arg: "AIi",
        long_arg: &[
            "--run",
            "--command",
            "--arg",
            "--argstr",
            "--attr",
            "--exclude",
            "--keep",
            "--include",
            "--option",
        ],
        payload: &["--run", "--command"],
        special: Special::Marked(&[]),
        ..plain("nix-shell")
    },
    Spec {
        sub: &["run"],
        short_arg: "ce",
        long_arg: &["--config", "--env", "--env-file", "--environment"],
        ..plain("devbox")
    },
    Spec {
        sub: &["run"],
        long_arg: &[
            "--env-file",
            "--account",
            "--config",
            "--encoding",
            "--session",
            "--format",
        ],
        ..plain("op")
    },
    Spec {
        sub: &["run"],
        short_arg: "pc",
        long_arg: &[
            "--project",
            "--config",
            "--command",
            "--token",
            "--fallback",
            "--mount",
            "--mount-format",
            "--mount-template",
            "--mount-max-reads",
            "--name-transformer",
            "--api-host",
            "--dashboard-host",
            "--configuration",
            "--scope",
        ],
        payload: &["--command"],
        ..plain("doppler")
    },
    Spec {
        sub: &["exec"],
        short_arg: "dt",
        long_arg: &[
            "--duration",
            "--mfa-token",
            "--region",
            "--prompt",
            "--backend",
            "--keychain",
        ],
        stop: "j",
        operands: 1,
        interspersed: true,
        short_flag: "ns",
        long_flag: &[
            "--no-session",
            "--server",
            "--ec2-server",
            "--ecs-server",
            "--lazy",
            "--stdout",
        ],
        ..plain("aws-vault")
    },
    dotenv("dotenv"),
    dotenv("dotenv-cli"),
    Spec {
        short_arg: "efnpsw",
        long_arg: &[
            "--error-file",
            "--auth-file",
            "--server-num",
            "--xauth-protocol",
            "--server-args",
            "--wait",
        ],
        short_flag: "adl",
        long_flag: &["--auto-servernum", "--auto-display", "--listen-tcp"],
        ..plain("xvfb-run")
    },
    // Found in the twenty-fourth round, each of them `{}` before: npm scripts' environment
    // setters (`cross-env NODE_ENV=x CMD`, `env-cmd -f .env CMD`), a command run on the host
    // from a container (`host-spawn`), secrets and environments handed to a command (`chamber
    // exec SVC -- CMD`, `flox activate -- CMD`, `scl enable COLL -- CMD`), Haskell's build
    // tools (`stack exec`, `cabal exec`), s6's `with-contenv`, macOS's `sandbox-exec` and
    // `arch`, `systemd-inhibit`, GNU parallel's `sem`, `run-one` and its siblings, pkgx and
    // the multi-call `coreutils` (`coreutils rm -rf ~`).
    Spec {
        special: Special::Env,
        ..plain("cross-env")
    },
    Spec {
        special: Special::Env,
        lone_string: true,
        ..plain("cross-env-shell")
    },
    Spec {
        short_arg: "fer",
        long_arg: &["--file", "--environments", "--rc-file"],
        ..plain("env-cmd")
    },
    plain("host-spawn"),
    Spec {
        sub: &["exec"],
        special: Special::Marked(&[]),
        ..plain("chamber")
    },
    Spec {
        sub: &["activate"],
        special: Special::Marked(&[]),
        ..plain("flox")
    },
    Spec {
        sub: &["enable"],
        special: Special::Marked(&[]),
        ..plain("scl")
    },
    Spec {
        sub: &["exec"],
        long_arg: &["--package", "--cwd", "--stack-yaml", "--resolver"],
        ..plain("stack")
    },
    Spec {
        sub: &["exec"],
        ..plain("cabal")
    },
    plain("with-contenv"),
    Spec {
        short_arg: "fnpD",
        ..plain("sandbox-exec")
    },
    Spec {
        short_arg: "ed",
        ..plain("arch")
    },
    Spec {
        long_arg: &["--what", "--who", "--why", "--mode"],
        ..plain("systemd-inhibit")
    },
    Spec {
        short_arg: "j",
        long_arg: &["--id", "--jobs", "--semaphoretimeout", "--st"],
        ..plain("sem")
    },
    plain("run-one"),
    plain("run-this-one"),
    plain("keep-one-running"),
    plain("run-one-constantly"),
    plain("run-one-until-success"),
    plain("run-one-until-failure"),
    plain("pkgx"),
    plain("coreutils"),
];

/// `uv run`, `uv tool run` and `uvx`; `uv run -m MODULE` runs `python -m`, no command.
const fn uv(name: &'static str, sub: &'static [&'static str]) -> Spec {
    Spec {
        sub,
        short_arg: "bcCfiPpw",
        long_arg: &[
            "--from",
            "--with",
            "--with-editable",
            "--with-requirements",
            "--constraints",
            "--constraint",
            "--overrides",
            "--override",
            "--build-constraints",
            "--build-constraint",
            "--env-file",
            "--extra",
            "--no-extra",
            "--group",
            "--no-group",
            "--only-group",
            "--package",
            "--python",
            "--python-platform",
            "--directory",
            "--project",
            "--cache-dir",
            "--config-file",
            "--color",
            "--index",
            "--default-index",
            "--index-url",
            "--extra-index-url",
            "--find-links",
            "--index-strategy",
            "--keyring-provider",
            "--allow-insecure-host",
            "--trusted-host",
            "--resolution",
            "--prerelease",
            "--fork-strategy",
            "--exclude-newer",
            "--exclude-newer-package",
            "--link-mode",
            "--config-setting",
            "--config-settings",
            "--config-settings-package",
            "--no-build-isolation-package",
            "--no-build-package",
            "--no-binary-package",
            "--upgrade-package",
            "--reinstall-package",
            "--refresh-package",
            "--torch-backend",
        ],
        short_flag: "qvnUs",
        long_flag: &[
            "--frozen",
            "--locked",
            "--no-sync",
            "--isolated",
            "--all-extras",
            "--no-dev",
            "--dev",
            "--no-project",
            "--active",
            "--script",
            "--gui-script",
            "--offline",
            "--quiet",
            "--verbose",
            "--no-cache",
            "--native-tls",
            "--preview",
            "--no-config",
            "--all-packages",
            "--exact",
            "--no-editable",
            "--refresh",
            "--upgrade",
            "--reinstall",
            "--no-build",
            "--no-build-isolation",
            "--no-binary",
            "--compile-bytecode",
            "--no-sources",
            "--no-progress",
            "--no-env-file",
            "--all-groups",
            "--no-default-groups",
            "--only-dev",
        ],
        dir: &["--directory"],
        stop: "m",
        ..plain(name)
    }
}

/// `mise exec`/`mise x`, and `rtx`, mise's former name.
const fn mise(name: &'static str) -> Spec {
    Spec {
        sub: &["exec", "x"],
        short_arg: "cjCE",
        long_arg: &[
            "--command",
            "--jobs",
            "--cd",
            "--env",
            "--allow-env",
            "--allow-net",
            "--allow-read",
            "--allow-write",
        ],
        payload: &["-c", "--command"],
        dir: &["-C", "--cd"],
        special: Special::Marked(&[]),
        ..plain(name)
    }
}

/// `conda run`, `mamba run`, `micromamba run`.
const fn conda(name: &'static str) -> Spec {
    Spec {
        sub: &["run"],
        short_arg: "naper",
        long_arg: &[
            "--name",
            "--prefix",
            "--cwd",
            "--attach",
            "--env",
            "--root-prefix",
            "--rc-file",
            "--log-level",
            "--label",
        ],
        dir: &["--cwd"],
        ..plain(name)
    }
}

/// dotenv-cli's `dotenv` (`dotenv -e .env.local -- next dev`), also run by its package's name
/// (`npx dotenv-cli …`): `-e FILE` loads a dotenv file, `-v NAME=VALUE` sets a variable, `-p NAME`
/// prints one and stops.
const fn dotenv(name: &'static str) -> Spec {
    Spec {
        short_arg: "evcf",
        long_arg: &["--file"],
        stop: "p",
        short_flag: "o",
        long_flag: &["--debug", "--override", "--quiet"],
        ..plain(name)
    }
}

/// The files dotenv-cli wrappers in `segments` load into the command's environment: each
/// `-e FILE` of a `dotenv` or `dotenv-cli` wrapper (`npx dotenv-cli -e .env.local -- next
/// build`), and env-cmd's `-f FILE` (`--file`).
pub(super) fn loaded_env_files(segments: &[Segment]) -> Vec<String> {
    let mut files = Vec::new();
    for segment in segments {
        if !matches!(segment.kind, SegmentKind::Wrapper { .. }) {
            continue;
        }
        if let Some(at) = segment
            .tokens
            .iter()
            .position(|token| basename(token) == "env-cmd")
        {
            let options = segment.tokens.get(at + 1..).unwrap_or(&[]);
            let parsed = crate::argv::Parsed::new(
                options,
                &['f', 'e', 'r'],
                &["file", "environments", "rc-file"],
            );
            files.extend(
                parsed
                    .values(&['f'], &["file"])
                    .into_iter()
                    .map(str::to_owned),
            );
            continue;
        }
        let Some(at) = segment
            .tokens
            .iter()
            .position(|token| matches!(basename(token), "dotenv" | "dotenv-cli"))
        else {
            continue;
        };
        let options = segment.tokens.get(at + 1..).unwrap_or(&[]);
        let spec = dotenv("dotenv");
        let short_value: Vec<char> = spec.short_arg.chars().collect();
        let long_value: Vec<&str> = spec
            .long_arg
            .iter()
            .map(|option| option.trim_start_matches('-'))
            .collect();
        let parsed = crate::argv::Parsed::new(options, &short_value, &long_value);
        files.extend(parsed.values(&['e'], &[]).into_iter().map(str::to_owned));
    }
    files
}

/// `pnpm exec`, `pnpm dlx` and `pnpx`: options come before the subcommand.
const fn pnpm(name: &'static str, sub: &'static [&'static str]) -> Spec {
    Spec {
        sub,
        short_arg: "CF",
        long_arg: &[
            "--dir",
            "--filter",
            "--filter-prod",
            "--package",
            "--allow-build",
            "--resume-from",
            "--reporter",
            "--loglevel",
            "--workspace-concurrency",
            "--test-pattern",
            "--changed-files-ignore-pattern",
        ],
        short_flag: "crsw",
        long_flag: &[
            "--shell-mode",
            "--recursive",
            "--silent",
            "--parallel",
            "--stream",
            "--workspace-root",
        ],
        special: Special::ShellMode {
            short: 'c',
            long: "--shell-mode",
        },
        dir: &["-C", "--dir"],
        ..plain(name)
    }
}

/// setarch's options, none of which takes a value (`-R`, `--addr-no-randomize`, …).
const SETARCH_FLAGS: &str = "v3BFILRSTXZ";
/// See [`SETARCH_FLAGS`].
const SETARCH_LONG_FLAGS: &[&str] = &[
    "--verbose",
    "--3gb",
    "--4gb",
    "--32bit",
    "--fdpic-funcptrs",
    "--short-inode",
    "--addr-compat-layout",
    "--addr-no-randomize",
    "--whole-seconds",
    "--sticky-timeouts",
    "--read-implies-exec",
    "--mmap-page-zero",
    "--uname-2.6",
];

/// npm options without a value that may come before `npx`'s or `npm exec`'s command.
const NPM_LONG_FLAG: &[&str] = &[
    "--yes",
    "--no",
    "--no-install",
    "--quiet",
    "--silent",
    "--ignore-scripts",
    "--workspaces",
    "--include-workspace-root",
    "--prefer-offline",
    "--prefer-online",
    "--offline",
];

/// npm options with a value that may come before `npx`'s or `npm exec`'s command.
const NPM_LONG_ARG: &[&str] = &[
    "--package",
    "--call",
    "--workspace",
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--prefix",
    "--loglevel",
    "--node-options",
    "--script-shell",
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
    let mut rewritten: Option<Vec<Field>> = None;
    let mut index = 0;
    loop {
        let fields = rewritten.as_deref().unwrap_or(fields);
        let Some(field) = fields.get(index) else {
            break;
        };
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
        if field.dynamic && !field.valued {
            break;
        }
        let Some(spec) = spec(basename(&field.text)) else {
            break;
        };
        let rest = fields.get(index + 1..).unwrap_or(&[]);
        let parsed = parse_wrapper(spec, rest, Unknown::Flag);
        if let Some(other) = parse_wrapper(spec, rest, Unknown::Valued)
            && parsed
                .as_ref()
                .is_none_or(|parsed| parsed.runs() != other.runs())
            && let Some(reading) = other_reading(&out, spec, fields, index, other)
        {
            out.readings.push(reading);
        }
        let Some(parsed) = parsed else {
            break;
        };
        let runs = parsed.command.filter(|_| !parsed.keep);
        let copy = runs.and_then(|command| rewrite(fields, index + 1 + command, &parsed));
        out.payloads.extend(parsed.payload);
        let Some(command) = runs else {
            break;
        };
        let end = index + 1 + command;
        out.wrappers.push(spec.name.to_owned());
        out.assignments.extend(parsed.assignments);
        out.dirs.extend(parsed.dir);
        out.segments.push(wrapper_segment(spec, fields, index, end));
        if let Some(copy) = copy {
            rewritten = Some(copy);
        }
        index = end;
    }
    out.start = index;
    out.fields = rewritten;
    out
}

/// The segment of the wrapper at `index` whose command starts at `end`.
/// A wrapper named by a variable's value (`T=timeout; $T 5 git push`) is not a safe one to an
/// allow rule: the name may be another at run time.
fn wrapper_segment(spec: &Spec, fields: &[Field], index: usize, end: usize) -> Segment {
    let named_by_value = fields.get(index).is_some_and(|field| field.dynamic);
    Segment {
        kind: SegmentKind::Wrapper {
            safe: spec.safe && !named_by_value,
        },
        tokens: fields
            .get(index..end)
            .unwrap_or(&[])
            .iter()
            .map(|f| f.text.clone())
            .collect(),
        dynamic: false,
    }
}

/// The fields with the command word at `at` rewritten as `parsed` says (bytes cut from its front,
/// or another program in its place); `None` when it stays as written.
fn rewrite(fields: &[Field], at: usize, parsed: &Parsed) -> Option<Vec<Field>> {
    if parsed.cut.is_none() && parsed.word.is_none() && parsed.runner.is_none() {
        return None;
    }
    let mut copy = fields.to_vec();
    if let Some(word) = copy.get_mut(at) {
        if let Some(program) = &parsed.word {
            word.text.clone_from(program);
        }
        if let Some(cut) = parsed.cut {
            word.text = word.text.get(cut..).unwrap_or_default().to_owned();
        }
    }
    if let Some(runner) = parsed.runner
        && at <= copy.len()
    {
        let program = Field {
            text: runner.to_owned(),
            dynamic: false,
            valued: false,
        };
        copy.insert(at, program);
    }
    Some(copy)
}

/// Whether the wrapper, given these subcommand words, runs a Python script named as its command
/// with Python (`uv run x.py`, `uv run -`), not as a program on the PATH.
fn runs_python_scripts(spec: &Spec, sub: &[Field]) -> bool {
    spec.name == "uv" && matches!(sub, [run] if run.text == "run")
}

/// Whether a command word names a Python script or stdin (`x.py`, `x.pyw`, `-`).
fn is_python_script(word: &Field) -> bool {
    !word.dynamic
        && (word.text == "-"
            || [".py", ".pyw"]
                .iter()
                .any(|suffix| word.text.ends_with(suffix)))
}

/// The reading of the wrapper at `index` in which its unknown options took a value, after what
/// was stripped in front of it; `None` when that reading runs nothing.
fn other_reading(
    out: &Stripped,
    spec: &Spec,
    fields: &[Field],
    index: usize,
    parsed: Parsed,
) -> Option<Reading> {
    let (command, payload) = parsed.runs();
    if command.is_none() && payload.is_none() {
        return None;
    }
    let payload = payload.cloned();
    let mut reading = Reading {
        segments: out.segments.clone(),
        wrappers: out.wrappers.clone(),
        assignments: out.assignments.clone(),
        fields: Vec::new(),
        payload,
        dirs: out.dirs.clone(),
    };
    if let Some(command) = command {
        let end = index + 1 + command;
        let copy = rewrite(fields, end, &parsed);
        reading.wrappers.push(spec.name.to_owned());
        reading.assignments.extend(parsed.assignments);
        reading.dirs.extend(parsed.dir);
        reading
            .segments
            .push(wrapper_segment(spec, fields, index, end));
        let fields = copy.unwrap_or_else(|| fields.to_vec());
        reading.fields = fields.get(end..).unwrap_or(&[]).to_vec();
    }
    Some(reading)
}

/// How an option missing from a wrapper's spec is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unknown {
    /// As a flag: the word after it is the command or another option.
    Flag,
    /// As taking the word after it unless that word is an option, as npx does with any option it
    /// does not know, and getopt with an abbreviation (`timeout --sig KILL 5 rm`).
    Valued,
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
    /// Bytes to drop from the front of the command word (`hatch run test:pytest`).
    cut: Option<usize>,
    /// The directory the command runs in (`env -C DIR`, `chroot DIR`).
    dir: Option<Field>,
    /// Whether it runs the command from a login shell (`sudo -i`).
    login: bool,
    /// The user it runs the command as (`sudo -u USER`).
    user: Option<Field>,
    /// The program that runs in place of the command word, when the wrapper names it elsewhere
    /// (`capsh -- -c cmd` runs `bash -c cmd`; `start-stop-daemon -x /bin/rm -- -rf x`).
    word: Option<String>,
    /// The interpreter the wrapper runs the command word with, as its script (`uv run x.py`
    /// and `uv run -` run Python).
    runner: Option<&'static str>,
}

impl Parsed {
    /// The command it runs once stripped, and the shell string it runs.
    fn runs(&self) -> (Option<usize>, Option<&Payload>) {
        (self.command.filter(|_| !self.keep), self.payload.as_ref())
    }
}

/// Parses one wrapper's options, reading those its spec does not list as `unknown` says. `None`
/// when the wrapper is used in a form that runs no command.
fn parse_wrapper(spec: &Spec, args: &[Field], unknown: Unknown) -> Option<Parsed> {
    match spec.special {
        Special::ShellAfterDashes => return Some(shell_after_dashes(args)),
        Special::NamedProgram => return named_program(args),
        _ => {}
    }
    let mut parsed = Parsed::default();
    let mut index = 0;
    let mut sub_pending = !spec.sub.is_empty();
    // The subcommand words given (`run` of `uv run`).
    let mut sub: &[Field] = &[];
    // Whether the rest is one shell string: `watch` unless `-x`, `pnpm` with `-c`.
    let mut joined = spec.special == Special::Watch;
    // For a `Marked` wrapper: whether `--` or a command option was seen.
    let mut marked = false;
    // Operands read among the options (`interspersed`).
    let mut operands = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text.as_str();
        if text == "--" {
            if sub_pending {
                return None;
            }
            index += 1;
            marked = true;
            break;
        }
        if text == "-" && spec.special == Special::Env {
            index += 1;
            continue;
        }
        if let Special::Marked(options) = spec.special
            && !sub_pending
            && options.contains(&text)
        {
            index += 1;
            marked = true;
            break;
        }
        if spec.special == Special::Hatch
            && !sub_pending
            && (text.starts_with('+') || text.starts_with('-'))
        {
            index += 1;
            continue;
        }
        if let Some(long) = text.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let option = format!("--{name}");
            let takes_arg = spec.long_arg.contains(&option.as_str())
                || (inline.is_none()
                    && !spec.long_flag.contains(&option.as_str())
                    && unknown_value(unknown, args.get(index + 1)));
            if spec.long_arg2.contains(&option.as_str()) {
                index += 3;
                continue;
            }
            let value = match (takes_arg, inline) {
                (true, None) => {
                    index += 1;
                    args.get(index).map(|f| (f.text.clone(), f.dynamic))
                }
                (_, value) => value.map(|value| (value.to_owned(), arg.dynamic)),
            };
            if let Some((value, dynamic)) = value {
                take_value(spec, &option, value, dynamic, &mut parsed);
            }
            parsed.login |= spec.login_long.contains(&option.as_str());
            match (spec.special, option.as_str()) {
                (Special::Watch, "--exec") => joined = false,
                (Special::ShellMode { long, .. }, option) if option == long => joined = true,
                _ => {}
            }
            index += 1;
            continue;
        }
        let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            if sub_pending {
                let words = spec.sub.iter().find_map(|sub| {
                    let words: Vec<&str> = sub.split(' ').collect();
                    let given = args.get(index..index + words.len())?;
                    given
                        .iter()
                        .zip(&words)
                        .all(|(field, word)| !field.dynamic && field.text == *word)
                        .then_some(words.len())
                })?;
                sub = args.get(index..index + words).unwrap_or(&[]);
                index += words;
                sub_pending = false;
                continue;
            }
            if matches!(spec.special, Special::Marked(_)) {
                index += 1;
                continue;
            }
            if spec.interspersed && operands < spec.operands {
                operands += 1;
                index += 1;
                continue;
            }
            break;
        };
        for (at, flag) in cluster.char_indices() {
            if spec.stop.contains(flag) {
                return None;
            }
            parsed.login |= spec.login_short.contains(flag);
            match (spec.special, flag) {
                (Special::Watch, 'x') => joined = false,
                (Special::ShellMode { short, .. }, flag) if flag == short => joined = true,
                _ => {}
            }
            let attached = cluster.get(at + flag.len_utf8()..).unwrap_or("");
            let unknown_takes = !spec.short_flag.contains(flag)
                && unknown == Unknown::Valued
                && (!attached.is_empty() || unknown_value(unknown, args.get(index + 1)));
            if spec.short_arg.contains(flag) || unknown_takes {
                let value = if attached.is_empty() {
                    index += 1;
                    args.get(index).map(|f| (f.text.clone(), f.dynamic))
                } else {
                    Some((attached.to_owned(), arg.dynamic))
                };
                if let Some((value, dynamic)) = value {
                    take_value(spec, &format!("-{flag}"), value, dynamic, &mut parsed);
                }
                break;
            }
        }
        index += 1;
    }
    if sub_pending {
        return None;
    }
    if parsed.login && parsed.dir.is_none() {
        parsed.dir = home_of(parsed.user.as_ref()).map(|text| Field {
            text,
            dynamic: false,
            valued: false,
        });
    }
    if spec.dir_operand && operands == 0 {
        parsed.dir = args.get(index).cloned();
    }
    index = index.checked_add(spec.operands.saturating_sub(operands))?;
    if spec.operands > operands && args.get(index).is_some_and(|f| f.text == "--") {
        index += 1;
    }
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
                    take_value(spec, "-c", arg.text.clone(), arg.dynamic, &mut parsed);
                }
                return Some(parsed);
            }
        }
        Special::Watch | Special::ShellMode { .. } if joined => {
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
        Special::Hatch => {
            // `hatch run ENV:cmd`: the environment is everything up to the last colon.
            if let Some(word) = args.get(index)
                && let Some(colon) = word.text.rfind(':')
            {
                if word.text.len() == colon + 1 {
                    return Some(parsed);
                }
                parsed.cut = Some(colon + 1);
            }
        }
        Special::Marked(_) if !marked => return Some(parsed),
        _ => {}
    }
    if parsed.payload.is_some() {
        parsed.keep = true;
    }
    if args
        .get(index)
        .is_some_and(|word| spec.modes.contains(&word.text.as_str()))
    {
        return None;
    }
    if spec.lone_string
        && let [word] = args.get(index..).unwrap_or(&[])
        && word.text.contains(char::is_whitespace)
    {
        parsed.payload = Some(Payload {
            text: word.text.clone(),
            dynamic: word.dynamic,
        });
        parsed.keep = true;
        return Some(parsed);
    }
    if index < args.len() {
        parsed.command = Some(index);
        parsed.runner = runs_python_scripts(spec, sub)
            .then_some("python3")
            .filter(|_| args.get(index).is_some_and(is_python_script));
        if PACKAGE_RUNNERS.contains(&spec.name) && parsed.cut.is_none() && parsed.word.is_none() {
            parsed.word = args
                .get(index)
                .and_then(|word| unversioned_program(&word.text));
        }
    }
    Some(parsed)
}

/// Wrappers that run a package's program by the package's name, which may carry a version.
const PACKAGE_RUNNERS: &[&str] = &["npx", "bunx", "pnpx", "pnpm", "yarn", "npm", "uvx", "pipx"];

/// The program a package spec names when it carries a version or a scope (`rimraf@5` → `rimraf`,
/// `@scope/tool@1.2` → `tool`, `ruff==0.5` → `ruff`); `None` for a plain name.
fn unversioned_program(spec: &str) -> Option<String> {
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .map_or(("", spec), |(_, rest)| ("@", rest)),
        None => ("", spec),
    };
    let name = rest
        .split(['@', '='])
        .next()
        .filter(|name| !name.is_empty())?;
    (name != spec || !scope.is_empty()).then(|| name.to_owned())
}

/// `capsh [--option=value…] -- ARGS`: the shell (`bash`, or `--shell=PATH`) runs with `ARGS`;
/// the command starts at the `--`, which stands for the shell. Without `--`, no command.
fn shell_after_dashes(args: &[Field]) -> Parsed {
    let mut shell = "bash".to_owned();
    for (at, arg) in args.iter().enumerate() {
        if arg.text == "--" {
            return Parsed {
                command: Some(at),
                word: Some(shell),
                ..Parsed::default()
            };
        }
        if let Some(path) = arg.text.strip_prefix("--shell=") {
            path.clone_into(&mut shell);
        }
    }
    Parsed::default()
}

/// `start-stop-daemon --start --exec PROGRAM [--startas PROGRAM] … [-- ARGS]`: the program runs
/// with `ARGS`; the command starts at the `--` (or, with none, at the program's own word), which
/// stands for the program. Any other action (`--stop`, `--status`) runs no command: `None`.
fn named_program(args: &[Field]) -> Option<Parsed> {
    let mut start = false;
    let mut program: Option<(usize, String)> = None;
    let mut startas = false;
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        let text = arg.text.as_str();
        if text == "--" {
            let (_, program) = program?;
            return start.then(|| Parsed {
                command: Some(at),
                word: Some(program),
                ..Parsed::default()
            });
        }
        let (option, inline) = match text.split_once('=') {
            Some((option, value)) if option.starts_with("--") => (option, Some(value)),
            _ => (text, None),
        };
        match option {
            "-S" | "--start" => start = true,
            "-x" | "--exec" | "-a" | "--startas" => {
                let is_startas = matches!(option, "-a" | "--startas");
                let (index, value) = match inline {
                    Some(value) => (at, value.to_owned()),
                    None => {
                        at += 1;
                        (at, args.get(at)?.text.clone())
                    }
                };
                if is_startas || !startas {
                    program = Some((index, value));
                }
                startas |= is_startas;
            }
            _ => {}
        }
        at += 1;
    }
    let (index, program) = program?;
    start.then(|| Parsed {
        command: Some(index),
        word: Some(program),
        ..Parsed::default()
    })
}

/// Whether an option the spec does not list takes `next` as its value in this reading.
fn unknown_value(unknown: Unknown, next: Option<&Field>) -> bool {
    unknown == Unknown::Valued && next.is_some_and(|next| !next.text.starts_with('-'))
}

/// Records the value of an option that matters: a payload (`env -S`, `flock -c`, `npx -c`,
/// `nix-shell --run`) or the directory the command runs in (`env -C`, `sudo -D`).
fn take_value(spec: &Spec, option: &str, value: String, dynamic: bool, parsed: &mut Parsed) {
    if spec.user.contains(&option) {
        parsed.user = Some(Field {
            text: value.clone(),
            dynamic,
            valued: false,
        });
    }
    if spec.dir.contains(&option) {
        parsed.dir = Some(Field {
            text: value.clone(),
            dynamic,
            valued: false,
        });
    }
    if spec.payload.contains(&option) {
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
                valued: false,
            })
            .collect()
    }

    fn inner(words: &[&str]) -> (Vec<String>, Vec<String>) {
        let fields = fields(words);
        let stripped = strip(&fields);
        let rest = stripped
            .fields
            .as_deref()
            .unwrap_or(&fields)
            .get(stripped.start..)
            .unwrap_or(&[])
            .iter()
            .map(|f| f.text.clone())
            .collect();
        (stripped.wrappers, rest)
    }

    /// The directories the wrappers of `words` run their command in.
    fn dirs(words: &[&str]) -> Vec<String> {
        strip(&fields(words))
            .dirs
            .into_iter()
            .map(|dir| dir.text)
            .collect()
    }

    #[test]
    fn wrappers_name_the_directory_their_command_runs_in() {
        for (words, expected) in [
            (&["env", "-C", "/tmp", "rm", "x"][..], &["/tmp"][..]),
            (&["env", "--chdir=/", "X=1", "rm", "x"][..], &["/"][..]),
            (&["env", "--chdir", "~", "rm", "x"][..], &["~"][..]),
            (&["sudo", "-u", "root", "-D/", "rm", "x"][..], &["/"][..]),
            (
                &["sudo", "-D", "/", "env", "-C", "etc", "rm"][..],
                &["/", "etc"][..],
            ),
            (&["chroot", "/mnt", "rm", "x"][..], &["/mnt"][..]),
            (
                &["chroot", "--userspec", "u", "/mnt", "rm"][..],
                &["/mnt"][..],
            ),
            (&["poetry", "-C", "app", "run", "pytest"][..], &["app"][..]),
            (
                &["uv", "run", "--directory", "app", "pytest"][..],
                &["app"][..],
            ),
            // A login shell starts in the home of the user it runs as.
            (&["sudo", "-i", "rm", "x"][..], &["~root"][..]),
            (&["sudo", "-iu", "bob", "rm", "x"][..], &["~bob"][..]),
            (&["sudo", "--user=bob", "--login", "rm"][..], &["~bob"][..]),
            (&["sudo", "-i", "-D", "/", "rm"][..], &["/"][..]),
            (&["sudo", "-i", "-u", "#0", "rm"][..], &[][..]),
            // Not a directory option: `env -u NAME`, `sudo -u USER`, `timeout DURATION`.
            (&["env", "-u", "HOME", "rm", "x"][..], &[][..]),
            (&["sudo", "-u", "root", "timeout", "5", "rm"][..], &[][..]),
        ] {
            assert_eq!(dirs(words), expected, "{words:?}");
        }
        let dynamic = strip(&fields(&["env", "-C", "$D", "rm", "x"])).dirs;
        assert!(dynamic.first().is_some_and(|dir| dir.dynamic));
        let separate = strip(&fields(&["sudo", "--chdir", "$D", "rm"])).dirs;
        assert!(separate.first().is_some_and(|dir| dir.dynamic));
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
            (&["ifne", "-n", "rm", "x"], &["ifne"], &["rm", "x"]),
            (&["chronic", "-ev", "rm", "x"], &["chronic"], &["rm", "x"]),
            (
                &["xterm", "-geometry", "80x24", "-e", "rm", "x"],
                &["xterm"],
                &["rm", "x"],
            ),
            (
                &["gnome-terminal", "--tab", "--", "rm", "x"],
                &["gnome-terminal"],
                &["rm", "x"],
            ),
            (
                &["kitty", "-d", "/tmp", "rm", "x"],
                &["kitty"],
                &["rm", "x"],
            ),
            (
                &["wezterm", "start", "--cwd", ".", "--", "rm", "x"],
                &["wezterm"],
                &["rm", "x"],
            ),
            (&["lckdo", "-W", "5", "/tmp/l", "rm"], &["lckdo"], &["rm"]),
            (&["sshpass", "-p", "x", "rm"], &["sshpass"], &["rm"]),
            (
                &[
                    "setpriv",
                    "--reuid=1",
                    "--regid",
                    "1",
                    "--init-groups",
                    "rm",
                ],
                &["setpriv"],
                &["rm"],
            ),
            (&["gosu", "u", "rm"], &["gosu"], &["rm"]),
            (
                &["run0", "-u", "root", "--setenv=X=1", "--pty", "rm"],
                &["run0"],
                &["rm"],
            ),
            (&["sudo-rs", "-E", "rm"], &["sudo-rs"], &["rm"]),
            (&["please", "-t", "root", "rm"], &["please"], &["rm"]),
            (
                &[
                    "setuidgid",
                    "u",
                    "envdir",
                    "./env",
                    "softlimit",
                    "-m",
                    "9",
                    "rm",
                ],
                &["setuidgid", "envdir", "softlimit"],
                &["rm"],
            ),
            (
                &["eatmydata", "nocache", "rm"],
                &["eatmydata", "nocache"],
                &["rm"],
            ),
            (&["ip", "netns", "exec", "ns", "rm"], &["ip"], &["rm"]),
            (&["ip", "netns", "list"], &[], &["ip", "netns", "list"]),
            (
                &["prlimit", "--nofile=10", "-n10", "rm"],
                &["prlimit"],
                &["rm"],
            ),
            (&["faketime", "2020-01-01", "rm"], &["faketime"], &["rm"]),
            (
                &["chpst", "-u", "u", "-/", "/srv", "rm"],
                &["chpst"],
                &["rm"],
            ),
            (&["numactl", "-C", "0", "-l", "rm"], &["numactl"], &["rm"]),
        ] {
            let (got_wrappers, got_rest) = inner(words);
            assert_eq!(got_wrappers, wrappers, "{words:?}");
            assert_eq!(got_rest, rest, "{words:?}");
        }
    }

    #[test]
    fn strips_tool_runners() {
        for (words, wrappers, rest) in [
            (
                &["uv", "run", "pytest", "-q"][..],
                &["uv"][..],
                &["pytest", "-q"][..],
            ),
            (
                &["uv", "run", "--with", "requests", "python", "x.py"],
                &["uv"],
                &["python", "x.py"],
            ),
            (
                &[
                    "uv",
                    "--directory",
                    "d",
                    "run",
                    "-p",
                    "3.12",
                    "-w",
                    "x",
                    "--",
                    "python",
                ],
                &["uv"],
                &["python"],
            ),
            (
                &["uv", "tool", "run", "--from", "httpie", "http", "GET", "x"],
                &["uv"],
                &["http", "GET", "x"],
            ),
            (&["uvx", "--from", "httpie", "http"], &["uvx"], &["http"]),
            (&["uvx", "ruff", "check"], &["uvx"], &["ruff", "check"]),
            (
                &["perf", "stat", "-e", "cycles", "rm", "x"],
                &["perf"],
                &["rm", "x"],
            ),
            (
                &["perf", "record", "-g", "--", "./app"],
                &["perf"],
                &["./app"],
            ),
            (
                &["dtach", "-n", "/tmp/s", "-Ez", "rm", "x"],
                &["dtach"],
                &["rm", "x"],
            ),
            (&["abduco", "-n", "s", "rm", "x"], &["abduco"], &["rm", "x"]),
            (
                &["fakechroot", "-e", "e", "rm", "x"],
                &["fakechroot"],
                &["rm", "x"],
            ),
            // `uv run` runs a Python script, or Python's program from stdin, with Python.
            (
                &["uv", "run", "x.py", "-v"],
                &["uv"],
                &["python3", "x.py", "-v"],
            ),
            (&["uv", "run", "-"], &["uv"], &["python3", "-"]),
            (&["uv", "tool", "run", "x.py"], &["uv"], &["x.py"]),
            (
                &["poetry", "-C", "d", "run", "rm", "-rf", "/"],
                &["poetry"],
                &["rm", "-rf", "/"],
            ),
            (
                &["pipenv", "run", "python", "x"],
                &["pipenv"],
                &["python", "x"],
            ),
            (
                &["pdm", "run", "-p", ".", "--venv", "v", "pytest"],
                &["pdm"],
                &["pytest"],
            ),
            (
                &["hatch", "run", "test:pytest", "-x"],
                &["hatch"],
                &["pytest", "-x"],
            ),
            (
                &["hatch", "run", "+py=3.10", "-version=9000", "test:pytest"],
                &["hatch"],
                &["pytest"],
            ),
            (
                &["hatch", "-e", "test", "run", "pytest"],
                &["hatch"],
                &["pytest"],
            ),
            (
                &["hatch", "run", "test:sudo", "rm"],
                &["hatch", "sudo"],
                &["rm"],
            ),
            (&["rye", "run", "pytest"], &["rye"], &["pytest"]),
            (
                &["conda", "run", "-n", "env", "python", "-V"],
                &["conda"],
                &["python", "-V"],
            ),
            (
                &[
                    "micromamba",
                    "run",
                    "-p",
                    "/x",
                    "--cwd",
                    "d",
                    "--",
                    "python",
                ],
                &["micromamba"],
                &["python"],
            ),
            (
                &["pipx", "run", "--spec", "black", "black", "."],
                &["pipx"],
                &["black", "."],
            ),
            (
                &["npx", "prettier", "--check", "."],
                &["npx"],
                &["prettier", "--check", "."],
            ),
            (&["npx", "-p", "typescript", "tsc"], &["npx"], &["tsc"]),
            (
                &["npx", "--yes", "--", "cowsay", "hi"],
                &["npx"],
                &["cowsay", "hi"],
            ),
            (&["npm", "exec", "--", "cowsay"], &["npm"], &["cowsay"]),
            (
                &["npm", "x", "--package=foo", "--", "bar"],
                &["npm"],
                &["bar"],
            ),
            (
                &["npm", "--prefix", "d", "exec", "jest"],
                &["npm"],
                &["jest"],
            ),
            (&["pnpm", "exec", "jest"], &["pnpm"], &["jest"]),
            (
                &[
                    "pnpm",
                    "-r",
                    "--filter",
                    "x",
                    "exec",
                    "rm",
                    "-rf",
                    "node_modules",
                ],
                &["pnpm"],
                &["rm", "-rf", "node_modules"],
            ),
            (
                &["pnpm", "dlx", "create-vue", "app"],
                &["pnpm"],
                &["create-vue", "app"],
            ),
            (&["pnpx", "create-vue"], &["pnpx"], &["create-vue"]),
            (&["yarn", "dlx", "-p", "pkg", "cmd"], &["yarn"], &["cmd"]),
            (&["yarn", "exec", "jest"], &["yarn"], &["jest"]),
            (
                &["bunx", "--bun", "vite", "dev"],
                &["bunx"],
                &["vite", "dev"],
            ),
            (&["bunx", "-p", "@angular/cli", "ng"], &["bunx"], &["ng"]),
            (&["bun", "x", "prettier"], &["bun"], &["prettier"]),
            (&["bundle", "exec", "rspec"], &["bundle"], &["rspec"]),
            (
                &["bundle", "exec", "--gemfile", "G", "rake"],
                &["bundle"],
                &["rake"],
            ),
            (
                &["mise", "exec", "node@20", "--", "node", "app.js"],
                &["mise"],
                &["node", "app.js"],
            ),
            (
                &[
                    "mise", "x", "-C", "d", "python@3", "node@20", "--", "python",
                ],
                &["mise"],
                &["python"],
            ),
            (&["asdf", "exec", "rm"], &["asdf"], &["rm"]),
            (&["direnv", "exec", ".", "rm"], &["direnv"], &["rm"]),
            (&["direnv", "exec", "/d", "--", "rm"], &["direnv"], &["rm"]),
            (
                &["nix", "develop", "-c", "cargo", "test"],
                &["nix"],
                &["cargo", "test"],
            ),
            (
                &[
                    "nix",
                    "develop",
                    ".#foo",
                    "-i",
                    "-k",
                    "HOME",
                    "--command",
                    "make",
                ],
                &["nix"],
                &["make"],
            ),
            (
                &["nix", "shell", "nixpkgs#hello", "nixpkgs#jq", "-c", "hello"],
                &["nix"],
                &["hello"],
            ),
            (
                &[
                    "nix",
                    "--extra-experimental-features",
                    "nix-command flakes",
                    "develop",
                    "-c",
                    "rm",
                ],
                &["nix"],
                &["rm"],
            ),
            (&["devbox", "run", "--", "rm"], &["devbox"], &["rm"]),
            (
                &["devbox", "run", "-e", "A=1", "make"],
                &["devbox"],
                &["make"],
            ),
            (
                &["op", "run", "--env-file", ".env", "--", "rm"],
                &["op"],
                &["rm"],
            ),
            (
                &["doppler", "run", "-p", "p", "-c", "dev", "--", "rm"],
                &["doppler"],
                &["rm"],
            ),
            (
                &["aws-vault", "exec", "prof", "--", "rm"],
                &["aws-vault"],
                &["rm"],
            ),
            (
                &["aws-vault", "exec", "-d", "1h", "prof", "rm"],
                &["aws-vault"],
                &["rm"],
            ),
            (&["dotenv", "-e", ".env", "--", "rm"], &["dotenv"], &["rm"]),
            (
                &["npx", "dotenv-cli", "-e", ".env", "--", "rm"],
                &["npx", "dotenv-cli"],
                &["rm"],
            ),
            (
                &["dotenv", "-e", "a", "-e", "b", "rm"],
                &["dotenv"],
                &["rm"],
            ),
            (
                &["xvfb-run", "-a", "-s", "-screen 0 1x1x24", "npm", "test"],
                &["xvfb-run"],
                &["npm", "test"],
            ),
            (
                &["uv", "run", "sudo", "npx", "rm", "-rf", "/"],
                &["uv", "sudo", "npx"],
                &["rm", "-rf", "/"],
            ),
        ] {
            let (got_wrappers, got_rest) = inner(words);
            assert_eq!(got_wrappers, wrappers, "{words:?}");
            assert_eq!(got_rest, rest, "{words:?}");
        }
    }

    #[test]
    fn runners_without_a_command_are_not_stripped() {
        for words in [
            &["uv", "run"][..],
            &["uv", "run", "-m", "http.server"],
            &["uv", "sync"],
            &["uv", "pip", "install", "x"],
            &["npx", "--version"],
            &["npm", "exec", "--package=foo"],
            &["npm", "install"],
            &["poetry", "install"],
            &["poetry", "run"],
            &["nix", "develop"],
            &["nix", "shell", "nixpkgs#hello"],
            &["nix", "build", "-c", "x"],
            &["mise", "x", "node@20"],
            &["pdm", "run", "-l"],
            &["aws-vault", "exec", "-j", "prof"],
            &["hatch", "run"],
            &["hatch", "run", "test:"],
            &["yarn", "add", "react"],
            &["pnpm", "build"],
            &["dotenv", "-p", "X"],
            &["nix-shell", "-p", "hello"],
            &["uv", "$SUB", "rm"],
        ] {
            let (wrappers, rest) = inner(words);
            assert!(wrappers.is_empty(), "{words:?}");
            assert_eq!(rest.len(), words.len(), "{words:?}");
        }
    }

    #[test]
    fn runners_of_shell_strings_stay_the_command() {
        for (words, payload) in [
            (&["npx", "-c", "rm -rf /"][..], "rm -rf /"),
            (&["npm", "exec", "--call=rm -rf /"], "rm -rf /"),
            (
                &["nix-shell", "-p", "python3", "--run", "rm -rf /"],
                "rm -rf /",
            ),
            (&["nix-shell", "--command", "rm -rf /"], "rm -rf /"),
            (&["doppler", "run", "--command", "rm -rf /"], "rm -rf /"),
            (&["mise", "x", "node@20", "-c", "rm -rf /"], "rm -rf /"),
            (&["xterm", "-hold", "-e", "rm -rf /"], "rm -rf /"),
            (&["gnome-terminal", "--command=rm -rf /"], "rm -rf /"),
            (&["xfce4-terminal", "-e", "rm -rf /"], "rm -rf /"),
            (&["pnpm", "-c", "exec", "rm -rf / && ls"], "rm -rf / && ls"),
            (
                &[
                    "pnpm",
                    "--package",
                    "cowsay",
                    "-c",
                    "dlx",
                    "echo",
                    "hi",
                    "|",
                    "cowsay",
                ],
                "echo hi | cowsay",
            ),
        ] {
            let fields = fields(words);
            let stripped = strip(&fields);
            assert_eq!(stripped.start, 0, "{words:?}");
            assert_eq!(
                stripped.payloads.first().map(|p| p.text.as_str()),
                Some(payload),
                "{words:?}"
            );
        }
    }

    #[test]
    fn wrappers_that_name_the_program_elsewhere() {
        for (words, wrappers, rest) in [
            (
                &["capsh", "--drop=cap_x", "--", "-c", "rm -rf ~"][..],
                &["capsh"][..],
                &["bash", "-c", "rm -rf ~"][..],
            ),
            (
                &["capsh", "--shell=/bin/sh", "--", "x.sh"],
                &["capsh"],
                &["/bin/sh", "x.sh"],
            ),
            (&["capsh", "--print"], &[], &["capsh", "--print"]),
            (
                &["start-stop-daemon", "-S", "-x", "/bin/rm", "--", "-rf", "/"],
                &["start-stop-daemon"],
                &["/bin/rm", "-rf", "/"],
            ),
            (
                &[
                    "start-stop-daemon",
                    "--start",
                    "--exec=/bin/rm",
                    "--startas",
                    "/bin/sh",
                ],
                &["start-stop-daemon"],
                &["/bin/sh"],
            ),
            (
                &[
                    "start-stop-daemon",
                    "--stop",
                    "-x",
                    "/bin/rm",
                    "--",
                    "-rf",
                    "/",
                ],
                &[],
                &[
                    "start-stop-daemon",
                    "--stop",
                    "-x",
                    "/bin/rm",
                    "--",
                    "-rf",
                    "/",
                ],
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
    fn package_specs_name_their_program() {
        for (spec, program) in [
            ("rimraf@5", Some("rimraf")),
            ("rimraf@latest", Some("rimraf")),
            ("@scope/tool@1.2.3", Some("tool")),
            ("@biomejs/biome", Some("biome")),
            ("ruff==0.5.0", Some("ruff")),
            ("rimraf", None),
            ("@", None),
            ("@x", None),
        ] {
            assert_eq!(unversioned_program(spec).as_deref(), program, "{spec}");
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
