//! What package managers run out of sight of the command line:
//!
//! - scripts stored in package.json for a later call to run: `npm pkg set scripts.test='…'`
//!   (pnpm's too, and bun's `bun pm pkg set`), npm's and pnpm's `set-script NAME CMD`. The
//!   next `npm test` or `npm install` runs them as shell text, out of sight of that call's
//!   analysis, so they are read as what they run, as a stored git alias is;
//! - a shell for those scripts named on the command line (`npm test --script-shell=PROG`),
//!   which runs whatever they hold: only known at run time;
//! - the build code of a package installed from a repository or a URL (`pip install
//!   git+https://…`, `npm install github:u/r`, `cargo install --git URL`): setup.py, a
//!   `prepare` script or build.rs fetched at run time, which nobody reviewed and no registry
//!   vetted. It is only known at run time (a question); an archive from a URL is a download
//!   installed, which the baseline denies as it does `curl -LO` then `pip install`. A wheel
//!   runs no code when installed and stays alone.
//!
//! This module must not parse shell text; the walker does that.

use serde_json::Value;

use super::super::Origin;
use super::super::exec::{Nested, script_or_dynamic};
use super::super::wrappers::Field;
use crate::argv::Parsed;

/// What `manager ARGS` runs out of sight (see the module documentation).
pub(super) fn nested(manager: &str, args: &[Field]) -> Vec<Nested> {
    let mut found = stored(manager, args);
    // `npm test --script-shell=PROG`: the scripts run by a program of the command line's
    // choosing, whatever they hold.
    if matches!(manager, "npm" | "pnpm" | "yarn")
        && args
            .iter()
            .take_while(|arg| arg.text != "--")
            .any(|arg| arg.text.starts_with("--script-shell"))
    {
        found.push(Nested::Dynamic(
            "<package scripts run by the shell --script-shell names>".to_owned(),
        ));
    }
    let texts: Vec<String> = args.iter().map(|arg| arg.text.clone()).collect();
    if installed_packages(manager, &texts)
        .iter()
        .any(|package| from_repository(manager, package))
    {
        found.push(Nested::Dynamic(
            "<the build code of a package fetched from a repository or URL>".to_owned(),
        ));
    }
    found
}

/// `python3 -m pip ARGS` (any Python, options before `-m`): what pip does with ARGS (see
/// [`nested`]).
pub(super) fn python_pip(args: &[Field]) -> Vec<Nested> {
    crate::argv::python_module_args(args, "pip")
        .map(|rest| nested("pip", rest))
        .unwrap_or_default()
}

/// pip's options with a value that names no package (`--index-url URL`).
const PIP_VALUED_SHORT: &[char] = &['i', 'f', 'r', 'c', 'e', 't', 'b'];
const PIP_VALUED_LONG: &[&str] = &[
    "index-url",
    "extra-index-url",
    "find-links",
    "requirement",
    "constraint",
    "editable",
    "target",
    "prefix",
    "root",
    "src",
    "trusted-host",
    "proxy",
    "cert",
    "client-cert",
    "python",
    "python-version",
    "platform",
    "implementation",
    "abi",
    "upgrade-strategy",
    "global-option",
    "config-settings",
    "spec",
    "from",
    "with",
    "index",
    "default-index",
];

/// npm's, pnpm's, yarn's and bun's options with a value that names no package (`--registry
/// URL`).
const NODE_VALUED_SHORT: &[char] = &['w', 'C', 'F'];
const NODE_VALUED_LONG: &[&str] = &[
    "registry",
    "prefix",
    "workspace",
    "cache",
    "tag",
    "userconfig",
    "filter",
    "dir",
    "cwd",
];

/// The packages `manager ARGS` installs, as written: the operands after its install
/// subcommand, and pip's editable ones (`-e git+https://…`); cargo's `--git URL`.
fn installed_packages<'a>(manager: &str, args: &'a [String]) -> Vec<&'a str> {
    let after = |parsed: &Parsed<'a>, subs: &[&[&str]]| -> Vec<&'a str> {
        subs.iter()
            .find_map(|sub| {
                let ops = &parsed.operands;
                (ops.len() >= sub.len() && ops.iter().zip(sub.iter()).all(|(a, b)| a == b))
                    .then(|| ops.get(sub.len()..).unwrap_or_default().to_vec())
            })
            .unwrap_or_default()
    };
    match manager {
        "pip" | "pip3" | "uv" | "pipx" => {
            let parsed = Parsed::new(args, PIP_VALUED_SHORT, PIP_VALUED_LONG);
            let mut packages = after(
                &parsed,
                &[
                    &["install"],
                    &["pip", "install"],
                    &["add"],
                    &["tool", "install"],
                    &["inject"],
                ],
            );
            // `pip install -e git+…`, `pipx install --spec git+…`, `uv tool install --from
            // git+…`, `uv add --with …`.
            packages.extend(parsed.values(&['e'], &["editable", "spec", "from", "with"]));
            if manager == "pip" || manager == "pip3" || manager == "uv" {
                packages.retain(|package| !package.starts_with("-"));
            }
            packages
        }
        "npm" | "pnpm" | "yarn" | "bun" => {
            let parsed = Parsed::new(args, NODE_VALUED_SHORT, NODE_VALUED_LONG);
            after(
                &parsed,
                &[&["install"], &["i"], &["add"], &["global", "add"]],
            )
        }
        "cargo" => {
            let parsed = Parsed::new(args, &[], &["git", "path", "branch", "tag", "rev"]);
            if parsed.operands.first() == Some(&"install") {
                parsed.values(&[], &["git"])
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// Whether a package `manager` installs comes from a repository or a URL whose build code it
/// runs: a VCS reference (`git+https://…`, `name @ git+ssh://…`, npm's `github:u/r` and `u/r`),
/// any URL for cargo's `--git`, or a network URL that is no wheel.
fn from_repository(manager: &str, package: &str) -> bool {
    let lower = package.to_ascii_lowercase();
    if manager == "cargo" {
        return !lower.starts_with("file:") && !lower.starts_with('/') && !lower.starts_with('.');
    }
    let vcs = ["git+", "hg+", "svn+", "bzr+"].iter().any(|scheme| {
        lower.match_indices(scheme).any(|(at, _)| {
            let rest = lower.get(at + scheme.len()..).unwrap_or_default();
            !rest.starts_with("file:")
                && !lower
                    .get(..at)
                    .is_some_and(|before| before.ends_with(char::is_alphanumeric))
        })
    });
    let url = ["http://", "https://", "ftp://", "git://", "ssh://"]
        .iter()
        .find_map(|scheme| lower.find(scheme))
        .and_then(|at| lower.get(at..));
    let wheel = url.is_some_and(|url| {
        url.split(['?', '#'])
            .next()
            .is_some_and(|path| path.ends_with(".whl"))
    });
    let node = matches!(manager, "npm" | "pnpm" | "yarn" | "bun")
        && (["github:", "gitlab:", "bitbucket:", "gist:"]
            .iter()
            .any(|host| lower.starts_with(host))
            || github_shorthand(package));
    vcs || node || (url.is_some() && !wheel)
}

/// npm's shorthand for a GitHub repository: `user/repo`, `user/repo#ref`; not a scoped
/// package (`@scope/name`), a path (`./x`, `../x`, `/x`, `~/x`) or a tarball (`x/y.tgz`).
fn github_shorthand(package: &str) -> bool {
    let name = package.split('#').next().unwrap_or(package);
    let Some((user, repo)) = name.split_once('/') else {
        return false;
    };
    let word = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    !user.starts_with('.')
        && word(user)
        && word(repo)
        && ![".tgz", ".tar", ".gz"]
            .iter()
            .any(|ext| repo.ends_with(ext))
}

/// Options of npm, pnpm and bun that take a separate value (a project's directory, a
/// workspace), so that the value is no operand.
const VALUED: &[&str] = &[
    "--prefix",
    "-C",
    "--cwd",
    "--dir",
    "-w",
    "--workspace",
    "--filter",
    "-F",
];

/// What `manager ARGS` stores as package.json scripts (see the module documentation): each
/// script's text, or one only known at run time when its value holds a run-time expansion or
/// `--json` gives JSON the analysis cannot read.
fn stored(manager: &str, args: &[Field]) -> Vec<Nested> {
    let mut operands: Vec<&Field> = Vec::new();
    let mut json = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let text = arg.text.as_str();
        if text == "--" {
            operands.extend(words.by_ref());
            break;
        }
        if text == "--json" {
            json = true;
        } else if VALUED.contains(&text) {
            words.next();
        } else if !text.starts_with('-') {
            operands.push(arg);
        }
    }
    let sub: Vec<&str> = operands.iter().map(|op| op.text.as_str()).collect();
    match (manager, sub.as_slice()) {
        ("npm" | "pnpm", ["pkg", "set", ..]) => settings(operands.get(2..), json),
        ("bun", ["pm", "pkg", "set", ..]) => settings(operands.get(3..), json),
        // `npm set-script NAME CMD`; pnpm's joins the words after the name.
        ("npm" | "pnpm", ["set-script" | "ss", _, ..]) => {
            // Every word after the name, options included (`pnpm ss t rm -rf ~`).
            let name = operands.get(1).copied();
            let at = args
                .iter()
                .position(|arg| name.is_some_and(|name| std::ptr::eq(arg, name)));
            let command = at.and_then(|at| args.get(at + 1..)).unwrap_or_default();
            if command.is_empty() {
                return Vec::new();
            }
            vec![super::super::exec::joined(command, Origin::ShellString)]
        }
        _ => Vec::new(),
    }
}

/// The scripts that `KEY=VALUE` settings store: `scripts.NAME=CMD` (or `scripts[NAME]`), with
/// `--json` a JSON string, or `scripts={…}` an object of them.
fn settings(settings: Option<&[&Field]>, json: bool) -> Vec<Nested> {
    let mut found = Vec::new();
    for setting in settings.unwrap_or_default() {
        let Some((key, value)) = setting.text.split_once('=') else {
            continue;
        };
        let one = key.strip_prefix("scripts.").or_else(|| {
            key.strip_prefix("scripts[")
                .and_then(|k| k.strip_suffix(']'))
        });
        if one.is_none() && key != "scripts" {
            continue;
        }
        if !json {
            if one.is_some() {
                found.push(script_or_dynamic(
                    value.to_owned(),
                    setting.dynamic,
                    Origin::ShellString,
                ));
            }
            continue;
        }
        let texts = match serde_json::from_str::<Value>(value) {
            Ok(Value::String(text)) if one.is_some() => vec![text],
            Ok(Value::Object(scripts)) if one.is_none() => scripts
                .values()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            Ok(_) => Vec::new(),
            Err(_) => {
                found.push(Nested::Dynamic(setting.text.clone()));
                continue;
            }
        };
        found.extend(
            texts
                .into_iter()
                .map(|text| script_or_dynamic(text, setting.dynamic, Origin::ShellString)),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::tests::describe;
    use super::*;
    use crate::shell::wrappers::tests::fields;

    fn scripts(manager: &str, words: &[&str]) -> Vec<String> {
        stored(manager, &fields(words))
            .into_iter()
            .map(describe)
            .collect()
    }

    #[test]
    fn stored_package_scripts() {
        assert_eq!(
            scripts("npm", &["pkg", "set", "scripts.test=rm -rf ~", "name=x"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts("pnpm", &["--dir", "app", "pkg", "set", "scripts[t]=make"]),
            ["make"]
        );
        assert_eq!(
            scripts("bun", &["pm", "pkg", "set", "scripts.x=curl h"]),
            ["curl h"]
        );
        assert_eq!(
            scripts("npm", &["set-script", "test", "rm -rf ~"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts("pnpm", &["ss", "t", "rm", "-rf", "~"]),
            ["rm -rf ~"]
        );
        assert_eq!(
            scripts(
                "npm",
                &[
                    "pkg",
                    "set",
                    "--json",
                    r#"scripts={"a":"rm -rf ~","b":"jest"}"#
                ]
            ),
            ["rm -rf ~", "jest"]
        );
        assert_eq!(
            scripts("npm", &["pkg", "set", "--json", "scripts.a=nope"]),
            ["dynamic: scripts.a=nope"]
        );
        assert!(scripts("npm", &["pkg", "get", "scripts.test"]).is_empty());
        assert!(scripts("npm", &["pkg", "set", "name=scripts.x"]).is_empty());
        assert!(scripts("yarn", &["pkg", "set", "scripts.x=y"]).is_empty());
    }

    #[test]
    fn packages_from_repositories() {
        let fetched = |manager: &str, words: &[&str]| {
            let args: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            installed_packages(manager, &args)
                .iter()
                .any(|package| from_repository(manager, package))
        };
        assert!(fetched("pip", &["install", "git+https://github.com/u/r"]));
        assert!(fetched(
            "pip",
            &["install", "-e", "git+ssh://git@h/u/r#egg=r"]
        ));
        assert!(fetched("pip3", &["install", "r @ git+https://h/u/r"]));
        assert!(fetched("pip", &["install", "https://h/r-1.0.tar.gz"]));
        assert!(fetched("uv", &["pip", "install", "git+https://h/u/r"]));
        assert!(fetched(
            "pipx",
            &["install", "--spec", "git+https://h/u/r", "r"]
        ));
        assert!(fetched("npm", &["install", "github:u/r"]));
        assert!(fetched("npm", &["i", "u/r#main"]));
        assert!(fetched("yarn", &["add", "https://h/x.tgz"]));
        assert!(fetched("cargo", &["install", "--git", "https://h/u/r"]));
        assert!(!fetched(
            "pip",
            &["install", "requests", "-i", "https://h/simple"]
        ));
        assert!(!fetched(
            "pip",
            &["install", "https://h/torch-2.0-cp312-linux.whl"]
        ));
        assert!(!fetched("pip", &["install", "-e", "."]));
        assert!(!fetched("pip", &["install", "git+file:///src/r"]));
        assert!(!fetched(
            "npm",
            &["install", "@types/node", "./local", "lodash"]
        ));
        assert!(!fetched(
            "npm",
            &["install", "--registry", "https://h/", "x"]
        ));
        assert!(!fetched("cargo", &["install", "ripgrep"]));
        assert!(!fetched("cargo", &["install", "--path", "."]));
        let pip = |words: &[&str]| python_pip(&fields(words)).len();
        assert_eq!(pip(&["-m", "pip", "install", "git+https://h/u/r"]), 1);
        assert_eq!(pip(&["-u", "-m", "pip", "install", "requests"]), 0);
        assert_eq!(pip(&["x.py", "-m", "pip"]), 0);
    }
}
