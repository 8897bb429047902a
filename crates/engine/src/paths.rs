//! Lexical path canonicalisation against the event's working directory and the user's home.
//!
//! `~`, `$HOME`, `${HOME}`, `.`, `..`, repeated slashes and Windows drive paths are resolved
//! without touching the file system: the engine is pure, and the paths belong to the agent's
//! machine, not ours. Symbolic links are therefore *not* resolved here; a caller that knows a
//! link target must check both paths.
//!
//! This module must not read the file system or the process environment (`$HOME` is taken from
//! [`PathContext::home`], never from `std::env`).

use std::borrow::Cow;

/// What a relative path is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct PathContext<'a> {
    /// The event's `cwd` (the project root for `/`-anchored and relative rules). Expected to be
    /// absolute; a trailing slash is tolerated. Where a `cd` moved a command below a home that
    /// is not known it is that home's `~` form (`~/.ssh`), against which a relative path keeps it.
    pub cwd: &'a str,
    /// The user's home directory, when known. Expected to be absolute.
    pub home: Option<&'a str>,
}

/// Resolves `path` to an absolute, lexically normalised path.
///
/// - A leading `~`, `~/`, `$HOME` or `${HOME}` (followed by `/` or the end) is replaced by
///   [`PathContext::home`]. When the home directory is unknown the reference is kept, written
///   `~`, and the rest is still normalised; `..` segments that would climb above that unknown
///   directory are kept (`~/../x`), because where they lead is unknown.
/// - A leading `~name` (another user's home, as the shell expands it) becomes `/root` for `root`
///   and a sibling of the home directory otherwise (`/home/name` when the home is unknown);
///   `~+` is the working directory.
/// - A relative path is joined to [`PathContext::cwd`] (itself normalised; an empty `cwd` is `/`);
///   a `cwd` below a home that is not known (`~/.ssh`) keeps the path there (`~/.ssh/id_rsa`).
/// - `.` segments and empty segments (`//`) vanish, `..` removes the previous segment and never
///   climbs above `/`, and a trailing slash is dropped (except for `/` itself).
/// - A Windows path (`C:\Users\x`, `c:/x`, `\\server\share`) has its backslashes turned into
///   slashes and its drive into a first segment: `C:\Users\x` → `/c/Users/x`. Backslashes in
///   other paths are kept: on POSIX they are ordinary file-name characters.
///
/// The result never contains `/./`, `/../` or `//` (apart from the unknown-home case above), and
/// `canonicalize` is idempotent.
///
/// ```
/// use toolgate_engine::paths::{canonicalize, PathContext};
/// let ctx = PathContext { cwd: "/work/proj", home: Some("/home/ann") };
/// assert_eq!(canonicalize("src/../.env", &ctx), "/work/proj/.env");
/// assert_eq!(canonicalize("$HOME/.ssh//id_rsa", &ctx), "/home/ann/.ssh/id_rsa");
/// assert_eq!(canonicalize(r"C:\Users\ann\x.txt", &ctx), "/c/Users/ann/x.txt");
/// ```
pub fn canonicalize(path: &str, ctx: &PathContext<'_>) -> String {
    let windows = windows_form(path);
    let path = windows.as_deref().unwrap_or(path);
    // Bounded: a cwd that is itself `/proc/self/cwd` would lead back to where it started.
    let mut linked = None;
    for _ in 0..MAX_PROCESS_LINKS {
        match process_link(linked.as_deref().unwrap_or(path), ctx) {
            Some(target) => linked = Some(target),
            None => break,
        }
    }
    let path = linked.as_deref().unwrap_or(path);
    // `cd ~/.ssh && cat id_rsa` with the home not known: `~/.ssh/id_rsa`.
    if !path.starts_with(['/', '~', '$'])
        && ctx.home.is_none()
        && strip_home_reference(ctx.cwd).is_some()
    {
        return canonicalize(&format!("{}/{path}", ctx.cwd), ctx);
    }
    if let Some(rest) = strip_home_reference(path) {
        return match ctx.home {
            Some(home) => resolve_under(&absolute_base(home), rest),
            None => {
                let mut out = Vec::new();
                push_segments(&mut out, rest, true);
                let mut text = String::from("~");
                for segment in out {
                    text.push('/');
                    text.push_str(segment);
                }
                text
            }
        };
    }
    match other_home(path, ctx) {
        Some((dir, rest)) => resolve_under(&dir, rest),
        None if !path.starts_with('/') => resolve_under(&absolute_base(ctx.cwd), path),
        None => resolve_under("/", path),
    }
}

/// `path` resolved under the canonical directory `base`: `.` and empty segments vanish, `..`
/// removes the previous segment and never climbs above `/`.
fn resolve_under(base: &str, path: &str) -> String {
    let tail = path.strip_prefix('/').unwrap_or(path);
    if is_plain_absolute(base) && (tail.is_empty() || is_plain_relative(tail)) {
        // Nothing to resolve (most paths): the text is the base and the path, joined.
        let mut text = String::with_capacity(base.len() + 1 + tail.len());
        text.push_str(base);
        if !tail.is_empty() {
            if base != "/" {
                text.push('/');
            }
            text.push_str(tail);
        }
        return text;
    }
    let mut out = Vec::new();
    push_segments(&mut out, base, false);
    push_segments(&mut out, path, false);
    join_absolute(&out)
}

/// Whether `path` is absolute and written as [`canonicalize`] writes it: `/`, or every segment
/// after the leading slash a plain name ([`is_plain_relative`]).
fn is_plain_absolute(path: &str) -> bool {
    path == "/" || path.strip_prefix('/').is_some_and(is_plain_relative)
}

/// Whether every `/`-separated segment of `path` is a plain name: none is empty, `.` or `..`.
fn is_plain_relative(path: &str) -> bool {
    path.as_bytes()
        .split(|byte| *byte == b'/')
        .all(|segment| !matches!(segment, b"" | b"." | b".."))
}

/// Most `/proc/self` links followed in one path.
const MAX_PROCESS_LINKS: usize = 8;

/// `/proc/self/cwd/rest` → `<cwd>/rest` and `/proc/self/root/rest` → `/rest` (also under
/// `/proc/thread-self`): the process's own links, so that a `..` after one leaves the directory
/// it points to, not `/proc`. `None` for any other path.
fn process_link(path: &str, ctx: &PathContext<'_>) -> Option<String> {
    ["/proc/self/", "/proc/thread-self/"]
        .iter()
        .find_map(|process| {
            let link = path.strip_prefix(process)?;
            let (name, rest) = link.split_at(link.find('/').unwrap_or(link.len()));
            match name {
                "cwd" => Some(format!("{}{rest}", absolute_base(ctx.cwd))),
                "root" => Some(format!("/{}", rest.trim_start_matches('/'))),
                _ => None,
            }
        })
}

/// `~name/rest` → (that user's home as a sibling of ours, `/rest`); `~+/rest` → (the working
/// directory, `/rest`). `None` for anything else.
fn other_home<'p>(path: &'p str, ctx: &PathContext<'_>) -> Option<(String, &'p str)> {
    let after = path.strip_prefix('~')?;
    let end = after.find('/').unwrap_or(after.len());
    let (name, rest) = after.split_at(end);
    if name == "+" {
        return Some((absolute_base(ctx.cwd).into_owned(), rest));
    }
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid {
        return None;
    }
    if name == "root" {
        return Some(("/root".to_owned(), rest));
    }
    let parent = ctx
        .home
        .map(absolute_base)
        .and_then(|home| home.rsplit_once('/').map(|(parent, _)| parent.to_owned()))
        .filter(|parent| !parent.is_empty())
        .unwrap_or_else(|| "/home".to_owned());
    Some((format!("{parent}/{name}"), rest))
}

/// Where agents keep their transcripts below the user's home, in POSIX and Windows form: Claude
/// Code's `~/.claude/projects/…`, Gemini CLI's `~/.gemini/tmp/<project>/chats/…`, Codex's
/// `~/.codex/sessions/…`.
const TRANSCRIPT_FOLDERS: &[(&str, &str)] = &[
    ("/.claude/projects/", "\\.claude\\projects\\"),
    ("/.gemini/tmp/", "\\.gemini\\tmp\\"),
    ("/.codex/sessions/", "\\.codex\\sessions\\"),
];

/// The user's home directory as implied by an agent's `transcript_path`
/// (`<home>/.claude/projects/…`, on Windows `C:\Users\ann\.claude\projects\…`; see
/// [`TRANSCRIPT_FOLDERS`]).
pub fn home_from_transcript(transcript_path: &str) -> Option<&str> {
    TRANSCRIPT_FOLDERS
        .iter()
        .find_map(|(posix, windows)| {
            transcript_path
                .find(posix)
                .or_else(|| transcript_path.find(windows))
        })
        .and_then(|at| transcript_path.get(..at))
        .filter(|home| !home.is_empty())
}

/// An event's directory (its `cwd`, the home) in the form paths are compared in: a Windows path
/// turned into its POSIX form (`C:\Users\ann` → `/c/Users/ann`), an absolute POSIX path as it is.
/// `None` for a relative path.
pub fn event_dir(dir: &str) -> Option<Cow<'_, str>> {
    match windows_form(dir) {
        Some(converted) => Some(Cow::Owned(converted)),
        None => dir.starts_with('/').then_some(Cow::Borrowed(dir)),
    }
}

/// The directory part of a path before its first glob or brace character (`/a/b*/c` → `/a`).
pub fn literal_prefix(path: &str) -> &str {
    match path.find(['*', '?', '[', '{']) {
        None => path,
        Some(at) => {
            let head = path.get(..at).unwrap_or(path);
            match head.rfind('/') {
                Some(0) => "/",
                Some(slash) => head.get(..slash).unwrap_or(head),
                None => head,
            }
        }
    }
}

/// Whether `path` is `dir` or lies under it (segment-aware: `/a/bc` is not within `/a/b`).
///
/// Both paths are expected to be canonical; a trailing slash on `dir` is tolerated. Every
/// absolute path is within `/`.
///
/// ```
/// use toolgate_engine::paths::is_within;
/// assert!(is_within("/a/b/c", "/a/b"));
/// assert!(is_within("/a/b", "/a/b/"));
/// assert!(!is_within("/a/bc", "/a/b"));
/// assert!(is_within("/etc", "/"));
/// ```
pub fn is_within(path: &str, dir: &str) -> bool {
    relative_to(path, dir).is_some()
}

/// `path` relative to `dir` (without a leading slash; empty when they are equal), or `None`
/// when `path` is not within `dir`. Segment-aware, like [`is_within`].
///
/// ```
/// use toolgate_engine::paths::relative_to;
/// assert_eq!(relative_to("/a/b/c", "/a"), Some("b/c"));
/// assert_eq!(relative_to("/a", "/a"), Some(""));
/// assert_eq!(relative_to("/x", "/"), Some("x"));
/// assert_eq!(relative_to("/ab", "/a"), None);
/// ```
pub fn relative_to<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        // `dir` is the root: every absolute path is within it.
        return path
            .strip_prefix('/')
            .map(|rest| rest.trim_start_matches('/'));
    }
    let rest = path.strip_prefix(dir)?;
    if rest.is_empty() {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

/// `~`, `~/x`, `$HOME`, `$HOME/x`, `${HOME}`, `${HOME}/x` → the part after the reference (`""`
/// or `/x`).
fn strip_home_reference(path: &str) -> Option<&str> {
    ["${HOME}", "$HOME", "~"].iter().find_map(|prefix| {
        path.strip_prefix(prefix)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// `C:\x\y` → `/c/x/y`, `\\server\share` → `//server/share` (collapsed later). `None` when the
/// path does not look like a Windows path.
fn windows_form(path: &str) -> Option<String> {
    let mut chars = path.chars();
    let first = chars.next()?;
    let second = chars.next();
    let third = chars.next();
    let drive = first.is_ascii_alphabetic()
        && second == Some(':')
        && matches!(third, None | Some('\\') | Some('/'));
    if drive {
        let rest = path.get(2..).unwrap_or("");
        let mut out = String::with_capacity(path.len() + 1);
        out.push('/');
        out.push(first.to_ascii_lowercase());
        out.push_str(&rest.replace('\\', "/"));
        return Some(out);
    }
    if path.starts_with("\\\\") {
        return Some(path.replace('\\', "/"));
    }
    None
}

/// A context directory as an absolute path (Windows form converted, relative treated as rooted).
fn absolute_base(dir: &str) -> Cow<'_, str> {
    if is_plain_absolute(dir) {
        return Cow::Borrowed(dir);
    }
    let converted = windows_form(dir);
    let dir = converted.as_deref().unwrap_or(dir);
    let mut out = Vec::new();
    push_segments(&mut out, dir, false);
    Cow::Owned(join_absolute(&out))
}

/// Pushes the segments of `path` onto `out`, resolving `.` and `..`. With `keep_leading_up`,
/// a `..` that would climb above the start is kept (unknown base); otherwise it is dropped
/// (never above `/`).
fn push_segments<'a>(out: &mut Vec<&'a str>, path: &'a str, keep_leading_up: bool) {
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match out.last() {
                Some(&"..") | None if keep_leading_up => out.push(".."),
                Some(_) => {
                    out.pop();
                }
                None => {}
            },
            other => out.push(other),
        }
    }
}

fn join_absolute(segments: &[&str]) -> String {
    if segments.is_empty() {
        return "/".to_owned();
    }
    let mut text = String::with_capacity(segments.iter().map(|s| s.len() + 1).sum());
    for segment in segments {
        text.push('/');
        text.push_str(segment);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const CTX: PathContext<'static> = PathContext {
        cwd: "/work/proj",
        home: Some("/home/ann"),
    };
    const NO_HOME: PathContext<'static> = PathContext {
        cwd: "/work/proj",
        home: None,
    };

    fn c(path: &str) -> String {
        canonicalize(path, &CTX)
    }

    #[test]
    fn relative_paths_join_the_cwd() {
        assert_eq!(c("src/main.rs"), "/work/proj/src/main.rs");
        assert_eq!(c("./src/./main.rs"), "/work/proj/src/main.rs");
        assert_eq!(c("."), "/work/proj");
        assert_eq!(c(""), "/work/proj");
        assert_eq!(c(".env"), "/work/proj/.env");
    }

    #[test]
    fn the_process_links_lead_where_they_point() {
        assert_eq!(c("/proc/self/cwd/../../home/ann/.env"), "/home/ann/.env");
        assert_eq!(c("/proc/self/cwd"), "/work/proj");
        assert_eq!(c("/proc/thread-self/cwd/src/.."), "/work/proj");
        assert_eq!(c("/proc/self/root/etc/../root/x"), "/root/x");
        assert_eq!(c("/proc/self/root/proc/self/cwd/x"), "/work/proj/x");
        assert_eq!(c("/proc/self/environ"), "/proc/self/environ");
        assert_eq!(c("/proc/1/cwd/x"), "/proc/1/cwd/x");
        let looping = PathContext {
            cwd: "/proc/self/cwd",
            home: None,
        };
        assert_eq!(
            canonicalize("/proc/self/cwd/x", &looping),
            "/proc/self/cwd/x"
        );
    }

    #[test]
    fn dot_dot_resolves_lexically_and_never_above_root() {
        assert_eq!(c("../other/x"), "/work/other/x");
        assert_eq!(c("../../../../etc/passwd"), "/etc/passwd");
        assert_eq!(c("/a/b/../../.."), "/");
        assert_eq!(c("/../etc"), "/etc");
        assert_eq!(c("src/.."), "/work/proj");
        assert_eq!(c("/a/..b/c"), "/a/..b/c");
        assert_eq!(c("/a/.../c"), "/a/.../c");
    }

    #[test]
    fn slashes_collapse_and_trailing_slash_goes() {
        assert_eq!(c("//etc//passwd"), "/etc/passwd");
        assert_eq!(c("/etc/"), "/etc");
        assert_eq!(c("/"), "/");
        assert_eq!(c("///"), "/");
        assert_eq!(c("src//"), "/work/proj/src");
    }

    #[test]
    fn home_references_expand_at_the_start_only() {
        assert_eq!(c("~"), "/home/ann");
        assert_eq!(c("~/"), "/home/ann");
        assert_eq!(c("~/.ssh/id_rsa"), "/home/ann/.ssh/id_rsa");
        assert_eq!(c("$HOME/.aws"), "/home/ann/.aws");
        assert_eq!(c("${HOME}/.aws/../.ssh"), "/home/ann/.ssh");
        assert_eq!(c("$HOME"), "/home/ann");
        assert_eq!(c("~/../../etc"), "/etc");
        // Not this home: another user's (a sibling of it), a longer variable name, a mid-path
        // tilde.
        assert_eq!(c("~bob/x"), "/home/bob/x");
        assert_eq!(c("$HOMEDIR/x"), "/work/proj/$HOMEDIR/x");
        assert_eq!(c("a/~/b"), "/work/proj/a/~/b");
        let unknown = PathContext {
            cwd: "/work/proj",
            home: None,
        };
        assert_eq!(canonicalize("~bob/.ssh", &unknown), "/home/bob/.ssh");
        let mac = PathContext {
            cwd: "/w",
            home: Some("/Users/ann"),
        };
        assert_eq!(canonicalize("~bob/.ssh", &mac), "/Users/bob/.ssh");
        assert_eq!(c("~root"), "/root");
        assert_eq!(c("~+/x/../y"), "/work/proj/y");
        assert_eq!(
            c("~1/x"),
            "/work/proj/~1/x",
            "a directory-stack reference is not a user"
        );
        assert_eq!(c("/x/$HOME"), "/x/$HOME");
    }

    #[test]
    fn unknown_home_keeps_the_reference_but_normalises() {
        let n = |p: &str| canonicalize(p, &NO_HOME);
        assert_eq!(n("~/.ssh//./id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(n("$HOME/.aws/"), "~/.aws");
        assert_eq!(n("${HOME}"), "~");
        assert_eq!(n("~/a/../../etc"), "~/../etc");
        assert_eq!(n("/etc/../x"), "/x");
        assert_eq!(n("rel"), "/work/proj/rel");
    }

    #[test]
    fn windows_paths_become_posix() {
        assert_eq!(c(r"C:\Users\ann\.env"), "/c/Users/ann/.env");
        assert_eq!(c("d:/data/x"), "/d/data/x");
        assert_eq!(c("C:"), "/c");
        assert_eq!(c(r"C:\a\..\b\"), "/c/b");
        assert_eq!(c(r"\\server\share\f"), "/server/share/f");
        // A POSIX file name may contain a backslash.
        assert_eq!(c(r"/tmp/a\b"), r"/tmp/a\b");
        let win = PathContext {
            cwd: r"C:\proj",
            home: Some(r"C:\Users\ann"),
        };
        assert_eq!(canonicalize("src/x", &win), "/c/proj/src/x");
        assert_eq!(canonicalize("~/.ssh", &win), "/c/Users/ann/.ssh");
    }

    #[test]
    fn odd_contexts_do_not_break() {
        let empty = PathContext {
            cwd: "",
            home: None,
        };
        assert_eq!(canonicalize("x", &empty), "/x");
        let trailing = PathContext {
            cwd: "/work/proj/",
            home: Some("/home/ann/"),
        };
        assert_eq!(canonicalize("x", &trailing), "/work/proj/x");
        assert_eq!(canonicalize("~/x", &trailing), "/home/ann/x");
        let relative = PathContext {
            cwd: "proj",
            home: None,
        };
        assert_eq!(canonicalize("x", &relative), "/proj/x");
    }

    #[test]
    fn within_is_segment_aware() {
        assert!(is_within("/a/b", "/a/b"));
        assert!(is_within("/a/b/c", "/a/b"));
        assert!(is_within("/a/b/c", "/a/b/"));
        assert!(!is_within("/a/bc", "/a/b"));
        assert!(!is_within("/a", "/a/b"));
        assert!(is_within("/", "/"));
        assert!(is_within("/x/y", "/"));
        assert!(!is_within("relative", "/"));
        assert_eq!(relative_to("/a/b/c", "/a/b"), Some("c"));
        assert_eq!(relative_to("/a/b", "/a/b"), Some(""));
        assert_eq!(relative_to("/", "/"), Some(""));
        assert_eq!(relative_to("/a/bc", "/a/b"), None);
    }

    #[test]
    fn home_from_transcript_finds_the_prefix() {
        assert_eq!(
            home_from_transcript("/home/ann/.claude/projects/-work-proj/abc.jsonl"),
            Some("/home/ann")
        );
        assert_eq!(
            home_from_transcript(r"C:\Users\ann\.claude\projects\x\t.jsonl"),
            Some(r"C:\Users\ann")
        );
        assert_eq!(event_dir(r"C:\Users\ann").as_deref(), Some("/c/Users/ann"));
        assert_eq!(event_dir("/home/ann").as_deref(), Some("/home/ann"));
        assert_eq!(event_dir("ann"), None);
        assert_eq!(
            home_from_transcript("/home/ann/.gemini/tmp/3f2a/chats/session-1.json"),
            Some("/home/ann")
        );
        assert_eq!(
            home_from_transcript("/Users/ann/.codex/sessions/2026/11/24/rollout-1.jsonl"),
            Some("/Users/ann")
        );
        assert_eq!(
            home_from_transcript(r"C:\Users\ann\.gemini\tmp\x\chats\s.json"),
            Some(r"C:\Users\ann")
        );
        assert_eq!(home_from_transcript("/tmp/transcript.jsonl"), None);
        assert_eq!(home_from_transcript("/.claude/projects/x"), None);
    }

    fn path_strategy() -> impl Strategy<Value = String> {
        let segment = prop_oneof![
            Just("".to_owned()),
            Just(".".to_owned()),
            Just("..".to_owned()),
            Just("~".to_owned()),
            Just("$HOME".to_owned()),
            Just("${HOME}".to_owned()),
            Just("C:".to_owned()),
            "[a-zA-Z0-9_.\\\\ -]{1,6}",
        ];
        (
            prop::collection::vec(segment, 0..8),
            prop_oneof![Just("/"), Just("\\")],
        )
            .prop_map(|(segments, sep)| segments.join(sep))
    }

    fn contexts() -> impl Strategy<Value = (String, Option<String>)> {
        (
            prop_oneof![
                Just("/work/proj".to_owned()),
                Just("/".to_owned()),
                Just("/a/../b/".to_owned()),
                Just(r"C:\proj".to_owned()),
                Just(String::new()),
            ],
            prop_oneof![
                Just(None),
                Just(Some("/home/ann".to_owned())),
                Just(Some("/".to_owned())),
            ],
        )
    }

    proptest! {
        #[test]
        fn canonicalize_is_idempotent_and_clean(
            path in path_strategy(),
            (cwd, home) in contexts(),
        ) {
            let ctx = PathContext { cwd: &cwd, home: home.as_deref() };
            let once = canonicalize(&path, &ctx);
            let twice = canonicalize(&once, &ctx);
            prop_assert_eq!(&once, &twice);
            prop_assert!(!once.contains("//"), "{once}");
            prop_assert!(!once.contains("/./"), "{once}");
            prop_assert!(!once.ends_with("/.") , "{once}");
            prop_assert!(once == "/" || !once.ends_with('/'), "{once}");
            if once.starts_with('/') {
                prop_assert!(!once.contains("/../"), "{once}");
                prop_assert!(!once.ends_with("/..") , "{once}");
            } else {
                // Only an unknown home stays relative.
                prop_assert!(home.is_none());
                prop_assert!(once.starts_with('~'), "{once}");
            }
        }

        /// Joining a plain path to its base without resolving gives what resolving it does.
        #[test]
        fn joining_plain_paths_agrees_with_resolving(
            path in path_strategy(),
            (cwd, _) in contexts(),
        ) {
            let base = absolute_base(&cwd);
            let mut out = Vec::new();
            push_segments(&mut out, &base, false);
            push_segments(&mut out, &path, false);
            prop_assert_eq!(resolve_under(&base, &path), join_absolute(&out));
        }

        #[test]
        fn canonicalize_never_panics(path in any::<String>(), cwd in any::<String>()) {
            let ctx = PathContext { cwd: &cwd, home: Some(&cwd) };
            let _ = canonicalize(&path, &ctx);
            let _ = canonicalize(&path, &PathContext { cwd: &cwd, home: None });
        }
    }
}
