use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator, whose malloc and free (often on another thread than the
/// allocation) were about a tenth of the server's CPU under load. With mimalloc a request costs
/// 4 % less CPU when its answer is remembered, 9–10 % less when evaluated or durably audited
/// (`bench/ab.sh`). The benchmark's no-op server uses it too.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<ExitCode> {
    toolgate::cli::run(toolgate::cli::Cli::parse())
}
