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
pub(crate) fn working_dirs(analysis: &Analysis, ctx: &PathContext<'_>) -> Vec<Option<String>> {
    let mut dirs = Vec::with_capacity(analysis.commands.len());
    let mut current: Option<String> = None;
    let mut previous: Option<String> = None;
    let mut stack: Vec<Option<String>> = Vec::new();
    for simple in &analysis.commands {
        dirs.push(current.clone());
        let name = simple.name();
        if !matches!(name, "cd" | "pushd" | "popd" | "chdir") {
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
        let base = PathContext {
            cwd: current.as_deref().unwrap_or(ctx.cwd),
            home: ctx.home,
        };
        let next = match target {
            None => ctx.home.map(str::to_owned),
            Some("-") => previous.clone(),
            Some(dir) if places::is_dynamic(dir) && !dir.contains("HOME") => None,
            Some(dir) => {
                let canonical = paths::canonicalize(dir, &base);
                (!places_dynamic(&canonical)).then_some(canonical)
            }
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

fn places_dynamic(path: &str) -> bool {
    places::is_dynamic(path) || path.starts_with('~')
}
