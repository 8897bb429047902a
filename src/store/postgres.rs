//! PostgreSQL access: the pool, migrations and every query, as runtime-checked `sqlx::query`
//! calls (no offline query data needed).
//!
//! Bundles are immutable rows (a trigger refuses updates and deletes); activations are history,
//! the newest row per tenant is live. An activation sends `NOTIFY toolgate_policy, '<tenant>'`
//! inside its transaction, so the notification is delivered exactly when it commits.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, Row, Transaction};

/// The channel activations are announced on.
pub const CHANNEL: &str = "toolgate_policy";

/// The embedded PostgreSQL migrations of `migrations/postgres/` (SQLite has its own beside them).
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Connect options for `url` with an `application_name`.
pub fn connect_options(url: &str, application_name: &str) -> Result<PgConnectOptions, sqlx::Error> {
    Ok(url
        .parse::<PgConnectOptions>()?
        .application_name(application_name))
}

/// A lazy pool: no connection is made until first use, so a server can start while the database
/// is away.
pub fn lazy_pool(
    options: PgConnectOptions,
    max_connections: u32,
    acquire_timeout: Duration,
) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        .connect_lazy_with(options)
}

/// Whether an error means the database cannot be reached (as opposed to a bad query).
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // 08: connection exception; 57P: operator intervention (shutdown, terminated);
            // 53: insufficient resources.
            code.starts_with("08") || code.starts_with("57P") || code.starts_with("53")
        }),
        _ => false,
    }
}

/// A token row, without its hash.
#[derive(Debug, Clone)]
pub struct TokenRow {
    /// The hash of the token.
    pub hash: Vec<u8>,
    /// The row id.
    pub id: i64,
    /// `agent`, `admin` or `auditor`.
    pub role: String,
    /// The token's tenant.
    pub tenant: String,
}

/// Every token that is not revoked.
pub async fn active_tokens(pool: &PgPool) -> Result<Vec<TokenRow>, sqlx::Error> {
    let rows = sqlx::query("SELECT hash, id, role, tenant FROM tokens WHERE revoked_at IS NULL")
        .fetch_all(pool)
        .await?;
    rows.iter().map(token_row).collect()
}

/// The token with this hash, if it exists and is not revoked.
pub async fn token_by_hash(pool: &PgPool, hash: &[u8]) -> Result<Option<TokenRow>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT hash, id, role, tenant FROM tokens WHERE hash = $1 AND revoked_at IS NULL",
    )
    .bind(hash)
    .fetch_optional(pool)
    .await?;
    row.as_ref().map(token_row).transpose()
}

fn token_row(row: &sqlx::postgres::PgRow) -> Result<TokenRow, sqlx::Error> {
    Ok(TokenRow {
        hash: row.try_get("hash")?,
        id: row.try_get("id")?,
        role: row.try_get("role")?,
        tenant: row.try_get("tenant")?,
    })
}

/// Makes sure the tenant row exists.
pub async fn ensure_tenant(
    executor: &mut Transaction<'_, Postgres>,
    tenant: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING")
        .bind(tenant)
        .execute(&mut **executor)
        .await?;
    Ok(())
}

/// Stores a new token hash; returns its id.
pub async fn insert_token(
    pool: &PgPool,
    hash: &[u8],
    prefix: &str,
    role: &str,
    tenant: &str,
    description: Option<&str>,
) -> Result<i64, sqlx::Error> {
    let mut tx = pool.begin().await?;
    ensure_tenant(&mut tx, tenant).await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO tokens (hash, prefix, role, tenant, description) VALUES ($1, $2, $3, $4, $5) \
         RETURNING id",
    )
    .bind(hash)
    .bind(prefix)
    .bind(role)
    .bind(tenant)
    .bind(description)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// A stored bundle, without its document.
#[derive(Debug, Clone, Serialize)]
pub struct BundleSummary {
    /// The row id.
    pub id: i64,
    /// The tenant.
    pub tenant: String,
    /// The bundle's `name`.
    pub name: String,
    /// sha256 of the canonical JSON.
    pub sha256: String,
    /// The token that pushed it (`null` for the bootstrap admin token).
    pub created_by: Option<i64>,
    /// When it was pushed.
    pub created_at: DateTime<Utc>,
}

macro_rules! bundle_columns {
    () => {
        "id, tenant, name, sha256, created_by, created_at"
    };
}

fn bundle_summary(row: &sqlx::postgres::PgRow) -> Result<BundleSummary, sqlx::Error> {
    Ok(BundleSummary {
        id: row.try_get("id")?,
        tenant: row.try_get("tenant")?,
        name: row.try_get("name")?,
        sha256: row.try_get("sha256")?,
        created_by: row.try_get("created_by")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Stores a bundle unless the tenant already has one with this sha256. Returns the bundle and
/// whether it is new.
pub async fn insert_bundle(
    pool: &PgPool,
    tenant: &str,
    name: &str,
    sha256: &str,
    document: &Value,
    created_by: Option<i64>,
) -> Result<(BundleSummary, bool), sqlx::Error> {
    let mut tx = pool.begin().await?;
    ensure_tenant(&mut tx, tenant).await?;
    let inserted = sqlx::query(concat!(
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
        Some(row) => (bundle_summary(&row)?, true),
        None => {
            let row = sqlx::query(concat!(
                "SELECT ",
                bundle_columns!(),
                " FROM bundles WHERE tenant = $1 AND sha256 = $2"
            ))
            .bind(tenant)
            .bind(sha256)
            .fetch_one(&mut *tx)
            .await?;
            (bundle_summary(&row)?, false)
        }
    };
    tx.commit().await?;
    Ok(result)
}

/// A tenant's bundles, newest first.
pub async fn list_bundles(pool: &PgPool, tenant: &str) -> Result<Vec<BundleSummary>, sqlx::Error> {
    let rows = sqlx::query(concat!(
        "SELECT ",
        bundle_columns!(),
        " FROM bundles WHERE tenant = $1 ORDER BY id DESC"
    ))
    .bind(tenant)
    .fetch_all(pool)
    .await?;
    rows.iter().map(bundle_summary).collect()
}

/// One bundle of a tenant, with its document.
pub async fn get_bundle(
    pool: &PgPool,
    tenant: &str,
    id: i64,
) -> Result<Option<(BundleSummary, Value)>, sqlx::Error> {
    let row = sqlx::query(concat!(
        "SELECT ",
        bundle_columns!(),
        ", document FROM bundles WHERE tenant = $1 AND id = $2"
    ))
    .bind(tenant)
    .bind(id)
    .fetch_optional(pool)
    .await?;
    match row {
        Some(row) => {
            let document: sqlx::types::Json<Value> = row.try_get("document")?;
            Ok(Some((bundle_summary(&row)?, document.0)))
        }
        None => Ok(None),
    }
}

/// One activation: which bundle went live for a tenant, when, and by whom.
#[derive(Debug, Clone, Serialize)]
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

macro_rules! activation_select {
    () => {
        "SELECT a.id, a.tenant, a.bundle_id, b.name, b.sha256, \
         a.previous_id, a.rollback_of, a.activated_by, a.created_at AS activated_at \
         FROM activations a JOIN bundles b ON b.id = a.bundle_id"
    };
}

fn activation(row: &sqlx::postgres::PgRow) -> Result<Activation, sqlx::Error> {
    Ok(Activation {
        id: row.try_get("id")?,
        tenant: row.try_get("tenant")?,
        bundle_id: row.try_get("bundle_id")?,
        name: row.try_get("name")?,
        sha256: row.try_get("sha256")?,
        previous_id: row.try_get("previous_id")?,
        rollback_of: row.try_get("rollback_of")?,
        activated_by: row.try_get("activated_by")?,
        activated_at: row.try_get("activated_at")?,
    })
}

async fn live_activation_in(
    tx: &mut Transaction<'_, Postgres>,
    tenant: &str,
) -> Result<Option<Activation>, sqlx::Error> {
    let row = sqlx::query(concat!(
        activation_select!(),
        " WHERE a.tenant = $1 ORDER BY a.id DESC LIMIT 1"
    ))
    .bind(tenant)
    .fetch_optional(&mut **tx)
    .await?;
    row.as_ref().map(activation).transpose()
}

/// The live activation of a tenant.
pub async fn live_activation(
    pool: &PgPool,
    tenant: &str,
) -> Result<Option<Activation>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let live = live_activation_in(&mut tx, tenant).await?;
    tx.commit().await?;
    Ok(live)
}

/// Why an activation or rollback did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ActivateError {
    /// No such bundle in the tenant.
    #[error("bundle {0} does not exist in this tenant")]
    NoSuchBundle(i64),
    /// Nothing to roll back to.
    #[error("there is no previous activation to roll back to")]
    NothingToRollBack,
    /// The database failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Locks the tenant row so that activations of one tenant are serialised.
async fn lock_tenant(tx: &mut Transaction<'_, Postgres>, tenant: &str) -> Result<(), sqlx::Error> {
    ensure_tenant(tx, tenant).await?;
    sqlx::query("SELECT name FROM tenants WHERE name = $1 FOR UPDATE")
        .bind(tenant)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn insert_activation(
    tx: &mut Transaction<'_, Postgres>,
    tenant: &str,
    bundle_id: i64,
    previous_id: Option<i64>,
    rollback_of: Option<i64>,
    activated_by: Option<i64>,
) -> Result<Activation, sqlx::Error> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO activations (tenant, bundle_id, previous_id, rollback_of, activated_by) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(tenant)
    .bind(bundle_id)
    .bind(previous_id)
    .bind(rollback_of)
    .bind(activated_by)
    .fetch_one(&mut **tx)
    .await?;
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(tenant)
        .execute(&mut **tx)
        .await?;
    let row = sqlx::query(concat!(activation_select!(), " WHERE a.id = $1"))
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    activation(&row)
}

/// Makes a bundle live for its tenant. Activating the live bundle again changes nothing and
/// returns the live activation (`false`: nothing new).
pub async fn activate(
    pool: &PgPool,
    tenant: &str,
    bundle_id: i64,
    activated_by: Option<i64>,
) -> Result<(Activation, bool), ActivateError> {
    let mut tx = pool.begin().await?;
    lock_tenant(&mut tx, tenant).await?;
    let exists: Option<i64> =
        sqlx::query_scalar("SELECT id FROM bundles WHERE tenant = $1 AND id = $2")
            .bind(tenant)
            .bind(bundle_id)
            .fetch_optional(&mut *tx)
            .await?;
    if exists.is_none() {
        return Err(ActivateError::NoSuchBundle(bundle_id));
    }
    let live = live_activation_in(&mut tx, tenant).await?;
    if let Some(live) = live.as_ref().filter(|live| live.bundle_id == bundle_id) {
        let live = live.clone();
        tx.commit().await?;
        return Ok((live, false));
    }
    let created = insert_activation(
        &mut tx,
        tenant,
        bundle_id,
        live.map(|live| live.id),
        None,
        activated_by,
    )
    .await?;
    tx.commit().await?;
    Ok((created, true))
}

/// Makes the bundle that was live before the live activation live again, recorded as a new
/// activation with `rollback_of`. Repeated rollbacks walk further back.
pub async fn rollback(
    pool: &PgPool,
    tenant: &str,
    activated_by: Option<i64>,
) -> Result<Activation, ActivateError> {
    let mut tx = pool.begin().await?;
    lock_tenant(&mut tx, tenant).await?;
    let live = live_activation_in(&mut tx, tenant)
        .await?
        .ok_or(ActivateError::NothingToRollBack)?;
    let target_id = live.previous_id.ok_or(ActivateError::NothingToRollBack)?;
    let target = sqlx::query(concat!(activation_select!(), " WHERE a.id = $1"))
        .bind(target_id)
        .fetch_one(&mut *tx)
        .await?;
    let target = activation(&target)?;
    let created = insert_activation(
        &mut tx,
        tenant,
        target.bundle_id,
        target.previous_id,
        Some(live.id),
        activated_by,
    )
    .await?;
    tx.commit().await?;
    Ok(created)
}

/// The live (tenant, activation id) pairs, optionally only for some tenants.
pub async fn live_versions(
    pool: &PgPool,
    tenants: Option<&[String]>,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT ON (tenant) tenant, id FROM activations \
         WHERE ($1::text[] IS NULL OR tenant = ANY($1)) ORDER BY tenant, id DESC",
    )
    .bind(tenants)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("tenant")?, row.try_get("id")?)))
        .collect()
}

/// A live bundle with its document, as the reloader needs it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
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
    pub document: Value,
}

/// The live bundles of these tenants, with their documents.
pub async fn live_rows(pool: &PgPool, tenants: &[String]) -> Result<Vec<LiveRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT DISTINCT ON (a.tenant) a.tenant, a.id AS activation_id, \
         a.created_at AS activated_at, b.id AS bundle_id, b.name, b.sha256, b.document \
         FROM activations a JOIN bundles b ON b.id = a.bundle_id \
         WHERE a.tenant = ANY($1) ORDER BY a.tenant, a.id DESC",
    )
    .bind(tenants)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            let document: sqlx::types::Json<Value> = row.try_get("document")?;
            Ok(LiveRow {
                tenant: row.try_get("tenant")?,
                activation_id: row.try_get("activation_id")?,
                activated_at: row.try_get("activated_at")?,
                bundle_id: row.try_get("bundle_id")?,
                name: row.try_get("name")?,
                sha256: row.try_get("sha256")?,
                document: document.0,
            })
        })
        .collect()
}
