//! `GET /metrics`: every metric in Prometheus' text format. Served on the main listener, or only
//! on the `--metrics-listen` listener when one is given. No token: keep it off public networks.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use crate::error::ApiError;
use crate::state::AppState;

/// The exposition format's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `GET /metrics`.
pub async fn get_metrics(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let text = state
        .metrics
        .encode()
        .map_err(|error| ApiError::Internal(format!("encoding metrics: {error}")))?;
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], text))
}
