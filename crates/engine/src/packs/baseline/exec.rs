//! Remote code execution and dangerous environment rules.
//!
//! Downloaded or decoded content reaching a shell or interpreter is found through the pipeline
//! (`curl … | sh`, walking back through `tee`, `gunzip`, …), through substitutions whose text is
//! analysed again as shell (`sh <(curl …)`, `bash -c "$(curl …)"`, `eval "$(…)"`), and through a
//! downloaded file executed later in the same command. Environment variables that load code are
//! judged on the assignments the analysis split off and on `export` arguments.
//!
//! This module must not flag a download that is only saved, inspected or parsed (`| jq`).

use super::Cmd;
use crate::argv::Parsed;
use crate::evaluate::{downloaded_files, working_dirs};
use crate::packs::{Findings, places};
use crate::paths::{self, PathContext};
pub(super) use crate::shell::is_interpreter;
use crate::shell::reads_program_from_stdin;
use crate::shell::{self, Analysis, Fuel, Origin, ShellLimits, Unresolved};

/// Programs that fetch content from the network.
const FETCHERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "lwp-request",
    "GET",
    "lynx",
];

/// Whether a command decodes base64/base32/hex or percent-encoding (GridSite's `urlencode -d`,
/// which the interpreter reader also names for a percent-decoding done at run time).
fn is_decoder(simple: &shell::SimpleCommand) -> bool {
    let args = simple.args();
    let parsed = Parsed::new(args, &['w', 'i'], &["wrap"]);
    match simple.name() {
        "base64" | "base32" | "basenc" | "gbase64" => parsed.has(&['d', 'D'], &["decode"]),
        "xxd" => parsed.has(&['r'], &["revert"]),
        "urlencode" => parsed.has(&['d'], &[]),
        "uudecode" => true,
        "openssl" => {
            matches!(args.first().map(String::as_str), Some("base64" | "enc"))
                && args.iter().any(|arg| arg == "-d")
        }
        _ => false,
    }
}

/// Whether an interpreter reads its script from stdin (no script operand, no `-c`/`-e`).
fn reads_script_from_stdin(simple: &shell::SimpleCommand) -> bool {
    reads_program_from_stdin(simple.name(), simple.args())
}

/// What the shell text inside a word (`$(…)`, `<(…)`, backticks) runs: fetchers, decoders.
/// The analysis of that text burns the evaluation's `fuel`.
fn substituted(text: &str, fuel: &Fuel) -> (bool, bool) {
    if !(text.contains("$(") || text.contains('`') || text.contains("<(")) {
        return (false, false);
    }
    let limits = ShellLimits {
        max_len: 4096,
        max_depth: 4,
        max_commands: 64,
        ..ShellLimits::default()
    };
    let inner = fuel.analyze(text, &limits);
    let fetch = inner
        .commands
        .iter()
        .any(|cmd| FETCHERS.contains(&cmd.name()))
        || inner.unresolved.iter().any(|u| match u {
            Unresolved::DynamicScript(t) | Unresolved::DynamicCommand(t) => {
                FETCHERS.iter().any(|f| t.contains(&format!("{f} ")))
            }
            _ => false,
        });
    let decode = inner.commands.iter().any(is_decoder);
    (fetch, decode)
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let simple = cmd.simple;
    let name = cmd.name();
    // Pipelines into an interpreter.
    if reads_script_from_stdin(simple) {
        let upstream = cmd.upstream();
        let names = cmd.upstream_names();
        if names.iter().any(|n| FETCHERS.contains(n)) {
            out.add(
                "pipe-download-to-shell",
                format!("downloaded content is piped into `{name}` and would run unreviewed"),
            );
        }
        if upstream.iter().any(|(_, up)| is_decoder(up)) {
            out.add(
                "decoded-payload-to-shell",
                format!(
                    "decoded content is piped into `{name}`; the payload is hidden from review"
                ),
            );
        }
    }
    // A program named by a URL is fetched and run: the command word a runner hands on (`uv run
    // https://…`, `pipx run https://…`) or an interpreter's script (`deno run https://…`).
    let script = is_interpreter(name)
        .then(|| shell::script_operand(name, simple.args()))
        .flatten();
    let fetched = Some(simple.program.clone())
        .into_iter()
        .chain(script)
        .find(|program| shell::is_network_url(program));
    if let Some(url) = fetched {
        out.add(
            "execute-downloaded-script",
            format!("`{name}` would run `{url}`, a program fetched from the network"),
        );
    }
    // A package archive named by its URL (`pip install https://…/x.tar.gz`, `dnf install
    // https://…/x.rpm`) is downloaded and installed in one step: its install scripts run, as
    // for `curl -LO` then `pip install` of the file.
    if installed_files(name, simple.args())
        .iter()
        .any(|file| installs_archive_url(file))
    {
        out.add(
            "execute-downloaded-script",
            format!("`{name}` would install a package fetched from the network and run its install scripts"),
        );
    }
    // Substitutions handed to an interpreter, `eval` or `source`.
    let runs_text = is_interpreter(name) || matches!(name, "eval" | "source" | "." | "exec");
    if runs_text {
        let words = simple
            .args()
            .iter()
            .map(String::as_str)
            .chain(simple.redirects.iter().map(|r| r.target.as_str()));
        for word in words {
            let (fetch, decode) = substituted(word, cmd.fuel);
            if fetch {
                out.add(
                    "execute-downloaded-script",
                    format!("`{name}` would run content fetched from the network"),
                );
            }
            if decode {
                out.add(
                    "decoded-payload-to-shell",
                    format!("`{name}` would run decoded content hidden from review"),
                );
            }
        }
    }
    env(cmd, out);
}

/// Rules over the whole analysis: payloads only known at run time, download-then-run.
pub(super) fn check_analysis(
    analysis: &Analysis,
    ctx: &PathContext<'_>,
    fuel: &Fuel,
    out: &mut Findings,
) {
    for unresolved in &analysis.unresolved {
        if let Unresolved::DynamicScript(text) | Unresolved::DynamicCommand(text) = unresolved {
            let (fetch, decode) = substituted(text, fuel);
            if fetch {
                out.add(
                    "execute-downloaded-script",
                    "a script fetched from the network would run unreviewed",
                );
            }
            if decode {
                out.add(
                    "decoded-payload-to-shell",
                    "decoded content would run as a script, hidden from review",
                );
            }
        }
    }
    // A script only known at run time (`sh <(…)`, `bash < <(…)`, `source <(…)`) while a
    // substitution in the same command fetches or decodes something: that is what runs.
    let dynamic_script = analysis
        .unresolved
        .iter()
        .any(|u| matches!(u, Unresolved::DynamicScript(_)));
    if dynamic_script {
        let substituted = analysis.commands.iter().filter(|cmd| {
            matches!(
                cmd.origin,
                Origin::ProcessSubstitution | Origin::CommandSubstitution
            )
        });
        for cmd in substituted {
            if FETCHERS.contains(&cmd.name()) {
                out.add(
                    "execute-downloaded-script",
                    "a script fetched from the network would run unreviewed",
                );
            }
            if is_decoder(cmd) {
                out.add(
                    "decoded-payload-to-shell",
                    "decoded content would run as a script, hidden from review",
                );
            }
        }
    }
    // Files a fetcher writes, then executed in the same command: each path is read both from
    // the event's cwd and from where an earlier `cd` may have moved the command.
    let dirs = working_dirs(analysis, ctx);
    let contexts = |index: usize| {
        let moved = dirs
            .get(index)
            .and_then(Option::as_deref)
            .map(|cwd| PathContext {
                cwd,
                home: ctx.home,
            });
        std::iter::once(*ctx).chain(moved)
    };
    let mut downloads: Vec<String> = Vec::new();
    for (index, simple) in analysis.commands.iter().enumerate() {
        if !FETCHERS.contains(&simple.name()) {
            continue;
        }
        let written = downloaded_files(simple).into_iter().chain(
            simple
                .redirects
                .iter()
                .filter(|r| r.kind != crate::shell::RedirectKind::Read)
                .map(|r| r.target.clone()),
        );
        for path in written.take(MAX_DOWNLOADS) {
            downloads.extend(contexts(index).map(|place| paths::canonicalize(&path, &place)));
        }
    }
    if downloads.is_empty() {
        return;
    }
    let downloaded = |index: usize, path: &str| {
        contexts(index).any(|place| downloads.contains(&paths::canonicalize(path, &place)))
    };
    for (index, simple) in analysis.commands.iter().enumerate() {
        let runs_program = simple.program.contains('/') && downloaded(index, &simple.program);
        let runs_script = (is_interpreter(simple.name())
            || matches!(simple.name(), "source" | "."))
            && Parsed::new(simple.args(), &['c'], &[])
                .operands
                .first()
                .is_some_and(|script| downloaded(index, script));
        // `sh < i.sh`, `cat i.sh | sh`.
        let reads_script = reads_script_from_stdin(simple)
            && (simple.redirects.iter().any(|r| {
                r.kind == crate::shell::RedirectKind::Read && downloaded(index, &r.target)
            }) || piped_file(analysis, index)
                .is_some_and(|(from, file)| downloaded(from, file)));
        // `dpkg -i x.deb`, `pip install x.tar.gz`: a package's install scripts run.
        let installs = installed_files(simple.name(), simple.args())
            .iter()
            .any(|file| downloaded(index, file));
        if runs_program || runs_script || reads_script || installs {
            out.add(
                "execute-downloaded-script",
                "a file just downloaded from the network would run unreviewed",
            );
        }
    }
}

/// The package files a package manager installs (`dpkg -i`, `apt install ./x.deb`, `rpm
/// -i`/`-U`, `dnf`/`yum`/`zypper install`, `pip install`, `npm`/`pnpm`/`yarn`/`bun` `install`
/// or `add`, `gem install`, `snap install`, `flatpak install`, macOS's `installer -pkg`), whose
/// install scripts run (as root, for the system's): every operand after the subcommand, or the
/// value of the option that names one. Names of packages in a registry are among them, which
/// only a file just downloaded matches.
fn installed_files<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    let parsed = Parsed::new(
        args,
        &['o', 't', 'r', 'c', 'e'],
        &["target", "root", "requirement"],
    );
    let operands = parsed.operands.clone();
    let after = |subcommands: &[&str]| match operands.split_first() {
        Some((sub, rest)) if subcommands.contains(sub) => rest.to_vec(),
        _ => Vec::new(),
    };
    match name {
        "dpkg" if parsed.has(&['i'], &["install", "unpack"]) => operands,
        "rpm" if parsed.has(&['i', 'U', 'F'], &["install", "upgrade", "freshen"]) => operands,
        "apt" | "apt-get" | "dnf" | "yum" | "zypper" | "snap" | "flatpak" | "gem" => {
            after(&["install", "localinstall", "reinstall", "in"])
        }
        "pip" | "pip3" | "uv" | "npm" | "pnpm" | "yarn" | "bun" => {
            let rest = if name == "uv" {
                match operands.split_first() {
                    Some((pip, rest)) if *pip == "pip" => rest.to_vec(),
                    _ => Vec::new(),
                }
            } else {
                operands
            };
            match rest.split_first() {
                Some((sub, files)) if matches!(*sub, "install" | "i" | "add") => files.to_vec(),
                _ => Vec::new(),
            }
        }
        // `python3 -m pip install …` is pip's.
        _ if name.starts_with("python") || name.starts_with("pypy") => {
            crate::argv::python_module_args(args, "pip")
                .map(|rest| installed_files("pip", rest))
                .unwrap_or_default()
        }
        // `installer -pkg FILE -target /`: its options are words of their own.
        "installer" => args
            .windows(2)
            .filter(|pair| pair.first().is_some_and(|option| option == "-pkg"))
            .filter_map(|pair| pair.get(1).map(String::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether an installed package names a network URL of an archive whose install scripts run
/// (`https://…/x.tar.gz`, `x @ https://…/x.zip`, `https://…/x.rpm`); a wheel runs none.
fn installs_archive_url(package: &str) -> bool {
    const ARCHIVES: &[&str] = &[
        ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar", ".zip", ".deb", ".rpm",
        ".gem", ".egg",
    ];
    let lower = package.to_ascii_lowercase();
    let url = ["http://", "https://", "ftp://"]
        .iter()
        .find_map(|scheme| lower.find(scheme))
        .and_then(|at| lower.get(at..));
    let path = url.and_then(|url| url.split(['?', '#']).next());
    path.is_some_and(|path| ARCHIVES.iter().any(|ext| path.ends_with(ext)))
}

/// Most files one fetcher is taken to write.
const MAX_DOWNLOADS: usize = 16;

/// The file `cat FILE` pipes into command `index` (`cat i.sh | sh`), with the index of the
/// `cat`: the pipeline's producer just before it at the same depth.
fn piped_file(analysis: &Analysis, index: usize) -> Option<(usize, &str)> {
    let consumer = analysis.commands.get(index)?;
    let from = consumer.stdin_pipe_from.as_deref()?;
    let (at, producer) = analysis
        .commands
        .iter()
        .enumerate()
        .take(index)
        .rev()
        .find(|(_, c)| c.name() == from && c.depth == consumer.depth)?;
    if producer.name() != "cat" {
        return None;
    }
    match Parsed::new(producer.args(), &[], &[]).operands.as_slice() {
        [file] => Some((at, file)),
        _ => None,
    }
}

/// A pager or editor another program runs: harmless when it names a plain pager or editor, or
/// none (`GIT_EDITOR=true git rebase --continue`), code when it is anything else
/// (`PAGER='rm -rf ~' git log`).
fn runs_as_command(name: &str, value: &str) -> bool {
    const NAMES: &[&str] = &[
        "PAGER",
        "GIT_PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
    ];
    NAMES.contains(&name) && !is_plain_viewer(value)
}

/// Well-known editors and pagers, each with the flags that only change how it shows or waits
/// (none of them names a file it reads settings from or a command it runs: not `vim -c`,
/// `less -k`, `bat --pager`, `emacsclient -a`). `true`, `false` and `:` do nothing.
const PLAIN_VIEWERS: &[(&str, &[&str])] = &[
    ("true", &[]),
    ("false", &[]),
    (":", &[]),
    ("cat", &[]),
    ("more", &[]),
    ("most", &[]),
    (
        "less",
        &[
            "--RAW-CONTROL-CHARS",
            "--quit-if-one-screen",
            "--no-init",
            "--chop-long-lines",
            "--mouse",
        ],
    ),
    (
        "bat",
        &[
            "-p",
            "-pp",
            "--plain",
            "--paging=never",
            "--paging=always",
            "--color=always",
        ],
    ),
    (
        "batcat",
        &[
            "-p",
            "-pp",
            "--plain",
            "--paging=never",
            "--paging=always",
            "--color=always",
        ],
    ),
    (
        "delta",
        &[
            "--dark",
            "--light",
            "-s",
            "--side-by-side",
            "-n",
            "--line-numbers",
            "--color-only",
            "--navigate",
        ],
    ),
    ("diff-so-fancy", &["--patch"]),
    ("diff-highlight", &[]),
    ("vi", &["-f"]),
    ("vim", &["-f", "--nofork"]),
    ("nvim", &[]),
    ("gvim", &["-f", "--nofork"]),
    ("mvim", &["-f", "--nofork"]),
    ("nano", &[]),
    ("pico", &[]),
    ("micro", &[]),
    ("hx", &[]),
    ("helix", &[]),
    ("kak", &[]),
    ("emacs", &["-nw", "--no-window-system"]),
    (
        "emacsclient",
        &["-t", "-c", "-nw", "--tty", "--create-frame"],
    ),
    (
        "code",
        &["--wait", "-w", "--new-window", "-n", "--reuse-window", "-r"],
    ),
    (
        "code-insiders",
        &["--wait", "-w", "--new-window", "-n", "--reuse-window", "-r"],
    ),
    (
        "codium",
        &["--wait", "-w", "--new-window", "-n", "--reuse-window", "-r"],
    ),
    (
        "cursor",
        &["--wait", "-w", "--new-window", "-n", "--reuse-window", "-r"],
    ),
    ("subl", &["-w", "--wait", "-n", "--new-window"]),
    ("mate", &["-w", "--wait"]),
    ("zed", &["--wait", "-w", "--new"]),
    ("gedit", &["-s", "--standalone", "-w", "--wait"]),
    ("kate", &["-b", "--block"]),
];

/// `less`'s display options that may be given clustered (`-R`, `-FRX`, `-SR`).
const LESS_DISPLAY_FLAGS: &str = "RFXSrfiIMmNnJKQqWwEe";

/// Whether an editor or pager setting (`EDITOR`, `core.pager`, `core.editor`) names only
/// [`PLAIN_VIEWERS`] with their flags: `vim`, `code --wait`, `less -FRX`, `less --tabs=4`, and a
/// pipeline of them (`diff-so-fancy | less --tabs=4 -RFX`). Anything else (a path, `!…`, shell
/// text, `sh -c …`, another flag) is a command of the caller's choosing. Empty is no program.
pub(super) fn is_plain_viewer(value: &str) -> bool {
    value.trim().is_empty() || value.split('|').all(is_plain_stage)
}

/// One program of [`is_plain_viewer`]'s pipeline, with its flags.
fn is_plain_stage(stage: &str) -> bool {
    let mut words = stage.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    let Some((_, flags)) = PLAIN_VIEWERS.iter().find(|(name, _)| *name == program) else {
        return false;
    };
    words.all(|word| flags.contains(&word) || (program == "less" && is_less_display_flag(word)))
}

/// `less`'s clustered display options (`-RFX`), tab stops (`-x4`, `--tabs=4`).
fn is_less_display_flag(word: &str) -> bool {
    let digits = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    if let Some(stops) = word
        .strip_prefix("--tabs=")
        .or_else(|| word.strip_prefix("-x"))
    {
        return digits(stops);
    }
    word.strip_prefix('-').is_some_and(|cluster| {
        !cluster.is_empty() && cluster.chars().all(|c| LESS_DISPLAY_FLAGS.contains(c))
    })
}

/// Environment variables that load code into the next program.
fn is_dangerous_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "BASH_ENV",
        "ENV",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_EXEC_PATH",
        "GIT_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "GIT_TEMPLATE_DIR",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "LESSOPEN",
        "LESSCLOSE",
        "SUDO_ASKPASS",
        "SSH_ASKPASS",
    ];
    EXACT.contains(&name)
        // npm reads its configuration from the environment in any case: the shell that runs
        // package scripts (`npm_config_script_shell=/tmp/x npm test`).
        || name.eq_ignore_ascii_case("npm_config_script_shell")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_CONFIG")
        // Exported functions: `BASH_FUNC_ls%%=() { …; }` redefines `ls` in the next bash.
        || name.starts_with("BASH_FUNC_")
}

/// Variables holding a `:`-separated search path for programs or modules.
const SEARCH_PATHS: &[&str] = &[
    "PATH",
    "PYTHONPATH",
    "NODE_PATH",
    "RUBYLIB",
    "PERL5LIB",
    "PERLLIB",
];

/// `NODE_OPTIONS` flags that only tune the runtime (memory, warnings, source maps, the legacy
/// OpenSSL provider, ES modules in `vm`), each alone or with `=VALUE`. Not the ones that load
/// code (`--require`, `-r`, `--import`, `--loader`, `--experimental-loader`), read a file of
/// settings (`--openssl-config`, `--env-file`) or open a debugger (`--inspect`).
const PLAIN_NODE_OPTIONS: &[&str] = &[
    "--max-old-space-size",
    "--max-semi-space-size",
    "--stack-size",
    "--stack-trace-limit",
    "--enable-source-maps",
    "--no-warnings",
    "--no-deprecation",
    "--trace-warnings",
    "--trace-deprecation",
    "--trace-uncaught",
    "--throw-deprecation",
    "--pending-deprecation",
    "--disable-warning",
    "--unhandled-rejections",
    "--openssl-legacy-provider",
    "--use-openssl-ca",
    "--use-system-ca",
    "--dns-result-order",
    "--max-http-header-size",
    "--experimental-vm-modules",
    "--experimental-fetch",
    "--no-experimental-fetch",
    "--experimental-specifier-resolution",
    "--no-network-family-autoselection",
    "--expose-gc",
    "--heapsnapshot-near-heap-limit",
    "--report-on-fatalerror",
];

/// Whether a variable's value makes the next program load code of the caller's choosing:
/// `NODE_OPTIONS` with a flag outside [`PLAIN_NODE_OPTIONS`]; a search path
/// ([`SEARCH_PATHS`]) with an entry outside the project and the system's directories; any value
/// of the other variables of [`is_dangerous_env`].
fn loads_code(cmd: &Cmd<'_>, name: &str, value: &str) -> bool {
    if name == "NODE_OPTIONS" {
        return !value.split_whitespace().all(|flag| {
            let flag = flag.split_once('=').map_or(flag, |(flag, _)| flag);
            PLAIN_NODE_OPTIONS.contains(&flag)
        }) || value.contains(['$', '`']);
    }
    if SEARCH_PATHS.contains(&name) {
        return !value
            .split(':')
            .all(|entry| is_trusted_search_entry(cmd, name, entry));
    }
    is_dangerous_env(name)
}

/// Whether one entry of the search path `name` holds only what the agent's own writes show or
/// only root may change: the value it had (`$PATH`), an entry inside the project (`src`, `.`,
/// `$PWD/bin`, `./node_modules/.bin`), a system directory (`/usr/local/opt/x/bin`), or for
/// `PATH` a directory already on a usual one (`$HOME/.cargo/bin`, where a write is judged as a
/// program on `PATH`). Not a temp directory, the rest of the home, or a place only known at run
/// time (`$DIR`).
fn is_trusted_search_entry(cmd: &Cmd<'_>, name: &str, entry: &str) -> bool {
    if entry == format!("${name}") || entry == format!("${{{name}}}") {
        return true;
    }
    let entry = if entry.is_empty() { "." } else { entry };
    let Some(resolved) = places::resolvable(entry) else {
        return false;
    };
    let path = cmd.canonical(&resolved);
    if places::is_dynamic(&path) || places::has_glob(&path) {
        return false;
    }
    let ctx = &cmd.ctx;
    if places::is_in_project(&path, ctx) || (name == "PATH" && places::is_path_dir(&path, ctx)) {
        return true;
    }
    let in_home = ctx.home.is_some_and(|home| paths::is_within(&path, home));
    !in_home
        && !places::SCRATCH_DIRS
            .iter()
            .any(|scratch| paths::is_within(&path, scratch))
        && places::SYSTEM_DIRS
            .iter()
            .any(|system| paths::is_within(&path, system))
}

fn env(cmd: &Cmd<'_>, out: &mut Findings) {
    for assignment in &cmd.simple.assignments {
        let name = assignment.name.as_str();
        let value = assignment.value.as_str();
        if loads_code(cmd, name, value) || runs_as_command(name, value) {
            out.add(
                "dangerous-env-assignment",
                format!(
                    "`{name}=…` changes which code `{}` loads or runs",
                    cmd.name()
                ),
            );
        }
    }
    if matches!(
        cmd.name(),
        "export" | "declare" | "typeset" | "setenv" | "readonly" | "local"
    ) {
        for arg in cmd.args() {
            let (name, value) = arg.split_once('=').unwrap_or((arg.as_str(), ""));
            if cmd.name() != "setenv" && !arg.contains('=') {
                continue;
            }
            // An exported `PATH` is judged by the commands that later run from it.
            let loads = name != "PATH" && loads_code(cmd, name, value);
            if loads || runs_as_command(name, value) {
                out.add(
                    "dangerous-env-assignment",
                    format!("exporting `{name}` changes which code every later command loads"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_plain_viewer;
    use crate::evaluate::downloaded_files;
    use crate::shell::{ShellLimits, analyze};

    #[test]
    fn files_fetchers_save_to() {
        let files = |line: &str| {
            let analysis = analyze(line, &ShellLimits::default());
            analysis
                .commands
                .first()
                .map(downloaded_files)
                .unwrap_or_default()
        };
        assert_eq!(files("curl -sSLo i.sh https://x/y"), ["i.sh"]);
        assert_eq!(files("curl --output-dir d -O https://x/i.sh"), ["d/i.sh"]);
        assert_eq!(files("curl https://x/i.sh"), Vec::<String>::new());
        assert_eq!(files("wget -q https://x/i.sh"), ["i.sh"]);
        assert_eq!(files("wget -P /tmp/ https://x/i.sh"), ["/tmp/i.sh"]);
        assert_eq!(files("wget -qO- https://x/i.sh"), Vec::<String>::new());
        assert_eq!(files("aria2c -d d -x 4 https://x/i.sh"), ["d/i.sh"]);
        assert_eq!(files("fetch https://x/i.sh"), ["i.sh"]);
        assert_eq!(files("http -v https://x/i.sh"), Vec::<String>::new());
        assert_eq!(files("xh -d https://x/i.sh"), ["i.sh"]);
    }

    #[test]
    fn plain_editors_and_pagers() {
        for value in [
            "",
            "vim",
            "code --wait",
            "subl -w",
            "less -FRX",
            "less -x4",
            "diff-so-fancy | less --tabs=4 -RFX",
            "delta --side-by-side",
        ] {
            assert!(is_plain_viewer(value), "{value}");
        }
        for value in [
            "/usr/bin/vim",
            "vim -c '!id'",
            "less -k/tmp/keys",
            "less +!id",
            "bat --pager=id",
            "less | sh",
            "less ||",
            "emacsclient -a id",
            "sh -c vim",
            "vim; id",
        ] {
            assert!(!is_plain_viewer(value), "{value}");
        }
    }
}
