//! The writer task (group commit) and the shipper task (spool → database).
//!
//! The writer takes everything queued (up to [`MAX_BATCH`] rows), gives the rows this replica's
//! next seqs, times that never go backwards, repeat flags and chain hashes, and makes the batch
//! durable with one flush: a database insert; when that fails or times out, an append to the
//! spool and its `fdatasync`. While spooled rows wait for the database, new batches go to the
//! spool too, so that rows reach the database in chain order. Then it acknowledges every row of
//! the batch at once. Up to [`MAX_IN_FLIGHT`] inserts run at once (one: the next batch forms
//! while the last commits, and grows with the load); they complete in batch order.
//!
//! Before each insert the writer records in the spool's `head` file the last seq it sends, and
//! after the commit the new head ([`LocalHead`]), so that a restart knows where the chain goes
//! on even with the database away, and knows when a batch was in flight as the process died.
//!
//! A batch that can be made durable nowhere is refused: its rows get an error and the
//! evaluations that waited for them are answered with the failure decision. One the spool
//! refuses while spooling (full, or its sync failed) does not move the chain head; one whose
//! insert and then spool append both fail (disk and database down together) leaves a gap that
//! `verify` reports.
//!
//! The shipper drains spooled rows into the database in spool order, and hands the writer back
//! to direct inserts once the spool is empty. Neither task runs on the request path.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesOrdered;
use tokio::sync::{mpsc, oneshot, watch};

use super::AuditError;
use super::queue::{Pending, RecentKeys};
use super::record::{GENESIS, Row};
use super::spool::{self, Damage, Head, HeadRecord, Position, Spool, SpoolError, SpoolShared};
use super::store::{AuditStore, Inserter};
use crate::metrics::AuditMetrics;

/// Most rows in one batch.
pub const MAX_BATCH: usize = 1024;
/// Most batches whose insert is in flight at once. The next batch forms while one commits. One
/// is best while PostgreSQL's CPU is the limit, as it was on the benchmark's machine: two inserts
/// in flight split the waiting rows into batches half as large (9.5 rows on average at 32
/// connections), and each statement has a fixed cost about that of 15 rows' own. With one, both
/// toolgate and PostgreSQL spent less CPU per row and the p99 was lower.
///
/// The chain's bookkeeping counts on one: a failed insert's batch is spooled after it, and the
/// `head` file's settled head is the last batch made durable. With two in flight, a later batch
/// could reach the spool before an earlier one whose insert then failed.
pub const MAX_IN_FLIGHT: usize = 1;
const _: () = assert!(MAX_IN_FLIGHT == 1, "see MAX_IN_FLIGHT");
/// Most rows the shipper sends in one insert.
const SHIP_BATCH: usize = 1000;
/// How often the chain head is logged, when it moved: a witness of the chain's end outside the
/// database, for `toolgate audit verify --expect-head`.
pub const HEAD_LOG_INTERVAL: Duration = Duration::from_secs(60);

/// What the spool directory knows of this replica's chain at start. Only what this replica
/// wrote counts: a spool left by another id (the default id is new in every process) holds rows
/// to ship, not this chain's head.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocalHead {
    /// The last row in the spool.
    pub spooled: Option<Head>,
    /// The `head` file: the last row known durable, and the last seq sent to the database.
    pub recorded: Option<(Head, i64)>,
}

impl LocalHead {
    /// The latest head known here or in the database.
    fn known(&self, db: Option<Head>) -> Option<Head> {
        [self.spooled, self.recorded.map(|(head, _)| head), db]
            .into_iter()
            .flatten()
            .max_by_key(|head| head.seq)
    }

    /// The last seq sent to the database.
    fn claimed(&self) -> i64 {
        self.recorded.map_or(0, |(_, claimed)| claimed)
    }

    /// Whether a batch was in flight when the last process stopped: its claim is past every
    /// head known.
    fn in_doubt(&self, db: Option<Head>) -> bool {
        self.claimed() > self.known(db).map_or(0, |head| head.seq)
    }
}

/// The writer task's state.
pub struct Writer {
    /// The queue.
    pub rx: mpsc::Receiver<Pending>,
    /// The spool.
    pub spool: Spool,
    /// Positions shared with the shipper.
    pub shared: Arc<SpoolShared>,
    /// The database.
    pub store: AuditStore,
    /// This replica.
    pub replica_id: String,
    /// The chain head as the spool directory had it at open.
    pub local: LocalHead,
    /// Metrics.
    pub metrics: AuditMetrics,
    /// How long a database insert may take before the batch goes to the spool.
    pub db_timeout: Duration,
    /// The inserter (and the connection it keeps) while no insert is in flight.
    pub inserter: Option<Inserter>,
}

struct Chainer {
    /// The last row chained (durable, in flight, or refused).
    head: Head,
    /// What the `head` file is to say: the last row known durable, the last seq sent.
    record: HeadRecord,
    /// The last write of the `head` file failed (warned once until one succeeds).
    head_failing: bool,
    recent: RecentKeys,
    /// `toolgate_audit_chain_head_seq` of this replica: the settled head's seq.
    head_gauge: prometheus::IntGauge,
    /// The settled head last logged.
    logged: Head,
}

impl Chainer {
    /// Logs the settled head (replica, seq, hash) at info, unless it is the one logged last.
    fn log_head(&mut self) {
        let head = self.record.settled;
        if head == self.logged {
            return;
        }
        self.logged = head;
        log_head(&self.record.replica_id, head);
    }
}

/// Logs a chain head: what `toolgate audit verify --expect-head REPLICA=SEQ:HASH` takes.
fn log_head(replica: &str, head: Head) {
    tracing::info!(
        audit.replica = replica,
        audit.seq = head.seq,
        audit.hash = %hex::encode(head.hash),
        "audit chain head"
    );
}

type Ack = oneshot::Sender<Result<(), AuditError>>;

/// A batch whose insert is in flight.
struct InFlight {
    rows: Vec<Row>,
    acks: Vec<Option<Ack>>,
    /// The chain head after this batch.
    head: Head,
    started: Instant,
}

type Insert =
    std::pin::Pin<Box<dyn Future<Output = (InFlight, Inserter, Result<(), String>)> + Send>>;

impl Writer {
    /// Runs until the queue is closed and drained: at shutdown, or when every sender is gone.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let head = self.resolve_head().await;
        let head_gauge = self
            .metrics
            .chain_head_seq
            .with_label_values(&[self.replica_id.as_str()]);
        // A chain that starts (or restarts) has no row at its head yet: the first batch sets it.
        if head.hash != GENESIS {
            head_gauge.set(head.seq);
            log_head(&self.replica_id, head);
        }
        let mut chainer = Chainer {
            head,
            record: HeadRecord {
                replica_id: self.replica_id.clone(),
                settled: head,
                claimed: head.seq,
            },
            head_failing: false,
            recent: RecentKeys::new(super::queue::RECENT_KEYS),
            head_gauge,
            logged: head,
        };
        let mut head_log = tokio::time::interval(HEAD_LOG_INTERVAL);
        head_log.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        head_log.tick().await;
        let mut batch = Vec::with_capacity(MAX_BATCH);
        let mut inflight: FuturesOrdered<Insert> = FuturesOrdered::new();
        let mut closed = false;
        let mut last_persist = Instant::now();
        loop {
            tokio::select! {
                biased;
                Some((flight, inserter, result)) = inflight.next(), if !inflight.is_empty() => {
                    self.inserter = Some(inserter);
                    self.complete(&mut chainer, flight, result).await;
                }
                n = self.rx.recv_many(&mut batch, MAX_BATCH), if inflight.len() < MAX_IN_FLIGHT => {
                    if n == 0 {
                        break;
                    }
                    self.metrics.queue_depth.set(self.rx.len() as i64);
                    if let Some(insert) = self.process(&mut chainer, &mut batch).await {
                        inflight.push_back(insert);
                    }
                }
                changed = shutdown.changed(), if !closed => {
                    // Refuse new rows, then write what is queued. (A dropped sender counts too.)
                    let _ = changed;
                    self.rx.close();
                    closed = true;
                }
                _ = head_log.tick() => chainer.log_head(),
            }
            if last_persist.elapsed() > Duration::from_secs(1) {
                self.persist_shipped();
                last_persist = Instant::now();
            }
        }
        while let Some((flight, _, result)) = inflight.next().await {
            self.complete(&mut chainer, flight, result).await;
        }
        self.persist_shipped();
        chainer.log_head();
        tracing::info!("audit writer stopped; queue drained");
    }

    fn persist_shipped(&self) {
        if let Err(error) = self.shared.persist_shipped(self.spool.dir()) {
            tracing::warn!(error = %error, "cannot record the audit spool's shipped position");
        }
    }

    /// The database's head of this replica's chain.
    async fn database_head(&self) -> Result<Option<Head>, String> {
        match tokio::time::timeout(self.db_timeout * 2, self.store.head(&self.replica_id)).await {
            Ok(Ok(head)) => Ok(head),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err("timed out".to_owned()),
        }
    }

    /// The chain head at start, from the spool directory and the database ([`resolve_head`]).
    /// When a batch was in flight as the last process stopped, the database's head is final
    /// once no connection of that process runs a statement any more: wait for that (5 s at
    /// most), then read the head again.
    async fn resolve_head(&self) -> Head {
        let mut db = self.database_head().await;
        let mut db_is_final = false;
        if let Ok(db_head) = &db
            && self.local.in_doubt(*db_head)
        {
            let limit = self.db_timeout * 5;
            let waited =
                tokio::time::timeout(limit * 2, self.store.wait_for_stopped_writers(limit)).await;
            if let Ok(Ok(true)) = waited {
                db = self.database_head().await;
                db_is_final = true;
            }
        }
        let now = chrono::Utc::now().timestamp_micros();
        let (head, restart) = resolve_head(self.local, db, db_is_final, now);
        if let Some(why) = restart {
            tracing::warn!(
                seq = head.seq + 1,
                "the audit chain restarts at a time-based seq: {why}"
            );
        }
        head
    }

    /// Records the chain's settled head and claimed seq in the spool's `head` file; says whether
    /// it could.
    fn record_head(&mut self, chainer: &mut Chainer) -> bool {
        match self.spool.record_head(&chainer.record) {
            Ok(()) => {
                chainer.head_failing = false;
                true
            }
            Err(error) => {
                if !std::mem::replace(&mut chainer.head_failing, true) {
                    tracing::warn!(error = %error, "cannot record the audit chain head in the spool directory; spooling instead of inserting");
                }
                false
            }
        }
    }

    /// A batch ending at `head` is durable: the settled head moves on (never back) and is
    /// recorded.
    fn settle(&mut self, chainer: &mut Chainer, head: Head) {
        if head.seq > chainer.record.settled.seq {
            chainer.record.settled = head;
            chainer.head_gauge.set(head.seq);
        }
        self.record_head(chainer);
    }

    /// Chains a batch. While spooling, appends and syncs it there and acknowledges at once;
    /// otherwise records the claim and returns its insert, to run beside at most
    /// [`MAX_IN_FLIGHT`] - 1 others. A batch the spool refuses is refused without moving the
    /// chain head.
    async fn process(&mut self, chainer: &mut Chainer, batch: &mut Vec<Pending>) -> Option<Insert> {
        let started = Instant::now();
        let n = batch.len();
        let mut rows = Vec::with_capacity(n);
        let mut acks = Vec::with_capacity(n);
        let mut head = chainer.head;
        for pending in batch.drain(..) {
            let mut row = pending.row;
            row.replica_id.clone_from(&self.replica_id);
            row.seq = head.seq + 1;
            row.time_us = row.time_us.max(head.time_us);
            row.repeat = row
                .repeat_key()
                .is_some_and(|key| chainer.recent.check(key));
            row.prev_hash = head.hash;
            row.hash = row.compute_hash();
            head = Head::of(&row);
            rows.push(row);
            acks.push(pending.ack);
        }
        self.metrics.batch_rows.observe(n as f64);
        let flight = InFlight {
            rows,
            acks,
            head,
            started,
        };

        let spooling = {
            let mut state = self.shared.lock();
            if state.spooling && !state.unshipped() {
                state.spooling = false;
            }
            state.spooling
        };
        let claimed = chainer.record.claimed;
        chainer.record.claimed = head.seq;
        // An insert goes out only once its claim is recorded: otherwise a restart could not
        // tell that it was in flight. Without the `head` file the spool, synced, holds the head.
        if spooling || !self.record_head(chainer) {
            chainer.record.claimed = claimed;
            let result = self.spool_batch(&flight).await;
            if result.is_ok() {
                chainer.head = head;
                self.shared.lock().spooling = true;
                self.settle(chainer, head);
            }
            self.finish(flight, result);
            return None;
        }
        chainer.head = head;
        let mut inserter = self
            .inserter
            .take()
            .unwrap_or_else(|| self.store.inserter());
        let timeout = self.db_timeout;
        Some(Box::pin(async move {
            let result =
                match tokio::time::timeout(timeout, inserter.insert_new(&flight.rows)).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(error)) => Err(error.to_string()),
                    Err(_) => Err("timed out".to_owned()),
                };
            (flight, inserter, result)
        }))
    }

    /// Appends a batch to the spool and syncs it; wakes the shipper.
    async fn spool_batch(&mut self, flight: &InFlight) -> Result<(), AuditError> {
        let mut frames = Vec::with_capacity(flight.rows.len() * 1024);
        for row in &flight.rows {
            spool::encode(row, &mut frames);
        }
        self.spool.append(&frames).await?;
        self.metrics.rows_spooled.inc_by(flight.rows.len() as u64);
        self.shared.wake.notify_one();
        Ok(())
    }

    /// An insert finished (in batch order). Committed: the head moves on. Failed: the batch goes
    /// to the spool, synced, and the writer spools until the shipper has caught up.
    async fn complete(
        &mut self,
        chainer: &mut Chainer,
        flight: InFlight,
        inserted: Result<(), String>,
    ) {
        let result = match inserted {
            Ok(()) => {
                self.metrics.rows_written.inc_by(flight.rows.len() as u64);
                Ok(())
            }
            Err(why) => match self.spool_batch(&flight).await {
                Ok(()) => {
                    let newly = {
                        let mut state = self.shared.lock();
                        !std::mem::replace(&mut state.spooling, true)
                    };
                    if newly {
                        tracing::warn!(error = %why, "audit insert failed; spooling to disk until the database is back");
                    }
                    Ok(())
                }
                Err(AuditError::Disk(disk)) => Err(AuditError::Unavailable(format!(
                    "{why}; and the spool: {disk}"
                ))),
                Err(error) => Err(error),
            },
        };
        if result.is_ok() {
            self.settle(chainer, flight.head);
        }
        self.finish(flight, result);
    }

    /// Acknowledges a batch and records its metrics.
    fn finish(&self, flight: InFlight, result: Result<(), AuditError>) {
        let rows = flight.rows.len() as u64;
        if let Err(error) = &result {
            self.metrics.rows_failed.inc_by(rows);
            tracing::error!(rows, error = %error, "audit rows could not be made durable; their evaluations get the failure decision");
        }
        let bytes = self.shared.lock().bytes();
        self.metrics.spool_bytes.set(bytes as i64);
        self.metrics
            .batch_seconds
            .observe(flight.started.elapsed().as_secs_f64());
        for ack in flight.acks.into_iter().flatten() {
            let _ = ack.send(result.clone());
        }
    }
}

/// Where the chain goes on at start: after the latest head the spool, the `head` file and the
/// database know of. Returns the head and, when the chain restarts instead (at a time-based seq
/// above every earlier one, with a zero `prev_hash`, which `verify` notes), why:
///
/// - the `head` file says a batch was in flight when the process stopped (its claimed seq is
///   past every known head), and the database cannot say for certain whether it was committed:
///   it is unreachable, or a PostgreSQL backend may still be committing it (`db_is_final`
///   false: the wait for the stopped process's connections did not finish). Going on from
///   either side of that batch could leave a gap or fork the chain; a restart does neither.
/// - nothing is known (no spool, no `head` file) and the database is unreachable.
pub fn resolve_head(
    local: LocalHead,
    db: Result<Option<Head>, String>,
    db_is_final: bool,
    now_us: i64,
) -> (Head, Option<String>) {
    let db_head = db.as_ref().ok().copied().flatten();
    let known = local.known(db_head);
    let claimed = local.claimed();
    let in_doubt = local.in_doubt(db_head);
    let why = match (&db, known) {
        (Ok(_), _) if in_doubt && !db_is_final => {
            "a batch was in flight when the replica stopped, and the database may yet commit it"
                .to_owned()
        }
        (Err(error), _) if in_doubt => format!(
            "a batch was in flight when the replica stopped, and the database is unreachable \
             ({error})"
        ),
        (Ok(_), known) => {
            return (
                known.unwrap_or(Head {
                    seq: 0,
                    hash: GENESIS,
                    time_us: 0,
                }),
                None,
            );
        }
        (Err(_), Some(known)) => return (known, None),
        (Err(error), None) => format!("no spool and the database is unreachable ({error})"),
    };
    let restart = Head {
        seq: now_us.max(claimed).max(known.map_or(0, |head| head.seq)),
        hash: GENESIS,
        time_us: known.map_or(0, |head| head.time_us),
    };
    (restart, Some(why))
}

impl From<SpoolError> for AuditError {
    fn from(error: SpoolError) -> Self {
        match error {
            SpoolError::Full { .. } => AuditError::SpoolFull,
            SpoolError::Io(error) => AuditError::Disk(error.to_string()),
        }
    }
}

/// Reports copies of damaged segments removed to keep the newest few: a warning naming each,
/// and `toolgate_audit_spool_quarantine_dropped_total`.
pub fn report_dropped_copies(dropped: &[std::path::PathBuf], metrics: &AuditMetrics) {
    for copy in dropped {
        metrics.spool_quarantine_dropped.inc();
        tracing::warn!(
            copy = %copy.display(),
            kept = spool::MAX_QUARANTINED,
            "removed the oldest copy of a damaged audit spool segment: only the newest are kept"
        );
    }
}

/// Reports a stretch of the spool that holds no record that checks: an error naming where it
/// is and where its bytes were copied (never the bytes), and
/// `toolgate_audit_spool_corrupt_records_total`. The rows it held are missing from the chain,
/// and `toolgate audit verify` reports the gap.
fn report_damage(
    damage: &Damage,
    kept: &std::io::Result<spool::Quarantined>,
    metrics: &AuditMetrics,
) {
    metrics.spool_corrupt_records.inc();
    let segment = format!("{:012}.seg", damage.at.segment);
    match kept {
        Ok(copy) => tracing::error!(
            segment,
            offset = damage.at.offset,
            bytes = damage.len,
            copy = %copy.path.display(),
            "an audit spool record failed its checksum and is skipped; the rows after it are \
             replayed, the segment is copied aside, and `audit verify` will report the gap"
        ),
        Err(error) => tracing::error!(
            segment,
            offset = damage.at.offset,
            bytes = damage.len,
            error = %error,
            "an audit spool record failed its checksum and is skipped; the rows after it are \
             replayed, but the segment could not be copied aside, and `audit verify` will \
             report the gap"
        ),
    }
}

/// The shipper's settings.
pub struct Shipper {
    /// Positions shared with the writer.
    pub shared: Arc<SpoolShared>,
    /// The spool directory.
    pub dir: std::path::PathBuf,
    /// The database.
    pub store: AuditStore,
    /// Metrics.
    pub metrics: AuditMetrics,
    /// Time limit of one insert.
    pub db_timeout: Duration,
    /// `--audit-spool-max-bytes`, which copies of damaged segments count toward.
    pub max_bytes: u64,
}

impl Shipper {
    /// Reads again which copies of damaged segments are on disk (an operator may have removed
    /// some) and sets the spool's gauges.
    fn refresh_quarantined(&self) {
        match self.shared.refresh_quarantined(&self.dir) {
            Ok((bytes, copies)) => {
                self.metrics.spool_bytes.set(bytes as i64);
                self.metrics.spool_quarantined_files.set(copies as i64);
            }
            Err(error) => {
                tracing::warn!(error = %error, "cannot list the audit spool's copies of damaged segments");
            }
        }
    }

    /// Drains spooled rows into the database, in order, retrying with capped backoff
    /// (100 ms → 5 s) while it is away. Runs until `shutdown`.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let mut backoff = Duration::from_millis(100);
        let mut failing = false;
        // The end of the last damage reported.
        let mut reported = Position::default();
        loop {
            if *shutdown.borrow() {
                break;
            }
            let range = {
                let state = self.shared.lock();
                (state.spooling && state.unshipped()).then_some((state.shipped, state.end))
            };
            let Some((from, to)) = range else {
                self.refresh_quarantined();
                tokio::select! {
                    () = self.shared.wake.notified() => {}
                    () = tokio::time::sleep(Duration::from_millis(500)) => {}
                    changed = shutdown.changed() => if changed.is_err() { break },
                }
                continue;
            };
            let dir = self.dir.clone();
            let read =
                tokio::task::spawn_blocking(move || spool::read_range(&dir, from, to, SHIP_BATCH))
                    .await;
            let (rows, next, damage) = match read {
                Ok(Ok(read)) => read,
                Ok(Err(error)) => {
                    tracing::error!(error = %error, "cannot read the audit spool");
                    tokio::time::sleep(backoff).await;
                    continue;
                }
                Err(error) => {
                    tracing::error!(error = %error, "audit spool reader failed");
                    continue;
                }
            };
            for damage in damage {
                // A range read again (the insert failed) reports its damage once.
                if damage.at < reported {
                    continue;
                }
                reported = Position {
                    segment: damage.at.segment,
                    offset: damage.at.offset + damage.len,
                };
                let (dir, shared, segment) =
                    (self.dir.clone(), self.shared.clone(), damage.at.segment);
                let max_bytes = self.max_bytes;
                let kept = tokio::task::spawn_blocking(move || {
                    spool::quarantine(&dir, &shared, segment, max_bytes)
                })
                .await
                .unwrap_or_else(|error| Err(std::io::Error::other(error)));
                report_damage(&damage, &kept, &self.metrics);
                if let Ok(kept) = &kept {
                    report_dropped_copies(&kept.dropped, &self.metrics);
                }
                self.refresh_quarantined();
            }
            let inserted = tokio::time::timeout(self.db_timeout, self.store.insert(&rows)).await;
            match inserted {
                Ok(Ok(())) => {
                    {
                        let mut state = self.shared.lock();
                        if state.shipped == from {
                            state.shipped = next;
                        }
                    }
                    self.metrics.rows_replayed.inc_by(rows.len() as u64);
                    let bytes = spool::delete_shipped(&self.dir, &self.shared);
                    self.metrics.spool_bytes.set(bytes as i64);
                    let _ = self.shared.persist_shipped(&self.dir);
                    if failing {
                        tracing::info!("the audit database is back; replaying the spool");
                        failing = false;
                    }
                    backoff = Duration::from_millis(100);
                }
                failed => {
                    if !failing {
                        let why = match failed {
                            Ok(Err(error)) => error.to_string(),
                            _ => "timed out".to_owned(),
                        };
                        tracing::warn!(error = %why, "audit spool replay failed; retrying with backoff");
                        failing = true;
                    }
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        changed = shutdown.changed() => if changed.is_err() { break },
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(seq: i64) -> Head {
        Head {
            seq,
            hash: [seq as u8; 32],
            time_us: seq * 10,
        }
    }

    const NOW: i64 = 1_000_000;

    fn resolve(local: LocalHead, db: Result<Option<i64>, &str>, final_: bool) -> (Head, bool) {
        let db = db.map(|seq| seq.map(head)).map_err(str::to_owned);
        let (head, why) = resolve_head(local, db, final_, NOW);
        (head, why.is_some())
    }

    fn recorded(settled: i64, claimed: i64) -> Option<(Head, i64)> {
        Some((head(settled), claimed))
    }

    #[test]
    fn the_chain_goes_on_after_the_latest_head_anyone_knows() {
        let none = LocalHead::default();
        assert_eq!(
            resolve(none, Ok(None), false),
            (head(0).with_genesis(), false)
        );
        assert_eq!(resolve(none, Ok(Some(5)), false), (head(5), false));
        let spooled = LocalHead {
            spooled: Some(head(9)),
            recorded: recorded(7, 7),
        };
        assert_eq!(resolve(spooled, Ok(Some(5)), false), (head(9), false));
        assert_eq!(resolve(spooled, Ok(Some(12)), false), (head(12), false));
        // The database away: the spool directory alone tells.
        assert_eq!(resolve(spooled, Err("down"), false), (head(9), false));
        let settled = LocalHead {
            spooled: Some(head(3)),
            recorded: recorded(8, 8),
        };
        assert_eq!(resolve(settled, Err("down"), false), (head(8), false));
        // A batch spooled after its insert failed covers its claim.
        let spooled_claim = LocalHead {
            spooled: Some(head(10)),
            recorded: recorded(6, 10),
        };
        assert_eq!(
            resolve(spooled_claim, Err("down"), false),
            (head(10), false)
        );
    }

    #[test]
    fn a_batch_in_flight_at_the_stop_restarts_the_chain_unless_the_database_settles_it() {
        let in_flight = LocalHead {
            spooled: None,
            recorded: recorded(8, 12),
        };
        // PostgreSQL has it: nothing was in doubt.
        assert_eq!(resolve(in_flight, Ok(Some(12)), false), (head(12), false));
        // PostgreSQL lacks it, but a backend may still commit it; or it is away.
        for db in [Ok(Some(8)), Ok(None), Err("down")] {
            let (start, restarted) = resolve(in_flight, db, false);
            assert!(restarted, "{db:?}");
            assert_eq!(start.hash, GENESIS);
            assert_eq!(start.seq, NOW);
            assert_eq!(start.time_us, head(8).time_us, "time never goes back");
        }
        // The embedded file's head is final: the batch was rolled back.
        assert_eq!(resolve(in_flight, Ok(Some(8)), true), (head(8), false));
        // A restart seq is above every seq claimed, even one past the clock.
        let far = LocalHead {
            spooled: None,
            recorded: recorded(NOW + 5, NOW + 9),
        };
        assert_eq!(resolve(far, Err("down"), false).0.seq, NOW + 9);
    }

    #[test]
    fn nothing_known_and_no_database_restarts_the_chain() {
        let (start, restarted) = resolve(LocalHead::default(), Err("down"), false);
        assert!(restarted);
        assert_eq!((start.seq, start.hash), (NOW, GENESIS));
    }

    /// A writer on an embedded store in `dir`, its spool in `dir/spool`; no shipper runs, so
    /// spooled rows stay there.
    struct Running {
        tx: mpsc::Sender<Pending>,
        metrics: AuditMetrics,
        pool: sqlx::SqlitePool,
        shutdown: watch::Sender<bool>,
        task: tokio::task::JoinHandle<()>,
    }

    async fn start(dir: &std::path::Path, database_down: bool, fail_head: bool) -> Running {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(dir.join("audit.db"));
        let pool = crate::store::sqlite::open(options, 2, Duration::from_secs(1))
            .await
            .unwrap();
        crate::store::sqlite::MIGRATOR.run(&pool).await.unwrap();
        if database_down {
            pool.close().await;
        }
        let (mut spool, shared, _) = Spool::open(&dir.join("spool"), 1 << 20, 1 << 30).unwrap();
        spool.fail_head = fail_head;
        let (tx, rx) = mpsc::channel(64);
        let metrics = AuditMetrics::register(&prometheus::Registry::new()).unwrap();
        let writer = Writer {
            rx,
            spool,
            shared,
            store: AuditStore::from(crate::store::Database::Sqlite(pool.clone())),
            replica_id: "r".into(),
            local: LocalHead::default(),
            metrics: metrics.clone(),
            db_timeout: Duration::from_secs(1),
            inserter: None,
        };
        let (shutdown, stop) = watch::channel(false);
        let task = tokio::spawn(writer.run(stop));
        Running {
            tx,
            metrics,
            pool,
            shutdown,
            task,
        }
    }

    impl Running {
        /// Records rows one batch at a time, each acknowledged before the next is sent.
        async fn record(&self, rows: usize) {
            for n in 0..rows {
                let (ack, done) = oneshot::channel();
                let pending = Pending {
                    row: crate::audit::record::sample(n as i64 + 1),
                    ack: Some(ack),
                };
                self.tx.send(pending).await.unwrap();
                done.await.unwrap().unwrap();
            }
        }

        async fn rows_in_database(&self) -> i64 {
            sqlx::query_scalar("SELECT count(*) FROM audit")
                .fetch_one(&self.pool)
                .await
                .unwrap()
        }

        async fn stop(self) {
            self.shutdown.send(true).unwrap();
            self.task.await.unwrap();
        }
    }

    #[tokio::test]
    async fn with_the_database_up_rows_are_inserted_and_the_head_file_follows() {
        let dir = tempfile::tempdir().unwrap();
        let writer = start(dir.path(), false, false).await;
        writer.record(3).await;
        assert_eq!(writer.metrics.rows_written.get(), 3);
        assert_eq!(writer.metrics.rows_spooled.get(), 0);
        assert_eq!(writer.rows_in_database().await, 3);
        let record = spool::read_head(&dir.path().join("spool")).unwrap();
        assert_eq!((record.settled.seq, record.claimed), (3, 3));
        writer.stop().await;
    }

    #[tokio::test]
    async fn while_spooling_the_head_file_follows_every_batch() {
        let dir = tempfile::tempdir().unwrap();
        let writer = start(dir.path(), true, false).await;
        writer.record(3).await;
        assert_eq!(writer.metrics.rows_spooled.get(), 3);
        let record = spool::read_head(&dir.path().join("spool")).unwrap();
        // The first batch was sent (and failed); the next two went to the spool directly. (With
        // the database away at start, the chain starts at a time-based seq.)
        assert_eq!(record.settled.seq, record.claimed + 2);
        writer.stop().await;
    }

    #[tokio::test]
    async fn no_insert_goes_out_before_its_claim_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let writer = start(dir.path(), false, true).await;
        writer.record(2).await;
        assert_eq!(writer.metrics.rows_written.get(), 0);
        assert_eq!(writer.metrics.rows_spooled.get(), 2);
        assert_eq!(
            writer.rows_in_database().await,
            0,
            "the rows wait in the spool for the shipper"
        );
        writer.stop().await;
    }

    impl Head {
        fn with_genesis(mut self) -> Self {
            self.hash = GENESIS;
            self
        }
    }
}
