//! The offline subcommands: `toolgate eval`, `toolgate lint` and `toolgate test`.
//!
//! They need no server and no database: a bundle file (or a directory of fragments) is compiled
//! in-process and events are read from standard input. Replies go to standard output, one JSON
//! object per line; traces and diagnostics go to standard error.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::{Value, json};
use toolgate_engine::bundle::{self, Format, Severity};
use toolgate_engine::protocol::{self, EventError, HookEvent, Reply};
use toolgate_engine::shell::{self, ShellLimits};
use toolgate_engine::{Bundle, BundleErrors, CompiledPolicy, Decision};

use crate::routes::evaluate::Dialect;

/// Exit code for a bundle that does not load.
pub const EXIT_BAD_BUNDLE: u8 = 2;
/// Exit code for a command line that names what toolgate does not know (`eval --event`), as
/// clap's own usage errors exit.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for failed bundle tests, or lint errors (and warnings with `lint --strict`).
pub const EXIT_FINDINGS: u8 = 1;

/// Loads a bundle from a file, or from a directory of fragments merged in name order.
pub fn load_bundle(path: &Path) -> anyhow::Result<Result<Bundle, BundleErrors>> {
    if path.is_dir() {
        let mut fragments = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .with_context(|| format!("failed to read directory `{}`", path.display()))?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                let name = path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .unwrap_or("");
                !name.starts_with('.')
                    && [".json", ".yaml", ".yml"]
                        .iter()
                        .any(|ext| name.ends_with(ext))
            })
            .collect();
        entries.sort();
        // Read as an empty bundle it would say only "name: is required".
        anyhow::ensure!(
            !entries.is_empty(),
            "directory `{}` holds no bundle fragments (`*.json`, `*.yaml`, `*.yml`)",
            path.display()
        );
        for entry in entries {
            let text = std::fs::read_to_string(&entry)
                .with_context(|| format!("failed to read `{}`", entry.display()))?;
            let name = entry
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("")
                .to_owned();
            match bundle::parse_document(&text, Format::from_path(&name)) {
                Ok(document) => fragments.push((name, document)),
                Err(mut errors) => {
                    for error in &mut errors.errors {
                        error.location = format!("{name}: {}", error.location);
                    }
                    return Ok(Err(errors));
                }
            }
        }
        return Ok(Bundle::from_fragments(fragments));
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("failed to read `{}`", path.display()))?;
    let name = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("bundle");
    Ok(Bundle::parse_named(
        &text,
        Format::from_path(&path.to_string_lossy()),
        name,
    ))
}

/// A bundle read for an offline command, or the exit code of one that could not be read.
type Loaded = Result<Result<Bundle, BundleErrors>, ExitCode>;

/// Reads a bundle for an offline command; one that cannot be read is reported as a bundle that
/// does not load (exit 2), never as a failed test or a lint finding (exit 1).
fn load_or_report(path: &Path) -> anyhow::Result<Loaded> {
    match load_bundle(path) {
        Ok(loaded) => Ok(Ok(loaded)),
        Err(error) => {
            writeln!(std::io::stderr().lock(), "error: {error:#}")?;
            Ok(Err(ExitCode::from(EXIT_BAD_BUNDLE)))
        }
    }
}

fn compile_or_report(path: &Path) -> anyhow::Result<Result<(Bundle, CompiledPolicy), ExitCode>> {
    let loaded = match load_or_report(path)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(Err(code)),
    };
    let loaded = loaded.and_then(|bundle| {
        let policy = CompiledPolicy::compile(&bundle)?;
        Ok((bundle, policy))
    });
    let mut stderr = std::io::stderr().lock();
    match loaded {
        Ok((bundle, policy)) => {
            // What the bundle loads with (rules Claude Code would ignore, keys it does not
            // read) is said here too, not only by `lint` and a push.
            for finding in &bundle.findings {
                writeln!(
                    stderr,
                    "{}: {}: {finding}",
                    finding.severity,
                    path.display()
                )?;
            }
            Ok(Ok((bundle, policy)))
        }
        Err(errors) => {
            let count = errors.errors.len();
            writeln!(
                stderr,
                "error: bundle `{}` is invalid ({count} error{})",
                path.display(),
                if count == 1 { "" } else { "s" }
            )?;
            for error in &errors.errors {
                writeln!(stderr, "  {error}")?;
            }
            Ok(Err(ExitCode::from(EXIT_BAD_BUNDLE)))
        }
    }
}

/// Decides one event offline, as the server would: decoded in `dialect`, evaluated against
/// `policy`, rendered in the agent's reply schema.
pub fn decide(
    policy: &CompiledPolicy,
    dialect: Dialect,
    input: &[u8],
) -> Result<(HookEvent, Decision, Reply), EventError> {
    let event = dialect.decode(input)?;
    let decision = toolgate_engine::evaluate(policy, &event);
    let reply = protocol::render(dialect.agent, &event, &decision);
    Ok((event, decision, reply))
}

/// `toolgate eval`: one reply per event read from standard input, in `dialect`.
pub fn eval(bundle_path: &Path, dialect: Dialect, explain: bool) -> anyhow::Result<ExitCode> {
    let (_, policy) = match compile_or_report(bundle_path)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let mut input = String::new();
    std::io::stdin().lock().read_to_string_bounded(&mut input)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // A whole pretty-printed event is one event; otherwise every line is one (JSON Lines).
    let events: Vec<&str> = if serde_json::from_str::<Value>(&input).is_ok() {
        vec![input.as_str()]
    } else {
        input
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect()
    };
    for (line, text) in events.into_iter().enumerate() {
        let reply = match decide(&policy, dialect, text.as_bytes()) {
            Ok((event, decision, reply)) => {
                if explain {
                    write_trace(&mut std::io::stderr().lock(), line + 1, &event, &decision)?;
                }
                reply_line(reply)
            }
            Err(e) => {
                let mut error =
                    json!({ "code": "invalid_event", "message": e.to_string(), "line": line + 1 });
                if let (Some(field), Value::Object(map)) = (e.field(), &mut error) {
                    map.insert("field".into(), json!(field));
                }
                json!({ "error": error })
            }
        };
        serde_json::to_writer(&mut out, &reply)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// What `toolgate eval` writes for a reply: the body the agent reads; for an agent that reads
/// only the exit code and stderr (Windsurf), those.
fn reply_line(reply: Reply) -> Value {
    match reply.body {
        Some(body) => body,
        None => {
            let mut line = json!({ "exit_code": reply.exit_code });
            if let (Some(stderr), Value::Object(map)) = (reply.stderr, &mut line) {
                map.insert("stderr".into(), json!(stderr));
            }
            line
        }
    }
}

/// Reads standard input up to a bound, so that a runaway pipe cannot exhaust memory.
trait ReadBounded {
    fn read_to_string_bounded(&mut self, buf: &mut String) -> anyhow::Result<()>;
}

impl<R: BufRead> ReadBounded for R {
    fn read_to_string_bounded(&mut self, buf: &mut String) -> anyhow::Result<()> {
        const MAX_INPUT: u64 = 256 * 1024 * 1024;
        std::io::Read::take(self, MAX_INPUT)
            .read_to_string(buf)
            .context("failed to read events from stdin")?;
        Ok(())
    }
}

use std::io::Read as _;

fn write_trace(
    out: &mut impl Write,
    line: usize,
    event: &HookEvent,
    decision: &Decision,
) -> std::io::Result<()> {
    let tool = event.tool_name.as_deref().unwrap_or("-");
    writeln!(out, "event {line}: {} {tool}", event.event)?;
    if matches!(tool, "Bash" | "Monitor" | "PowerShell") {
        let analysis = shell::analyze(
            event.input_str("command").unwrap_or(""),
            &ShellLimits::default(),
        );
        for command in &analysis.commands {
            let view = command.deny_views.first().map_or("", String::as_str);
            writeln!(
                out,
                "  command [{:?}, depth {}]: {view}",
                command.origin, command.depth
            )?;
        }
        for unresolved in &analysis.unresolved {
            writeln!(out, "  unresolved: {unresolved}")?;
        }
    }
    for hit in &decision.matched {
        writeln!(
            out,
            "  matched {} ({}, {}): {}",
            hit.rule_id,
            hit.outcome,
            hit.mode.as_str(),
            hit.reason
        )?;
    }
    match decision.winner.as_deref() {
        Some(winner) => writeln!(out, "  decision: {} by {winner}", decision.outcome),
        None => writeln!(out, "  decision: {} (no rule decided)", decision.outcome),
    }
}

/// `toolgate lint`: rules Claude Code would silently ignore or that look wrong. Each finding is
/// an error, a warning or a note ([`Severity`]); the exit code is 1 when there is an error (or,
/// with `strict`, a warning), else 0: a note says only what toolgate does not read.
pub fn lint(path: &Path, strict: bool) -> anyhow::Result<ExitCode> {
    let loaded = match load_or_report(path)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let bundle = match loaded {
        Ok(bundle) => bundle,
        Err(errors) => {
            let mut stderr = std::io::stderr().lock();
            for error in &errors.errors {
                writeln!(stderr, "{}: error: {error}", path.display())?;
            }
            return Ok(ExitCode::from(EXIT_BAD_BUNDLE));
        }
    };
    let mut stdout = std::io::stdout().lock();
    let shown = path.display();
    for finding in &bundle.findings {
        writeln!(
            stdout,
            "{shown}: {}[{}]: {finding}",
            finding.severity, finding.code
        )?;
    }
    let count = |severity| bundle.findings_of(severity).count() as u64;
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note),
    );
    if bundle.findings.is_empty() {
        writeln!(stdout, "{shown}: no findings")?;
    } else {
        writeln!(
            stdout,
            "{shown}: {errors} {}, {warnings} {}, {notes} {}",
            plural(errors, "error", "errors"),
            plural(warnings, "warning", "warnings"),
            plural(notes, "note", "notes"),
        )?;
    }
    Ok(if errors > 0 || (strict && warnings > 0) {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}

/// `one` for 1, else `many`.
pub fn plural(count: u64, one: &'static str, many: &'static str) -> &'static str {
    if count == 1 { one } else { many }
}

/// `toolgate test`: runs the bundle's own tests.
pub fn test(path: &Path) -> anyhow::Result<ExitCode> {
    let (bundle, policy) = match compile_or_report(path)? {
        Ok(loaded) => loaded,
        Err(code) => return Ok(code),
    };
    let report = policy.run_tests();
    let mut stdout = std::io::stdout().lock();
    for failure in &report.failures {
        writeln!(stdout, "FAIL {}: {}", failure.location, failure.message)?;
        let index = failure
            .location
            .strip_prefix("tests[")
            .and_then(|rest| rest.split(']').next())
            .and_then(|index| index.parse::<usize>().ok());
        if let Some(case) = index.and_then(|index| bundle.tests.get(index))
            && let Ok(event) = HookEvent::from_value(case.event.clone())
        {
            let decision = toolgate_engine::evaluate(&policy, &event);
            write_trace(&mut stdout, index.unwrap_or(0), &event, &decision)?;
        }
    }
    writeln!(
        stdout,
        "{} passed, {} failed",
        report.passed,
        report.failures.len()
    )?;
    Ok(if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FINDINGS)
    })
}
