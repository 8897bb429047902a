//! Keyset pagination, as the list routes (`GET /v1/audit`, `GET /v1/tenants/{tenant}/bundles`)
//! share it: a `limit` of 1 to [`MAX_LIMIT`] rows (default [`DEFAULT_LIMIT`]), an opaque
//! `cursor` that is the `next_cursor` of the page before, and a query with no other parameter
//! than the route knows. Each error is a 400 `invalid_query` naming the parameter. A parameter
//! given empty is checked as given (`limit=` is no number), as the spec says.
//!
//! A cursor is hex of a text only this API writes; what it holds is each route's own.

use std::collections::HashMap;

use crate::error::ApiError;

/// Default page size.
pub const DEFAULT_LIMIT: i64 = 100;
/// Largest page size.
pub const MAX_LIMIT: i64 = 1000;

/// A 400 `invalid_query` with `message`.
pub fn invalid(message: String) -> ApiError {
    ApiError::bad_request("invalid_query", message)
}

/// Refuses a parameter that is not one of `known`, naming it and them.
pub fn only_known(params: &HashMap<String, String>, known: &[&str]) -> Result<(), ApiError> {
    match params.keys().find(|key| !known.contains(&key.as_str())) {
        Some(unknown) => Err(invalid(format!(
            "unknown parameter `{}` (known: {})",
            unknown.escape_debug(),
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

/// The `limit` parameter: [`DEFAULT_LIMIT`] when absent.
pub fn limit(params: &HashMap<String, String>) -> Result<i64, ApiError> {
    count(params, "limit", DEFAULT_LIMIT, MAX_LIMIT)
}

/// The count parameter `name`, from 1 to `max`; `default` when absent.
pub fn count<N>(
    params: &HashMap<String, String>,
    name: &str,
    default: N,
    max: N,
) -> Result<N, ApiError>
where
    N: std::str::FromStr + PartialOrd + From<u8> + std::fmt::Display,
{
    let Some(text) = params.get(name) else {
        return Ok(default);
    };
    text.parse::<N>()
        .ok()
        .filter(|n| *n >= N::from(1) && *n <= max)
        .ok_or_else(|| {
            invalid(format!(
                "`{name}` must be an integer from 1 to {max}; got `{}`",
                text.escape_debug()
            ))
        })
}

/// The `cursor` parameter read by `decode` (`None` when absent); a cursor `decode` refuses is one
/// this API did not return.
pub fn cursor<T>(
    params: &HashMap<String, String>,
    decode: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, ApiError> {
    params
        .get("cursor")
        .map(|cursor| {
            hex::decode(cursor)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .and_then(|text| decode(&text))
                .ok_or_else(|| invalid("`cursor` is not a cursor this API returned".to_owned()))
        })
        .transpose()
}

/// A cursor holding `text`.
pub fn encode(text: &str) -> String {
    hex::encode(text)
}

/// The page of `rows`, fetched with `limit + 1`: the first `limit` of them, and whether more
/// follow.
pub fn split<T>(mut rows: Vec<T>, limit: i64) -> (Vec<T>, bool) {
    let limit = usize::try_from(limit).unwrap_or(0);
    let more = rows.len() > limit;
    rows.truncate(limit);
    (rows, more)
}

/// A page of a list whose rows have increasing ids, newest first (bundles, activations): reads
/// `limit` and a cursor `<kind>:<id>`, fetches `limit + 1` rows before that id with `fetch`
/// (`before`, `limit`), and returns the first `limit` with the next page's cursor, if any.
pub async fn newest_first<T, F, Fut, E>(
    params: &HashMap<String, String>,
    kind: &str,
    id_of: impl Fn(&T) -> i64,
    fetch: F,
) -> Result<(Vec<T>, Option<String>), ApiError>
where
    F: FnOnce(Option<i64>, i64) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<T>, E>>,
    ApiError: From<E>,
{
    let limit = limit(params)?;
    let before = cursor(params, |text| {
        text.strip_prefix(kind)?
            .strip_prefix(':')?
            .parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
    })?;
    let (rows, more) = split(fetch(before, limit + 1).await?, limit);
    let next = more
        .then(|| {
            rows.last()
                .map(|last| encode(&format!("{kind}:{}", id_of(last))))
        })
        .flatten();
    Ok((rows, next))
}
