//! Destructive file-system rules: removal, shredding, formatting and raw device writes, recursive
//! permission changes and truncation outside the project and the temp directories.
//!
//! Operands are judged by their canonical path; operands only known at run time (`"$DIR"`) are
//! left to the safety floor, which asks. This module must not flag clean-up inside the project or
//! under the temp directories.

use super::Cmd;
use crate::argv::Parsed;
use crate::packs::Findings;
use crate::packs::places::{self, SYSTEM_DIRS};
use crate::paths::{self, PathContext};
use crate::shell::RedirectKind;

/// Where the home directories are: a recursive ownership or mode change there reaches every user.
const HOME_ROOTS: &[&str] = &["/home", "/Users"];

/// Devices that are not disks.
fn is_harmless_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
            | "/dev/full"
    ) || [
        "/dev/fd/",
        "/dev/pts/",
        "/dev/tty",
        "/dev/shm/",
        "/dev/console",
    ]
    .iter()
    .any(|prefix| path.starts_with(prefix))
}

/// Whether a canonical path is a block device or raw disk.
fn is_disk_device(path: &str) -> bool {
    path.starts_with("/dev/")
        && !is_harmless_device(path)
        && !path.starts_with("/dev/tcp/")
        && !path.starts_with("/dev/udp/")
}

/// Whether removing or truncating the canonical `path` reaches outside the project and scratch.
fn outside(path: &str, ctx: &PathContext<'_>) -> bool {
    if path.starts_with('~') {
        return true;
    }
    !places::is_scratch(path, ctx) && !places::is_in_project(path, ctx)
}

/// Whether the canonical path is the root, a top-level or system directory, or a home directory
/// (or one of its ancestors).
fn is_system_or_home(path: &str, ctx: &PathContext<'_>) -> bool {
    let path = paths::literal_prefix(path);
    if path == "/" || path.matches('/').count() <= 1 || path.starts_with('~') {
        return !places::is_scratch(path, ctx);
    }
    if places::is_scratch(path, ctx) {
        return false;
    }
    if ctx.home.is_some_and(|home| paths::is_within(home, path)) {
        return true;
    }
    if places::is_in_project(path, ctx) {
        return false;
    }
    SYSTEM_DIRS
        .iter()
        .chain(HOME_ROOTS)
        .any(|dir| paths::is_within(path, dir))
}

/// Whether a `chmod` mode makes files writable by everyone.
fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.len() <= 4 && mode.chars().all(|c| ('0'..='7').contains(&c)) {
        return mode
            .chars()
            .last()
            .and_then(|c| c.to_digit(8))
            .is_some_and(|others| others & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let Some(op_at) = clause.find(['+', '=']) else {
            return false;
        };
        let who = clause.get(..op_at).unwrap_or("");
        let perms = clause.get(op_at + 1..).unwrap_or("");
        (who.contains('o') || who.contains('a')) && perms.contains('w')
    })
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let args = cmd.args();
    let name = cmd.name();
    for operand in places::tree_removal(name, args).unwrap_or_default() {
        removal(cmd, operand, out);
    }
    // A sync that deletes what its source lacks removes all below a local destination
    // (`rsync -a --delete /tmp/empty/ ~/` is `rm -rf ~/*`).
    if let Some(destination) = crate::argv::sync_deleting(name, args)
        .filter(|destination| crate::argv::is_local_operand(destination))
    {
        removal(
            cmd,
            &format!("{}/*", destination.trim_end_matches('/')),
            out,
        );
    }
    match name {
        "rm" => {
            let parsed = Parsed::new(args, &[], &[]);
            let recursive = parsed.has(&['r', 'R'], &["recursive"]);
            let force = parsed.has(&['f'], &["force"]);
            if recursive || force {
                for operand in &parsed.operands {
                    removal(cmd, operand, out);
                }
            }
        }
        "find" => find(cmd, out),
        "shred" | "srm" | "wipe" => {
            let parsed = Parsed::new(args, &['n', 's'], &["iterations", "size", "random-source"]);
            let target = parsed.operands.first().copied().unwrap_or("a file");
            out.add(
                "fs-shred",
                format!("`{name}` would destroy `{target}` beyond recovery"),
            );
        }
        "mkswap" | "wipefs" | "mke2fs" | "newfs" | "blkdiscard" | "mkdosfs" => {
            out.add(
                "disk-format-or-overwrite",
                format!("`{name}` formats or wipes a disk device"),
            );
        }
        _ if name.starts_with("mkfs") => out.add(
            "disk-format-or-overwrite",
            format!("`{name}` creates a file system, erasing the device"),
        ),
        "chmod" | "chown" | "chgrp" | "chattr" | "chflags" => permissions(cmd, out),
        "truncate" => {
            let parsed = Parsed::new(args, &['s', 'r', 'o'], &["size", "reference", "io-blocks"]);
            for operand in parsed.operands {
                if let Some(path) = known_path(cmd, operand)
                    && outside(&path, &cmd.ctx)
                {
                    out.add(
                        "fs-truncate-outside-project",
                        format!("truncating `{path}` outside the project destroys its contents"),
                    );
                }
            }
        }
        _ => {}
    }
    // Truncation by redirection from a command that prints nothing, or by copying /dev/null.
    let empty_source =
        matches!(name, ":" | "true") || (name == "cp" && args.iter().any(|arg| arg == "/dev/null"));
    let effects = &cmd.effects;
    if empty_source {
        let targets: Vec<&str> = if name == "cp" {
            effects.writes.iter().map(String::as_str).collect()
        } else {
            cmd.simple
                .redirects
                .iter()
                .filter(|r| r.kind == RedirectKind::Write)
                .map(|r| r.target.as_str())
                .collect()
        };
        for target in targets {
            let Some(path) = known_path(cmd, target) else {
                continue;
            };
            if outside(&path, &cmd.ctx) && !is_harmless_device(&path) {
                out.add(
                    "fs-truncate-outside-project",
                    format!("emptying `{path}` outside the project destroys its contents"),
                );
            }
        }
    }
    // Only a path spelling `dev` can canonicalise into /dev (skip the work otherwise).
    let in_dev = cmd.dir.unwrap_or(cmd.ctx.cwd).starts_with("/dev");
    for write in effects
        .writes
        .iter()
        .filter(|write| in_dev || write.contains("dev"))
    {
        let path = cmd.canonical(write);
        if is_disk_device(&path) {
            out.add(
                "disk-format-or-overwrite",
                format!("writing the raw device `{path}` destroys the file systems on it"),
            );
        }
    }
}

/// The canonical path of an operand known before it runs (see [`places::known_canonical`]);
/// one only known at run time is the safety floor's.
fn known_path(cmd: &Cmd<'_>, operand: &str) -> Option<String> {
    let below_project = places::from_project_dir(operand, &cmd.ctx);
    places::known_canonical(
        below_project.as_deref().unwrap_or(operand),
        &cmd.path_context(),
    )
}

fn removal(cmd: &Cmd<'_>, operand: &str, out: &mut Findings) {
    let Some(path) = known_path(cmd, operand) else {
        return;
    };
    if outside(&path, &cmd.ctx) {
        out.add(
            "fs-remove-outside-project",
            format!(
                "recursive or forced removal of `{path}` reaches outside the project and the temp directories"
            ),
        );
    }
}

/// `find ROOTS… -delete` or `-exec rm …`: the roots are what gets removed.
fn find(cmd: &Cmd<'_>, out: &mut Findings) {
    let args = cmd.args();
    if cmd.effects.removed.is_empty() {
        return;
    }
    for root in crate::shell::find_roots(args) {
        removal(cmd, root, out);
    }
}

/// `chmod -R`, `chown -R`, `chgrp -R`, `chattr -R`, `chflags -R`: a tree made writable by every
/// user, or a system or home directory tree changed (`chattr -R +i ~` leaves no one able to
/// change it).
fn permissions(cmd: &Cmd<'_>, out: &mut Findings) {
    let change = crate::argv::attributes(cmd.name(), cmd.args());
    if !change.recursive {
        return;
    }
    let first = change.setting.unwrap_or("");
    let targets = change.files;
    // Giving the caller's own tree to the caller changes nothing (`chown -R $USER ~`).
    let to_caller = cmd.name() == "chown" && crate::argv::owner_is_caller(first, cmd.ctx.home);
    if cmd.name() == "chmod" && world_writable(first) {
        out.add(
            "fs-recursive-permission-change",
            format!("`chmod -R {first}` makes a whole tree writable by every user"),
        );
        return;
    }
    for target in targets {
        let Some(path) = known_path(cmd, target) else {
            continue;
        };
        if is_system_or_home(&path, &cmd.ctx) && !(to_caller && places::is_callers(&path, &cmd.ctx))
        {
            out.add(
                "fs-recursive-permission-change",
                format!(
                    "recursive `{}` of `{path}` changes a system or home directory tree",
                    cmd.name()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::world_writable;

    #[test]
    fn modes() {
        assert!(world_writable("777"));
        assert!(world_writable("0666"));
        assert!(world_writable("a+rwx"));
        assert!(world_writable("u+x,o+w"));
        assert!(!world_writable("755"));
        assert!(!world_writable("+w"));
        assert!(!world_writable("u+rwx"));
    }
}
