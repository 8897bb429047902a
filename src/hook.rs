//! `toolgate hook`: the command-hook client every agent can run.
//!
//! It reads the agent's event on stdin and writes the agent's reply on stdout, with that agent's
//! exit-code convention (exit 2 and the reason on stderr where the agent blocks that way). With
//! `--url` it asks a toolgate server (`POST /v1/evaluate/{agent}`); with `--bundle` it decides
//! locally, offline. When no decision can be had — the server unreachable, slow, answering
//! garbage or a redirect; the bundle unreadable; stdin unreadable or too large — the chosen fail
//! mode is applied explicitly, closed (deny) by default, to events that gate a tool call, and
//! said on stderr; other events get no opinion. The command never exits on an error of its own
//! (exit 1 lets most agents' calls through). Tool input is never written anywhere but to the
//! server.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::Value;
use toolgate_engine::protocol::{self, Agent, HookEvent, Reply};
use toolgate_engine::{CompiledPolicy, Decision, Outcome};

use crate::client::{self, Body, Failure, Http};
use crate::routes::evaluate::Dialect;

/// Largest event read from stdin.
const MAX_EVENT_BYTES: u64 = 16 * 1024 * 1024;

/// What to do when the server cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailMode {
    /// Let the call through (the agent's own permission flow continues).
    Open,
    /// Block the call.
    Closed,
}

/// `toolgate hook` arguments.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent whose event arrives on stdin: claude-code, codex, copilot, cursor, gemini,
    /// vscode, cline, windsurf.
    #[arg(long, value_parser = parse_agent)]
    pub agent: Agent,
    /// The event the hook is configured for, for Copilot's camelCase events, which do not say
    /// which they are (`permissionRequest`, `postToolUse`, `agentStop`, …). Without it such an
    /// event is read as `preToolUse`.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
    /// The toolgate server's base URL (`http://127.0.0.1:8080`); the evaluate URL an HTTP hook
    /// uses (`…/v1/evaluate`) is read as the base URL it ends in. Without it, the environment
    /// variable `TOOLGATE_SERVER` (which the `bundle` commands read too), unless `--bundle` is
    /// given.
    #[arg(long, conflicts_with = "bundle")]
    pub url: Option<String>,
    /// The environment variable holding the agent token.
    #[arg(long, default_value = "TOOLGATE_TOKEN")]
    pub token_env: String,
    /// Decide locally with this bundle (file or fragment directory) instead of asking a server.
    #[arg(long)]
    pub bundle: Option<PathBuf>,
    /// What to do when the server is unreachable, slow or answers garbage.
    #[arg(long, value_enum, default_value = "closed")]
    pub fail: FailMode,
    /// How long to wait for the server: milliseconds (`2000`), or with a unit (`500ms`, `2s`).
    /// A bare number under 100 is refused as a likely count of seconds.
    #[arg(long, default_value = "2000", value_parser = parse_timeout)]
    pub timeout: Duration,
    /// A PEM file of the certificate authorities to trust for an `https://` URL, instead of the
    /// built-in roots (a server behind the organisation's own CA).
    #[arg(long, env = "TOOLGATE_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
}

/// Parses `--url`: an `http://` or `https://` URL, read as the server's base URL. The URL of
/// the evaluate endpoint, as an HTTP hook entry has it (`…/v1/evaluate`, or `…/v1/evaluate/AGENT`),
/// stands for the base URL before it: the command hook adds that path itself, and would
/// otherwise ask `…/v1/evaluate/v1/evaluate/AGENT` and fail on every call.
pub fn parse_base_url(url: &str) -> Result<String, String> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme);
    if !scheme.is_some_and(|scheme| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    }) {
        return Err(format!(
            "`{}` is not an http:// or https:// URL (the server's base URL, such as \
             `http://127.0.0.1:8080`)",
            client::display_url(url)
        ));
    }
    let mut base = url.trim_end_matches('/');
    if let Some((before, last)) = base.rsplit_once('/')
        && Agent::parse(last).is_some()
        && before.ends_with("/v1/evaluate")
    {
        base = before;
    }
    Ok(base.strip_suffix("/v1/evaluate").unwrap_or(base).to_owned())
}

/// Parses `--timeout`: a bare number is milliseconds, as it always was; a number with a unit
/// is that long. `--timeout 5`, meant as seconds as an agent's own hook timeouts often are,
/// would wait 5 ms and deny every call: a bare number under 100 is an error that says so.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<u64>() {
        Ok(millis) if millis < 100 => Err(format!(
            "a bare `{millis}` is {millis} milliseconds, too short to hear from a server: write \
             `{millis}s` for seconds, or `{millis}ms` if milliseconds are meant"
        )),
        Ok(millis) => Ok(Duration::from_millis(millis)),
        Err(_) => crate::config::parse_duration(text),
    }
}

/// Parses `--agent`.
pub fn parse_agent(name: &str) -> Result<Agent, String> {
    Agent::parse(name).ok_or_else(|| {
        format!(
            "unknown agent `{name}` (known: {})",
            Agent::ALL.map(Agent::as_str).join(", ")
        )
    })
}

/// The dialect of an agent's hook whose configuration may name its event (`--event`, for
/// Copilot's camelCase events). A name toolgate does not know, or `--event` with another agent,
/// is an error that says why; `toolgate hook` and `toolgate eval` report it alike.
pub fn configured_dialect(agent: Agent, event: Option<&str>) -> Result<Dialect, String> {
    let event = event
        .map(|name| protocol::configured_event(agent, name))
        .transpose()
        .map_err(|why| format!("--event: {why}"))?;
    Ok(Dialect { agent, event })
}

/// Runs the hook client.
pub fn run(args: &HookArgs) -> anyhow::Result<ExitCode> {
    let configured = configured_dialect(args.agent, args.event.as_deref()).and_then(|dialect| {
        let url = server_url(args)?;
        Ok((dialect, url))
    });
    let (dialect, url) = match configured {
        Ok(configured) => configured,
        // A hook entry that names no event toolgate knows, or no URL it can ask, is
        // misconfigured: exit 2, which blocks where the agent can block, and say why.
        Err(why) => {
            return Ok(emit(&Reply {
                body: None,
                exit_code: 2,
                stderr: Some(format!("toolgate hook: {why}")),
            }));
        }
    };
    let reply = match read_event() {
        Ok(input) => match (&args.bundle, &url) {
            (Some(bundle), _) => decide_locally(dialect, bundle, &input),
            (None, Some(url)) => ask_server(args, dialect, url, &input),
            (None, None) => unreachable_source(),
        },
        Err(why) => fail(dialect, &[], args.fail, &format!("toolgate hook: {why}")),
    };
    Ok(emit(&reply))
}

/// The event on stdin, whole: a longer one is refused, not cut.
fn read_event() -> Result<Vec<u8>, String> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut input)
        .map_err(|error| format!("cannot read the event from stdin ({error})"))?;
    if input.len() as u64 > MAX_EVENT_BYTES {
        return Err(format!(
            "the event on stdin is larger than {} MiB",
            MAX_EVENT_BYTES >> 20
        ));
    }
    Ok(input)
}

/// The variable `--url` defaults to, as the `bundle` commands' `--server` does.
pub const SERVER_ENV: &str = "TOOLGATE_SERVER";

/// The server's base URL: `--url`, else `TOOLGATE_SERVER` unless `--bundle` decides locally.
/// Read here rather than by clap, whose `env` would make a `TOOLGATE_SERVER` exported for the
/// `bundle` commands conflict with `--bundle`. Neither, or a URL that is not one, is an error
/// that names where it came from.
fn server_url(args: &HookArgs) -> Result<Option<String>, String> {
    if let Some(url) = &args.url {
        return parse_base_url(url)
            .map(Some)
            .map_err(|why| format!("--url: {why}"));
    }
    if args.bundle.is_some() {
        return Ok(None);
    }
    match std::env::var(SERVER_ENV) {
        Ok(url) if !url.trim().is_empty() => parse_base_url(url.trim())
            .map(Some)
            .map_err(|why| format!("{SERVER_ENV}: {why}")),
        _ => Err(format!(
            "no server to ask: give --url (or set {SERVER_ENV}), or --bundle to decide locally"
        )),
    }
}

/// [`server_url`] gives a URL whenever `--bundle` is not given.
fn unreachable_source() -> Reply {
    Reply {
        body: None,
        exit_code: 2,
        stderr: Some("toolgate hook: give --url or --bundle".into()),
    }
}

/// Decides offline. A bundle that cannot be read or is invalid fails closed, whatever `--fail`
/// says: that flag is about a server that cannot answer.
fn decide_locally(dialect: Dialect, bundle: &std::path::Path, input: &[u8]) -> Reply {
    let agent = dialect.agent;
    let loaded = match crate::offline::load_bundle(bundle) {
        Ok(loaded) => loaded,
        Err(error) => {
            let why = format!("toolgate hook: cannot load the bundle: {error:#}");
            return fail(dialect, input, FailMode::Closed, &why);
        }
    };
    let policy = match loaded.and_then(|bundle| CompiledPolicy::compile(&bundle)) {
        Ok(policy) => policy,
        Err(errors) => {
            let mut message = format!("toolgate hook: bundle `{}` is invalid", bundle.display());
            for error in &errors.errors {
                message.push_str(&format!("\n  {error}"));
            }
            return fail(dialect, input, FailMode::Closed, &message);
        }
    };
    match crate::offline::decide(&policy, dialect, input) {
        Ok((_, _, reply)) => reply,
        Err(error) => Reply {
            body: None,
            exit_code: 2,
            stderr: Some(format!(
                "toolgate hook: the event is not a {} hook event: {error}",
                agent.as_str()
            )),
        },
    }
}

fn ask_server(args: &HookArgs, dialect: Dialect, url: &str, input: &[u8]) -> Reply {
    let answer = post(args, dialect, url, input).and_then(|body| in_schema(args.agent, body));
    match answer {
        Ok(body) => from_server(args.agent, body),
        Err(why) => fail(dialect, input, args.fail, &format!("toolgate hook: {why}")),
    }
}

/// The server's answer, if it is in the agent's reply schema. A 200 with other keys (a
/// gateway's own page, a server of another protocol) would be ignored by the agent, which then
/// goes ahead: it is a failure instead.
fn in_schema(agent: Agent, body: Value) -> Result<Value, String> {
    let keys = agent.reply_keys();
    match body
        .as_object()
        .and_then(|map| map.keys().find(|key| !keys.contains(&key.as_str())))
    {
        Some(key) => Err(format!(
            "the server's answer has `{}`, which is not in {}'s reply schema",
            key.chars().take(64).collect::<String>(),
            agent.as_str()
        )),
        None => Ok(body),
    }
}

/// The server's answer as the agent's reply; `{"decision":"block"}` is how the server tells a
/// command-hook client to block by exit code.
fn from_server(agent: Agent, body: Value) -> Reply {
    if agent == Agent::Windsurf {
        let blocks = body.get("decision").and_then(Value::as_str) == Some("block");
        let reason = body
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("blocked by toolgate policy");
        return Reply {
            body: None,
            exit_code: if blocks { 2 } else { 0 },
            stderr: blocks.then(|| reason.to_owned()),
        };
    }
    Reply {
        body: Some(body),
        exit_code: 0,
        stderr: None,
    }
}

fn post(args: &HookArgs, dialect: Dialect, url: &str, input: &[u8]) -> Result<Value, String> {
    let mut endpoint = format!(
        "{}/v1/evaluate/{}",
        url.trim_end_matches('/'),
        args.agent.as_str()
    );
    if let Some(event) = dialect.event {
        // A name from `COPILOT_EVENTS`: letters only, nothing to escape.
        endpoint.push_str("?event=");
        endpoint.push_str(event);
    }
    let token = std::env::var(&args.token_env).ok();
    let roots = client::read_ca_file(args.ca_cert.as_deref())?;
    let answer = Http::new(url, args.timeout, roots.as_deref())
        .post(
            &endpoint,
            token.as_deref(),
            Some(Body {
                content_type: "application/json",
                bytes: input,
            }),
        )
        .map_err(|failure| match failure {
            Failure::Unreachable(cause) => {
                let url = client::display_url(url);
                format!("the server at {url} is unreachable ({cause})")
            }
            other => other.to_string(),
        })?;
    if !answer.status.is_success() {
        let detail = serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .and_then(|body| {
                body.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .map(|detail| format!(": {detail}"))
            .unwrap_or_default();
        return Err(format!("the server answered {}{detail}", answer.status));
    }
    match serde_json::from_slice::<Value>(&answer.body) {
        Ok(body @ Value::Object(_)) => Ok(body),
        _ => Err("the server's answer is not a JSON object".to_owned()),
    }
}

/// The reply when no decision could be had: for an event that gates a tool call, deny (closed)
/// or no opinion (open), in the agent's own schema; for any other event no opinion (the server
/// answers those so too). `why` goes to stderr.
fn fail(dialect: Dialect, input: &[u8], mode: FailMode, why: &str) -> Reply {
    let agent = dialect.agent;
    let mode_text = match mode {
        FailMode::Closed => "failing closed",
        FailMode::Open => "failing open",
    };
    let note = format!("{why}; {mode_text}");
    let Ok(event) = dialect.decode(input) else {
        // Not even an event: block by exit code, which every agent honours for its pre-hooks.
        return Reply {
            body: None,
            exit_code: if mode == FailMode::Closed { 2 } else { 0 },
            stderr: Some(note),
        };
    };
    let outcome = match mode {
        FailMode::Closed if event.is_gate() => Outcome::Deny,
        _ => Outcome::None,
    };
    let decision = Decision {
        outcome,
        reason: (outcome == Outcome::Deny)
            .then(|| format!("toolgate could not decide ({why}); its fail mode is closed")),
        winner: Some("toolgate-failure".to_owned()),
        ..Decision::none()
    };
    let mut reply = protocol::render(agent, &event, &decision);
    reply.stderr = Some(match reply.stderr {
        Some(reason) => format!("{reason}\n{note}"),
        None => note,
    });
    reply
}

/// Writes the reply. When stdout cannot take it, exit 2: the agents that read a JSON reply
/// block on that code.
fn emit(reply: &Reply) -> ExitCode {
    if let Some(body) = &reply.body {
        let mut stdout = std::io::stdout().lock();
        let written = serde_json::to_writer(&mut stdout, body)
            .map_err(std::io::Error::from)
            .and_then(|()| stdout.write_all(b"\n"))
            .and_then(|()| stdout.flush());
        if let Err(error) = written {
            eprintln!("toolgate hook: cannot write the reply ({error})");
            return ExitCode::from(2);
        }
    }
    if let Some(message) = &reply.stderr {
        eprintln!("{message}");
    }
    ExitCode::from(reply.exit_code)
}

/// The event as toolgate reads it, for tests and traces.
pub fn decode(agent: Agent, input: &[u8]) -> Option<HookEvent> {
    protocol::decode(agent, input).ok()
}
