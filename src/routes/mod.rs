//! HTTP handlers, one module per resource. Handlers are named `<verb>_<resource>`.

pub mod audit;
pub mod bundles;
pub mod evaluate;
pub mod health;
