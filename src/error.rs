//! The one error type of the HTTP API and its JSON envelope.
//!
//! Every error answer is `{"error":{"code","message"}}` (a 422 for a bundle also carries the
//! `errors` list). 5xx bodies are generic: the detail is put into the response extensions as an
//! [`ErrorDetail`] and logged once by the middleware, never sent to the client.
//!
//! This module must not be used by `/v1/evaluate` for internal failures: those are answered with
//! the configured failure decision (see `routes::evaluate`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

/// One error location and message, as listed in a 422 body.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorItem {
    /// Where in the document.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

/// The internal detail of a 5xx answer, logged by middleware and never sent to the client.
#[derive(Debug, Clone)]
pub struct ErrorDetail(pub String);

/// An error answer of the HTTP API.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed (400).
    #[error("{message}")]
    BadRequest {
        /// The machine-readable code (`invalid_event`, `invalid_tenant`, …).
        code: &'static str,
        /// The human-readable message.
        message: String,
    },
    /// No valid credentials (401).
    #[error("{0}")]
    Unauthorized(String),
    /// Valid credentials without the right to do this (403).
    #[error("{0}")]
    Forbidden(String),
    /// Nothing there (404).
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with the current state (409).
    #[error("{0}")]
    Conflict(String),
    /// The body is larger than the configured limit (413).
    #[error("the request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    /// The bundle does not load, compile or pass its own tests (422).
    #[error("{message}")]
    InvalidBundle {
        /// `invalid_bundle` or `bundle_tests_failed`.
        code: &'static str,
        /// A summary.
        message: String,
        /// Every error found.
        errors: Vec<ErrorItem>,
    },
    /// Work of which one runs at a time is running (429).
    #[error("{0}")]
    Busy(String),
    /// The database cannot be reached (503).
    #[error("the database is unavailable")]
    DatabaseUnavailable(String),
    /// Too many requests in flight (503).
    #[error("the server is overloaded")]
    Overloaded,
    /// Anything else (500).
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    /// A 400 with a code and message.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::BadRequest {
            code,
            message: message.into(),
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::InvalidBundle { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::DatabaseUnavailable(_) | Self::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadRequest { code, .. } | Self::InvalidBundle { code, .. } => code,
            Self::Unauthorized(_) => "unauthorized",
            Self::Forbidden(_) => "forbidden",
            Self::NotFound(_) => "not_found",
            Self::Conflict(_) => "conflict",
            Self::Busy(_) => "busy",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::DatabaseUnavailable(_) => "database_unavailable",
            Self::Overloaded => "overloaded",
            Self::Internal(_) => "internal",
        }
    }

    /// The message sent to the client: generic for 5xx.
    fn public_message(&self) -> String {
        match self {
            Self::DatabaseUnavailable(_) => {
                "the database is unavailable; bundle changes cannot be made right now, evaluation \
                 continues from the live policy"
                    .to_owned()
            }
            Self::Overloaded => "the server is overloaded; retry later".to_owned(),
            Self::Internal(_) => "internal error".to_owned(),
            other => other.to_string(),
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(error: sqlx::Error) -> Self {
        if crate::store::is_unavailable(&error) {
            Self::DatabaseUnavailable(error.to_string())
        } else {
            Self::Internal(format!("database error: {error}"))
        }
    }
}

/// The JSON envelope for a status, a code and a message.
pub fn envelope(status: StatusCode, code: &str, message: &str) -> Response {
    let mut response = (
        status,
        axum::Json(json!({"error": {"code": code, "message": message}})),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = self.public_message();
        let mut response = match &self {
            Self::InvalidBundle { code, errors, .. } => (
                status,
                axum::Json(json!({
                    "error": {"code": code, "message": message},
                    "errors": errors,
                })),
            )
                .into_response(),
            _ => envelope(status, self.code(), &message),
        };
        match self {
            Self::DatabaseUnavailable(detail) | Self::Internal(detail) => {
                response.extensions_mut().insert(ErrorDetail(detail));
            }
            _ => {}
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_do_not_leak_their_detail() {
        let response = ApiError::Internal("secret detail".into()).into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let detail = response.extensions().get::<ErrorDetail>();
        assert_eq!(detail.map(|d| d.0.as_str()), Some("secret detail"));
    }

    #[test]
    fn unauthorized_carries_www_authenticate() {
        let response = ApiError::Unauthorized("missing token".into()).into_response();
        assert_eq!(
            response.headers().get(header::WWW_AUTHENTICATE),
            Some(&HeaderValue::from_static("Bearer"))
        );
    }
}
