//! A patch file the command line wrote, then applied by name (`cat > x.patch <<'EOF' … EOF;
//! git apply x.patch`, `patch -p1 -i x.patch`, `git am x.patch`): each file its diff changes is
//! written, as `printf %s "$X" > FILE`, so that the rules about writing files judge a patch to
//! `.bashrc`, `.claude/settings.json` or `.github/workflows/` as they judge a here-document's
//! diff (read by the file effects) or a redirection there. A patch file the command line did
//! not write is the project's and is not looked into.
//!
//! This module must not parse shell text; the walker does that.

use super::super::Origin;
use super::super::exec::Nested;
use super::super::interp::path_quote;
use super::super::wrappers::Field;
use crate::evaluate::{patch_file_writes, patch_input};

/// The patch file `name ARGS` applies by name (see [`patch_input`]), which the walk hands
/// over as what the command reads, when the command line wrote it.
pub(in crate::shell) fn patch_file(name: &str, args: &[Field]) -> Option<String> {
    let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
    patch_input(name, &texts)
}

/// What `name ARGS` writes when the patch file it names holds `text` (the walk's knowledge of a
/// file the line wrote; `None` when it has none).
pub(in crate::shell) fn applied(name: &str, args: &[Field], text: Option<&str>) -> Vec<Nested> {
    let (Some(text), Some(file)) = (text, patch_file(name, args)) else {
        return Vec::new();
    };
    let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
    let mut files = patch_file_writes(name, &texts, &file, text);
    files.dedup();
    files
        .iter()
        .map(|file| Nested::Script {
            text: format!("printf %s \"$X\" > {}", path_quote(file)),
            origin: Origin::ShellString,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::texts;
    use super::*;
    use crate::shell::wrappers::tests::fields;

    const PATCH: &str = "diff --git a/.claude/settings.json b/.claude/settings.json\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\t2026-01-01\n@@ -1 +1 @@\n-{}\n+{\"x\":1}\n";

    #[test]
    fn patch_files_written_then_applied() {
        let git = |words: &[&str]| texts(applied("git", &fields(words), Some(PATCH)));
        assert_eq!(
            git(&["apply", "x.patch"]),
            ["printf %s \"$X\" > .claude/settings.json"]
        );
        assert_eq!(
            git(&["-C", "sub", "am", "x.patch"]),
            ["printf %s \"$X\" > sub/.claude/settings.json"]
        );
        assert!(git(&["apply", "--check", "x.patch"]).is_empty());
        assert!(git(&["apply"]).is_empty());
        assert!(git(&["log", "x.patch"]).is_empty());
        let patch = |words: &[&str]| texts(applied("patch", &fields(words), Some(PATCH)));
        assert_eq!(
            patch(&["-p1", "-d", "/home/u", "-i", "x.patch"]),
            ["printf %s \"$X\" > /home/u/.claude/settings.json"]
        );
        assert!(patch(&["-p1"]).is_empty());
        assert!(applied("git", &fields(&["apply", "x.patch"]), None).is_empty());
    }
}
