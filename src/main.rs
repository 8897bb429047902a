use std::process::ExitCode;

use clap::Parser;

/// The request path allocates many small, short-lived objects on several threads (JSON values,
/// the event, the decision, the audit row); mimalloc's thread-local free lists serve them with
/// less work than glibc's allocator (see `bench/README.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<ExitCode> {
    toolgate::cli::run(toolgate::cli::Cli::parse())
}
