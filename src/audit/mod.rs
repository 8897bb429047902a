//! The audit log: every evaluated hook event becomes one row, durably, tamper-evidently.
//!
//! - [`record`]: the row, built on the request path (secrets masked, large fields truncated),
//!   and its canonical hash.
//! - [`queue`]: what goes from the request path to the writer (a bounded channel).
//! - [`writer`]: the group-commit writer and the shipper that replays the spool.
//! - [`spool`]: the local append-only file of checksummed records.
//! - [`store`]: the database side ([`store::AuditStore`]): insert, query, verify, prune.
//! - [`replay`]: what a candidate bundle would have decided on the audited events.
//!
//! Modes (`--audit-mode`): `durable` (default) answers an evaluation only once its row is
//! committed to the database or fsync'd to the spool; `async` answers first and writes behind
//! (a crash loses at most what is queued); `off` writes nothing and exists for benchmarks and
//! tests only. When a row cannot be recorded (spool full, disk error, queue full), the
//! evaluation gets the failure decision and `toolgate_audit_refused_evaluations_total` counts it.

pub mod queue;
pub mod record;
pub mod replay;
pub mod spool;
pub mod store;
pub mod writer;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::metrics::AuditMetrics;
use queue::Pending;
use record::Row;
use store::AuditStore;

/// When an evaluation is answered relative to its audit row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AuditMode {
    /// Answer once the row is durable (database commit or fsync'd spool).
    #[default]
    Durable,
    /// Answer first; the row is written behind. A crash loses what is queued.
    Async,
    /// Write nothing. For benchmarks and tests only.
    Off,
}

impl AuditMode {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Durable => "durable",
            Self::Async => "async",
            Self::Off => "off",
        }
    }
}

/// The audit's settings.
#[derive(Debug, Clone)]
pub struct AuditSettings {
    /// The mode.
    pub mode: AuditMode,
    /// Where the spool lives.
    pub spool_dir: PathBuf,
    /// Most bytes the spool may hold on disk.
    pub spool_max_bytes: u64,
    /// Size at which a spool segment is closed and a new one started.
    pub segment_bytes: u64,
    /// Most rows waiting for the writer.
    pub queue_capacity: usize,
    /// How long a database insert may take before its batch goes to the spool.
    pub db_timeout: Duration,
    /// How long a durable evaluation waits for room in a full queue.
    pub queue_wait: Duration,
}

impl AuditSettings {
    /// The defaults of `toolgate serve`.
    pub fn new(spool_dir: PathBuf) -> Self {
        Self {
            mode: AuditMode::Durable,
            spool_dir,
            spool_max_bytes: 1024 * 1024 * 1024,
            segment_bytes: 16 * 1024 * 1024,
            queue_capacity: 8192,
            db_timeout: Duration::from_secs(1),
            queue_wait: Duration::from_secs(1),
        }
    }
}

/// Why a row was not recorded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AuditError {
    /// The spool reached `--audit-spool-max-bytes`.
    #[error("the audit spool is full")]
    SpoolFull,
    /// Writing or syncing the spool failed.
    #[error("the audit spool could not be written: {0}")]
    Disk(String),
    /// Neither the database nor the spool took the row.
    #[error("the audit database is unavailable and the spool could not take the row: {0}")]
    Unavailable(String),
    /// The queue stayed full.
    #[error("the audit queue is full")]
    QueueFull,
    /// The writer has stopped (shutdown).
    #[error("the audit writer has stopped")]
    Closed,
}

/// The audit as the request path sees it. Cheap to clone.
#[derive(Clone)]
pub struct Audit(Arc<Inner>);

struct Inner {
    mode: AuditMode,
    tx: Option<mpsc::Sender<Pending>>,
    queue_wait: Duration,
    metrics: AuditMetrics,
    shutdown: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Audit {
    /// Opens the spool and starts the writer and shipper tasks (none in `off` mode).
    pub fn start(
        settings: &AuditSettings,
        store: AuditStore,
        replica_id: &str,
        metrics: AuditMetrics,
    ) -> anyhow::Result<Self> {
        let (shutdown, shutdown_rx) = watch::channel(false);
        if settings.mode == AuditMode::Off {
            return Ok(Self(Arc::new(Inner {
                mode: AuditMode::Off,
                tx: None,
                queue_wait: settings.queue_wait,
                metrics,
                shutdown,
                tasks: Mutex::new(Vec::new()),
            })));
        }
        let segment_bytes = settings
            .segment_bytes
            .min(settings.spool_max_bytes / 4)
            .max(4096);
        let (spool, shared, recovered) =
            spool::Spool::open(&settings.spool_dir, segment_bytes, settings.spool_max_bytes)
                .map_err(|error| {
                    anyhow::anyhow!(
                        "cannot open the audit spool `{}`: {error}",
                        settings.spool_dir.display()
                    )
                })?;
        if recovered.truncated_bytes > 0 {
            tracing::warn!(
                bytes = recovered.truncated_bytes,
                "cut a torn, unacknowledged write from the end of the audit spool"
            );
        }
        writer::report_dropped_copies(&recovered.dropped_copies, &metrics);
        {
            let state = shared.lock();
            metrics.spool_bytes.set(state.bytes() as i64);
            metrics
                .spool_quarantined_files
                .set(state.quarantined.len() as i64);
            if state.unshipped() {
                tracing::info!("audit spool holds rows the database does not have yet; replaying");
            }
        }
        let (tx, rx) = mpsc::channel(settings.queue_capacity.max(1));
        let writer = writer::Writer {
            rx,
            spool,
            shared: shared.clone(),
            store: store.clone(),
            replica_id: replica_id.to_owned(),
            local: writer::LocalHead {
                spooled: recovered
                    .head
                    .and_then(|(writer, head)| (writer == replica_id).then_some(head)),
                recorded: recovered
                    .recorded
                    .filter(|record| record.replica_id == replica_id)
                    .map(|record| (record.settled, record.claimed)),
            },
            metrics: metrics.clone(),
            db_timeout: settings.db_timeout,
            inserter: None,
        };
        let shipper = writer::Shipper {
            shared,
            dir: settings.spool_dir.clone(),
            store,
            metrics: metrics.clone(),
            db_timeout: settings.db_timeout * 5,
            max_bytes: settings.spool_max_bytes,
        };
        let tasks = vec![
            tokio::spawn(writer.run(shutdown_rx.clone())),
            tokio::spawn(shipper.run(shutdown_rx)),
        ];
        Ok(Self(Arc::new(Inner {
            mode: settings.mode,
            tx: Some(tx),
            queue_wait: settings.queue_wait,
            metrics,
            shutdown,
            tasks: Mutex::new(tasks),
        })))
    }

    /// The mode.
    pub fn mode(&self) -> AuditMode {
        self.0.mode
    }

    /// Whether rows are recorded at all.
    pub fn enabled(&self) -> bool {
        self.0.tx.is_some()
    }

    /// Records a row: in durable mode, returns once it is durable; in async mode, once it is
    /// queued. An error means the row is not recorded, and the caller must answer with the
    /// failure decision (counted in `toolgate_audit_refused_evaluations_total`).
    pub async fn record(&self, row: Row) -> Result<(), AuditError> {
        let Some(tx) = &self.0.tx else {
            return Ok(());
        };
        let result = match self.0.mode {
            AuditMode::Durable => {
                let (ack, done) = oneshot::channel();
                let pending = Pending {
                    row,
                    ack: Some(ack),
                };
                match tx.send_timeout(pending, self.0.queue_wait).await {
                    Ok(()) => done.await.unwrap_or(Err(AuditError::Closed)),
                    Err(mpsc::error::SendTimeoutError::Timeout(_)) => Err(AuditError::QueueFull),
                    Err(mpsc::error::SendTimeoutError::Closed(_)) => Err(AuditError::Closed),
                }
            }
            AuditMode::Async => {
                tx.try_send(Pending { row, ack: None })
                    .map_err(|error| match error {
                        mpsc::error::TrySendError::Full(_) => AuditError::QueueFull,
                        mpsc::error::TrySendError::Closed(_) => AuditError::Closed,
                    })
            }
            AuditMode::Off => Ok(()),
        };
        if result.is_err() {
            self.0.metrics.refused_evaluations.inc();
        }
        result
    }

    /// Stops taking rows, writes everything queued, and waits (at most `limit`) for the writer
    /// and shipper to finish.
    pub async fn shutdown(&self, limit: Duration) {
        let _ = self.0.shutdown.send(true);
        let tasks: Vec<JoinHandle<()>> = self
            .0
            .tasks
            .lock()
            .map(|mut tasks| tasks.drain(..).collect())
            .unwrap_or_default();
        let all = futures_util::future::join_all(tasks);
        if tokio::time::timeout(limit, all).await.is_err() {
            tracing::error!("the audit writer did not finish draining in time");
        }
    }
}

/// The cut-off `older_than` before `now`: rows before it may be pruned. `None` when it falls
/// before the earliest time chrono holds (some 262 000 years ago), where `now - older_than`
/// would panic: nothing is that old.
pub fn prune_cutoff(
    now: chrono::DateTime<chrono::Utc>,
    older_than: Duration,
) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::Duration::from_std(older_than)
        .ok()
        .and_then(|age| now.checked_sub_signed(age))
}

/// Prunes audit months older than `retention` every hour (`serve --audit-retention`). Several
/// replicas may run this: the prune takes a transaction-scoped advisory lock and skips when
/// another replica holds it.
pub async fn prune_periodically(store: AuditStore, retention: Duration) {
    let mut interval = tokio::time::interval(Duration::from_secs(3600));
    loop {
        interval.tick().await;
        let Some(cutoff) = prune_cutoff(chrono::Utc::now(), retention) else {
            tracing::warn!(
                "--audit-retention reaches before any time a row can have; nothing is pruned"
            );
            return;
        };
        match store.prune(cutoff, false).await {
            Ok(report) if !report.partitions.is_empty() => {
                tracing::info!(partitions = ?report.partitions, "pruned audit months past the retention");
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(error = %error, "audit retention prune failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cutoff_too_far_back_is_none_not_a_panic() {
        let now = chrono::Utc::now();
        let day = Duration::from_secs(86_400);
        assert_eq!(
            prune_cutoff(now, day * 90),
            Some(now - chrono::Duration::days(90))
        );
        // `--older-than 100000000d`: within chrono's durations, before its earliest date.
        assert_eq!(prune_cutoff(now, day * 100_000_000), None);
        // Past chrono's durations.
        assert_eq!(prune_cutoff(now, Duration::MAX), None);
    }
}
