//! Shell analysis: turns a Bash command string into every simple command that may run.
//!
//! The command is parsed with `brush-parser` into an AST. Every simple command that may execute —
//! in pipelines, lists, subshells, brace groups, control flow, function bodies, `$(…)`, backticks,
//! `<(…)`/`>(…)`, `bash -c`/`sh -c` payloads, `eval` arguments, here-docs and here-strings fed to a
//! shell, `xargs` and `find -exec` payloads, and what awk, sed (`e`) and git (`rebase -x`,
//! `submodule foreach`, `bisect run`) hand to a shell — comes out as one [`SimpleCommand`], normalised:
//! quotes removed, argv[0] basename-resolved, leading assignments split off, exec wrappers
//! (`sudo`, `env`, `timeout`, `nice`, `nohup`, …) stripped and recorded.
//!
//! What `xargs` reads from standard input stands in its command's argv as `$(xargs input)`, a
//! dynamic argument (appended, or in place of the `-I` replace string).
//!
//! Whatever cannot be decided statically is reported in [`Analysis::unresolved`], never guessed:
//! a parse error, input past the limits, a command name built from a variable or a substitution,
//! `sh -c "$VAR"`. The evaluator treats those as "never allow".
//!
//! Limits are enforced before and during parsing: input past [`ShellLimits::max_len`] is never
//! parsed, input whose nesting budget (brackets, `!`, `&`, `|`, `if`/`do`/`case`) could exhaust the
//! stack is either refused (`TooDeep`) or parsed on a dedicated thread with a stack sized to it, and
//! panics inside brush-parser are contained and reported as parse failures.
//!
//! Submodules: `parse` (the only door to brush-parser), `words` (unquoting, brace expansion,
//! substitutions inside words), `wrappers` (exec-wrapper option grammars), `exec` (shells, `eval`,
//! `xargs`, `find -exec`, …), `views` (deny and allow texts) and `walk` (the AST walk).
//!
//! This module must not evaluate policy; it only describes the command.

use crate::paths::PathContext;

/// The fuel of an analysis under the default limits (see [`ShellLimits::max_fuel`]). The
/// heaviest ordinary command line of the tests (an 11 KiB here-doc script, three substitutions a
/// line, written and then run) burns 1.4M; the benign and case corpora 32K at most.
const DEFAULT_FUEL: u64 = 1 << 23;

/// Bounds on the work [`analyze`] does for one command string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellLimits {
    /// Longest command accepted, in bytes. Longer input is unresolved.
    pub max_len: usize,
    /// Deepest nesting of shell-in-shell (`bash -c`, `eval`, substitutions). Deeper is unresolved.
    pub max_depth: usize,
    /// Most simple commands reported. More is unresolved.
    pub max_commands: usize,
    /// The work the analysis may do, in units of fuel that every part of it burns as it goes
    /// (steps of the walk, bytes of text read, tokens of interpreter code, parts of PowerShell
    /// words). More is unresolved ([`Unresolved::TooMuchWork`]). Counted, not timed: the same
    /// input gets the same answer on any machine.
    pub max_fuel: u64,
}

impl Default for ShellLimits {
    fn default() -> Self {
        Self {
            max_len: 16 * 1024,
            max_depth: 8,
            max_commands: 256,
            max_fuel: DEFAULT_FUEL,
        }
    }
}

/// Everything [`analyze`] found in one command string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every simple command that may run, outermost first, in source order.
    pub commands: Vec<SimpleCommand>,
    /// What could not be decided statically. Empty means the analysis is complete.
    pub unresolved: Vec<Unresolved>,
}

/// Where a simple command was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Directly in the command string (lists, pipelines, subshells, groups, control flow).
    TopLevel,
    /// Inside `$(…)` or backticks.
    CommandSubstitution,
    /// Inside `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// The payload of `bash -c`, `sh -c`, `zsh -c`, … (or `su -c`, `script -c`), and other shell text
    /// the command line defines to run later: `alias name='…'` values and `trap '…' SIGNAL` actions.
    ShellString,
    /// The arguments of `eval`.
    Eval,
    /// A here-doc or here-string fed to a shell.
    HereDoc,
    /// The command `xargs` runs.
    Xargs,
    /// The command `find -exec`, `-execdir`, `-ok` or `-okdir` runs, or `fd -x`/`-X` (with the
    /// files it finds as `DIR/**`).
    FindExec,
    /// Shell text that interpreter code hands to a shell (`python3 -c "os.system('…')"`,
    /// `perl -e 'system "…"'`, `node -e "execSync('…')"`, the same code in a here-doc).
    Interpreter,
    /// The command an exec wrapper runs when the wrapper cannot simply be stripped
    /// (for example `watch 'cmd'`, `flock file -c 'cmd'`, `parallel`).
    Wrapper,
}

/// One simple command, normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Arguments with quotes removed, wrappers stripped; `argv[0]` is the basename of the program
    /// (`/usr/bin/rm` → `rm`, `\rm` → `rm`). Never empty.
    pub argv: Vec<String>,
    /// The program as written, unquoted but not basename-resolved (`/usr/bin/rm`).
    pub program: String,
    /// Leading `NAME=value` assignments, including those given to `env`. Values unquoted.
    pub assignments: Vec<Assignment>,
    /// Exec wrappers stripped in front of the program, outermost first (`sudo`, `timeout`, …).
    pub wrappers: Vec<String>,
    /// Files those wrappers load into the program's environment (`dotenv -e FILE -- cmd`), as
    /// written.
    pub env_files: Vec<String>,
    /// The directories wrappers run the program in, outermost first, each relative to the one
    /// before (`env -C ~ rm -rf .`, `sudo -D / rm -rf etc`, `chroot /mnt …`), including those of
    /// the command whose payload this one is (`env -C / sh -c 'rm -rf etc'`). Expansions are kept
    /// as source text.
    pub dirs: Vec<String>,
    /// Redirections on this command.
    pub redirects: Vec<Redirect>,
    /// Where the command was found.
    pub origin: Origin,
    /// Nesting depth: 0 at top level, +1 for each substitution, `-c` payload, `eval`, …
    pub depth: usize,
    /// The text deny and ask rules are matched against, most stripped first: `argv` joined by single
    /// spaces, then with the wrappers and assignments put back (`sudo rm -rf /`, `FOO=1 sudo rm -rf /`).
    /// A deny or ask rule matches the command when it matches any of them.
    pub deny_views: Vec<String>,
    /// The text allow rules are matched against, in Claude Code's sense: only the safe wrappers
    /// (`timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, `builtin`, `noglob`) and safe-list
    /// environment assignments are stripped; anything else stays in the text (`sudo apt update`,
    /// `LD_PRELOAD=x ls`).
    pub allow_view: String,
    /// Whether every wrapper and assignment before the program is one the allow view strips
    /// (Claude Code's safe wrappers and safe-list variables), so that an allow rule naming the
    /// program (`program:`, `args:`) sees the program itself: `sudo make install` and
    /// `LD_PRELOAD=x make` are not `make` to it.
    pub allow_sees_program: bool,
    /// Whether any argument contains an expansion that is only known at run time
    /// (`$VAR`, `$(…)`, globs are *not* counted). The arguments keep their source text.
    pub has_dynamic_args: bool,
    /// When the command is a pipeline element after the first, the basename of the command feeding
    /// its standard input (`curl -fsSL x | sh` gives `sh` the value `curl`). For a compound element
    /// (`curl x | (sh)`) it is set on the first command inside; when the producer's name is only
    /// known at run time, it is the producer's first word as written (`$CMD`).
    pub stdin_pipe_from: Option<String>,
    /// The text the command line feeds to the command's standard input, when it says: a
    /// here-doc body, a here-string, or what `echo`, `printf` or `cat <<EOF` pipes into it.
    /// Expansions are kept as source text. An interpreter reading its program from stdin
    /// (`python3 - <<'EOF'`) runs it.
    pub stdin_text: Option<String>,
}

/// Wrappers that run a builtin in the shell itself: `command cd`, `builtin cd`, bash's `time`
/// keyword, zsh's `noglob` and `nocorrect`.
const IN_SHELL_WRAPPERS: &[&str] = &["command", "builtin", "time", "noglob", "nocorrect"];

impl SimpleCommand {
    /// Whether a builtin such as `cd`, `pushd` or `popd` acts on the shell the next commands run
    /// in: it is run by no wrapper, or by one that runs builtins in the shell
    /// ([`IN_SHELL_WRAPPERS`]). Any other wrapper (`sudo cd /`, `env cd /`, `timeout 5 cd ~`)
    /// starts a process of its own, whose directory is gone when it ends.
    pub fn runs_in_the_shell(&self) -> bool {
        self.wrappers
            .iter()
            .all(|wrapper| IN_SHELL_WRAPPERS.contains(&basename(wrapper)))
    }

    /// The program's basename (`argv[0]`).
    pub fn name(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }

    /// The arguments after the program.
    pub fn args(&self) -> &[String] {
        self.argv.get(1..).unwrap_or(&[])
    }
}

/// A `NAME=value` assignment in front of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// The value, unquoted (source text if it holds an expansion).
    pub value: String,
}

/// What a redirection does with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `< file`, `<> file` (read side).
    Read,
    /// `> file`, `>| file`, `&> file`, `<> file` (write side).
    Write,
    /// `>> file`, `&>> file`.
    Append,
}

/// One file redirection. Descriptor duplications (`2>&1`) and here-docs are not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// Read, write or append.
    pub kind: RedirectKind,
    /// The target, unquoted (`/dev/null`, `~/.bashrc`, `$HOME/x`).
    pub target: String,
}

/// Something the analysis could not decide statically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// The parser rejected the input.
    Parse(String),
    /// The command is longer than [`ShellLimits::max_len`].
    TooLong,
    /// Nesting deeper than [`ShellLimits::max_depth`], or deeper than the parser can be given
    /// without backtracking past its work budget (expansions nested in one word, in all words of
    /// the command together).
    TooDeep,
    /// More simple commands than [`ShellLimits::max_commands`].
    TooManyCommands,
    /// More work than [`ShellLimits::max_fuel`] allows: the analysis stopped part way.
    TooMuchWork,
    /// A command name that is only known at run time (`$CMD args`, `$(which rm) -rf /`).
    DynamicCommand(String),
    /// A shell payload only known at run time (`sh -c "$X"`, `eval "$(curl …)"`, `bash < <(…)`).
    DynamicScript(String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Parse(message) => write!(f, "the command could not be parsed: {message}"),
            Self::TooLong => f.write_str("the command is longer than the analysis limit"),
            Self::TooDeep => f.write_str("the command nests deeper than the analysis limit"),
            Self::TooManyCommands => {
                f.write_str("the command holds more commands than the analysis limit")
            }
            Self::TooMuchWork => {
                f.write_str("the command takes more work to analyse than the analysis limit allows")
            }
            Self::DynamicCommand(text) => {
                write!(f, "the command name `{text}` is only known at run time")
            }
            Self::DynamicScript(text) => write!(f, "the script `{text}` is only known at run time"),
        }
    }
}

/// Keeps brush-parser's own panics out of the panic hook: the analysis catches them (an fd
/// number past `i32`, `~` followed by a number past `usize`) and reads the command as
/// unparseable, so they are no program fault. Without this each printed a message and, with
/// `RUST_BACKTRACE` set, captured a backtrace (~155 ms each): log noise and CPU any client could
/// cause. Every other panic goes to the hook installed before. Call once, at a program's start
/// (the CLI does, and the fuzz targets).
pub fn quiet_parser_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_parser = info
            .location()
            .is_some_and(|location| location.file().contains("brush-parser"));
        if !in_parser {
            previous(info);
        }
    }));
}

/// Analyses one command string. Never panics; always bounded by `limits`.
///
/// ```
/// use toolgate_engine::shell::{analyze, ShellLimits};
///
/// let analysis = analyze("git status && bash -c 'rm -rf /'", &ShellLimits::default());
/// let names: Vec<&str> = analysis.commands.iter().map(|c| c.name()).collect();
/// assert_eq!(names, ["git", "bash", "rm"]);
/// assert!(analysis.unresolved.is_empty());
/// ```
pub fn analyze(command: &str, limits: &ShellLimits) -> Analysis {
    analyze_at(command, limits, None)
}

/// [`analyze`] for a command run in a known place: the working directory and home of the
/// event, against which the paths of scripts the command line writes and then runs are compared
/// (`echo … > x.sh; bash "$PWD/x.sh"`, `cd /tmp; bash x.sh`).
pub fn analyze_at(
    command: &str,
    limits: &ShellLimits,
    place: Option<&PathContext<'_>>,
) -> Analysis {
    walk_at(walk::Walker::new(limits), command, limits, place).0
}

/// [`analyze_at`] for a PowerShell command: the POSIX script the front end writes for it (see
/// [`powershell::to_posix`]), or the command itself as Bash text when the front end cannot read
/// it. The translation and the walk burn the same fuel. The analysis, and the fuel it left.
fn powershell_at(
    command: &str,
    limits: &ShellLimits,
    place: Option<&PathContext<'_>>,
) -> (Analysis, u64) {
    let walker = walk::Walker::new(limits);
    let posix = powershell::to_posix(command, walker.budget());
    if walker.budget().out_of_fuel() {
        return (walker.into_analysis(), 0);
    }
    walk_at(walker, posix.as_deref().unwrap_or(command), limits, place)
}

/// Walks `command` with `walker`, from `place`: the analysis, and the fuel it left.
fn walk_at(
    mut walker: walk::Walker<'_>,
    command: &str,
    limits: &ShellLimits,
    place: Option<&PathContext<'_>>,
) -> (Analysis, u64) {
    if command.len() > limits.max_len {
        let analysis = Analysis {
            commands: Vec::new(),
            unresolved: vec![Unresolved::TooLong],
        };
        return (analysis, walker.budget().fuel_left());
    }
    if let Some(place) = place {
        walker.place(place);
    }
    walker.script(command, Origin::TopLevel, 0);
    let left = walker.budget().fuel_left();
    (walker.into_analysis(), left)
}

/// The fuel one evaluation has for all its analyses: the analysis of the command, and the
/// packs' analyses of parts of its text again (the substitution `eval "$(…)"` runs, a word
/// `curl -d` sends), which would otherwise each get [`ShellLimits::max_fuel`] of their own, so
/// that a line of many commands (`eval eval k`, `k` calling `h` 250 times) multiplies the work.
/// Each analysis made through it gets at most what is left and takes from it what it burns.
#[derive(Debug)]
pub(crate) struct Fuel {
    /// The units left.
    left: std::cell::Cell<u64>,
}

impl Fuel {
    /// `units` of fuel, for one evaluation.
    pub(crate) fn new(units: u64) -> Self {
        Self {
            left: std::cell::Cell::new(units),
        }
    }

    /// Whether it is all burnt: the evaluation's analyses did more work than one analysis may.
    pub(crate) fn ran_out(&self) -> bool {
        self.left.get() == 0
    }

    /// [`analyze`] with at most the fuel left (and `limits.max_fuel`). Once it is all burnt,
    /// every analysis is [`Unresolved::TooMuchWork`] at once.
    pub(crate) fn analyze(&self, command: &str, limits: &ShellLimits) -> Analysis {
        self.analyze_at(command, limits, None)
    }

    /// [`analyze_at`] with at most the fuel left (see [`Fuel::analyze`]).
    pub(crate) fn analyze_at(
        &self,
        command: &str,
        limits: &ShellLimits,
        place: Option<&PathContext<'_>>,
    ) -> Analysis {
        self.walk(limits, |limits| {
            walk_at(walk::Walker::new(limits), command, limits, place)
        })
    }

    /// [`analyze_at`] for a PowerShell command, with at most the fuel left (see
    /// [`Fuel::analyze`]): the POSIX script the front end writes for it (see
    /// [`powershell::to_posix`]), or the command itself as Bash text when the front end cannot
    /// read it. The translation and the walk burn the same fuel.
    pub(crate) fn analyze_powershell_at(
        &self,
        command: &str,
        limits: &ShellLimits,
        place: Option<&PathContext<'_>>,
    ) -> Analysis {
        self.walk(limits, |limits| powershell_at(command, limits, place))
    }

    /// Runs `analyse` under `limits` with at most the fuel left.
    fn walk(
        &self,
        limits: &ShellLimits,
        analyse: impl FnOnce(&ShellLimits) -> (Analysis, u64),
    ) -> Analysis {
        if self.ran_out() {
            return Analysis {
                commands: Vec::new(),
                unresolved: vec![Unresolved::TooMuchWork],
            };
        }
        self.lend(limits.max_fuel, |units| {
            analyse(&ShellLimits {
                max_fuel: units,
                ..*limits
            })
        })
    }

    /// Runs `read`, a reader of program text, with a budget of at most an analysis's fuel out
    /// of what is left.
    fn read<T>(&self, read: impl FnOnce(&parse::Budget) -> T) -> T {
        self.lend(DEFAULT_FUEL, |units| {
            let budget = parse::Budget::new(units);
            let found = read(&budget);
            (found, budget.fuel_left())
        })
    }

    /// Runs `work` with at most `cap` units of what is left; `work` says what it left of
    /// them, and what it burnt is taken.
    fn lend<T>(&self, cap: u64, work: impl FnOnce(u64) -> (T, u64)) -> T {
        let lent = cap.min(self.left.get());
        let (found, unburnt) = work(lent);
        let burnt = lent.saturating_sub(unburnt);
        self.left.set(self.left.get().saturating_sub(burnt));
        found
    }
}

/// The basename of a program path: `/bin//rm` → `rm`, `./script.sh` → `script.sh`,
/// `git.exe` → `git`, `grm` → `rm` (Homebrew's GNU tools). A path ending in `/` is kept whole.
pub(crate) fn basename(program: &str) -> &str {
    // The last `/` found byte by byte: names are short, and `str::rsplit` sets up a searcher
    // on every call (this runs several times per command).
    let base = match program.bytes().rposition(|byte| byte == b'/') {
        Some(slash) => program
            .get(slash + 1..)
            .filter(|b| !b.is_empty())
            .unwrap_or(program),
        None => program,
    };
    let base = match base.len().checked_sub(4).and_then(|at| base.get(at..)) {
        Some(ext) if ext.eq_ignore_ascii_case(".exe") && base.len() > 4 => {
            base.get(..base.len() - 4).unwrap_or(base)
        }
        _ => base,
    };
    // Homebrew installs GNU's tools beside the system's with a `g` in front (`grm`, `gsed`,
    // `gtimeout`): the same programs.
    match base.strip_prefix('g') {
        Some(gnu) if GNU_PREFIXED.contains(&gnu) => gnu,
        _ => base,
    }
}

/// The GNU tools Homebrew installs under a `g` prefix (coreutils, findutils, sed, grep, tar,
/// patch, m4, which, time), as their own names; `gawk` and `gmake` are names of their own.
const GNU_PREFIXED: &[&str] = &[
    "[",
    "b2sum",
    "base32",
    "base64",
    "basename",
    "basenc",
    "cat",
    "chcon",
    "chgrp",
    "chmod",
    "chown",
    "chroot",
    "cksum",
    "comm",
    "cp",
    "csplit",
    "cut",
    "date",
    "dd",
    "df",
    "dir",
    "dircolors",
    "dirname",
    "du",
    "echo",
    "egrep",
    "env",
    "expand",
    "expr",
    "factor",
    "false",
    "fgrep",
    "find",
    "fmt",
    "fold",
    "grep",
    "groups",
    "head",
    "hostid",
    "id",
    "install",
    "join",
    "kill",
    "link",
    "ln",
    "locate",
    "logname",
    "ls",
    "m4",
    "md5sum",
    "mkdir",
    "mkfifo",
    "mknod",
    "mktemp",
    "mv",
    "nice",
    "nl",
    "nohup",
    "nproc",
    "numfmt",
    "od",
    "paste",
    "patch",
    "pathchk",
    "pinky",
    "pr",
    "printenv",
    "printf",
    "ptx",
    "pwd",
    "readlink",
    "realpath",
    "rm",
    "rmdir",
    "runcon",
    "sed",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shred",
    "shuf",
    "sleep",
    "sort",
    "split",
    "stat",
    "stdbuf",
    "stty",
    "sum",
    "sync",
    "tac",
    "tail",
    "tar",
    "tee",
    "test",
    "time",
    "timeout",
    "touch",
    "tr",
    "true",
    "truncate",
    "tsort",
    "tty",
    "uname",
    "unexpand",
    "uniq",
    "unlink",
    "updatedb",
    "uptime",
    "users",
    "vdir",
    "wc",
    "which",
    "who",
    "whoami",
    "xargs",
    "yes",
];

#[cfg(test)]
mod basename_tests {
    use super::basename;

    #[test]
    fn program_names() {
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("rm.exe"), "rm");
        assert_eq!(basename("/opt/homebrew/bin/grm"), "rm");
        assert_eq!(basename("gsed"), "sed");
        assert_eq!(basename("gtimeout"), "timeout");
        assert_eq!(basename("gcc"), "gcc");
        assert_eq!(basename("git"), "git");
        assert_eq!(basename("gawk"), "gawk");
        assert_eq!(basename("gzip"), "gzip");
    }
}

/// Most bytes of a substitution [`listed_names`] looks into.
const MAX_LISTING_TEXT: usize = 1024;

/// The body of a word that is one command substitution as a whole (`$(find . -name .env)`,
/// `` `ls ~/.ssh` ``), as the analysis keeps such a word.
pub(crate) fn substitution_body(word: &str) -> Option<&str> {
    word.strip_prefix("$(")
        .and_then(|rest| rest.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`')?.strip_suffix('`'))
        .filter(|body| !body.starts_with('('))
}

/// The file names a command substitution's listing command prints, as patterns, when its
/// arguments say them: `find . -name .env` prints `./**/.env`, `ls ~/.ssh/id_*` the pattern
/// itself, `git ls-files '*.pem'` `**/*.pem` (a pathspec without a slash matches at any depth),
/// `fd -g .env` `**/.env`, `fd . ~/.ssh` and `rg --files ~/.ssh` `~/.ssh/**`. Empty for anything
/// else, a pipeline or several commands.
pub(crate) fn listed_names(body: &str) -> Vec<String> {
    if body.len() > MAX_LISTING_TEXT {
        return Vec::new();
    }
    let limits = ShellLimits {
        max_len: MAX_LISTING_TEXT,
        max_depth: 1,
        max_commands: 4,
        max_fuel: DEFAULT_FUEL / 64,
    };
    let analysis = analyze(body, &limits);
    let [command] = analysis.commands.as_slice() else {
        return Vec::new();
    };
    if !analysis.unresolved.is_empty() || command.has_dynamic_args {
        return Vec::new();
    }
    let args = command.args();
    match command.name() {
        "ls" => args
            .iter()
            .filter(|arg| !arg.starts_with('-'))
            .cloned()
            .collect(),
        "echo" | "printf" => walk::printed_words(command.name(), args),
        name => printed_paths(name, args),
    }
}

/// The paths a listing command prints whole, one a line, as patterns (see [`listed_names`];
/// `ls`, which prints a directory's entries without it, aside): `find`'s, `git ls-files`'s,
/// `fd`'s and `rg --files`'s. A pipe into `xargs` hands them on.
pub(crate) fn printed_paths(name: &str, args: &[String]) -> Vec<String> {
    let operands = || args.iter().filter(|arg| !arg.starts_with('-'));
    let below = |dir: &str| format!("{}/**", dir.trim_end_matches('/'));
    let anywhere = |pattern: &String| {
        if pattern.contains('/') {
            pattern.clone()
        } else {
            format!("**/{pattern}")
        }
    };
    match name {
        "find" => find_selected(args, FindOutput::Printed),
        "git" if args.first().is_some_and(|sub| sub == "ls-files") => {
            operands().skip(1).map(anywhere).collect()
        }
        "fd" | "fdfind" if args.iter().any(|arg| arg == "-g" || arg == "--glob") => {
            operands().take(1).map(anywhere).collect()
        }
        // Any other pattern: every file below the paths it names (`fd . ~/.ssh`).
        "fd" | "fdfind" => {
            let paths = exec::fd_search_paths(args);
            let named = paths.iter().any(|path| path != ".");
            match named {
                true => paths.iter().map(|path| below(path)).collect(),
                false => Vec::new(),
            }
        }
        "rg" | "ripgrep" if args.iter().any(|arg| arg == "--files") => {
            operands().map(|path| below(path)).collect()
        }
        _ => Vec::new(),
    }
}

/// Whether a program's own code prints its whole environment, as `env` does: an awk loop over
/// `ENVIRON`, or interpreter code taking `os.environ`, `process.env`, `ENV`, `%ENV` whole.
pub(crate) fn code_lists_environment(simple: &SimpleCommand) -> bool {
    embedded::awk_lists_environment(simple.name(), simple.args())
        || interp::lists_environment(simple)
}

mod embedded;
pub(crate) use embedded::program_files;
mod exec;
mod interp;
mod parse;
pub(crate) mod powershell;
mod runners;
mod views;
mod walk;
mod words;
mod wrappers;

pub use exec::SHELLS;
pub(crate) use exec::{
    FindOutput, NETWORK_PROGRAMS, enclosing_find, find_removed, find_roots, find_selected,
    find_split, reaches_network,
};
pub(crate) use interp::{is_interpreter, is_network_url, reads_program_from_stdin, script_operand};
pub(crate) use interp::{shell_scripts_of, string_literals_of};
pub use views::SAFE_ENV_VARS;

#[cfg(test)]
mod tests;
