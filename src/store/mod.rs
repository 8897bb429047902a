//! Where bundles, activations and tokens live (PostgreSQL, [`postgres`]) and how the live
//! policies get from there into every replica's memory ([`reload`]) and its disk cache ([`cache`]).

pub mod cache;
pub mod postgres;
pub mod reload;
