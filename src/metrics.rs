//! Metrics, in a struct that owns its Prometheus registry (no global registry).
//!
//! A stub for now: evaluations counted by outcome and their latency. Exposition (`/metrics` on a
//! separate port) and the rest of the catalogue belong to the metrics issue.

use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts, Registry,
};
use toolgate_engine::Outcome;

/// The service's metrics.
#[derive(Clone)]
pub struct Metrics {
    /// The registry everything is registered in.
    pub registry: Registry,
    /// `toolgate_evaluations_total{outcome}`.
    pub evaluations: IntCounterVec,
    /// `toolgate_evaluation_duration_seconds{gate}`.
    pub evaluation_seconds: HistogramVec,
    /// The audit's metrics (`toolgate_audit_*`).
    pub audit: AuditMetrics,
    // Label values resolved once, so the request path does no label hashing.
    by_outcome: [IntCounter; 4],
    failures: IntCounter,
    gate_seconds: Histogram,
    other_seconds: Histogram,
}

impl Metrics {
    /// Creates and registers the metrics.
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new();
        let evaluations = IntCounterVec::new(
            Opts::new(
                "toolgate_evaluations_total",
                "Evaluated hook events by outcome",
            ),
            &["outcome"],
        )?;
        let evaluation_seconds = HistogramVec::new(
            HistogramOpts::new(
                "toolgate_evaluation_duration_seconds",
                "Time to evaluate one event against the live policies",
            )
            .buckets(vec![
                0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001,
                0.0025, 0.005, 0.01,
            ]),
            &["gate"],
        )?;
        registry.register(Box::new(evaluations.clone()))?;
        registry.register(Box::new(evaluation_seconds.clone()))?;
        let by_outcome = [
            evaluations.with_label_values(&["none"]),
            evaluations.with_label_values(&["allow"]),
            evaluations.with_label_values(&["ask"]),
            evaluations.with_label_values(&["deny"]),
        ];
        Ok(Self {
            audit: AuditMetrics::register(&registry)?,
            failures: evaluations.with_label_values(&["failure"]),
            gate_seconds: evaluation_seconds.with_label_values(&["true"]),
            other_seconds: evaluation_seconds.with_label_values(&["false"]),
            by_outcome,
            registry,
            evaluations,
            evaluation_seconds,
        })
    }

    /// Counts one evaluation and its duration.
    pub fn observe_evaluation(&self, outcome: Outcome, gate: bool, seconds: f64) {
        let counter = match outcome {
            Outcome::None => &self.by_outcome[0],
            Outcome::Allow => &self.by_outcome[1],
            Outcome::Ask => &self.by_outcome[2],
            Outcome::Deny => &self.by_outcome[3],
        };
        counter.inc();
        self.seconds(gate).observe(seconds);
    }

    /// Counts one evaluation that failed and was answered with the failure decision.
    pub fn observe_failure(&self, gate: bool, seconds: f64) {
        self.failures.inc();
        self.seconds(gate).observe(seconds);
    }

    fn seconds(&self, gate: bool) -> &Histogram {
        if gate {
            &self.gate_seconds
        } else {
            &self.other_seconds
        }
    }
}

// ---- Audit ----------------------------------------------------------------------------------

/// The audit writer's metrics, registered in the app's registry.
#[derive(Clone)]
pub struct AuditMetrics {
    /// `toolgate_audit_queue_depth`: rows waiting for the writer.
    pub queue_depth: IntGauge,
    /// `toolgate_audit_rows_written_total`: rows committed to the database directly.
    pub rows_written: IntCounter,
    /// `toolgate_audit_rows_spooled_total`: rows made durable by an fsync of the spool.
    pub rows_spooled: IntCounter,
    /// `toolgate_audit_rows_replayed_total`: spooled rows shipped to the database.
    pub rows_replayed: IntCounter,
    /// `toolgate_audit_rows_failed_total`: rows that could be made durable nowhere.
    pub rows_failed: IntCounter,
    /// `toolgate_audit_refused_evaluations_total`: evaluations answered with the failure
    /// decision because their row could not be recorded.
    pub refused_evaluations: IntCounter,
    /// `toolgate_audit_batch_rows`: rows per writer batch.
    pub batch_rows: Histogram,
    /// `toolgate_audit_batch_duration_seconds`: time to make one batch durable.
    pub batch_seconds: Histogram,
    /// `toolgate_audit_spool_bytes`: bytes of spool segments on disk.
    pub spool_bytes: IntGauge,
}

impl AuditMetrics {
    /// Creates the audit metrics and registers them in `registry`.
    pub fn register(registry: &Registry) -> Result<Self, prometheus::Error> {
        let counter = |name: &str, help: &str| -> Result<IntCounter, prometheus::Error> {
            let counter = IntCounter::new(name, help)?;
            registry.register(Box::new(counter.clone()))?;
            Ok(counter)
        };
        let gauge = |name: &str, help: &str| -> Result<IntGauge, prometheus::Error> {
            let gauge = IntGauge::new(name, help)?;
            registry.register(Box::new(gauge.clone()))?;
            Ok(gauge)
        };
        let histogram =
            |name: &str, help: &str, buckets: Vec<f64>| -> Result<Histogram, prometheus::Error> {
                let histogram =
                    Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))?;
                registry.register(Box::new(histogram.clone()))?;
                Ok(histogram)
            };
        Ok(Self {
            queue_depth: gauge(
                "toolgate_audit_queue_depth",
                "Audit rows waiting for the writer",
            )?,
            rows_written: counter(
                "toolgate_audit_rows_written_total",
                "Audit rows committed to the database directly",
            )?,
            rows_spooled: counter(
                "toolgate_audit_rows_spooled_total",
                "Audit rows made durable in the local spool (database unavailable)",
            )?,
            rows_replayed: counter(
                "toolgate_audit_rows_replayed_total",
                "Spooled audit rows shipped to the database",
            )?,
            rows_failed: counter(
                "toolgate_audit_rows_failed_total",
                "Audit rows that could not be made durable",
            )?,
            refused_evaluations: counter(
                "toolgate_audit_refused_evaluations_total",
                "Evaluations answered with the failure decision because the audit could not be written",
            )?,
            batch_rows: histogram(
                "toolgate_audit_batch_rows",
                "Rows per audit writer batch",
                vec![
                    1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0,
                ],
            )?,
            batch_seconds: histogram(
                "toolgate_audit_batch_duration_seconds",
                "Time to make one audit batch durable",
                vec![
                    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                    1.0,
                ],
            )?,
            spool_bytes: gauge(
                "toolgate_audit_spool_bytes",
                "Bytes of audit spool segments on disk",
            )?,
        })
    }
}
