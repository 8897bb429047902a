//! `GET /v1/audit`: the audit log for auditors and admins, newest first, with keyset pagination
//! (`cursor`), or the whole filtered log streamed as JSON Lines (`format=jsonl`).
//!
//! A token of a tenant other than `global` sees only its own tenant's rows; asking for another
//! tenant is 403. Agent tokens get 403. Unknown parameters and malformed values are 400
//! `invalid_query`, naming the parameter.

use std::collections::HashMap;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde_json::json;
use toolgate_engine::protocol::Agent;

use crate::audit::store::{AuditStore, Filter};
use crate::auth::{Caller, GLOBAL_TENANT, parse_tenant};
use crate::error::ApiError;
use crate::routes::page::{self, invalid};
use crate::state::AppState;

/// Rows per database page of a JSON Lines export.
const EXPORT_PAGE: i64 = 1000;

const PARAMETERS: [&str; 12] = [
    "tenant",
    "session_id",
    "decision",
    "event",
    "agent",
    "tool",
    "rule",
    "since",
    "until",
    "limit",
    "cursor",
    "format",
];

/// An opaque keyset cursor: hex of `<time µs>:<id>`.
pub fn encode_cursor(time_us: i64, id: &str) -> String {
    page::encode(&format!("{time_us}:{id}"))
}

/// The times a cursor may hold: those an RFC 3339 time can spell (years 0000 to 9999), as for
/// `since` and `until`. chrono reaches far beyond, and PostgreSQL refuses a timestamp before
/// 4713 BC with an error, which must not turn a forged cursor into a 500.
fn cursor_time_range() -> std::ops::RangeInclusive<i64> {
    const FIRST: i64 = -62_167_219_200_000_000; // 0000-01-01T00:00:00Z
    const LAST: i64 = 253_402_300_799_999_999; // 9999-12-31T23:59:59.999999Z
    FIRST..=LAST
}

/// The (time, id) of a cursor's text.
fn decode_cursor(text: &str) -> Option<(DateTime<Utc>, String)> {
    let (time, id) = text.split_once(':')?;
    let time_us: i64 = time.parse().ok()?;
    if !cursor_time_range().contains(&time_us) {
        return None;
    }
    let time = DateTime::from_timestamp_micros(time_us)?;
    is_uuid(id).then(|| (time, id.to_owned()))
}

/// Whether `id` is a UUID in its hyphenated form (what the database's `::uuid` cast accepts).
fn is_uuid(id: &str) -> bool {
    id.len() == 36
        && id.bytes().enumerate().all(|(at, byte)| match at {
            8 | 13 | 18 | 23 => byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

pub(crate) fn parse_time(name: &str, value: &str) -> Result<DateTime<Utc>, ApiError> {
    DateTime::parse_from_rfc3339(value)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|_| {
            // `+01:00` unescaped in a query string arrives as ` 01:00`.
            let plus = if value.contains(' ') {
                " (a `+` in a URL's query is a space: write it `%2B`, or give the time in UTC \
                 with `Z`)"
            } else {
                ""
            };
            invalid(format!(
                "`{name}` must be an RFC 3339 time such as `2026-11-01T00:00:00Z`; got `{}`{plus}",
                value.escape_debug()
            ))
        })
}

/// A text filter: at most 512 characters (`maxLength` in the spec counts characters), and no
/// U+0000, which no stored text holds (PostgreSQL's text cannot) and which the database would
/// refuse.
fn bounded(name: &str, value: &str) -> Result<String, ApiError> {
    if value.chars().count() > 512 {
        return Err(invalid(format!("`{name}` is longer than 512 characters")));
    }
    if value.contains('\0') {
        return Err(invalid(format!("`{name}` holds a NUL character")));
    }
    Ok(value.to_owned())
}

/// A parsed query: the filter, the page size and the format.
#[derive(Debug)]
pub struct AuditQuery {
    /// The filter (tenant already scoped to the caller).
    pub filter: Filter,
    /// Page size.
    pub limit: i64,
    /// Stream JSON Lines.
    pub jsonl: bool,
}

/// Parses and checks the query parameters for `caller`.
pub fn parse_query(
    caller: &Caller,
    params: &HashMap<String, String>,
) -> Result<AuditQuery, ApiError> {
    page::only_known(params, &PARAMETERS)?;
    // An empty value is a value: `since=` is no time, as the spec says.
    let get = |name: &str| params.get(name);
    let mut filter = Filter::default();
    let requested = get("tenant").map(|t| parse_tenant(t)).transpose()?;
    filter.tenant = if caller.tenant == GLOBAL_TENANT {
        requested.map(str::to_owned)
    } else {
        if let Some(tenant) = requested {
            caller.require_tenant(tenant)?;
        }
        Some(caller.tenant.clone())
    };
    filter.session_id = get("session_id")
        .map(|v| bounded("session_id", v))
        .transpose()?;
    filter.tool = get("tool").map(|v| bounded("tool", v)).transpose()?;
    filter.event = get("event").map(|v| bounded("event", v)).transpose()?;
    // Stored by its canonical name; an alias (`claude`, `gemini-cli`) reads as that.
    filter.agent = get("agent")
        .map(|name| {
            Agent::parse(name)
                .map(|agent| agent.as_str().to_owned())
                .ok_or_else(|| {
                    invalid(format!(
                        "`agent` must be one of {}; got `{}`",
                        Agent::ALL.map(Agent::as_str).join(", "),
                        name.escape_debug()
                    ))
                })
        })
        .transpose()?;
    filter.rule = get("rule").map(|v| bounded("rule", v)).transpose()?;
    if let Some(decision) = get("decision") {
        if !matches!(decision.as_str(), "deny" | "ask" | "allow" | "none") {
            return Err(invalid(format!(
                "`decision` must be `deny`, `ask`, `allow` or `none`; got `{}`",
                decision.escape_debug()
            )));
        }
        filter.decision = Some(decision.clone());
    }
    filter.since = get("since").map(|v| parse_time("since", v)).transpose()?;
    filter.until = get("until").map(|v| parse_time("until", v)).transpose()?;
    filter.before = page::cursor(params, decode_cursor)?;
    let limit = page::limit(params)?;
    let jsonl = match get("format").map(String::as_str) {
        None | Some("json") => false,
        Some("jsonl") => true,
        Some(other) => {
            return Err(invalid(format!(
                "`format` must be `json` or `jsonl`; got `{}`",
                other.escape_debug()
            )));
        }
    };
    Ok(AuditQuery {
        filter,
        limit,
        jsonl,
    })
}

/// `GET /v1/audit`.
pub async fn list_audit(
    State(state): State<AppState>,
    caller: Caller,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    caller.require_reader()?;
    let query = parse_query(&caller, &params)?;
    let store = AuditStore::from(state.pool.clone());
    if query.jsonl {
        return Ok(export(store, query.filter));
    }
    let (rows, more) = page::split(
        store.query(&query.filter, query.limit + 1).await?,
        query.limit,
    );
    let next_cursor = more
        .then(|| rows.last().map(|row| encode_cursor(row.time_us, &row.id)))
        .flatten();
    Ok(Json(json!({
        "rows": rows.iter().map(|row| row.to_json()).collect::<Vec<_>>(),
        "next_cursor": next_cursor,
    }))
    .into_response())
}

/// Streams every row matching `filter` as JSON Lines, paging through the database by keyset.
/// A database failure mid-stream aborts the body, so a client never mistakes a cut export for
/// a whole one.
fn export(store: AuditStore, filter: Filter) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(4);
    tokio::spawn(async move {
        let mut pages = store.pages(filter, EXPORT_PAGE);
        loop {
            let rows = match pages.next().await {
                Ok(Some(rows)) => rows,
                Ok(None) => return,
                Err(error) => {
                    tracing::error!(error = %error, "audit export failed");
                    let _ = tx.send(Err(std::io::Error::other("export failed"))).await;
                    return;
                }
            };
            let mut chunk = Vec::with_capacity(rows.len() * 512);
            for row in &rows {
                let _ = serde_json::to_writer(&mut chunk, &row.to_json());
                chunk.push(b'\n');
            }
            if tx.send(Ok(Bytes::from(chunk))).await.is_err() {
                return;
            }
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    (
        [(header::CONTENT_TYPE, "application/jsonl")],
        Body::from_stream(stream),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0193a0e4-2b3c-7d4e-8f60-123456789abc";

    #[test]
    fn cursors_round_trip() {
        let cursor = encode_cursor(1_764_000_000_123_456, ID);
        let text = String::from_utf8(hex::decode(cursor).unwrap()).unwrap();
        let (time, id) = decode_cursor(&text).unwrap();
        assert_eq!(time.timestamp_micros(), 1_764_000_000_123_456);
        assert_eq!(id, ID);
    }

    #[test]
    fn cursor_times_outside_years_0000_to_9999_are_refused() {
        let first = parse_time("since", "0000-01-01T00:00:00Z").unwrap();
        let last = parse_time("until", "9999-12-31T23:59:59.999999Z").unwrap();
        for time_us in [first.timestamp_micros(), last.timestamp_micros()] {
            assert!(
                decode_cursor(&format!("{time_us}:{ID}")).is_some(),
                "{time_us}"
            );
        }
        // chrono takes these; PostgreSQL refuses a timestamp before 4713 BC with an error.
        for time_us in [
            first.timestamp_micros() - 1,
            last.timestamp_micros() + 1,
            -1_000_000_000_000_000_000,
            8_000_000_000_000_000_000,
        ] {
            assert!(
                decode_cursor(&format!("{time_us}:{ID}")).is_none(),
                "{time_us}"
            );
        }
    }
}
