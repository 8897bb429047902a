//! PostgreSQL: the pool, migrations, and what differs from SQLite — how a write transaction
//! serialises one tenant's activations (the tenant row `FOR UPDATE`), the `NOTIFY` that announces
//! an activation, the "live per tenant" queries (`DISTINCT ON`, `ANY`), which errors mean the
//! database is away. Every other query is in [`super::database`], shared with SQLite.
//!
//! An activation sends `NOTIFY toolgate_policy, '<tenant>'` inside its transaction, so the
//! notification is delivered exactly when it commits; a token's revocation sends
//! [`TOKENS_CHANGED`](super::database::TOKENS_CHANGED) so.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use super::database::LiveRow;

/// The channel activations and revocations are announced on.
pub const CHANNEL: &str = "toolgate_policy";

/// Revokes the active token `$1` (of the tenant `$2`, unless it is NULL) by the token `$3`.
pub const REVOKE_TOKEN: &str = "UPDATE tokens SET revoked_at = now(), revoked_by = $3 \
     WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR tenant = $2)";

/// The token `$1` if it is not revoked, held so until the transaction ends: a revocation of it
/// that is under way commits first and this finds nothing, or waits for this transaction.
pub const HOLD_ACTIVE_TOKEN: &str =
    "SELECT id FROM tokens WHERE id = $1 AND revoked_at IS NULL FOR SHARE";

/// A time as a column stores it: `timestamptz` takes it as it is.
pub(super) fn stored_time(time: chrono::DateTime<chrono::Utc>) -> chrono::DateTime<chrono::Utc> {
    time
}

/// The embedded PostgreSQL migrations of `migrations/postgres/` (SQLite has its own beside them).
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Migrations whose file was edited after it was committed, in comments only: the version and
/// the checksum (sha384) of the text first committed, which a store migrated by a build of that
/// time recorded. sqlx refuses to migrate a store whose recorded checksum is not the file's
/// ("previously applied but has been modified"), so such a store could never be upgraded.
/// `20261204000000`: a paragraph added to its comment an hour after 9b3e725 (in 1aacfb5).
/// Only for texts that run the same statements; a shipped migration is never edited again.
const EDITED_MIGRATIONS: [(i64, &str); 1] = [(
    20261204000000,
    "d3b31e6724d8e086a5a7c41e858c1bfcf068b1c138236dc302e8953a1744ef9f8d7dd50eb6ae5bc347f704a9146d1e7c",
)];

/// Records the current checksum of each of [`EDITED_MIGRATIONS`] where the store holds that of
/// its first text, before [`MIGRATOR`] compares them. Conditional on the old checksum, so it
/// is idempotent and safe with replicas starting at once; nothing on a store never migrated.
pub(super) async fn accept_edited_migrations(pool: &PgPool) -> Result<(), sqlx::Error> {
    let migrated: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(pool)
        .await?;
    if !migrated {
        return Ok(());
    }
    for (version, first) in EDITED_MIGRATIONS {
        let Some(current) = MIGRATOR.iter().find(|m| m.version == version) else {
            continue;
        };
        let done = sqlx::query(
            "UPDATE _sqlx_migrations SET checksum = $1 WHERE version = $2 AND checksum = $3",
        )
        .bind(current.checksum.as_ref())
        .bind(version)
        .bind(hex::decode(first).unwrap_or_default())
        .execute(pool)
        .await?;
        if done.rows_affected() > 0 {
            tracing::info!(
                migration.version = version,
                "the store recorded the checksum of this migration's first text, which differs \
                 from the current one in comments only; recorded the current one"
            );
        }
    }
    Ok(())
}

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

/// The audit writer's own lazy pool: its inserts, over one connection it keeps, and the spool's
/// replays. Apart from the service's pool, so that a burst of admin requests never makes
/// evaluations wait for an audit connection, and named apart in `pg_stat_activity`.
pub fn writer_pool(options: PgConnectOptions, acquire_timeout: Duration) -> PgPool {
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(acquire_timeout)
        .connect_lazy_with(options)
}

/// Whether a PostgreSQL error code means the database cannot be reached.
pub(super) fn is_unavailable_code(error: &dyn sqlx::error::DatabaseError) -> bool {
    error.code().is_some_and(|code| {
        // 08: connection exception; 57P: operator intervention (shutdown, terminated);
        // 53: insufficient resources.
        code.starts_with("08") || code.starts_with("57P") || code.starts_with("53")
    })
}

/// Begins a write transaction.
pub(super) async fn begin_write(
    pool: &PgPool,
) -> Result<Transaction<'static, Postgres>, sqlx::Error> {
    pool.begin().await
}

/// Locks the tenant row (which exists) so that activations of one tenant are serialised.
pub(super) async fn lock_tenant(
    tx: &mut Transaction<'_, Postgres>,
    tenant: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT name FROM tenants WHERE name = $1 FOR UPDATE")
        .bind(tenant)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Announces a change to every replica, when the transaction commits: an activation of the
/// tenant `payload`, or [`TOKENS_CHANGED`](super::database::TOKENS_CHANGED).
pub(super) async fn announce(
    tx: &mut Transaction<'_, Postgres>,
    payload: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(payload)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The live (tenant, activation id) pairs, optionally only for some tenants.
pub(super) async fn live_versions(
    pool: &PgPool,
    tenants: Option<&[String]>,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT DISTINCT ON (tenant) tenant, id FROM activations \
         WHERE ($1::text[] IS NULL OR tenant = ANY($1)) ORDER BY tenant, id DESC",
    )
    .bind(tenants)
    .fetch_all(pool)
    .await
}

/// The live bundles of these tenants, with their documents.
pub(super) async fn live_rows(
    pool: &PgPool,
    tenants: &[String],
) -> Result<Vec<LiveRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT DISTINCT ON (a.tenant) a.tenant, a.id AS activation_id, \
         a.created_at AS activated_at, b.id AS bundle_id, b.name, b.sha256, b.document \
         FROM activations a JOIN bundles b ON b.id = a.bundle_id \
         WHERE a.tenant = ANY($1) ORDER BY a.tenant, a.id DESC",
    )
    .bind(tenants)
    .fetch_all(pool)
    .await
}
