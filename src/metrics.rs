//! Metrics, in a struct that owns its Prometheus registry (no global registry).
//!
//! A stub for now: evaluations counted by outcome and their latency. Exposition (`/metrics` on a
//! separate port) and the rest of the catalogue belong to the metrics issue.

use prometheus::{HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry};

/// The service's metrics.
#[derive(Clone)]
pub struct Metrics {
    /// The registry everything is registered in.
    pub registry: Registry,
    /// `toolgate_evaluations_total{outcome}`.
    pub evaluations: IntCounterVec,
    /// `toolgate_evaluation_duration_seconds{event}`.
    pub evaluation_seconds: HistogramVec,
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
        Ok(Self {
            registry,
            evaluations,
            evaluation_seconds,
        })
    }
}
