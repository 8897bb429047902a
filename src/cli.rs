//! The `toolgate` command line: one clap enum of subcommands, each dispatched by [`run`].
//!
//! Adding a subcommand is one variant in [`Command`] and one arm in [`run`]. Results go to
//! standard output; diagnostics and logs go to standard error. Exit codes: 0 success, 1 a
//! refused request or failed check, 2 a bundle that cannot be read or does not load (offline
//! commands).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use serde_json::Value;
use toolgate_engine::bundle::{self, Format};

use crate::audit::store::{AuditStore, ExpectedHead, Filter, Link};
use crate::auth::{Role, generate_token, hash_token, valid_tenant};
use crate::client::{Answer, Body, Failure, Http};
use crate::config::{Config, DEFAULT_DATA_DIR, ServeArgs};
use crate::offline::plural;
use crate::startup::Application;
use crate::store::{Database, Location, NewToken, TokenListing, postgres, sqlite};
use crate::telemetry::{self, LogFormat};

/// toolgate: policy decisions for AI coding agents' tool calls.
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, about)]
pub struct Cli {
    /// The log format given before the subcommand (`toolgate --log-format json serve`), as
    /// command lines written before `serve` and `migrate` took it themselves put it. Hidden:
    /// shown on every subcommand's help, it said nothing to the commands that write no logs.
    #[arg(long, hide = true)]
    pub log_format: Option<LogFormat>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP service (`POST /v1/evaluate`, the admin API, health checks).
    Serve(Box<ServeArgs>),
    /// Apply the database migrations (PostgreSQL, or the embedded SQLite file).
    Migrate {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        log: crate::telemetry::LogArgs,
    },
    /// Push, list, show, activate and roll back bundles on a running server.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Create, list and revoke tokens (directly in the database: PostgreSQL, or the embedded
    /// SQLite file).
    #[command(subcommand)]
    Token(TokenCommand),
    /// Evaluate hook events from stdin against a bundle, offline; one JSON reply per line.
    Eval {
        /// The bundle file, or a directory of fragments merged in name order.
        #[arg(long)]
        bundle: PathBuf,
        /// Write the decision trace (parsed commands, matched rules) to stderr.
        #[arg(long)]
        explain: bool,
        /// The agent whose events arrive on stdin, answered in its reply schema: claude-code,
        /// codex, copilot, cursor, gemini, vscode, cline, windsurf.
        #[arg(long, value_parser = crate::hook::parse_agent, default_value = "claude-code")]
        agent: toolgate_engine::protocol::Agent,
        /// The event a hook is configured for, for Copilot's camelCase events, which do not say
        /// which they are (`permissionRequest`, `postToolUse`, `agentStop`, …), as `toolgate
        /// hook --event`. Without it such an event is read as `preToolUse`.
        #[arg(long, value_name = "NAME")]
        event: Option<String>,
    },
    /// Report rules Claude Code would silently ignore or that look wrong.
    ///
    /// Each finding has a severity. `error`: a rule that does nothing, or not what it reads as
    /// (`Write(path)`, a mid-pattern `:*`, a lowercase tool name, a `/Users/…` path). `warning`:
    /// a rule that works but is risky, or works differently in Claude Code and toolgate (an
    /// interpreter allow such as `Bash(python:*)`). `note`: a key toolgate does not read (a
    /// `managed-settings.json`'s `hooks`, `env`, `permissions.defaultMode`, …); nothing is wrong.
    ///
    /// Exit 0 without errors (notes and warnings are printed), 1 with an error (or a warning,
    /// with `--strict`), 2 when the bundle cannot be read or does not load.
    Lint {
        /// The bundle file or fragment directory.
        bundle: PathBuf,
        /// Exit 1 on warnings too, not only on errors.
        #[arg(long)]
        strict: bool,
    },
    /// The command-hook client: an agent's event on stdin, its reply on stdout (exit 2 where the
    /// agent blocks by exit code). Asks a server (`--url`) or decides offline (`--bundle`).
    Hook(crate::hook::HookArgs),
    /// Exit 0 when a server answers 2xx on `--url` within 2 s, 1 otherwise (a container
    /// HEALTHCHECK: the image has no curl).
    Healthcheck {
        /// The URL to probe. Default: `/readyz` on the address `serve` listens on,
        /// `TOOLGATE_LISTEN` (`0.0.0.0` and `::` read as loopback), else
        /// `http://127.0.0.1:8080/readyz`.
        #[arg(long)]
        url: Option<String>,
    },
    /// Run a bundle's own tests.
    Test {
        /// The bundle file or fragment directory.
        bundle: PathBuf,
    },
    /// Check, export and prune the audit log (directly in the database).
    #[command(subcommand)]
    Audit(AuditCommand),
}

/// `toolgate audit …`
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check every replica's hash chain; name gaps and edited rows, and chains that end before
    /// a head known outside the database. Exit 1 when anything is wrong.
    Verify {
        #[command(flatten)]
        database: DatabaseArgs,
        /// Check an export instead of the database: JSON Lines from `toolgate audit export` or
        /// `GET /v1/audit?format=jsonl` (`-` reads stdin). Each replica's chain is checked from
        /// the first row the export holds; rows filtered out of a chain's middle (by tenant,
        /// say) are gaps, so export a time window whole to verify it.
        #[arg(long, value_name = "FILE", conflicts_with = "spool_dir")]
        export: Option<PathBuf>,
        /// Check only this replica's chain (exit 1 when no row or pruned checkpoint has its
        /// id).
        #[arg(long)]
        replica: Option<String>,
        /// A head the replica's chain reached, known outside the database: the writer's `audit
        /// chain head` log line (`audit.replica`, `audit.seq`, `audit.hash`) or the history of
        /// `toolgate_audit_chain_head_seq`. The chain must reach SEQ, and its row there must
        /// have HASH (64 hex digits) when given. Repeatable.
        #[arg(long, value_name = "REPLICA=SEQ[:HASH]")]
        expect_head: Vec<ExpectedHead>,
        /// A replica's audit spool directory (`--audit-spool-dir`): the chain must reach the
        /// head its `head` file records, less the rows still waiting there for the database.
        /// Read without opening the spool, so a running replica's may be given. Repeatable.
        #[arg(long, value_name = "DIR")]
        spool_dir: Vec<PathBuf>,
    },
    /// Show what a candidate bundle would have decided on a tenant's audited events, beside what
    /// the bundles live at the time decided (both evaluated anew on the rebuilt events).
    Replay {
        #[command(flatten)]
        database: DatabaseArgs,
        /// The candidate: a bundle file, or a directory of fragments merged in name order.
        bundle: PathBuf,
        /// The tenant whose bundle the candidate stands in for; `global` replays every tenant's
        /// rows with the candidate in `global`'s place.
        #[arg(long)]
        tenant: String,
        /// Only rows at or after this RFC 3339 time (default: seven days ago).
        #[arg(long)]
        since: Option<chrono::DateTime<chrono::Utc>>,
        /// Only rows before this RFC 3339 time.
        #[arg(long)]
        until: Option<chrono::DateTime<chrono::Utc>>,
        /// Replay at most this many rows, newest first.
        #[arg(long, default_value_t = 100_000)]
        limit: u64,
        /// List at most this many changed rows (all are counted).
        #[arg(long, default_value_t = 50)]
        show: usize,
        /// Print the report as one JSON document.
        #[arg(long)]
        json: bool,
        /// Exit 1 when any decision changes (for a bundle's pull request in CI).
        #[arg(long)]
        fail_on_change: bool,
    },
    /// Drop the audit months that ended before the cut-off (whole months only).
    Prune {
        #[command(flatten)]
        database: DatabaseArgs,
        /// Keep rows younger than this (`90d`, `12h`; a unit is required).
        #[arg(long, value_parser = crate::config::parse_age)]
        older_than: std::time::Duration,
        /// List what would be dropped; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Write audit rows as JSON Lines to stdout, newest first (the filters of `GET /v1/audit`).
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
        /// Only this tenant's rows.
        #[arg(long)]
        tenant: Option<String>,
        /// Only this session's rows.
        #[arg(long)]
        session_id: Option<String>,
        /// Only rows with this decision.
        #[arg(long, value_parser = ["deny", "ask", "allow", "none"])]
        decision: Option<String>,
        /// Only rows of this hook event, by its Claude Code name (`UserPromptSubmit`).
        #[arg(long)]
        event: Option<String>,
        /// Only rows of this agent (`claude-code`, `cursor`, …).
        #[arg(long, value_parser = crate::hook::parse_agent)]
        agent: Option<toolgate_engine::protocol::Agent>,
        /// Only rows of this tool (exact name: `Bash`, `mcp__db__query`).
        #[arg(long)]
        tool: Option<String>,
        /// Only rows this rule id matched (`Bash(rm:*)`, `curl-seen`, `toolgate-failure`).
        #[arg(long)]
        rule: Option<String>,
        /// Only rows at or after this RFC 3339 time (`2026-11-01T00:00:00Z`).
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        since: Option<chrono::DateTime<chrono::Utc>>,
        /// Only rows before this RFC 3339 time.
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        until: Option<chrono::DateTime<chrono::Utc>>,
    },
}

/// Where the database is.
#[derive(Debug, Args)]
pub struct DatabaseArgs {
    /// PostgreSQL URL (`postgres://…`), or an SQLite file (`sqlite://path`). Default: the
    /// embedded SQLite file `toolgate.db` in `--data-dir`.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Where the embedded store (`toolgate.db`) lives.
    #[arg(long, env = "TOOLGATE_DATA_DIR", default_value = DEFAULT_DATA_DIR)]
    pub data_dir: PathBuf,
}

impl DatabaseArgs {
    fn location(&self) -> anyhow::Result<Location> {
        Location::resolve(self.database_url.as_deref(), &self.data_dir).map_err(anyhow::Error::msg)
    }
}

/// The admin API to manage tokens through, instead of the database: for a security team with an
/// admin token and no access to the database.
#[derive(Debug, Args)]
pub struct RemoteArgs {
    /// Make, list or revoke the tokens through this server's admin API
    /// (`/v1/tenants/{tenant}/tokens`) with an admin token, instead of in the database.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// The admin token for `--server`.
    #[arg(
        long = "token",
        id = "admin_token",
        env = "TOOLGATE_TOKEN",
        hide_env_values = true
    )]
    admin_token: Option<String>,
    /// A PEM file of the certificate authorities to trust for an `https://` `--server`.
    #[arg(long, env = "TOOLGATE_CA_CERT")]
    ca_cert: Option<PathBuf>,
}

impl RemoteArgs {
    /// A client of the admin API for `tenant`, when `--server` was given.
    fn client(&self, tenant: Option<&str>, json: bool) -> anyhow::Result<Option<Client>> {
        let Some(server) = &self.server else {
            return Ok(None);
        };
        let tenant = tenant.context("`--tenant` is required with `--server`")?;
        Client::new(ClientArgs {
            server: server.clone(),
            token: self.admin_token.clone(),
            tenant: tenant.to_owned(),
            ca_cert: self.ca_cert.clone(),
            json,
        })
        .map(Some)
    }
}

/// Which page of a list the server answers.
#[derive(Debug, Args)]
pub struct PageArgs {
    /// How many items a page holds (1 to 1000).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i64).range(1..=1000))]
    limit: i64,
    /// The page after the one that named this cursor (`next_cursor` with `--json`).
    #[arg(long)]
    cursor: Option<String>,
}

impl PageArgs {
    /// A list route's path with this page: `{route}?limit=N[&cursor=C]`.
    fn path(&self, route: &str) -> String {
        let mut path = format!("{route}?limit={}", self.limit);
        if let Some(cursor) = &self.cursor {
            let cursor =
                percent_encoding::utf8_percent_encode(cursor, percent_encoding::NON_ALPHANUMERIC);
            path.push_str(&format!("&cursor={cursor}"));
        }
        path
    }
}

/// Where the server is and who is asking.
#[derive(Debug, Args)]
pub struct ClientArgs {
    /// The server's base URL.
    #[arg(long, env = crate::hook::SERVER_ENV, default_value = "http://127.0.0.1:8080")]
    pub server: String,
    /// An admin token (`toolgate token create --role admin` makes one).
    #[arg(long, env = "TOOLGATE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The tenant to act on.
    #[arg(long, env = "TOOLGATE_TENANT", default_value = "global")]
    pub tenant: String,
    /// A PEM file of the certificate authorities to trust for an `https://` server, instead of
    /// the built-in roots.
    #[arg(long, env = "TOOLGATE_CA_CERT")]
    pub ca_cert: Option<PathBuf>,
    /// Print the server's JSON answer on one line instead of a sentence (errors still go to
    /// stderr, with exit 1).
    #[arg(long)]
    pub json: bool,
}

/// `toolgate bundle …`
#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Push a bundle (JSON or YAML file, or a directory of fragments); its tests run on the server.
    Push {
        #[command(flatten)]
        client: ClientArgs,
        /// The bundle file or fragment directory.
        path: PathBuf,
        /// Activate it right away.
        #[arg(long)]
        activate: bool,
    },
    /// List a tenant's bundles, newest first, a page at a time; the live one is marked `live`.
    /// When more follow, the `--cursor` of the next page is said on stderr.
    List {
        #[command(flatten)]
        client: ClientArgs,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Print a stored bundle's document (canonical JSON, pretty-printed: it pushes back as it
    /// is); `--json` prints the server's whole answer on one line.
    Show {
        #[command(flatten)]
        client: ClientArgs,
        /// The bundle id (`toolgate bundle list`).
        id: i64,
    },
    /// Make a stored bundle live (the one already live stays, and is said to be).
    Activate {
        #[command(flatten)]
        client: ClientArgs,
        /// The bundle id.
        id: i64,
    },
    /// Make the previously live bundle live again.
    Rollback {
        #[command(flatten)]
        client: ClientArgs,
    },
    /// List a tenant's activations, newest first (the first is live): which bundle went live
    /// when, by which token, and which were rollbacks. An auditor's token will do.
    History {
        #[command(flatten)]
        client: ClientArgs,
        #[command(flatten)]
        page: PageArgs,
    },
}

/// `toolgate token …`
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token; it is printed once, as the last word of the output.
    Create {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        remote: RemoteArgs,
        /// `agent` (evaluate), `admin` (bundles) or `auditor` (read the audit).
        #[arg(long, value_parser = ["agent", "admin", "auditor"])]
        role: String,
        /// The token's tenant; `global` acts on every tenant.
        #[arg(long)]
        tenant: String,
        /// A note on what the token is for.
        #[arg(long)]
        description: Option<String>,
        /// Expire the token this long from now (`90d`, `12h`; a unit is required). An expired
        /// token is refused as a revoked one is. Default: it never expires.
        #[arg(long, value_name = "DURATION", value_parser = parse_expires_in, conflicts_with = "expires_at")]
        expires_in: Option<chrono::Duration>,
        /// Expire the token at this RFC 3339 time (`2027-01-31T00:00:00Z`), which must be in the
        /// future.
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
        /// Print `{"id", "role", "tenant", "expires_at", "token"}` on one line instead of a
        /// sentence.
        #[arg(long)]
        json: bool,
    },
    /// List tokens (never the tokens themselves: id, prefix, role, tenant, dates, description).
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        remote: RemoteArgs,
        /// Only this tenant's tokens (required with `--server`).
        #[arg(long)]
        tenant: Option<String>,
        /// Print one JSON object per token, a line each, instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by id, or by the token itself (one that leaked); replicas on PostgreSQL
    /// refuse it at once (`NOTIFY`), others from their next poll of the database.
    Revoke {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        remote: RemoteArgs,
        /// The tenant whose token it is (required with `--server`).
        #[arg(long)]
        tenant: Option<String>,
        /// The token's id (`toolgate token list`), or the token (`tg_…`; not with `--server`).
        #[arg(value_name = "ID|TOKEN", value_parser = parse_token_ref)]
        token: TokenRef,
    },
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    toolgate_engine::shell::quiet_parser_panics();
    match cli.command {
        Command::Eval {
            bundle,
            explain,
            agent,
            event,
        } => match crate::hook::configured_dialect(agent, event.as_deref()) {
            Ok(dialect) => crate::offline::eval(&bundle, dialect, explain),
            Err(why) => {
                eprintln!("error: {why}");
                Ok(ExitCode::from(crate::offline::EXIT_USAGE))
            }
        },
        Command::Lint { bundle, strict } => crate::offline::lint(&bundle, strict),
        Command::Test { bundle } => crate::offline::test(&bundle),
        Command::Hook(args) => crate::hook::run(&args),
        Command::Healthcheck { url } => healthcheck(
            &url.unwrap_or_else(|| readiness_url(std::env::var("TOOLGATE_LISTEN").ok().as_deref())),
        ),
        Command::Serve(args) => {
            telemetry::init(cli.log_format.unwrap_or(args.log.log_format))?;
            let admin_token = std::env::var("TOOLGATE_ADMIN_TOKEN")
                .ok()
                .filter(|token| !token.is_empty());
            runtime()?.block_on(serve(args.into_config(admin_token)))
        }
        Command::Migrate { database, log } => {
            telemetry::init(cli.log_format.unwrap_or(log.log_format))?;
            runtime()?.block_on(migrate(&database))
        }
        Command::Bundle(command) => bundle(command),
        Command::Token(TokenCommand::Create {
            database,
            remote,
            role,
            tenant,
            description,
            expires_in,
            expires_at,
            json,
        }) => {
            let now = chrono::Utc::now();
            let expires_at = match (expires_in, expires_at) {
                (Some(after), _) => Some(
                    now.checked_add_signed(after)
                        .context("`--expires-in` is too far in the future")?,
                ),
                (None, Some(at)) if at <= now => anyhow::bail!(
                    "`--expires-at` {} is not in the future",
                    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
                (None, at) => at,
            };
            let new = NewTokenArgs {
                role: &role,
                tenant: &tenant,
                description: description.as_deref(),
                expires_at,
            };
            match remote.client(Some(&tenant), json)? {
                Some(client) => create_token_remote(&client, new),
                None => runtime()?.block_on(create_token(&database, new, json)),
            }
        }
        Command::Token(TokenCommand::List {
            database,
            remote,
            tenant,
            json,
        }) => match remote.client(tenant.as_deref(), json)? {
            Some(client) => list_tokens_remote(&client),
            None => runtime()?.block_on(list_tokens(&database, tenant.as_deref(), json)),
        },
        Command::Token(TokenCommand::Revoke {
            database,
            remote,
            tenant,
            token,
        }) => match remote.client(tenant.as_deref(), false)? {
            Some(client) => revoke_token_remote(&client, token),
            None => runtime()?.block_on(revoke_token(&database, token)),
        },
        Command::Audit(command) => runtime()?.block_on(audit(command)),
    }
}

async fn audit(command: AuditCommand) -> anyhow::Result<ExitCode> {
    match command {
        AuditCommand::Verify {
            database,
            export,
            replica,
            expect_head,
            spool_dir,
        } => {
            let mut expected = expect_head;
            for dir in &spool_dir {
                expected.extend(spooled_expectation(dir)?);
            }
            if let (Some(replica), Some(other)) = (
                &replica,
                expected
                    .iter()
                    .find(|head| Some(&head.replica) != replica.as_ref()),
            ) {
                anyhow::bail!(
                    "an expected head of replica `{}` is given, but `--replica` checks only `{replica}`",
                    other.replica
                );
            }
            let (report, unreadable) = match export {
                Some(path) => {
                    let (rows, unreadable) = read_export(&path)?;
                    let report =
                        crate::audit::store::verify_export(rows, replica.as_deref(), &expected);
                    (report, unreadable)
                }
                None => {
                    let store = AuditStore::from(open_store(&database).await?);
                    let report = store
                        .verify(replica.as_deref(), &expected)
                        .await
                        .context("failed to read the audit log")?;
                    (report, Vec::new())
                }
            };
            for note in report.restarts.iter().chain(&report.notes) {
                println!("note: {note}");
            }
            for line in &unreadable {
                println!("{line}");
            }
            for finding in &report.findings {
                println!("{finding}");
            }
            if report.findings.is_empty() && unreadable.is_empty() {
                let heads = match report.heads_reached {
                    0 => String::new(),
                    1 => ", and 1 expected head reached".to_owned(),
                    n => format!(", and {n} expected heads reached"),
                };
                println!(
                    "ok: {} {} in {} replica {} verified{heads}",
                    report.rows,
                    plural(report.rows, "row", "rows"),
                    report.replicas,
                    plural(report.replicas as u64, "chain", "chains")
                );
                Ok(ExitCode::SUCCESS)
            } else {
                let problems = report.findings.len() + unreadable.len();
                eprintln!(
                    "error: {problems} {} in {} {} of {} replica {}",
                    plural(problems as u64, "problem", "problems"),
                    report.rows,
                    plural(report.rows, "row", "rows"),
                    report.replicas,
                    plural(report.replicas as u64, "chain", "chains")
                );
                Ok(ExitCode::from(1))
            }
        }
        AuditCommand::Replay {
            database,
            bundle,
            tenant,
            since,
            until,
            limit,
            show,
            json,
            fail_on_change,
        } => {
            anyhow::ensure!(
                valid_tenant(&tenant),
                "invalid tenant `{tenant}`: names match `[a-z0-9][a-z0-9_-]{{0,62}}`"
            );
            let candidate = match crate::offline::load_bundle(&bundle)? {
                Ok(candidate) => candidate,
                Err(errors) => anyhow::bail!("the bundle does not load:\n{errors}"),
            };
            let candidate = toolgate_engine::CompiledPolicy::compile(&candidate)
                .map_err(|errors| anyhow::anyhow!("the bundle does not compile:\n{errors}"))?;
            let replay = crate::audit::replay::Replay {
                tenant,
                candidate: std::sync::Arc::new(candidate),
                since: Some(
                    since.unwrap_or_else(|| chrono::Utc::now() - chrono::Duration::days(7)),
                ),
                until,
                limit,
                show,
            };
            let database = open_store(&database).await?;
            let never = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let report = crate::audit::replay::run(&database, &replay, &never)
                .await
                .context("failed to replay the audit log")?;
            if json {
                println!("{}", crate::audit::replay::report_json(&report));
            } else {
                print_replay(&replay, &report);
            }
            // A gate must not pass on rows it could not compare.
            let uncompared = report.unavailable + report.failed;
            if fail_on_change && uncompared > 0 {
                eprintln!(
                    "error: {uncompared} {} could not be compared (a bundle that no longer loads, or a failed evaluation)",
                    plural(uncompared, "row", "rows")
                );
            }
            Ok(if fail_on_change && report.changed() + uncompared > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        AuditCommand::Prune {
            database,
            older_than,
            dry_run,
        } => {
            let store = AuditStore::from(open_store(&database).await?);
            let cutoff = crate::audit::prune_cutoff(chrono::Utc::now(), older_than)
                .context("`--older-than` is too large")?;
            let report = store
                .prune(cutoff, dry_run)
                .await
                .context("failed to prune the audit log")?;
            if report.busy {
                eprintln!("error: another prune is running");
                return Ok(ExitCode::from(1));
            }
            let verb = if dry_run { "would drop" } else { "dropped" };
            if report.partitions.is_empty() {
                println!(
                    "nothing to prune: no audit month ended before {}",
                    cutoff.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                );
            }
            for partition in &report.partitions {
                println!("{verb} {partition}");
            }
            Ok(ExitCode::SUCCESS)
        }
        AuditCommand::Export {
            database,
            tenant,
            session_id,
            decision,
            event,
            agent,
            tool,
            rule,
            since,
            until,
        } => {
            use std::io::Write as _;
            tenant.as_deref().map(check_tenant).transpose()?;
            let store = AuditStore::from(open_store(&database).await?);
            let filter = Filter {
                tenant,
                session_id,
                decision,
                event,
                agent: agent.map(|agent| agent.as_str().to_owned()),
                tool,
                rule,
                since,
                until,
                ..Filter::default()
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut pages = store.pages(filter, 1000);
            while let Some(rows) = pages.next().await.context("failed to read the audit log")? {
                for row in &rows {
                    serde_json::to_writer(&mut out, &row.to_json())?;
                    out.write_all(b"\n")?;
                }
            }
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `toolgate audit replay`'s report, for a person.
fn print_replay(replay: &crate::audit::replay::Replay, report: &crate::audit::replay::Report) {
    let span = match report.span {
        Some((oldest, newest)) => format!(
            " from {} to {}",
            oldest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            newest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
        None => String::new(),
    };
    let whose = if replay.tenant == crate::auth::GLOBAL_TENANT {
        "every tenant, the candidate as `global`'s bundle,".to_owned()
    } else {
        format!("tenant `{}`", replay.tenant)
    };
    println!(
        "replayed {} {} of {whose}{span}: {} unchanged, {} changed",
        report.rows,
        plural(report.rows, "row", "rows"),
        report.unchanged,
        report.changed()
    );
    for ((from, to), count) in &report.transitions {
        let what = if from == to { " (another rule)" } else { "" };
        println!("  {from} -> {to}{what}: {count}");
    }
    let skipped = [
        (report.truncated, "with a truncated input"),
        (report.failures, "answered with the failure decision"),
        (report.unavailable, "naming a bundle that no longer loads"),
        (report.failed, "whose evaluation failed"),
    ];
    for (count, why) in skipped.into_iter().filter(|(count, _)| *count > 0) {
        println!("  skipped {count} {why}");
    }
    for change in &report.changes {
        let winner = |decision: &toolgate_engine::Decision| match &decision.winner {
            Some(rule) => format!(
                "{} ({})",
                decision.outcome,
                crate::audit::replay::printable(rule)
            ),
            None => decision.outcome.to_string(),
        };
        println!(
            "{}  {}  {}  {} -> {}  row {}",
            change
                .row
                .time()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            crate::audit::replay::printable(
                change.row.tool.as_deref().unwrap_or(&change.row.event)
            ),
            crate::audit::replay::summary(&change.row),
            winner(&change.before),
            winner(&change.after),
            change.row.id
        );
    }
    let unlisted = report.changed() - report.changes.len() as u64;
    if unlisted > 0 {
        println!("… and {unlisted} more (`--show N` lists more)");
    }
}

/// The rows of an export (`-`: stdin) as chain links, and a line naming each line that is not
/// a row as toolgate writes it.
fn read_export(path: &Path) -> anyhow::Result<(Vec<Link>, Vec<String>)> {
    let read = if path == Path::new("-") {
        crate::audit::store::read_export(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path)
            .with_context(|| format!("failed to open `{}`", path.display()))?;
        crate::audit::store::read_export(std::io::BufReader::new(file))
    };
    read.with_context(|| format!("failed to read `{}`", path.display()))
}

/// The head a replica's spool directory says its chain reached in the database, with a note of
/// the rows still waiting there; none when the chain starts there.
fn spooled_expectation(dir: &Path) -> anyhow::Result<Option<ExpectedHead>> {
    let shown = dir.display();
    let head = crate::audit::spool::spooled_head(dir)
        .with_context(|| format!("failed to read the audit spool `{shown}`"))?
        .with_context(|| format!("`{shown}` holds no audit chain head (no whole `head` file)"))?;
    if let Some((first, _, count)) = head.waiting {
        println!(
            "note: {count} rows of replica `{}` from seq {first} wait in `{shown}` for the database",
            head.replica_id
        );
    }
    Ok(head.in_database().map(|(seq, hash)| ExpectedHead {
        replica: head.replica_id,
        seq,
        hash: Some(hash),
    }))
}

/// What an agent token of `tenant` is evaluated against, when that is less than its own and
/// `global`'s live bundles (`live`: the tenants with one); none when both are live, or its own
/// is. An empty PostgreSQL store has no bundle at all, and every event gets no opinion.
fn policy_note(tenant: &str, live: &[(String, i64)]) -> Option<String> {
    let is_live = |name: &str| live.iter().any(|(live, _)| live == name);
    let global = crate::auth::GLOBAL_TENANT;
    let nothing = "its agents' events get no opinion (`{}`), and the agent's own permissions \
                   alone decide, until one is activated";
    if tenant == global {
        return (!is_live(global))
            .then(|| format!("tenant `{global}` has no live bundle yet: {nothing}"));
    }
    match (is_live(tenant), is_live(global)) {
        (true, _) => None,
        (false, true) => Some(format!(
            "tenant `{tenant}` has no live bundle yet; its agents are evaluated against the \
             `{global}` tenant's policy alone until one is activated"
        )),
        (false, false) => Some(format!(
            "neither tenant `{tenant}` nor `{global}` has a live bundle yet: {nothing}"
        )),
    }
}

/// `/readyz` on `listen`, the address `serve` listens on (`TOOLGATE_LISTEN`), with an
/// unspecified address (`0.0.0.0`, `::`) read as loopback; `serve`'s default address without
/// one. So the image's HEALTHCHECK follows a `TOOLGATE_LISTEN` changed at run time.
fn readiness_url(listen: Option<&str>) -> String {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
    let listen = listen.map(str::trim).filter(|listen| !listen.is_empty());
    let Some(listen) = listen else {
        return "http://127.0.0.1:8080/readyz".to_owned();
    };
    match listen.parse::<SocketAddr>() {
        Ok(address) => {
            let ip = match address.ip() {
                IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
                ip => ip,
            };
            format!("http://{}/readyz", SocketAddr::new(ip, address.port()))
        }
        // A host name and port (`localhost:8080`), as `serve` takes it.
        Err(_) => format!("http://{listen}/readyz"),
    }
}

fn healthcheck(url: &str) -> anyhow::Result<ExitCode> {
    let shown = crate::client::display_url(url);
    let answer = Http::new(url, std::time::Duration::from_secs(2), None)
        .get(url, None)
        .with_context(|| format!("`{shown}` did not answer"))?;
    if answer.status.is_success() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: `{shown}` answered {}", answer.status);
        Ok(ExitCode::FAILURE)
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

async fn serve(config: Config) -> anyhow::Result<ExitCode> {
    // The secret rules compile on first use (so that `toolgate hook` starts fast); a server
    // compiles them all in the background at start instead, so that no request pays a rule's
    // first compilation (up to ~8 ms for `generic-api-key`).
    std::thread::spawn(|| toolgate_engine::secrets::Scanner::builtin().compile_all());
    let application = Application::build(config).await?;
    let address = application.local_addr()?;
    let store = application.store();
    let policies = &application.state().store;
    if policies.is_loaded() && policies.snapshot().is_empty() && policies.unserved().is_empty() {
        tracing::warn!(
            store = %store,
            "no tenant has a live bundle: every hook event gets no opinion (`{{}}`), and the \
             agents' own permissions alone decide, until one is activated (`toolgate bundle push \
             --tenant global FILE --activate`)"
        );
    }
    // Where /metrics is (its own listener, or the API's), which replica this is and which build:
    // what an operator looking at one pod's log among many needs first.
    let metrics = application.metrics_addr().unwrap_or(address);
    let replica = &application.state().replica_id;
    let version = env!("CARGO_PKG_VERSION");
    if application.state().allow_anonymous_loopback {
        tracing::info!(address = %address, metrics_address = %metrics, replica = %replica, version, store = %store, anonymous_loopback = true, "toolgate listening; evaluation without a token is open to loopback clients, against the `global` policy (--allow-anonymous-loopback=false closes it)");
    } else {
        tracing::info!(address = %address, metrics_address = %metrics, replica = %replica, version, store = %store, anonymous_loopback = false, "toolgate listening");
    }
    application.run_until_stopped().await?;
    Ok(ExitCode::SUCCESS)
}

/// One connection to the database; the embedded store's file and directory are created.
async fn connect(location: &Location) -> anyhow::Result<Database> {
    match location {
        Location::Postgres(url) => {
            let options =
                postgres::connect_options(url, "toolgate-cli").context("invalid DATABASE_URL")?;
            // One connection first: its error says why (refused, no such host, a password),
            // where the pool's says only that it timed out, after 30 s.
            let probe = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                sqlx::ConnectOptions::connect(&options),
            )
            .await
            .map_err(|_| anyhow::anyhow!("failed to connect to the database: no answer in 10 s"))?
            // sqlx's text already ends with its cause: not repeated as a context chain.
            .map_err(|error| anyhow::anyhow!("failed to connect to the database: {error}"))?;
            sqlx::Connection::close(probe).await.ok();
            let pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .context("failed to connect to the database")?;
            Ok(Database::Postgres(pool))
        }
        Location::Sqlite(options) => {
            let file = location.sqlite_file().unwrap_or_default();
            let file = file.display();
            location
                .create_dir()
                .with_context(|| format!("failed to create the directory of `{file}`"))?;
            let pool = sqlite::open((**options).clone(), 1, std::time::Duration::from_secs(10))
                .await
                .with_context(|| format!("failed to open the SQLite store `{file}`"))?;
            Ok(Database::Sqlite(pool))
        }
    }
}

/// The store of `database`, with the embedded one migrated: it looks after itself, so a token
/// may be made, or the audit read, before the first `serve`.
async fn open_store(database: &DatabaseArgs) -> anyhow::Result<Database> {
    let db = connect(&database.location()?).await?;
    if db.is_embedded() {
        db.migrate().await.map_err(|error| {
            anyhow::anyhow!(
                "failed to apply migrations to the embedded store: {}",
                crate::store::explain_migrate_error(&error)
            )
        })?;
    }
    Ok(db)
}

async fn migrate(database: &DatabaseArgs) -> anyhow::Result<ExitCode> {
    let location = database.location()?;
    let db = connect(&location).await?;
    db.migrate().await.map_err(|error| {
        anyhow::anyhow!(
            "failed to apply migrations: {}",
            crate::store::explain_migrate_error(&error)
        )
    })?;
    db.close().await;
    println!("migrations applied ({})", location.describe());
    Ok(ExitCode::SUCCESS)
}

/// A time on the command line: RFC 3339, as `GET /v1/audit` takes it, with an example when it
/// is not one (chrono's own error says only "input contains invalid characters").
fn parse_time(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    chrono::DateTime::parse_from_rfc3339(text.trim())
        .map(|time| time.with_timezone(&chrono::Utc))
        .map_err(|_| {
            format!(
                "`{}` is not an RFC 3339 time such as `2026-11-01T00:00:00Z` (a date alone is \
                 not one: add `T00:00:00Z`)",
                text.escape_debug()
            )
        })
}

/// `--expires-in`: an age ([`crate::config::parse_age`]: its unit written, more than nothing).
fn parse_expires_in(text: &str) -> Result<chrono::Duration, String> {
    let duration = crate::config::parse_age(text)?;
    chrono::Duration::from_std(duration).map_err(|_| format!("`{text}` is too long"))
}

/// What `toolgate token create` makes.
struct NewTokenArgs<'a> {
    role: &'a str,
    tenant: &'a str,
    description: Option<&'a str>,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

async fn create_token(
    database: &DatabaseArgs,
    new: NewTokenArgs<'_>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let NewTokenArgs {
        role,
        tenant,
        description,
        expires_at,
    } = new;
    let role = Role::parse(role)
        .with_context(|| format!("unknown role `{role}` (use `agent`, `admin` or `auditor`)"))?;
    check_tenant(tenant)?;
    let db = open_store(database).await?;
    let token = generate_token().context("no randomness available")?;
    let hash = hash_token(&token);
    let prefix: String = token.chars().take(10).collect();
    let id = db
        .insert_token(NewToken {
            description,
            expires_at,
            ..NewToken::new(&hash, &prefix, role.as_str(), tenant)
        })
        .await
        .context("failed to store the token (has `toolgate migrate` run?)")?
        .context("the token was not stored")?
        .id;
    // Any tenant name makes a tenant: one mistyped would be evaluated against `global` alone,
    // with nothing to say so. Said on stderr, so that the token stays the last word of stdout.
    let live = db
        .live_versions(Some(&[
            tenant.to_owned(),
            crate::auth::GLOBAL_TENANT.to_owned(),
        ]))
        .await;
    db.close().await;
    if role == Role::Agent
        && let Ok(live) = live
        && let Some(note) = policy_note(tenant, &live)
    {
        eprintln!("note: {note}");
    }
    print_created_token(json, id, role.as_str(), tenant, expires_at, &token);
    Ok(ExitCode::SUCCESS)
}

/// What `token create` prints: the token last, on a line of its own.
fn print_created_token(
    json: bool,
    id: i64,
    role: &str,
    tenant: &str,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
    token: &str,
) {
    if json {
        let created = serde_json::json!({
            "id": id, "role": role, "tenant": tenant, "expires_at": expires_at, "token": token
        });
        println!("{created}");
    } else {
        let expiry = expires_at.map_or(String::new(), |at| {
            format!(
                ", expiring at {}",
                at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )
        });
        println!("created {role} token {id} for tenant `{tenant}`{expiry}; it is shown only once:");
        println!("{token}");
    }
}

/// `token create --server`: `POST /v1/tenants/{tenant}/tokens`.
fn create_token_remote(client: &Client, new: NewTokenArgs<'_>) -> anyhow::Result<ExitCode> {
    let mut body = serde_json::json!({"role": new.role, "description": new.description});
    if let Some(at) = new.expires_at {
        body["expires_at"] = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true).into();
    }
    let bytes = serde_json::to_vec(&body)?;
    let (status, answer) = client.post(
        "/tokens",
        Some(Body {
            content_type: "application/json",
            bytes: &bytes,
        }),
    )?;
    if status != 201 {
        return Ok(report_error(status, &answer));
    }
    let token = answer["token"]
        .as_str()
        .context("the server's answer holds no token")?;
    // The server's expiry: `--token-max-lifetime` may have set one.
    let expires_at = answer["expires_at"]
        .as_str()
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .map(|at| at.with_timezone(&chrono::Utc));
    print_created_token(
        client.json,
        answer["id"].as_i64().unwrap_or_default(),
        new.role,
        &client.tenant,
        expires_at,
        token,
    );
    Ok(ExitCode::SUCCESS)
}

/// `token list --server`: `GET /v1/tenants/{tenant}/tokens`, printed as from the database.
fn list_tokens_remote(client: &Client) -> anyhow::Result<ExitCode> {
    let (status, answer) = client.get("/tokens")?;
    if status != 200 {
        return Ok(report_error(status, &answer));
    }
    let tokens: Vec<TokenListing> = serde_json::from_value(answer["tokens"].clone())
        .context("the server's token list is not one this build reads")?;
    print_tokens(&tokens, client.json)
}

/// `token revoke --server`: `POST /v1/tenants/{tenant}/tokens/{id}/revoke`.
fn revoke_token_remote(client: &Client, token: TokenRef) -> anyhow::Result<ExitCode> {
    let TokenRef::Id(id) = token else {
        anyhow::bail!(
            "with `--server`, give the token's id (`toolgate token list --server …` shows it): \
             the admin API revokes by id"
        );
    };
    let (status, answer) = client.post(&format!("/tokens/{id}/revoke"), None)?;
    if status != 200 {
        return Ok(report_error(status, &answer));
    }
    println!("revoked token {id}; every replica refuses it at once, or from its next poll");
    Ok(ExitCode::SUCCESS)
}

/// Refuses a tenant name no tenant can have, saying what names are: a mistyped `--tenant`
/// would otherwise list nothing, or export nothing, without a word.
fn check_tenant(tenant: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        valid_tenant(tenant),
        "invalid tenant `{}`: names match `[a-z0-9][a-z0-9_-]{{0,62}}`",
        tenant.escape_debug()
    );
    Ok(())
}

async fn list_tokens(
    database: &DatabaseArgs,
    tenant: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    tenant.map(check_tenant).transpose()?;
    let db = open_store(database).await?;
    let tokens = db
        .list_tokens(tenant)
        .await
        .context("failed to read the tokens (has `toolgate migrate` run?)")?;
    db.close().await;
    print_tokens(&tokens, json)
}

/// `token list`'s output: a JSON object a line, or a tab-separated table.
fn print_tokens(tokens: &[TokenListing], json: bool) -> anyhow::Result<ExitCode> {
    if json {
        for token in tokens {
            println!("{}", serde_json::to_string(token)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    // RFC 3339 in UTC to the millisecond, whichever store wrote it.
    let time = |time: &chrono::DateTime<chrono::Utc>| {
        time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    };
    let now = chrono::Utc::now();
    println!("id\tprefix\trole\ttenant\tcreated\trevoked\texpires\tdescription");
    for token in tokens {
        // An expired token says so: it is refused as a revoked one is.
        let expires = token.expires_at.as_ref().map_or("-".to_owned(), |at| {
            if *at <= now {
                format!("{} (expired)", time(at))
            } else {
                time(at)
            }
        });
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{expires}\t{}",
            token.id,
            token.prefix,
            token.role,
            token.tenant,
            time(&token.created_at),
            token.revoked_at.as_ref().map_or("-".to_owned(), time),
            token.description.as_deref().unwrap_or("")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The token `token revoke` names: its row id, or the token itself.
#[derive(Debug, Clone)]
pub enum TokenRef {
    /// The row id `token list` shows.
    Id(i64),
    /// The token: found by its hash, for a token that leaked and whose id is not at hand.
    Token(String),
}

fn parse_token_ref(text: &str) -> Result<TokenRef, String> {
    let text = text.trim();
    if let Ok(id) = text.parse() {
        return Ok(TokenRef::Id(id));
    }
    if crate::auth::is_token_shaped(text) {
        return Ok(TokenRef::Token(text.to_owned()));
    }
    Err("neither a token id (`toolgate token list`) nor a token (`tg_` and 64 hex digits)".into())
}

async fn revoke_token(database: &DatabaseArgs, token: TokenRef) -> anyhow::Result<ExitCode> {
    let db = open_store(database).await?;
    let context = "failed to revoke the token (has `toolgate migrate` run?)";
    let id = match token {
        TokenRef::Id(id) => id,
        TokenRef::Token(token) => {
            let found = db.token_id_by_hash(&hash_token(&token)).await;
            let prefix: String = token.chars().take(10).collect();
            found
                .context(context)?
                .with_context(|| format!("no token of this store starts `{prefix}`"))?
        }
    };
    let revoked = db.revoke_token(id, None, None).await.context(context)?;
    db.close().await;
    anyhow::ensure!(revoked, "no active token has id {id}");
    println!(
        "revoked token {id}; replicas refuse it at once on PostgreSQL, else from their next poll"
    );
    Ok(ExitCode::SUCCESS)
}

/// A small HTTP client for the admin API.
struct Client {
    http: Http,
    base: String,
    token: String,
    tenant: String,
    json: bool,
}

impl Client {
    fn new(args: ClientArgs) -> anyhow::Result<Self> {
        check_tenant(&args.tenant)?;
        // Said here rather than by clap, whose "required: --token" names neither the variable
        // nor how to get a token.
        let token = args
            .token
            .filter(|token| !token.trim().is_empty())
            .with_context(|| {
                format!(
                    "an admin token is required: give `--token` or set `TOOLGATE_TOKEN` \
                 (`toolgate token create --role admin --tenant {}` makes one)",
                    args.tenant
                )
            })?;
        // A URL without its scheme would fail as "unreachable (http: invalid format)".
        let base = crate::hook::parse_base_url(&args.server)
            .map_err(|why| anyhow::anyhow!("--server (or {}): {why}", crate::hook::SERVER_ENV))?;
        let roots =
            crate::client::read_ca_file(args.ca_cert.as_deref()).map_err(anyhow::Error::msg)?;
        Ok(Self {
            http: Http::new(&base, std::time::Duration::from_secs(30), roots.as_deref()),
            base,
            token,
            tenant: args.tenant,
            json: args.json,
        })
    }

    /// Prints `answer` on one line when `--json` was given, else `sentence`.
    fn print(&self, answer: &Value, sentence: impl FnOnce() -> String) {
        if self.json {
            println!("{answer}");
        } else {
            println!("{}", sentence());
        }
    }

    /// `POST /v1/tenants/{tenant}{path}`: the status and the JSON answer (`null` if none).
    fn post(&self, path: &str, body: Option<Body<'_>>) -> anyhow::Result<(u16, Value)> {
        let url = format!("{}/v1/tenants/{}{path}", self.base, self.tenant);
        Self::read(self.http.post(&url, Some(&self.token), body), &self.base)
    }

    /// `GET /v1/tenants/{tenant}{path}`.
    fn get(&self, path: &str) -> anyhow::Result<(u16, Value)> {
        let url = format!("{}/v1/tenants/{}{path}", self.base, self.tenant);
        Self::read(self.http.get(&url, Some(&self.token)), &self.base)
    }

    fn read(answer: Result<Answer, Failure>, base: &str) -> anyhow::Result<(u16, Value)> {
        // Named without the credentials or query a `--server` URL may carry.
        let answer = answer
            .with_context(|| format!("failed to reach `{}`", crate::client::display_url(base)))?;
        let body = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
        Ok((answer.status.as_u16(), body))
    }
}

/// Prints an error answer to stderr; returns the exit code for it.
fn report_error(status: u16, body: &Value) -> ExitCode {
    let message = body["error"]["message"].as_str().unwrap_or("no message");
    let code = body["error"]["code"].as_str().unwrap_or("error");
    eprintln!("error: {message} ({code}, HTTP {status})");
    if let Some(errors) = body["errors"].as_array() {
        for error in errors {
            eprintln!(
                "  {}: {}",
                error["location"].as_str().unwrap_or("?"),
                error["message"].as_str().unwrap_or("?")
            );
        }
    }
    ExitCode::from(1)
}

/// A bundle to push: its text, its content type and, for a directory of fragments, its
/// findings as the fragments name them (the server sees only the merged document, and would
/// name places in that).
struct Push {
    text: String,
    content_type: &'static str,
    fragment_findings: Option<Vec<Value>>,
}

fn bundle_body(path: &Path) -> anyhow::Result<Push> {
    if path.is_dir() {
        let bundle = match crate::offline::load_bundle(path)? {
            Ok(bundle) => bundle,
            Err(errors) => anyhow::bail!("the bundle does not load:\n{errors}"),
        };
        return Ok(Push {
            text: bundle.canonical_json(),
            content_type: "application/json",
            fragment_findings: Some(
                bundle
                    .findings
                    .iter()
                    .map(serde_json::to_value)
                    .collect::<Result<_, _>>()?,
            ),
        });
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("failed to read `{}`", path.display()))?;
    // Read as the offline commands read it: `.json` is JSON, anything else YAML.
    let format = Format::from_path(&path.to_string_lossy());
    // A document without `name` (a whole `managed-settings.json`) is named after its file, as
    // `toolgate test` and `lint` name it; the server needs a name.
    if let Ok(Value::Object(mut document)) = bundle::parse_document(&text, format)
        && !document.contains_key("name")
    {
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("bundle");
        document.insert("name".into(), Value::String(name.to_owned()));
        return Ok(Push {
            text: Value::Object(document).to_string(),
            content_type: "application/json",
            fragment_findings: None,
        });
    }
    let content_type = match format {
        Format::Json => "application/json",
        Format::Yaml => "application/yaml",
    };
    Ok(Push {
        text,
        content_type,
        fragment_findings: None,
    })
}

fn bundle(command: BundleCommand) -> anyhow::Result<ExitCode> {
    match command {
        BundleCommand::Push {
            client,
            path,
            activate,
        } => {
            let client = Client::new(client)?;
            let push = bundle_body(&path)?;
            let (status, answer) = client.post(
                "/bundles",
                Some(Body {
                    content_type: push.content_type,
                    bytes: push.text.as_bytes(),
                }),
            )?;
            if !(200..300).contains(&status) {
                return Ok(report_error(status, &answer));
            }
            let id = answer["id"].as_i64().unwrap_or_default();
            if client.json {
                // With `--activate`, the activation's answer follows on a line of its own.
                println!("{answer}");
            } else {
                let verb = if status == 201 {
                    "pushed"
                } else {
                    "already stored"
                };
                println!(
                    "{verb} bundle `{}` as id {id} in tenant `{}` (sha256 {})",
                    answer["name"].as_str().unwrap_or(""),
                    client.tenant,
                    answer["sha256"].as_str().unwrap_or("")
                );
                let server_findings = || answer["findings"].as_array().cloned().unwrap_or_default();
                for finding in push.fragment_findings.unwrap_or_else(server_findings) {
                    println!(
                        "{}: {}",
                        finding["severity"].as_str().unwrap_or("warning"),
                        finding["message"].as_str().unwrap_or("")
                    );
                }
            }
            if activate {
                return activate_bundle(&client, id);
            }
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::List { client, page } => {
            let client = Client::new(client)?;
            let (status, mut answer) = client.get(&page.path("/bundles"))?;
            if status != 200 {
                return Ok(report_error(status, &answer));
            }
            // Which one is live: the database's live activation (null when there is none, or
            // while the database is away).
            let (status, policy) = client.get("/policy")?;
            if status != 200 {
                return Ok(report_error(status, &policy));
            }
            let live = policy["live"].clone();
            if client.json {
                answer["live"] = live;
                println!("{answer}");
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{:>6}  {:<24}  {:<12}  {:<24}  live",
                "id", "name", "sha256", "created"
            );
            let mut live_shown = false;
            for bundle in answer["bundles"].as_array().into_iter().flatten() {
                let is_live = !live.is_null() && bundle["id"] == live["bundle_id"];
                live_shown |= is_live;
                let marker = if is_live {
                    format!("live (activation {})", live["id"])
                } else {
                    String::new()
                };
                let line = format!(
                    "{:>6}  {:<24}  {:.12}  {:<24}  {marker}",
                    bundle["id"].as_i64().unwrap_or_default(),
                    bundle["name"].as_str().unwrap_or(""),
                    bundle["sha256"].as_str().unwrap_or(""),
                    bundle["created_at"].as_str().unwrap_or("")
                );
                println!("{}", line.trim_end());
            }
            if !live.is_null() && !live_shown {
                eprintln!(
                    "note: the live bundle, {} (activation {}), is not on this page",
                    live["bundle_id"], live["id"]
                );
            }
            if let Some(next) = answer["next_cursor"].as_str() {
                eprintln!("note: more bundles follow: `--cursor {next}` lists the next page");
            }
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Show { client, id } => {
            let client = Client::new(client)?;
            let (status, answer) = client.get(&format!("/bundles/{id}"))?;
            if status != 200 {
                return Ok(report_error(status, &answer));
            }
            client.print(&answer, || {
                serde_json::to_string_pretty(&answer["document"]).unwrap_or_default()
            });
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Activate { client, id } => {
            let client = Client::new(client)?;
            activate_bundle(&client, id)
        }
        BundleCommand::History { client, page } => {
            let client = Client::new(client)?;
            let (status, answer) = client.get(&page.path("/activations"))?;
            if status != 200 {
                return Ok(report_error(status, &answer));
            }
            if client.json {
                println!("{answer}");
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{:>10}  {:>6}  {:<24}  {:<12}  {:<24}  {:>5}  note",
                "activation", "bundle", "name", "sha256", "activated", "by"
            );
            let first_page = page.cursor.is_none();
            for (at, activation) in answer["activations"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let mut notes = Vec::new();
                if first_page && at == 0 {
                    notes.push("live".to_owned());
                }
                if let Some(of) = activation["rollback_of"].as_i64() {
                    notes.push(format!("rollback of activation {of}"));
                }
                let by = activation["activated_by"]
                    .as_i64()
                    .map_or("-".to_owned(), |id| id.to_string());
                let line = format!(
                    "{:>10}  {:>6}  {:<24}  {:.12}  {:<24}  {by:>5}  {}",
                    activation["id"].as_i64().unwrap_or_default(),
                    activation["bundle_id"].as_i64().unwrap_or_default(),
                    activation["name"].as_str().unwrap_or(""),
                    activation["sha256"].as_str().unwrap_or(""),
                    activation["activated_at"].as_str().unwrap_or(""),
                    notes.join(", ")
                );
                println!("{}", line.trim_end());
            }
            if let Some(next) = answer["next_cursor"].as_str() {
                eprintln!("note: more activations follow: `--cursor {next}` lists the next page");
            }
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Rollback { client } => {
            let client = Client::new(client)?;
            let (status, answer) = client.post("/rollback", None)?;
            if !(200..300).contains(&status) {
                return Ok(report_error(status, &answer));
            }
            client.print(&answer, || {
                format!(
                    "rolled back tenant `{}` to bundle {} (activation {})",
                    client.tenant, answer["bundle_id"], answer["id"]
                )
            });
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn activate_bundle(client: &Client, id: i64) -> anyhow::Result<ExitCode> {
    let (status, answer) = client.post(&format!("/bundles/{id}/activate"), None)?;
    if !(200..300).contains(&status) {
        return Ok(report_error(status, &answer));
    }
    // 201: a new activation; 200: the bundle was live already, and nothing changed.
    client.print(&answer, || {
        if status == 201 {
            format!(
                "activated bundle {id} for tenant `{}` (activation {})",
                client.tenant, answer["id"]
            )
        } else {
            format!(
                "bundle {id} is already live for tenant `{}` (activation {}); nothing changed",
                client.tenant, answer["id"]
            )
        }
    });
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use clap::{CommandFactory, Parser};

    use super::{Cli, Command, Config, readiness_url};

    #[test]
    fn the_healthcheck_probes_readyz_where_serve_listens() {
        assert_eq!(readiness_url(None), "http://127.0.0.1:8080/readyz");
        assert_eq!(readiness_url(Some("")), "http://127.0.0.1:8080/readyz");
        assert_eq!(
            readiness_url(Some("0.0.0.0:9000")),
            "http://127.0.0.1:9000/readyz"
        );
        assert_eq!(readiness_url(Some("[::]:8080")), "http://[::1]:8080/readyz");
        assert_eq!(
            readiness_url(Some("10.1.2.3:8080")),
            "http://10.1.2.3:8080/readyz"
        );
        assert_eq!(
            readiness_url(Some("localhost:8080")),
            "http://localhost:8080/readyz"
        );
    }

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    /// `toolgate serve ARGS` as a configuration (`--database-url` is given, so the environment's
    /// `DATABASE_URL` does not count).
    fn serve_config(args: &[&str]) -> Config {
        let cli = Cli::try_parse_from(["toolgate", "serve"].iter().chain(args)).unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("not serve")
        };
        args.into_config(None)
    }

    #[test]
    fn anonymous_loopback_is_on_by_default_only_for_the_embedded_store() {
        let embedded = serve_config(&["--database-url="]);
        assert!(embedded.allow_anonymous_loopback);
        assert_eq!(embedded.database_url, None);
        assert!(serve_config(&["--database-url=sqlite://t.db"]).allow_anonymous_loopback);
        let closed = serve_config(&["--database-url=", "--allow-anonymous-loopback=false"]);
        assert!(!closed.allow_anonymous_loopback);
        assert!(!serve_config(&["--database-url=postgres://h/db"]).allow_anonymous_loopback);
        let opened = serve_config(&[
            "--database-url=postgres://h/db",
            "--allow-anonymous-loopback",
        ]);
        assert!(opened.allow_anonymous_loopback);
    }

    #[test]
    fn times_are_rfc_3339_and_a_bad_one_shows_one() {
        let parsed = super::parse_time("2026-11-01T01:00:00+01:00").unwrap();
        assert_eq!(
            parsed.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "2026-11-01T00:00:00Z"
        );
        for bad in ["yesterday", "2026-11-01"] {
            let error = Cli::try_parse_from(["toolgate", "audit", "export", "--since", bad])
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(&format!(
                    "`{bad}` is not an RFC 3339 time such as `2026-11-01T00:00:00Z`"
                )),
                "{error}"
            );
        }
    }

    /// `--log-format` is a flag of the commands that log, after or before their name, and no
    /// other command's help shows it.
    #[test]
    fn only_serve_and_migrate_take_a_log_format() {
        use crate::telemetry::LogFormat;
        let format = |args: &[&str]| match Cli::try_parse_from(args).unwrap() {
            Cli {
                log_format: Some(format),
                ..
            } => format,
            Cli {
                command: Command::Serve(serve),
                ..
            } => serve.log.log_format,
            Cli {
                command: Command::Migrate { log, .. },
                ..
            } => log.log_format,
            _ => panic!("{args:?}"),
        };
        assert_eq!(
            format(&["toolgate", "serve", "--log-format", "json"]),
            LogFormat::Json
        );
        assert_eq!(
            format(&["toolgate", "--log-format", "json", "migrate"]),
            LogFormat::Json
        );
        assert!(Cli::try_parse_from(["toolgate", "lint", "--log-format", "json", "x"]).is_err());
        for command in ["lint", "hook", "token", "bundle", "eval"] {
            let help = Cli::command()
                .find_subcommand_mut(command)
                .unwrap()
                .render_long_help()
                .to_string();
            assert!(!help.contains("--log-format"), "{command}: {help}");
        }
        let help = Cli::command()
            .find_subcommand_mut("serve")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--log-format"), "{help}");
    }

    #[test]
    fn an_audit_retention_needs_a_unit() {
        let error = Cli::try_parse_from(["toolgate", "serve", "--audit-retention", "90"])
            .unwrap_err()
            .to_string();
        assert!(error.contains("`90` has no unit"), "{error}");
        let config = serve_config(&["--database-url=", "--audit-retention", "90d"]);
        assert_eq!(
            config.audit_retention,
            Some(std::time::Duration::from_secs(90 * 86400))
        );
    }

    #[test]
    fn the_cache_lives_in_the_data_dir_unless_told_otherwise() {
        let config = serve_config(&["--database-url=", "--data-dir=/d"]);
        assert_eq!(config.data_dir, Path::new("/d"));
        assert_eq!(config.cache_dir, Path::new("/d/cache"));
        let config = serve_config(&["--database-url=", "--data-dir=/d", "--cache-dir=/c"]);
        assert_eq!(config.cache_dir, Path::new("/c"));
    }
}
