use std::process::ExitCode;

use clap::Parser;

fn main() -> anyhow::Result<ExitCode> {
    toolgate::cli::run(toolgate::cli::Cli::parse())
}
