//! `POST /v1/evaluate`: a Claude Code hook event in, Claude Code's reply out; and
//! `POST /v1/evaluate/{agent}`: the same for every other agent, in that agent's own dialect.
//!
//! The answer is always 200 with exactly the engine's rendering (`{}` for no opinion), except
//! for a body that is not a hook event at all (400 `invalid_event`; 413 when it is also larger
//! than `--max-body-bytes`), a missing or unknown token (401) and a token of another role (403).
//! A hook event toolgate cannot evaluate — no policy loaded yet, a panic in the engine, the
//! request shed under load, an event larger than `--max-body-bytes` — is answered with the
//! configured failure decision (default `deny`) for gating events and `{}` for the others:
//! never a 4xx or 5xx, which the agent would treat as "proceed".
//!
//! The tenant's live policy and the `global` tenant's are evaluated on one snapshot, loaded
//! once, and combined: the most restrictive answer wins. Tool input is never logged.
//!
//! Every answered event, failure answers included, is recorded in the audit before (durable
//! mode) or while (async mode) it is answered; an event whose row cannot be recorded gets the
//! failure decision instead.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Query, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use toolgate_engine::protocol::{self, Agent, EventError, HookEvent};
use toolgate_engine::{Decision, Outcome, evaluate};

use crate::audit::Audit;
use crate::audit::record::{Evaluation, Row, bundle_ref};
use crate::auth::{Caller, GLOBAL_TENANT, Role};
use crate::decisions::{Answer, Key, Lookup};
use crate::error::ApiError;
use crate::metrics::Failure;
use crate::middleware::TooLarge;
use crate::state::AppState;
use crate::store::reload::{LivePolicy, Snapshot};

/// `POST /v1/evaluate` (Claude Code) and `POST /v1/evaluate/{agent}` (any agent): the event
/// decoded and answered in the dialect the evaluate guard read from the route
/// ([`crate::middleware::evaluate_layers`]). An agent that blocks only by exit code (Windsurf)
/// gets `{"decision":"block","reason":…}`, which `toolgate hook` turns into exit code 2.
pub async fn evaluate_event(
    State(state): State<AppState>,
    Extension(dialect): Extension<Result<Dialect, ApiError>>,
    caller: Result<Caller, ApiError>,
    too_large: Option<Extension<TooLarge>>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match dialect {
        Ok(dialect) => evaluate_as(&state, dialect, caller, body, too_large.is_some()).await,
        // The body cannot be read as an event: a refused caller hears of the refusal first.
        Err(error) => match caller {
            Err(refusal @ ApiError::Unauthorized(_)) => refusal.into_response(),
            _ => error.into_response(),
        },
    }
}

/// How an evaluate route reads its events: the route's agent, and the event its hook's
/// configuration names (`?event=NAME`) for Copilot's camelCase events, which do not say which
/// event they are (GitHub's hooks reference; `hook-protocols.md` §6.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The agent.
    pub agent: Agent,
    /// The configured event name, when the query gives one.
    pub event: Option<&'static str>,
}

impl Dialect {
    /// The dialect of a request to `uri` on `agent`'s route. Any query parameter but `event`, a
    /// name that is not one of Copilot's events, `event` on another agent's route, or `event`
    /// given twice is a 400 `invalid_query` naming the parameter: read as a `preToolUse`, a
    /// `permissionRequest` would get a reply Copilot ignores, its deny lost without a trace.
    pub fn of(agent: Agent, uri: &Uri) -> Result<Self, ApiError> {
        let invalid = |message: String| ApiError::bad_request("invalid_query", message);
        let mut dialect = Self { agent, event: None };
        if uri.query().is_none() {
            return Ok(dialect);
        }
        let Query(params) = Query::<Vec<(String, String)>>::try_from_uri(uri)
            .map_err(|rejection| invalid(rejection.body_text()))?;
        for (name, value) in params {
            if name != "event" {
                let name: String = name.chars().take(64).collect();
                return Err(invalid(format!(
                    "unknown query parameter `{name}` (known: event)"
                )));
            }
            if dialect.event.is_some() {
                return Err(invalid("query parameter `event` is given twice".to_owned()));
            }
            let event = protocol::configured_event(agent, &value)
                .map_err(|why| invalid(format!("query parameter `event`: {why}")))?;
            dialect.event = Some(event);
        }
        Ok(dialect)
    }

    /// Decodes an event in this dialect.
    pub fn decode(self, body: &[u8]) -> Result<HookEvent, EventError> {
        protocol::decode_named(self.agent, self.event, body)
    }
}

/// The agent named in `/v1/evaluate/{agent}` (404 for an unknown name).
pub fn parse_agent(name: &str) -> Result<Agent, ApiError> {
    Agent::parse(name).ok_or_else(|| {
        ApiError::NotFound(format!(
            "unknown agent `{}` (known: {})",
            name.escape_debug(),
            Agent::ALL.map(Agent::as_str).join(", ")
        ))
    })
}

/// Evaluates the body as `agent`'s event for `caller`. When `too_large`, the body is the head
/// of an event larger than `--max-body-bytes`, answered with the failure decision.
async fn evaluate_as(
    state: &AppState,
    dialect: Dialect,
    caller: Result<Caller, ApiError>,
    body: Result<Bytes, BytesRejection>,
    too_large: bool,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return body_rejection(state.max_body_bytes, rejection).into_response(),
    };
    let decode = |body: &[u8]| decode_read(dialect, body, too_large, state.max_body_bytes);
    // A caller that is not an agent, or whose token cannot be checked, gets the failure decision
    // for a hook event (a 4xx or 5xx would be "proceed" to the agent: a developer whose shell
    // lacks the token's variable would run unchecked), and the error for any other body. The
    // caller is not known, so the answer is not audited: anyone could write the audit so.
    let unserved = |error: ApiError, failure: Failure, why: &str| match decode(&body) {
        Ok(read) => unserved_caller(state, &read.event, failure, why),
        Err(_) => error.into_response(),
    };
    let refuse = |error: ApiError| {
        let why = format!("the caller was refused: {error}");
        unserved(error, Failure::Refused, &why)
    };
    let caller = match caller {
        Ok(caller) => caller,
        // An unknown token cannot be checked while the database is away, when its lookup
        // fails, or while the few lookups allowed at once are all running.
        Err(error) if crate::auth::could_not_check(&error) => {
            if let ApiError::Internal(detail) = &error {
                tracing::error!(error = %detail, "token lookup failed; answering with the failure decision");
            }
            return unserved(
                error,
                Failure::TokenUnchecked,
                "the token could not be checked",
            );
        }
        Err(error) => return refuse(error),
    };
    if let Err(error) = caller.require(Role::Agent) {
        return refuse(error);
    }
    let ReadEvent { event, unreadable } = match decode(&body) {
        Ok(read) => read,
        Err(error) => return error.into_response(),
    };
    let event = Arc::new(event);
    let evaluated = if let Some(unreadable) = unreadable {
        state.metrics.observe_failure(unreadable.failure());
        let why = unreadable.why(state.max_body_bytes);
        Evaluated::failed(state.failure, &event, &why)
    } else {
        decide(state, &caller.tenant, &event).await
    };
    answer(
        &state.audit,
        state.failure,
        Some(&caller.tenant),
        &event,
        evaluated,
    )
    .await
}

/// One evaluated event: the reply and the decision behind it, what it was made with.
pub struct Evaluated {
    /// The HTTP body and the decision (the failure decision when toolgate failed).
    pub answer: Arc<Answer>,
    /// The bundles evaluated (`tenant:bundle_id:sha256`).
    pub bundles: Vec<String>,
    /// Evaluation time in microseconds.
    pub latency_us: i64,
    /// Whether this is the failure decision.
    pub failure: bool,
}

impl Evaluated {
    /// The failure answer to `event`, for the reason `why`.
    pub fn failed(failure: FailurePolicy, event: &HookEvent, why: &str) -> Self {
        Self {
            answer: Arc::new(Answer::new(
                &failure_reply(failure, event, why),
                failure_decision(failure, event, why),
            )),
            bundles: Vec::new(),
            latency_us: 0,
            failure: true,
        }
    }
}

/// Records `evaluated` in the audit and answers with it; when the row cannot be recorded,
/// answers with the failure decision instead.
pub async fn answer(
    audit: &Audit,
    failure: FailurePolicy,
    tenant: Option<&str>,
    event: &HookEvent,
    evaluated: Evaluated,
) -> Response {
    if audit.enabled() {
        let answer = &evaluated.answer;
        let winner_bundle = answer
            .winner_source
            .and_then(|source| evaluated.bundles.get(source).cloned());
        let evaluation = Evaluation {
            tenant,
            event,
            decision: &answer.decision,
            bundles: evaluated.bundles,
            winner_bundle,
            latency_us: evaluated.latency_us,
            failure: evaluated.failure,
        };
        let row = Row::build_masked(&evaluation, answer.masked_input(event).to_owned());
        if let Err(error) = audit.record(row).await {
            tracing::warn!(error = %error, event.name = event.event.as_str(), "audit row not recorded; answering with the failure decision");
            return Json(failure_reply(
                failure,
                event,
                "the audit record could not be written",
            ))
            .into_response();
        }
    }
    evaluated.answer.response()
}

/// The HTTP body for `decision` in the event's agent's dialect.
pub fn render_reply(event: &HookEvent, decision: &Decision) -> Value {
    let reply = protocol::render(event.agent, event, decision);
    match reply.body {
        Some(body) => body,
        None if reply.exit_code == 2 => {
            json!({ "decision": "block", "reason": reply.stderr.unwrap_or_default() })
        }
        None => json!({}),
    }
}

/// Maps a failure to read the body to an error answer.
pub fn body_rejection(limit: usize, rejection: BytesRejection) -> ApiError {
    if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge(limit)
    } else {
        ApiError::bad_request("invalid_body", rejection.body_text())
    }
}

/// An event as the evaluate routes read it.
pub struct ReadEvent {
    /// The event, or, when it cannot be evaluated, its head.
    pub event: HookEvent,
    /// Why only the head could be read.
    pub unreadable: Option<Unreadable>,
}

/// Why an event that names itself cannot be evaluated. It gets the failure decision, not a 4xx,
/// which Claude Code's HTTP hooks take as "proceed".
#[derive(Debug)]
pub enum Unreadable {
    /// Larger than `--max-body-bytes`.
    TooLarge,
    /// Not JSON that can be read whole: a syntax error, invalid UTF-8, or nesting deeper than
    /// the engine reads.
    Malformed(protocol::EventError),
}

impl Unreadable {
    /// The failure counted for it.
    pub fn failure(&self) -> Failure {
        match self {
            Self::TooLarge => Failure::TooLarge,
            Self::Malformed(_) => Failure::Unreadable,
        }
    }

    /// The reason given with the failure decision.
    pub fn why(&self, limit: usize) -> String {
        match self {
            Self::TooLarge => format!("the event is larger than the {limit}-byte limit"),
            Self::Malformed(error) => format!("the event could not be read whole: {error}"),
        }
    }
}

/// Decodes the body the evaluate guard read: the whole event; or, when it is larger than `limit`
/// (`too_large`) or not JSON that can be read whole, the event's head, to be answered with the
/// failure decision. A body whose head does not show which event it is is no event: 413 when
/// too large, else 400 `invalid_event` naming the problem.
pub fn decode_read(
    dialect: Dialect,
    body: &[u8],
    too_large: bool,
    limit: usize,
) -> Result<ReadEvent, ApiError> {
    let Dialect { agent, event } = dialect;
    let head = |unreadable: Unreadable| {
        protocol::decode_head_named(agent, event, body).map(|event| ReadEvent {
            event,
            unreadable: Some(unreadable),
        })
    };
    if too_large {
        return head(Unreadable::TooLarge).map_err(|_| ApiError::PayloadTooLarge(limit));
    }
    match dialect.decode(body) {
        Ok(event) => Ok(ReadEvent {
            event,
            unreadable: None,
        }),
        Err(error @ (EventError::Json(_) | EventError::TooDeep)) => {
            let message = error.to_string();
            head(Unreadable::Malformed(error))
                .map_err(|_| ApiError::bad_request("invalid_event", message))
        }
        Err(error) => Err(invalid_event(error)),
    }
}

/// Decodes an agent's hook event, or explains why the body is not one (400 `invalid_event`).
pub fn decode_as(agent: Agent, body: &[u8]) -> Result<HookEvent, ApiError> {
    protocol::decode(agent, body).map_err(invalid_event)
}

fn invalid_event(error: EventError) -> ApiError {
    ApiError::bad_request("invalid_event", error.to_string())
}

/// Whether `event` is a shell command holding a construct on which brush-parser's grammars have
/// backtracked or looped before (here-documents, `$(`, `${`, `$[`, `((`, backticks: every fuzz
/// finding so far). Those are evaluated off the runtime's workers; the rest, most commands,
/// inline, which saves the hand-off (~30 µs of CPU a request here).
fn takes_the_parsers_slow_paths(event: &HookEvent) -> bool {
    event.input_str("command").is_some_and(|command| {
        ["<<", "$(", "${", "$[", "((", "`"]
            .iter()
            .any(|construct| command.contains(construct))
    })
}

/// Evaluates `event` for `tenant` against one snapshot of the live policies: from memory when
/// the same call was evaluated against the same policies before ([`crate::decisions`]), else
/// inline, or on the blocking pool for a command that takes the parser's slow paths.
async fn decide(state: &AppState, tenant: &str, event: &Arc<HookEvent>) -> Evaluated {
    if !state.store.is_loaded() {
        state.metrics.observe_failure(Failure::NotLoaded);
        return Evaluated::failed(state.failure, event, "no policy is loaded yet");
    }
    let unserved = state.store.unserved();
    if !unserved.is_empty()
        && (unserved.contains(tenant)
            || (tenant != GLOBAL_TENANT && unserved.contains(GLOBAL_TENANT)))
    {
        state.metrics.observe_failure(Failure::NotLoaded);
        let why = "a live policy failed to load and there is none from before it";
        return Evaluated::failed(state.failure, event, why);
    }
    let started = Instant::now();
    let snapshot = state.store.snapshot();
    let policies = Policies::of(&snapshot, tenant);
    let key = if state.decisions.enabled() {
        Key::new(tenant, policies.generations(), event)
    } else {
        None
    };
    if let Some(answer) = key.as_ref().and_then(|key| state.decisions.get(key)) {
        state.metrics.observe_decision_cache(Lookup::Hit);
        return policies.evaluated(state, tenant, event, answer, started);
    }
    let evaluated = if takes_the_parsers_slow_paths(event) {
        evaluate_off_runtime(Arc::clone(&snapshot), tenant, event).await
    } else {
        policies.evaluate(event)
    };
    let Some(answer) = evaluated else {
        state.metrics.observe_failure(Failure::Panic);
        tracing::error!(
            tenant,
            event.name = event.event.as_str(),
            "evaluation panicked; answering with the failure decision"
        );
        return Evaluated::failed(state.failure, event, "the evaluation failed");
    };
    if state.decisions.enabled() {
        match key {
            Some(key) => {
                state.metrics.observe_decision_cache(Lookup::Miss);
                state.decisions.insert(key, Arc::clone(&answer));
            }
            None => state.metrics.observe_decision_cache(Lookup::TooLarge),
        }
    }
    policies.evaluated(state, tenant, event, answer, started)
}

/// [`Policies::evaluate`] on the blocking pool, against the same snapshot. An input
/// that escapes the analysis's bounds then holds a blocking thread, not one of the runtime's
/// workers, which go on serving (health checks, other evaluations), and the request timeout can
/// still answer it with the failure decision.
async fn evaluate_off_runtime(
    snapshot: Arc<Snapshot>,
    tenant: &str,
    event: &Arc<HookEvent>,
) -> Option<Arc<Answer>> {
    let task = {
        let (tenant, event) = (tenant.to_owned(), Arc::clone(event));
        tokio::task::spawn_blocking(move || Policies::of(&snapshot, &tenant).evaluate(&event))
    };
    // `evaluate` catches its own panics; an error here is the runtime shutting down.
    task.await.unwrap_or_else(|error| {
        tracing::error!(error = %error, "evaluation task failed");
        None
    })
}

/// The live policies an event of one tenant is evaluated against: its own and the `global`
/// tenant's, either absent.
struct Policies<'a> {
    own: Option<&'a Arc<LivePolicy>>,
    global: Option<&'a Arc<LivePolicy>>,
}

impl<'a> Policies<'a> {
    /// `tenant`'s policies in `snapshot`.
    fn of(snapshot: &'a Snapshot, tenant: &str) -> Self {
        Self {
            own: snapshot.get(tenant),
            global: if tenant == GLOBAL_TENANT {
                None
            } else {
                snapshot.get(GLOBAL_TENANT)
            },
        }
    }

    fn live(&self) -> impl Iterator<Item = &'a Arc<LivePolicy>> {
        self.own.into_iter().chain(self.global)
    }

    /// The generations a remembered decision is keyed by.
    fn generations(&self) -> [Option<&'a LivePolicy>; 2] {
        [self.own.map(Arc::as_ref), self.global.map(Arc::as_ref)]
    }

    /// The reply and the combined decision (the most restrictive answer wins), or `None` when
    /// the engine panicked.
    fn evaluate(&self, event: &HookEvent) -> Option<Arc<Answer>> {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            let (decision, source) =
                Decision::combine_sourced(self.live().map(|live| evaluate(&live.compiled, event)));
            let reply = render_reply(event, &decision);
            Arc::new(Answer::new(&reply, decision).sourced(source))
        }))
        .ok()
    }

    /// The evaluation of `event` begun at `started`, counted and traced.
    fn evaluated(
        &self,
        state: &AppState,
        tenant: &str,
        event: &HookEvent,
        answer: Arc<Answer>,
        started: Instant,
    ) -> Evaluated {
        let elapsed = started.elapsed();
        let decision = &answer.decision;
        state
            .metrics
            .observe_evaluation(tenant, event, decision, elapsed.as_secs_f64());
        tracing::debug!(
            tenant,
            event.name = event.event.as_str(),
            event.tool = event.tool_name.as_deref().unwrap_or(""),
            decision.outcome = %decision.outcome,
            decision.winner = decision.winner.as_deref().unwrap_or(""),
            "evaluated"
        );
        Evaluated {
            answer,
            // Only the audit row names them; formatting costs a few allocations.
            bundles: if state.audit.enabled() {
                self.live()
                    .map(|live| bundle_ref(&live.row.tenant, live.row.bundle_id, &live.row.sha256))
                    .collect()
            } else {
                Vec::new()
            },
            latency_us: i64::try_from(elapsed.as_micros()).unwrap_or(i64::MAX),
            failure: false,
        }
    }
}

/// What toolgate answers when it cannot decide an event (`--failure-decision`,
/// `--failure-blocks-prompts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailurePolicy {
    /// The answer to a gating event (`PreToolUse`, `PermissionRequest`): deny or ask.
    pub gate: Outcome,
    /// Whether a prompt (`UserPromptSubmit`) is blocked; otherwise it goes through.
    pub block_prompts: bool,
}

impl FailurePolicy {
    /// Deny gating events, let everything else through.
    pub const DEFAULT: Self = Self {
        gate: Outcome::Deny,
        block_prompts: false,
    };

    /// The outcome for `event`: no opinion for events this policy lets through.
    fn outcome(self, event: &HookEvent) -> Outcome {
        if event.is_gate() {
            self.gate
        } else if self.block_prompts && event.event == "UserPromptSubmit" {
            Outcome::Deny
        } else {
            Outcome::None
        }
    }
}

/// The decision when toolgate cannot decide: the policy's outcome for the event; the winner is
/// `toolgate-failure`.
pub fn failure_decision(failure: FailurePolicy, event: &HookEvent, why: &str) -> Decision {
    let outcome = failure.outcome(event);
    let policy = if outcome == Outcome::None {
        "to let it through".to_owned()
    } else {
        format!("to {outcome}")
    };
    Decision {
        outcome,
        reason: Some(format!(
            "toolgate failed to evaluate this call ({why}); its failure policy is {policy}"
        )),
        winner: Some("toolgate-failure".to_owned()),
        ..Decision::none()
    }
}

/// The answer to a hook event whose caller toolgate refused (no token, one no one holds, one
/// without the agent role): the failure decision, saying why, and not audited, since the caller
/// is unknown. An error status would be "proceed" to the agent.
pub fn refused(state: &AppState, event: &HookEvent, error: &ApiError) -> Response {
    let why = format!("the caller was refused: {error}");
    unserved_caller(state, event, Failure::Refused, &why)
}

/// The failure decision for a caller that is not served (refused, or its token not checked),
/// counted as `failure`; not audited, since the caller is unknown.
fn unserved_caller(state: &AppState, event: &HookEvent, failure: Failure, why: &str) -> Response {
    state.metrics.observe_failure(failure);
    Json(failure_reply(state.failure, event, why)).into_response()
}

/// The reply when toolgate cannot decide: the failure decision in the agent's dialect, `{}` for
/// events the policy lets through.
pub fn failure_reply(failure: FailurePolicy, event: &HookEvent, why: &str) -> Value {
    let decision = failure_decision(failure, event, why);
    if decision.outcome == Outcome::None {
        return json!({});
    }
    render_reply(event, &decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str) -> HookEvent {
        HookEvent::from_slice(
            format!(
                r#"{{"hook_event_name":"{name}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
            )
            .as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn failure_denies_pre_tool_use() {
        let reply = failure_reply(FailurePolicy::DEFAULT, &event("PreToolUse"), "test");
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"],
            json!("deny")
        );
        assert_eq!(
            reply["hookSpecificOutput"]["hookEventName"],
            json!("PreToolUse")
        );
        let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains("toolgate failed"), "{reason}");
    }

    #[test]
    fn failure_is_silent_for_non_gating_events() {
        assert_eq!(
            failure_reply(FailurePolicy::DEFAULT, &event("PostToolUse"), "test"),
            json!({})
        );
    }

    #[test]
    fn not_an_event_names_the_problem() {
        let error = decode_as(Agent::ClaudeCode, br#"{"hook_event_name": 3}"#).unwrap_err();
        assert_eq!(error.code(), "invalid_event");
        assert!(error.to_string().contains("hook_event_name"), "{error}");
    }
}
