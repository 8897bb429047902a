//! The `baseline` pack: destructive file-system and git commands, remote code execution and
//! reverse shells, secret reads, persistence and self-tampering writes, containers with the
//! host's keys, dangerous environment, exfiltration, production databases and cloud destruction.
//!
//! Shell rules judge each analysed simple command (argv with wrappers stripped, assignments and
//! redirects split off) and the paths it touches, canonicalised against the event's cwd and home;
//! file-tool rules judge the canonical `file_path`. This module must not look at the raw command
//! string except where a client reads its script from stdin (here-docs to `psql`), and must never
//! put a secret or the raw command into a reason.

mod containers;
mod exec;
mod exfil;
mod fs;
mod git;
mod infra;
mod metadata;
mod net;
mod publish;
mod reads;
mod writes;

use serde_json::Value;

use super::Findings;
use crate::evaluate::{Effects, Evaluation, file_effects, working_dirs};
use crate::paths::{self, PathContext};
use crate::shell::{Analysis, Fuel, Origin, SimpleCommand};

/// Most pipeline elements walked back from one command.
const MAX_PIPELINE: usize = 32;

/// One simple command in the context of its analysis and event.
#[derive(Clone, Copy)]
pub(super) struct Cmd<'a> {
    /// The command.
    pub simple: &'a SimpleCommand,
    /// Its index in `analysis.commands`.
    pub index: usize,
    /// The whole analysis (for pipelines and related commands).
    pub analysis: &'a Analysis,
    /// The event's cwd and home.
    pub ctx: PathContext<'a>,
    /// The raw command text, for what a command is given from elsewhere in the line: a database
    /// client's script read from stdin, the text a line writes into VS Code's settings.
    pub raw: &'a str,
    /// The directory an earlier `cd` in the same command moved to, when known statically.
    pub dir: Option<&'a str>,
    /// What the command reads and writes (computed once, shared by the rules).
    pub effects: &'a Effects,
    /// The evaluation's fuel, which the rules' analyses of parts of the command again burn.
    pub fuel: &'a Fuel,
}

impl<'a> Cmd<'a> {
    /// `argv[0]`.
    pub fn name(&self) -> &'a str {
        self.simple.name()
    }

    /// The arguments.
    pub fn args(&self) -> &'a [String] {
        self.simple.args()
    }

    /// The canonical form of a path argument, resolved against the directory an earlier `cd`
    /// moved to (the project root stays the event's cwd).
    pub fn canonical(&self, path: &str) -> String {
        paths::canonicalize(path, &self.path_context())
    }

    /// What this command's relative paths resolve against: the directory an earlier `cd` moved
    /// to, or the event's cwd.
    pub fn path_context(&self) -> PathContext<'a> {
        PathContext {
            cwd: self.dir.unwrap_or(self.ctx.cwd),
            home: self.ctx.home,
        }
    }

    /// The commands feeding this one's stdin through a pipeline, nearest first.
    pub fn upstream(&self) -> Vec<(usize, &'a SimpleCommand)> {
        let mut chain = Vec::new();
        let mut current = (self.index, self.simple);
        while chain.len() < MAX_PIPELINE {
            let Some(from) = current.1.stdin_pipe_from.as_deref() else {
                break;
            };
            let previous = self
                .analysis
                .commands
                .iter()
                .enumerate()
                .take(current.0)
                .rev()
                .find(|(_, candidate)| {
                    // A `>(…)` reads what the command it belongs to writes (`… | tee >(sh)`),
                    // one level out.
                    let feeds_substitution = current.1.origin == Origin::ProcessSubstitution
                        && candidate.depth + 1 == current.1.depth;
                    candidate.name() == from
                        && (feeds_substitution
                            || candidate.depth == current.1.depth
                                && candidate.origin == current.1.origin)
                });
            match previous {
                Some(found) => {
                    chain.push(found);
                    current = found;
                }
                None => break,
            }
        }
        chain
    }

    /// The programs feeding this command's stdin, nearest first (names only, even when the
    /// command itself could not be found in the analysis).
    pub fn upstream_names(&self) -> Vec<&'a str> {
        let mut names: Vec<&'a str> = self.simple.stdin_pipe_from.as_deref().into_iter().collect();
        names.extend(
            self.upstream()
                .iter()
                .filter_map(|(_, cmd)| cmd.stdin_pipe_from.as_deref()),
        );
        names
    }
}

/// Baseline rules for an analysed shell command.
pub(crate) fn check_shell(eval: &mut Evaluation<'_>, analysis: &Analysis, fuel: &Fuel) {
    let mut findings = Findings::default();
    let raw = eval.event.input_str("command").unwrap_or("");
    check_commands(analysis, &eval.ctx, raw, fuel, &mut findings);
    findings.report(eval);
}

/// Runs every shell rule over one analysis. A script echoed into a shell (`echo '…' | sh`) is in
/// it already: the analyser reads what each shell's `echo` prints and walks it.
fn check_commands(
    analysis: &Analysis,
    ctx: &PathContext<'_>,
    raw: &str,
    fuel: &Fuel,
    findings: &mut Findings,
) {
    let dirs = working_dirs(analysis, ctx);
    for (index, simple) in analysis.commands.iter().enumerate() {
        let effects = file_effects(simple);
        let cmd = Cmd {
            simple,
            index,
            analysis,
            ctx: *ctx,
            raw,
            dir: None,
            effects: &effects,
            fuel,
        };
        check_command(&cmd, findings);
        // Again where an earlier `cd` may have moved it (the `cd` may have run in a subshell:
        // see `working_dirs`).
        if let Some(moved) = dirs.get(index).and_then(Option::as_deref) {
            check_command(
                &Cmd {
                    dir: Some(moved),
                    ..cmd
                },
                findings,
            );
        }
    }
    exec::check_analysis(analysis, ctx, fuel, findings);
    net::check_analysis(analysis, findings);
}

/// Every shell rule over one simple command.
fn check_command(cmd: &Cmd<'_>, findings: &mut Findings) {
    fs::check(cmd, findings);
    git::check(cmd, findings);
    exec::check(cmd, findings);
    reads::check_command(cmd, findings);
    writes::check_command(cmd, findings);
    exfil::check(cmd, findings);
    infra::check(cmd, findings);
    metadata::check(cmd, findings);
    publish::check(cmd, findings);
    net::check(cmd, findings);
    containers::check(cmd, findings);
}

/// Baseline rules for a gating event of a file, web or MCP tool.
pub(crate) fn check_gate(eval: &mut Evaluation<'_>) {
    let mut findings = Findings::default();
    let tool = eval.event.tool_name.as_deref().unwrap_or("");
    let input = &eval.event.tool_input;
    let field = |name: &str| input.get(name).and_then(Value::as_str);
    let ctx = eval.ctx;
    match tool {
        "Read" | "NotebookRead" | "LSP" => {
            if let Some(path) = field("file_path")
                .or_else(|| field("notebook_path"))
                .or_else(|| field("path"))
            {
                reads::check_file(&paths::canonicalize(path, &ctx), false, &ctx, &mut findings);
            }
        }
        "Grep" | "Glob" => {
            let root = paths::canonicalize(field("path").unwrap_or("."), &ctx);
            reads::check_file(&root, true, &ctx, &mut findings);
            for pattern in [field("glob"), field("pattern").filter(|_| tool == "Glob")]
                .into_iter()
                .flatten()
            {
                let full = if pattern.starts_with('/') || pattern.starts_with('~') {
                    paths::canonicalize(pattern, &ctx)
                } else {
                    format!("{}/{}", root.trim_end_matches('/'), pattern)
                };
                reads::check_pattern(&full, &ctx, &mut findings);
            }
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            for path in [field("file_path"), field("notebook_path")]
                .into_iter()
                .flatten()
            {
                let path = paths::canonicalize(path, &ctx);
                writes::check_file(&path, &ctx, &mut findings);
                writes::check_editor_settings(&path, input, &mut findings);
            }
        }
        "WebFetch" => {
            if let Some(url) = field("url") {
                metadata::check_url(tool, url, &mut findings);
            }
        }
        _ if tool.starts_with("mcp__") => {
            for url in ["url", "uri", "endpoint"].into_iter().filter_map(field) {
                metadata::check_url(tool, url, &mut findings);
            }
            let lower = tool.to_ascii_lowercase();
            let writes = ["write", "edit", "create", "save", "put", "move", "copy"]
                .iter()
                .any(|verb| lower.contains(verb));
            let reads = [
                "read", "get", "open", "cat", "view", "search", "list", "download",
            ]
            .iter()
            .any(|verb| lower.contains(verb));
            // Paths one per field, or listed (`read_multiple_files {paths: […]}`). What a tool
            // moves or copies from (`source`) is read whatever the tool's verb.
            let single = [
                "path",
                "file_path",
                "file",
                "filename",
                "source",
                "destination",
                "target",
            ]
            .into_iter()
            .filter_map(|name| Some((name, field(name)?)));
            let listed = ["paths", "files", "file_paths"]
                .into_iter()
                .filter_map(|name| Some((name, input.get(name)?.as_array()?)))
                .flat_map(|(name, items)| {
                    items
                        .iter()
                        .filter_map(move |item| Some((name, item.as_str()?)))
                });
            for (name, path) in single.chain(listed) {
                let canonical = paths::canonicalize(path, &ctx);
                if writes {
                    writes::check_file(&canonical, &ctx, &mut findings);
                }
                if reads || !writes || name == "source" {
                    reads::check_file(&canonical, false, &ctx, &mut findings);
                }
            }
        }
        _ => {}
    }
    findings.report(eval);
}
