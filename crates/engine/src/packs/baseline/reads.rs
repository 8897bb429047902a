//! Secret-read rules: SSH private keys, credential files, dotenv files, process environments and
//! system secret stores, read with Read, Grep, Glob or any Bash reader (`cat`, `grep`, `cp`,
//! `tar`, `base64`, `source`, `<`, editors, `curl file://`, interpreter one-liners naming the
//! file, `find … -exec cat {}`).
//!
//! Listing (`ls`, `stat`, `du`) is not reading. This module must not flag templates
//! (`.env.example`), public keys or `known_hosts`, and must never put file contents in a reason.

use std::borrow::Cow;

use super::Cmd;
use crate::argv::{GIT_GLOBAL_LONG_VALUE, GIT_GLOBAL_SHORT_VALUE, leading_options};
use crate::packs::Findings;
use crate::packs::places::{self, Secret};
use crate::paths::PathContext;
use crate::shell::{FindOutput, Origin};

/// Commands in the effects table that only look at metadata or names.
const LISTING: &[&str] = &[
    "ls", "dir", "tree", "du", "stat", "file", "readlink", "realpath", "touch", "mkdir",
];

/// Programs outside the effects table that take a secret file's name without showing its
/// content: data (`echo`), tests (`[ -f .env ]`), name searches (`find -name .env`), the
/// builtins that assign variables (`export K=~/.ssh/id_rsa`; a read of the variable is judged
/// where it is read), the SSH
/// tools, which use a key without printing it. (Those that load a dotenv file into a child's
/// environment are [`ENV_FILE_LOADERS`].)
const NAMES_WITHOUT_READING: &[&str] = &[
    "echo",
    "printf",
    "test",
    "[",
    "find",
    "fd",
    "fdfind",
    "basename",
    "dirname",
    "cd",
    "pushd",
    "export",
    "declare",
    "local",
    "readonly",
    "typeset",
    "unset",
    "ssh",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "sftp",
    "autossh",
    "mosh",
    "ansible",
    "ansible-playbook",
    "direnv",
    "virtualenv",
];

/// Programs that load a dotenv file into a child's environment (`dotenvx run -f .env -- npm
/// start`, `env-cmd -f .env.test jest`): the project's own dotenv files are what they are for,
/// any other secret file is judged (see [`loaded_secret`]).
const ENV_FILE_LOADERS: &[&str] = &["dotenv", "dotenv-cli", "dotenvx", "env-cmd"];

/// Options whose value is a file the program uses without showing it: a dotenv file loaded into
/// an environment (`docker compose --env-file`, `node --env-file=`), a kubeconfig, a key used
/// to connect (`--private-key`, `--ssh-key-file`).
const USED_FILE_OPTIONS: &[&str] = &[
    "env-file",
    "envfile",
    "env_file",
    "kubeconfig",
    "private-key",
    "key-file",
    "ssh-key-file",
    "identity-file",
];

/// git subcommands that take a secret file's name without showing its content.
const GIT_NAMES_WITHOUT_READING: &[&str] = &[
    "check-ignore",
    "check-attr",
    "ls-files",
    "status",
    "rm",
    "mv",
    "stash",
    "update-index",
    "lfs",
];

/// The rule for a secret file named to a program toolgate does not model.
const SECRET_ARGUMENT: &str = "secret-path-argument";

fn report(secret: Secret, path: &str, out: &mut Findings) {
    out.add(
        secret.rule,
        format!("reading `{path}` would expose {} to the agent", secret.what),
    );
}

/// A file-tool read of a canonical path (`recursive` for Grep and Glob roots).
pub(super) fn check_file(path: &str, recursive: bool, ctx: &PathContext<'_>, out: &mut Findings) {
    let secret = if recursive {
        places::secret_tree(path, ctx)
    } else {
        places::secret_file(path, ctx)
    };
    if let Some(secret) = secret {
        report(secret, path, out);
    }
}

/// A glob pattern a file tool searches (`Glob` pattern, `Grep` glob), made absolute.
pub(super) fn check_pattern(pattern: &str, ctx: &PathContext<'_>, out: &mut Findings) {
    if let Some(secret) = places::secret_file(pattern, ctx) {
        report(secret, pattern, out);
    }
}

/// Subcommands of cloud and developer CLIs that print a credential they hold, as (program, words
/// in order among its operands).
const CREDENTIAL_PRINTERS: &[(&str, &[&str])] = &[
    ("gh", &["auth", "token"]),
    ("aws", &["configure", "export-credentials"]),
    ("aws", &["ecr", "get-login-password"]),
    ("aws", &["ecr-public", "get-login-password"]),
    ("aws", &["sts", "get-session-token"]),
    ("aws", &["sts", "assume-role"]),
    ("aws", &["sts", "assume-role-with-web-identity"]),
    ("aws", &["sts", "assume-role-with-saml"]),
    ("aws", &["sts", "get-federation-token"]),
    ("aws", &["iam", "create-access-key"]),
    ("aws", &["codeartifact", "get-authorization-token"]),
    ("gcloud", &["auth", "print-access-token"]),
    ("gcloud", &["auth", "print-identity-token"]),
    (
        "gcloud",
        &["auth", "application-default", "print-access-token"],
    ),
    ("gcloud", &["config", "config-helper"]),
    ("az", &["account", "get-access-token"]),
    ("az", &["ad", "sp", "create-for-rbac"]),
    ("az", &["ad", "sp", "credential", "reset"]),
    ("git", &["credential", "fill"]),
    ("op", &["read"]),
    ("vault", &["kv", "get"]),
    ("vault", &["read"]),
    ("heroku", &["auth:token"]),
    ("doppler", &["secrets"]),
    // Cloud secret stores: the stored value itself.
    ("aws", &["secretsmanager", "get-secret-value"]),
    ("aws", &["secretsmanager", "batch-get-secret-value"]),
    ("gcloud", &["secrets", "versions", "access"]),
    ("az", &["keyvault", "secret", "show"]),
    // Tokens a CLI mints or holds.
    ("kubectl", &["create", "token"]),
    ("oc", &["create", "token"]),
    ("vault", &["print", "token"]),
    ("flyctl", &["auth", "token"]),
    ("fly", &["auth", "token"]),
    ("cf", &["oauth-token"]),
    ("firebase", &["login:ci"]),
    // Password managers and the desktop keyring.
    ("pass", &["show"]),
    ("gopass", &["show"]),
    ("secret-tool", &["lookup"]),
    ("bw", &["get"]),
    ("lpass", &["show"]),
    ("ansible-vault", &["view"]),
];

/// `pass`'s subcommands; a single other operand is an entry it shows (`pass db/prod`).
const PASS_SUBCOMMANDS: &[&str] = &[
    "init", "ls", "list", "find", "search", "show", "grep", "insert", "add", "edit", "generate",
    "rm", "remove", "delete", "mv", "rename", "cp", "copy", "git", "help", "version", "otp",
];

/// The command, as `program sub…`, when it prints a credential a CLI holds: the table above,
/// `aws configure get` of a secret key or token, `kubectl config view --raw`, `kubectl get
/// secret(s)` in a format that shows the data, and `docker-credential-* get`.
fn printed_credential(name: &str, args: &[String]) -> Option<String> {
    // Most commands are none of these: decide that before collecting anything.
    let known = CREDENTIAL_PRINTERS
        .iter()
        .any(|(program, _)| *program == name)
        || matches!(name, "kubectl" | "oc" | "gpg" | "gpg2" | "sops" | "pulumi")
        || name.starts_with("docker-credential-");
    if !known {
        return None;
    }
    let operands: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let has_words = |words: &[&str]| operands.windows(words.len()).any(|w| w == words);
    let has_arg = |wanted: &dyn Fn(&str) -> bool| args.iter().any(|arg| wanted(arg));
    let printing = |words: &[&str]| Some(format!("{name} {}", words.join(" ")));
    if let Some((_, words)) = CREDENTIAL_PRINTERS
        .iter()
        .find(|(program, words)| *program == name && has_words(words))
    {
        return printing(words);
    }
    match name {
        // SecureString parameters, decrypted.
        "aws"
            if has_arg(&|arg| arg == "--with-decryption")
                && ["get-parameter", "get-parameters", "get-parameters-by-path"]
                    .iter()
                    .any(|sub| has_words(&["ssm", sub])) =>
        {
            Some("aws ssm get-parameter --with-decryption".to_owned())
        }
        "oc" if has_words(&["whoami"]) => has_arg(&|arg| arg == "-t" || arg == "--show-token")
            .then(|| "oc whoami --show-token".to_owned()),
        "pass" => match operands.as_slice() {
            [entry] if !PASS_SUBCOMMANDS.contains(entry) => Some(format!("pass {entry}")),
            _ => None,
        },
        "pulumi" if has_words(&["config"]) => has_arg(&|arg| arg == "--show-secrets")
            .then(|| "pulumi config --show-secrets".to_owned()),
        // Decrypted to stdout, not in place or into a file.
        "sops" => {
            let decrypts = has_arg(&|arg| arg == "--decrypt" || arg == "-d")
                || operands.first() == Some(&"decrypt");
            let elsewhere = has_arg(&|arg| {
                matches!(arg, "-i" | "--in-place" | "--output") || arg.starts_with("--output=")
            });
            (decrypts && !elsewhere).then(|| "sops --decrypt".to_owned())
        }
        "aws" if has_words(&["configure", "get"]) => {
            let key = operands.last().copied().unwrap_or("").to_ascii_lowercase();
            (key.contains("secret") || key.contains("token"))
                .then(|| format!("aws configure get {key}"))
        }
        "kubectl" | "oc" if has_words(&["config", "view"]) => {
            has_arg(&|arg| arg == "--raw").then(|| format!("{name} config view --raw"))
        }
        "kubectl" | "oc" if has_words(&["get", "secret"]) || has_words(&["get", "secrets"]) => {
            let shows_data = args.windows(2).any(|pair| {
                matches!(pair.first().map(String::as_str), Some("-o" | "--output"))
                    && pair
                        .get(1)
                        .is_some_and(|format| format != "name" && format != "wide")
            }) || has_arg(&|arg| {
                arg.strip_prefix("-o")
                    .or_else(|| arg.strip_prefix("--output="))
                    .is_some_and(|format| {
                        !format.is_empty() && format != "name" && format != "wide"
                    })
            });
            shows_data.then(|| format!("{name} get secret -o …"))
        }
        // The private keys, armoured or not (`gpg -a --export-secret-keys | curl -T - …`).
        "gpg" | "gpg2" => args
            .iter()
            .find(|arg| {
                matches!(
                    arg.as_str(),
                    "--export-secret-keys" | "--export-secret-subkeys"
                )
            })
            .map(|option| format!("{name} {option}")),
        _ if name.starts_with("docker-credential-") && operands.first() == Some(&"get") => {
            printing(&["get"])
        }
        _ => None,
    }
}

/// Whether what a credential printer prints can reach the agent. Not when the next command of
/// its pipeline logs in with it (`… | docker login --password-stdin`), nor when a substitution
/// captures it (`GH_TOKEN=$(gh auth token) gh api …`) and no command of the line prints a
/// run-time value (`echo $GH_TOKEN` does). Written to a file, it may be read later: it reaches.
fn credential_reaches_the_agent(cmd: &Cmd<'_>) -> bool {
    let commands = &cmd.analysis.commands;
    let consumer = commands
        .iter()
        .skip(cmd.index + 1)
        .find(|next| next.stdin_pipe_from.as_deref() == Some(cmd.name()));
    if let Some(consumer) = consumer {
        return !consumer
            .args()
            .iter()
            .any(|arg| arg.ends_with("password-stdin"));
    }
    if cmd.simple.origin == Origin::CommandSubstitution {
        return commands.iter().any(|command| {
            command.has_dynamic_args
                && matches!(command.name(), "echo" | "printf" | "print" | "cat" | "tee")
        });
    }
    true
}

/// Every path a shell command reads.
pub(super) fn check_command(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    if name == "security" {
        let sub = cmd.args().first().map(String::as_str).unwrap_or("");
        let prints_secret = matches!(sub, "dump-keychain" | "export")
            || (sub.starts_with("find-")
                && sub.ends_with("-password")
                && cmd.args().iter().any(|a| a == "-w" || a == "-g"));
        if prints_secret {
            out.add(
                "read-system-secret",
                format!("`security {sub}` would print keychain secrets to the agent"),
            );
        }
    }
    if let Some(command) = printed_credential(name, cmd.args())
        && credential_reaches_the_agent(cmd)
    {
        out.add(
            "print-cli-credential",
            format!("`{command}` would print a stored credential to the agent"),
        );
    }
    if name == "getent"
        && cmd
            .args()
            .iter()
            .any(|arg| matches!(arg.as_str(), "shadow" | "gshadow"))
    {
        out.add(
            "read-system-secret",
            "`getent shadow` would print the password hashes to the agent",
        );
    }
    let mut reads: Vec<(Cow<'_, str>, bool)> = Vec::new();
    if !LISTING.contains(&name) {
        reads.extend(
            cmd.effects
                .reads
                .iter()
                .map(|read| (Cow::Borrowed(read.path.as_str()), read.recursive)),
        );
    }
    // `cat {}` under `find -exec`: what the `find` hands its commands. `rm {}` reads nothing.
    let found = |arg: &str| arg == "{}" || arg == "{}+";
    if cmd.simple.origin == Origin::FindExec
        && !LISTING.contains(&name)
        && (cmd.effects.reads.iter().any(|read| found(&read.path))
            || (cmd.effects.unknown_program
                && !NAMES_WITHOUT_READING.contains(&name)
                && cmd.args().iter().any(|arg| found(arg))))
        && let Some(find) = crate::shell::enclosing_find(&cmd.analysis.commands, cmd.index)
    {
        let selected = crate::shell::find_selected(find.args(), FindOutput::Executed);
        reads.extend(selected.into_iter().map(|path| (Cow::Owned(path), false)));
    }
    // Containers started with a secret directory mounted (`docker run -v ~/.ssh:/root/.ssh`,
    // `docker compose run -v …`), volumes created as a bind mount of one.
    for bind in super::containers::host_binds(name, cmd.args()) {
        reads.push((Cow::Borrowed(bind.source), true));
    }
    // `curl file:///…`.
    if matches!(name, "curl" | "wget") {
        for arg in cmd.args() {
            if let Some(path) = arg.strip_prefix("file://") {
                reads.push((Cow::Borrowed(path), false));
            }
        }
    }
    // Interpreter one-liners that name a file in a string literal.
    for literal in crate::shell::string_literals_of(cmd.simple) {
        if literal.contains('/') || literal.starts_with('.') || literal.starts_with('~') {
            reads.push((Cow::Owned(literal), false));
        }
    }
    for (path, recursive) in reads {
        if let Some(path) = checkable(&path) {
            check_file(&cmd.canonical(&path), recursive, &cmd.ctx, out);
        }
    }
    for file in cmd
        .simple
        .env_files
        .iter()
        .map(String::as_str)
        .chain(program_env_files(name, cmd.args()))
    {
        check_loaded_env_file(cmd, file, out);
    }
    if cmd.effects.unknown_program {
        check_unknown_program(cmd, out);
    }
}

/// The files a runtime loads into its own environment by option: node's `--env-file` and
/// `--env-file-if-exists`, bun's and deno's `--env-file` (`node --env-file=.env app.js`).
fn program_env_files<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    if !matches!(name, "node" | "bun" | "deno") {
        return Vec::new();
    }
    let mut files = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(arg.as_str(), "--env-file" | "--env-file-if-exists") {
            files.extend(iter.next().map(String::as_str));
        } else if let Some(file) = arg
            .strip_prefix("--env-file=")
            .or_else(|| arg.strip_prefix("--env-file-if-exists="))
        {
            files.push(file);
        }
    }
    files
}

/// The secret a file loaded into an environment holds, with the file's canonical path, and
/// whether it is one of the project's own dotenv files (`.env`, `.env.local` in the project),
/// which is what dotenv loaders are for.
fn loaded_secret(cmd: &Cmd<'_>, file: &str) -> Option<(Secret, String, bool)> {
    let path = cmd.canonical(&checkable(file)?);
    let secret = places::secret_file(&path, &cmd.ctx)?;
    let projects_own =
        places::is_dotenv_name(places::basename(&path)) && places::is_in_project(&path, &cmd.ctx);
    Some((secret, path, projects_own))
}

/// A file a wrapper or the program's own option loads into the command's environment
/// (`dotenv -e FILE -- cmd`, `node --env-file=FILE`): any secret file, the project's dotenv
/// files too, is read when the command prints the environment (`dotenv -e .env -- printenv`
/// is `cat .env`); another than the project's dotenv files is asked about otherwise, since
/// whether the command shows it is unknown.
fn check_loaded_env_file(cmd: &Cmd<'_>, file: &str, out: &mut Findings) {
    let Some((secret, path, projects_own)) = loaded_secret(cmd, file) else {
        return;
    };
    if super::exfil::dumps_environment(cmd.simple, cmd.fuel) {
        report(secret, &path, out);
    } else if !projects_own {
        out.add(
            SECRET_ARGUMENT,
            format!(
                "`{}` is run with `{file}`, {}, in its environment; toolgate cannot tell \
                 whether it would show it to the agent",
                cmd.name(),
                secret.what
            ),
        );
    }
}

/// A path argument in the form to classify: run-time parts as wildcards; `None` for a process
/// substitution and `find`'s `{}`.
fn checkable(path: &str) -> Option<Cow<'_, str>> {
    places::resolvable(path).filter(|path| !path.contains("{}"))
}

/// A program the effects table does not know, given a secret file as an argument
/// (`gzip -c ~/.ssh/id_rsa`, `git show HEAD:.env`, `python dump.py .env`): whether it shows the
/// content is unknown, so it is asked about rather than let through.
fn check_unknown_program(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    if NAMES_WITHOUT_READING.contains(&name) {
        return;
    }
    let args = cmd.args();
    if name == "git" {
        let (_, sub) = leading_options(args, GIT_GLOBAL_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE);
        let sub = sub.and_then(|at| args.get(at)).map(String::as_str);
        if sub.is_some_and(|sub| GIT_NAMES_WITHOUT_READING.contains(&sub)) {
            return;
        }
    }
    // `python -m venv .env`, `uv venv .env`: a directory named `.env`, created.
    if args
        .iter()
        .any(|arg| matches!(arg.as_str(), "venv" | "virtualenv"))
    {
        return;
    }
    let used = |at: usize| {
        let option = |arg: &str| {
            arg.strip_prefix("--")
                .map(|long| long.split('=').next().unwrap_or(long))
                .is_some_and(|name| USED_FILE_OPTIONS.contains(&name))
        };
        args.get(at).is_some_and(|arg| option(arg))
            || at
                .checked_sub(1)
                .and_then(|before| args.get(before))
                .is_some_and(|arg| option(arg))
    };
    let loader = ENV_FILE_LOADERS.contains(&name);
    let candidates = args
        .iter()
        .enumerate()
        .filter(|(at, _)| !used(*at))
        .flat_map(|(_, arg)| path_candidates(arg));
    for candidate in candidates {
        let Some(path) = checkable(candidate) else {
            continue;
        };
        if loader && loaded_secret(cmd, candidate).is_none_or(|(_, _, projects_own)| projects_own) {
            continue;
        }
        let path = cmd.canonical(&path);
        let what = match places::secret_file(&path, &cmd.ctx) {
            Some(secret) => secret.what.to_owned(),
            None => match places::secret_store(&path, &cmd.ctx) {
                Some(secret) => format!("a directory holding {}", secret.what),
                None => continue,
            },
        };
        out.add(
            SECRET_ARGUMENT,
            format!(
                "`{name}` is given `{candidate}`, {what}; toolgate cannot tell whether it would \
                 show the content to the agent"
            ),
        );
        return;
    }
}

/// The places in one argument that may name a file: the argument, an option's `=value` or a
/// path-like value attached to a short option, a `NAME=value`, an `@file`, and what follows a
/// `REVISION:` or `HOST:` prefix (`HEAD:.env`). Text with blanks names no file.
fn path_candidates(arg: &str) -> Vec<&str> {
    let mut candidates = Vec::new();
    let arg = match arg.strip_prefix('-') {
        Some(option) => match option.split_once('=') {
            Some((_, value)) => value,
            // A value attached to a short option, when it looks like a path (`-f~/.aws/x`).
            None => match option.get(1..) {
                Some(value)
                    if !option.starts_with('-')
                        && (value.contains('/') || value.starts_with(['.', '~'])) =>
                {
                    value
                }
                _ => return candidates,
            },
        },
        None => arg,
    };
    // Text with blanks is a message or a pattern, not a file name (`git commit -m "… .env"`).
    if arg.contains(char::is_whitespace) {
        return candidates;
    }
    let arg = arg.strip_prefix('@').unwrap_or(arg);
    candidates.push(arg);
    if let Some((name, value)) = arg.split_once('=')
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        candidates.push(value);
    }
    if let Some((prefix, rest)) = arg.split_once(':')
        && !prefix.starts_with(['/', '.', '~'])
        && !rest.starts_with("//")
    {
        candidates.push(rest);
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::program_env_files;

    #[test]
    fn env_files_runtimes_load() {
        let files = |name: &str, args: &[&str]| {
            let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
            program_env_files(name, &args)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            files(
                "node",
                &["--env-file=.env", "--env-file-if-exists", "a", "x.js"]
            ),
            [".env", "a"]
        );
        assert_eq!(
            files("bun", &["--env-file", ".env.local", "run", "dev"]),
            [".env.local"]
        );
        assert!(files("python3", &["--env-file=.env"]).is_empty());
    }
}
