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
    /// `event` (the hook event's Claude Code name: `UserPromptSubmit`).
    pub event: Option<String>,
    /// `agent` (`claude-code`, `cursor`, …).
    pub agent: Option<String>,
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

/// A replica's chain head known outside the database (a log line, the metric's history, the
/// replica's spool directory): the stored chain must reach `seq`, and its row there must have
/// `hash` when one is given. Deleting the newest rows of a chain leaves no gap and no broken
/// link; only such a witness shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedHead {
    /// The replica.
    pub replica: String,
    /// The seq its chain reached.
    pub seq: i64,
    /// The hash of its row at `seq`, when known.
    pub hash: Option<[u8; 32]>,
}

impl std::str::FromStr for ExpectedHead {
    type Err = String;

    /// `REPLICA=SEQ` or `REPLICA=SEQ:HASH` (64 hex digits), as the writer's "audit chain head"
    /// log line gives them. The replica id is what comes before the last `=`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (replica, head) = text
            .rsplit_once('=')
            .ok_or_else(|| format!("`{text}` is not REPLICA=SEQ[:HASH]"))?;
        if replica.is_empty() {
            return Err(format!("`{text}` names no replica (REPLICA=SEQ[:HASH])"));
        }
        let (seq, hash) = match head.split_once(':') {
            Some((seq, hash)) => (seq, Some(hash)),
            None => (head, None),
        };
        let seq = seq
            .parse::<i64>()
            .ok()
            .filter(|seq| *seq > 0)
            .ok_or_else(|| format!("the seq `{seq}` in `{text}` is not a positive integer"))?;
        let hash = hash
            .map(|hash| {
                let mut bytes = [0u8; 32];
                hex::decode_to_slice(hash, &mut bytes)
                    .map(|()| bytes)
                    .map_err(|_| format!("the hash in `{text}` is not 64 hex digits"))
            })
            .transpose()?;
        Ok(Self {
            replica: replica.to_owned(),
            seq,
            hash,
        })
    }
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
    /// The chain ends before an expected head: its newest rows, seqs `from..=to`, are missing.
    Truncated {
        /// The replica.
        replica: String,
        /// First missing seq.
        from: i64,
        /// The expected head's seq.
        to: i64,
        /// The chain's last row (`None`: the replica has no rows, or none after its checkpoint).
        last: Option<String>,
    },
    /// The chain has no row at an expected head's seq, though it goes on past it.
    HeadMissing {
        /// The replica.
        replica: String,
        /// The expected head's seq.
        seq: i64,
        /// The first row after it.
        before: String,
    },
    /// The row at an expected head's seq has another hash: the chain was rewritten.
    HeadMismatch {
        /// The replica.
        replica: String,
        /// The seq.
        seq: i64,
        /// The row (`None`: the pruned checkpoint).
        id: Option<String>,
        /// The hash stored.
        stored: [u8; 32],
        /// The hash expected.
        expected: [u8; 32],
    },
    /// `--replica` names a replica with no row and no pruned checkpoint: a typo checks nothing.
    UnknownReplica {
        /// The replica asked for.
        replica: String,
    },
}

/// `seq 4 is` or `seqs 4..=7 are`.
fn seqs_are(from: i64, to: i64) -> String {
    if from == to {
        format!("seq {from} is")
    } else {
        format!("seqs {from}..={to} are")
    }
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
                let seqs = seqs_are(*from, *to);
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
            Self::Truncated {
                replica,
                from,
                to,
                last,
            } => {
                let seqs = seqs_are(*from, *to);
                match last {
                    Some(last) => write!(
                        f,
                        "truncated: replica `{replica}` ends at row {last} (seq {}), before its \
                         expected head at seq {to}: {seqs} missing",
                        from - 1
                    ),
                    None => write!(
                        f,
                        "truncated: replica `{replica}` has no rows, but its expected head is at \
                         seq {to}: {seqs} missing"
                    ),
                }
            }
            Self::HeadMissing {
                replica,
                seq,
                before,
            } => write!(
                f,
                "missing head: replica `{replica}` has no row at seq {seq}, its expected head \
                 (the next row is {before})"
            ),
            Self::HeadMismatch {
                replica,
                seq,
                id,
                stored,
                expected,
            } => {
                let row = match id {
                    Some(id) => format!("row {id}"),
                    None => "the pruned checkpoint".to_owned(),
                };
                write!(
                    f,
                    "head mismatch: {row} (replica `{replica}`, seq {seq}) has hash {}, not the \
                     expected head's {}",
                    hex::encode(stored),
                    hex::encode(expected)
                )
            }
            Self::UnknownReplica { replica } => write!(
                f,
                "unknown replica: no audit row or pruned checkpoint of replica `{replica}` (its \
                 id is the `replica_id` of its rows; without `--replica` every chain is checked)"
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
    /// Expected heads the chains reach (with the hash given, when one was).
    pub heads_reached: usize,
    /// What could not be checked (an expected head whose rows were pruned).
    pub notes: Vec<String>,
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

    /// The rows `filter` selects, newest first, a page of `size` at a time (keyset: each page
    /// starts after the last row of the one before).
    pub fn pages(&self, filter: Filter, size: i64) -> Pages {
        Pages {
            store: self.clone(),
            filter,
            size,
            done: false,
        }
    }

    /// Checks every replica's chain (or one replica's), from its pruned checkpoint if any, and
    /// that each reaches its `expected` heads.
    pub async fn verify(
        &self,
        replica: Option<&str>,
        expected: &[ExpectedHead],
    ) -> Result<VerifyReport, sqlx::Error> {
        match &self.0 {
            Database::Postgres(pool) => postgres::verify(pool, replica, expected).await,
            Database::Sqlite(pool) => sqlite::verify(pool, replica, expected).await,
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

/// Longest line of an export that is read: a row is far shorter (its input at most 64 KiB).
const MAX_EXPORT_LINE: u64 = 16 * 1024 * 1024;

/// The rows of an export as chain links, and a line naming each line that is not a row exactly as
/// toolgate writes it (`Row::to_json`, compact, keys sorted): a member added, repeated or moved
/// would be read by a person but not covered by the hash. An export with no row at all is a
/// problem too, so that a wrong file does not pass as verified.
pub fn read_export(mut reader: impl std::io::BufRead) -> std::io::Result<(Vec<Link>, Vec<String>)> {
    use std::io::{BufRead as _, Read as _};
    let (mut rows, mut unreadable) = (Vec::new(), Vec::new());
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = reader
            .by_ref()
            .take(MAX_EXPORT_LINE + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        if line.last() != Some(&b'\n') && read as u64 > MAX_EXPORT_LINE {
            unreadable.push(format!(
                "unreadable: line {number} is longer than {} MiB",
                MAX_EXPORT_LINE >> 20
            ));
            // The rest of the line, up to its end, a piece at a time.
            loop {
                line.clear();
                let read = reader
                    .by_ref()
                    .take(64 * 1024)
                    .read_until(b'\n', &mut line)?;
                if read == 0 || line.last() == Some(&b'\n') {
                    break;
                }
            }
            continue;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match export_row(text) {
            Ok(row) => rows.push(Link::of(&row)),
            Err(problem) => unreadable.push(format!(
                "unreadable: line {number} is not an audit row: {problem}"
            )),
        }
    }
    if rows.is_empty() && unreadable.is_empty() {
        unreadable.push("unreadable: the export holds no audit row".to_owned());
    }
    Ok((rows, unreadable))
}

/// One export line's row.
fn export_row(line: &[u8]) -> Result<Row, String> {
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_owned())?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| format!("not JSON ({error})"))?;
    let row = Row::from_json(&value)?;
    // Compared as text: `Value == str` would compare with a JSON string.
    let written = serde_json::to_string(&row.to_json()).unwrap_or_default();
    if written != text {
        return Err(
            "not as toolgate writes it (a member added, repeated, moved or reformatted)".to_owned(),
        );
    }
    Ok(row)
}

/// Checks the chains of exported rows (`toolgate audit export`, `GET /v1/audit?format=jsonl`)
/// without the database: each replica's rows in seq order, from the first the export holds. That
/// row's `prev_hash` stands for the rows before it, as a pruned checkpoint does, so an export of a
/// time window verifies; rows filtered out of the middle of a chain (by tenant, say) are gaps.
pub fn verify_export(
    mut rows: Vec<Link>,
    replica: Option<&str>,
    expected: &[ExpectedHead],
) -> VerifyReport {
    rows.retain(|row| replica.is_none_or(|replica| row.replica_id == replica));
    rows.sort_by(|a, b| (&a.replica_id, a.seq, a.time_us).cmp(&(&b.replica_id, b.seq, b.time_us)));
    let mut checkpoints = Vec::new();
    let mut notes = Vec::new();
    for (position, row) in rows.iter().enumerate() {
        let first = position == 0 || rows[position - 1].replica_id != row.replica_id;
        if first && row.seq > 1 && row.prev_hash != GENESIS {
            checkpoints.push((row.replica_id.clone(), row.seq - 1, row.prev_hash.to_vec()));
            notes.push(format!(
                "replica `{}`'s rows in the export start at seq {}: the rows before are not checked",
                row.replica_id, row.seq
            ));
        }
    }
    let mut verifier = Verifier::new(checkpoints, expected).only(replica);
    for row in &rows {
        verifier.push(row);
    }
    let mut report = verifier.finish();
    notes.append(&mut report.notes);
    report.notes = notes;
    report
}

/// [`AuditStore::pages`].
pub struct Pages {
    store: AuditStore,
    filter: Filter,
    size: i64,
    done: bool,
}

impl Pages {
    /// The next page; `None` once every row was given.
    pub async fn next(&mut self) -> Result<Option<Vec<Row>>, sqlx::Error> {
        if self.done {
            return Ok(None);
        }
        let rows = self.store.query(&self.filter, self.size).await?;
        self.done = (rows.len() as i64) < self.size;
        let Some(last) = rows.last() else {
            return Ok(None);
        };
        self.filter.before = Some((last.time(), last.id.clone()));
        Ok(Some(rows))
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
        winner_bundle: row.try_get("winner_bundle")?,
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

/// What the chain check needs of a row: its place, its hashes, and whether its stored hash is
/// its content's. An export is held as links, not rows, so that its inputs need not be.
pub struct Link {
    replica_id: String,
    seq: i64,
    time_us: i64,
    id: String,
    prev_hash: [u8; 32],
    hash: [u8; 32],
    /// The stored hash is the one the row's content gives.
    intact: bool,
}

impl Link {
    /// `row`'s link, its hash recomputed.
    pub fn of(row: &Row) -> Self {
        Self {
            replica_id: row.replica_id.clone(),
            seq: row.seq,
            time_us: row.time_us,
            id: row.id.clone(),
            prev_hash: row.prev_hash,
            hash: row.hash,
            intact: row.compute_hash() == row.hash,
        }
    }
}

/// Checks rows in (replica, seq, time) order, one replica's chain after the other.
struct Verifier {
    checkpoints: Vec<(String, i64, Vec<u8>)>,
    /// The one replica checked (`--replica`), if only one is.
    replica: Option<String>,
    /// Expected heads not yet met, of chains not yet checked.
    expected: Vec<ExpectedHead>,
    chain: Option<Chain>,
    report: VerifyReport,
}

impl Verifier {
    fn new(checkpoints: Vec<(String, i64, Vec<u8>)>, expected: &[ExpectedHead]) -> Self {
        Self {
            checkpoints,
            replica: None,
            expected: expected.to_vec(),
            chain: None,
            report: VerifyReport::default(),
        }
    }

    /// Checks only `replica`'s chain (the rows given are its own): one that is nowhere to be
    /// found is a finding, not an empty success.
    fn only(mut self, replica: Option<&str>) -> Self {
        self.replica = replica.map(str::to_owned);
        self
    }

    /// Checks every row of `rows` and reports.
    async fn check_all(
        mut self,
        rows: impl futures_util::Stream<Item = Result<Row, sqlx::Error>>,
    ) -> Result<VerifyReport, sqlx::Error> {
        let mut rows = std::pin::pin!(rows);
        while let Some(row) = futures_util::TryStreamExt::try_next(&mut rows).await? {
            self.push(&Link::of(&row));
        }
        Ok(self.finish())
    }

    /// Ends the last chain and reports.
    fn finish(mut self) -> VerifyReport {
        self.finish_chain();
        // Expected heads of replicas without a single row.
        while let Some(head) = self.expected.first() {
            let replica = head.replica.clone();
            self.chain = Some(self.start(&replica));
            self.finish_chain();
        }
        if let Some(replica) = self.replica.take()
            && self.report.rows == 0
            && self.report.findings.is_empty()
            && !self.checkpoints.iter().any(|(r, _, _)| *r == replica)
        {
            self.report
                .findings
                .push(Finding::UnknownReplica { replica });
        }
        self.report
    }

    fn start(&mut self, replica: &str) -> Chain {
        let checkpoint = self.checkpoints.iter().find(|(r, _, _)| r == replica);
        let (expected, others) = std::mem::take(&mut self.expected)
            .into_iter()
            .partition(|head| head.replica == replica);
        self.expected = others;
        let mut chain = Chain::start(replica, checkpoint, expected);
        if checkpoint.is_some() {
            chain.pruned_heads(&mut self.report);
        }
        chain
    }

    fn push(&mut self, row: &Link) {
        self.report.rows += 1;
        let chain = match self.chain.take() {
            Some(chain) if chain.replica == row.replica_id => chain,
            done => {
                self.chain = done;
                self.finish_chain();
                self.report.replicas += 1;
                self.start(&row.replica_id)
            }
        };
        let chain = self.chain.insert(chain);
        chain.check(row, &mut self.report);
    }

    fn finish_chain(&mut self) {
        if let Some(chain) = self.chain.take() {
            chain.finish(&mut self.report);
        }
    }
}

/// Verification state of one replica's chain.
struct Chain {
    replica: String,
    next_seq: i64,
    prev_hash: [u8; 32],
    prev_id: Option<String>,
    last_seq: i64,
    /// Expected heads past the rows checked so far, lowest seq first.
    expected: Vec<ExpectedHead>,
}

impl Chain {
    fn start(
        replica: &str,
        checkpoint: Option<&(String, i64, Vec<u8>)>,
        mut expected: Vec<ExpectedHead>,
    ) -> Self {
        let (seq, hash) = match checkpoint {
            Some((_, seq, hash)) => (*seq, hash.as_slice().try_into().unwrap_or(GENESIS)),
            None => (0, GENESIS),
        };
        expected.sort_by_key(|head| head.seq);
        Self {
            replica: replica.to_owned(),
            next_seq: seq + 1,
            prev_hash: hash,
            prev_id: None,
            last_seq: seq,
            expected,
        }
    }

    /// Expected heads at or before the pruned checkpoint went with their rows: only the
    /// checkpoint's own hash can still be compared. The others are noted.
    fn pruned_heads(&mut self, report: &mut VerifyReport) {
        let pruned = self
            .expected
            .partition_point(|head| head.seq <= self.last_seq);
        for head in self.expected.drain(..pruned).collect::<Vec<_>>() {
            if head.seq == self.last_seq {
                if self.matches(&head, self.prev_hash, None, report) {
                    report.heads_reached += 1;
                }
            } else {
                report.notes.push(format!(
                    "replica `{}`'s expected head at seq {} was pruned (the checkpoint is at seq {}): not checked",
                    self.replica, head.seq, self.last_seq
                ));
            }
        }
    }

    fn check(&mut self, row: &Link, report: &mut VerifyReport) {
        if !row.intact {
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
        let gap = !restart && row.seq > self.next_seq;
        if restart {
            report.restarts.push(format!(
                "replica `{}` restarts its chain at seq {} (row {}): it started without its chain's head (a batch was in flight when it stopped, or it had neither spool nor database)",
                self.replica, row.seq, row.id
            ));
        } else if gap {
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
        // Expected heads this row reaches or passes.
        let passed = self.expected.partition_point(|head| head.seq <= row.seq);
        for head in self.expected.drain(..passed).collect::<Vec<_>>() {
            if head.seq == row.seq {
                if self.matches(&head, row.hash, Some(&row.id), report) {
                    report.heads_reached += 1;
                }
            } else if !gap {
                // Not at a gap, which names these seqs already: past a restart.
                report.findings.push(Finding::HeadMissing {
                    replica: self.replica.clone(),
                    seq: head.seq,
                    before: row.id.clone(),
                });
            }
        }
        self.next_seq = row.seq + 1;
        self.last_seq = row.seq;
        self.prev_hash = row.hash;
        self.prev_id = Some(row.id.clone());
    }

    /// Compares an expected head's hash, when it has one, with the row's (or checkpoint's)
    /// `stored` hash; a difference is a finding.
    fn matches(
        &self,
        head: &ExpectedHead,
        stored: [u8; 32],
        id: Option<&String>,
        report: &mut VerifyReport,
    ) -> bool {
        match head.hash {
            Some(expected) if expected != stored => {
                report.findings.push(Finding::HeadMismatch {
                    replica: self.replica.clone(),
                    seq: head.seq,
                    id: id.cloned(),
                    stored,
                    expected,
                });
                false
            }
            _ => true,
        }
    }

    /// The chain has no more rows: every expected head past its end is a truncation.
    fn finish(self, report: &mut VerifyReport) {
        if let Some(head) = self.expected.last() {
            report.findings.push(Finding::Truncated {
                replica: self.replica.clone(),
                from: self.last_seq + 1,
                to: head.seq,
                last: self.prev_id.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::sample;

    /// A chain of replica `r` over `seqs`, each row linked to the one before.
    fn chain(seqs: &[i64]) -> Vec<Row> {
        let mut prev = GENESIS;
        seqs.iter()
            .map(|seq| {
                let mut row = sample(*seq);
                row.prev_hash = prev;
                row.hash = row.compute_hash();
                prev = row.hash;
                row
            })
            .collect()
    }

    fn head(text: &str) -> ExpectedHead {
        text.parse().unwrap()
    }

    async fn verify(
        rows: Vec<Row>,
        checkpoints: Vec<(String, i64, Vec<u8>)>,
        expected: &[ExpectedHead],
    ) -> VerifyReport {
        let rows = futures_util::stream::iter(rows.into_iter().map(Ok));
        Verifier::new(checkpoints, expected)
            .check_all(rows)
            .await
            .unwrap()
    }

    #[test]
    fn expected_heads_parse_and_bad_ones_say_why() {
        let hash = "ab".repeat(32);
        assert_eq!(
            head(&format!("host-1=42:{hash}")),
            ExpectedHead {
                replica: "host-1".into(),
                seq: 42,
                hash: Some([0xab; 32]),
            }
        );
        assert_eq!(head("a=b=7").replica, "a=b", "the last `=` splits");
        assert_eq!(head("r=7").hash, None);
        for (text, why) in [
            ("r7", "is not REPLICA=SEQ[:HASH]"),
            ("=7", "names no replica"),
            ("r=x", "the seq `x` in `r=x` is not a positive integer"),
            ("r=0", "is not a positive integer"),
            ("r=7:abc", "the hash in `r=7:abc` is not 64 hex digits"),
        ] {
            let error = text.parse::<ExpectedHead>().unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }

    #[tokio::test]
    async fn a_chain_must_reach_its_expected_heads_with_their_hashes() {
        let rows = chain(&[1, 2, 3, 4, 5]);
        let at = |seq: usize| format!("r={seq}:{}", hex::encode(rows[seq - 1].hash));
        let report = verify(rows.clone(), vec![], &[head(&at(3)), head(&at(5))]).await;
        assert_eq!(report.findings, []);
        assert_eq!(report.heads_reached, 2);

        // The newest rows deleted: no gap, no broken link, only the expected head shows it.
        let cut = rows[..3].to_vec();
        assert_eq!(verify(cut.clone(), vec![], &[]).await.findings, []);
        let report = verify(cut.clone(), vec![], &[head("r=5")]).await;
        assert_eq!(
            report.findings,
            [Finding::Truncated {
                replica: "r".into(),
                from: 4,
                to: 5,
                last: Some("id-3".into()),
            }]
        );
        assert_eq!(
            report.findings[0].to_string(),
            "truncated: replica `r` ends at row id-3 (seq 3), before its expected head at seq 5: \
             seqs 4..=5 are missing"
        );
        // A replica with no rows at all.
        let report = verify(cut, vec![], &[head("q=2")]).await;
        assert_eq!(
            report.findings[0].to_string(),
            "truncated: replica `q` has no rows, but its expected head is at seq 2: seqs 1..=2 \
             are missing"
        );

        // The chain rewritten from seq 2 on, hashes recomputed: it verifies, but not against the
        // hash seen before.
        let mut forged = rows.clone();
        forged[3].decision = "allow".into();
        let mut prev = forged[2].hash;
        for row in &mut forged[3..] {
            row.prev_hash = prev;
            row.hash = row.compute_hash();
            prev = row.hash;
        }
        let report = verify(forged, vec![], &[head(&at(5))]).await;
        assert_eq!(report.findings.len(), 1, "{:?}", report.findings);
        assert!(
            report.findings[0]
                .to_string()
                .starts_with("head mismatch: row id-5 (replica `r`, seq 5) has hash "),
            "{}",
            report.findings[0]
        );
    }

    #[tokio::test]
    async fn an_expected_head_lost_behind_a_restart_or_pruned_is_told_apart() {
        // Rows 4 and 5 missing, hidden by a restart at a time-based seq.
        let mut rows = chain(&[1, 2, 3]);
        rows.extend(chain(&[1000]).into_iter().map(|mut row| {
            row.prev_hash = GENESIS;
            row.hash = row.compute_hash();
            row
        }));
        let report = verify(rows.clone(), vec![], &[head("r=5")]).await;
        assert_eq!(report.restarts.len(), 1);
        assert_eq!(
            report.findings,
            [Finding::HeadMissing {
                replica: "r".into(),
                seq: 5,
                before: "id-1000".into(),
            }]
        );
        // At a gap, the gap names the missing seqs already.
        let mut gap = chain(&[1, 2, 3, 4, 5]);
        gap.remove(3);
        let report = verify(gap, vec![], &[head("r=4")]).await;
        assert!(
            matches!(report.findings[..], [Finding::Gap { from: 4, to: 4, .. }]),
            "{:?}",
            report.findings
        );

        // Pruned up to seq 3: a head there is compared with the checkpoint; one before it is
        // noted, not checked.
        let all = chain(&[1, 2, 3, 4]);
        let checkpoint = vec![("r".to_owned(), 3, all[2].hash.to_vec())];
        let kept = all[3..].to_vec();
        let at3 = format!("r=3:{}", hex::encode(all[2].hash));
        let report = verify(kept.clone(), checkpoint.clone(), &[head(&at3), head("r=2")]).await;
        assert_eq!(report.findings, []);
        assert_eq!(report.heads_reached, 1);
        assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
        let wrong = format!("r=3:{}", "00".repeat(32));
        let report = verify(kept, checkpoint, &[head(&wrong)]).await;
        assert!(
            report.findings[0]
                .to_string()
                .starts_with("head mismatch: the pruned checkpoint (replica `r`, seq 3)"),
            "{}",
            report.findings[0]
        );
    }

    /// An export is read newest first, may hold a window of a chain, and comes back through
    /// JSON: a whole window verifies, with a note of where it starts; an edit, a row left out
    /// and a head past its end are each named.
    #[test]
    fn an_exported_window_verifies_through_json() {
        let through_json = |rows: &[Row]| -> Vec<Link> {
            rows.iter()
                .rev()
                .map(|row| {
                    let line = row.to_json().to_string();
                    let value = serde_json::from_str(&line).unwrap();
                    let read = Row::from_json(&value).unwrap();
                    assert_eq!(&read, row, "{line}");
                    Link::of(&read)
                })
                .collect()
        };
        let all = chain(&[1, 2, 3, 4, 5, 6]);
        let window = &all[2..];
        let at6 = format!("r=6:{}", hex::encode(all[5].hash));
        let report = verify_export(through_json(window), None, &[head(&at6)]);
        assert_eq!(report.findings, []);
        assert_eq!((report.rows, report.heads_reached), (4, 1));
        assert!(
            report.notes[0].contains("start at seq 3"),
            "{:?}",
            report.notes
        );

        let mut edited = window.to_vec();
        edited[1].decision = "allow".into();
        let report = verify_export(through_json(&edited), None, &[]);
        assert!(
            matches!(report.findings[..], [Finding::Edited { seq: 4, .. }]),
            "{:?}",
            report.findings
        );

        let mut holed = window.to_vec();
        holed.remove(2);
        let report = verify_export(through_json(&holed), None, &[head("r=9")]);
        assert!(
            matches!(
                report.findings[..],
                [
                    Finding::Gap { from: 5, to: 5, .. },
                    Finding::Truncated { from: 7, to: 9, .. }
                ]
            ),
            "{:?}",
            report.findings
        );

        let report = verify_export(through_json(window), Some("other"), &[]);
        assert!(
            matches!(report.findings[..], [Finding::UnknownReplica { .. }]),
            "{:?}",
            report.findings
        );
    }

    /// Only lines exactly as toolgate writes them are rows: a member added or repeated (which a
    /// reader would see but the hash does not cover) is named by its line, as are a line that is
    /// not UTF-8, one too long to be a row, and an export with no row at all.
    #[test]
    fn export_lines_are_rows_only_as_written() {
        let rows = chain(&[1, 2]);
        let lines: Vec<String> = rows.iter().map(|r| r.to_json().to_string()).collect();
        let read = |bytes: Vec<u8>| read_export(std::io::Cursor::new(bytes)).unwrap();

        let (links, unreadable) = read(format!("{}\r\n\n{}\n", lines[0], lines[1]).into_bytes());
        assert_eq!((links.len(), unreadable.len()), (2, 0), "{unreadable:?}");
        assert!(verify_export(links, None, &[]).findings.is_empty());

        for doctored in [
            lines[1].replacen('{', r#"{"approved_by":"ciso","#, 1),
            lines[1].replacen('{', r#"{"decision":"allow","#, 1),
            lines[1].replacen(",\"", ", \"", 1),
        ] {
            let (links, unreadable) = read(format!("{}\n{doctored}\n", lines[0]).into_bytes());
            assert_eq!(links.len(), 1);
            assert!(
                unreadable[0].starts_with(
                    "unreadable: line 2 is not an audit row: not as toolgate writes it"
                ),
                "{unreadable:?}"
            );
        }

        let mut bytes = format!("{}\n", lines[0]).into_bytes();
        bytes.extend(b"\xff\xfe\n");
        bytes.extend(vec![b'x'; (MAX_EXPORT_LINE + 10) as usize]);
        bytes.extend(format!("\n{}", lines[1]).into_bytes());
        let (links, unreadable) = read(bytes);
        assert_eq!(
            links.len(),
            2,
            "the line after a long one is read: {unreadable:?}"
        );
        assert_eq!(
            unreadable,
            [
                "unreadable: line 2 is not an audit row: not UTF-8",
                "unreadable: line 3 is longer than 16 MiB"
            ]
        );

        let (links, unreadable) = read(b"\n\n".to_vec());
        assert!(links.is_empty());
        assert_eq!(unreadable, ["unreadable: the export holds no audit row"]);
    }
}
