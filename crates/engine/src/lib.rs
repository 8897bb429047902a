//! toolgate's policy engine: pure, synchronous, and bounded.
//!
//! A policy bundle (JSON or YAML) is parsed and validated ([`bundle`]), compiled once into an
//! immutable [`CompiledPolicy`] ([`compile`]), and then evaluated many times against hook events
//! ([`evaluate()`]). Evaluation is a pure function of (policy, event): no I/O, no clock, no global
//! state. Shell commands are parsed with a real bash parser ([`shell`]) and every simple command
//! that may run is judged on its own, so rules see through `bash -c`, `$(…)`, wrappers and quoting.
//!
//! This crate must not depend on tokio, axum, sqlx or a tracing subscriber: the service, the CLI
//! and the command-hook client all embed it.

#![deny(missing_docs)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub(crate) mod argv;
pub mod bundle;
pub mod compile;
pub mod decision;
pub mod evaluate;
pub mod packs;
pub mod paths;
pub mod protocol;
pub mod rules;
pub mod secrets;
pub mod shell;

pub use bundle::{Bundle, BundleError, BundleErrors};
pub use compile::CompiledPolicy;
pub use decision::{Decision, Outcome, RuleHit};
pub use evaluate::evaluate;
pub use protocol::{Agent, HookEvent};
