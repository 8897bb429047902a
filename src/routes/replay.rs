//! `POST /v1/tenants/{tenant}/replay`: what a candidate bundle would have decided on the tenant's
//! audited events ([`crate::audit::replay`]), for an admin of the tenant. Nothing is stored.
//!
//! A replay evaluates up to [`MAX_LIMIT`] events twice each on the blocking pool, a page at a
//! time; one runs at a time on a replica (another gets 429), so that replays cannot crowd out the
//! evaluations it serves. The work holds that permit, not the request: a request that goes away
//! stops its replay within a row. `toolgate audit replay` does the same from the command line,
//! for larger windows.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use toolgate_engine::{Bundle, CompiledPolicy};

use super::audit::parse_time;
use super::bundles::{authorize, bundle_errors, bundle_text};
use super::page::{count, only_known};
use crate::audit::replay::{self, Replay};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;

/// Rows replayed when `limit` is not given.
pub const DEFAULT_LIMIT: u64 = 10_000;
/// Most rows one request replays.
pub const MAX_LIMIT: u64 = 20_000;
/// Changed rows listed when `show` is not given.
pub const DEFAULT_SHOW: usize = 50;
/// Most changed rows one answer lists.
pub const MAX_SHOW: usize = 200;

const PARAMETERS: [&str; 4] = ["since", "until", "limit", "show"];

/// Stops a replay whose request went away (the client left, or the request timed out).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `POST /v1/tenants/{tenant}/replay`: the report of [`replay::report_json`].
pub async fn replay_bundle(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    authorize(&caller, &tenant)?;
    only_known(&params, &PARAMETERS)?;
    let get = |name: &str| params.get(name);
    let since = get("since").map(|v| parse_time("since", v)).transpose()?;
    let until = get("until").map(|v| parse_time("until", v)).transpose()?;
    let limit = count(&params, "limit", DEFAULT_LIMIT, MAX_LIMIT)?;
    let show = count(&params, "show", DEFAULT_SHOW, MAX_SHOW)?;
    let (text, format) = bundle_text(state.max_body_bytes, &headers, body)?;
    let candidate = tokio::task::spawn_blocking(move || {
        Bundle::parse(&text, format).and_then(|bundle| CompiledPolicy::compile(&bundle))
    })
    .await
    .map_err(|error| ApiError::Internal(format!("bundle compile task failed: {error}")))?
    .map_err(|errors| bundle_errors(errors, "nothing was replayed"))?;
    // The permit goes with the work: a request that goes away stops its replay within a row,
    // and the next one waits until it has.
    let permit = Arc::clone(&state.replays)
        .try_acquire_owned()
        .map_err(|_| {
            ApiError::Busy("a replay is running on this replica; retry when it is done".to_owned())
        })?;
    let replay = Replay {
        tenant,
        candidate: Arc::new(candidate),
        since: Some(since.unwrap_or_else(|| chrono::Utc::now() - chrono::Duration::days(7))),
        until,
        limit,
        show,
    };
    let cancel = Arc::new(AtomicBool::new(false));
    let _cancel = CancelOnDrop(Arc::clone(&cancel));
    let database = state.pool.clone();
    let task = tokio::spawn(async move {
        let _permit = permit;
        replay::run(&database, &replay, &cancel).await
    });
    let report = task
        .await
        .map_err(|error| ApiError::Internal(format!("replay task failed: {error}")))??;
    Ok(Json(replay::report_json(&report)))
}
