//! Where audit rows are kept: [`AuditStore`], an enum with one variant per database so that a
//! SQLite backend can be added beside PostgreSQL without touching the writer, the routes or the
//! CLI. Every query of the audit lives here.
//!
//! PostgreSQL: rows go in with one multi-row `INSERT … SELECT FROM UNNEST(…) ON CONFLICT DO
//! NOTHING` per batch (a single statement is its own transaction, and a replayed row is ignored);
//! a missing month partition is created and the insert retried once.

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use sqlx::postgres::{PgPool, PgRow};
use sqlx::{QueryBuilder, Row as _};

use super::record::{GENESIS, Row};
use super::spool::Head;

/// The audit's database.
#[derive(Debug, Clone)]
pub enum AuditStore {
    /// PostgreSQL, through the service's pool.
    Postgres(PgPool),
}

const COLUMNS: &str = "id::text AS id, time, replica_id, seq, prev_hash, hash, tenant, agent, \
    session_id, tool_use_id, prompt_id, event, tool, decision, mode, shadow_decision, winner, \
    rules, shadow_rules, reason, bundles, input, cwd, permission_mode, latency_us, repeat, failure";

const INSERT: &str = "INSERT INTO audit (id, time, replica_id, seq, prev_hash, hash, tenant, \
    agent, session_id, tool_use_id, prompt_id, event, tool, decision, mode, shadow_decision, \
    winner, rules, shadow_rules, reason, bundles, input, cwd, permission_mode, latency_us, \
    repeat, failure) \
    SELECT u.id::uuid, u.time, u.replica_id, u.seq, u.prev_hash, u.hash, u.tenant, u.agent, \
    u.session_id, u.tool_use_id, u.prompt_id, u.event, u.tool, u.decision, u.mode, \
    u.shadow_decision, u.winner, \
    string_to_array(u.rules, chr(31)), \
    string_to_array(u.shadow_rules, chr(31)), \
    u.reason, string_to_array(u.bundles, chr(31)), u.input, u.cwd, \
    u.permission_mode, u.latency_us, u.repeat, u.failure \
    FROM UNNEST($1::text[], $2::timestamptz[], $3::text[], $4::int8[], $5::bytea[], \
    $6::bytea[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], \
    $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], \
    $20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::int8[], $26::bool[], \
    $27::bool[]) AS u(id, time, replica_id, seq, prev_hash, hash, tenant, agent, session_id, \
    tool_use_id, prompt_id, event, tool, decision, mode, shadow_decision, winner, rules, \
    shadow_rules, reason, bundles, input, cwd, permission_mode, latency_us, repeat, failure) \
    ON CONFLICT DO NOTHING";

/// What `GET /v1/audit` and `toolgate audit export` filter on.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these tenants' rows (`None`: every tenant).
    pub tenant: Option<String>,
    /// `session_id`.
    pub session_id: Option<String>,
    /// `decision`.
    pub decision: Option<String>,
    /// `tool`.
    pub tool: Option<String>,
    /// A rule id among the matched rules.
    pub rule: Option<String>,
    /// `time >= since`.
    pub since: Option<DateTime<Utc>>,
    /// `time < until`.
    pub until: Option<DateTime<Utc>>,
    /// Keyset position: rows strictly older than (time, id).
    pub before: Option<(DateTime<Utc>, String)>,
}

/// One problem found by [`AuditStore::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// Rows are missing: seqs `from..=to` of `replica`.
    Gap {
        /// The replica.
        replica: String,
        /// First missing seq.
        from: i64,
        /// Last missing seq.
        to: i64,
        /// The row before the gap (`None`: the gap is at the start of the kept chain).
        after: Option<String>,
        /// The row after the gap.
        before: String,
    },
    /// A row's content does not match its hash.
    Edited {
        /// The replica.
        replica: String,
        /// Its seq.
        seq: i64,
        /// The row.
        id: String,
    },
    /// A row's `prev_hash` is not the previous row's hash.
    Unlinked {
        /// The replica.
        replica: String,
        /// Its seq.
        seq: i64,
        /// The row.
        id: String,
        /// The row before it.
        previous: Option<String>,
    },
    /// Two rows with one seq.
    Duplicate {
        /// The replica.
        replica: String,
        /// The seq.
        seq: i64,
        /// The second row.
        id: String,
    },
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gap {
                replica,
                from,
                to,
                after,
                before,
            } => {
                let seqs = if from == to {
                    format!("seq {from} is")
                } else {
                    format!("seqs {from}..={to} are")
                };
                match after {
                    Some(after) => write!(
                        f,
                        "gap: replica `{replica}` {seqs} missing, between row {after} and row {before}"
                    ),
                    None => write!(
                        f,
                        "gap: replica `{replica}` {seqs} missing, before row {before} (the first kept row)"
                    ),
                }
            }
            Self::Edited { replica, seq, id } => write!(
                f,
                "edited: row {id} (replica `{replica}`, seq {seq}) does not match its hash"
            ),
            Self::Unlinked {
                replica,
                seq,
                id,
                previous,
            } => write!(
                f,
                "broken link: row {id} (replica `{replica}`, seq {seq}) does not chain to row {}",
                previous.as_deref().unwrap_or("the pruned checkpoint")
            ),
            Self::Duplicate { replica, seq, id } => write!(
                f,
                "duplicate: row {id} repeats seq {seq} of replica `{replica}`"
            ),
        }
    }
}

/// The result of [`AuditStore::verify`].
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Replicas checked.
    pub replicas: usize,
    /// Rows checked.
    pub rows: u64,
    /// What is wrong.
    pub findings: Vec<Finding>,
    /// Chains that restart (a replica that started with its head unknown: no spool, no database).
    pub restarts: Vec<String>,
}

/// The result of [`AuditStore::prune`].
#[derive(Debug, Default)]
pub struct PruneReport {
    /// The month partitions dropped (or that would be, on a dry run).
    pub partitions: Vec<String>,
    /// Another prune held the lock; nothing was done.
    pub busy: bool,
}

fn opt_str(row: &PgRow, column: &str) -> Result<Option<String>, sqlx::Error> {
    row.try_get(column)
}

fn hash32(row: &PgRow, column: &str) -> Result<[u8; 32], sqlx::Error> {
    let bytes: Vec<u8> = row.try_get(column)?;
    bytes
        .try_into()
        .map_err(|_| sqlx::Error::Decode(format!("`{column}` is not 32 bytes").into()))
}

fn from_pg(row: &PgRow) -> Result<Row, sqlx::Error> {
    let time: DateTime<Utc> = row.try_get("time")?;
    Ok(Row {
        id: row.try_get("id")?,
        time_us: time.timestamp_micros(),
        replica_id: row.try_get("replica_id")?,
        seq: row.try_get("seq")?,
        prev_hash: hash32(row, "prev_hash")?,
        hash: hash32(row, "hash")?,
        tenant: opt_str(row, "tenant")?,
        agent: row.try_get("agent")?,
        session_id: opt_str(row, "session_id")?,
        tool_use_id: opt_str(row, "tool_use_id")?,
        prompt_id: opt_str(row, "prompt_id")?,
        event: row.try_get("event")?,
        tool: opt_str(row, "tool")?,
        decision: row.try_get("decision")?,
        mode: row.try_get("mode")?,
        shadow_decision: opt_str(row, "shadow_decision")?,
        winner: opt_str(row, "winner")?,
        rules: row.try_get("rules")?,
        shadow_rules: row.try_get("shadow_rules")?,
        reason: opt_str(row, "reason")?,
        bundles: row.try_get("bundles")?,
        input: row.try_get("input")?,
        cwd: opt_str(row, "cwd")?,
        permission_mode: opt_str(row, "permission_mode")?,
        latency_us: row.try_get("latency_us")?,
        repeat: row.try_get("repeat")?,
        failure: row.try_get("failure")?,
    })
}

/// A list as one text, items separated by U+001F (which `record` keeps out of items), for
/// `string_to_array` on the server.
fn joined(items: &[String]) -> String {
    items.join("\u{1f}")
}

fn is_missing_partition(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("23514"))
}

/// The months (UTC) a pruned partition name stands for: `audit_y2026m11` → 2026-11.
fn partition_month(name: &str) -> Option<(i32, u32)> {
    let rest = name.strip_prefix("audit_y")?;
    let (year, month) = rest.split_once('m')?;
    Some((year.parse().ok()?, month.parse().ok()?))
}

impl AuditStore {
    /// Inserts rows; rows already there (a replay) are ignored.
    pub async fn insert(&self, rows: &[Row]) -> Result<(), sqlx::Error> {
        if rows.is_empty() {
            return Ok(());
        }
        match self.insert_once(rows).await {
            Err(error) if is_missing_partition(&error) => {
                self.ensure_partitions(rows).await?;
                self.insert_once(rows).await
            }
            other => other,
        }
    }

    async fn ensure_partitions(&self, rows: &[Row]) -> Result<(), sqlx::Error> {
        let Self::Postgres(pool) = self;
        let mut months: Vec<DateTime<Utc>> = Vec::new();
        for row in rows {
            let time = row.time();
            if !months
                .iter()
                .any(|m| m.format("%Y%m").to_string() == time.format("%Y%m").to_string())
            {
                months.push(time);
            }
        }
        for month in months {
            sqlx::query("SELECT toolgate_audit_partition($1)")
                .bind(month)
                .execute(pool)
                .await?;
        }
        Ok(())
    }

    async fn insert_once(&self, rows: &[Row]) -> Result<(), sqlx::Error> {
        let Self::Postgres(pool) = self;
        let n = rows.len();
        let mut ids = Vec::with_capacity(n);
        let mut times = Vec::with_capacity(n);
        let mut replicas = Vec::with_capacity(n);
        let mut seqs = Vec::with_capacity(n);
        let mut prevs = Vec::with_capacity(n);
        let mut hashes = Vec::with_capacity(n);
        let mut tenants = Vec::with_capacity(n);
        let mut agents = Vec::with_capacity(n);
        let mut sessions = Vec::with_capacity(n);
        let mut tool_uses = Vec::with_capacity(n);
        let mut prompts = Vec::with_capacity(n);
        let mut events = Vec::with_capacity(n);
        let mut tools = Vec::with_capacity(n);
        let mut decisions = Vec::with_capacity(n);
        let mut modes = Vec::with_capacity(n);
        let mut shadow_decisions = Vec::with_capacity(n);
        let mut winners = Vec::with_capacity(n);
        let mut rules = Vec::with_capacity(n);
        let mut shadow_rules = Vec::with_capacity(n);
        let mut reasons = Vec::with_capacity(n);
        let mut bundles = Vec::with_capacity(n);
        let mut inputs = Vec::with_capacity(n);
        let mut cwds = Vec::with_capacity(n);
        let mut permission_modes = Vec::with_capacity(n);
        let mut latencies = Vec::with_capacity(n);
        let mut repeats = Vec::with_capacity(n);
        let mut failures = Vec::with_capacity(n);
        for row in rows {
            ids.push(row.id.as_str());
            times.push(row.time());
            replicas.push(row.replica_id.as_str());
            seqs.push(row.seq);
            prevs.push(row.prev_hash.to_vec());
            hashes.push(row.hash.to_vec());
            tenants.push(row.tenant.as_deref());
            agents.push(row.agent.as_str());
            sessions.push(row.session_id.as_deref());
            tool_uses.push(row.tool_use_id.as_deref());
            prompts.push(row.prompt_id.as_deref());
            events.push(row.event.as_str());
            tools.push(row.tool.as_deref());
            decisions.push(row.decision.as_str());
            modes.push(row.mode.as_str());
            shadow_decisions.push(row.shadow_decision.as_deref());
            winners.push(row.winner.as_deref());
            rules.push(joined(&row.rules));
            shadow_rules.push(joined(&row.shadow_rules));
            reasons.push(row.reason.as_deref());
            bundles.push(joined(&row.bundles));
            inputs.push(row.input.as_str());
            cwds.push(row.cwd.as_deref());
            permission_modes.push(row.permission_mode.as_deref());
            latencies.push(row.latency_us);
            repeats.push(row.repeat);
            failures.push(row.failure);
        }
        sqlx::query(INSERT)
            .bind(ids)
            .bind(times)
            .bind(replicas)
            .bind(seqs)
            .bind(prevs)
            .bind(hashes)
            .bind(tenants)
            .bind(agents)
            .bind(sessions)
            .bind(tool_uses)
            .bind(prompts)
            .bind(events)
            .bind(tools)
            .bind(decisions)
            .bind(modes)
            .bind(shadow_decisions)
            .bind(winners)
            .bind(rules)
            .bind(shadow_rules)
            .bind(reasons)
            .bind(bundles)
            .bind(inputs)
            .bind(cwds)
            .bind(permission_modes)
            .bind(latencies)
            .bind(repeats)
            .bind(failures)
            .execute(pool)
            .await?;
        Ok(())
    }

    /// The last row of `replica`'s chain in the database (or its pruned checkpoint); `None` when
    /// the replica has never written.
    pub async fn head(&self, replica: &str) -> Result<Option<Head>, sqlx::Error> {
        let Self::Postgres(pool) = self;
        let row = sqlx::query(
            "SELECT seq, hash, time FROM ( \
               (SELECT seq, hash, time FROM audit WHERE replica_id = $1 ORDER BY seq DESC LIMIT 1) \
               UNION ALL \
               (SELECT seq, hash, time FROM audit_checkpoints WHERE replica_id = $1) \
             ) h ORDER BY seq DESC LIMIT 1",
        )
        .bind(replica)
        .fetch_optional(pool)
        .await?;
        row.map(|row| {
            let time: DateTime<Utc> = row.try_get("time")?;
            Ok(Head {
                seq: row.try_get("seq")?,
                hash: hash32(&row, "hash")?,
                time_us: time.timestamp_micros(),
            })
        })
        .transpose()
    }

    /// Rows matching `filter`, newest first, at most `limit`.
    pub async fn query(&self, filter: &Filter, limit: i64) -> Result<Vec<Row>, sqlx::Error> {
        let Self::Postgres(pool) = self;
        let mut query = QueryBuilder::new(format!("SELECT {COLUMNS} FROM audit WHERE true"));
        if let Some(tenant) = &filter.tenant {
            query.push(" AND tenant = ").push_bind(tenant.clone());
        }
        if let Some(session) = &filter.session_id {
            query.push(" AND session_id = ").push_bind(session.clone());
        }
        if let Some(decision) = &filter.decision {
            query.push(" AND decision = ").push_bind(decision.clone());
        }
        if let Some(tool) = &filter.tool {
            query.push(" AND tool = ").push_bind(tool.clone());
        }
        if let Some(rule) = &filter.rule {
            query
                .push(" AND rules @> ARRAY[")
                .push_bind(rule.clone())
                .push("]::text[]");
        }
        if let Some(since) = filter.since {
            query.push(" AND time >= ").push_bind(since);
        }
        if let Some(until) = filter.until {
            query.push(" AND time < ").push_bind(until);
        }
        if let Some((time, id)) = &filter.before {
            query
                .push(" AND (time, id) < (")
                .push_bind(*time)
                .push(", ")
                .push_bind(id.clone())
                .push("::uuid)");
        }
        query
            .push(" ORDER BY time DESC, id DESC LIMIT ")
            .push_bind(limit);
        let rows = query.build().fetch_all(pool).await?;
        rows.iter().map(from_pg).collect()
    }

    /// Checks every replica's chain (or one replica's), from its pruned checkpoint if any.
    pub async fn verify(&self, replica: Option<&str>) -> Result<VerifyReport, sqlx::Error> {
        let Self::Postgres(pool) = self;
        let checkpoints: Vec<(String, i64, Vec<u8>)> =
            sqlx::query_as("SELECT replica_id, seq, hash FROM audit_checkpoints")
                .fetch_all(pool)
                .await?;
        let mut report = VerifyReport::default();
        let mut chain: Option<Chain> = None;
        let sql = format!(
            "SELECT {COLUMNS} FROM audit WHERE ($1::text IS NULL OR replica_id = $1) \
             ORDER BY replica_id, seq, time"
        );
        let mut rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(replica)
            .fetch(pool);
        while let Some(pg_row) = rows.try_next().await? {
            let row = from_pg(&pg_row)?;
            report.rows += 1;
            if chain.as_ref().is_none_or(|c| c.replica != row.replica_id) {
                report.replicas += 1;
                let checkpoint = checkpoints.iter().find(|(r, _, _)| *r == row.replica_id);
                chain = Some(Chain::start(&row.replica_id, checkpoint));
            }
            if let Some(chain) = chain.as_mut() {
                chain.check(&row, &mut report);
            }
        }
        Ok(report)
    }

    /// Drops the month partitions that end on or before `cutoff`, after recording each
    /// replica's last dropped row as its checkpoint. Whole months only: a row is removed once its
    /// whole month is older than the cut-off. One transaction.
    pub async fn prune(
        &self,
        cutoff: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<PruneReport, sqlx::Error> {
        let Self::Postgres(pool) = self;
        let mut tx = pool.begin().await?;
        let locked: bool = sqlx::query_scalar(
            "SELECT pg_try_advisory_xact_lock(hashtext('toolgate-audit-prune'))",
        )
        .fetch_one(&mut *tx)
        .await?;
        if !locked {
            return Ok(PruneReport {
                partitions: Vec::new(),
                busy: true,
            });
        }
        let names: Vec<String> = sqlx::query_scalar(
            "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
             WHERE i.inhparent = 'audit'::regclass ORDER BY 1",
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut drop = Vec::new();
        let mut upper = None;
        for name in names {
            let Some((year, month)) = partition_month(&name) else {
                continue;
            };
            let (next_year, next_month) = if month == 12 {
                (year + 1, 1)
            } else {
                (year, month + 1)
            };
            let Some(end) = chrono::NaiveDate::from_ymd_opt(next_year, next_month, 1)
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|d| d.and_utc())
            else {
                continue;
            };
            if end <= cutoff {
                upper = upper.max(Some(end));
                drop.push(name);
            }
        }
        let report = PruneReport {
            partitions: drop.clone(),
            busy: false,
        };
        let Some(upper) = upper else {
            return Ok(report);
        };
        if dry_run {
            return Ok(report);
        }
        sqlx::query(
            "INSERT INTO audit_checkpoints (replica_id, seq, hash, time) \
             SELECT DISTINCT ON (replica_id) replica_id, seq, hash, time FROM audit \
             WHERE time < $1 ORDER BY replica_id, seq DESC \
             ON CONFLICT (replica_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, \
             time = EXCLUDED.time, pruned_at = now() WHERE audit_checkpoints.seq < EXCLUDED.seq",
        )
        .bind(upper)
        .execute(&mut *tx)
        .await?;
        for name in &drop {
            // The name comes from pg_class and matched `audit_yYYYYmMM`.
            sqlx::query(sqlx::AssertSqlSafe(format!("DROP TABLE \"{name}\"")))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(report)
    }
}

/// Verification state of one replica's chain.
struct Chain {
    replica: String,
    next_seq: i64,
    prev_hash: [u8; 32],
    prev_id: Option<String>,
    last_seq: i64,
}

impl Chain {
    fn start(replica: &str, checkpoint: Option<&(String, i64, Vec<u8>)>) -> Self {
        let (seq, hash) = match checkpoint {
            Some((_, seq, hash)) => (*seq, hash.as_slice().try_into().unwrap_or(GENESIS)),
            None => (0, GENESIS),
        };
        Self {
            replica: replica.to_owned(),
            next_seq: seq + 1,
            prev_hash: hash,
            prev_id: None,
            last_seq: seq,
        }
    }

    fn check(&mut self, row: &Row, report: &mut VerifyReport) {
        if row.compute_hash() != row.hash {
            report.findings.push(Finding::Edited {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
            });
        }
        if row.seq <= self.last_seq && self.prev_id.is_some() {
            report.findings.push(Finding::Duplicate {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
            });
            return;
        }
        let restart = row.prev_hash == GENESIS && row.seq != 1;
        if restart {
            report.restarts.push(format!(
                "replica `{}` restarts its chain at seq {} (row {}): it started with no spool and no database",
                self.replica, row.seq, row.id
            ));
        } else if row.seq > self.next_seq {
            report.findings.push(Finding::Gap {
                replica: self.replica.clone(),
                from: self.next_seq,
                to: row.seq - 1,
                after: self.prev_id.clone(),
                before: row.id.clone(),
            });
        } else if row.prev_hash != self.prev_hash {
            report.findings.push(Finding::Unlinked {
                replica: self.replica.clone(),
                seq: row.seq,
                id: row.id.clone(),
                previous: self.prev_id.clone(),
            });
        }
        self.next_seq = row.seq + 1;
        self.last_seq = row.seq;
        self.prev_hash = row.hash;
        self.prev_id = Some(row.id.clone());
    }
}
