//! SQLite, the embedded default: one file (`<data dir>/toolgate.db`) for a single node, with
//! the same tables, guarantees and answers as PostgreSQL. What differs from PostgreSQL is here;
//! every other query is in [`super::database`].
//!
//! - Every connection runs in WAL mode with `synchronous=FULL` (a commit is on disk before it is
//!   answered), a busy timeout, and foreign keys on.
//! - A write transaction is `BEGIN IMMEDIATE`: it takes the file's write lock at once, so
//!   activations are serialised (every tenant's, not only one's) and a transaction never has to
//!   upgrade a read lock midway and fail.
//! - There is no `NOTIFY`: one node, so the reloader reloads a tenant in-process right after its
//!   activation commits (and still polls as a safety net).
//! - Tenant lists are bound as JSON arrays (`json_each`), as SQLite has no array type.

use std::time::Duration;

use sqlx::error::DatabaseError;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteError, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Sqlite, Transaction};

use super::database::LiveRow;

/// The embedded SQLite migrations of `migrations/sqlite/`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// Nothing: no SQLite migration was edited after it was committed (PostgreSQL's
/// `accept_edited_migrations` says why one would be).
pub(super) async fn accept_edited_migrations(_pool: &SqlitePool) -> Result<(), sqlx::Error> {
    Ok(())
}

/// The file name of the embedded store inside the data directory.
pub const FILE_NAME: &str = "toolgate.db";

/// The token `$1` if it is not revoked (the `BEGIN IMMEDIATE` transaction it runs in already
/// excludes a revocation until it ends).
pub const HOLD_ACTIVE_TOKEN: &str = "SELECT id FROM tokens WHERE id = $1 AND revoked_at IS NULL";

/// Revokes the active token `$1` (times as the schema's defaults write them).
pub const REVOKE_TOKEN: &str = "UPDATE tokens \
     SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), revoked_by = $3 \
     WHERE id = $1 AND revoked_at IS NULL AND ($2 IS NULL OR tenant = $2)";

/// A time as a column stores it: RFC 3339 UTC text with milliseconds, as the schema's defaults
/// write times (sqlx's own encoding would write `+00:00` and a varying number of digits).
pub(super) fn stored_time(time: chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// How long a writer waits for another writer (another connection, or a `toolgate token create`
/// in another process) before giving up with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// `options` with what every connection needs: create the file if missing, WAL, full sync,
/// busy timeout, foreign keys.
pub fn connect_options(options: SqliteConnectOptions) -> SqliteConnectOptions {
    options
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true)
}

/// Opens a pool on the file (creating it), connecting once so that a file that cannot be opened
/// is an error at start, not at the first request.
pub async fn open(
    options: SqliteConnectOptions,
    max_connections: u32,
    acquire_timeout: Duration,
) -> Result<SqlitePool, sqlx::Error> {
    SqlitePoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        .connect_with(connect_options(options))
        .await
}

/// Whether an SQLite error means the store cannot take the request now (busy or locked past the
/// busy timeout, out of memory, read-only, an I/O error, disk full, cannot open), as opposed to a
/// bad query or a corrupt file.
pub(super) fn is_unavailable_code(error: &SqliteError) -> bool {
    const BUSY: i32 = 5;
    const LOCKED: i32 = 6;
    const NOMEM: i32 = 7;
    const READONLY: i32 = 8;
    const IOERR: i32 = 10;
    const FULL: i32 = 13;
    const CANTOPEN: i32 = 14;
    // `code()` is the extended result code; its low byte is the primary one.
    let primary = error
        .code()
        .and_then(|code| code.parse::<i32>().ok())
        .map(|code| code & 0xff);
    matches!(
        primary,
        Some(BUSY | LOCKED | NOMEM | READONLY | IOERR | FULL | CANTOPEN)
    )
}

/// Begins a write transaction: `BEGIN IMMEDIATE`, which holds the write lock until it ends.
pub(crate) async fn begin_write(
    pool: &SqlitePool,
) -> Result<Transaction<'static, Sqlite>, sqlx::Error> {
    pool.begin_with("BEGIN IMMEDIATE").await
}

/// Nothing to do: the `BEGIN IMMEDIATE` transaction already excludes every other writer.
pub(super) async fn lock_tenant(
    _tx: &mut Transaction<'_, Sqlite>,
    _payload: &str,
) -> Result<(), sqlx::Error> {
    Ok(())
}

/// Nothing to do: the reloader reloads in-process after the commit (there is one node).
pub(super) async fn announce(
    _tx: &mut Transaction<'_, Sqlite>,
    _payload: &str,
) -> Result<(), sqlx::Error> {
    Ok(())
}

fn json_list(tenants: &[String]) -> String {
    serde_json::Value::from(tenants).to_string()
}

/// The live (tenant, activation id) pairs, optionally only for some tenants.
pub(super) async fn live_versions(
    pool: &SqlitePool,
    tenants: Option<&[String]>,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT tenant, max(id) AS id FROM activations \
         WHERE $1 IS NULL OR tenant IN (SELECT value FROM json_each($1)) \
         GROUP BY tenant ORDER BY tenant",
    )
    .bind(tenants.map(json_list))
    .fetch_all(pool)
    .await
}

/// The live bundles of these tenants, with their documents.
pub(super) async fn live_rows(
    pool: &SqlitePool,
    tenants: &[String],
) -> Result<Vec<LiveRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT a.tenant, a.id AS activation_id, a.created_at AS activated_at, \
         b.id AS bundle_id, b.name, b.sha256, b.document \
         FROM activations a JOIN bundles b ON b.id = a.bundle_id \
         WHERE a.id IN (SELECT max(id) FROM activations \
                        WHERE tenant IN (SELECT value FROM json_each($1)) GROUP BY tenant) \
         ORDER BY a.tenant",
    )
    .bind(json_list(tenants))
    .fetch_all(pool)
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Database, is_unavailable};

    fn token(hash: &[u8]) -> crate::store::NewToken<'_> {
        crate::store::NewToken::new(hash, "tg_test", "agent", "team")
    }

    #[tokio::test]
    async fn a_locked_store_is_unavailable_and_a_bad_row_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let options = SqliteConnectOptions::new().filename(dir.path().join("t.db"));
        let pool = open(options.clone(), 2, Duration::from_secs(5))
            .await
            .unwrap();
        let db = Database::Sqlite(pool.clone());
        db.migrate().await.unwrap();

        // Another writer holds the write lock past this connection's busy timeout.
        let holder = begin_write(&pool).await.unwrap();
        let impatient = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(connect_options(options).busy_timeout(Duration::from_millis(20)))
            .await
            .unwrap();
        let error = Database::Sqlite(impatient)
            .insert_token(token(&[7; 32]))
            .await
            .unwrap_err();
        assert!(is_unavailable(&error), "{error}");
        drop(holder);

        // A CHECK violation is a bad query, not an unavailable store.
        let error = db.insert_token(token(&[7; 3])).await.unwrap_err();
        assert!(!is_unavailable(&error), "{error}");
        assert!(db.insert_token(token(&[7; 32])).await.is_ok());
    }
}
