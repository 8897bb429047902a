//! Destructive git rules and git configuration that runs commands.
//!
//! Git's global options (`-C dir`, `-c k=v`, `--git-dir`, `--work-tree`, `--no-pager`, …) are
//! parsed before the subcommand; subcommand flags are parsed getopt-style (clusters, long forms,
//! `--`); push refspecs are read for force (`+`), source and destination (`HEAD:main`,
//! `refs/heads/main`) and deletion (`:main`). This module must not flag dry runs,
//! `restore --staged` or pushes of feature branches.

use super::Cmd;
use crate::argv::{
    GIT_CLONE_LONG_VALUE, GIT_CLONE_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE, GIT_GLOBAL_SHORT_VALUE,
    Parsed, leading_options, long_option_matches,
};
use crate::packs::Findings;

/// Whether a git configuration key names a command git runs (or a file that can set one).
pub(crate) fn is_dangerous_config_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    const EXACT: &[&str] = &[
        "core.fsmonitor",
        "core.hookspath",
        "core.sshcommand",
        "core.pager",
        "core.editor",
        "core.askpass",
        "core.gitproxy",
        "core.alternaterefscommand",
        "diff.external",
        "credential.helper",
        "sequence.editor",
        "gpg.program",
        "gpg.ssh.program",
        "gpg.x509.program",
        "gpg.openpgp.program",
        "uploadpack.packobjectshook",
        "include.path",
        "init.templatedir",
        "interactive.difffilter",
        "web.browser",
        "protocol.ext.allow",
        "protocol.allow",
        "ssh.variant",
        "instaweb.httpd",
        "sendemail.smtpserver",
        "sendemail.tocmd",
        "sendemail.cccmd",
    ];
    if EXACT.contains(&key.as_str()) {
        return true;
    }
    let mut parts = key.split('.');
    let section = parts.next().unwrap_or("");
    let last = key.rsplit('.').next().unwrap_or("");
    match section {
        "alias" | "includeif" | "pager" => true,
        "filter" => matches!(last, "clean" | "smudge" | "process"),
        "diff" => matches!(last, "textconv" | "command"),
        "merge" => last == "driver",
        "credential" => last == "helper",
        "remote" => matches!(last, "uploadpack" | "receivepack" | "proxy"),
        "difftool" | "mergetool" | "man" | "browser" => last == "cmd" || last == "path",
        _ => false,
    }
}

/// Reports the `key=value` settings (given with `how`: `git -c`, `git clone -c`) that make git
/// run a command of the caller's choosing. `known` is false when the values are only known at
/// run time (`--config-env key=VAR` names a variable, not the value).
fn dangerous_settings(how: &str, settings: Vec<&str>, known: bool, out: &mut Findings) {
    for setting in settings {
        let (key, value) = match setting.split_once('=') {
            Some((key, value)) => (key, known.then_some(value)),
            None => (setting, None),
        };
        if runs_command(key, value, 0) {
            out.add(
                "git-dangerous-config",
                format!("`{how} {key}=…` makes git run a command of the caller's choosing"),
            );
        }
    }
}

/// How deep an alias of an alias is followed before it is read as a command of the caller's
/// choosing.
const MAX_ALIAS_DEPTH: usize = 2;

/// Whether setting `key` to `value` (`None`: not known before it runs) makes git run a command of
/// the caller's choosing. A key that names a command ([`is_dangerous_config_key`]) does not when
/// its value is a plain editor or pager for the keys that take one (`core.editor vim`,
/// `core.pager 'less -R'`, `pager.branch false`), a credential helper git ships
/// (`credential.helper store`), or an alias of a git command the baseline leaves alone
/// (`alias.co checkout`; not `!…`, which is shell text, nor `push -f origin main`).
fn runs_command(key: &str, value: Option<&str>, depth: usize) -> bool {
    if !is_dangerous_config_key(key) {
        return false;
    }
    let Some(value) = value else {
        return true;
    };
    let key = key.to_ascii_lowercase();
    let section = key.split('.').next().unwrap_or("");
    let last = key.rsplit('.').next().unwrap_or("");
    match (section, last) {
        ("core", "editor" | "pager") | ("sequence", "editor") | ("interactive", "difffilter") => {
            !super::exec::is_plain_viewer(value)
        }
        ("pager", _) => !(git_bool(value) || super::exec::is_plain_viewer(value)),
        ("credential", "helper") => !is_builtin_credential_helper(value),
        ("alias", _) => !is_plain_alias(value, depth),
        _ => true,
    }
}

/// Credential helpers git runs as `git credential-NAME`: the ones shipped with git or its
/// platform installers, `cache` with its `--timeout`. Empty clears the list. Not `store
/// --file=…` (the credentials go where the caller chose), a path or `!…`.
fn is_builtin_credential_helper(value: &str) -> bool {
    const HELPERS: &[&str] = &[
        "store",
        "cache",
        "osxkeychain",
        "manager",
        "manager-core",
        "libsecret",
        "wincred",
        "gnome-keyring",
    ];
    let mut words = value.split_whitespace();
    let Some(helper) = words.next() else {
        return true;
    };
    HELPERS.contains(&helper)
        && words.all(|word| {
            helper == "cache"
                && word.strip_prefix("--timeout=").is_some_and(|secs| {
                    !secs.is_empty() && secs.bytes().all(|b| b.is_ascii_digit())
                })
        })
}

/// Whether an alias expands to a git command the baseline leaves alone (`checkout`, `log
/// --oneline`): judged as `git EXPANSION`. Not `!…` (shell text), not global options (`-c
/// core.pager=…`), not a command the baseline flags (`push -f origin main`, `config core.pager
/// id`): the later `git ALIAS` would not show what runs.
fn is_plain_alias(value: &str, depth: usize) -> bool {
    let words: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
    let Some(first) = words.first() else {
        return true;
    };
    if first.starts_with(['!', '-']) || depth >= MAX_ALIAS_DEPTH {
        return false;
    }
    let mut found = Findings::default();
    check_git(&words, depth + 1, &mut found);
    found.is_empty()
}

/// Whether git reads a value as a boolean (`false`, `no`, `off`, `0`, `true`, …).
fn git_bool(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    matches!(
        value.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// Whether a branch name is protected from force pushes (main, master, release branches).
fn is_protected(branch: &str) -> bool {
    let branch = branch.to_ascii_lowercase();
    if branch == "main" || branch == "master" {
        return true;
    }
    ["release", "releases"].iter().any(|prefix| {
        branch
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '-', '_', '.']))
    })
}

/// Whether a branch name is the default branch (plain pushes there need confirmation).
fn is_default_branch(branch: &str) -> bool {
    matches!(branch.to_ascii_lowercase().as_str(), "main" | "master")
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    if cmd.name() == "git" {
        check_git(cmd.args(), 0, out);
    }
}

/// The rules over git's arguments `args`; `depth` counts the aliases they were expanded from.
fn check_git(args: &[String], depth: usize, out: &mut Findings) {
    let (globals, sub) = leading_options(args, GIT_GLOBAL_SHORT_VALUE, GIT_GLOBAL_LONG_VALUE);
    dangerous_settings("git -c", globals.values(&['c'], &[]), true, out);
    dangerous_settings(
        "git --config-env",
        globals.values(&[], &["config-env"]),
        false,
        out,
    );
    // `-c key` alone sets a boolean to true; `--config-env key=VAR` takes a value only known
    // at run time, so it is read as the worst one.
    for value in globals.values(&['c'], &[]) {
        let (key, setting) = value.split_once('=').unwrap_or((value, "true"));
        destructive_setting(key, Some(setting), out);
    }
    for value in globals.values(&[], &["config-env"]) {
        let key = value.split_once('=').map_or(value, |(key, _)| key);
        destructive_setting(key, None, out);
    }
    let Some(sub) = sub else { return };
    let Some(subcommand) = args.get(sub) else {
        return;
    };
    let rest = args.get(sub + 1..).unwrap_or(&[]);
    match subcommand.as_str() {
        // Settings of the new repository, in force for the clone itself (`core.sshCommand`)
        // and for every later command in it (`core.fsmonitor`).
        "clone" | "init" => {
            let parsed = Parsed::new(rest, GIT_CLONE_SHORT_VALUE, GIT_CLONE_LONG_VALUE);
            // A template directory's hooks are copied in, and a clone's `post-checkout` runs.
            if !parsed.values(&[], &["template"]).is_empty() {
                out.add(
                    "git-dangerous-config",
                    format!(
                        "`git {subcommand} --template` installs the hooks of another directory, which git runs"
                    ),
                );
            }
            dangerous_settings(
                &format!("git {subcommand} -c"),
                parsed.values(&['c'], &["config"]),
                true,
                out,
            );
        }
        "reset" if Parsed::new(rest, &[], &[]).has(&[], &["hard"]) => out.add(
            "git-reset-hard",
            "`git reset --hard` discards every uncommitted change in the worktree",
        ),
        "clean" => {
            let parsed = Parsed::new(rest, &['e'], &["exclude"]);
            if parsed.has(&['f'], &["force"]) && !parsed.has(&['n'], &["dry-run"]) {
                out.add(
                    "git-clean-force",
                    "`git clean -f` deletes untracked files, which git cannot bring back",
                );
            }
        }
        "checkout" => {
            let parsed = Parsed::new(rest, &['b', 'B'], &["orphan", "conflict"]);
            let dashes = rest
                .iter()
                .position(|arg| arg == "--")
                .is_some_and(|at| rest.len() > at + 1);
            let whole_tree = parsed
                .operands
                .iter()
                .any(|operand| matches!(*operand, "." | ":/" | "*" | "./"));
            if parsed.has(&['f'], &["force"])
                || dashes
                || whole_tree
                || parsed.has_long_prefix("pathspec-from-file")
            {
                out.add(
                    "git-checkout-discard",
                    "`git checkout` over worktree paths overwrites uncommitted edits",
                );
            }
        }
        "restore" => {
            let parsed = Parsed::new(rest, &['s'], &["source"]);
            let staged = parsed.has(&['S'], &["staged"]);
            let worktree = parsed.has(&['W'], &["worktree"]);
            let has_paths =
                !parsed.operands.is_empty() || parsed.has_long_prefix("pathspec-from-file");
            if has_paths && (worktree || !staged) {
                out.add(
                    "git-restore-worktree",
                    "`git restore` of worktree files discards uncommitted edits",
                );
            }
        }
        "branch" => {
            let parsed = Parsed::new(rest, &[], &[]);
            let force_delete = parsed.has(&['D'], &[])
                || (parsed.has(&['d'], &["delete"]) && parsed.has(&['f'], &["force"]));
            if force_delete {
                out.add(
                    "git-branch-force-delete",
                    "`git branch -D` deletes a branch even when its commits are not merged",
                );
            }
        }
        // The plumbing under `git branch -D`: a branch's ref removed, merged or not.
        "update-ref" => {
            let parsed = Parsed::new(rest, &['m'], &[]);
            let branch = parsed
                .operands
                .first()
                .is_some_and(|name| name.starts_with("refs/heads/"));
            if parsed.has(&['d'], &[]) && branch {
                out.add(
                    "git-branch-force-delete",
                    "`git update-ref -d` deletes a branch even when its commits are not merged",
                );
            }
        }
        "stash" => {
            let parsed = Parsed::new(rest, &[], &[]);
            if matches!(parsed.operands.first(), Some(&"drop" | &"clear")) {
                out.add(
                    "git-stash-drop",
                    "`git stash drop|clear` deletes stashed work",
                );
            }
        }
        "reflog" => {
            let parsed = Parsed::new(rest, &[], &[]);
            if matches!(parsed.operands.first(), Some(&"expire" | &"delete")) {
                out.add(
                    "git-reflog-expire",
                    "`git reflog expire|delete` removes the record that recovers lost commits",
                );
            }
        }
        "filter-branch" | "filter-repo" => out.add(
            "git-history-rewrite",
            format!("`git {subcommand}` rewrites the whole history of the repository"),
        ),
        // `send-pack` is the plumbing under `push`, with the same refspecs and `--force`.
        "push" | "send-pack" => push(rest, out),
        // A remote added with `--mirror=push` mirrors on every plain push.
        "remote"
            if rest.first().is_some_and(|arg| arg == "add")
                && rest.iter().any(|arg| {
                    arg.strip_prefix("--").is_some_and(|long| {
                        long_option_matches(long.split('=').next().unwrap_or(""), "mirror")
                    }) && !arg.ends_with("=fetch")
                }) =>
        {
            push(&["--mirror".to_owned()], out);
        }
        "config" => config(rest, depth, out),
        _ => {}
    }
}

/// What a push does to one remote branch.
enum Target<'a> {
    /// A named branch (`main`, `feature/x`).
    Branch(&'a str),
    /// The current branch, whatever it is (`HEAD`, or no refspec at all).
    Current,
    /// Every branch (`--all`, `--mirror`).
    All,
    /// A tag or another non-branch ref.
    Other,
}

fn push(rest: &[String], out: &mut Findings) {
    let parsed = Parsed::new(
        rest,
        &['o'],
        &["repo", "receive-pack", "exec", "push-option"],
    );
    if parsed.has(&['n'], &["dry-run"]) {
        return;
    }
    let mirror = parsed.has(&[], &["mirror"]);
    let force_flag =
        parsed.has(&['f'], &["force"]) || parsed.has_long_prefix("force-with-lease") || mirror;
    let delete_flag = parsed.has(&['d'], &["delete"]);
    let all = mirror || parsed.has(&[], &["all", "branches"]);
    let refspecs: Vec<&str> = parsed.operands.iter().skip(1).copied().collect();
    let mut targets: Vec<(Target<'_>, bool, bool)> = Vec::new();
    for spec in &refspecs {
        let (forced, spec) = match spec.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, *spec),
        };
        let (deleting, destination) = if delete_flag {
            (true, spec)
        } else if let Some(destination) = spec.strip_prefix(':') {
            (true, destination)
        } else {
            (false, spec.rsplit_once(':').map_or(spec, |(_, dst)| dst))
        };
        let target = if destination == "HEAD" || destination == "@" || destination.is_empty() {
            Target::Current
        } else if destination.contains('*') {
            Target::All
        } else if let Some(branch) = destination.strip_prefix("refs/heads/") {
            Target::Branch(branch)
        } else if destination.starts_with("refs/") {
            Target::Other
        } else {
            Target::Branch(destination)
        };
        targets.push((target, forced || force_flag, deleting));
    }
    if all {
        targets.push((Target::All, force_flag, delete_flag));
    }
    if targets.is_empty() {
        targets.push((Target::Current, force_flag, delete_flag));
    }
    for (target, forced, deleting) in targets {
        let verb = if deleting {
            "deleting"
        } else {
            "force-pushing"
        };
        match target {
            Target::Branch(branch) if (forced || deleting) && is_protected(branch) => out.add(
                "git-force-push-protected-branch",
                format!("{verb} the protected branch `{branch}` rewrites shared history"),
            ),
            Target::Current | Target::All if forced || deleting => out.add(
                "git-force-push-protected-branch",
                format!("{verb} without naming a branch may rewrite a protected branch (main, master, release)"),
            ),
            Target::Branch(_) | Target::Other if forced || deleting => out.add(
                "git-force-push",
                format!("{verb} a remote branch loses commits others may have pushed"),
            ),
            Target::Branch(branch) if is_default_branch(branch) => out.add(
                "git-push-protected-branch",
                format!("pushing straight to `{branch}` skips review"),
            ),
            Target::All => out.add(
                "git-push-protected-branch",
                "pushing every branch includes the default branch and skips review",
            ),
            _ => {}
        }
    }
}

fn config(rest: &[String], depth: usize, out: &mut Findings) {
    let Some((key, value)) = crate::argv::git_config_set(rest) else {
        return;
    };
    let value = value.map(String::as_str);
    if value.is_some() {
        destructive_setting(key, value, out);
    }
    if runs_command(key, value, depth) {
        out.add(
            "git-dangerous-config",
            format!("setting `{key}` makes git run a command of the caller's choosing"),
        );
    }
}

/// Settings that make a later plain command destructive: a push refspec (`+…` forces every push
/// of it, `:main` deletes), `remote.NAME.mirror` (every push mirrors: forced, deleting), and
/// `clean.requireForce=false` (`git clean` deletes without `-f`). Judged as the command they
/// turn into. `value` is `None` when it is only known at run time (`--config-env`).
fn destructive_setting(key: &str, value: Option<&str>, out: &mut Findings) {
    let key = key.to_ascii_lowercase();
    let remote = key.strip_prefix("remote.");
    if remote.is_some_and(|rest| rest.ends_with(".push")) {
        match value {
            Some(refspec) => push(&["<remote>".to_owned(), refspec.to_owned()], out),
            None => push(&["<remote>".to_owned(), "+HEAD".to_owned()], out),
        }
    } else if remote.is_some_and(|rest| rest.ends_with(".mirror")) && value.is_none_or(git_true) {
        push(&["--mirror".to_owned()], out);
    } else if key == "clean.requireforce" && !value.is_some_and(git_true) {
        out.add(
            "git-clean-force",
            "`clean.requireForce=false` lets `git clean` delete untracked files without `-f`",
        );
    }
}

/// Whether git reads a boolean setting as true: `true`, `yes`, `on` or a non-zero integer
/// (an empty value is false).
fn git_true(value: &str) -> bool {
    let value = value.trim().to_ascii_lowercase();
    matches!(value.as_str(), "true" | "yes" | "on")
        || value.parse::<i64>().is_ok_and(|number| number != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_names() {
        assert!(is_protected("main"));
        assert!(is_protected("release/1.2"));
        assert!(is_protected("release-2024"));
        assert!(!is_protected("feature/main-menu"));
        assert!(!is_protected("releasenotes"));
        assert!(is_dangerous_config_key("core.fsmonitor"));
        assert!(is_dangerous_config_key("alias.st"));
        assert!(is_dangerous_config_key("filter.lfs.smudge"));
        assert!(!is_dangerous_config_key("user.name"));
    }

    #[test]
    fn reasons_name_the_command_they_judge() {
        let reasons = |line: &str| {
            let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            let mut found = Findings::default();
            check_git(&args, 0, &mut found);
            found
                .found
                .into_iter()
                .map(|(_, reason)| reason)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            reasons("init -c core.hooksPath=/tmp/h"),
            ["`git init -c core.hooksPath=…` makes git run a command of the caller's choosing"]
        );
        assert_eq!(
            reasons("clone -c core.hooksPath=/tmp/h https://x.example/r"),
            ["`git clone -c core.hooksPath=…` makes git run a command of the caller's choosing"]
        );
        assert_eq!(
            reasons("init --template=/tmp/t"),
            ["`git init --template` installs the hooks of another directory, which git runs"]
        );
    }

    #[test]
    fn settings_that_run_a_command() {
        for (key, value) in [
            ("core.editor", "vim"),
            ("core.Editor", "code --wait"),
            ("core.pager", "diff-so-fancy | less --tabs=4 -RFX"),
            ("pager.branch", "false"),
            ("credential.helper", "cache --timeout=3600"),
            ("credential.https://example.com.helper", "osxkeychain"),
            ("credential.helper", ""),
            ("alias.co", "checkout"),
            ("alias.st", "status -sb"),
            ("user.name", "anything"),
        ] {
            assert!(!runs_command(key, Some(value), 0), "{key}={value}");
        }
        for (key, value) in [
            ("core.editor", "/tmp/ed"),
            ("core.editor", "vim -c '!id'"),
            ("core.pager", "less -k/tmp/keys"),
            ("core.pager", "less || id"),
            ("credential.helper", "store --file=/tmp/x"),
            ("credential.helper", "cache --socket=/tmp/s"),
            ("credential.helper", "!gh auth git-credential"),
            ("alias.x", "!id"),
            ("alias.x", "-c core.pager=id log"),
            ("alias.p", "push --force origin main"),
            ("alias.c", "config core.pager id"),
            ("core.sshcommand", "ssh"),
        ] {
            assert!(runs_command(key, Some(value), 0), "{key}={value}");
        }
        assert!(runs_command("core.editor", None, 0));
        // An alias expanding to a command that sets another alias is followed only so far.
        assert!(runs_command("alias.a", Some("status"), MAX_ALIAS_DEPTH));
    }
}
