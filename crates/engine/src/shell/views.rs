//! The texts rules are matched against: `deny_views` and `allow_view` of a [`super::SimpleCommand`].
//!
//! Deny views go from most stripped (`rm -rf /`) to least (`FOO=1 sudo -u root rm -rf /`), so a deny
//! rule catches the command however it is dressed. The allow view follows Claude Code: only the safe
//! wrappers and safe-list environment assignments are removed, so `sudo apt update` or
//! `LD_PRELOAD=x ls` never look like `apt update` or `ls` to an allow rule.
//!
//! This module must not match rules; it only builds text.

use super::wrappers::{Segment, SegmentKind, split_assignment};

/// Environment variables Claude Code strips for allow rules (its `SAFE_ENV_VARS`), when the value
/// matches `[A-Za-z0-9_./:-]+`.
pub const SAFE_ENV_VARS: &[&str] = &[
    "GOEXPERIMENT",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "ANTHROPIC_API_KEY",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_TIME",
    "CHARSET",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "LS_COLORS",
    "LSCOLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "GCC_COLORS",
    "TIME_STYLE",
    "BLOCK_SIZE",
    "BLOCKSIZE",
];

/// Deny views: `argv`, then wrappers put back, then assignments put back; deduplicated.
pub(super) fn deny_views(segments: &[Segment], argv: &[String]) -> Vec<String> {
    let is_wrapper = |s: &&Segment| matches!(s.kind, SegmentKind::Wrapper { .. });
    let has_tokens = |s: &Segment| !s.tokens.is_empty();
    let mut views = vec![join(argv.iter().map(String::as_str))];
    let mut add = |view: String| {
        if !views.contains(&view) {
            views.push(view);
        }
    };
    // A view that puts back no token is the view before it: it is not built again (most
    // commands have neither wrappers nor assignments).
    if segments.iter().filter(is_wrapper).any(has_tokens) {
        add(join(
            segments
                .iter()
                .filter(is_wrapper)
                .flat_map(|s| s.tokens.iter().map(String::as_str))
                .chain(argv.iter().map(String::as_str)),
        ));
    }
    if segments.iter().any(|s| !is_wrapper(&s) && has_tokens(s)) {
        add(join(
            segments
                .iter()
                .flat_map(|s| s.tokens.iter().map(String::as_str))
                .chain(argv.iter().map(String::as_str)),
        ));
    }
    views
}

/// The allow view: safe wrappers and safe assignments dropped, everything else kept in source order.
/// The program is kept as written (`/usr/bin/git status` is not `git status` to an allow rule).
pub(super) fn allow_view(segments: &[Segment], program: &str, args: &[String]) -> String {
    join(
        segments
            .iter()
            .filter(|s| !is_safe(s))
            .flat_map(|s| s.tokens.iter().map(String::as_str))
            .chain(std::iter::once(program))
            .chain(args.iter().map(String::as_str)),
    )
}

/// Whether the allow view strips `segment`: a safe wrapper, or safe-list assignments.
pub(super) fn is_safe(segment: &Segment) -> bool {
    match segment.kind {
        SegmentKind::Wrapper { safe } => safe,
        SegmentKind::Assignment => {
            !segment.dynamic
                && segment.tokens.iter().all(|token| {
                    split_assignment(token).is_some_and(|(name, value)| {
                        SAFE_ENV_VARS.contains(&name) && is_safe_value(value)
                    })
                })
        }
    }
}

fn is_safe_value(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b':' | b'-'))
}

/// Joins tokens with single spaces, collapsing whitespace runs inside tokens too.
fn join<'a>(tokens: impl Iterator<Item = &'a str> + Clone) -> String {
    // Sized once: the text is at most every token and a space.
    let mut out = String::with_capacity(tokens.clone().map(|token| token.len() + 1).sum());
    for token in tokens {
        for part in token.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(kind: SegmentKind, tokens: &[&str]) -> Segment {
        Segment {
            kind,
            tokens: tokens.iter().map(|t| (*t).to_owned()).collect(),
            dynamic: false,
        }
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn deny_views_add_back_wrappers_then_assignments() {
        let segments = [
            seg(SegmentKind::Assignment, &["FOO=1"]),
            seg(
                SegmentKind::Wrapper { safe: false },
                &["sudo", "-u", "root"],
            ),
        ];
        let views = deny_views(&segments, &strings(&["rm", "-rf", "/"]));
        assert_eq!(
            views,
            [
                "rm -rf /",
                "sudo -u root rm -rf /",
                "FOO=1 sudo -u root rm -rf /"
            ]
        );
        assert_eq!(deny_views(&[], &strings(&["ls"])), ["ls"]);
        let assigned = [seg(SegmentKind::Assignment, &["FOO=1"])];
        assert_eq!(deny_views(&assigned, &strings(&["ls"])), ["ls", "FOO=1 ls"]);
        let wrapped = [seg(SegmentKind::Wrapper { safe: true }, &["nice"])];
        assert_eq!(deny_views(&wrapped, &strings(&["ls"])), ["ls", "nice ls"]);
    }

    #[test]
    fn allow_view_strips_only_safe_things() {
        let segments = [
            seg(SegmentKind::Assignment, &["RUST_LOG=debug"]),
            seg(SegmentKind::Assignment, &["LD_PRELOAD=/tmp/x.so"]),
            seg(SegmentKind::Wrapper { safe: true }, &["timeout", "5"]),
            seg(SegmentKind::Wrapper { safe: false }, &["sudo"]),
        ];
        assert_eq!(
            allow_view(&segments, "/usr/bin/ls", &strings(&["-l"])),
            "LD_PRELOAD=/tmp/x.so sudo /usr/bin/ls -l"
        );
        let unsafe_value = [seg(SegmentKind::Assignment, &["LANG=a b"])];
        assert_eq!(allow_view(&unsafe_value, "ls", &[]), "LANG=a b ls");
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(join(["a  b", "\tc\n"].into_iter()), "a b c");
    }
}
