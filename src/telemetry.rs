//! Logging: one tracing subscriber, JSON or compact, filtered by `RUST_LOG`.
//!
//! Initialise once per process. Log fields are dotted (`bundle.id`) with units in their names;
//! tokens, secrets, request bodies and tool input are never logged (`docs/LOGGING.md`).

use tracing_subscriber::EnvFilter;

/// How log lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Compact human-readable lines.
    Compact,
}

/// The log flag of the commands that log (`serve`, `migrate`); the others write no logs and do
/// not take it.
#[derive(Debug, Clone, clap::Args)]
pub struct LogArgs {
    /// How log lines look.
    #[arg(long, env = "TOOLGATE_LOG_FORMAT", default_value = "compact")]
    pub log_format: LogFormat,
}

const DEFAULT_FILTER: &str = "info,sqlx=warn";

/// Event targets that carry tool input, turned off whatever `RUST_LOG` says. brush-parser logs
/// at `debug` every token, word, arithmetic expression and parse tree of the commands it parses,
/// under these targets of its own (not under its crate's name): `RUST_LOG=debug`, which
/// LOGGING.md offers for one span per request and each decision, wrote agents' commands, and
/// whatever secret was in them, to the log.
const TOOL_INPUT_TARGETS: [&str; 4] = ["tokenize", "parse", "expansion", "arithmetic"];

/// `filter` with [`TOOL_INPUT_TARGETS`] turned off.
fn without_tool_input(filter: EnvFilter) -> EnvFilter {
    TOOL_INPUT_TARGETS
        .iter()
        .filter_map(|target| format!("{target}=off").parse().ok())
        .fold(filter, EnvFilter::add_directive)
}

/// Installs the global subscriber, writing to standard error.
pub fn init(format: LogFormat) -> anyhow::Result<()> {
    let filter = without_tool_input(
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER)),
    );
    // Colours only for a person at a terminal: a file, a pipe, journald or a container's log
    // gets plain text, not escape codes (and `NO_COLOR` turns them off there too).
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    let result = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Compact => builder.compact().try_init(),
    };
    result.map_err(|error| anyhow::anyhow!("failed to initialise logging: {error}"))
}

/// Installs a subscriber for tests: captured by the test harness, filtered by `TEST_LOG`
/// (default `warn`). Ignores a second call.
pub fn init_for_tests() {
    let filter = std::env::var("TEST_LOG").unwrap_or_else(|_| "warn".to_owned());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(without_tool_input(EnvFilter::new(filter)))
        .with_test_writer()
        .compact()
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_input_targets_are_turned_off_even_at_trace() {
        let filter = without_tool_input(EnvFilter::new("trace")).to_string();
        for target in TOOL_INPUT_TARGETS {
            assert!(filter.contains(&format!("{target}=off")), "{filter}");
        }
    }
}
