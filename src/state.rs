//! The state every handler shares: the pool, the policy store, and the settings handlers need.

use std::ops::Deref;
use std::sync::Arc;

use sqlx::PgPool;
use toolgate_engine::Outcome;

use crate::audit::Audit;
use crate::auth::TokenHash;
use crate::metrics::Metrics;
use crate::store::reload::PolicyStore;

/// Cheap to clone: one `Arc`.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// What [`AppState`] holds.
pub struct Inner {
    /// The database.
    pub pool: PgPool,
    /// Live policies and known tokens.
    pub store: Arc<PolicyStore>,
    /// sha256 of `TOOLGATE_ADMIN_TOKEN`.
    pub admin_token_hash: Option<TokenHash>,
    /// Evaluate without a token from loopback, against `global`.
    pub allow_anonymous_loopback: bool,
    /// The answer to a gating event when toolgate fails.
    pub failure_decision: Outcome,
    /// This replica's id.
    pub replica_id: String,
    /// Metrics.
    pub metrics: Metrics,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// The audit log.
    pub audit: Audit,
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
