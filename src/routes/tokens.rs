//! The admin API's tokens: an admin of a tenant makes, lists and revokes the tenant's tokens
//! (an admin of `global`, every tenant's), so that a security team with no access to the
//! database can give a new team its agent tokens and take back one that leaked.
//!
//! A token made here is answered once, in the `201` body (with `Cache-Control: no-store`), and
//! stored only as its hash, with the id of the token that made it (`created_by`). A revocation
//! records the token that made it (`revoked_by`) and is announced to every replica
//! (PostgreSQL's `NOTIFY`); this replica reads the tokens again before it answers, so that the
//! revoked token is refused here from the answer on.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::bundles::{authorize, authorize_write, parse_row_id};
use super::evaluate::body_rejection;
use crate::auth::{Caller, Role, generate_token, hash_token};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{NewToken, TokenListing};

/// Longest `description`, in characters.
pub const MAX_DESCRIPTION: usize = 256;

/// The members of a `POST /v1/tenants/{tenant}/tokens` body.
const MEMBERS: [&str; 4] = ["role", "description", "expires_in", "expires_at"];

/// A 400 `invalid_token_request` with `message`.
fn invalid(message: String) -> ApiError {
    ApiError::bad_request("invalid_token_request", message)
}

/// What a `POST /v1/tenants/{tenant}/tokens` body asks for.
#[derive(Debug, PartialEq)]
struct TokenRequest {
    role: Role,
    description: Option<String>,
    expires_at: Option<DateTime<Utc>>,
}

/// The latest a new token may expire, and what sets it.
#[derive(Debug, Clone, Copy)]
struct Latest {
    at: DateTime<Utc>,
    because: &'static str,
}

impl Latest {
    /// The earlier of `now` + `--token-max-lifetime` and the expiry of the token making it: a
    /// token made through the API never outlives either, so a leaked admin token that expires
    /// tomorrow cannot make one that lives for ever.
    fn of(
        now: DateTime<Utc>,
        max_lifetime: Option<std::time::Duration>,
        maker_expires: Option<DateTime<Utc>>,
    ) -> Option<Self> {
        let server = max_lifetime
            .and_then(|max| chrono::Duration::from_std(max).ok())
            .and_then(|max| now.checked_add_signed(max))
            .map(|at| Latest {
                at,
                because: "this server's longest token lifetime (`--token-max-lifetime`)",
            });
        let maker = maker_expires.map(|at| Latest {
            at,
            because: "the expiry of the token making it",
        });
        match (server, maker) {
            (Some(server), Some(maker)) if maker.at < server.at => Some(maker),
            (server, maker) => server.or(maker),
        }
    }
}

impl TokenRequest {
    /// Reads a body, naming the member that is wrong and how; `now` is when an `expires_in`
    /// counts from, and `latest` the latest a token may expire: a token asked for without an
    /// expiry expires then.
    fn parse(body: &[u8], now: DateTime<Utc>, latest: Option<Latest>) -> Result<Self, ApiError> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|error| ApiError::bad_request("invalid_body", format!("not JSON: {error}")))?;
        let Value::Object(members) = value else {
            return Err(invalid(
                "the body must be a JSON object such as {\"role\": \"agent\"}".to_owned(),
            ));
        };
        if let Some(unknown) = members.keys().find(|key| !MEMBERS.contains(&key.as_str())) {
            return Err(invalid(format!(
                "unknown member `{}` (known: {})",
                unknown.escape_debug(),
                MEMBERS.join(", ")
            )));
        }
        let text = |name: &str| -> Result<Option<&str>, ApiError> {
            match members.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(text)),
                Some(_) => Err(invalid(format!("`{name}` must be a string"))),
            }
        };
        let role = text("role")?
            .ok_or_else(|| invalid("`role` is required: `agent`, `admin` or `auditor`".into()))?;
        let role = Role::parse(role).ok_or_else(|| {
            invalid(format!(
                "`role` must be `agent`, `admin` or `auditor`; got `{}`",
                role.escape_debug()
            ))
        })?;
        let description = text("description")?.map(str::to_owned);
        if let Some(description) = &description {
            if description.chars().count() > MAX_DESCRIPTION {
                return Err(invalid(format!(
                    "`description` is longer than {MAX_DESCRIPTION} characters"
                )));
            }
            if description.chars().any(char::is_control) {
                return Err(invalid(
                    "`description` must not hold control characters".to_owned(),
                ));
            }
        }
        let (member, expires_at) = match (text("expires_in")?, text("expires_at")?) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "give `expires_in` or `expires_at`, not both".to_owned(),
                ));
            }
            (Some(after), None) => ("expires_in", Some(expires_after(after, now)?)),
            (None, Some(at)) => ("expires_at", Some(expires_at(at, now)?)),
            (None, None) => ("", latest.map(|latest| latest.at)),
        };
        if let (Some(at), Some(latest)) = (expires_at, latest)
            && at > latest.at
        {
            return Err(invalid(format!(
                "`{member}` asks for a token that lives past {}: it may expire at {} at the \
                 latest",
                latest.because,
                latest.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )));
        }
        Ok(TokenRequest {
            role,
            description,
            expires_at,
        })
    }
}

/// `expires_in`: an age with its unit ([`crate::config::parse_age`]) from `now`.
fn expires_after(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, ApiError> {
    let age =
        crate::config::parse_age(text).map_err(|why| invalid(format!("`expires_in`: {why}")))?;
    chrono::Duration::from_std(age)
        .ok()
        .and_then(|age| now.checked_add_signed(age))
        .filter(|at| at.timestamp() < MAX_EXPIRY_SECONDS)
        .ok_or_else(|| {
            invalid(format!(
                "`expires_in` `{}` is too long",
                text.escape_debug()
            ))
        })
}

/// `expires_at`: an RFC 3339 time after `now`.
fn expires_at(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, ApiError> {
    let at = DateTime::parse_from_rfc3339(text)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|_| {
            invalid(format!(
                "`expires_at` must be an RFC 3339 time such as `2027-01-31T00:00:00Z`; got `{}`",
                text.escape_debug()
            ))
        })?;
    if at <= now {
        return Err(invalid(format!(
            "`expires_at` {} is not in the future",
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )));
    }
    if at.timestamp() >= MAX_EXPIRY_SECONDS {
        return Err(invalid("`expires_at` is after the year 9999".to_owned()));
    }
    Ok(at)
}

/// The first second of the year 10000: both stores keep times before it.
const MAX_EXPIRY_SECONDS: i64 = 253_402_300_800;

/// A token as the API lists it: never its hash.
fn listing_json(token: &TokenListing) -> Value {
    let time = |at: &DateTime<Utc>| at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    json!({
        "id": token.id,
        "prefix": token.prefix,
        "role": token.role,
        "tenant": token.tenant,
        "description": token.description,
        "created_at": time(&token.created_at),
        "created_by": token.created_by,
        "expires_at": token.expires_at.as_ref().map(time),
        "revoked_at": token.revoked_at.as_ref().map(time),
        "revoked_by": token.revoked_by,
    })
}

/// `POST /v1/tenants/{tenant}/tokens`: a new token of the tenant, shown in this answer only.
pub async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    authorize(&caller, &tenant)?;
    let body = body.map_err(|rejection| body_rejection(state.max_body_bytes, rejection))?;
    let now = Utc::now();
    let latest = Latest::of(now, state.token_max_lifetime, caller.expires_at);
    let request = TokenRequest::parse(&body, now, latest)?;
    let token = generate_token()
        .map_err(|error| ApiError::Internal(format!("no randomness for a token: {error}")))?;
    let hash = hash_token(&token);
    let prefix: String = token.chars().take(10).collect();
    let created = state
        .pool
        .insert_token(NewToken {
            description: request.description.as_deref(),
            expires_at: request.expires_at,
            created_by: caller.token_id,
            ..NewToken::new(&hash, &prefix, request.role.as_str(), &tenant)
        })
        .await?;
    let Some(created) = created else {
        // The caller's token was revoked and this replica has not read the tokens since: it
        // does now, and the caller is refused as a revoked token is.
        state.reloader.reload_tokens().await;
        return Err(ApiError::Unauthorized("unknown or revoked token".into()));
    };
    tracing::info!(
        tenant = %tenant,
        token.id = created.id,
        token.role = %request.role,
        created_by = caller.token_id,
        "token created"
    );
    let mut body = listing_json(&created);
    if let Value::Object(members) = &mut body {
        members.insert("token".into(), Value::String(token));
    }
    Ok((
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(body),
    )
        .into_response())
}

/// `GET /v1/tenants/{tenant}/tokens`: the tenant's tokens, oldest first, revoked and expired
/// ones too; never a token or its hash.
pub async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
    Path(tenant): Path<String>,
) -> Result<Json<Value>, ApiError> {
    authorize(&caller, &tenant)?;
    let tokens = state.pool.list_tokens(Some(&tenant)).await?;
    let tokens: Vec<Value> = tokens.iter().map(listing_json).collect();
    Ok(Json(json!({"tenant": tenant, "tokens": tokens})))
}

/// `POST /v1/tenants/{tenant}/tokens/{id}/revoke`: revokes one of the tenant's tokens. 404 for
/// an id that is no active token of the tenant (another tenant's token is not found here).
pub async fn revoke_token(
    State(state): State<AppState>,
    caller: Caller,
    Path((tenant, id)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    authorize_write(&state, &caller, &tenant).await?;
    let id = parse_row_id(
        &id,
        "invalid_token_id",
        &format!("a token id is an integer (`GET /v1/tenants/{tenant}/tokens` lists them)"),
    )?;
    if !state
        .pool
        .revoke_token(id, Some(&tenant), caller.token_id)
        .await?
    {
        return Err(ApiError::NotFound(format!(
            "tenant `{tenant}` has no active token {id}"
        )));
    }
    state.reloader.reload_tokens().await;
    tracing::info!(tenant = %tenant, token.id = id, revoked_by = caller.token_id, "token revoked");
    Ok(Json(json!({"tenant": tenant, "id": id, "revoked": true})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-25T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    fn parse(body: &str) -> Result<TokenRequest, String> {
        TokenRequest::parse(body.as_bytes(), now(), None).map_err(|error| error.to_string())
    }

    /// With `--token-max-lifetime 90d`: no expiry is 90 days, more is refused, less is kept.
    #[test]
    fn the_longest_lifetime_is_the_default_and_the_limit() {
        let max = Some(std::time::Duration::from_secs(90 * 24 * 3600));
        let latest = Latest::of(now(), max, None);
        let parse = |body: &str| {
            TokenRequest::parse(body.as_bytes(), now(), latest).map_err(|error| error.to_string())
        };
        let request = parse(r#"{"role":"agent"}"#).unwrap();
        assert_eq!(request.expires_at, Some(now() + chrono::Duration::days(90)));
        let request = parse(r#"{"role":"agent","expires_in":"90d"}"#).unwrap();
        assert_eq!(request.expires_at, Some(now() + chrono::Duration::days(90)));
        let request = parse(r#"{"role":"agent","expires_in":"1h"}"#).unwrap();
        assert_eq!(request.expires_at, Some(now() + chrono::Duration::hours(1)));
        let error = parse(r#"{"role":"agent","expires_in":"91d"}"#).unwrap_err();
        assert!(
            error.contains("`expires_in`") && error.contains("2027-02-23T00:00:00Z"),
            "{error}"
        );
        let error = parse(r#"{"role":"agent","expires_at":"2030-01-01T00:00:00Z"}"#).unwrap_err();
        assert!(
            error.contains("`expires_at`") && error.contains("--token-max-lifetime"),
            "{error}"
        );
    }

    /// The earlier limit wins: a maker expiring in 10 days under a 90-day server limit caps its
    /// tokens at 10 days, and one expiring in a year leaves the server's 90.
    #[test]
    fn a_token_made_never_outlives_its_maker() {
        let max = Some(std::time::Duration::from_secs(90 * 24 * 3600));
        let soon = now() + chrono::Duration::days(10);
        let latest = Latest::of(now(), max, Some(soon)).unwrap();
        assert_eq!(latest.at, soon);
        let request = TokenRequest::parse(br#"{"role":"admin"}"#, now(), Some(latest)).unwrap();
        assert_eq!(request.expires_at, Some(soon));
        let error = TokenRequest::parse(
            br#"{"role":"admin","expires_in":"30d"}"#,
            now(),
            Some(latest),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("the expiry of the token making it"),
            "{error}"
        );
        let later = now() + chrono::Duration::days(365);
        let latest = Latest::of(now(), max, Some(later)).unwrap();
        assert_eq!(latest.at, now() + chrono::Duration::days(90));
        assert_eq!(Latest::of(now(), None, Some(later)).unwrap().at, later);
        assert!(Latest::of(now(), None, None).is_none());
    }

    #[test]
    fn a_request_names_a_role_and_may_say_when_it_expires() {
        assert_eq!(
            parse(r#"{"role":"agent"}"#).unwrap(),
            TokenRequest {
                role: Role::Agent,
                description: None,
                expires_at: None
            }
        );
        let request = parse(r#"{"role":"auditor","description":"ci","expires_in":"90d"}"#).unwrap();
        assert_eq!(request.description.as_deref(), Some("ci"));
        assert_eq!(request.expires_at, Some(now() + chrono::Duration::days(90)));
        let request =
            parse(r#"{"role":"admin","expires_at":"2027-01-31T00:00:00+01:00"}"#).unwrap();
        assert_eq!(
            request.expires_at.unwrap().to_rfc3339(),
            "2027-01-30T23:00:00+00:00"
        );
    }

    #[test]
    fn each_wrong_member_is_named() {
        let long = "x".repeat(MAX_DESCRIPTION + 1);
        let cases: [(&str, &str); 12] = [
            ("[]", "JSON object"),
            ("{", "not JSON"),
            ("{}", "`role` is required"),
            (r#"{"role":"root"}"#, "got `root`"),
            (r#"{"role":1}"#, "`role` must be a string"),
            (
                r#"{"role":"agent","tenant":"x"}"#,
                "unknown member `tenant`",
            ),
            (r#"{"role":"agent","expires_in":"90"}"#, "has no unit"),
            (
                r#"{"role":"agent","expires_in":"1d","expires_at":"2027-01-01T00:00:00Z"}"#,
                "not both",
            ),
            (
                r#"{"role":"agent","expires_at":"2026-01-01T00:00:00Z"}"#,
                "not in the future",
            ),
            (r#"{"role":"agent","expires_at":"tomorrow"}"#, "RFC 3339"),
            (
                r#"{"role":"agent","expires_in":"999999999999d"}"#,
                "too long",
            ),
            (r#"{"role":"agent","description":"a\u0007b"}"#, "control"),
        ];
        for (body, expected) in cases {
            let error = parse(body).unwrap_err();
            assert!(error.contains(expected), "{body}: {error}");
        }
        let error = parse(&format!(r#"{{"role":"agent","description":"{long}"}}"#)).unwrap_err();
        assert!(error.contains("longer than 256"), "{error}");
    }
}
