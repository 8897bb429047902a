//! [`Database`]: the one store API the routes, auth, the reloader and the CLI call, on
//! PostgreSQL (several replicas) or on an embedded SQLite file (one node).
//!
//! An enum rather than a trait: almost every query is the same SQL on both (sqlx accepts `$1` on
//! SQLite too), so each method is written once and [`on_pool!`] compiles its body once per
//! backend, with the concrete pool type. What differs lives in the backend's module (`postgres`,
//! `sqlite`): how a write transaction begins and serialises one tenant's activations, how an
//! activation is announced, the two "live per tenant" queries, migrations, and which errors mean
//! "unavailable". Rows are mapped by `FromRow`, the same struct for both, so the JSON answers are
//! identical.
//!
//! Bundles and activations are immutable rows (triggers refuse updates and deletes on both);
//! activations are history, the newest row per tenant is live. This module must not know about
//! HTTP or the in-memory policies.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::migrate::MigrateError;
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;

use super::{postgres, sqlite};

/// Runs `$body` with `$pool` bound to the concrete pool of a [`Database`] and, in the second
/// form, `$dialect` to that backend's module (`store::postgres` or `store::sqlite`): one body,
/// compiled once per backend.
///
/// ```
/// # async fn f(db: &toolgate::store::Database) -> Result<i64, sqlx::Error> {
/// toolgate::on_pool!(db, |pool| sqlx::query_scalar("SELECT count(*) FROM bundles")
///     .fetch_one(pool)
///     .await)
/// # }
/// ```
#[macro_export]
macro_rules! on_pool {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db {
            $crate::store::Database::Postgres($pool) => $body,
            $crate::store::Database::Sqlite($pool) => $body,
        }
    };
    ($db:expr, |$pool:ident, $dialect:ident| $body:expr) => {
        match $db {
            $crate::store::Database::Postgres($pool) => {
                use $crate::store::postgres as $dialect;
                $body
            }
            $crate::store::Database::Sqlite($pool) => {
                use $crate::store::sqlite as $dialect;
                $body
            }
        }
    };
}

/// Where bundles, activations, tokens and tenants are stored. Cheap to clone (a pool handle).
#[derive(Debug, Clone)]
pub enum Database {
    /// PostgreSQL: any number of replicas, activations announced by `NOTIFY`.
    Postgres(PgPool),
    /// One SQLite file: a single node, activations reloaded in-process.
    Sqlite(SqlitePool),
}

/// A token row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenRow {
    /// The hash of the token.
    pub hash: Vec<u8>,
    /// The row id.
    pub id: i64,
    /// `agent`, `admin` or `auditor`.
    pub role: String,
    /// The token's tenant.
    pub tenant: String,
    /// When it expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
}

/// A token to store: its hash, never the token.
#[derive(Debug, Clone, Copy)]
pub struct NewToken<'a> {
    /// sha256 of the token.
    pub hash: &'a [u8],
    /// The first characters of the token, to tell tokens apart in a listing.
    pub prefix: &'a str,
    /// `agent`, `admin` or `auditor`.
    pub role: &'a str,
    /// The token's tenant (made if it does not exist).
    pub tenant: &'a str,
    /// What the token is for.
    pub description: Option<&'a str>,
    /// When it expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// The token that made it through the admin API (`None`: the CLI or the bootstrap admin).
    pub created_by: Option<i64>,
}

impl<'a> NewToken<'a> {
    /// A token with no description that never expires.
    pub fn new(hash: &'a [u8], prefix: &'a str, role: &'a str, tenant: &'a str) -> Self {
        Self {
            hash,
            prefix,
            role,
            tenant,
            description: None,
            expires_at: None,
            created_by: None,
        }
    }
}

/// A token as `toolgate token list` shows it: never its hash.
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct TokenListing {
    /// The row id.
    pub id: i64,
    /// The first characters of the token, to tell tokens apart.
    pub prefix: String,
    /// `agent`, `admin` or `auditor`.
    pub role: String,
    /// The token's tenant.
    pub tenant: String,
    /// What the token is for.
    pub description: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
    /// When it expires (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// The token that made it through the admin API (`None`: the CLI or the bootstrap admin).
    pub created_by: Option<i64>,
    /// The token that revoked it through the admin API (`None`: not revoked, or by the CLI or
    /// the bootstrap admin).
    pub revoked_by: Option<i64>,
}

/// A stored bundle, without its document.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct BundleSummary {
    /// The row id.
    pub id: i64,
    /// The tenant.
    pub tenant: String,
    /// The bundle's `name`.
    pub name: String,
    /// sha256 of the canonical JSON.
    pub sha256: String,
    /// The token that pushed it (`null` for the bootstrap admin token and the starter bundle).
    pub created_by: Option<i64>,
    /// When it was pushed.
    pub created_at: DateTime<Utc>,
}

/// A stored bundle with its document.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredBundle {
    /// Everything but the document.
    #[sqlx(flatten)]
    pub summary: BundleSummary,
    /// The canonical document.
    #[sqlx(json)]
    pub document: Value,
}

/// One activation: which bundle went live for a tenant, when, and by whom.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Activation {
    /// The activation's id (increasing).
    pub id: i64,
    /// The tenant.
    pub tenant: String,
    /// The bundle that went live.
    pub bundle_id: i64,
    /// Its name.
    pub name: String,
    /// Its sha256.
    pub sha256: String,
    /// The activation that was live before this one (what a rollback returns to).
    pub previous_id: Option<i64>,
    /// For a rollback, the activation it rolled back.
    pub rollback_of: Option<i64>,
    /// The token that activated it (`null` for the bootstrap admin token).
    pub activated_by: Option<i64>,
    /// When it went live.
    pub activated_at: DateTime<Utc>,
}

/// A live bundle with its document, as the reloader needs it.
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct LiveRow {
    /// The tenant.
    pub tenant: String,
    /// The live activation.
    pub activation_id: i64,
    /// When it went live.
    pub activated_at: DateTime<Utc>,
    /// The bundle.
    pub bundle_id: i64,
    /// Its name.
    pub name: String,
    /// Its sha256 as stored.
    pub sha256: String,
    /// The canonical document.
    #[sqlx(json)]
    pub document: Value,
}

/// Why an activation or rollback did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ActivateError {
    /// No such bundle in the tenant.
    #[error("bundle {id} does not exist in tenant `{tenant}`")]
    NoSuchBundle {
        /// The bundle id asked for.
        id: i64,
        /// The tenant it was asked of.
        tenant: String,
    },
    /// Nothing to roll back to.
    #[error("there is no previous activation to roll back to")]
    NothingToRollBack,
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Where an activation goes.
#[derive(Debug, Clone, Copy)]
enum Switch {
    /// To this bundle.
    Bundle(i64),
    /// Back to the bundle that was live before the live activation.
    Rollback,
}

macro_rules! bundle_columns {
    () => {
        "id, tenant, name, sha256, created_by, created_at"
    };
}

macro_rules! activation_select {
    () => {
        "SELECT a.id, a.tenant, a.bundle_id, b.name, b.sha256, \
         a.previous_id, a.rollback_of, a.activated_by, a.created_at AS activated_at \
         FROM activations a JOIN bundles b ON b.id = a.bundle_id"
    };
}

/// The tokens not revoked, expired ones too: their use is refused as expired (and counted),
/// not as unknown.
macro_rules! active_tokens {
    () => {
        "SELECT hash, id, role, tenant, expires_at FROM tokens WHERE revoked_at IS NULL"
    };
}

/// The columns of a [`TokenListing`].
macro_rules! token_listing {
    () => {
        "id, prefix, role, tenant, description, created_at, revoked_at, expires_at, created_by, \
         revoked_by"
    };
}

/// The `NOTIFY` payload that says the tokens changed (a revocation): no tenant is named so.
pub const TOKENS_CHANGED: &str = ":tokens";

const ENSURE_TENANT: &str = "INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING";
const LIVE_ACTIVATION: &str = concat!(
    activation_select!(),
    " WHERE a.tenant = $1 ORDER BY a.id DESC LIMIT 1"
);
const ACTIVATION_BY_ID: &str = concat!(activation_select!(), " WHERE a.id = $1");

/// Whether an error means the database cannot be reached or cannot take the request now (as
/// opposed to a bad query): a 503, not a 500.
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(db) => match db.try_downcast_ref::<sqlx::sqlite::SqliteError>() {
            Some(error) => sqlite::is_unavailable_code(error),
            None => postgres::is_unavailable_code(db.as_ref()),
        },
        _ => false,
    }
}

/// Whether a migration failed because the database could not be reached or a statement failed
/// (worth retrying, as the reloader does), not because the migrator refused this store.
pub fn is_migration_failure(error: &MigrateError) -> bool {
    matches!(
        error,
        MigrateError::Execute(_) | MigrateError::ExecuteMigration(..)
    )
}

/// What a migration error means to an operator, and what to do about it: sqlx's own words say
/// what it found, not why a store can be in that state.
pub fn explain_migrate_error(error: &MigrateError) -> String {
    match error {
        MigrateError::VersionMissing(version) => format!(
            "the database holds migration {version}, which this build does not know: a newer \
             toolgate migrated it. Run that build or a newer one; to run this one on the newer \
             schema, start it with `--no-migrate` (docs/architecture.md, \"Going back to an \
             older build\")"
        ),
        MigrateError::VersionMismatch(version) => format!(
            "migration {version} was applied from another text than this build's (it was \
             edited after it was applied): run the build that applied it, or a newer one"
        ),
        MigrateError::Dirty(version) => format!(
            "migration {version} was left partly applied by an earlier run: mend the database \
             by hand (its row in `_sqlx_migrations`), then run `toolgate migrate` again"
        ),
        other => other.to_string(),
    }
}

impl Database {
    /// `error`'s text, with the reason behind it when it is only that the pool timed out.
    ///
    /// sqlx's pool retries a refused connection until its acquire timeout and then says only
    /// "pool timed out while waiting for an open connection": an operator cannot tell a
    /// database that is down from a wrong port, a firewall, or a pool busy with queries. So one
    /// direct connection (bounded by 2 s) is tried for the reason. For the log lines said once
    /// per outage, never per request.
    pub async fn explain(&self, error: &sqlx::Error) -> String {
        let Self::Postgres(pool) = self else {
            return error.to_string();
        };
        if !matches!(error, sqlx::Error::PoolTimedOut) {
            return error.to_string();
        }
        let options = pool.connect_options();
        let attempt = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            sqlx::ConnectOptions::connect(options.as_ref()),
        )
        .await;
        match attempt {
            Ok(Ok(connection)) => {
                sqlx::Connection::close(connection).await.ok();
                format!("{error} (a new connection succeeds: the pool's connections are busy)")
            }
            Ok(Err(cause)) => format!("{error}: {cause}"),
            Err(_) => format!("{error}: no answer from the database's host in 2 s"),
        }
    }

    /// `postgres` or `sqlite`.
    pub fn backend(&self) -> &'static str {
        match self {
            Self::Postgres(_) => "postgres",
            Self::Sqlite(_) => "sqlite",
        }
    }

    /// Whether activations must be reloaded in-process (no `NOTIFY` to announce them).
    pub fn is_embedded(&self) -> bool {
        matches!(self, Self::Sqlite(_))
    }

    /// The PostgreSQL pool, in PostgreSQL mode.
    pub fn as_postgres(&self) -> Option<&PgPool> {
        match self {
            Self::Postgres(pool) => Some(pool),
            Self::Sqlite(_) => None,
        }
    }

    /// Applies the backend's migrations (`migrations/postgres/` or `migrations/sqlite/`), once a
    /// migration edited in comments only after it shipped is recorded with its current checksum
    /// (`postgres::accept_edited_migrations`).
    ///
    /// The migrator runs on a connection of its own, closed after it: sqlx takes a
    /// session-wide advisory lock on PostgreSQL and returns early from a refusal (a migration
    /// this build does not know) without releasing it, so a pooled connection would keep the
    /// lock, and the next attempt on another connection of the pool would wait for it forever,
    /// holding up the reloader with it.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        on_pool!(self, |pool, dialect| {
            dialect::accept_edited_migrations(pool).await?;
            // The pool's own options (its connect hooks and timeouts), one connection.
            let own = pool
                .options()
                .clone()
                .min_connections(0)
                .max_connections(1)
                .connect_with(pool.connect_options().as_ref().clone())
                .await?;
            let result = dialect::MIGRATOR.run(&own).await;
            own.close().await;
            result
        })
    }

    /// Closes the pool; waits for connections in use to be returned.
    pub async fn close(&self) {
        on_pool!(self, |pool| pool.close().await)
    }

    /// Every token that is not revoked (expired ones too).
    pub async fn active_tokens(&self) -> Result<Vec<TokenRow>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(active_tokens!())
            .fetch_all(pool)
            .await)
    }

    /// The token with this hash, if it exists and is not revoked (expired or not).
    pub async fn token_by_hash(&self, hash: &[u8]) -> Result<Option<TokenRow>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(concat!(
            active_tokens!(),
            " AND hash = $1"
        ))
        .bind(hash)
        .fetch_optional(pool)
        .await)
    }

    /// Stores a new token hash; returns it as listed. `None` when `created_by` is revoked (a
    /// replica can still accept a revoked token until it reads the tokens again), so that a
    /// revoked token never makes one that outlives its revocation.
    pub async fn insert_token(
        &self,
        token: NewToken<'_>,
    ) -> Result<Option<TokenListing>, sqlx::Error> {
        on_pool!(self, |pool, dialect| {
            let mut tx = dialect::begin_write(pool).await?;
            if let Some(maker) = token.created_by {
                let active: Option<i64> = sqlx::query_scalar(dialect::HOLD_ACTIVE_TOKEN)
                    .bind(maker)
                    .fetch_optional(&mut *tx)
                    .await?;
                if active.is_none() {
                    return Ok(None);
                }
            }
            sqlx::query(ENSURE_TENANT)
                .bind(token.tenant)
                .execute(&mut *tx)
                .await?;
            let created: TokenListing = sqlx::query_as(concat!(
                "INSERT INTO tokens (hash, prefix, role, tenant, description, expires_at, \
                 created_by) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ",
                token_listing!()
            ))
            .bind(token.hash)
            .bind(token.prefix)
            .bind(token.role)
            .bind(token.tenant)
            .bind(token.description)
            .bind(token.expires_at.map(dialect::stored_time))
            .bind(token.created_by)
            .fetch_one(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(created))
        })
    }

    /// Every token (of one tenant, or all), revoked ones too, oldest first.
    pub async fn list_tokens(
        &self,
        tenant: Option<&str>,
    ) -> Result<Vec<TokenListing>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(concat!(
            "SELECT ",
            token_listing!(),
            " FROM tokens WHERE $1 IS NULL OR tenant = $1 ORDER BY id"
        ))
        .bind(tenant)
        .fetch_all(pool)
        .await)
    }

    /// Whether the token `id` is not revoked (expired or not).
    pub async fn token_is_active(&self, id: i64) -> Result<bool, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_scalar::<_, i64>(
            "SELECT id FROM tokens WHERE id = $1 AND revoked_at IS NULL"
        )
        .bind(id)
        .fetch_optional(pool)
        .await
        .map(|found| found.is_some()))
    }

    /// The id of the token with this hash, revoked or not.
    pub async fn token_id_by_hash(&self, hash: &[u8]) -> Result<Option<i64>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_scalar(
            "SELECT id FROM tokens WHERE hash = $1"
        )
        .bind(hash)
        .fetch_optional(pool)
        .await)
    }

    /// Revokes a token (of `tenant`, when given) on behalf of the token `by` (`None`: the CLI or
    /// the bootstrap admin); returns whether it was active. PostgreSQL announces it, so every
    /// listening replica refuses it at once, the others from their next poll.
    pub async fn revoke_token(
        &self,
        id: i64,
        tenant: Option<&str>,
        by: Option<i64>,
    ) -> Result<bool, sqlx::Error> {
        on_pool!(self, |pool, dialect| {
            let mut tx = dialect::begin_write(pool).await?;
            let revoked = sqlx::query(dialect::REVOKE_TOKEN)
                .bind(id)
                .bind(tenant)
                .bind(by)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
            if revoked {
                dialect::announce(&mut tx, TOKENS_CHANGED).await?;
            }
            tx.commit().await?;
            Ok(revoked)
        })
    }

    /// Stores a bundle unless the tenant already has one with this sha256. Returns the bundle and
    /// whether it is new.
    pub async fn insert_bundle(
        &self,
        tenant: &str,
        name: &str,
        sha256: &str,
        document: &Value,
        created_by: Option<i64>,
    ) -> Result<(BundleSummary, bool), sqlx::Error> {
        on_pool!(self, |pool, dialect| {
            let mut tx = dialect::begin_write(pool).await?;
            sqlx::query(ENSURE_TENANT)
                .bind(tenant)
                .execute(&mut *tx)
                .await?;
            let inserted: Option<BundleSummary> = sqlx::query_as(concat!(
                "INSERT INTO bundles (tenant, name, sha256, document, created_by) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant, sha256) DO NOTHING \
                 RETURNING ",
                bundle_columns!()
            ))
            .bind(tenant)
            .bind(name)
            .bind(sha256)
            .bind(sqlx::types::Json(document))
            .bind(created_by)
            .fetch_optional(&mut *tx)
            .await?;
            let result = match inserted {
                Some(summary) => (summary, true),
                None => {
                    let existing = sqlx::query_as(concat!(
                        "SELECT ",
                        bundle_columns!(),
                        " FROM bundles WHERE tenant = $1 AND sha256 = $2"
                    ))
                    .bind(tenant)
                    .bind(sha256)
                    .fetch_one(&mut *tx)
                    .await?;
                    (existing, false)
                }
            };
            tx.commit().await?;
            Ok(result)
        })
    }

    /// Whether any tenant has a bundle (an embedded store with none gets the starter bundle).
    pub async fn has_bundles(&self) -> Result<bool, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM bundles)"
        )
        .fetch_one(pool)
        .await)
    }

    /// A tenant's bundles, newest first: at most `limit`, those older than the bundle `before`
    /// when given.
    pub async fn list_bundles(
        &self,
        tenant: &str,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<BundleSummary>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(concat!(
            "SELECT ",
            bundle_columns!(),
            " FROM bundles WHERE tenant = $1 AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
        ))
        .bind(tenant)
        .bind(before)
        .bind(limit)
        .fetch_all(pool)
        .await)
    }

    /// A tenant's activations (rollbacks included), newest first: `limit` of them, before the
    /// activation `before` when given.
    pub async fn list_activations(
        &self,
        tenant: &str,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Activation>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(concat!(
            activation_select!(),
            " WHERE a.tenant = $1 AND ($2 IS NULL OR a.id < $2) ORDER BY a.id DESC LIMIT $3"
        ))
        .bind(tenant)
        .bind(before)
        .bind(limit)
        .fetch_all(pool)
        .await)
    }

    /// One bundle of a tenant, with its document.
    pub async fn get_bundle(
        &self,
        tenant: &str,
        id: i64,
    ) -> Result<Option<StoredBundle>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(concat!(
            "SELECT ",
            bundle_columns!(),
            ", document FROM bundles WHERE tenant = $1 AND id = $2"
        ))
        .bind(tenant)
        .bind(id)
        .fetch_optional(pool)
        .await)
    }

    /// The live activation of a tenant.
    pub async fn live_activation(&self, tenant: &str) -> Result<Option<Activation>, sqlx::Error> {
        on_pool!(self, |pool| sqlx::query_as(LIVE_ACTIVATION)
            .bind(tenant)
            .fetch_optional(pool)
            .await)
    }

    /// Makes a bundle live for its tenant. Activating the live bundle again changes nothing and
    /// returns the live activation (`false`: nothing new).
    pub async fn activate(
        &self,
        tenant: &str,
        bundle_id: i64,
        activated_by: Option<i64>,
    ) -> Result<(Activation, bool), ActivateError> {
        self.switch(tenant, Switch::Bundle(bundle_id), activated_by)
            .await
    }

    /// Makes the bundle that was live before the live activation live again, recorded as a new
    /// activation with `rollback_of`. Repeated rollbacks walk further back.
    pub async fn rollback(
        &self,
        tenant: &str,
        activated_by: Option<i64>,
    ) -> Result<Activation, ActivateError> {
        let (activation, _) = self.switch(tenant, Switch::Rollback, activated_by).await?;
        Ok(activation)
    }

    /// One activation or rollback, in one write transaction that serialises the tenant's
    /// activations (PostgreSQL: the tenant row locked `FOR UPDATE`; SQLite: `BEGIN IMMEDIATE`)
    /// and announces it (PostgreSQL: `NOTIFY`, delivered when it commits).
    async fn switch(
        &self,
        tenant: &str,
        to: Switch,
        activated_by: Option<i64>,
    ) -> Result<(Activation, bool), ActivateError> {
        on_pool!(self, |pool, dialect| {
            let mut tx = dialect::begin_write(pool).await?;
            sqlx::query(ENSURE_TENANT)
                .bind(tenant)
                .execute(&mut *tx)
                .await?;
            dialect::lock_tenant(&mut tx, tenant).await?;
            let live: Option<Activation> = sqlx::query_as(LIVE_ACTIVATION)
                .bind(tenant)
                .fetch_optional(&mut *tx)
                .await?;
            let (bundle_id, previous_id, rollback_of) = match to {
                Switch::Bundle(bundle_id) => {
                    let exists: Option<i64> =
                        sqlx::query_scalar("SELECT id FROM bundles WHERE tenant = $1 AND id = $2")
                            .bind(tenant)
                            .bind(bundle_id)
                            .fetch_optional(&mut *tx)
                            .await?;
                    if exists.is_none() {
                        return Err(ActivateError::NoSuchBundle {
                            id: bundle_id,
                            tenant: tenant.to_owned(),
                        });
                    }
                    match live {
                        Some(live) if live.bundle_id == bundle_id => {
                            tx.commit().await?;
                            return Ok((live, false));
                        }
                        live => (bundle_id, live.map(|live| live.id), None),
                    }
                }
                Switch::Rollback => {
                    let live = live.ok_or(ActivateError::NothingToRollBack)?;
                    let target_id = live.previous_id.ok_or(ActivateError::NothingToRollBack)?;
                    let target: Activation = sqlx::query_as(ACTIVATION_BY_ID)
                        .bind(target_id)
                        .fetch_one(&mut *tx)
                        .await?;
                    (target.bundle_id, target.previous_id, Some(live.id))
                }
            };
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO activations (tenant, bundle_id, previous_id, rollback_of, activated_by) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
            )
            .bind(tenant)
            .bind(bundle_id)
            .bind(previous_id)
            .bind(rollback_of)
            .bind(activated_by)
            .fetch_one(&mut *tx)
            .await?;
            dialect::announce(&mut tx, tenant).await?;
            let created: Activation = sqlx::query_as(ACTIVATION_BY_ID)
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok((created, true))
        })
    }

    /// The live (tenant, activation id) pairs, optionally only for some tenants.
    pub async fn live_versions(
        &self,
        tenants: Option<&[String]>,
    ) -> Result<Vec<(String, i64)>, sqlx::Error> {
        on_pool!(self, |pool, dialect| dialect::live_versions(pool, tenants)
            .await)
    }

    /// The live bundles of these tenants, with their documents.
    pub async fn live_rows(&self, tenants: &[String]) -> Result<Vec<LiveRow>, sqlx::Error> {
        on_pool!(self, |pool, dialect| dialect::live_rows(pool, tenants)
            .await)
    }
}
