//! The working directory of each command of a shell call, as far as it is known statically.

use crate::packs::places;
use crate::paths::{self, PathContext};
use crate::shell::Analysis;

/// The directory each command runs in after the `cd`/`pushd` commands before it (`cd ~/.ssh &&
/// cat id_rsa`, `cd .. && rm -rf project`), when the target is known statically; `None` means
/// the event's cwd. Relative paths of a command resolve against its directory; the project stays
/// the event's cwd.
pub(crate) fn working_dirs(analysis: &Analysis, ctx: &PathContext<'_>) -> Vec<Option<String>> {
    let mut dirs = Vec::with_capacity(analysis.commands.len());
    let mut current: Option<String> = None;
    for simple in &analysis.commands {
        dirs.push(current.clone());
        if !matches!(simple.name(), "cd" | "pushd" | "chdir") {
            continue;
        }
        let target = simple
            .args()
            .iter()
            .find(|arg| !arg.starts_with('-') || arg.as_str() == "-")
            .map(String::as_str);
        let base = PathContext {
            cwd: current.as_deref().unwrap_or(ctx.cwd),
            home: ctx.home,
        };
        current = match target {
            None => ctx.home.map(str::to_owned),
            Some("-") => None,
            Some(dir) if places::is_dynamic(dir) && !dir.contains("HOME") => None,
            Some(dir) => {
                let canonical = paths::canonicalize(dir, &base);
                (!places_dynamic(&canonical)).then_some(canonical)
            }
        };
    }
    dirs
}

fn places_dynamic(path: &str) -> bool {
    places::is_dynamic(path) || path.starts_with('~')
}
