//! Integration tests: the real server on port 0 over HTTP, a real PostgreSQL (`DATABASE_URL`,
//! started by `scripts/test`), a fresh database per test — or a fresh SQLite file in a temporary
//! directory for the embedded store (`helpers::Backend`).

mod audit;
mod audit_process;
mod bad_input;
mod bundles;
mod cli;
mod database_down;
mod decisions;
mod embedded;
mod failure;
mod health;
mod helpers;
mod hook;
mod metrics;
mod offline;
mod openapi;
mod pg;
mod replicas;
mod tenants;
mod tokens;
mod upgrade;
