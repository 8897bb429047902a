//! Persistence and self-tampering write rules: shell start-up files, SSH access files, scheduled
//! tasks and service units, git hooks, the agent's own settings and hooks (deny), and files that
//! run code automatically (`.envrc`, CI workflows, editor tasks: ask).
//!
//! Writes come from Write/Edit/MultiEdit/NotebookEdit paths and from what a shell command writes
//! (redirections, `tee`, `cp`/`mv`/`install`/`ln` targets — into a directory, the source's name
//! is appended — `sed -i`, `dd of=`), plus `crontab`, `at` and `loginctl enable-linger`. This
//! module must not flag reads.

use super::Cmd;
use crate::argv::Parsed;
use crate::packs::Findings;
use crate::packs::places;
use crate::paths::PathContext;
use crate::shell::RedirectKind;
use serde_json::Value;

/// A file-tool write of a canonical path.
pub(super) fn check_file(path: &str, ctx: &PathContext<'_>, out: &mut Findings) {
    check_write(path, Writing::Content, ctx, out);
}

/// A file tool's write of a VS Code workspace's settings (`.vscode/settings.json`, a
/// `*.code-workspace` file) that turns on an `autoApprove` setting (`chat.tools.autoApprove`,
/// `chat.tools.global.autoApprove`, `chat.tools.terminal.autoApprove`, …): VS Code's agent then
/// runs tools and commands without asking, the first step of CVE-2025-53773. Other edits of
/// those files (a formatter, an interpreter path) are left alone, so the text written is read:
/// Write's `content`, Edit's `new_string`, MultiEdit's `edits[].new_string`.
pub(super) fn check_editor_settings(path: &str, input: &Value, out: &mut Findings) {
    let edits = input
        .get("edits")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|edit| edit.get("new_string"));
    let texts = [input.get("content"), input.get("new_string")]
        .into_iter()
        .flatten()
        .chain(edits)
        .filter_map(Value::as_str);
    check_approvals(path, texts, out);
}

/// [`check_editor_settings`]'s judgement, for a write of `path` whose text is one of `texts`.
/// A shell command's is its whole line (`echo '{"chat.tools.autoApprove": true}' >
/// .vscode/settings.json`, a here-document, `jq … > t && mv t .vscode/settings.json`).
fn check_approvals<'t>(path: &str, mut texts: impl Iterator<Item = &'t str>, out: &mut Findings) {
    let workspace_settings =
        path.ends_with("/.vscode/settings.json") || path.ends_with(".code-workspace");
    if workspace_settings && texts.any(|text| text.contains("autoApprove")) {
        out.add(
            "write-agent-settings",
            format!(
                "writing `{path}` turns on an `autoApprove` setting, with which VS Code's agent \
                 runs tools and commands without asking"
            ),
        );
    }
}

/// How a command writes one of its targets, for telling whether it puts anything there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writing {
    /// Content of the command's choosing (`tee`, `cp`, a redirection).
    Content,
    /// A link made to the target (`ln -s /usr/bin/python3 .venv/bin/python`).
    Link,
    /// The target replaced whole by what is moved, copied, linked or mounted there, when it is
    /// no directory yet (`mv evil .claude`, `ln -sfn /tmp/x .claude`, `mount --bind`; see
    /// [`crate::evaluate::Effects::replaced`]).
    Replace,
    /// The target removed (`rm`, `rmdir`, `unlink`, `shred`).
    Removal,
    /// An empty file or directory, or new times (`touch`, `mkdir` without `-m`).
    Empty,
    /// New permission bits (`chmod 600`, `mkdir -m 700`).
    Mode(Grants),
    /// A new owner or group, a mode that cannot be read, or attributes that say who may change
    /// the target (`chown`, `chmod --reference=f`, `chattr +i`, `chflags uchg`).
    Owner,
    /// The caller made the owner (`chown -R $USER .claude`, see
    /// [`crate::argv::owner_is_caller`]): nothing changes in the home or the project, where
    /// the caller's files are already the caller's; elsewhere it is a new owner (`sudo chown
    /// $USER /etc/sudoers.d` gives the caller a file root reads).
    OwnerCaller,
}

/// What a new mode may grant that matters to a persistence place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Grants {
    /// Write permission for the group or other users (`g+w`, `666`): another account may then
    /// put content there.
    others_write: bool,
    /// Execute permission for anyone (`+x`, `755`, `u+X`).
    execute: bool,
    /// Read or search permission taken from the owner (`000`, `600` on a directory, `u-x`,
    /// `a=w`): the owner's programs, the agent among them, no longer read what is below.
    owner_shut_out: bool,
}

/// What a `chmod` mode may grant, or take from the owner: `None` when it is not a mode this
/// reads. Octal modes set every bit (`600`, `0755`); a symbolic clause grants with `+` or `=`
/// to the classes named (none named: all of them, whatever the umask), a copied class (`g=u`)
/// counting as `rwx`, and takes with `-`, or with `=` what it does not name.
fn mode_grants(mode: &str) -> Option<Grants> {
    if !mode.is_empty() && mode.len() <= 4 && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let digit = |from_end: usize| {
            mode.len()
                .checked_sub(from_end)
                .and_then(|at| mode.as_bytes().get(at))
                .map_or(0, |b| b - b'0')
        };
        let (user, group, other) = (digit(3), digit(2), digit(1));
        return Some(Grants {
            others_write: (group | other) & 2 != 0,
            execute: (user | group | other) & 1 != 0,
            owner_shut_out: user & 5 != 5,
        });
    }
    let mut grants = Grants::default();
    for clause in mode.split(',') {
        let op_at = clause.find(['+', '-', '='])?;
        let (who, actions) = clause.split_at(op_at);
        if !who.chars().all(|c| "ugoa".contains(c)) {
            return None;
        }
        let others = who.is_empty() || who.contains(['g', 'o', 'a']);
        let owner = who.is_empty() || who.contains(['u', 'a']);
        // Each operator and the permissions after it (`u=rw-x`: `=rw`, `-x`).
        let mut rest = actions;
        while let Some(op) = rest.chars().next() {
            let perms = rest.get(1..).unwrap_or("");
            let end = perms.find(['+', '-', '=']).unwrap_or(perms.len());
            let (perms, after) = perms.split_at(end);
            rest = after;
            let adds = op != '-';
            let copies = perms.contains(['u', 'g', 'o']);
            for c in perms.chars() {
                match c {
                    'r' | 's' | 't' => {}
                    'w' => grants.others_write |= adds && others,
                    'x' | 'X' => grants.execute |= adds,
                    'u' | 'g' | 'o' => {
                        grants.others_write |= adds && others;
                        grants.execute |= adds;
                    }
                    _ => return None,
                }
            }
            let takes_read_or_search = match op {
                '-' => perms.contains(['r', 'x', 'X']),
                '=' => !copies && (!perms.contains('r') || !perms.contains(['x', 'X'])),
                _ => false,
            };
            grants.owner_shut_out |= owner && takes_read_or_search;
        }
    }
    Some(grants)
}

/// How `name` writes the targets it names (a redirection's target is always [`Writing::Content`]).
fn writing(name: &str, args: &[String], ctx: &PathContext<'_>) -> Writing {
    match name {
        "rm" | "rmdir" | "unlink" | "shred" => Writing::Removal,
        _ if places::tree_removal(name, args).is_some() => Writing::Removal,
        "touch" => Writing::Empty,
        "mkdir" => {
            let parsed = Parsed::new(args, &['m', 'Z'], &["mode", "context"]);
            match parsed.values(&['m'], &["mode"]).first() {
                Some(mode) => mode_grants(mode).map_or(Writing::Owner, Writing::Mode),
                None => Writing::Empty,
            }
        }
        "chmod" => crate::argv::attributes(name, args)
            .setting
            .and_then(mode_grants)
            .map_or(Writing::Owner, Writing::Mode),
        "chown"
            if crate::argv::attributes(name, args)
                .setting
                .is_some_and(|owner| crate::argv::owner_is_caller(owner, ctx.home)) =>
        {
            Writing::OwnerCaller
        }
        "chown" | "chgrp" | "chattr" | "chflags" => Writing::Owner,
        _ => Writing::Content,
    }
}

/// Whether a write puts something at a persistence place. Nothing written to a directory on
/// `PATH` but content puts a program there (a removal, a link, a mode: `rm ~/.local/bin/old`,
/// `chmod +x ~/.local/bin/tool`). Elsewhere an empty file or directory, or a mode no other
/// account may write by, plants nothing (`mkdir -p ~/.ssh`, `chmod 600 ~/.ssh/config`), unless
/// the place holds the agent's own settings or an execute bit arms it
/// (`chmod +x .git/hooks/pre-commit`).
fn plants(place: places::Persistence, writing: Writing) -> bool {
    if place == places::PATH_EXECUTABLE {
        return matches!(writing, Writing::Content | Writing::Replace);
    }
    if place == places::AGENT_DIR {
        // What is written, copied or linked into the directory lands inside it, judged by its
        // own name; removing it, putting another in its place, a new owner, a mode another
        // account may write by or one that shuts the owner out change what the agent's
        // settings are.
        return match writing {
            Writing::Content | Writing::Empty | Writing::Link => false,
            Writing::Mode(grants) => grants.others_write || grants.owner_shut_out,
            Writing::Removal | Writing::Replace | Writing::Owner | Writing::OwnerCaller => true,
        };
    }
    if !place.empty_plants_nothing {
        return true;
    }
    match writing {
        Writing::Empty => false,
        Writing::Mode(grants) => grants.others_write || (grants.execute && place.armed_by_execute),
        Writing::Content
        | Writing::Link
        | Writing::Replace
        | Writing::Removal
        | Writing::Owner
        | Writing::OwnerCaller => true,
    }
}

/// A write of a canonical path, made as `writing` says.
fn check_write(path: &str, writing: Writing, ctx: &PathContext<'_>, out: &mut Findings) {
    let writing = match writing {
        Writing::OwnerCaller if places::is_callers(path, ctx) => return,
        Writing::OwnerCaller => Writing::Owner,
        other => other,
    };
    let place = places::persistence(path, ctx)
        .or_else(|| places::is_path_dir(path, ctx).then_some(places::PATH_EXECUTABLE));
    if let Some(place) = place
        && plants(place, writing)
    {
        out.add(
            place.rule,
            format!("writing `{path}` changes {}", place.what),
        );
    }
}

/// Groups whose members are root in all but name.
const ROOT_GROUPS: &[&str] = &["sudo", "wheel", "admin", "root", "docker", "lxd", "libvirt"];

/// Account commands that grant root: a user added to a root group (`usermod -aG sudo u`,
/// `gpasswd -a u wheel`, `adduser u sudo`, `useradd -G docker u`), a second uid 0 (`useradd -o
/// -u 0`), `visudo`; and a program given powers its caller lacks (`chmod u+s`, `chmod 4755`,
/// `setcap cap_setuid+ep`).
fn privilege_change(name: &str, args: &[String]) -> Option<String> {
    let root_group = |groups: &str| groups.split(',').any(|group| ROOT_GROUPS.contains(&group));
    match name {
        "usermod" | "useradd" => {
            let parsed = Parsed::new(
                args,
                &[
                    'G', 'g', 'u', 'd', 's', 'c', 'e', 'f', 'k', 'K', 'p', 'l', 'R', 'P', 'Z',
                ],
                &[
                    "groups", "gid", "uid", "home", "shell", "comment", "root", "prefix",
                ],
            );
            let groups = parsed.values(&['G', 'g'], &["groups", "gid"]);
            let uid_zero = parsed.values(&['u'], &["uid"]).contains(&"0");
            (groups.iter().any(|groups| root_group(groups)) || uid_zero)
                .then(|| format!("{name} {}", args.join(" ")))
        }
        "gpasswd" => {
            let parsed = Parsed::new(args, &['a', 'M', 'A', 'd'], &["add", "members"]);
            let adds = !parsed.values(&['a', 'M'], &["add", "members"]).is_empty();
            (adds
                && parsed
                    .operands
                    .last()
                    .is_some_and(|group| root_group(group)))
            .then(|| format!("gpasswd {}", args.join(" ")))
        }
        "adduser" | "addgroup" => {
            let operands = Parsed::new(args, &[], &[]).operands;
            (operands.len() == 2 && operands.last().is_some_and(|group| root_group(group)))
                .then(|| format!("{name} {}", operands.join(" ")))
        }
        "visudo" => Some("visudo".to_owned()),
        // A set-user-ID bit or a capability makes a program run with powers its caller lacks.
        "chmod" => {
            let parsed = Parsed::new(args, &[], &["reference"]);
            if let Some(reference) = parsed
                .values(&[], &["reference"])
                .into_iter()
                .find(|file| SET_USER_ID_PROGRAMS.contains(&places::basename(file)))
            {
                return (!parsed.operands.is_empty())
                    .then(|| format!("chmod --reference={reference}"));
            }
            let mode = parsed.operands.first()?;
            (grants_identity(mode) && parsed.operands.len() > 1).then(|| format!("chmod {mode}"))
        }
        // `rsync --chmod=u+s` (`F…` for files; `D…` clauses are for directories).
        "rsync" => crate::argv::rsync(args)
            .values(&[], &["chmod"])
            .into_iter()
            .flat_map(|modes| modes.split(','))
            .find(|clause| {
                !clause.starts_with('D')
                    && grants_identity(clause.strip_prefix('F').unwrap_or(clause))
            })
            .map(|clause| format!("rsync --chmod={clause}")),
        "install" => {
            let parsed = Parsed::new(
                args,
                &['m', 'o', 'g', 'S', 't'],
                &["mode", "owner", "group"],
            );
            let mode = parsed
                .values(&['m'], &["mode"])
                .into_iter()
                .find(|m| grants_identity(m))?;
            Some(format!("install -m {mode}"))
        }
        // `setcap CAPS FILE…`; `-r` removes, `-v` only verifies.
        "setcap" => {
            let parsed = Parsed::new(args, &['n'], &[]);
            let caps = parsed.operands.first()?;
            (!parsed.has(&['r', 'v'], &[]) && grants_root(caps)).then(|| format!("setcap {caps}"))
        }
        _ => None,
    }
}

/// Code the kernel runs that the caller chose, as the command that loads it: a module file
/// (`insmod hide.ko`), a module from a directory or with configuration of the caller's choosing
/// (`modprobe -d /tmp/mods x`, `modprobe -C /tmp/m.conf x`, whose `install` lines run as
/// root), a kernel to boot into (`kexec -l /tmp/vmlinuz`, `kexec -p …`). A module the system
/// already holds (`modprobe br_netfilter`), an unload (`rmmod`, `modprobe -r`) and a dry run
/// are left alone, as other changes to the running system with what is installed are.
fn kernel_code_load(name: &str, args: &[String]) -> Option<String> {
    match name {
        "insmod" => {
            let module = Parsed::new(args, &[], &[]).operands.first().copied()?;
            Some(format!("insmod {module}"))
        }
        "modprobe" => {
            let parsed = Parsed::new(
                args,
                &['C', 'd', 'S'],
                &["config", "dirname", "set-version"],
            );
            let chosen = parsed
                .values(&['d', 'C'], &["dirname", "config"])
                .into_iter()
                .next()?;
            let loads = !parsed.has(
                &['r', 'n', 'c', 'R'],
                &[
                    "remove",
                    "dry-run",
                    "show",
                    "showconfig",
                    "show-depends",
                    "resolve-alias",
                ],
            );
            loads.then(|| format!("modprobe {chosen}"))
        }
        "kexec" => {
            let parsed = Parsed::new(
                args,
                &['t'],
                &[
                    "type",
                    "initrd",
                    "ramdisk",
                    "command-line",
                    "append",
                    "dtb",
                    "mem-min",
                    "mem-max",
                ],
            );
            let loads = parsed.has(&['l', 'p'], &["load", "load-panic"])
                || (!parsed.operands.is_empty() && !parsed.has(&['u', 'e'], &["unload", "exec"]));
            let kernel = parsed.operands.first().copied().unwrap_or("…");
            loads.then(|| format!("kexec {kernel}"))
        }
        _ => None,
    }
}

/// Capabilities that are root in all but name (capabilities(7)): to change identity, to read
/// or write any file, to load kernel modules, to administer the system, to trace any process;
/// or all of them (`=ep`, `all`).
const ROOT_CAPABILITIES: &[&str] = &[
    "cap_setuid",
    "cap_setgid",
    "cap_setfcap",
    "cap_sys_admin",
    "cap_sys_module",
    "cap_sys_ptrace",
    "cap_sys_rawio",
    "cap_dac_override",
    "cap_dac_read_search",
    "cap_chown",
    "cap_fowner",
    "all",
];

/// Whether `setcap`'s capability text grants one of [`ROOT_CAPABILITIES`]
/// (`cap_net_bind_service=+ep` does not).
fn grants_root(caps: &str) -> bool {
    let caps = caps.to_ascii_lowercase();
    caps.split_whitespace().any(|clause| {
        let names = clause.split(['=', '+', '-']).next().unwrap_or("");
        names.is_empty()
            || names
                .split(',')
                .any(|name| ROOT_CAPABILITIES.contains(&name))
    })
}

/// Programs installed set-user-ID root: `chmod --reference=/usr/bin/passwd FILE` copies the bit.
const SET_USER_ID_PROGRAMS: &[&str] = &[
    "passwd",
    "sudo",
    "su",
    "doas",
    "pkexec",
    "mount",
    "umount",
    "newgrp",
    "chsh",
    "chfn",
    "gpasswd",
    "fusermount",
    "fusermount3",
    "newuidmap",
    "newgidmap",
];

/// Whether a `chmod` mode gives a program its owner's or its group's identity: the
/// set-user-ID bit ([`sets_user_id`]), or the set-group-ID bit on a program (see
/// [`octal_mode`]) that the group may run and not change (`2755`, `2711`). Set-group-ID on a
/// shared directory (`2775`, `2770`, `g+s`) is left alone: whether the operand is a directory
/// is not known, and there the bit only passes the group on to new files.
fn grants_identity(mode: &str) -> bool {
    let program_group = octal_mode(mode)
        .is_some_and(|bits| bits & 0o2000 != 0 && bits & 0o010 != 0 && bits & 0o020 == 0);
    sets_user_id(mode) || program_group
}

/// The bits an octal mode sets: `4755`, and GNU's `=4755` and `+4000`; `None` otherwise.
fn octal_mode(mode: &str) -> Option<u32> {
    let digits = mode
        .strip_prefix('=')
        .or_else(|| mode.strip_prefix('+'))
        .unwrap_or(mode);
    if digits.is_empty() || !digits.bytes().all(|byte| matches!(byte, b'0'..=b'7')) {
        return None;
    }
    u32::from_str_radix(digits, 8).ok()
}

/// Whether a `chmod` mode sets the set-user-ID bit: `u+s`, `+s`, `a=rwxs`, `4755`, `=4755`,
/// `+4000`, `6711`.
fn sets_user_id(mode: &str) -> bool {
    if let Some(bits) = octal_mode(mode) {
        return bits & 0o4000 != 0;
    }
    mode.split(',').any(|clause| {
        let Some(op) = clause.find(['+', '-', '=']) else {
            return false;
        };
        let (who, actions) = clause.split_at(op);
        let mut adds = false;
        (who.is_empty() || who.contains(['u', 'a']))
            && actions.chars().any(|c| {
                if matches!(c, '+' | '-' | '=') {
                    adds = c != '-';
                }
                adds && c == 's'
            })
    })
}

/// Service managers' commands that install a job from a file of the caller's choosing, or
/// from the command line: `systemctl link|enable PATH` (the unit file stays where it is, out of
/// the unit directories the file rules watch) and launchd's `launchctl submit`,
/// `launchctl load|bootstrap PATH` of a property list outside the launch agent directories.
fn installs_service(cmd: &Cmd<'_>) -> Option<&'static str> {
    if transient_timer(cmd) {
        return Some("`systemd-run` with a timer schedules a command outside the session");
    }
    let args = cmd.args();
    match cmd.name() {
        // `at TIME` and `batch` read the commands to run from stdin or `-f FILE`; `-l`, `-d`,
        // `-r` and `-c` list, remove or show the jobs already there.
        "at" | "batch" => {
            let parsed = Parsed::new(args, &['q', 'f', 't'], &[]);
            (!parsed.has(&['l', 'd', 'r', 'c'], &[]))
                .then_some("`at` runs commands later, outside the session")
        }
        // Lingering starts the user's services at boot and keeps them after the last logout.
        "loginctl" => {
            let parsed = Parsed::new(
                args,
                &['H', 'M', 'p', 's', 'n', 'o'],
                &[
                    "host",
                    "machine",
                    "property",
                    "signal",
                    "lines",
                    "output",
                    "kill-whom",
                ],
            );
            (parsed.operands.first() == Some(&"enable-linger")).then_some(
                "`loginctl enable-linger` keeps the user's services running with no session",
            )
        }
        "systemctl" => {
            let parsed = Parsed::new(
                args,
                &['H', 'M', 't', 'p', 'o', 'n', 's'],
                &[
                    "host", "machine", "type", "property", "output", "lines", "signal", "root",
                ],
            );
            let (verb, units) = parsed.operands.split_first()?;
            (matches!(*verb, "link" | "enable" | "reenable")
                && units.iter().any(|unit| unit.contains('/')))
            .then_some(
                "`systemctl` installs a service unit from a file outside the unit directories",
            )
        }
        "launchctl" => {
            let operands = Parsed::new(args, &['S', 'D'], &[]).operands;
            let outside = |plist: &&str| {
                let path = cmd.canonical(plist);
                places::persistence(&path, &cmd.ctx).is_none()
            };
            let plists = match operands.split_first()? {
                (&"submit", _) => {
                    return Some("`launchctl submit` starts a job that launchd keeps running");
                }
                (&"load", plists) => plists,
                // `bootstrap DOMAIN PLIST…`
                (&"bootstrap", [_domain, plists @ ..]) => plists,
                _ => return None,
            };
            plists.iter().any(outside).then_some(
                "`launchctl` loads a job from a file outside the launch agent directories",
            )
        }
        _ => None,
    }
}

/// `systemd-run --on-calendar=… CMD` (or another timer option): a transient timer that runs the
/// command later, outside the session. systemd-run is stripped as an exec wrapper (its command
/// is judged as any other); its options are read from the command's text with the wrappers put
/// back (`SimpleCommand::deny_views`: the bare argv, then the wrappers in front of it).
fn transient_timer(cmd: &Cmd<'_>) -> bool {
    let simple = cmd.simple;
    if !simple
        .wrappers
        .iter()
        .any(|wrapper| wrapper == "systemd-run")
    {
        return false;
    }
    let (Some(bare), Some(wrapped)) = (simple.deny_views.first(), simple.deny_views.get(1)) else {
        return false;
    };
    wrapped
        .strip_suffix(bare.as_str())
        .unwrap_or(wrapped)
        .split(' ')
        .any(|word| word.starts_with("--on-") || word.starts_with("--timer-property"))
}

/// Configuration commands that change what an agent or a package manager runs, as the file
/// they write would: an MCP server added to an agent (`claude mcp add`, `codex mcp add`,
/// `gemini mcp add`; the server's command runs when the agent starts), Claude Code's own
/// settings (`claude config set`), and npm's and pip's configuration (`npm config set
/// script-shell …`, a registry or index of someone else's choosing).
fn tool_config_change(cmd: &Cmd<'_>) -> Option<(&'static str, String)> {
    let (name, args) = config_tool(cmd.name(), cmd.args());
    let words = Parsed::new(args, CONFIG_SHORT_VALUE, CONFIG_LONG_VALUE).operands;
    let first_two = (words.first().copied(), words.get(1).copied());
    let auto_run = "write-auto-run-config";
    let package_config = |how: String| {
        format!(
            "`{name} {how}` changes the package manager's configuration (its registry, the shell its scripts run in)"
        )
    };
    match (name, first_two) {
        ("claude" | "codex" | "gemini", (Some("mcp"), Some(verb)))
            if verb.starts_with("add") || verb == "remove" =>
        {
            Some((
                auto_run,
                format!("`{name} mcp {verb}` changes the MCP servers the agent starts"),
            ))
        }
        ("claude", (Some("config"), Some(verb @ ("set" | "add" | "remove")))) => Some((
            "write-agent-settings",
            format!("`claude config {verb}` changes the agent's own settings"),
        )),
        (
            "npm" | "pnpm" | "yarn",
            (
                Some("config" | "conf" | "c"),
                Some(verb @ ("set" | "delete" | "rm" | "del" | "edit")),
            ),
        ) => Some((auto_run, package_config(format!("config {verb}")))),
        ("npm" | "pnpm", (Some("set"), _)) => Some((auto_run, package_config("set".to_owned()))),
        ("code" | "code-insiders" | "cursor", _)
            if args.iter().any(|arg| arg.starts_with("--add-mcp")) =>
        {
            Some((
                auto_run,
                format!("`{name} --add-mcp` changes the MCP servers the editor's agent starts"),
            ))
        }
        ("pip", (Some("config"), Some(verb @ ("set" | "unset" | "edit")))) => Some((
            auto_run,
            format!("`pip config {verb}` changes where pip installs packages from"),
        )),
        _ => None,
    }
}

/// Options of the configuration commands' programs that take a value: Claude Code's `mcp add`
/// (`-s`, `-e`, `-t`, `-H`) and npm's global options (`--location user config set …`).
const CONFIG_SHORT_VALUE: &[char] = &['s', 'e', 't', 'H', 'w', 'C'];
const CONFIG_LONG_VALUE: &[&str] = &[
    "scope",
    "env",
    "transport",
    "header",
    "location",
    "registry",
    "userconfig",
    "globalconfig",
    "prefix",
    "cache",
    "loglevel",
    "workspace",
];

/// An agent started with its guards off, as the option or variable that turns them off: Claude
/// Code's `--dangerously-skip-permissions`, `--permission-mode bypassPermissions`, `--settings`
/// (whose `disableAllHooks` or `hooks` replace what the user's settings hold) and
/// `--setting-sources` (which may leave out the settings that hold the hooks), and
/// `CLAUDE_CONFIG_DIR` (settings from elsewhere: given to the command, or exported in the same
/// line); Codex's `--dangerously-bypass-approvals-and-sandbox` (`--yolo`) and `danger-full-access`
/// sandbox; Gemini CLI's `--yolo` (`-y`, `--approval-mode yolo`); Cursor's `cursor-agent
/// --force`; Copilot's `--allow-all-tools`. A plain `claude -p …` runs under the same hooks and
/// is left alone.
fn unguarded_agent(cmd: &Cmd<'_>) -> Option<String> {
    let (name, args) = config_tool(cmd.name(), cmd.args());
    let given = |options: &[&str]| {
        args.iter()
            .take_while(|arg| *arg != "--")
            .find(|arg| {
                options.iter().any(|option| {
                    arg.as_str() == *option
                        || arg
                            .strip_prefix(option)
                            .is_some_and(|rest| rest.starts_with('='))
                })
            })
            .map(String::as_str)
    };
    let valued = |option: &str, values: &[&str]| {
        args.windows(2)
            .any(|pair| matches!(pair, [o, v] if o == option && values.contains(&v.as_str())))
            || args.iter().any(|arg| {
                arg.strip_prefix(option)
                    .and_then(|rest| rest.strip_prefix('='))
                    .is_some_and(|value| values.contains(&value))
            })
    };
    match name {
        "claude" => {
            let config_dir = cmd
                .simple
                .assignments
                .iter()
                .any(|assignment| assignment.name == "CLAUDE_CONFIG_DIR")
                || cmd.analysis.commands.iter().any(|other| {
                    matches!(other.name(), "export" | "declare" | "typeset")
                        && other
                            .args()
                            .iter()
                            .any(|arg| arg.starts_with("CLAUDE_CONFIG_DIR="))
                });
            if config_dir {
                return Some("CLAUDE_CONFIG_DIR=… claude".to_owned());
            }
            if valued("--permission-mode", &["bypassPermissions"]) {
                return Some("claude --permission-mode bypassPermissions".to_owned());
            }
            given(&[
                "--dangerously-skip-permissions",
                "--allow-dangerously-skip-permissions",
                "--settings",
                "--setting-sources",
            ])
            .map(|option| format!("claude {option}"))
        }
        "codex" => {
            if valued("--sandbox", &["danger-full-access"]) || valued("-s", &["danger-full-access"])
            {
                return Some("codex --sandbox danger-full-access".to_owned());
            }
            given(&["--dangerously-bypass-approvals-and-sandbox", "--yolo"])
                .map(|option| format!("codex {option}"))
        }
        "gemini" => {
            if valued("--approval-mode", &["yolo"]) {
                return Some("gemini --approval-mode yolo".to_owned());
            }
            given(&["--yolo", "-y"]).map(|option| format!("gemini {option}"))
        }
        "cursor-agent" => given(&["--force", "-f"]).map(|option| format!("cursor-agent {option}")),
        "copilot" => given(&["--allow-all-tools", "--allow-all-paths", "--yolo"])
            .map(|option| format!("copilot {option}")),
        _ => None,
    }
}

/// The program a configuration command is, and its arguments: `pip3.12` and `python3 -m pip`
/// are pip; Claude Code's package run through npx (`@anthropic-ai/claude-code`) is `claude`.
fn config_tool<'a>(name: &'a str, args: &'a [String]) -> (&'a str, &'a [String]) {
    let versioned = |base: &str| {
        name.strip_prefix(base)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    if versioned("pip") {
        return ("pip", args);
    }
    if versioned("python")
        && let Some(at) = args.windows(2).position(
            |pair| matches!(pair, [flag, module] if flag == "-m" && module.starts_with("pip")),
        )
    {
        return ("pip", args.get(at + 2..).unwrap_or(&[]));
    }
    if name == "claude-code" {
        return ("claude", args);
    }
    (name, args)
}

pub(super) fn check_command(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    if name == "crontab" {
        let parsed = Parsed::new(cmd.args(), &['u'], &[]);
        if !parsed.has(&['l'], &[]) {
            out.add(
                "write-scheduled-task",
                "`crontab` installs or changes scheduled tasks that run outside the session",
            );
        }
    }
    if let Some(reason) = installs_service(cmd) {
        out.add("write-scheduled-task", reason);
    }
    if let Some((rule, reason)) = tool_config_change(cmd) {
        out.add(rule, reason);
    }
    if let Some(how) = unguarded_agent(cmd) {
        out.add(
            "write-agent-settings",
            format!("`{how}` starts an agent with its permission checks or hooks turned off"),
        );
    }
    if let Some(change) = privilege_change(name, cmd.args()) {
        out.add(
            "write-privilege-config",
            format!("`{change}` changes who may act as root on this machine"),
        );
    }
    if let Some(load) = kernel_code_load(name, cmd.args()) {
        out.add(
            "write-privilege-config",
            format!("`{load}` would run code of the caller's choosing in the kernel"),
        );
    }
    let effects = &cmd.effects;
    let mut targets: Vec<String> = effects.writes.clone();
    // The one source copied, moved or linked to a target that is no directory yet.
    let mut single_source: Option<&str> = None;
    // A download into a directory names its files after the sources, as cp's do
    // (`aws s3 cp s3://b/.bashrc ~/`).
    let downloaded = crate::argv::storage_copy(name, cmd.args())
        .filter(|(_, target)| crate::argv::is_local_operand(target));
    if let Some((sources, dir)) = downloaded {
        push_copied(cmd, &mut targets, dir, sources, false);
    } else if matches!(name, "cp" | "mv" | "install" | "ln" | "rsync") {
        let parsed = if name == "rsync" {
            crate::argv::rsync(cmd.args())
        } else {
            Parsed::new(
                cmd.args(),
                &['t', 'S', 'm', 'o', 'g'],
                &["target-directory", "suffix", "mode", "owner", "group"],
            )
        };
        let explicit_dir = parsed.values(&['t'], &["target-directory"]);
        let (dir, sources): (Option<&str>, Vec<&str>) = match explicit_dir.first() {
            Some(dir) => (Some(*dir), parsed.operands.clone()),
            None => match parsed.operands.split_last() {
                Some((target, sources)) => (Some(*target), sources.to_vec()),
                None => (None, Vec::new()),
            },
        };
        if let (None, [source]) = (explicit_dir.first(), sources.as_slice()) {
            single_source = Some(*source);
        }
        if let Some(dir) = dir {
            push_copied(cmd, &mut targets, dir, sources, !explicit_dir.is_empty());
        }
    }
    let named = writing(name, cmd.args(), &cmd.ctx);
    for target in targets {
        let redirected = cmd
            .simple
            .redirects
            .iter()
            .any(|redirect| redirect.kind != RedirectKind::Read && redirect.target == target);
        let how = if redirected {
            Writing::Content
        } else if effects.linked.contains(&target) {
            Writing::Link
        } else if effects.removed.contains(&target) {
            // What mv, `git rm` or rename takes from its place is removed there.
            Writing::Removal
        } else if effects.replaced.contains(&target) {
            Writing::Replace
        } else {
            named
        };
        if let Some(target) = places::resolvable(&target) {
            let target = cmd.canonical(&target);
            // A folder of prompts copied to an agent's directory (`cp -r templates/commands
            // .claude/`) is meant to land inside it, where the floor asks; only where the
            // directory does not exist yet does the copy become it, which the command line
            // cannot tell.
            let how = match (how, single_source) {
                (Writing::Replace, Some(source))
                    if places::is_prompt_folder(source)
                        && places::persistence(&target, &cmd.ctx) == Some(places::AGENT_DIR) =>
                {
                    named
                }
                (how, _) => how,
            };
            check_write(&target, how, &cmd.ctx, out);
            check_approvals(&target, std::iter::once(cmd.raw), out);
            // A link opens all below its target to what later writes through it, under names
            // the command line does not give (`ln -s ~/.claude c; echo x > c/settings.json`).
            if how == Writing::Link {
                check_fill(&target, Fill::Link, &cmd.ctx, out);
            }
        }
    }
    for dir in &effects.filled {
        if let Some(dir) = places::resolvable(dir) {
            check_fill(&cmd.canonical(&dir), Fill::Names, &cmd.ctx, out);
        }
    }
}

/// A copy's target `dir`, and the files it makes there when it may be a directory (`explicit`:
/// it is one, by `-t`): each source's name below it. Not where the target is clearly a file: a
/// copy of the source by another name (`cp ~/.bashrc ~/.bashrc.bak`), or one in scratch space,
/// where no start-up file or setting is read (`cp ~/.claude.json /tmp/claude.json`).
fn push_copied(
    cmd: &Cmd<'_>,
    targets: &mut Vec<String>,
    dir: &str,
    sources: Vec<&str>,
    explicit: bool,
) {
    targets.push(dir.to_owned());
    let maybe_dir =
        explicit || dir.ends_with('/') || !places::is_scratch(&cmd.canonical(dir), &cmd.ctx);
    for source in sources {
        if !maybe_dir || (!explicit && is_backup_of(dir, source)) {
            continue;
        }
        targets.push(format!(
            "{}/{}",
            dir.trim_end_matches('/'),
            places::basename(source)
        ));
    }
}

/// Whether `target` names a backup copy of `source`: its name with a suffix (`.bashrc.bak`,
/// `.bashrc~`, `settings.json-old`), not a directory of drop-in files (`.bashrc.d`).
fn is_backup_of(target: &str, source: &str) -> bool {
    let source = places::basename(source.trim_end_matches('/'));
    let Some(suffix) = places::basename(target).strip_prefix(source) else {
        return false;
    };
    if source.is_empty() || suffix == ".d" {
        return false;
    }
    suffix == "~"
        || suffix.strip_prefix(['.', '-', '_']).is_some_and(|rest| {
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
        })
}

/// How a directory is opened to names the command line does not give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Filled with them now (an archive unpacked, a tree copied).
    Names,
    /// Linked to, for later writes through the link.
    Link,
}

/// A canonical directory filled with names the command does not choose (see
/// [`crate::evaluate::Effects::filled`]), or linked to: any file in it is written (`tar -x -C
/// ~/.config/autostart`), and one that holds persistence places below it (the home, `/etc`, `/`)
/// may see any of them overwritten.
fn check_fill(dir: &str, fill: Fill, ctx: &PathContext<'_>, out: &mut Findings) {
    let any_file = format!("{}/*", dir.trim_end_matches('/'));
    let (writing, how) = match fill {
        Fill::Names => (Writing::Content, "filling"),
        Fill::Link => (Writing::Link, "a link to"),
    };
    check_write(&any_file, writing, ctx, out);
    if places::holds_persistence(dir, ctx) {
        out.add(
            "write-unpack-over-config",
            format!(
                "{how} `{dir}` opens the start-up files, scheduled tasks or access configuration below it to be overwritten under names the command line does not give"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{
        Grants, grants_identity, grants_root, kernel_code_load, mode_grants, sets_user_id,
    };

    #[test]
    fn kernel_code_of_the_callers_choosing() {
        let load = |line: &str| {
            let mut words = line.split_whitespace();
            let name = words.next().unwrap_or("");
            let args: Vec<String> = words.map(str::to_owned).collect();
            kernel_code_load(name, &args)
        };
        assert_eq!(
            load("insmod ./hide.ko x=1").as_deref(),
            Some("insmod ./hide.ko")
        );
        assert_eq!(
            load("modprobe -d /tmp/m x").as_deref(),
            Some("modprobe /tmp/m")
        );
        assert_eq!(
            load("modprobe --dirname=/tmp/m x").as_deref(),
            Some("modprobe /tmp/m")
        );
        assert_eq!(
            load("modprobe -C/tmp/c x").as_deref(),
            Some("modprobe /tmp/c")
        );
        assert_eq!(
            load("kexec -l /tmp/vmlinuz --initrd /tmp/i").as_deref(),
            Some("kexec /tmp/vmlinuz")
        );
        assert_eq!(load("kexec --load-panic /k").as_deref(), Some("kexec /k"));
        assert_eq!(load("kexec /k").as_deref(), Some("kexec /k"));
        for alone in [
            "insmod",
            "modprobe br_netfilter",
            "modprobe -a loop nbd",
            "modprobe -r -d /tmp/m x",
            "modprobe -n -d /tmp/m x",
            "kexec -u",
            "kexec -e",
            "rmmod nbd",
        ] {
            assert_eq!(load(alone), None, "{alone}");
        }
    }

    #[test]
    fn what_modes_grant() {
        let grants = |others_write, execute, owner_shut_out| {
            Some(Grants {
                others_write,
                execute,
                owner_shut_out,
            })
        };
        for (mode, expected) in [
            ("600", grants(false, false, true)),
            ("0644", grants(false, false, true)),
            ("700", grants(false, true, false)),
            ("755", grants(false, true, false)),
            ("0500", grants(false, true, false)),
            ("666", grants(true, false, true)),
            ("0020", grants(true, false, true)),
            ("000", grants(false, false, true)),
            ("7", grants(true, true, true)),
            ("go-w", grants(false, false, false)),
            ("go-rwx", grants(false, false, false)),
            ("u=rw,go=", grants(false, false, true)),
            ("u=rwX", grants(false, true, false)),
            ("a-x", grants(false, false, true)),
            ("-r", grants(false, false, true)),
            ("u-w", grants(false, false, false)),
            ("a=", grants(false, false, true)),
            ("u=g", grants(false, true, false)),
            ("+x", grants(false, true, false)),
            ("u+X", grants(false, true, false)),
            ("g+w", grants(true, false, false)),
            ("+w", grants(true, false, false)),
            ("-x,o+w", grants(true, false, true)),
            ("go=u", grants(true, true, false)),
            ("u+rw-x", grants(false, false, true)),
            ("x+y", None),
            ("", None),
        ] {
            assert_eq!(mode_grants(mode), expected, "{mode}");
        }
    }

    #[test]
    fn capabilities_that_grant_root() {
        for caps in [
            "cap_setuid+ep",
            "cap_net_raw,cap_sys_admin=eip",
            "=ep",
            "all=ep",
        ] {
            assert!(grants_root(caps), "{caps}");
        }
        for caps in ["cap_net_bind_service=+ep", "cap_net_raw+p"] {
            assert!(!grants_root(caps), "{caps}");
        }
    }

    #[test]
    fn set_user_id_modes() {
        for mode in [
            "u+s", "+s", "a+s", "u=rwxs", "go-w,u+s", "4755", "6711", "04755", "u+x+s",
        ] {
            assert!(sets_user_id(mode), "{mode}");
        }
        for mode in [
            "g+s", "u-s", "755", "2775", "0755", "u+x", "o+t", "+t", "u+x-s", "=755", "-4000",
        ] {
            assert!(!sets_user_id(mode), "{mode}");
        }
        for mode in ["=4755", "+4000", "2755", "02711", "F4755"] {
            let mode = mode.strip_prefix('F').unwrap_or(mode);
            assert!(grants_identity(mode), "{mode}");
        }
        for mode in ["2775", "2770", "g+s", "755", "=755", "2700"] {
            assert!(!grants_identity(mode), "{mode}");
        }
    }
}
