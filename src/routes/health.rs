//! `GET /healthz` (the process is alive) and `GET /readyz` (a policy snapshot is loaded, and
//! the server is not stopping).

use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde_json::json;

use crate::state::AppState;

/// `GET /healthz`: always 200 `{"status":"ok"}`.
pub async fn get_health() -> impl IntoResponse {
    Json(json!({"status": "ok"}))
}

/// `GET /readyz`: 503 until the first policy snapshot is loaded (from the database or the
/// cache); then 200 with `status` `ready`, or `degraded` while the database is away; 503
/// `stopping` once the server was told to stop (it still serves for `--shutdown-delay`).
pub async fn get_readiness(State(state): State<AppState>) -> impl IntoResponse {
    let database = if state.store.database_up() {
        "up"
    } else {
        "down"
    };
    if state.stopping.load(Ordering::Relaxed) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "stopping", "database": database})),
        );
    }
    if !state.store.is_loaded() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "starting", "database": database})),
        );
    }
    let status = if state.store.database_up() {
        "ready"
    } else {
        "degraded"
    };
    (
        StatusCode::OK,
        Json(json!({
            "status": status,
            "database": database,
            "policies": state.store.snapshot().len(),
            "unserved": state.store.unserved().len(),
            "replica_id": state.replica_id,
        })),
    )
}
