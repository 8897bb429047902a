//! What a simple command does to files: which paths it reads and which it writes.
//!
//! A `Read(path)` deny must also stop `cat`, `grep -r`, `cp`, `tar`, `base64`, `source` and `<`
//! from reading the path, and an `Edit(path)` deny must stop `>`, `tee`, `cp`, `mv`, `rm` from
//! writing it. This table knows the common file commands; arguments of commands it does not know
//! are not treated as paths (data is not code: `echo .env` reads nothing).

use crate::shell::{RedirectKind, SimpleCommand};

/// One path argument and how it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathUse {
    /// The argument as written (canonicalised by the caller).
    pub path: String,
    /// Whether the command descends into it when it is a directory.
    pub recursive: bool,
}

/// The file effects of one simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Effects {
    pub reads: Vec<PathUse>,
    pub writes: Vec<String>,
}

/// Devices a redirection may name without touching a file.
fn is_harmless_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
    ) || path.starts_with("/dev/fd/")
}

/// The non-option arguments (after `--`, everything is an operand).
fn operands(args: &[String]) -> Vec<&str> {
    let mut operands = Vec::new();
    let mut after_dashes = false;
    for arg in args {
        if after_dashes {
            operands.push(arg.as_str());
        } else if arg == "--" {
            after_dashes = true;
        } else if !arg.starts_with('-') {
            operands.push(arg.as_str());
        }
    }
    operands
}

fn has_flag(args: &[String], short: &[char], long: &[&str]) -> bool {
    args.iter().take_while(|arg| *arg != "--").any(|arg| {
        if let Some(name) = arg.strip_prefix("--") {
            long.iter()
                .any(|flag| name == *flag || name.starts_with(&format!("{flag}=")))
        } else if let Some(cluster) = arg.strip_prefix('-') {
            cluster.chars().all(|c| c.is_ascii_alphanumeric())
                && cluster.chars().any(|c| short.contains(&c))
        } else {
            false
        }
    })
}

/// The value of an option given as `-x VALUE`, `-xVALUE`, `--long VALUE` or `--long=VALUE`.
fn option_values<'a>(args: &'a [String], short: &[&str], long: &[&str]) -> Vec<&'a str> {
    let mut values = Vec::new();
    let mut iter = args.iter().peekable();
    while let Some(arg) = iter.next() {
        if let Some(name) = arg.strip_prefix("--") {
            for flag in long {
                if name == *flag {
                    if let Some(value) = iter.peek() {
                        values.push(value.as_str());
                    }
                } else if let Some(value) = name
                    .strip_prefix(flag)
                    .and_then(|rest| rest.strip_prefix('='))
                {
                    values.push(value);
                }
            }
        } else {
            for flag in short {
                if arg == flag {
                    if let Some(value) = iter.peek() {
                        values.push(value.as_str());
                    }
                } else if let Some(value) = arg.strip_prefix(flag).filter(|value| !value.is_empty())
                {
                    values.push(value);
                }
            }
        }
    }
    values
}

/// Computes the file effects of `command`.
pub(crate) fn file_effects(command: &SimpleCommand) -> Effects {
    let mut effects = Effects::default();
    let args = command.args();
    let read = |effects: &mut Effects, path: &str, recursive: bool| {
        effects.reads.push(PathUse {
            path: path.to_owned(),
            recursive,
        });
    };
    match command.name() {
        "cat" | "tac" | "less" | "more" | "head" | "tail" | "nl" | "od" | "hexdump" | "xxd"
        | "strings" | "base64" | "base32" | "basenc" | "sort" | "uniq" | "wc" | "cut" | "paste"
        | "column" | "file" | "stat" | "diff" | "cmp" | "comm" | "md5sum" | "sha1sum"
        | "sha256sum" | "sha512sum" | "cksum" | "source" | "." | "bat" | "batcat" | "view"
        | "fold" | "fmt" | "expand" | "iconv" | "zcat" | "bzcat" | "xzcat" | "zless" | "shuf"
        | "look" | "pr" | "tr" | "gpg" | "readlink" | "realpath" | "ls" | "dir" | "tree" | "du" => {
            let recursive = matches!(command.name(), "diff" | "ls" | "tree" | "du")
                && has_flag(args, &['r', 'R'], &["recursive"]);
            for path in operands(args) {
                read(&mut effects, path, recursive);
            }
        }
        "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack" | "git-grep" => {
            let recursive = matches!(command.name(), "rg" | "ag" | "ack")
                || has_flag(args, &['r', 'R'], &["recursive", "dereference-recursive"]);
            let explicit_pattern = has_flag(args, &['e', 'f'], &["regexp", "file"])
                || !option_values(args, &["-e", "-f"], &["regexp", "file"]).is_empty();
            let operands = operands(args);
            let skip = usize::from(!explicit_pattern);
            let paths: Vec<&str> = operands.into_iter().skip(skip).collect();
            if paths.is_empty() && recursive {
                read(&mut effects, ".", true);
            }
            for path in paths {
                read(&mut effects, path, recursive);
            }
        }
        "awk" | "gawk" | "mawk" | "sed" | "jq" | "yq" => {
            let explicit_script = has_flag(args, &['f', 'e'], &["file", "expression", "from-file"]);
            let skip = usize::from(!explicit_script);
            for path in operands(args).into_iter().skip(skip) {
                read(&mut effects, path, false);
            }
            if command.name() == "sed" && has_flag(args, &['i'], &["in-place"]) {
                effects
                    .writes
                    .extend(operands(args).into_iter().skip(skip).map(str::to_owned));
            }
        }
        "cp" | "rsync" | "scp" | "install" | "ln" => {
            let recursive = command.name() == "rsync"
                || has_flag(args, &['r', 'R', 'a'], &["recursive", "archive"]);
            let operands = operands(args);
            if let Some((target, sources)) = operands.split_last() {
                for source in sources {
                    read(&mut effects, source, recursive);
                }
                effects.writes.push((*target).to_owned());
            }
        }
        "mv" => {
            for path in operands(args) {
                read(&mut effects, path, true);
                effects.writes.push(path.to_owned());
            }
        }
        "tar" | "bsdtar" => {
            let archive = option_values(
                args,
                &["-f", "-cf", "-czf", "-cjf", "-cJf", "-xf", "-xzf"],
                &["file"],
            );
            let creating = args
                .first()
                .is_some_and(|mode| mode.trim_start_matches('-').contains('c'))
                || has_flag(args, &['c'], &["create"]);
            for path in operands(args) {
                if archive.contains(&path) {
                    continue;
                }
                if creating {
                    read(&mut effects, path, true);
                }
            }
        }
        "zip" | "7z" => {
            let operands = operands(args);
            if let Some((archive, sources)) = operands.split_first() {
                effects.writes.push((*archive).to_owned());
                for source in sources {
                    read(&mut effects, source, true);
                }
            }
        }
        "tee" => effects
            .writes
            .extend(operands(args).into_iter().map(str::to_owned)),
        "dd" => {
            for arg in args {
                if let Some(path) = arg.strip_prefix("if=") {
                    read(&mut effects, path, false);
                } else if let Some(path) = arg.strip_prefix("of=") {
                    effects.writes.push(path.to_owned());
                }
            }
        }
        "rm" | "rmdir" | "unlink" | "shred" | "truncate" | "touch" | "mkdir" | "srm" => {
            effects
                .writes
                .extend(operands(args).into_iter().map(str::to_owned));
        }
        "chmod" | "chown" | "chgrp" => {
            effects
                .writes
                .extend(operands(args).into_iter().skip(1).map(str::to_owned));
        }
        "vi" | "vim" | "nvim" | "nano" | "emacs" | "ed" | "code" => {
            for path in operands(args) {
                read(&mut effects, path, false);
                effects.writes.push(path.to_owned());
            }
        }
        "curl" => {
            for value in option_values(
                args,
                &["-d", "-F", "-T", "-K"],
                &[
                    "data",
                    "data-binary",
                    "data-raw",
                    "data-urlencode",
                    "data-ascii",
                    "form",
                    "upload-file",
                    "config",
                    "json",
                ],
            ) {
                let path = value.split_once("=@").map_or(value, |(_, path)| path);
                let path = path.strip_prefix('@').unwrap_or(path);
                if value.contains('@') || !value.contains('=') {
                    read(&mut effects, path.split(';').next().unwrap_or(path), false);
                }
            }
            effects.writes.extend(
                option_values(args, &["-o"], &["output"])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        "wget" => {
            for value in option_values(args, &[], &["post-file", "body-file"]) {
                read(&mut effects, value, false);
            }
            effects.writes.extend(
                option_values(args, &["-O"], &["output-document"])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        "openssl" => {
            for value in option_values(args, &["-in", "-inkey", "-key"], &[]) {
                read(&mut effects, value, false);
            }
            effects.writes.extend(
                option_values(args, &["-out"], &[])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        _ => {}
    }
    for redirect in &command.redirects {
        if is_harmless_device(&redirect.target) {
            continue;
        }
        match redirect.kind {
            RedirectKind::Read => read(&mut effects, &redirect.target, false),
            RedirectKind::Write | RedirectKind::Append => {
                effects.writes.push(redirect.target.clone())
            }
        }
    }
    effects
        .reads
        .retain(|read| !read.path.is_empty() && !is_harmless_device(&read.path));
    effects
        .writes
        .retain(|path| !path.is_empty() && !is_harmless_device(path));
    effects
}
