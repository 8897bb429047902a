//! Metrics, in a struct that owns its Prometheus registry (no global registry).
//!
//! A stub for now: evaluations counted by outcome and their latency. Exposition (`/metrics` on a
//! separate port) and the rest of the catalogue belong to the metrics issue.

use prometheus::{
    Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, Opts, Registry,
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
