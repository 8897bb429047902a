//! The writer task (group commit) and the shipper task (spool → database).
//!
//! The writer takes everything queued (up to [`MAX_BATCH`] rows), gives the rows this replica's
//! next seqs, times that never go backwards, repeat flags and chain hashes, appends the batch to
//! the spool in one write, and makes it durable with one flush: a database insert, or — when the
//! database fails or rows are already waiting in the spool — an `fdatasync` of the spool. Then it
//! acknowledges every row of the batch at once. Up to [`MAX_IN_FLIGHT`] inserts run at once (one:
//! the next batch forms while the last commits, and grows with the load); they complete in batch
//! order. A batch
//! that can be made durable nowhere is refused: its rows get an error and the evaluations that
//! waited for them are answered with the failure decision. A batch the spool refuses while
//! spooling (full, or its sync failed) is cut from it and does not move the chain head; one whose
//! insert and then spool sync both fail (disk and database down together) leaves a gap that
//! `verify` reports, and its rows are not shipped unless earlier spooled rows were waiting.
//!
//! The shipper drains spooled rows into the database in spool order, and hands the writer back
//! to direct inserts once the spool is empty. Neither task runs on the request path.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::stream::FuturesOrdered;
use tokio::sync::{mpsc, watch};

use super::AuditError;
use super::queue::{Pending, RecentKeys};
use super::record::GENESIS;
use super::spool::{self, Head, Spool, SpoolError, SpoolShared};
use super::store::{AuditStore, Inserter};
use crate::metrics::AuditMetrics;

/// Most rows in one batch.
pub const MAX_BATCH: usize = 1024;
/// Most batches whose insert is in flight at once. The next batch forms while one commits. One
/// is best while PostgreSQL's CPU is the limit, as it was on the benchmark's machine: two inserts
/// in flight split the waiting rows into batches half as large (9.5 rows on average at 32
/// connections), and each statement has a fixed cost about that of 15 rows' own. With one, both
/// toolgate and PostgreSQL spent less CPU per row and the p99 was lower.
pub const MAX_IN_FLIGHT: usize = 1;
/// Most rows the shipper sends in one insert.
const SHIP_BATCH: usize = 1000;

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
    /// The head found in the spool at open.
    pub spool_head: Option<Head>,
    /// Metrics.
    pub metrics: AuditMetrics,
    /// How long a database insert may take before the batch goes to the spool.
    pub db_timeout: Duration,
    /// The inserter (and the connection it keeps) while no insert is in flight.
    pub inserter: Option<Inserter>,
}

struct Chainer {
    head: Head,
    recent: RecentKeys,
}

/// A batch whose insert is in flight.
struct InFlight {
    rows: u64,
    acks: Vec<Option<tokio::sync::oneshot::Sender<Result<(), AuditError>>>>,
    /// The spool end after this batch's append (`None`: the append failed).
    end: Option<spool::Position>,
    started: Instant,
}

type Insert =
    std::pin::Pin<Box<dyn Future<Output = (InFlight, Inserter, Result<(), String>)> + Send>>;

impl Writer {
    /// Runs until the queue is closed and drained: at shutdown, or when every sender is gone.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let head = self.resolve_head().await;
        let mut chainer = Chainer {
            head,
            recent: RecentKeys::default(),
        };
        let mut batch = Vec::with_capacity(MAX_BATCH);
        let mut inflight: FuturesOrdered<Insert> = FuturesOrdered::new();
        let mut closed = false;
        let mut last_persist = Instant::now();
        loop {
            tokio::select! {
                biased;
                Some((flight, inserter, result)) = inflight.next(), if !inflight.is_empty() => {
                    self.inserter = Some(inserter);
                    self.complete(flight, result).await;
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
            }
            if last_persist.elapsed() > Duration::from_secs(1) {
                self.persist_shipped();
                last_persist = Instant::now();
            }
        }
        while let Some((flight, _, result)) = inflight.next().await {
            self.complete(flight, result).await;
        }
        self.persist_shipped();
        tracing::info!("audit writer stopped; queue drained");
    }

    fn persist_shipped(&self) {
        if let Err(error) = self.shared.persist_shipped(self.spool.dir()) {
            tracing::warn!(error = %error, "cannot record the audit spool's shipped position");
        }
    }

    /// The chain head: the later of the spool's and the database's. With neither (a replica
    /// that never wrote and cannot reach the database, or whose spool is gone), the chain
    /// restarts at a time-based seq above any earlier one, with a zero `prev_hash`.
    async fn resolve_head(&self) -> Head {
        let db = tokio::time::timeout(self.db_timeout * 2, self.store.head(&self.replica_id)).await;
        let db = match db {
            Ok(Ok(head)) => Ok(head),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err("timed out".to_owned()),
        };
        match (self.spool_head, db) {
            (Some(spool), Ok(Some(db))) if db.seq > spool.seq => db,
            (Some(spool), _) => spool,
            (None, Ok(Some(db))) => db,
            (None, Ok(None)) => Head {
                seq: 0,
                hash: GENESIS,
                time_us: 0,
            },
            (None, Err(error)) => {
                let now = chrono::Utc::now().timestamp_micros();
                tracing::warn!(
                    error = %error,
                    "the audit chain head is unknown (no spool, database unreachable); \
                     the chain restarts at a time-based seq"
                );
                Head {
                    seq: now,
                    hash: GENESIS,
                    time_us: 0,
                }
            }
        }
    }

    /// Chains a batch and appends it to the spool. While spooling, syncs it and acknowledges
    /// at once; otherwise returns its insert, to run beside at most [`MAX_IN_FLIGHT`] - 1
    /// others. A batch the spool refuses (full) is refused without moving the chain head.
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
        let mut frames = Vec::with_capacity(n * 1024);
        for row in &rows {
            spool::encode(row, &mut frames);
        }
        self.metrics.batch_rows.observe(n as f64);

        let spooling = {
            let mut state = self.shared.lock();
            if state.spooling && !state.unshipped() {
                state.spooling = false;
            }
            state.spooling
        };
        let mut flight = InFlight {
            rows: n as u64,
            acks,
            end: None,
            started,
        };
        if spooling {
            let result = self.spool.append(&frames, true).await;
            if result.is_ok() {
                chainer.head = head;
                self.metrics.rows_spooled.inc_by(flight.rows);
                self.shared.wake.notify_one();
            }
            self.finish(flight, result.map(|_| ()).map_err(AuditError::from));
            return None;
        }
        match self.spool.append(&frames, false).await {
            Ok(end) => flight.end = Some(end),
            Err(SpoolError::Full { .. }) => {
                self.finish(flight, Err(AuditError::SpoolFull));
                return None;
            }
            Err(error) => {
                tracing::warn!(error = %error, "cannot append to the audit spool; inserting directly");
            }
        }
        chainer.head = head;
        let mut inserter = self
            .inserter
            .take()
            .unwrap_or_else(|| self.store.inserter());
        let timeout = self.db_timeout;
        Some(Box::pin(async move {
            let result = match tokio::time::timeout(timeout, inserter.insert_new(&rows)).await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(error)) => Err(error.to_string()),
                Err(_) => Err("timed out".to_owned()),
            };
            (flight, inserter, result)
        }))
    }

    /// An insert finished (in batch order). Committed: the spool is shipped up to its end. Failed:
    /// the batch is in the spool already, so sync it there and switch to spooling.
    async fn complete(&mut self, flight: InFlight, inserted: Result<(), String>) {
        let result = match (inserted, flight.end) {
            (Ok(()), end) => {
                if let Some(end) = end {
                    let mut state = self.shared.lock();
                    if !state.spooling && end > state.shipped {
                        state.shipped = end;
                    }
                }
                spool::delete_shipped(self.spool.dir(), &self.shared, self.spool.current_segment());
                self.metrics.rows_written.inc_by(flight.rows);
                Ok(())
            }
            (Err(why), Some(_)) => match self.spool.sync().await {
                Ok(()) => {
                    let newly = {
                        let mut state = self.shared.lock();
                        !std::mem::replace(&mut state.spooling, true)
                    };
                    if newly {
                        tracing::warn!(error = %why, "audit insert failed; spooling to disk until the database is back");
                    }
                    self.metrics.rows_spooled.inc_by(flight.rows);
                    self.shared.wake.notify_one();
                    Ok(())
                }
                Err(error) => {
                    // Refused: the rows stay in the spool unsynced. Move past them, so that a
                    // later switch to spooling does not ship rows whose evaluations got the
                    // failure decision; the chain keeps the gap. (While rows already wait in
                    // the spool they cannot be skipped, and are shipped with the rest.)
                    if let Some(end) = flight.end {
                        let mut state = self.shared.lock();
                        if !state.spooling && end > state.shipped {
                            state.shipped = end;
                        }
                    }
                    Err(AuditError::from(error))
                }
            },
            (Err(why), None) => Err(AuditError::Unavailable(why)),
        };
        self.finish(flight, result);
    }

    /// Acknowledges a batch and records its metrics.
    fn finish(&self, flight: InFlight, result: Result<(), AuditError>) {
        if let Err(error) = &result {
            self.metrics.rows_failed.inc_by(flight.rows);
            tracing::error!(rows = flight.rows, error = %error, "audit rows could not be made durable; their evaluations get the failure decision");
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

impl From<SpoolError> for AuditError {
    fn from(error: SpoolError) -> Self {
        match error {
            SpoolError::Full { .. } => AuditError::SpoolFull,
            SpoolError::Io(error) => AuditError::Disk(error.to_string()),
        }
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
}

impl Shipper {
    /// Drains spooled rows into the database, in order, retrying with capped backoff
    /// (100 ms → 5 s) while it is away. Runs until `shutdown`.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let mut backoff = Duration::from_millis(100);
        let mut failing = false;
        loop {
            if *shutdown.borrow() {
                break;
            }
            let range = {
                let state = self.shared.lock();
                (state.spooling && state.unshipped()).then_some((state.shipped, state.end))
            };
            let Some((from, to)) = range else {
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
            let (rows, next, corrupt) = match read {
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
            if corrupt > 0 {
                tracing::error!(
                    segments = corrupt,
                    "audit spool records failed their checksum; the rest of those segments is skipped"
                );
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
                    let bytes = spool::delete_shipped(&self.dir, &self.shared, Some(to.segment));
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
