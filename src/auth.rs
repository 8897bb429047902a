//! Bearer tokens: generation, hashing, and turning an `Authorization` header into a [`Caller`].
//!
//! Tokens are `tg_` followed by 64 hex digits (32 random bytes). Only their sha256 is stored.
//! Known tokens are looked up by hash in memory (refreshed by the reloader and cached on disk),
//! so evaluation needs no database round trip; the bootstrap admin token
//! (`TOOLGATE_ADMIN_TOKEN`) is compared in constant time. A hash that is not in memory is looked
//! up in the database once and remembered; a hash the database does not hold is remembered too
//! (the last [`UNKNOWN_TOKENS`]), and only [`TokenLookups`]' few lookups run at once, so that a
//! flood of made-up tokens cannot take the pool from the admin routes. A token may expire: its
//! expiry is in memory beside its hash and checked on every request, so it is refused from the
//! second it expires, as a revoked token is. Tokens are never logged.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::metrics::TokenLookup;
use crate::recent::Recent;
use crate::state::AppState;

/// The prefix of every toolgate token.
pub const TOKEN_PREFIX: &str = "tg_";

/// The tenant whose tokens act on every tenant and whose policy applies beside every tenant's own.
pub const GLOBAL_TENANT: &str = "global";

/// sha256 of a token.
pub type TokenHash = [u8; 32];

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Evaluate events.
    Agent,
    /// Manage bundles.
    Admin,
    /// Read the audit log.
    Auditor,
}

impl Role {
    /// Every role.
    pub const ALL: [Self; 3] = [Self::Agent, Self::Admin, Self::Auditor];

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Admin => "admin",
            Self::Auditor => "auditor",
        }
    }

    /// Parses a lowercase name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "agent" => Some(Self::Agent),
            "admin" => Some(Self::Admin),
            "auditor" => Some(Self::Auditor),
            _ => None,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a known token grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    /// The token's row id; `None` for the bootstrap admin token.
    pub id: Option<i64>,
    /// Its role.
    pub role: Role,
    /// Its tenant.
    pub tenant: String,
    /// When it expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
}

/// Known token hashes.
pub type TokenMap = HashMap<TokenHash, Arc<TokenInfo>>;

/// A new random token.
pub fn generate_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{TOKEN_PREFIX}{}", hex::encode(bytes)))
}

/// sha256 of a token.
pub fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// Whether a tenant name is valid: `[a-z0-9][a-z0-9_-]{0,62}`.
pub fn valid_tenant(name: &str) -> bool {
    let bytes = name.as_bytes();
    let first_ok = bytes
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    first_ok
        && bytes.len() <= 63
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-')
}

/// Checks a tenant name from a URL.
pub fn parse_tenant(name: &str) -> Result<&str, ApiError> {
    if valid_tenant(name) {
        Ok(name)
    } else {
        Err(ApiError::bad_request(
            "invalid_tenant",
            format!(
                "tenant names match `[a-z0-9][a-z0-9_-]{{0,62}}`; got `{}`",
                name.escape_debug()
            ),
        ))
    }
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The token's row id (`None`: bootstrap admin token or anonymous).
    pub token_id: Option<i64>,
    /// The role.
    pub role: Role,
    /// The tenant.
    pub tenant: String,
    /// Let in without a token from loopback.
    pub anonymous: bool,
    /// When the caller's token expires (`None`: never, or no stored token).
    pub expires_at: Option<DateTime<Utc>>,
}

impl Caller {
    /// Whether the caller may act on `tenant`: its own, or any for a `global` token.
    pub fn may_act_on(&self, tenant: &str) -> bool {
        self.tenant == GLOBAL_TENANT || self.tenant == tenant
    }

    /// Refuses an anonymous loopback caller (401): it may only evaluate, and to every other
    /// route it is a request without a token.
    pub fn require_token(&self) -> Result<(), ApiError> {
        if self.anonymous {
            Err(ApiError::Unauthorized("a bearer token is required".into()))
        } else {
            Ok(())
        }
    }

    /// Refuses callers without `role` (403), and anonymous callers of any route but evaluation
    /// (401).
    pub fn require(&self, role: Role) -> Result<(), ApiError> {
        if role != Role::Agent {
            self.require_token()?;
        }
        if self.role == role {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this endpoint needs a token with role `{role}`; this token has role `{}`",
                self.role
            )))
        }
    }

    /// The caller a stored token stands for, unless it has expired: an expired token is
    /// refused as a revoked one is (401, and the failure decision on the evaluate routes),
    /// counted in `toolgate_expired_token_uses_total`, and logged by its id (never the token),
    /// at most once a minute per token and replica.
    fn holding(state: &AppState, info: &TokenInfo) -> Result<Self, ApiError> {
        if let Some(expired_at) = info.expires_at.filter(|at| *at <= Utc::now()) {
            state.metrics.observe_expired_token(info.role);
            if state.token_lookups.first_expired_use_this_minute(info.id) {
                tracing::warn!(
                    token.id = info.id,
                    token.role = %info.role,
                    tenant = %info.tenant,
                    token.expired_at = %expired_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    "expired token used; refused"
                );
            }
            return Err(ApiError::Unauthorized(format!(
                "the token expired at {}",
                expired_at.to_rfc3339_opts(SecondsFormat::Secs, true)
            )));
        }
        Ok(Self {
            token_id: info.id,
            role: info.role,
            tenant: info.tenant.clone(),
            anonymous: false,
            expires_at: info.expires_at,
        })
    }

    /// Refuses callers that may not read the record of what was decided and changed (the
    /// audit, the activation history): `auditor` and `admin` tokens may (403 for others).
    pub fn require_reader(&self) -> Result<(), ApiError> {
        self.require_token()?;
        if matches!(self.role, Role::Auditor | Role::Admin) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this endpoint needs a token with role `auditor` or `admin`; this token has role \
                 `{}`",
                self.role
            )))
        }
    }

    /// Refuses callers that may not act on `tenant` (403).
    pub fn require_tenant(&self, tenant: &str) -> Result<(), ApiError> {
        if self.may_act_on(tenant) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "a token of tenant `{}` cannot act on tenant `{tenant}`",
                self.tenant
            )))
        }
    }
}

/// The bearer token of a request; `None` when there is none. `Bearer` with nothing after it is
/// no token: it is what an agent sends when the variable its hook's header names is unset
/// (Claude Code's `"Bearer $TOOLGATE_TOKEN"`), and it must be read as the anonymous loopback
/// caller where that is allowed, not refused with a 401 the agent takes as "proceed".
fn bearer(parts: &Parts) -> Result<Option<&str>, ApiError> {
    let Some(value) = parts.headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed =
        || ApiError::Unauthorized("the `Authorization` header must be `Bearer <token>`".into());
    let value = value.to_str().map_err(|_| malformed())?.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(malformed());
    }
    let token = token.trim();
    Ok((!token.is_empty()).then_some(token))
}

/// What memory alone says of a request's credentials.
pub enum Known {
    /// The bootstrap admin token, a token the replica knows, or an anonymous loopback caller.
    Caller(Caller),
    /// A well-formed token this replica does not know: only the database can check it.
    Unchecked(TokenHash),
}

/// Authenticates a request from memory only: no database query. A missing token (unless
/// anonymous loopback evaluation is on and the peer is loopback), a malformed header or a token
/// of a shape no token has is a 401.
pub fn authenticate_in_memory(state: &AppState, parts: &Parts) -> Result<Known, ApiError> {
    let Some(token) = bearer(parts)? else {
        let loopback = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            // Canonical: on a dual-stack socket (`--listen [::]:8080`) 127.0.0.1 arrives as
            // `::ffff:127.0.0.1`, which is no loopback address to `Ipv6Addr`.
            .is_some_and(|ConnectInfo(peer)| peer.ip().to_canonical().is_loopback());
        if state.allow_anonymous_loopback && loopback {
            return Ok(Known::Caller(Caller {
                token_id: None,
                role: Role::Agent,
                tenant: GLOBAL_TENANT.to_owned(),
                anonymous: true,
                expires_at: None,
            }));
        }
        return Err(ApiError::Unauthorized("a bearer token is required".into()));
    };
    let hash = hash_token(token);
    if let Some(admin) = &state.admin_token_hash
        && bool::from(admin.ct_eq(&hash))
    {
        return Ok(Known::Caller(Caller {
            token_id: None,
            role: Role::Admin,
            tenant: GLOBAL_TENANT.to_owned(),
            anonymous: false,
            expires_at: None,
        }));
    }
    match state.store.tokens().get(&hash) {
        Some(info) => Caller::holding(state, info).map(Known::Caller),
        None if is_token_shaped(token) => Ok(Known::Unchecked(hash)),
        // Nothing `generate_token` made: refused without a database query.
        None => Err(ApiError::Unauthorized("unknown or revoked token".into())),
    }
}

/// Whether `token` has the shape of the tokens [`generate_token`] makes: the prefix and 64
/// lowercase hex digits.
pub fn is_token_shaped(token: &str) -> bool {
    token.strip_prefix(TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// How many token hashes the database did not hold a replica remembers.
pub const UNKNOWN_TOKENS: usize = 4096;

/// What bounds the database lookups of tokens not in memory: at most a quarter of the pool's
/// connections at once (at least one), and the last [`UNKNOWN_TOKENS`] hashes found in no row.
///
/// Remembering a hash as unknown is safe for good: tokens are 32 random bytes, so a token's
/// hash can have been looked up before the token existed only if someone guessed it, and a
/// token made since (on any replica, or by the CLI) is not handed to anyone before its row is
/// committed. A revoked token stays revoked. A token this replica learns from the poll is in
/// memory, which is consulted first.
pub struct TokenLookups {
    permits: Semaphore,
    unknown: Mutex<Recent<TokenHash>>,
    /// When each expired token's use was last logged, by token id.
    expired_logged: Mutex<HashMap<Option<i64>, Instant>>,
}

impl TokenLookups {
    /// Bounds for a pool of `pool_size` connections.
    pub fn new(pool_size: u32) -> Self {
        Self {
            permits: Semaphore::new((pool_size as usize / 4).max(1)),
            unknown: Mutex::new(Recent::new(UNKNOWN_TOKENS)),
            expired_logged: Mutex::new(HashMap::new()),
        }
    }

    fn unknown(&self) -> std::sync::MutexGuard<'_, Recent<TokenHash>> {
        self.unknown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a use of the expired token `id` is the first in a minute, and so logged: an
    /// agent's hook with an expired token is refused on every tool call, and the log names each
    /// such token without a line per call. (One entry per token id: there are as many as rows.)
    fn first_expired_use_this_minute(&self, id: Option<i64>) -> bool {
        const EVERY: Duration = Duration::from_secs(60);
        let mut logged = self
            .expired_logged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        match logged.get(&id) {
            Some(last) if now.duration_since(*last) < EVERY => false,
            _ => {
                logged.insert(id, now);
                true
            }
        }
    }
}

/// Authenticates a request: from memory, else by the token's hash in the database (a token
/// found there is remembered until the next poll, unless the replica read its tokens again while
/// the lookup ran; one found in no row for good). When every
/// lookup [`TokenLookups`] allows is running, the token is not checked: an evaluation gets the
/// failure decision (as when the database is away), any other route a 503.
pub async fn authenticate(state: &AppState, parts: &Parts) -> Result<Caller, ApiError> {
    let hash = match authenticate_in_memory(state, parts)? {
        Known::Caller(caller) => return Ok(caller),
        Known::Unchecked(hash) => hash,
    };
    let unknown = || ApiError::Unauthorized("unknown or revoked token".into());
    let lookups = &state.token_lookups;
    let metrics = &state.metrics;
    if lookups.unknown().contains(&hash) {
        metrics.observe_token_lookup(TokenLookup::NegativeCacheHit, None);
        return Err(unknown());
    }
    let Ok(_permit) = lookups.permits.try_acquire() else {
        metrics.observe_token_lookup(TokenLookup::Shed, None);
        return Err(ApiError::Overloaded);
    };
    let started = std::time::Instant::now();
    let reads = state.store.token_reads();
    let row = state.pool.token_by_hash(&hash).await;
    let seconds = Some(started.elapsed().as_secs_f64());
    let row = match row {
        Ok(row) => row,
        Err(error) => {
            metrics.observe_token_lookup(TokenLookup::DatabaseError, seconds);
            return Err(error.into());
        }
    };
    let Some(row) = row else {
        metrics.observe_token_lookup(TokenLookup::Unknown, seconds);
        lookups.unknown().check(hash);
        return Err(unknown());
    };
    let Some(info) = Role::parse(&row.role).map(|role| TokenInfo {
        id: Some(row.id),
        role,
        tenant: row.tenant,
        expires_at: row.expires_at,
    }) else {
        metrics.observe_token_lookup(TokenLookup::Unknown, seconds);
        return Err(unknown());
    };
    metrics.observe_token_lookup(TokenLookup::Known, seconds);
    let info = Arc::new(info);
    // Not when the tokens were read again meanwhile: a revocation may lie between.
    state.store.remember_token(hash, info.clone(), reads);
    Caller::holding(state, &info)
}

/// Whether `error`, from [`authenticate`], says the token could not be checked (the database
/// away or failing, or every lookup allowed at once running) rather than refused.
pub fn could_not_check(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::DatabaseUnavailable(_) | ApiError::Internal(_) | ApiError::Overloaded
    )
}

/// The outcome of [`authenticate`] for a request whose caller was checked before its handler
/// ran (the evaluate routes check it while the body arrives): the extractor takes it instead of
/// checking again.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Result<Caller, ApiError>);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(Authenticated(checked)) = parts.extensions.remove::<Authenticated>() {
            return checked;
        }
        authenticate(state, parts).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_have_the_token_shape_and_little_else_does() {
        assert!(is_token_shaped(&generate_token().unwrap()));
        let hex64 = "0123456789abcdef".repeat(4);
        assert!(is_token_shaped(&format!("tg_{hex64}")));
        for other in [
            format!("tg_{}", &hex64[1..]),
            format!("tg_{hex64}0"),
            format!("tg_{}", hex64.to_uppercase()),
            format!("xx_{hex64}"),
            "tg_wrong".to_owned(),
        ] {
            assert!(!is_token_shaped(&other), "{other}");
        }
    }

    #[test]
    fn tokens_are_prefixed_and_random() {
        let a = generate_token().unwrap();
        let b = generate_token().unwrap();
        assert!(a.starts_with(TOKEN_PREFIX));
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 64);
        assert_ne!(a, b);
        assert_ne!(hash_token(&a), hash_token(&b));
    }

    fn parts(authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder();
        if let Some(value) = authorization {
            request = request.header(AUTHORIZATION, value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn bearer_reads_the_token_and_an_empty_one_as_none() {
        let token = format!("tg_{}", "ab".repeat(32));
        for header in [
            format!("Bearer {token}"),
            format!("bearer  {token} "),
            format!("BEARER {token}"),
        ] {
            let parts = parts(Some(&header));
            assert_eq!(bearer(&parts).unwrap(), Some(token.as_str()), "{header}");
        }
        // `Bearer $TOOLGATE_TOKEN` with the variable unset, and no header at all.
        for header in [Some("Bearer "), Some("Bearer"), Some("bearer   "), None] {
            assert_eq!(bearer(&parts(header)).unwrap(), None, "{header:?}");
        }
        for header in ["", "Basic dXNlcjpwdw==", "Token abc", "Bearertg_x"] {
            let error = bearer(&parts(Some(header))).unwrap_err();
            assert_eq!(
                error.status(),
                axum::http::StatusCode::UNAUTHORIZED,
                "{header}"
            );
        }
    }

    #[test]
    fn an_anonymous_caller_may_evaluate_and_nothing_else() {
        let anonymous = Caller {
            token_id: None,
            role: Role::Agent,
            tenant: GLOBAL_TENANT.to_owned(),
            anonymous: true,
            expires_at: None,
        };
        assert!(anonymous.require(Role::Agent).is_ok());
        for role in [Role::Admin, Role::Auditor] {
            let error = anonymous.require(role).unwrap_err();
            assert_eq!(error.status(), axum::http::StatusCode::UNAUTHORIZED);
        }
        assert!(anonymous.require_token().is_err());
        let agent = Caller {
            anonymous: false,
            ..anonymous
        };
        assert!(agent.require_token().is_ok());
        let error = agent.require(Role::Admin).unwrap_err();
        assert_eq!(error.status(), axum::http::StatusCode::FORBIDDEN);
    }

    #[test]
    fn tenant_names() {
        assert!(valid_tenant("global"));
        assert!(valid_tenant("team-a_1"));
        assert!(valid_tenant("0"));
        assert!(!valid_tenant(""));
        assert!(!valid_tenant("-a"));
        assert!(!valid_tenant("A"));
        assert!(!valid_tenant("a/b"));
        assert!(!valid_tenant(&"a".repeat(64)));
        assert!(valid_tenant(&"a".repeat(63)));
    }
}
