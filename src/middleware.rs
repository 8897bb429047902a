//! Every middleware layer, composed in one place.
//!
//! Order, outermost first (a request passes them top to bottom, the response bottom to top):
//!
//! 1. `SetRequestId` — gives every request an `x-request-id`, so that the trace span and the
//!    response carry it. A client's own id is kept when it is 1–64 of `[A-Za-z0-9._-]`
//!    ([`drop_unfit_request_id`]), and replaced otherwise: it is written into the logs.
//! 2. [`record_http`] — `toolgate_http_request_duration_seconds` by method, matched route
//!    template (never the raw path) and status; outside the rest, so every answer is counted.
//! 3. `Trace` — one span per request (debug level) with method, path and request id.
//! 4. `PropagateRequestId` — copies the id onto the response.
//! 5. `json_errors` — turns the bare errors of the framework and of the layers below (404, 405,
//!    408, 413, 503, a caught panic's 500) into the JSON envelope, and logs each 5xx's internal
//!    detail once. It sits outside the layers that produce such errors.
//! 6. `CatchPanic` — a panic in a handler becomes a generic 500 (evaluation catches its own
//!    panics first, in the engine and in [`evaluate_guard`], and answers with the failure
//!    decision).
//!
//! axum's own default limit for its body extractors (2 MiB) is switched off: `--max-body-bytes`
//! is the limit, applied per route group below, or it would refuse events the flag allows.
//!
//! Then per route group ([`evaluate_layers`], [`admin_layers`]); health checks get none, so they
//! answer even under overload (they read no body):
//!
//! - `/v1/evaluate` and `/v1/evaluate/{agent}`: [`evaluate_guard`] — a concurrency limit that
//!   sheds by answering with the failure decision (decided from the request's own event, its
//!   caller checked from memory only), and the request timeout: 408 for a body that does not
//!   arrive in time, the failure decision for an evaluation still running at the deadline or
//!   one that panicked (outside the engine, which catches its own panics first). It
//!   reads the body itself, up to `--max-body-bytes`, and checks the caller while it arrives:
//!   a request without a valid token is a 401 at once, not once its body is whole. A larger event is not a 413, which the
//!   agent would take as "proceed": it is read to its end, and its head (the first
//!   `--max-body-bytes`) goes on with [`TooLarge`] to be answered with the failure decision.
//!   A body whose answer can only be the unaudited failure decision (a token not in memory on
//!   a shed request, or one whose lookup could not be made) is kept only to its first
//!   [`UNCHECKED_BODY_BYTES`], which is where the event names itself, and read on unkept.
//! - admin routes: body limit (413 over `--max-body-bytes`, checked on `Content-Length` before
//!   reading and enforced while reading) → load shed (503 `overloaded`) → concurrency limit →
//!   timeout (503).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::error_handling::HandleErrorLayer;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self as axum_mw, Next};
use axum::response::{IntoResponse, Response};
use futures_util::{FutureExt as _, StreamExt};
use tokio::sync::Semaphore;
use toolgate_engine::protocol::Agent;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::auth::{Authenticated, Caller, Known, Role, authenticate, authenticate_in_memory};
use crate::error::ApiError;
use crate::error::{ErrorDetail, envelope};
use crate::metrics::{Failure, Metrics};
use crate::routes::evaluate::{
    Dialect, Evaluated, answer, decode_read, failure_reply, parse_agent, refused,
};
use crate::state::AppState;

/// Request ids: `<replica>-<counter>`.
#[derive(Clone)]
struct ReplicaRequestId {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl MakeRequestId for ReplicaRequestId {
    fn make_request_id<B>(&mut self, _request: &axum::http::Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.prefix))
            .ok()
            .map(RequestId::new)
    }
}

/// Settings the layers need.
#[derive(Clone)]
pub struct Limits {
    /// Largest request body.
    pub max_body_bytes: usize,
    /// Time limit for one request.
    pub request_timeout: Duration,
    /// Requests in flight per route group.
    pub concurrency_limit: usize,
    /// This replica's id, prefixing request ids.
    pub replica_id: String,
    /// Where HTTP latencies and shed requests are counted.
    pub metrics: Metrics,
}

/// The layers every route shares (1–6 above).
pub fn common_layers<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    limits: &Limits,
) -> Router<S> {
    let request_ids = ReplicaRequestId {
        prefix: sanitize_header(&limits.replica_id).into(),
        next: Arc::new(AtomicU64::new(1)),
    };
    let max_body_bytes = limits.max_body_bytes;
    let metrics = limits.metrics.clone();
    router.layer(
        ServiceBuilder::new()
            .map_request(drop_unfit_request_id)
            .layer(SetRequestIdLayer::x_request_id(request_ids))
            .layer(axum_mw::from_fn(move |request: Request, next: Next| {
                record_http(metrics.clone(), request, next)
            }))
            .layer(
                // 5xx details are logged once by `json_errors`; the trace layer logs no failures.
                TraceLayer::new_for_http().on_failure(()).make_span_with(
                    |request: &Request<Body>| {
                        let request_id = request
                            .headers()
                            .get("x-request-id")
                            .and_then(|value| value.to_str().ok())
                            .unwrap_or("");
                        tracing::debug_span!(
                            "request",
                            http.method = %request.method(),
                            http.path = %request.uri().path(),
                            request.id = %request_id,
                        )
                    },
                ),
            )
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(axum_mw::from_fn(move |request: Request, next: Next| {
                json_errors(max_body_bytes, request, next)
            }))
            .layer(CatchPanicLayer::custom(|_panic| {
                let mut response = envelope(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "internal error",
                );
                response
                    .extensions_mut()
                    .insert(ErrorDetail("handler panicked".into()));
                response
            }))
            // axum's extractors have their own 2 MiB default; `--max-body-bytes` is the limit.
            .layer(DefaultBodyLimit::disable()),
    )
}

/// Removes a client's `x-request-id` unless it is 1–64 of `[A-Za-z0-9._-]`, so that the one
/// generated instead goes into the logs, not quotes, spaces or kilobytes of the client's.
fn drop_unfit_request_id<B>(mut request: axum::http::Request<B>) -> axum::http::Request<B> {
    let fit = |id: &[u8]| {
        (1..=64).contains(&id.len())
            && id
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if let Some(id) = request.headers().get("x-request-id")
        && !fit(id.as_bytes())
    {
        request.headers_mut().remove("x-request-id");
    }
    request
}

/// Observes one request's latency, labelled by method, matched route template (never the raw
/// path) and status.
async fn record_http(metrics: Metrics, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .and_then(|path| crate::routes::route_index(path.as_str()));
    let response = next.run(request).await;
    metrics.observe_http(
        method.as_str(),
        route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

fn sanitize_header(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Gives bare error responses the JSON envelope; logs 5xx details once.
async fn json_errors(max_body_bytes: usize, request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if let Some(ErrorDetail(detail)) = response.extensions().get::<ErrorDetail>() {
        tracing::error!(http.status = status.as_u16(), error = %detail, "request failed");
    }
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    let (code, message) = match status {
        StatusCode::NOT_FOUND => ("not_found", "no such route".to_owned()),
        StatusCode::METHOD_NOT_ALLOWED => (
            "method_not_allowed",
            "this route does not take that method".to_owned(),
        ),
        StatusCode::PAYLOAD_TOO_LARGE => (
            "payload_too_large",
            format!("the request body is larger than {max_body_bytes} bytes"),
        ),
        StatusCode::REQUEST_TIMEOUT => ("request_timeout", "the request took too long".to_owned()),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            "unsupported_media_type",
            "unsupported content type".to_owned(),
        ),
        StatusCode::SERVICE_UNAVAILABLE => (
            "overloaded",
            "the server is overloaded or timed out; retry later".to_owned(),
        ),
        status if status.is_server_error() => ("internal", "internal error".to_owned()),
        _ => ("bad_request", bad_request_text(response).await),
    };
    envelope(status, code, &message)
}

/// The text of a framework rejection (path or header parse errors), bounded.
async fn bad_request_text(response: Response) -> String {
    match axum::body::to_bytes(response.into_body(), 4096).await {
        Ok(bytes) if !bytes.is_empty() => String::from_utf8_lossy(&bytes).into_owned(),
        _ => "bad request".to_owned(),
    }
}

/// State of [`evaluate_guard`].
#[derive(Clone)]
struct EvaluateGuard {
    permits: Arc<Semaphore>,
    timeout: Duration,
    state: AppState,
}

/// The layers of `/v1/evaluate` and `/v1/evaluate/{agent}`.
pub fn evaluate_layers<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    limits: &Limits,
    state: &AppState,
) -> Router<S> {
    let guard = EvaluateGuard {
        permits: Arc::new(Semaphore::new(limits.concurrency_limit)),
        timeout: limits.request_timeout,
        state: state.clone(),
    };
    router.layer(axum_mw::from_fn_with_state(guard, evaluate_guard))
}

/// Concurrency limit with shedding and a timeout, for the evaluate routes. The route's
/// [`Dialect`] is read here, once, and handed to the handler as an extension, which answers a
/// bad one (404 `not_found`, 400 `invalid_query`) when the method is routed.
async fn evaluate_guard(
    State(guard): State<EvaluateGuard>,
    request: Request,
    next: Next,
) -> Response {
    let deadline = tokio::time::Instant::now() + guard.timeout;
    let Ok(permit) = guard.permits.clone().try_acquire_owned() else {
        tracing::warn!("evaluate shed: too many requests in flight");
        return tokio::time::timeout_at(deadline, shed(&guard.state, request, deadline))
            .await
            .unwrap_or_else(|_| timed_out());
    };
    // The body is read here, so that an evaluation that runs out of time can still be answered
    // from its own event; the caller is checked while it arrives, so that a request without a
    // valid token gives its permit back at once, and keeps at most 64 KiB of its body, instead
    // of holding both until its body is whole or the deadline passes.
    let (mut parts, body) = request.into_parts();
    let dialect = route_dialect(&parts.uri);
    let mut permit = Some(permit);
    let (checked, read) =
        match check_caller_and_read_body(&guard.state, &parts, body, deadline, &mut permit).await {
            Ok(both) => both,
            Err(response) => return response,
        };
    let ReadBody {
        bytes: body,
        too_large,
    } = read;
    let Some(checked) = checked else {
        // The token lookup did not finish in time: as for an evaluation stuck past the deadline.
        let why = "the evaluation ran out of time";
        return failure_answer(
            &guard.state,
            dialect,
            &body,
            too_large,
            Failure::Timeout,
            why,
        );
    };
    parts.extensions.insert(dialect.clone());
    parts.extensions.insert(Authenticated(checked));
    if too_large {
        parts.extensions.insert(TooLarge);
    }
    let request = Request::from_parts(parts, Body::from(body.clone()));
    // A panic below (outside the engine, which catches its own) would reach `CatchPanic` and be
    // a 500, which the agent takes as "proceed": the event gets the failure decision instead.
    let evaluated = AssertUnwindSafe(next.run(request)).catch_unwind();
    let (failure, why) = match tokio::time::timeout_at(deadline, evaluated).await {
        Ok(Ok(response)) => return response,
        Ok(Err(_)) => {
            tracing::error!("evaluate panicked; answering with the failure decision");
            (Failure::Panic, "the evaluation failed")
        }
        // Stuck past the deadline (an audit that cannot take the row): a 408 would let the
        // agent go ahead, so the event gets the failure decision.
        Err(_) => (Failure::Timeout, "the evaluation ran out of time"),
    };
    failure_answer(&guard.state, dialect, &body, too_large, failure, why)
}

/// The failure decision for an evaluate request that could not be evaluated in time or
/// panicked, decoded from its body; not audited, as whether its own row was written is unknown.
/// A body that is not an event gets a 408 after a timeout and a 500 after a panic.
fn failure_answer(
    state: &AppState,
    dialect: Result<Dialect, ApiError>,
    body: &[u8],
    too_large: bool,
    failure: Failure,
    why: &str,
) -> Response {
    match dialect.and_then(|dialect| decode_read(dialect, body, too_large, state.max_body_bytes)) {
        Ok(read) => {
            state.metrics.observe_failure(failure);
            Json(failure_reply(state.failure, &read.event, why)).into_response()
        }
        Err(_) if failure == Failure::Timeout => timed_out(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// Checks the caller of an evaluate request ([`authenticate`]) while its body is read
/// ([`read_body`]), and returns both once the body is whole: the caller's outcome, or `None`
/// when the lookup did not finish by the deadline. A caller refused (no token, a malformed
/// header, a token no one holds) or one whose token could not be checked is an error the route
/// answers with the failure decision when the body is a hook event; from then on the body is
/// read only up to 64 KiB, and a refused caller's `permit` is given back at once.
async fn check_caller_and_read_body(
    state: &AppState,
    parts: &axum::http::request::Parts,
    body: Body,
    deadline: tokio::time::Instant,
    permit: &mut Option<tokio::sync::OwnedSemaphorePermit>,
) -> Result<(Option<Result<Caller, ApiError>>, ReadBody), Response> {
    let check = tokio::time::timeout_at(deadline, authenticate(state, parts));
    let limit = AtomicUsize::new(state.max_body_bytes);
    let read = read_body(&limit, body, deadline);
    tokio::pin!(check, read);
    let mut checked = None;
    let mut body = None;
    loop {
        tokio::select! {
            outcome = &mut check, if checked.is_none() => match outcome {
                Ok(outcome) => {
                    if let Err(error) = &outcome {
                        if matches!(error, ApiError::Unauthorized(_)) {
                            *permit = None;
                        }
                        limit.fetch_min(unchecked_body_bytes(state), Ordering::Relaxed);
                    }
                    checked = Some(Some(outcome));
                }
                Err(_) => checked = Some(None),
            },
            read = &mut read, if body.is_none() => body = Some(read?),
        }
        (checked, body) = match (checked, body) {
            (Some(checked), Some(body)) => return Ok((checked, body)),
            unfinished => unfinished,
        };
    }
}

/// The dialect an evaluate request speaks: its route's agent, and the event its query names.
fn route_dialect(uri: &Uri) -> Result<Dialect, ApiError> {
    let agent = match uri.path().strip_prefix("/v1/evaluate/") {
        // `/v1/evaluate`, or `/v1/evaluate/` as a hook URL may end.
        None | Some("") => Agent::ClaudeCode,
        // Percent-decoded, as axum's `Path` reads a segment: a client that encodes more than
        // it must (`claude%2Dcode`) names the agent all the same.
        Some(name) => parse_agent(&percent_encoding::percent_decode_str(name).decode_utf8_lossy())?,
    };
    Dialect::of(agent, uri)
}

/// Marks a request whose event is larger than `--max-body-bytes`: its body is the event's head.
#[derive(Debug, Clone, Copy)]
pub struct TooLarge;

/// A request body as [`read_body`] reads it.
struct ReadBody {
    /// The body, or its first `--max-body-bytes` when it is larger.
    bytes: Bytes,
    /// Whether it was larger.
    too_large: bool,
}

/// How much of a body is kept when its answer can only be the unaudited failure decision: enough
/// for the head that names the event (Claude Code sends `hook_event_name` before `tool_input`),
/// not `--max-body-bytes` for every connection of a flood of made-up tokens.
pub const UNCHECKED_BODY_BYTES: usize = 64 * 1024;

fn unchecked_body_bytes(state: &AppState) -> usize {
    UNCHECKED_BODY_BYTES.min(state.max_body_bytes)
}

/// Reads the body up to `limit` (`--max-body-bytes`, lowered while reading when the caller
/// turns out not to be checkable). The rest of a larger body is read to its end and
/// dropped, so that the agent, still writing, does not lose the answer to a reset connection;
/// at the deadline, the head read so far is answered. A body that is not whole by the deadline
/// is a 408 (an answer the agent can do nothing with but proceed; it never saw its event sent).
async fn read_body(
    limit: &AtomicUsize,
    body: Body,
    deadline: tokio::time::Instant,
) -> Result<ReadBody, Response> {
    let mut stream = body.into_data_stream();
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut kept = 0;
    let mut too_large = false;
    loop {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(Ok(chunk))) => chunk,
            Ok(None) => break,
            Ok(Some(Err(error))) => {
                let message = format!("the request body could not be read: {error}");
                return Err(ApiError::bad_request("invalid_body", message).into_response());
            }
            Err(_) if too_large => break,
            Err(_) => return Err(timed_out()),
        };
        let room = limit.load(Ordering::Relaxed).saturating_sub(kept);
        if chunk.len() > room {
            too_large = true;
        }
        if room > 0 {
            let chunk = chunk.slice(..chunk.len().min(room));
            kept += chunk.len();
            chunks.push(chunk);
        }
    }
    let bytes = match chunks.pop() {
        Some(only) if chunks.is_empty() => only,
        Some(last) => {
            chunks.push(last);
            Bytes::from(chunks.concat())
        }
        None => Bytes::new(),
    };
    Ok(ReadBody { bytes, too_large })
}

/// A bare 408; [`json_errors`], outside this layer, gives it the envelope.
fn timed_out() -> Response {
    StatusCode::REQUEST_TIMEOUT.into_response()
}

/// Answers a request shed under load without evaluating it: its event is decoded (in the
/// dialect of the route's agent) and given the failure decision, so an overloaded toolgate fails
/// closed instead of letting the call through. The caller is checked from memory only (no
/// database query); one only the database could check gets the failure decision unrecorded, so
/// that unknown callers cannot write the audit.
async fn shed(state: &AppState, request: Request, deadline: tokio::time::Instant) -> Response {
    let (parts, body) = request.into_parts();
    let dialect = match route_dialect(&parts.uri) {
        Ok(dialect) => dialect,
        Err(error) => return error.into_response(),
    };
    let known = authenticate_in_memory(state, &parts).and_then(|known| match known {
        Known::Caller(caller) => caller.require(Role::Agent).map(|()| Known::Caller(caller)),
        unchecked => Ok(unchecked),
    });
    // Only the unaudited failure decision can answer a caller memory does not know, or refused.
    let limit = match known {
        Ok(Known::Caller(_)) => state.max_body_bytes,
        _ => unchecked_body_bytes(state),
    };
    let read = match read_body(&AtomicUsize::new(limit), body, deadline).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    let event = match decode_read(dialect, &read.bytes, read.too_large, state.max_body_bytes) {
        Ok(read) => read.event,
        Err(error) => return known.err().unwrap_or(error).into_response(),
    };
    let known = match known {
        Ok(known) => known,
        Err(error) => return refused(state, &event, &error),
    };
    state.metrics.observe_failure(Failure::Shed);
    let evaluated = Evaluated::failed(state.failure, &event, "the server is overloaded");
    match known {
        Known::Caller(caller) => {
            let tenant = Some(caller.tenant.as_str());
            answer(&state.audit, state.failure, tenant, &event, evaluated).await
        }
        Known::Unchecked(_) => evaluated.answer.response(),
    }
}

/// The layers of the admin routes.
pub fn admin_layers<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    limits: &Limits,
) -> Router<S> {
    router.layer(
        ServiceBuilder::new()
            .layer(RequestBodyLimitLayer::new(limits.max_body_bytes))
            .layer(HandleErrorLayer::new(|_: tower::BoxError| async {
                envelope(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "overloaded",
                    "the server is overloaded; retry later",
                )
            }))
            .load_shed()
            .concurrency_limit(limits.concurrency_limit)
            .layer(TimeoutLayer::with_status_code(
                StatusCode::SERVICE_UNAVAILABLE,
                limits.request_timeout,
            )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body of `chunks` chunks of 16 KiB, the limit lowered to `lowered` after the first.
    async fn read(chunks: usize, limit: usize, lowered: Option<usize>) -> ReadBody {
        let limit = AtomicUsize::new(limit);
        let limit = &limit;
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(1);
        let body = Body::from_stream(tokio_stream_of(rx));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let send = async move {
            for n in 0..chunks {
                tx.send(Ok(Bytes::from(vec![b'x'; 16 * 1024])))
                    .await
                    .unwrap();
                if n == 0
                    && let Some(lowered) = lowered
                {
                    limit.fetch_min(lowered, Ordering::Relaxed);
                }
            }
        };
        let (read, ()) = tokio::join!(read_body(limit, body, deadline), send);
        read.unwrap_or_else(|_| panic!("read"))
    }

    fn tokio_stream_of<T: Send + 'static>(
        mut rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures_util::Stream<Item = T> + Send + 'static {
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }

    /// A body whose answer can only be the unaudited failure decision keeps its head only, even
    /// when that is known once reading has begun; the rest is read and dropped.
    #[tokio::test]
    async fn a_body_is_kept_to_the_limit_even_one_lowered_while_it_arrives() {
        let whole = read(4, 4 << 20, None).await;
        assert_eq!((whole.bytes.len(), whole.too_large), (64 * 1024, false));
        let capped = read(256, 4 << 20, Some(UNCHECKED_BODY_BYTES)).await;
        assert_eq!(capped.bytes.len(), UNCHECKED_BODY_BYTES);
        assert!(capped.too_large);
        let shed = read(256, UNCHECKED_BODY_BYTES, None).await;
        assert_eq!(
            (shed.bytes.len(), shed.too_large),
            (UNCHECKED_BODY_BYTES, true)
        );
    }
}
