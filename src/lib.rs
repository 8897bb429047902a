//! toolgate: the policy decision service and CLI around `toolgate-engine`.
//!
//! `startup` builds the server from a `config::Config`; `routes` hold the handlers, `middleware`
//! composes every layer, `store` keeps bundles in PostgreSQL or the embedded SQLite file and the
//! live policies in memory, `cli` is the `toolgate` command line.

pub mod audit;
pub mod auth;
pub mod cli;
pub mod client;
pub mod config;
pub mod decisions;
pub mod error;
pub mod hook;
pub mod metrics;
pub mod middleware;
pub mod offline;
pub mod recent;
pub mod routes;
pub mod startup;
pub mod state;
pub mod store;
pub mod telemetry;
