//! The admin API: bundles, activations, rollback and the live policy of a tenant.
//!
//! Every handler needs an `admin` token of the tenant in the path, or of `global`. A pushed bundle
//! is parsed, validated, compiled and its own tests run before anything is stored; a bundle that
//! fails any of these is answered 422 with every error, and nothing is stored. Writes that cannot
//! reach the database answer 503 `database_unavailable` within the pool's acquire timeout.

use axum::Json;
use axum::body::Bytes;
use std::collections::HashMap;

use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use toolgate_engine::bundle::{Format, Severity};
use toolgate_engine::{Bundle, BundleErrors, CompiledPolicy};

use crate::auth::{Caller, Role, parse_tenant};
use crate::error::{ApiError, ErrorItem};
use crate::routes::evaluate::body_rejection;
use crate::routes::page;
use crate::state::AppState;
use crate::store::{ActivateError, Activation, BundleSummary, is_unavailable};

pub(crate) fn authorize(caller: &Caller, tenant: &str) -> Result<(), ApiError> {
    parse_tenant(tenant)?;
    caller.require(Role::Admin)?;
    caller.require_tenant(tenant)
}

/// [`authorize`], for a route that changes what is stored, and the caller's token still active
/// in the database: a replica accepts a revoked token until it reads the tokens again (at once
/// on the `NOTIFY`, at its next poll when it missed it), and a leaked admin token must not push
/// or activate a bundle, nor revoke a token, once its revocation has committed. A token found
/// revoked makes this replica read the tokens again; the caller gets the 401 of a revoked token.
pub(crate) async fn authorize_write(
    state: &AppState,
    caller: &Caller,
    tenant: &str,
) -> Result<(), ApiError> {
    authorize(caller, tenant)?;
    if let Some(id) = caller.token_id
        && !state.pool.token_is_active(id).await?
    {
        state.reloader.reload_tokens().await;
        return Err(ApiError::Unauthorized("unknown or revoked token".into()));
    }
    Ok(())
}

/// The `{id}` of a bundle route: an integer (the ids `bundle list` shows), else a 400 that
/// says so, not the extractor's "cannot parse value at index 1".
fn parse_bundle_id(id: &str) -> Result<i64, ApiError> {
    parse_row_id(
        id,
        "invalid_bundle_id",
        "a bundle id is an integer (`toolgate bundle list` shows them)",
    )
}

/// The `{id}` of a route: an integer, else a 400 `code` saying `what` and showing (the first 64
/// characters of) what was given.
pub(crate) fn parse_row_id(id: &str, code: &'static str, what: &str) -> Result<i64, ApiError> {
    id.parse().map_err(|_| {
        let shown: String = id.chars().take(64).collect();
        ApiError::bad_request(code, format!("{what}; got `{}`", shown.escape_debug()))
    })
}

fn invalid_bundle(errors: BundleErrors) -> ApiError {
    bundle_errors(errors, "nothing was stored")
}

/// 422 `invalid_bundle` listing `errors`, its message ending with what came of it.
pub(crate) fn bundle_errors(errors: BundleErrors, consequence: &str) -> ApiError {
    let count = errors.errors.len();
    ApiError::InvalidBundle {
        code: "invalid_bundle",
        message: format!(
            "the bundle has {count} error{}; {consequence}",
            if count == 1 { "" } else { "s" }
        ),
        errors: errors
            .errors
            .into_iter()
            .map(|error| ErrorItem {
                location: error.location,
                message: error.message,
            })
            .collect(),
    }
}

impl From<ActivateError> for ApiError {
    fn from(error: ActivateError) -> Self {
        match error {
            ActivateError::NoSuchBundle { .. } => ApiError::NotFound(error.to_string()),
            ActivateError::NothingToRollBack => ApiError::Conflict(error.to_string()),
            ActivateError::Database(error) => error.into(),
        }
    }
}

/// Where in `value` a string or key holds U+0000, which PostgreSQL cannot store (JSON allows it
/// as `\u0000`).
fn nul_location(value: &Value, at: &str) -> Option<String> {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match value {
        Value::String(text) => text.contains('\0').then(|| at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_location(item, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            let location = join(&key.escape_debug().to_string());
            if key.contains('\0') {
                Some(location)
            } else {
                nul_location(item, &location)
            }
        }),
        _ => None,
    }
}

/// Loads, compiles and tests a bundle text. CPU-bound: run it on a blocking thread.
fn check_bundle(text: &str, format: Format) -> Result<(Bundle, usize), ApiError> {
    let bundle = Bundle::parse(text, format).map_err(|mut errors| {
        // YAML sent without its content type (curl's `--data-binary @policy.yaml` says
        // form data) is read as JSON: the error says how to send it.
        let looks_like_json = text.trim_start().starts_with(['{', '[']);
        if let (Format::Json, false, [error]) = (format, looks_like_json, &mut errors.errors[..])
            && error.location == "document"
            && error.message.starts_with("is not valid JSON")
        {
            error
                .message
                .push_str("; a YAML bundle is sent with `Content-Type: application/yaml`");
        }
        invalid_bundle(errors)
    })?;
    if let Some(location) = nul_location(&bundle.document, "") {
        return Err(ApiError::InvalidBundle {
            code: "invalid_bundle",
            message: "the bundle has 1 error; nothing was stored".to_owned(),
            errors: vec![ErrorItem {
                location,
                message: "contains the character U+0000, which cannot be stored".to_owned(),
            }],
        });
    }
    let compiled = CompiledPolicy::compile(&bundle).map_err(invalid_bundle)?;
    let report = compiled.run_tests();
    if !report.failures.is_empty() {
        let failed = report.failures.len();
        return Err(ApiError::InvalidBundle {
            code: "bundle_tests_failed",
            message: format!(
                "{failed} of the bundle's {} tests failed; nothing was stored",
                failed + report.passed
            ),
            errors: report
                .failures
                .into_iter()
                .map(|failure| ErrorItem {
                    location: failure.location,
                    message: failure.message,
                })
                .collect(),
        });
    }
    Ok((bundle, report.passed))
}

/// A request's bundle: its text and, by its content type, its format.
pub(crate) fn bundle_text(
    max_body_bytes: usize,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(String, Format), ApiError> {
    let body = body.map_err(|rejection| body_rejection(max_body_bytes, rejection))?;
    let text = String::from_utf8(body.to_vec()).map_err(|_| {
        ApiError::bad_request(
            "invalid_body",
            "the bundle must be UTF-8 text (JSON or YAML)",
        )
    })?;
    Ok((text, format_of(headers)))
}

fn format_of(headers: &HeaderMap) -> Format {
    let yaml = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.contains("yaml"));
    if yaml { Format::Yaml } else { Format::Json }
}

/// `POST /v1/tenants/{tenant}/bundles`: 201 for a new bundle, 200 for identical content pushed
/// again (the existing bundle), 422 with every error.
pub async fn create_bundle(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    authorize_write(&state, &caller, &tenant).await?;
    let (text, format) = bundle_text(state.max_body_bytes, &headers, body)?;
    let (bundle, tests_passed) = tokio::task::spawn_blocking(move || check_bundle(&text, format))
        .await
        .map_err(|error| ApiError::Internal(format!("bundle check task failed: {error}")))??;
    let sha256 = bundle.sha256();
    let (summary, created) = state
        .pool
        .insert_bundle(
            &tenant,
            &bundle.name,
            &sha256,
            &bundle.document,
            caller.token_id,
        )
        .await?;
    tracing::info!(tenant = %tenant, bundle.id = summary.id, bundle.sha256 = %sha256, created, "bundle pushed");
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut body = serde_json::to_value(&summary)
        .map_err(|error| ApiError::Internal(format!("serialising a bundle: {error}")))?;
    if let Value::Object(map) = &mut body {
        map.insert("created".into(), json!(created));
        // `warnings`, as before findings had severities: the rules that do nothing or look
        // wrong, as text; `findings` has every finding with its severity and code.
        let warnings: Vec<&str> = bundle
            .findings
            .iter()
            .filter(|finding| finding.severity != Severity::Note)
            .map(|finding| finding.message.as_str())
            .collect();
        map.insert("warnings".into(), json!(warnings));
        map.insert("findings".into(), json!(bundle.findings));
        map.insert("tests_passed".into(), json!(tests_passed));
    }
    Ok((status, Json(body)).into_response())
}

/// The parameters of `GET /v1/tenants/{tenant}/bundles`.
const LIST_PARAMETERS: [&str; 2] = ["limit", "cursor"];

/// `GET /v1/tenants/{tenant}/bundles`: the tenant's bundles, newest first, a page of `limit`
/// at a time; `next_cursor` is the next page's `cursor` (`bundles:<id>`), `null` on the last.
pub async fn list_bundles(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    authorize(&caller, &tenant)?;
    let Query(params) = query.map_err(|rejection| page::invalid(rejection.body_text()))?;
    page::only_known(&params, &LIST_PARAMETERS)?;
    let (bundles, next_cursor) = page::newest_first(
        &params,
        "bundles",
        |bundle: &BundleSummary| bundle.id,
        |before, limit| state.pool.list_bundles(&tenant, before, limit),
    )
    .await?;
    Ok(Json(
        json!({"tenant": tenant, "bundles": bundles, "next_cursor": next_cursor}),
    ))
}

/// `GET /v1/tenants/{tenant}/activations`: which bundle went live when and by whom, rollbacks
/// included, newest first, a page at a time as the bundles are (cursor `activations:<id>`).
/// For the tenant's admins and auditors: it is the record of how the policy changed.
pub async fn list_activations(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    parse_tenant(&tenant)?;
    caller.require_reader()?;
    caller.require_tenant(&tenant)?;
    let Query(params) = query.map_err(|rejection| page::invalid(rejection.body_text()))?;
    page::only_known(&params, &LIST_PARAMETERS)?;
    let (activations, next_cursor) = page::newest_first(
        &params,
        "activations",
        |activation: &Activation| activation.id,
        |before, limit| state.pool.list_activations(&tenant, before, limit),
    )
    .await?;
    Ok(Json(
        json!({"tenant": tenant, "activations": activations, "next_cursor": next_cursor}),
    ))
}

/// `GET /v1/tenants/{tenant}/bundles/{id}`: one bundle with its document.
pub async fn get_bundle(
    State(state): State<AppState>,
    caller: Caller,
    Path((tenant, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    authorize(&caller, &tenant)?;
    let id = parse_bundle_id(&id)?;
    let stored = state.pool.get_bundle(&tenant, id).await?.ok_or_else(|| {
        ApiError::NotFound(format!("bundle {id} does not exist in tenant `{tenant}`"))
    })?;
    let mut body = serde_json::to_value(&stored.summary)
        .map_err(|error| ApiError::Internal(format!("serialising a bundle: {error}")))?;
    if let Value::Object(map) = &mut body {
        map.insert("document".into(), stored.document);
    }
    Ok(Json(body))
}

/// `POST /v1/tenants/{tenant}/bundles/{id}/activate`: makes the bundle live on every replica
/// (PostgreSQL: through `NOTIFY`; the embedded store: reloaded here before the answer).
pub async fn activate_bundle(
    State(state): State<AppState>,
    caller: Caller,
    Path((tenant, id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    authorize_write(&state, &caller, &tenant).await?;
    let id = parse_bundle_id(&id)?;
    let (activation, created) = state.pool.activate(&tenant, id, caller.token_id).await?;
    if created {
        state.reloader.reload_after_commit(&tenant).await;
    }
    tracing::info!(tenant = %tenant, bundle.id = id, activation.id = activation.id, created, "bundle activated");
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(activation)).into_response())
}

/// `POST /v1/tenants/{tenant}/rollback`: makes the previously live bundle live again.
pub async fn rollback_policy(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
) -> Result<Response, ApiError> {
    authorize_write(&state, &caller, &tenant).await?;
    let activation = state.pool.rollback(&tenant, caller.token_id).await?;
    state.reloader.reload_after_commit(&tenant).await;
    tracing::info!(tenant = %tenant, bundle.id = activation.bundle_id, activation.id = activation.id, "policy rolled back");
    Ok((StatusCode::CREATED, Json(activation)).into_response())
}

/// `GET /v1/tenants/{tenant}/policy`: the live bundle in the database (`live`) and the one this
/// replica serves (`served`). While the database is away `live` is `null` and `database` is
/// `down`.
pub async fn get_policy(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
) -> Result<Json<Value>, ApiError> {
    authorize(&caller, &tenant)?;
    let (live, database) = match state.pool.live_activation(&tenant).await {
        Ok(live) => (live, "up"),
        Err(error) if is_unavailable(&error) => (None, "down"),
        Err(error) => return Err(error.into()),
    };
    let served = state.store.snapshot().get(&tenant).map(|policy| {
        json!({
            "activation_id": policy.row.activation_id,
            "bundle_id": policy.row.bundle_id,
            "name": policy.row.name,
            "sha256": policy.row.sha256,
            "activated_at": policy.row.activated_at,
            "loaded_at": policy.loaded_at,
        })
    });
    Ok(Json(json!({
        "tenant": tenant,
        "live": live,
        "served": served,
        "database": database,
        "replica_id": state.replica_id,
    })))
}
