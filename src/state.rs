//! The state every handler shares: the database, the policy store, and the settings handlers need.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::audit::Audit;
use crate::auth::{TokenHash, TokenLookups};
use crate::decisions::Decisions;
use crate::metrics::Metrics;
use crate::routes::evaluate::FailurePolicy;
use crate::store::Database;
use crate::store::reload::{PolicyStore, Reloader};

/// Cheap to clone: one `Arc`.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// What [`AppState`] holds.
pub struct Inner {
    /// The database (PostgreSQL, or the embedded SQLite file).
    pub pool: Database,
    /// Live policies and known tokens.
    pub store: Arc<PolicyStore>,
    /// Keeps `store` in step with the database; reloads after a commit on the embedded store.
    pub reloader: Arc<Reloader>,
    /// Bounds the database lookups of tokens not in memory.
    pub token_lookups: TokenLookups,
    /// sha256 of `TOOLGATE_ADMIN_TOKEN`.
    pub admin_token_hash: Option<TokenHash>,
    /// Evaluate without a token from loopback, against `global`.
    pub allow_anonymous_loopback: bool,
    /// What toolgate answers when it fails.
    pub failure: FailurePolicy,
    /// This replica's id.
    pub replica_id: String,
    /// Metrics.
    pub metrics: Metrics,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// The audit log.
    pub audit: Audit,
    /// Decisions remembered by what they were made from.
    pub decisions: Decisions,
    /// One bundle replay at a time (`POST /v1/tenants/{tenant}/replay`).
    pub replays: Arc<tokio::sync::Semaphore>,
    /// `--token-max-lifetime`: the longest a token made through the API may live.
    pub token_max_lifetime: Option<std::time::Duration>,
    /// Set when the server was told to stop: `/readyz` answers 503 `stopping` while the
    /// replica goes on serving for `--shutdown-delay`.
    pub stopping: AtomicBool,
}

impl AppState {
    /// Wraps the state.
    pub fn new(inner: Inner) -> Self {
        Self(Arc::new(inner))
    }
}

impl Deref for AppState {
    type Target = Inner;

    fn deref(&self) -> &Inner {
        &self.0
    }
}
