//! The safety floor: checks no allow rule can override, as in Claude Code.
//!
//! Recursive removal of a critical path (`/`, a top-level directory, the home directory, the
//! project or one of its parents, a system directory) and writes into `.git/`, `.claude/` or a
//! shell start-up file are at least `ask`, whatever the bundle allows.

use crate::argv::{self, has_flag};
use crate::packs::places::{self, SCRATCH_DIRS, SYSTEM_DIRS};
use crate::paths::{self, PathContext};
use crate::shell::SimpleCommand;

/// Rule id of the critical-removal floor.
pub(crate) const CRITICAL_REMOVAL: &str = "safety-floor/critical-path-removal";
/// Rule id of the protected-write floor.
pub(crate) const PROTECTED_WRITE: &str = "safety-floor/protected-path-write";

/// Shell start-up files: a write there runs code in every future shell.
pub(crate) const SHELL_INIT_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".inputrc",
    // PowerShell's profiles (`$PROFILE`), run by every PowerShell that starts.
    "Microsoft.PowerShell_profile.ps1",
    "Microsoft.VSCode_profile.ps1",
];

/// Whether `command` removes recursively, and if so the first critical operand: `rm -r`,
/// `rsync --delete…` (the destination becomes a copy of the source: what is not in the source
/// goes) and `find ROOT -delete` with nothing to select what it deletes. `find` is the `find`
/// whose `-exec` runs `command`, if it does: its `{}` is what that find selects.
/// Operands resolve against `working` (the directory an earlier `cd` moved to); what is critical
/// (the project, the home directory) is judged with the event's `ctx`.
pub(crate) fn critical_removal(
    command: &SimpleCommand,
    find: Option<&SimpleCommand>,
    ctx: &PathContext<'_>,
    working: &PathContext<'_>,
) -> Option<String> {
    let args = command.args();
    let operands = || args.iter().filter(|arg| !arg.starts_with('-'));
    let critical = |arg: &&String| match find {
        Some(find) if arg.as_str() == "{}" => find_selects_critical(find.args(), ctx, working)
            .unwrap_or_else(|| is_critical_target(arg, ctx, working)),
        _ => is_critical_target(arg, ctx, working),
    };
    if let Some(removed) = places::tree_removal(command.name(), args) {
        return removed
            .into_iter()
            .find(|arg| is_critical_target(arg, ctx, working))
            .map(str::to_owned);
    }
    match command.name() {
        "rm" if has_flag(args, &['r', 'R'], &["recursive"]) => operands().find(critical).cloned(),
        "rsync" | "rclone" => argv::sync_deleting(command.name(), args)
            .filter(|dest| is_critical_target(dest, ctx, working))
            .map(str::to_owned),
        "find" => {
            let (roots, expression) = crate::shell::find_split(args);
            if !deletes_whole_trees(expression) {
                return None;
            }
            roots
                .into_iter()
                .find(|root| is_critical_target(root, ctx, working))
                .map(str::to_owned)
        }
        _ => None,
    }
}

/// `find ROOT… -delete` whose expression holds nothing but `-delete` and options that select
/// nothing (`-depth`, `-maxdepth N`, `-xdev`, …): every file under the roots goes.
fn deletes_whole_trees(expression: &[String]) -> bool {
    let mut expression = expression.iter();
    let mut deletes = false;
    while let Some(arg) = expression.next() {
        match arg.as_str() {
            "-delete" => deletes = true,
            "-depth" | "-xdev" | "-mount" | "-ignore_readdir_race" | "-noleaf" => {}
            "-maxdepth" | "-mindepth" => {
                expression.next();
            }
            _ => return false,
        }
    }
    deletes
}

/// Whether what `find ARGS` selects (the `{}` of its `-exec`) may be a critical path; `None` when
/// its expression is not a plain conjunction (`-o`, `,`, `!`, `-not`, parentheses), which is
/// left to the `{}` text. A start directory is selected unless `-mindepth N` (N ≥ 1) or a `-name`
/// / `-iname` pattern that cannot match its own name (`.` for `.`, the home's last segment for
/// `~`) says otherwise; then what is selected lies below it, which holds no critical path when
/// the start directory lies inside the project, or is not critical itself, and a name pattern
/// narrows it down (`find . -name __pycache__`; not `-name '*'`, which is every entry).
fn find_selects_critical(
    args: &[String],
    ctx: &PathContext<'_>,
    working: &PathContext<'_>,
) -> Option<bool> {
    let (roots, expression) = crate::shell::find_split(args);
    let tests = FindTests::of(expression)?;
    Some(roots.into_iter().any(|root| {
        if !is_critical_target(root, ctx, working) {
            return false;
        }
        let selects_root = tests.min_depth == 0
            && start_name(root, working).is_none_or(|name| tests.all_names_match(&name));
        let below_is_safe =
            tests.narrowed() && places::is_in_project(&paths::canonicalize(root, working), ctx);
        selects_root || !below_is_safe
    }))
}

/// The tests of a `find` expression that say which files it can select, when the expression is
/// a plain conjunction.
struct FindTests<'a> {
    /// `-name` / `-iname` patterns, with whether case is ignored.
    names: Vec<(&'a str, bool)>,
    /// The largest `-mindepth`.
    min_depth: u32,
}

/// Most `find` expression words read.
const MAX_FIND_WORDS: usize = 256;

impl<'a> FindTests<'a> {
    /// The tests of `expression`; `None` with an operator other than AND at the top level
    /// (`-o`, `-or`, `,`, `!`, `-not`, parentheses) or past [`MAX_FIND_WORDS`].
    fn of(expression: &'a [String]) -> Option<Self> {
        if expression.len() > MAX_FIND_WORDS {
            return None;
        }
        let mut tests = FindTests {
            names: Vec::new(),
            min_depth: 0,
        };
        let mut words = expression.iter().map(String::as_str);
        while let Some(word) = words.next() {
            match word {
                "-o" | "-or" | "," | "!" | "-not" | "(" | ")" => return None,
                "-name" | "-iname" => tests.names.push((words.next()?, word == "-iname")),
                "-mindepth" => {
                    let depth = words.next()?.parse::<u32>().ok()?;
                    tests.min_depth = tests.min_depth.max(depth);
                }
                // The command run ends at `;` or `{} +`; its words are no tests.
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let mut previous = "";
                    for inner in words.by_ref() {
                        if inner == ";" || (inner == "+" && previous == "{}") {
                            break;
                        }
                        previous = inner;
                    }
                }
                _ => {}
            }
        }
        Some(tests)
    }

    /// Whether every name test matches `name`.
    fn all_names_match(&self, name: &str) -> bool {
        self.names
            .iter()
            .all(|(pattern, fold_case)| places::find_name_match(name, pattern, *fold_case))
    }

    /// Whether a name test narrows what is selected (see [`places::find_pattern_narrows`]).
    fn narrowed(&self) -> bool {
        self.names
            .iter()
            .any(|(pattern, _)| places::find_pattern_narrows(pattern))
    }
}

/// The name `find` gives a start directory for `-name`: its last segment as written (`.`,
/// `..`, `build`; `/` for the root), the home's for `~` and `$HOME`. `None` when it is only
/// known at run time.
fn start_name(root: &str, working: &PathContext<'_>) -> Option<String> {
    let root = places::with_well_known_location(root);
    let root = if root.starts_with('~') || root.starts_with("$HOME") || root.starts_with("${HOME}")
    {
        paths::canonicalize(&root, working)
    } else {
        root.into_owned()
    };
    if places::is_dynamic(&root) {
        return None;
    }
    let trimmed = root.trim_end_matches('/');
    if trimmed.is_empty() {
        return Some("/".to_owned());
    }
    Some(places::basename(trimmed).to_owned())
}

/// Whether removing `operand` recursively would hit a critical path.
fn is_critical_target(operand: &str, ctx: &PathContext<'_>, working: &PathContext<'_>) -> bool {
    // `$HOME` and the variables naming a place in it (`$XDG_CACHE_HOME`) are where the home
    // directory is; anything else only known at run time (`rm -rf "$DIR"/*`) could be anything.
    let operand = match places::from_project_dir(operand, ctx) {
        Some(below_project) => std::borrow::Cow::Owned(below_project),
        None => places::with_well_known_location(operand),
    };
    let home_unknown = ctx.home.is_none()
        && ["~", "$HOME", "${HOME}"]
            .iter()
            .any(|home| operand.starts_with(home));
    match places::known_canonical(&operand, working) {
        Some(canonical) if !home_unknown => is_critical_dir(paths::literal_prefix(&canonical), ctx),
        _ => true,
    }
}

fn is_critical_dir(path: &str, ctx: &PathContext<'_>) -> bool {
    let path = if path.is_empty() { "/" } else { path };
    if path == "/" || path.matches('/').count() <= 1 {
        return true;
    }
    if SCRATCH_DIRS
        .iter()
        .any(|scratch| paths::is_within(path, scratch))
    {
        return false;
    }
    let is_ancestor_of = |dir: &str| paths::is_within(dir, path);
    if ctx.home.is_some_and(is_ancestor_of) || is_ancestor_of(ctx.cwd) {
        return true;
    }
    SYSTEM_DIRS
        .iter()
        .any(|system| paths::is_within(path, system))
}

/// Whether writing the canonical `path` touches a protected location, and which.
pub(crate) fn protected_write(path: &str) -> Option<&'static str> {
    let mut segments = path
        .split('/')
        .filter(|segment| !segment.is_empty())
        .peekable();
    while let Some(segment) = segments.next() {
        if segment.eq_ignore_ascii_case(".git") {
            return Some("the `.git` directory");
        }
        if segment.eq_ignore_ascii_case(".claude")
            && segments.peek().is_some_and(|next| *next != "worktrees")
        {
            return Some("the `.claude` directory");
        }
        if segments.peek().is_none()
            && SHELL_INIT_FILES
                .iter()
                .any(|file| segment.eq_ignore_ascii_case(file))
        {
            return Some("a shell start-up file");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: PathContext<'static> = PathContext {
        cwd: "/home/user/project",
        home: Some("/home/user"),
    };

    #[test]
    fn critical_targets() {
        for target in [
            "/",
            "/*",
            "~",
            "~/",
            "~/*",
            "$HOME",
            "$HOME/",
            "${HOME}/*",
            "$HOME/$DIR",
            "/etc",
            "/usr/lib",
            "/home",
            "..",
            ".",
            "*",
            "\"$DIR\"/*",
            "/opt",
        ] {
            assert!(
                is_critical_target(target, &CTX, &CTX),
                "`{target}` is critical"
            );
        }
        for target in [
            "./dist",
            "node_modules",
            "/tmp/build",
            "target/debug",
            "/var/tmp/x",
            "~/project/dist",
            "src/*",
            "$HOME/.cache/pip",
            "${HOME}/project/build",
            "$XDG_CACHE_HOME/pip",
        ] {
            assert!(
                !is_critical_target(target, &CTX, &CTX),
                "`{target}` is not critical"
            );
        }
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn what_a_find_selects() {
        let selects = |words: &[&str]| find_selects_critical(&argv(words), &CTX, &CTX);
        assert_eq!(
            selects(&[".", "-name", "__pycache__", "-type", "d"]),
            Some(false)
        );
        assert_eq!(
            selects(&[".", "-mindepth", "1", "-name", "tmp*"]),
            Some(false)
        );
        assert_eq!(selects(&["build"]), Some(false));
        assert_eq!(selects(&["."]), Some(true));
        assert_eq!(selects(&[".", "-mindepth", "1"]), Some(true));
        assert_eq!(selects(&[".", "-name", "*"]), Some(true));
        assert_eq!(selects(&[".", "-iname", "?*"]), Some(true));
        assert_eq!(selects(&["~", "-name", "node_modules"]), Some(true));
        assert_eq!(selects(&["~", "-name", "use?"]), Some(true));
        assert_eq!(selects(&[".", "-name", "a", "-o", "-name", "b"]), None);
        assert_eq!(selects(&[".", "!", "-name", "a"]), None);
        assert_eq!(
            selects(&[".", "-name", "a", "-exec", "echo", "(", ";", "-prune"]),
            Some(false)
        );
    }

    #[test]
    fn start_names() {
        assert_eq!(start_name(".", &CTX).as_deref(), Some("."));
        assert_eq!(start_name("./", &CTX).as_deref(), Some("."));
        assert_eq!(start_name("~", &CTX).as_deref(), Some("user"));
        assert_eq!(start_name("$HOME/", &CTX).as_deref(), Some("user"));
        assert_eq!(start_name("/", &CTX).as_deref(), Some("/"));
        assert_eq!(start_name("a/build/", &CTX).as_deref(), Some("build"));
        assert_eq!(start_name("$DIR", &CTX), None);
    }

    #[test]
    fn protected_writes() {
        assert_eq!(
            protected_write("/home/user/project/.git/hooks/pre-commit"),
            Some("the `.git` directory")
        );
        assert_eq!(
            protected_write("/home/user/project/.claude/settings.json"),
            Some("the `.claude` directory")
        );
        assert_eq!(
            protected_write("/home/user/.zshrc"),
            Some("a shell start-up file")
        );
        assert_eq!(
            protected_write("/home/user/project/.claude/worktrees/a/b.rs"),
            None
        );
        assert_eq!(
            protected_write("/home/user/project/.github/workflows/ci.yml"),
            None
        );
        assert_eq!(protected_write("/home/user/project/src/bashrc.rs"), None);
    }
}
