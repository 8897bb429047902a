//! Publishing rule (`publish-package`, ask): a package or an extension sent to a registry,
//! where everyone who installs it gets it and a version once published cannot be taken back for
//! good (`npm publish`, `cargo publish`, `twine upload`, …).
//!
//! Each tool is matched on its subcommand words, past the global options that take a value in
//! front of them. A dry run (`--dry-run`, `cargo publish -n`) publishes nothing and is left
//! alone. Container images and Helm charts (`docker push`, `helm push`) are left alone too: they
//! go to a team's own registry many times a day, as part of deploying. This module must not flag
//! builds, installs, logins or local publications (`gradle publishToMavenLocal`, `mvn install`).

use super::Cmd;
use crate::argv::{Parsed, has_flag};
use crate::packs::Findings;

/// Options of the JavaScript package managers that take a value (`npm --registry URL publish`).
const NODE_SHORT: &[char] = &['w', 'C', 'F'];
const NODE_LONG: &[&str] = &[
    "registry",
    "otp",
    "tag",
    "access",
    "workspace",
    "prefix",
    "userconfig",
    "cache",
    "dir",
    "filter",
    "cwd",
    "loglevel",
    "location",
    "globalconfig",
    "include",
    "omit",
];
/// Cargo's options that take a value.
const CARGO_SHORT: &[char] = &['p', 'j', 'F', 'Z', 'C'];
const CARGO_LONG: &[&str] = &[
    "manifest-path",
    "registry",
    "index",
    "token",
    "package",
    "target",
    "target-dir",
    "features",
    "jobs",
    "config",
    "color",
];
/// The Python project managers' options that take a value (`uv --directory x publish`).
const PYTHON_SHORT: &[char] = &['r', 'u', 'p', 'C', 'e'];
const PYTHON_LONG: &[&str] = &[
    "directory",
    "project",
    "cache-dir",
    "config-file",
    "python",
    "repository",
    "username",
    "password",
    "index",
    "publish-url",
    "token",
    "env",
];
pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    // `npx npm@10 publish` runs npm; `cargo +nightly publish` runs cargo with a toolchain.
    let name = cmd.name().split('@').next().unwrap_or_default();
    let args = cmd.args();
    let args = match args.split_first() {
        Some((toolchain, rest)) if name == "cargo" && toolchain.starts_with('+') => rest,
        _ => args,
    };
    let Some(what) = published(name, args) else {
        return;
    };
    let dry_run = dry_run(args)
        || (name == "cargo" && Parsed::new(args, CARGO_SHORT, CARGO_LONG).has(&['n'], &[]))
        || (matches!(name, "gradle" | "gradlew") && has_flag(args, &['m'], &[]));
    if !dry_run {
        out.add("publish-package", format!("`{name}` {what}"));
    }
}

/// Whether `--dry-run` is given and not turned off (`--dry-run=false`, `--dry-run false`).
fn dry_run(args: &[String]) -> bool {
    let mut dry = false;
    let mut iter = args.iter().take_while(|arg| *arg != "--").peekable();
    while let Some(arg) = iter.next() {
        match arg.strip_prefix("--dry-run") {
            Some("") => {
                let off = iter.peek().is_some_and(|next| is_false(next));
                dry = !off;
            }
            Some(value) => {
                if let Some(value) = value.strip_prefix('=') {
                    dry = !is_false(value);
                }
            }
            None => {}
        }
    }
    dry
}

fn is_false(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "false" | "0" | "no")
}

/// Whether `word` names npm's `command`: the command, or a prefix of it npm takes for it
/// (`pu`, `publ`; npm runs a command from any unambiguous prefix).
fn npm_command(word: &str, command: &str, shortest: usize) -> bool {
    word.len() >= shortest && command.starts_with(word)
}

/// What `name ARGS` does to a registry (`publishes a crate to a registry`), if anything.
fn published(name: &str, args: &[String]) -> Option<String> {
    let words = |short: &[char], long: &[&str]| Parsed::new(args, short, long).operands;
    let npm = "an npm package";
    let python = "a Python package";
    let what = match name {
        "npm" | "pnpm" | "bun" => match words(NODE_SHORT, NODE_LONG).as_slice() {
            [word, ..] if npm_command(word, "publish", 2) => npm,
            ["pm", "publish", ..] => npm,
            [word, ..] if npm_command(word, "unpublish", 3) => {
                return Some("removes a published npm package from its registry".to_owned());
            }
            _ => return None,
        },
        // `yarn publish`, `yarn npm publish`, and across workspaces (`yarn workspaces foreach
        // -A npm publish`).
        "yarn" => {
            let words = words(NODE_SHORT, NODE_LONG);
            (words.first() == Some(&"publish")
                || words.windows(2).any(|pair| pair == ["npm", "publish"]))
            .then_some(npm)?
        }
        "cargo" => match words(CARGO_SHORT, CARGO_LONG).as_slice() {
            ["publish", ..] => "a crate",
            _ => return None,
        },
        "twine" => match words(&[], &[]).as_slice() {
            ["upload", ..] => python,
            _ => return None,
        },
        "poetry" | "uv" | "flit" | "hatch" | "pdm" => {
            match words(PYTHON_SHORT, PYTHON_LONG).as_slice() {
                ["publish", ..] => python,
                _ => return None,
            }
        }
        _ if name.starts_with("python") => match words(&['m', 'c', 'W', 'X'], &[]).as_slice() {
            // `python -m twine upload`: `-m` took `twine` as its value.
            ["upload", ..] if module(args) == Some("twine") => python,
            _ => return None,
        },
        "gem" => match words(&[], &[]).as_slice() {
            ["push", ..] => "a gem",
            _ => return None,
        },
        "dotnet" | "nuget" => match words(&['k', 's'], &["api-key", "source"]).as_slice() {
            ["nuget", "push", ..] if name == "dotnet" => "a NuGet package",
            ["push", ..] if name == "nuget" => "a NuGet package",
            _ => return None,
        },
        "pod" => match words(&[], &[]).as_slice() {
            ["trunk", "push", ..] => "a CocoaPod",
            _ => return None,
        },
        "vsce" | "ovsx" => match words(&['p'], &["pat"]).as_slice() {
            ["publish", ..] => "an editor extension",
            _ => return None,
        },
        "deno" | "jsr" => match words(&[], &["config", "token"]).as_slice() {
            ["publish", ..] => "a JSR package",
            _ => return None,
        },
        "mix" => match words(&[], &[]).as_slice() {
            ["hex.publish", ..] => "a Hex package",
            _ => return None,
        },
        // Maven runs every phase up to the one named: `deploy` uploads to the remote repository.
        "mvn" | "mvnw" => words(&['f', 's', 'P', 't', 'T'], &["file", "settings", "threads"])
            .iter()
            .any(|goal| {
                *goal == "deploy"
                    || goal.ends_with(":deploy")
                    || goal.ends_with(":deploy-file")
                    || goal.ends_with("release:perform")
            })
            .then_some("a Maven artifact")?,
        // Gradle's `publish` and `publish<Publication>To<Repository>` tasks, but not the local
        // repository (`publishToMavenLocal`).
        "gradle" | "gradlew" => words(&['p', 'x', 'b', 'c', 'D', 'P'], &[])
            .iter()
            .any(|task| {
                let task = task.rsplit(':').next().unwrap_or(task);
                task.starts_with("publish") && !task.ends_with("MavenLocal")
            })
            .then_some("a Gradle publication")?,
        _ => return None,
    };
    Some(format!("publishes {what} to a registry"))
}

/// The module `python -m MODULE` runs.
fn module(args: &[String]) -> Option<&str> {
    Parsed::new(args, &['m', 'c', 'W', 'X'], &[])
        .short_values
        .iter()
        .find_map(|(flag, value)| (*flag == 'm').then_some(*value))
}
