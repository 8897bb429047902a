//! Read/Edit path patterns: gitignore syntax under an anchor, as Claude Code applies them.
//!
//! Anchors (the part of the pattern that says where it is rooted):
//! - `//x` → the file-system root;
//! - `~/x` (and `~` alone) → the user's home;
//! - `/x` → the project root, which for toolgate is the event's `cwd`;
//! - `./x` and bare `x` → the `cwd` too (a leading `./` is dropped, as Claude Code does).
//!
//! Under the anchor, gitignore rules: `*` and `?` stay within one segment, `**` as a whole
//! segment crosses directories, `[…]` is a class, `\` escapes. A relative pattern without a
//! slash (`.env`, `*.pem`) matches at any depth; any other pattern is anchored. A trailing `/**`
//! or `/` means the directory and everything under it, and a pattern also matches everything
//! under a path it matches (`Read(secrets)` covers `secrets/a/b`). A single-segment directory
//! pattern (`src/**`, `src/`) matches at any depth in deny and ask rules but only `<cwd>/src` in
//! allow rules (Claude Code 2.1.214). Paths outside the anchor never match.
//!
//! Deny and ask patterns compare case-insensitively below the anchor (the default of the
//! `ignore` library Claude Code uses, and the behaviour of macOS and Windows file systems, where
//! `.ENV` *is* `.env`); allow patterns compare case-sensitively, so that an allow never grows.
//!
//! This module matches canonical absolute paths (see `paths::canonicalize`). It must not touch
//! the file system, resolve symlinks, or canonicalise its input.

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use super::RuleKind;
use crate::paths::{PathContext, relative_to};

/// Where a pattern is rooted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Root,
    Home,
    Cwd,
}

impl Anchor {
    const ALL: [Self; 3] = [Self::Root, Self::Home, Self::Cwd];

    /// The directory the anchor stands for. An unknown home is written `~`, which only paths
    /// that `canonicalize` also left relative to an unknown home can be under.
    fn base<'c>(self, ctx: &PathContext<'c>) -> &'c str {
        match self {
            Self::Root => "/",
            Self::Home => ctx.home.unwrap_or("~"),
            Self::Cwd => ctx.cwd,
        }
    }
}

/// A canonical path located once under each anchor, for trying many path patterns against it:
/// a pattern then finds where the path lies under its anchor, and whether its first component
/// can be the pattern's, without searching the path again.
#[derive(Debug, Clone, Copy)]
pub struct PathProbe<'a> {
    /// The path relative to the root, the home and the cwd (in [`Anchor::ALL`]'s order), where
    /// it lies under each.
    under: [Option<Relative<'a>>; 3],
}

/// A path relative to an anchor, with its first component.
#[derive(Debug, Clone, Copy)]
struct Relative<'a> {
    rest: &'a str,
    /// The first component, when it is ASCII (other text is left to the glob set: see
    /// [`PathPattern::may_start_with`]).
    ascii_first: Option<&'a str>,
}

impl<'a> PathProbe<'a> {
    /// Locates the canonical path `path` under the anchors of `ctx`.
    pub fn new(path: &'a str, ctx: &PathContext<'_>) -> Self {
        Self {
            under: Anchor::ALL.map(|anchor| {
                relative_to(path, anchor.base(ctx)).map(|rest| {
                    let end = rest.bytes().position(|byte| byte == b'/');
                    let first = rest.get(..end.unwrap_or(rest.len())).unwrap_or(rest);
                    Relative {
                        rest,
                        ascii_first: first.is_ascii().then_some(first),
                    }
                })
            }),
        }
    }

    fn under(&self, anchor: Anchor) -> Option<Relative<'a>> {
        let [root, home, cwd] = self.under;
        match anchor {
            Anchor::Root => root,
            Anchor::Home => home,
            Anchor::Cwd => cwd,
        }
    }
}

/// What decides [`PathPattern::rejects_by_key`]: patterns with equal keys are rejected together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PathKey<'a> {
    anchor: Anchor,
    first: &'a str,
    case_insensitive: bool,
}

/// One `/`-separated piece of a pattern, for [`PathPattern::may_match_under`].
#[derive(Debug, Clone)]
enum Segment {
    /// A literal name (escapes resolved; lowercased when matching is case-insensitive).
    Literal(String),
    /// A one-segment glob.
    Glob(GlobMatcher),
    /// `**`: zero or more segments.
    AnyDepth,
}

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    anchor: Anchor,
    /// Matches a path relative to the anchor (it and everything under it). `None`: the anchor
    /// itself and everything under it (`//**`, `~/**`, `/`).
    set: Option<GlobSet>,
    /// The pattern's segments relative to the anchor; any-depth patterns start with `AnyDepth`.
    segments: Vec<Segment>,
    /// The first segment when it is an ASCII literal (lowercased when matching is
    /// case-insensitive), for [`Self::may_start_with`].
    ascii_first: Option<String>,
    case_insensitive: bool,
}

impl PathPattern {
    /// Compiles a pattern for one list, or says what is wrong with it.
    pub(crate) fn new(content: &str, kind: RuleKind) -> Result<Self, String> {
        let text = content.trim();
        if text.is_empty() {
            return Err("empty path pattern".to_owned());
        }
        if ["$HOME", "${HOME}", "%USERPROFILE%"]
            .iter()
            .any(|variable| text.starts_with(variable))
        {
            return Err(format!(
                "path pattern `{text}` starts with a variable, which is not expanded in rules (it would name a directory of that name under the project): write `~/…` for the home directory"
            ));
        }
        let mut chars = text.chars();
        if let (Some(drive), Some(':'), Some('\\' | '/')) =
            (chars.next(), chars.next(), chars.next())
            && drive.is_ascii_alphabetic()
        {
            let rest = text.get(3..).unwrap_or_default().replace('\\', "/");
            return Err(format!(
                "path pattern `{text}` is a Windows path, which rules never see (paths are matched in POSIX form): write `//{}/{rest}`",
                drive.to_ascii_lowercase()
            ));
        }
        let (anchor, rest, anchored) = if let Some(rest) = text.strip_prefix("//") {
            (Anchor::Root, rest, true)
        } else if text == "~" {
            (Anchor::Home, "", true)
        } else if let Some(rest) = text.strip_prefix("~/") {
            (Anchor::Home, rest, true)
        } else if let Some(rest) = text.strip_prefix('/') {
            (Anchor::Cwd, rest, true)
        } else {
            let mut rest = text;
            while let Some(after) = rest.strip_prefix("./") {
                rest = after.trim_start_matches('/');
            }
            if rest == "." {
                rest = "";
            }
            if rest.starts_with('!') || rest.starts_with('#') {
                return Err(format!(
                    "path pattern `{text}` starts with `{}`, which gitignore reads as a negation or a comment that matches nothing: escape it (`\\{rest}`) to mean a file name",
                    rest.chars().next().unwrap_or('!')
                ));
            }
            (Anchor::Cwd, rest, false)
        };
        let mut body = rest.trim_start_matches('/');
        let mut dir_form = false;
        loop {
            if let Some(stripped) = body.strip_suffix("/**") {
                body = stripped;
            } else if let Some(stripped) = body.strip_suffix('/') {
                body = stripped;
            } else {
                break;
            }
            dir_form = true;
        }
        if body == "**" {
            body = "";
        }
        let mut raw: Vec<&str> = Vec::new();
        for segment in body.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." {
                return Err(format!(
                    "path pattern `{text}` contains `{segment}`, which never matches a canonical path: write `//absolute/path` or `~/path` instead"
                ));
            }
            if segment == "**" && raw.last() == Some(&"**") {
                continue;
            }
            raw.push(segment);
        }
        if raw == ["**"] {
            // `**/**`: everything under the anchor, like `**`.
            raw.clear();
        }
        let single_directory_in_allow = dir_form && kind == RuleKind::Allow;
        if !anchored && raw.len() == 1 && raw.first() != Some(&"**") && !single_directory_in_allow {
            raw.insert(0, "**");
        }
        let case_insensitive = kind != RuleKind::Allow;
        let escaped: Vec<String> = raw.iter().map(|s| escape_braces(s)).collect();
        let set = if escaped.is_empty() {
            None
        } else {
            let joined = escaped.join("/");
            let mut builder = GlobSetBuilder::new();
            builder.add(glob(&joined, case_insensitive, text)?);
            builder.add(glob(&format!("{joined}/**"), case_insensitive, text)?);
            Some(
                builder
                    .build()
                    .map_err(|e| format!("invalid path pattern `{text}`: {}", e.kind()))?,
            )
        };
        let mut segments = Vec::with_capacity(raw.len());
        for (segment, escaped) in raw.iter().zip(&escaped) {
            segments.push(if *segment == "**" {
                Segment::AnyDepth
            } else if has_glob_meta(segment) {
                Segment::Glob(glob(escaped, case_insensitive, text)?.compile_matcher())
            } else {
                let literal = unescape(segment);
                Segment::Literal(if case_insensitive {
                    literal.to_lowercase()
                } else {
                    literal
                })
            });
        }
        let ascii_first = match segments.first() {
            Some(Segment::Literal(literal)) if literal.is_ascii() => Some(literal.clone()),
            _ => None,
        };
        Ok(Self {
            anchor,
            set,
            segments,
            ascii_first,
            case_insensitive,
        })
    }

    /// The directory the pattern is rooted at.
    fn base<'c>(&self, ctx: &PathContext<'c>) -> &'c str {
        self.anchor.base(ctx)
    }

    /// Whether the pattern matches a canonical path.
    pub(crate) fn is_match(&self, path: &str, ctx: &PathContext<'_>) -> bool {
        self.is_match_probe(&PathProbe::new(path, ctx))
    }

    /// [`Self::is_match`] for a path located already.
    pub(crate) fn is_match_probe(&self, probe: &PathProbe<'_>) -> bool {
        let Some(relative) = probe.under(self.anchor) else {
            return false;
        };
        match &self.set {
            None => true,
            Some(set) => {
                !relative.rest.is_empty()
                    && self.may_start_with(relative)
                    && set.is_match(relative.rest)
            }
        }
    }

    /// What [`Self::rejects_by_key`] looks at: the anchor, the first segment when it is an
    /// ASCII literal, and the case. `None` for a pattern without such a segment.
    pub(crate) fn key(&self) -> Option<PathKey<'_>> {
        Some(PathKey {
            anchor: self.anchor,
            first: self.ascii_first.as_deref()?,
            case_insensitive: self.case_insensitive,
        })
    }

    /// Whether [`Self::is_match_probe`] says no from the pattern's [`Self::key`] alone (the path
    /// is not under the anchor, or is the anchor, or its first component is another), so that
    /// it says no for every pattern with an equal key. `false` for a pattern without a key.
    pub(crate) fn rejects_by_key(&self, probe: &PathProbe<'_>) -> bool {
        if self.ascii_first.is_none() {
            return false;
        }
        probe
            .under(self.anchor)
            .is_none_or(|relative| relative.rest.is_empty() || !self.may_start_with(relative))
    }

    /// A quick rejection in front of the glob set, which costs an allocation and a few
    /// automaton runs per call: a pattern that starts with a literal segment matches only paths
    /// whose first component is that literal. Decided here only where the answer is exactly
    /// the glob's, when both are ASCII (ignoring ASCII case when matching is case-insensitive,
    /// as the glob does for ASCII text); otherwise `true`, and the glob decides. Non-ASCII text
    /// goes to the glob because case-insensitive globs fold Unicode (`ſ` matches `s`).
    fn may_start_with(&self, relative: Relative<'_>) -> bool {
        let (Some(literal), Some(first)) = (&self.ascii_first, relative.ascii_first) else {
            return true;
        };
        if self.case_insensitive {
            literal.eq_ignore_ascii_case(first)
        } else {
            literal == first
        }
    }

    /// Whether a recursive read of `dir` (canonical) may reach a path the pattern matches, in
    /// the sense documented on [`super::CompiledRule::may_match_under`].
    pub(crate) fn may_match_under(&self, dir: &str, ctx: &PathContext<'_>) -> bool {
        let base = self.base(ctx);
        if let Some(relative) = relative_to(dir, base) {
            // `dir` is at or below the anchor: walk the pattern's leading segments along it.
            let mut segments = self.segments.iter();
            for name in relative.split('/').filter(|s| !s.is_empty()) {
                match segments.next() {
                    // `dir` lies inside a match: everything read is covered.
                    None => return true,
                    // An any-depth search that starts at or above `dir`: a needle, not a place.
                    Some(Segment::AnyDepth) => return false,
                    Some(Segment::Literal(literal)) => {
                        if !self.literal_eq(literal, name) {
                            return false;
                        }
                    }
                    Some(Segment::Glob(glob)) => {
                        if !glob.is_match(name) {
                            return false;
                        }
                    }
                }
            }
            // `dir` is the pattern's base or lies on the way to it: the rest of the pattern
            // names something under `dir`, unless it is an any-depth search starting at `dir`.
            return !matches!(segments.next(), Some(Segment::AnyDepth));
        }
        // The anchor lies strictly under `dir`: the rule's whole scope is read. An unknown
        // home is somewhere under `/`.
        relative_to(base, dir).is_some() || (base == "~" && dir.trim_end_matches('/').is_empty())
    }

    fn literal_eq(&self, literal: &str, name: &str) -> bool {
        if self.case_insensitive {
            literal
                .chars()
                .eq(name.chars().flat_map(char::to_lowercase))
        } else {
            literal == name
        }
    }
}

fn glob(text: &str, case_insensitive: bool, pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|e| format!("invalid path pattern `{pattern}`: {}", e.kind()))
}

/// gitignore has no `{a,b}` alternation: make braces literal for globset.
fn escape_braces(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut escaped = false;
    for c in segment.chars() {
        if !escaped && matches!(c, '{' | '}') {
            out.push('\\');
        }
        escaped = !escaped && c == '\\';
        out.push(c);
    }
    out
}

fn has_glob_meta(segment: &str) -> bool {
    let mut escaped = false;
    for c in segment.chars() {
        if !escaped && matches!(c, '*' | '?' | '[') {
            return true;
        }
        escaped = !escaped && c == '\\';
    }
    false
}

fn unescape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut escaped = false;
    for c in segment.chars() {
        if !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        escaped = false;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: PathContext<'static> = PathContext {
        cwd: "/work/proj",
        home: Some("/home/ann"),
    };

    fn pattern(content: &str, kind: RuleKind) -> PathPattern {
        match PathPattern::new(content, kind) {
            Ok(pattern) => pattern,
            Err(e) => unreachable!("`{content}` should compile: {e}"),
        }
    }

    fn deny(content: &str, path: &str) -> bool {
        pattern(content, RuleKind::Deny).is_match(path, &CTX)
    }

    fn allow(content: &str, path: &str) -> bool {
        pattern(content, RuleKind::Allow).is_match(path, &CTX)
    }

    fn under(content: &str, dir: &str) -> bool {
        pattern(content, RuleKind::Deny).may_match_under(dir, &CTX)
    }

    /// The literal-segment rejection in front of the glob set never changes an answer: every
    /// pattern × path pair gets what the glob set alone says.
    #[test]
    fn the_quick_rejection_agrees_with_the_glob_set() {
        let patterns = [
            "//srv/secret-1/**",
            "//SRV/x",
            "//etc",
            "~/.ssh/**",
            "/build/**",
            "./src/*.rs",
            "**/.env",
            "*.pem",
            "//s?v/**",
            "//srv/[ab]*/x",
            "//ſrv/**",
            "//straße/**",
            "//K/**",
            "//a\\b/**",
            "//a{b}/c",
            "docs/",
            "//",
            "~",
        ];
        let paths = [
            "/srv/secret-1/key",
            "/SRV/secret-1/key",
            "/srv/secret-10",
            "/srv",
            "/Srv/x",
            "/ſrv/secret-1/key",
            "/srv/secret-1",
            "/etc",
            "/ETC/passwd",
            "/etcetera",
            "/home/ann/.ssh/id_rsa",
            "/home/ann/.SSH/x",
            "/work/proj/build/a",
            "/work/proj/BUILD",
            "/work/proj/src/main.rs",
            "/work/proj/.env",
            "/work/proj/a.PEM",
            "/straße/x",
            "/STRASSE/x",
            "/\u{212a}/x",
            "/k/x",
            "/K/x",
            "/ab/x",
            "/a{b}/c",
            "/work/proj/docs/x",
            "/work/proj/Docs/y",
            "/",
        ];
        for kind in [RuleKind::Deny, RuleKind::Ask, RuleKind::Allow] {
            for content in patterns {
                let compiled = pattern(content, kind);
                for path in paths {
                    let glob_alone = relative_to(path, compiled.base(&CTX)).is_some_and(|rel| {
                        compiled
                            .set
                            .as_ref()
                            .is_none_or(|set| !rel.is_empty() && set.is_match(rel))
                    });
                    assert_eq!(
                        compiled.is_match(path, &CTX),
                        glob_alone,
                        "{kind:?} {content} on {path}"
                    );
                    if compiled.rejects_by_key(&PathProbe::new(path, &CTX)) {
                        assert!(!glob_alone, "{kind:?} {content} on {path}: rejected by key");
                    }
                }
            }
        }
    }

    #[test]
    fn bare_names_match_at_any_depth_under_the_cwd_only() {
        for rule in [".env", "./.env", "**/.env"] {
            assert!(deny(rule, "/work/proj/.env"), "{rule}");
            assert!(deny(rule, "/work/proj/a/b/.env"), "{rule}");
            assert!(!deny(rule, "/home/ann/.env"), "{rule}");
            assert!(!deny(rule, "/work/.env"), "{rule}");
            assert!(!deny(rule, "/work/proj/.env.local"), "{rule}");
            assert!(!deny(rule, "/work/proj/x.env"), "{rule}");
        }
        assert!(deny("*.pem", "/work/proj/certs/server.pem"));
        assert!(!deny("*.pem", "/work/proj/certs/server.pem.txt"));
        assert!(deny(".env*", "/work/proj/.env.production"));
    }

    #[test]
    fn root_anchor_matches_anywhere_on_disk() {
        assert!(deny("//**/.env", "/home/ann/.env"));
        assert!(deny("//**/.env", "/.env"));
        assert!(deny("//**/.env", "/c/Users/ann/app/.env"));
        assert!(deny("//etc/passwd", "/etc/passwd"));
        assert!(!deny("//etc/passwd", "/work/proj/etc/passwd"));
        assert!(deny("//c/**/.env", "/c/x/.env"));
        assert!(!deny("//c/**/.env", "/d/x/.env"));
        assert!(deny("//**", "/anything/at/all"));
        assert!(deny("//", "/x"));
    }

    #[test]
    fn home_anchor_needs_a_known_home() {
        assert!(deny("~/.ssh/**", "/home/ann/.ssh/id_rsa"));
        assert!(deny("~/.ssh/**", "/home/ann/.ssh"));
        assert!(deny("~/.ssh", "/home/ann/.ssh/keys/a"));
        assert!(!deny("~/.ssh/**", "/home/bob/.ssh/id_rsa"));
        assert!(!deny("~/.env", "/home/ann/proj/.env"));
        assert!(deny("~/Documents/*.pdf", "/home/ann/Documents/a.pdf"));
        assert!(!deny("~/Documents/*.pdf", "/home/ann/Documents/x/a.pdf"));
        assert!(deny("~", "/home/ann/anything"));
        let no_home = PathContext {
            cwd: "/work/proj",
            home: None,
        };
        let rule = pattern("~/.ssh/**", RuleKind::Deny);
        assert!(!rule.is_match("/home/ann/.ssh/id_rsa", &no_home));
        assert!(!rule.is_match("/.ssh/id_rsa", &no_home));
        // A path that is itself relative to the same unknown home still matches.
        assert!(rule.is_match("~/.ssh/id_rsa", &no_home));
        assert!(!rule.may_match_under("/work", &no_home));
        assert!(rule.may_match_under("/", &no_home));
    }

    #[test]
    fn single_slash_is_the_project_root() {
        assert!(deny("/src/**/*.ts", "/work/proj/src/a.ts"));
        assert!(deny("/src/**/*.ts", "/work/proj/src/x/y/a.ts"));
        assert!(!deny("/src/**/*.ts", "/work/proj/lib/src/a.ts"));
        assert!(!deny("/src/**/*.ts", "/src/a.ts"));
        assert!(deny("/Users/alice/file", "/work/proj/Users/alice/file"));
        assert!(!deny("/Users/alice/file", "/Users/alice/file"));
        assert!(deny("/", "/work/proj/x"));
    }

    #[test]
    fn patterns_with_a_slash_are_anchored() {
        assert!(deny("src/components/**", "/work/proj/src/components/a.tsx"));
        assert!(!deny(
            "src/components/**",
            "/work/proj/app/src/components/a.tsx"
        ));
        assert!(deny("config/*.json", "/work/proj/config/a.json"));
        assert!(!deny("config/*.json", "/work/proj/config/x/a.json"));
        assert!(deny("**/src/**", "/work/proj/a/src/x"));
        assert!(deny(
            "secrets-*/config.json",
            "/work/proj/secrets-prod/config.json"
        ));
    }

    #[test]
    fn a_match_covers_everything_under_it() {
        assert!(deny("secrets", "/work/proj/secrets"));
        assert!(deny("secrets", "/work/proj/secrets/a/b"));
        assert!(deny("secrets/", "/work/proj/x/secrets/a"));
        assert!(deny("secrets/**", "/work/proj/secrets"));
        assert!(!deny("secrets", "/work/proj/secrets-old/a"));
        assert!(deny("a/b", "/work/proj/a/b/c/d"));
    }

    #[test]
    fn single_segment_directories_depend_on_the_list() {
        assert!(deny("src/**", "/work/proj/src/a.rs"));
        assert!(deny("src/**", "/work/proj/pkg/src/a.rs"));
        assert!(pattern("src/**", RuleKind::Ask).is_match("/work/proj/pkg/src/a.rs", &CTX));
        assert!(allow("src/**", "/work/proj/src/a.rs"));
        assert!(allow("src/**", "/work/proj/src"));
        assert!(!allow("src/**", "/work/proj/pkg/src/a.rs"));
        assert!(!allow("src/", "/work/proj/pkg/src/a.rs"));
        assert!(allow("./src/**", "/work/proj/src/x"));
        // Bare file names stay any-depth even in allow.
        assert!(allow("*.md", "/work/proj/docs/a.md"));
    }

    #[test]
    fn gitignore_globs() {
        assert!(deny("/a/?.txt", "/work/proj/a/b.txt"));
        assert!(!deny("/a/?.txt", "/work/proj/a/bc.txt"));
        assert!(!deny("/a/*.txt", "/work/proj/a/b/c.txt"));
        assert!(deny("/a/[bc].txt", "/work/proj/a/c.txt"));
        assert!(!deny("/a/[bc].txt", "/work/proj/a/d.txt"));
        assert!(deny("/a/**/z", "/work/proj/a/z"));
        assert!(deny("/a/**/z", "/work/proj/a/x/y/z"));
        // Braces are literal in gitignore.
        assert!(deny("/{a,b}", "/work/proj/{a,b}"));
        assert!(!deny("/{a,b}", "/work/proj/a"));
        // Escapes.
        assert!(deny(r"/\*", "/work/proj/*"));
        assert!(!deny(r"/\*", "/work/proj/x"));
        assert!(deny(r"\#notes", "/work/proj/#notes"));
        assert!(deny(r"\!x", "/work/proj/a/!x"));
    }

    #[test]
    fn deny_ignores_case_below_the_anchor_allow_does_not() {
        assert!(deny(".env", "/work/proj/.ENV"));
        assert!(deny("~/.SSH/**", "/home/ann/.ssh/x"));
        assert!(!allow(".env", "/work/proj/.ENV"));
        assert!(!deny(".env", "/WORK/proj/.env"));
    }

    #[test]
    fn outside_the_anchor_never_matches() {
        assert!(!deny("**", "/work/other/x"));
        assert!(!deny("**", "/work/projx/a"));
        assert!(deny("**", "/work/proj/a"));
        assert!(!deny("*.rs", "relative/a.rs"));
    }

    #[test]
    fn everything_under_an_anchor() {
        for rule in ["**", "**/**", "/", "/**", "./"] {
            assert!(deny(rule, "/work/proj/a/b"), "{rule}");
            assert!(!deny(rule, "/work/other"), "{rule}");
            assert!(under(rule, "/work/proj"), "{rule}");
            assert!(under(rule, "/work/proj/a"), "{rule}");
            assert!(!under(rule, "/tmp"), "{rule}");
        }
    }

    #[test]
    fn windows_patterns_say_how_to_write_them() {
        assert_eq!(
            PathPattern::new(r"C:\Users\ann\**", RuleKind::Deny).err(),
            Some(r"path pattern `C:\Users\ann\**` is a Windows path, which rules never see (paths are matched in POSIX form): write `//c/Users/ann/**`".to_owned())
        );
    }

    #[test]
    fn invalid_patterns_are_errors() {
        for bad in [
            "",
            "   ",
            "../x",
            "a/../b",
            "./a/./b",
            "!x",
            "#x",
            "/a/[b",
            "$HOME/.ssh/**",
            "${HOME}/.aws",
            r"C:\Users\ann\**",
            "c:/x",
        ] {
            assert!(PathPattern::new(bad, RuleKind::Deny).is_err(), "{bad}");
        }
        assert_eq!(
            PathPattern::new("../secrets/**", RuleKind::Deny).err(),
            Some("path pattern `../secrets/**` contains `..`, which never matches a canonical path: write `//absolute/path` or `~/path` instead".to_owned())
        );
    }

    #[test]
    fn recursive_reads_hit_rules_rooted_inside_them() {
        // `grep -r token ~` reads ~/.ssh; so does `grep -r token /`.
        assert!(under("~/.ssh/**", "/home/ann"));
        assert!(under("~/.ssh/**", "/"));
        assert!(under("~/.ssh/**", "/home"));
        assert!(under("~/.ssh/**", "/home/ann/.ssh"));
        assert!(under("~/.ssh/**", "/home/ann/.ssh/keys"));
        assert!(!under("~/.ssh/**", "/home/ann/proj"));
        assert!(!under("~/.ssh/**", "/tmp"));
        // Bounded globs below the directory.
        assert!(under("~/.ssh/*.pem", "/home/ann/.ssh"));
        assert!(under("~/.aws/*/credentials", "/home/ann/.aws/prod"));
        assert!(!under("~/.aws/dev/*", "/home/ann/.aws/prod"));
        assert!(under("/secrets/**", "/work/proj"));
        assert!(under("/src/**/*.ts", "/work/proj"));
        assert!(under("//etc/shadow", "/"));
        assert!(under("//etc/shadow", "/etc"));
    }

    #[test]
    fn recursive_reads_do_not_hit_needles_searched_from_above() {
        // `grep -r foo .` must not be caught by an any-depth file-name rule…
        assert!(!under("**/.env", "/work/proj"));
        assert!(!under(".env", "/work/proj"));
        assert!(!under(".env", "/work/proj/src"));
        assert!(!under("//**/.env", "/"));
        assert!(!under("//**/.env", "/home/ann"));
        assert!(!under("/src/**/*.ts", "/work/proj/src"));
        // …but a read that contains the rule's whole anchor is.
        assert!(under(".env", "/work"));
        assert!(under(".env", "/"));
    }
}
