//! The working directory of each command of a shell call, as far as it is known statically.
//!
//! The analysis is a flat list of simple commands: it does not say whether a `cd` ran in a
//! subshell, a pipeline or the background (`(cd /tmp/a/b) && rm -rf ../..`), where it moves
//! nothing for the commands after it. So a tracked directory is an *extra* place a later
//! command's relative paths may resolve to: callers judge them against the event's cwd as well,
//! and a command is flagged if either reading flags it.

use crate::packs::places;
use crate::paths::{self, PathContext};
use crate::shell::Analysis;

/// The directory each command runs in after the `cd`, `pushd` and `popd` commands before it
/// (`cd ~/.ssh && cat id_rsa`, `cd .. && rm -rf project`), when it is known statically; `None`
/// means the event's cwd (or a directory only known at run time). `cd -` returns to the
/// previous directory, `popd` to the one `pushd` saved; `pushd -n` and `popd -n` move nothing.
/// A wrapper that runs its command elsewhere (`env -C ~ rm -rf .`, `sudo -D / rm -rf etc`) moves
/// that command alone; a `cd` a wrapper runs (`sudo cd /`, `env cd /`) moves nothing (see
/// [`SimpleCommand::runs_in_the_shell`]).
pub(crate) fn working_dirs(analysis: &Analysis, ctx: &PathContext<'_>) -> Vec<Option<String>> {
    let mut dirs = Vec::with_capacity(analysis.commands.len());
    let mut current: Option<String> = None;
    let mut previous: Option<String> = None;
    let mut stack: Vec<Option<String>> = Vec::new();
    // The directories of the payload the last `cd` ran in (`ssh host 'cd /srv && make'` runs
    // in `~`): the commands after it in that payload run from where it went, not from them.
    let mut scope: &[String] = &[];
    for simple in &analysis.commands {
        let here = PathContext {
            cwd: current.as_deref().unwrap_or(ctx.cwd),
            home: ctx.home,
        };
        let own = match simple.dirs.strip_prefix(scope) {
            Some(own) => own,
            None => &simple.dirs,
        };
        let wrapped = wrapper_dir(own, &here);
        dirs.push(wrapped.unwrap_or_else(|| current.clone()));
        let name = simple.name();
        if !matches!(name, "cd" | "pushd" | "popd" | "chdir") || !simple.runs_in_the_shell() {
            continue;
        }
        let args = simple.args();
        let no_change = args.iter().any(|arg| arg == "-n");
        if name == "popd" {
            if !no_change {
                previous = current.take();
                current = stack.pop().flatten();
            } else {
                stack.pop();
            }
            continue;
        }
        let target = args
            .iter()
            .find(|arg| !arg.starts_with('-') || arg.as_str() == "-")
            .map(String::as_str);
        scope = &simple.dirs;
        // Relative to where the `cd` itself runs.
        let base = PathContext {
            cwd: dirs.last().and_then(Option::as_deref).unwrap_or(ctx.cwd),
            home: ctx.home,
        };
        let next = match target {
            None => Some(ctx.home.unwrap_or("~").to_owned()),
            Some("-") => previous.clone(),
            Some(dir) => known_dir(dir, &base),
        };
        if name == "pushd" {
            stack.push(if no_change {
                next.clone()
            } else {
                current.clone()
            });
            if no_change {
                continue;
            }
        }
        previous = std::mem::replace(&mut current, next);
    }
    dirs
}

/// Where the wrappers' directories (see [`crate::shell::SimpleCommand::dirs`]) run a command
/// that would otherwise run in `here`: `None` when no wrapper moves it, `Some(None)` when one
/// moves it somewhere only known at run time.
fn wrapper_dir(dirs: &[String], here: &PathContext<'_>) -> Option<Option<String>> {
    let mut moved: Option<String> = None;
    for dir in dirs {
        let base = PathContext {
            cwd: moved.as_deref().unwrap_or(here.cwd),
            home: here.home,
        };
        let Some(known) = known_dir(dir, &base) else {
            return Some(None);
        };
        moved = Some(known);
    }
    moved.map(Some)
}

/// The canonical directory `dir` names from `base`, when it is known statically (`$HOME` and
/// `~` are, through the event's home).
fn known_dir(dir: &str, base: &PathContext<'_>) -> Option<String> {
    if places::is_dynamic(dir) && !dir.contains("HOME") {
        // Somewhere only known at run time: anywhere (`cd "$D"` is `/**`, `cd "$D/x"` is
        // `/**/x`), so that `cd "$D" && cat .aws/credentials` is judged as `cat
        // "$D/.aws/credentials"` is.
        let anywhere = places::resolvable(dir)?;
        let anywhere = match anywhere.as_ref() {
            "*" | "*/" => "/**",
            other => other,
        };
        return (anywhere.starts_with("/**") && !anywhere.contains(".."))
            .then(|| anywhere.to_owned());
    }
    if base.cwd.starts_with("/**") && dir.contains("..") {
        return None;
    }
    let canonical = paths::canonicalize(dir, base);
    (!places_dynamic(&canonical)).then_some(canonical)
}

/// Whether a canonical directory is only known at run time. A home that is not known stands
/// as `~` (`cd ~/.ssh` is `~/.ssh`): paths below it are judged as `~/…` paths are.
fn places_dynamic(path: &str) -> bool {
    places::is_dynamic(path) || (path.starts_with('~') && path != "~" && !path.starts_with("~/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(command: &str) -> Vec<Option<String>> {
        let analysis = crate::shell::analyze(command, &crate::shell::ShellLimits::default());
        let ctx = PathContext {
            cwd: "/home/u/proj",
            home: Some("/home/u"),
        };
        working_dirs(&analysis, &ctx)
    }

    #[test]
    fn a_wrapper_moves_its_own_command_alone() {
        let home = Some("/home/u".to_owned());
        assert_eq!(dirs("env -C ~ rm -rf .; ls"), [home.clone(), None]);
        assert_eq!(
            dirs("sudo -D / env -C etc rm -rf ."),
            [Some("/etc".to_owned())]
        );
        assert_eq!(
            dirs("cd /srv && env -C app ls"),
            [None, Some("/srv/app".to_owned())]
        );
        assert_eq!(dirs("env -C \"$D\" ls"), [Some("/**".to_owned())]);
        assert_eq!(dirs("cd ~ && env ls"), [None, home]);
    }

    #[test]
    fn a_directory_only_known_at_run_time_is_anywhere() {
        let anywhere = Some("/**".to_owned());
        assert_eq!(dirs("cd \"$D\" && ls"), [None, anywhere.clone()]);
        assert_eq!(
            dirs("cd \"$D\"/x && cd y && ls"),
            [None, Some("/**/x".to_owned()), Some("/**/x/y".to_owned())]
        );
        // Above a directory only known at run time: not known at all.
        assert_eq!(dirs("cd \"$D\" && cd .. && ls"), [None, anywhere, None]);
        assert_eq!(dirs("cd \"$D/../x\" && ls"), [None, None]);
        assert_eq!(
            dirs("cd \"$HOME/x\" && ls"),
            [None, Some("/home/u/x".to_owned())]
        );
    }

    #[test]
    fn a_cd_in_a_payload_moves_from_where_the_payload_runs() {
        let srv = Some("/srv".to_owned());
        // `ssh host 'cd /srv && make'`: make runs in /srv, not the remote home.
        assert_eq!(
            dirs("ssh host 'cd /srv && make'"),
            [None, Some("/home/u".to_owned()), srv.clone()]
        );
        assert_eq!(
            dirs("ssh host 'cd app && make'"),
            [
                None,
                Some("/home/u".to_owned()),
                Some("/home/u/app".to_owned())
            ]
        );
        assert_eq!(
            dirs("env -C / sh -c 'cd srv; ls'"),
            [Some("/".to_owned()), Some("/".to_owned()), srv]
        );
    }

    #[test]
    fn a_home_not_known_stands_as_tilde() {
        let analysis = crate::shell::analyze(
            "cd ~/.ssh && cat id_rsa; cd; ls; cd ~other && ls",
            &crate::shell::ShellLimits::default(),
        );
        let ctx = PathContext {
            cwd: "/w/p",
            home: None,
        };
        let tilde = |dir: &str| Some(dir.to_owned());
        assert_eq!(
            working_dirs(&analysis, &ctx),
            [
                None,
                tilde("~/.ssh"),
                tilde("~/.ssh"),
                tilde("~"),
                tilde("~"),
                tilde("/home/other")
            ]
        );
        let moved = PathContext {
            cwd: "~/.ssh",
            home: None,
        };
        assert_eq!(paths::canonicalize("id_rsa", &moved), "~/.ssh/id_rsa");
        assert_eq!(paths::canonicalize("../.aws/x", &moved), "~/.aws/x");
        assert_eq!(paths::canonicalize("/etc/x", &moved), "/etc/x");
    }

    #[test]
    fn a_wrapped_cd_moves_nothing() {
        let root = Some("/".to_owned());
        assert_eq!(dirs("sudo cd / && ls"), [None, None]);
        assert_eq!(dirs("env cd / && ls"), [None, None]);
        assert_eq!(dirs("timeout 5 pushd / && ls"), [None, None]);
        assert_eq!(dirs("command cd / && ls"), [None, root.clone()]);
        assert_eq!(dirs("builtin cd / && ls"), [None, root]);
    }
}
