use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// toolgate: policy decisions for AI coding agents' tool calls.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate hook events from stdin against a bundle, offline; one JSON reply per line.
    Eval {
        /// The bundle file, or a directory of fragments merged in name order.
        #[arg(long)]
        bundle: PathBuf,
        /// Write the decision trace (parsed commands, matched rules) to stderr.
        #[arg(long)]
        explain: bool,
    },
    /// Report rules Claude Code would silently ignore or that look wrong.
    Lint {
        /// The bundle file or fragment directory.
        bundle: PathBuf,
    },
    /// Run a bundle's own tests.
    Test {
        /// The bundle file or fragment directory.
        bundle: PathBuf,
    },
}

fn main() -> anyhow::Result<ExitCode> {
    match Cli::parse().command {
        Command::Eval { bundle, explain } => toolgate::offline::eval(&bundle, explain),
        Command::Lint { bundle } => toolgate::offline::lint(&bundle),
        Command::Test { bundle } => toolgate::offline::test(&bundle),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        super::Cli::command().debug_assert();
    }
}
