//! Where audit rows are kept: [`AuditStore`], over the service's [`Database`] — PostgreSQL
//! (`postgres`: monthly partitions, several replicas) or the embedded SQLite file (`sqlite`: one
//! node). Every query of the audit lives in those two modules; what they share (the filter, the
//! chain check of `verify`, the reports) lives here, so the writer, the routes and the CLI never
//! see which database it is.

mod postgres;
mod sqlite;

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::record::{GENESIS, Row};
use super::spool::Head;
use crate::store::Database;

/// The audit's database. Cheap to clone (a pool handle).
#[derive(Debug, Clone)]
pub struct AuditStore(Database);

impl From<Database> for AuditStore {
    fn from(db: Database) -> Self {
        Self(db)
    }
}

/// Inserts the writer's new rows: as [`AuditStore::insert`], but on PostgreSQL without the cost
/// of checking for rows already there first (a batch that meets one goes again as a replay), and
/// over one connection kept from batch to batch. sqlx tests a connection with a round trip each
/// time it goes back to the pool: once per batch, 3 % of the server's CPU under durable load. A
/// connection whose insert failed, or was cancelled, goes back (and is tested then); the next
/// batch takes another.
#[derive(Debug)]
pub struct Inserter {
    store: AuditStore,
    held: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
}

impl Inserter {
    /// Inserts `rows`, new rows of this replica's chain.
    pub async fn insert_new(&mut self, rows: &[Row]) -> Result<(), sqlx::Error> {
        if rows.is_empty() {
            return Ok(());
        }
        let pool = match &self.store.0 {
            Database::Postgres(pool) => pool,
            Database::Sqlite(_) => return self.store.insert(rows).await,
        };
        // Taken out while in use: a cancelled insert drops it back into the pool.
        let mut conn = match self.held.take() {
            Some(conn) => conn,
            None => pool.acquire().await?,
        };
        postgres::insert_new(&mut conn, rows).await?;
        self.held = Some(conn);
        Ok(())
    }
}

/// What `GET /v1/audit` and `toolgate audit export` filter on.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these tenants' rows (`None`: every tenant).
    pub tenant: Option<String>,
    /// `session_id`.
    pub session_id: Option<String>,
    /// `decision`.
    pub decision: Option<String>,
    /// `tool`.
    pub tool: Option<String>,
    /// A rule id among the matched rules.
    pub rule: Option<String>,
    /// `time >= since`.
    pub since: Option<DateTime<Utc>>,
    /// `time < until`.
    pub until: Option<DateTime<Utc>>,
    /// Keyset position: rows strictly older than (time, id).
    pub before: Option<(DateTime<Utc>, String)>,
}

/// One problem found by [`AuditStore::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// Rows are missing: seqs `from..=to` of `replica`.
    Gap {
        /// The replica.
        replica: String,
        /// First missing seq.
        from: i64,
        /// Last missing seq.
        to: i64,
        /// The row before the gap (`None`: the gap is at the start of the kept chain).
        after: Option<String>,
        /// The row after the gap.
        before: String,
    },
    /// A row's content does not match its hash.
    Edited {
        /// The replica.
        replica: String,
        /// Its seq.
        seq: i64,
        /// The row.
        id: String,
    },
    /// A row's `prev_hash` is not the previous row's hash.
    Unlinked {
        /// The replica.
        replica: String,
        /// Its seq.
        seq: i64,
        /// The row.
        id: String,
        /// The row before it.
        previous: Option<String>,
    },
    /// Two rows with one seq.
    Duplicate {
        /// The replica.
        replica: String,
        /// The seq.
        seq: i64,
        /// The second row.
        id: String,
    },
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gap {
                replica,
                from,
                to,
                after,
                before,
            } => {
                let seqs = if from == to {
                    format!("seq {from} is")
                } else {
                    format!("seqs {from}..={to} are")
                };
                match after {
                    Some(after) => write!(
                        f,
                        "gap: replica `{replica}` {seqs} missing, between row {after} and row {before}"
                    ),
                    None => write!(
                        f,
                        "gap: replica `{replica}` {seqs} missing, before row {before} (the first kept row)"
                    ),
                }
            }
            Self::Edited { replica, seq, id } => write!(
                f,
                "edited: row {id} (replica `{replica}`, seq {seq}) does not match its hash"
            ),
            Self::Unlinked {
                replica,
                seq,
                id,
                previous,
            } => write!(
                f,
                "broken link: row {id} (replica `{replica}`, seq {seq}) does not chain to row {}",
                previous.as_deref().unwrap_or("the pruned checkpoint")
            ),
            Self::Duplicate { replica, seq, id } => write!(
                f,
                "duplicate: row {id} repeats seq {seq} of replica `{replica}`"
            ),
        }
    }
}

/// The result of [`AuditStore::verify`].
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Replicas checked.
    pub replicas: usize,
    /// Rows checked.
    pub rows: u64,
    /// What is wrong.
    pub findings: Vec<Finding>,
    /// Chains that restart (a replica that started with its head unknown: a batch in flight when
    /// it stopped, or neither spool nor database).
    pub restarts: Vec<String>,
}

/// The result of [`AuditStore::prune`].
#[derive(Debug, Default)]
pub struct PruneReport {
    /// The month partitions dropped (or that would be, on a dry run).
    pub partitions: Vec<String>,
    /// Another prune held the lock; nothing was done.
    pub busy: bool,
}

impl AuditStore {
    /// Inserts rows; rows already there (a replay) are ignored.
    pub async fn insert(&self, rows: &[Row]) -> Result<(), sqlx::Error> {
        if rows.is_empty() {
            return Ok(());
        }
        match &self.0 {
            Database::Postgres(pool) => postgres::insert(&mut *pool.acquire().await?, rows).await,
            Database::Sqlite(pool) => sqlite::insert(pool, rows).await,
        }
    }

    /// An [`Inserter`] for the writer's new rows.
    pub fn inserter(&self) -> Inserter {
        Inserter {
            store: self.clone(),
            held: None,
        }
    }

    /// The last row of `replica`'s chain in the database (or its pruned checkpoint); `None` when
    /// the replica has never written.
    pub async fn head(&self, replica: &str) -> Result<Option<Head>, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::head(pool, replica).await,
            Database::Sqlite(pool) => sqlite::head(pool, replica).await,
        }
    }

    /// Waits, at most `limit`, until no other connection with this pool's `application_name`
    /// (the writer's, named per replica) is running a statement. A batch that a stopped process
    /// of this replica sent is then committed or never will be, and [`AuditStore::head`] has
    /// every batch it ever will. `false` when `limit` passed first, or when the server hides
    /// other sessions' state (a role without `pg_read_all_stats` sees its own sessions only).
    /// The embedded file has nothing to wait for: one process writes it, and a transaction it
    /// did not finish is rolled back when the file is opened.
    pub async fn wait_for_stopped_writers(&self, limit: Duration) -> Result<bool, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::wait_for_stopped_writers(pool, limit).await,
            Database::Sqlite(_) => Ok(true),
        }
    }

    /// Rows matching `filter`, newest first, at most `limit`.
    pub async fn query(&self, filter: &Filter, limit: i64) -> Result<Vec<Row>, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::query(pool, filter, limit).await,
            Database::Sqlite(pool) => sqlite::query(pool, filter, limit).await,
        }
    }

    /// Checks every replica's chain (or one replica's), from its pruned checkpoint if any.
    pub async fn verify(&self, replica: Option<&str>) -> Result<VerifyReport, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::verify(pool, replica).await,
            Database::Sqlite(pool) => sqlite::verify(pool, replica).await,
        }
    }

    /// Removes the whole months that end on or before `cutoff`, after recording each replica's
    /// last removed row as its checkpoint: a row goes once its whole month is older than the
    /// cut-off. One transaction.
    pub async fn prune(
        &self,
        cutoff: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<PruneReport, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::prune(pool, cutoff, dry_run).await,
            Database::Sqlite(pool) => sqlite::prune(pool, cutoff, dry_run).await,
        }
    }
}

/// The name of the month (UTC) holding `time`: `audit_y2026m11` (PostgreSQL's partition name).
fn month_name(time: DateTime<Utc>) -> String {
    time.format("audit_y%Ym%m").to_string()
}

/// The start of the month after the one named `name` (`audit_y2026m11` → 2026-12-01).
fn month_end(name: &str) -> Option<DateTime<Utc>> {
    let rest = name.strip_prefix("audit_y")?;
    let (year, month) = rest.split_once('m')?;
    let (year, month): (i32, u32) = (year.parse().ok()?, month.parse().ok()?);
    let (year, month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    chrono::NaiveDate::from_ymd_opt(year, month, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
}

/// The columns every database stores alike; the backend decodes `time_us` and the three lists
/// (`rules`, `shadow_rules`, `bundles`), which it stores its own way.
fn decode_row<R>(row: &R, time_us: i64, lists: [Vec<String>; 3]) -> Result<Row, sqlx::Error>
where
    R: sqlx::Row,
    for<'c> &'c str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Vec<u8>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let [rules, shadow_rules, bundles] = lists;
    Ok(Row {
        id: row.try_get("id")?,
        time_us,
        replica_id: row.try_get("replica_id")?,
        seq: row.try_get("seq")?,
        prev_hash: hash32(row, "prev_hash")?,
        hash: hash32(row, "hash")?,
        tenant: row.try_get("tenant")?,
        agent: row.try_get("agent")?,
        session_id: row.try_get("session_id")?,
        tool_use_id: row.try_get("tool_use_id")?,
        prompt_id: row.try_get("prompt_id")?,
        event: row.try_get("event")?,
        tool: row.try_get("tool")?,
        decision: row.try_get("decision")?,
        mode: row.try_get("mode")?,
        shadow_decision: row.try_get("shadow_decision")?,
        winner: row.try_get("winner")?,
        rules,
        shadow_rules,
        reason: row.try_get("reason")?,
        bundles,
        input: row.try_get("input")?,
        cwd: row.try_get("cwd")?,
        permission_mode: row.try_get("permission_mode")?,
        latency_us: row.try_get("latency_us")?,
        repeat: row.try_get("repeat")?,
        failure: row.try_get("failure")?,
    })
}

/// A 32-byte hash column.
fn hash32<R>(row: &R, column: &str) -> Result<[u8; 32], sqlx::Error>
where
    R: sqlx::Row,
    for<'c> &'c str: sqlx::ColumnIndex<R>,
    for<'r> Vec<u8>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let bytes: Vec<u8> = row.try_get(column)?;
    bytes
        .try_into()
        .map_err(|_| sqlx::Error::Decode(format!("`{column}` is not 32 bytes").into()))
}

/// Checks rows in (replica, seq, time) order, one replica's chain after the other.
struct Verifier {
    checkpoints: Vec<(String, i64, Vec<u8>)>,
    chain: Option<Chain>,
    report: VerifyReport,
}

impl Verifier {
    fn new(checkpoints: Vec<(String, i64, Vec<u8>)>) -> Self {
        Self {
            checkpoints,
            chain: None,
            report: VerifyReport::default(),
        }
    }

    /// Checks every row of `rows` and reports.
    async fn check_all(
        mut self,
        rows: impl futures_util::Stream<Item = Result<Row, sqlx::Error>>,
    ) -> Result<VerifyReport, sqlx::Error> {
        let mut rows = std::pin::pin!(rows);
        while let Some(row) = futures_util::TryStreamExt::try_next(&mut rows).await? {
            self.push(&row);
        }
        Ok(self.report)
    }

    fn push(&mut self, row: &Row) {
        self.report.rows += 1;
        let chain = match self.chain.take() {
            Some(chain) if chain.replica == row.replica_id => chain,
            _ => {
                self.report.replicas += 1;
                let checkpoint = self
                    .checkpoints
                    .iter()
                    .find(|(r, _, _)| *r == row.replica_id);
                Chain::start(&row.replica_id, checkpoint)
            }
        };
        let chain = self.chain.insert(chain);
        chain.check(row, &mut self.report);
    }
}

/// Verification state of one replica's chain.
struct Chain {
    replica: String,
    next_seq: i64,
    prev_hash: [u8; 32],
    prev_id: Option<String>,
    last_seq: i64,
}

impl Chain {
    fn start(replica: &str, checkpoint: Option<&(String, i64, Vec<u8>)>) -> Self {
        let (seq, hash) = match checkpoint {
            Some((_, seq, hash)) => (*seq, hash.as_slice().try_into().unwrap_or(GENESIS)),
            None => (0, GENESIS),
        };
        Self {
            replica: replica.to_owned(),
            next_seq: seq + 1,
            prev_hash: hash,
            prev_id: None,
            last_seq: seq,
        }
    }

    fn check(&mut self, row: &Row, report: &mut VerifyReport) {
        if row.compute_hash() != row.hash {
            report.findings.push(Finding::Edited {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
            });
        }
        if row.seq <= self.last_seq && self.prev_id.is_some() {
            report.findings.push(Finding::Duplicate {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
            });
            return;
        }
        let restart = row.prev_hash == GENESIS && row.seq != 1;
        if restart {
            report.restarts.push(format!(
                "replica `{}` restarts its chain at seq {} (row {}): it started without its chain's head (a batch was in flight when it stopped, or it had neither spool nor database)",
                self.replica, row.seq, row.id
            ));
        } else if row.seq > self.next_seq {
            report.findings.push(Finding::Gap {
                replica: self.replica.clone(),
                from: self.next_seq,
                to: row.seq - 1,
                after: self.prev_id.clone(),
                before: row.id.clone(),
            });
        } else if row.prev_hash != self.prev_hash {
            report.findings.push(Finding::Unlinked {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
                previous: self.prev_id.clone(),
            });
        }
        self.next_seq = row.seq + 1;
        self.last_seq = row.seq;
        self.prev_hash = row.hash;
        self.prev_id = Some(row.id.clone());
    }
}
