use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's allocator in the server's builds (`--features mimalloc`): glibc's
/// malloc and free (often on another thread than the allocation) were about a tenth of the
/// server's CPU under load, and with mimalloc a request costs 4 % less CPU when its answer is
/// remembered, 9-10 % less when evaluated or durably audited (`bench/ab.sh`). Without the
/// feature, glibc's: mimalloc's start-up costs every process 0.3-0.9 ms more, which
/// `toolgate hook` pays on every tool call.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// An error is one line on stderr, its causes after colons, and exit 1: never anyhow's
/// `Caused by:` block, nor a stack backtrace where `RUST_BACKTRACE` is set.
fn main() -> ExitCode {
    match toolgate::cli::run(toolgate::cli::Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
