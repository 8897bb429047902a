//! The server's configuration: `toolgate serve` flags and environment variables, parsed by clap
//! into [`ServeArgs`] and turned into the plain [`Config`] that [`crate::startup`] consumes.
//!
//! Tests build a [`Config`] directly; nothing here reads the environment on its own.

use std::path::PathBuf;
use std::time::Duration;

use toolgate_engine::Outcome;

use crate::audit::{AuditMode, AuditSettings};

use crate::store::Location;

/// The default data directory: the embedded store and the policy cache live under it.
pub const DEFAULT_DATA_DIR: &str = "./.toolgate";

/// The default bound of the remembered decisions: some tens of thousands of entries.
pub const DEFAULT_DECISION_CACHE_BYTES: u64 = 32 * 1024 * 1024;

/// Everything `toolgate serve` needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:8080`; port 0 picks a free one).
    pub listen: String,
    /// Serve `/metrics` on this address only, instead of on `listen`.
    pub metrics_listen: Option<String>,
    /// PostgreSQL URL (`postgres://…`) or SQLite file (`sqlite://path`); `None`: the embedded
    /// SQLite file in `data_dir`.
    pub database_url: Option<String>,
    /// Where the embedded store (`toolgate.db`) lives.
    pub data_dir: PathBuf,
    /// The bootstrap admin token of the `global` tenant (`TOOLGATE_ADMIN_TOKEN`).
    pub admin_token: Option<String>,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Time limit for one request.
    pub request_timeout: Duration,
    /// Requests in flight before new ones are shed.
    pub concurrency_limit: usize,
    /// Most bytes of remembered decisions (0: evaluate every event afresh).
    pub decision_cache_bytes: u64,
    /// How often the live versions are polled.
    pub poll_interval: Duration,
    /// Where the last good policies are cached.
    pub cache_dir: PathBuf,
    /// This replica's id.
    pub replica_id: String,
    /// Let loopback peers evaluate without a token, against the `global` policy (on by default
    /// with the embedded store, off with PostgreSQL).
    pub allow_anonymous_loopback: bool,
    /// With the embedded store: push and activate the starter bundle for `global` when the store
    /// has no bundle at all.
    pub starter_bundle: bool,
    /// The answer to a gating event when toolgate fails (`deny` or `ask`).
    pub failure_decision: Outcome,
    /// Block a prompt (`UserPromptSubmit`) when toolgate fails, instead of letting it through.
    pub failure_blocks_prompts: bool,
    /// Apply migrations at start.
    pub migrate: bool,
    /// How long a request waits for a database connection.
    pub db_acquire_timeout: Duration,
    /// Most database connections.
    pub db_max_connections: u32,
    /// `LISTEN` for activations (off only in tests of the polling fallback).
    pub listen_notifications: bool,
    /// The audit log's mode, spool and limits.
    pub audit: AuditSettings,
    /// Drop audit months older than this, checked hourly (`None`: keep everything).
    pub audit_retention: Option<Duration>,
    /// The longest lifetime of a token made through the admin API, and the lifetime of one
    /// made without an expiry (`None`: no limit, and such a token never expires).
    pub token_max_lifetime: Option<Duration>,
    /// After SIGTERM, how long to go on serving with `/readyz` answering 503 `stopping` before
    /// no new connection is accepted: the time a load balancer takes to stop sending here.
    pub shutdown_delay: Duration,
}

impl Config {
    /// A configuration with the defaults of `toolgate serve` on PostgreSQL (or on the SQLite
    /// file of a `sqlite://` URL, with PostgreSQL's defaults).
    pub fn new(database_url: impl Into<String>) -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            metrics_listen: None,
            database_url: Some(database_url.into()),
            data_dir: PathBuf::from(DEFAULT_DATA_DIR),
            admin_token: None,
            max_body_bytes: 4 * 1024 * 1024,
            request_timeout: Duration::from_secs(10),
            concurrency_limit: 1024,
            decision_cache_bytes: DEFAULT_DECISION_CACHE_BYTES,
            poll_interval: Duration::from_secs(5),
            cache_dir: PathBuf::from(DEFAULT_DATA_DIR).join("cache"),
            replica_id: default_replica_id(),
            allow_anonymous_loopback: false,
            starter_bundle: true,
            failure_decision: Outcome::Deny,
            failure_blocks_prompts: false,
            migrate: true,
            db_acquire_timeout: Duration::from_secs(2),
            db_max_connections: 10,
            listen_notifications: true,
            audit: AuditSettings::new(PathBuf::from(DEFAULT_DATA_DIR).join("spool")),
            audit_retention: None,
            token_max_lifetime: None,
            shutdown_delay: Duration::ZERO,
        }
    }

    /// A configuration with the defaults of `toolgate serve` with no `DATABASE_URL`: the
    /// embedded SQLite store in `data_dir`, the starter bundle, anonymous loopback evaluation.
    pub fn embedded(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            database_url: None,
            cache_dir: data_dir.join("cache"),
            audit: AuditSettings::new(data_dir.join("spool")),
            data_dir,
            allow_anonymous_loopback: true,
            ..Self::new("")
        }
    }

    /// Where the store is.
    pub fn location(&self) -> Result<Location, String> {
        Location::resolve(self.database_url.as_deref(), &self.data_dir)
    }
}

/// `hostname-pid`, or `replica-pid` when the host name is unknown.
pub fn default_replica_id() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "replica".to_owned());
    format!("{host}-{}", std::process::id())
}

/// Parses `250ms`, `5s`, `2m`, `12h`, `90d` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try `200ms`, `5s`, `1m` or `90d`)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        _ => {
            return Err(format!(
                "unknown unit in `{text}` (use `ms`, `s`, `m`, `h` or `d`)"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{text}`: {e}"))
}

/// Parses an age or a lifetime (`90d`, `12h`): a duration whose unit is written, longer than
/// nothing. A bare number, which [`parse_duration`] reads as seconds, is refused: `90` meant as
/// days would prune all but this month's audit, or make a token dead in a minute and a half.
pub fn parse_age(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!(
            "`{trimmed}` has no unit: write `{trimmed}d` for days, or `{trimmed}h`, `{trimmed}m`, \
             `{trimmed}s`"
        ));
    }
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(format!("`{trimmed}` is no time at all"));
    }
    Ok(duration)
}

fn parse_failure_decision(text: &str) -> Result<Outcome, String> {
    match text {
        "deny" => Ok(Outcome::Deny),
        "ask" => Ok(Outcome::Ask),
        other => Err(format!(
            "`{other}` is not a failure decision (use `deny` or `ask`)"
        )),
    }
}

/// The flags of `toolgate serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub log: crate::telemetry::LogArgs,
    /// Address to listen on.
    #[arg(long, env = "TOOLGATE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Serve `/metrics` on this address (e.g. `0.0.0.0:9090`) and not on `--listen`.
    #[arg(long, env = "TOOLGATE_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// PostgreSQL URL (`postgres://…`), or an SQLite file (`sqlite://path`). Default: the
    /// embedded SQLite file `toolgate.db` in `--data-dir`.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Where the embedded store (`toolgate.db`) and, by default, the policy cache live.
    #[arg(long, env = "TOOLGATE_DATA_DIR", default_value = DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
    /// Largest accepted request body, in bytes.
    #[arg(long, env = "TOOLGATE_MAX_BODY_BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Time limit for one request (`10s`, `500ms`).
    #[arg(long, env = "TOOLGATE_REQUEST_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Requests in flight before new ones are shed.
    #[arg(long, env = "TOOLGATE_CONCURRENCY_LIMIT", default_value_t = 1024)]
    pub concurrency_limit: usize,
    /// Most bytes of remembered decisions: an event judged the same way before (same tool
    /// input, cwd, home and mode, against the same live policies) is answered from memory. 0
    /// evaluates every event afresh.
    #[arg(long, env = "TOOLGATE_DECISION_CACHE_BYTES", default_value_t = DEFAULT_DECISION_CACHE_BYTES)]
    pub decision_cache_bytes: u64,
    /// How often every replica polls the live bundle versions (a safety net under LISTEN/NOTIFY).
    #[arg(long, env = "TOOLGATE_POLL_INTERVAL", default_value = "5s", value_parser = parse_duration)]
    pub poll_interval: Duration,
    /// Where the last good policies are cached for starts while the database is down (default:
    /// `cache` in `--data-dir`).
    #[arg(long, env = "TOOLGATE_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// This replica's id (default: host name and process id).
    #[arg(long, env = "TOOLGATE_REPLICA_ID")]
    pub replica_id: Option<String>,
    /// Let loopback peers evaluate without a token, against the `global` policy. For local
    /// development only. Default: on with the embedded store, off with PostgreSQL;
    /// `--allow-anonymous-loopback=false` turns it off.
    #[arg(
        long,
        env = "TOOLGATE_ALLOW_ANONYMOUS_LOOPBACK",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        value_name = "BOOL",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_anonymous_loopback: Option<bool>,
    /// The answer to a PreToolUse/PermissionRequest event when toolgate fails (`deny` or `ask`).
    #[arg(long, env = "TOOLGATE_FAILURE_DECISION", default_value = "deny", value_parser = parse_failure_decision)]
    pub failure_decision: Outcome,
    /// Block a prompt (`UserPromptSubmit`) that toolgate fails to evaluate, instead of letting
    /// it through unchecked (and unaudited, when the audit is what failed).
    #[arg(long, env = "TOOLGATE_FAILURE_BLOCKS_PROMPTS")]
    pub failure_blocks_prompts: bool,
    /// Do not apply migrations at start.
    #[arg(long, env = "TOOLGATE_NO_MIGRATE")]
    pub no_migrate: bool,
    /// Most connections of the request pool (at least 2). With PostgreSQL a replica opens up to
    /// 3 more: its LISTEN connection and the audit writer's 2.
    #[arg(long, env = "TOOLGATE_DB_MAX_CONNECTIONS", default_value_t = 10)]
    pub db_max_connections: u32,
    /// When an evaluation is answered relative to its audit row: `durable` (once the row is
    /// committed or fsync'd), `async` (at once; a crash loses what is queued) or `off` (no audit:
    /// benchmarks and tests only).
    #[arg(long, env = "TOOLGATE_AUDIT_MODE", default_value = "durable")]
    pub audit_mode: AuditMode,
    /// Where audit rows are spooled while the database is away (default: `spool` in
    /// `--data-dir`).
    #[arg(long, env = "TOOLGATE_AUDIT_SPOOL_DIR")]
    pub audit_spool_dir: Option<PathBuf>,
    /// Most bytes the audit spool may hold; past it, evaluations get the failure decision.
    #[arg(long, env = "TOOLGATE_AUDIT_SPOOL_MAX_BYTES", default_value_t = 1024 * 1024 * 1024)]
    pub audit_spool_max_bytes: u64,
    /// Drop audit months older than this (`90d`; a unit is required), checked hourly; unset
    /// keeps everything.
    #[arg(long, env = "TOOLGATE_AUDIT_RETENTION", value_parser = parse_age)]
    pub audit_retention: Option<Duration>,
    /// The longest a token made through the admin API (`POST /v1/tenants/{tenant}/tokens`) may
    /// live (`90d`; a unit is required): one asked for without an expiry expires after this
    /// long, one asked to live longer is refused. Unset: no limit. Tokens made with `toolgate
    /// token create` are not limited.
    #[arg(long, env = "TOOLGATE_TOKEN_MAX_LIFETIME", value_parser = parse_age)]
    pub token_max_lifetime: Option<Duration>,
    /// After SIGTERM or SIGINT, go on serving this long (`5s`) with `/readyz` answering 503
    /// `stopping`, so that a load balancer stops sending here before the listener closes;
    /// then finish the requests in flight and stop. Behind a load balancer, set it above the
    /// time its health checks take to notice.
    #[arg(long, env = "TOOLGATE_SHUTDOWN_DELAY", default_value = "0s", value_parser = parse_duration)]
    pub shutdown_delay: Duration,
}

impl ServeArgs {
    /// The configuration these flags describe; `admin_token` comes from `TOOLGATE_ADMIN_TOKEN`.
    pub fn into_config(self, admin_token: Option<String>) -> Config {
        let embedded = Location::is_embedded_url(self.database_url.as_deref());
        let spool_dir = self
            .audit_spool_dir
            .unwrap_or_else(|| self.data_dir.join("spool"));
        Config {
            listen: self.listen,
            metrics_listen: self.metrics_listen,
            database_url: self.database_url.filter(|url| !url.is_empty()),
            cache_dir: self
                .cache_dir
                .unwrap_or_else(|| self.data_dir.join("cache")),
            data_dir: self.data_dir,
            admin_token,
            max_body_bytes: self.max_body_bytes,
            request_timeout: self.request_timeout,
            concurrency_limit: self.concurrency_limit.max(1),
            decision_cache_bytes: self.decision_cache_bytes,
            poll_interval: self.poll_interval,
            replica_id: self.replica_id.unwrap_or_else(default_replica_id),
            allow_anonymous_loopback: self.allow_anonymous_loopback.unwrap_or(embedded),
            starter_bundle: true,
            failure_decision: self.failure_decision,
            failure_blocks_prompts: self.failure_blocks_prompts,
            migrate: !self.no_migrate,
            db_acquire_timeout: Duration::from_secs(2),
            db_max_connections: self.db_max_connections.max(2),
            listen_notifications: true,
            audit: AuditSettings {
                mode: self.audit_mode,
                spool_max_bytes: self.audit_spool_max_bytes,
                ..AuditSettings::new(spool_dir)
            },
            audit_retention: self.audit_retention,
            token_max_lifetime: self.token_max_lifetime,
            shutdown_delay: self.shutdown_delay,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("200ms"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("90d"), Ok(Duration::from_secs(90 * 86400)));
        assert!(parse_duration("5w").is_err());
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn ages_need_a_unit_and_some_time() {
        assert_eq!(parse_age("90d"), Ok(Duration::from_secs(90 * 86400)));
        assert_eq!(parse_age(" 12h "), Ok(Duration::from_secs(12 * 3600)));
        assert_eq!(
            parse_age("90"),
            Err("`90` has no unit: write `90d` for days, or `90h`, `90m`, `90s`".to_owned())
        );
        assert_eq!(parse_age("0d"), Err("`0d` is no time at all".to_owned()));
        assert!(parse_age("soon").is_err());
    }
}
