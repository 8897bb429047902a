//! The audit on PostgreSQL: rows go in with one multi-row statement per batch, `INSERT … VALUES`
//! for up to [`VALUES_ROWS`] rows and `INSERT … SELECT FROM UNNEST(…)` above (a single statement
//! is its own transaction). Replays from the spool, which may hold rows the database has already,
//! add `ON CONFLICT DO NOTHING`; the writer's new rows go without it (its speculative insertion
//! cost PostgreSQL about a sixth more CPU per row), and a batch that meets a row already there goes
//! again as a replay. A missing month partition is created and the insert retried once. Pruning
//! drops whole month partitions.

use std::sync::LazyLock;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt as _;
use sqlx::postgres::{PgConnection, PgPool, PgRow};
use sqlx::{QueryBuilder, Row as _};

use super::{
    ExpectedHead, Filter, PruneReport, Verifier, VerifyReport, decode_row, hash32, month_end,
};
use crate::audit::record::Row;
use crate::audit::spool::Head;

/// The audit table's columns in the order the insert statements bind them, each with the type it
/// is sent as: `uuid` goes over the wire as text and is cast, `list` is a `text[]` in `VALUES`
/// and one U+001F-joined text (split by `string_to_array`) in `UNNEST`.
const FIELDS: [(&str, &str); 28] = [
    ("id", "uuid"),
    ("time", "timestamptz"),
    ("replica_id", "text"),
    ("seq", "int8"),
    ("prev_hash", "bytea"),
    ("hash", "bytea"),
    ("tenant", "text"),
    ("agent", "text"),
    ("session_id", "text"),
    ("tool_use_id", "text"),
    ("prompt_id", "text"),
    ("event", "text"),
    ("tool", "text"),
    ("decision", "text"),
    ("mode", "text"),
    ("shadow_decision", "text"),
    ("winner", "text"),
    ("winner_bundle", "text"),
    ("rules", "list"),
    ("shadow_rules", "list"),
    ("reason", "text"),
    ("bundles", "list"),
    ("input", "text"),
    ("cwd", "text"),
    ("permission_mode", "text"),
    ("latency_us", "int8"),
    ("repeat", "bool"),
    ("failure", "bool"),
];

/// Columns per row.
const ROW_COLUMNS: usize = FIELDS.len();

/// `name, name, …` of every field, each written by `each(name, type)`.
fn field_list(mut each: impl FnMut(&str, &str) -> String) -> String {
    FIELDS
        .iter()
        .map(|(name, kind)| each(name, kind))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The columns a query reads, the id as text.
static COLUMNS: LazyLock<String> = LazyLock::new(|| {
    field_list(|name, kind| match kind {
        "uuid" => format!("{name}::text AS {name}"),
        _ => name.to_owned(),
    })
});

/// `INSERT INTO audit (…)`.
fn insert_into() -> String {
    format!(
        "INSERT INTO audit ({})",
        field_list(|name, _| name.to_owned())
    )
}

/// What a row already in the table does to an insert.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OnConflict {
    /// The statement fails (unique violation): the writer's new rows.
    Fail,
    /// The row is left out: replays.
    Ignore,
}

impl OnConflict {
    /// The statement's ending.
    fn clause(self) -> &'static str {
        match self {
            Self::Fail => "",
            Self::Ignore => " ON CONFLICT DO NOTHING",
        }
    }

    fn index(self) -> usize {
        usize::from(self == Self::Ignore)
    }
}

/// `INSERT … SELECT FROM UNNEST(…)`: one array parameter per column.
fn insert_unnest(on_conflict: OnConflict) -> &'static str {
    static STATEMENTS: LazyLock<[String; 2]> =
        LazyLock::new(|| [OnConflict::Fail, OnConflict::Ignore].map(unnest_statement));
    &STATEMENTS[on_conflict.index()]
}

fn unnest_statement(on_conflict: OnConflict) -> String {
    let mut at = 0;
    let arrays = field_list(|_, kind| {
        at += 1;
        let element = if matches!(kind, "uuid" | "list") {
            "text"
        } else {
            kind
        };
        format!("${at}::{element}[]")
    });
    let values = field_list(|name, kind| match kind {
        "uuid" => format!("u.{name}::uuid"),
        "list" => format!("string_to_array(u.{name}, chr(31))"),
        _ => format!("u.{name}"),
    });
    let names = field_list(|name, _| name.to_owned());
    format!(
        "{} SELECT {values} FROM UNNEST({arrays}) AS u({names}){}",
        insert_into(),
        on_conflict.clause()
    )
}

/// Batches of up to this many rows go in as plain `INSERT … VALUES (…), (…)`: unpacking 28
/// arrays with `UNNEST` has a fixed cost per statement larger than a few rows' own inserts
/// (auto_explain: its function scan alone 0.09–0.23 ms for one row), and small batches are every
/// batch while evaluations come one or a few at a time (and what a hook call waits for). 32, not
/// 16: with one insert in flight, 32 connections make batches of 12–25 rows, and up to 32 in
/// `VALUES` cost PostgreSQL 8 % less CPU per row than `UNNEST` above 16 (`bench/ab.sh`, durable).
const VALUES_ROWS: usize = 32;

/// `INSERT … VALUES` for `n` rows (1 ≤ n ≤ [`VALUES_ROWS`]), built once per size.
fn insert_values(n: usize, on_conflict: OnConflict) -> &'static str {
    static STATEMENTS: LazyLock<[Vec<String>; 2]> =
        LazyLock::new(|| [OnConflict::Fail, OnConflict::Ignore].map(values_statements));
    STATEMENTS[on_conflict.index()]
        .get(n.clamp(1, VALUES_ROWS) - 1)
        .map_or("", String::as_str)
}

fn values_statements(on_conflict: OnConflict) -> Vec<String> {
    (1..=VALUES_ROWS)
        .map(|n| {
            let rows: Vec<String> = (0..n)
                .map(|row| {
                    let mut at = row * ROW_COLUMNS;
                    let values = field_list(|_, kind| {
                        at += 1;
                        match kind {
                            "uuid" => format!("${at}::text::uuid"),
                            _ => format!("${at}"),
                        }
                    });
                    format!("({values})")
                })
                .collect();
            format!(
                "{} VALUES {}{}",
                insert_into(),
                rows.join(", "),
                on_conflict.clause()
            )
        })
        .collect()
}

fn from_pg(row: &PgRow) -> Result<Row, sqlx::Error> {
    let time: DateTime<Utc> = row.try_get("time")?;
    let lists = [
        row.try_get("rules")?,
        row.try_get("shadow_rules")?,
        row.try_get("bundles")?,
    ];
    decode_row(row, time.timestamp_micros(), lists)
}

/// A list as one text, items separated by U+001F (which `record` keeps out of items), for
/// `string_to_array` on the server.
fn joined(items: &[String]) -> String {
    items.join("\u{1f}")
}

fn is_missing_partition(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("23514"))
}

/// Inserts rows; rows already there (a replay) are ignored.
pub(super) async fn insert(conn: &mut PgConnection, rows: &[Row]) -> Result<(), sqlx::Error> {
    match insert_once(conn, rows, OnConflict::Ignore).await {
        Err(error) if is_missing_partition(&error) => {
            ensure_partitions(conn, rows).await?;
            insert_once(conn, rows, OnConflict::Ignore).await
        }
        other => other,
    }
}

/// Inserts the writer's new rows. A row the database has already (the chain forked: see
/// `docs/architecture.md`, "Chain head at start") fails the statement, which then goes again as
/// [`insert`]; so does one for a month without a partition yet.
pub(super) async fn insert_new(conn: &mut PgConnection, rows: &[Row]) -> Result<(), sqlx::Error> {
    match insert_once(conn, rows, OnConflict::Fail).await {
        Err(error) if is_missing_partition(&error) || is_unique_violation(&error) => {
            insert(conn, rows).await
        }
        other => other,
    }
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.code().as_deref() == Some("23505"))
}

async fn ensure_partitions(conn: &mut PgConnection, rows: &[Row]) -> Result<(), sqlx::Error> {
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
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn insert_once(
    conn: &mut PgConnection,
    rows: &[Row],
    on_conflict: OnConflict,
) -> Result<(), sqlx::Error> {
    if rows.len() <= VALUES_ROWS {
        return insert_small(conn, rows, on_conflict).await;
    }
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
    let mut winner_bundles = Vec::with_capacity(n);
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
        winner_bundles.push(row.winner_bundle.as_deref());
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
    sqlx::query(insert_unnest(on_conflict))
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
        .bind(winner_bundles)
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
        .execute(conn)
        .await?;
    Ok(())
}

async fn insert_small(
    conn: &mut PgConnection,
    rows: &[Row],
    on_conflict: OnConflict,
) -> Result<(), sqlx::Error> {
    let mut query = sqlx::query(insert_values(rows.len(), on_conflict));
    for row in rows {
        query = query
            .bind(row.id.as_str())
            .bind(row.time())
            .bind(row.replica_id.as_str())
            .bind(row.seq)
            .bind(&row.prev_hash[..])
            .bind(&row.hash[..])
            .bind(row.tenant.as_deref())
            .bind(row.agent.as_str())
            .bind(row.session_id.as_deref())
            .bind(row.tool_use_id.as_deref())
            .bind(row.prompt_id.as_deref())
            .bind(row.event.as_str())
            .bind(row.tool.as_deref())
            .bind(row.decision.as_str())
            .bind(row.mode.as_str())
            .bind(row.shadow_decision.as_deref())
            .bind(row.winner.as_deref())
            .bind(row.winner_bundle.as_deref())
            .bind(&row.rules[..])
            .bind(&row.shadow_rules[..])
            .bind(row.reason.as_deref())
            .bind(&row.bundles[..])
            .bind(row.input.as_str())
            .bind(row.cwd.as_deref())
            .bind(row.permission_mode.as_deref())
            .bind(row.latency_us)
            .bind(row.repeat)
            .bind(row.failure);
    }
    query.execute(conn).await?;
    Ok(())
}

/// See [`super::AuditStore::wait_for_stopped_writers`]. Polls `pg_stat_activity` every 50 ms.
pub(super) async fn wait_for_stopped_writers(
    pool: &PgPool,
    limit: Duration,
) -> Result<bool, sqlx::Error> {
    let options = pool.connect_options();
    let Some(name) = options.get_application_name() else {
        return Ok(false);
    };
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let (hidden, active): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE state IS NULL), count(*) FILTER (WHERE state = 'active') \
             FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
        )
        .bind(name)
        .fetch_one(pool)
        .await?;
        if hidden > 0 {
            return Ok(false);
        }
        if active == 0 {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The last row of `replica`'s chain in the database (or its pruned checkpoint); `None` when
/// the replica has never written.
pub(super) async fn head(pool: &PgPool, replica: &str) -> Result<Option<Head>, sqlx::Error> {
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
pub(super) async fn query(
    pool: &PgPool,
    filter: &Filter,
    limit: i64,
) -> Result<Vec<Row>, sqlx::Error> {
    let mut query = QueryBuilder::new(format!("SELECT {} FROM audit WHERE true", *COLUMNS));
    if let Some(tenant) = &filter.tenant {
        query.push(" AND tenant = ").push_bind(tenant.clone());
    }
    if let Some(session) = &filter.session_id {
        query.push(" AND session_id = ").push_bind(session.clone());
    }
    if let Some(decision) = &filter.decision {
        query.push(" AND decision = ").push_bind(decision.clone());
        // Spelled out, so that the planner can use the partial index of flagged rows.
        if matches!(decision.as_str(), "deny" | "ask") {
            query.push(" AND decision IN ('deny', 'ask')");
        }
    }
    if let Some(tool) = &filter.tool {
        query.push(" AND tool = ").push_bind(tool.clone());
    }
    if let Some(event) = &filter.event {
        query.push(" AND event = ").push_bind(event.clone());
    }
    if let Some(agent) = &filter.agent {
        query.push(" AND agent = ").push_bind(agent.clone());
    }
    if let Some(rule) = &filter.rule {
        // `cardinality(rules) > 0`: implied, and the partial GIN index's own condition.
        query
            .push(" AND rules @> ARRAY[")
            .push_bind(rule.clone())
            .push("]::text[] AND cardinality(rules) > 0");
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
pub(super) async fn verify(
    pool: &PgPool,
    replica: Option<&str>,
    expected: &[ExpectedHead],
) -> Result<VerifyReport, sqlx::Error> {
    let checkpoints: Vec<(String, i64, Vec<u8>)> =
        sqlx::query_as("SELECT replica_id, seq, hash FROM audit_checkpoints")
            .fetch_all(pool)
            .await?;
    let sql = format!(
        "SELECT {} FROM audit WHERE ($1::text IS NULL OR replica_id = $1) \
         ORDER BY replica_id, seq, time",
        *COLUMNS
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(replica)
        .fetch(pool);
    Verifier::new(checkpoints, expected)
        .only(replica)
        .check_all(rows.and_then(|row| async move { from_pg(&row) }))
        .await
}

/// Drops the month partitions that end on or before `cutoff`, after recording each
/// replica's last dropped row as its checkpoint. Whole months only: a row is removed once its
/// whole month is older than the cut-off. One transaction.
pub(super) async fn prune(
    pool: &PgPool,
    cutoff: DateTime<Utc>,
    dry_run: bool,
) -> Result<PruneReport, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let locked: bool =
        sqlx::query_scalar("SELECT pg_try_advisory_xact_lock(hashtext('toolgate-audit-prune'))")
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
        let Some(end) = month_end(&name) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_statements_number_every_column_of_every_row_once() {
        for on_conflict in [OnConflict::Fail, OnConflict::Ignore] {
            for n in 1..=VALUES_ROWS {
                let sql = insert_values(n, on_conflict);
                assert_eq!(sql.matches("::text::uuid").count(), n, "{sql}");
                let last = n * ROW_COLUMNS;
                assert!(sql.contains(&format!("${last})")), "{sql}");
                assert!(!sql.contains(&format!("${}", last + 1)), "{sql}");
                assert_eq!(sql.matches('$').count(), last, "{sql}");
                assert_eq!(
                    sql.ends_with("ON CONFLICT DO NOTHING"),
                    on_conflict == OnConflict::Ignore
                );
            }
            assert_eq!(
                insert_values(VALUES_ROWS + 1, on_conflict),
                insert_values(VALUES_ROWS, on_conflict)
            );
        }
    }

    #[test]
    fn the_unnest_statement_takes_one_array_per_column() {
        for on_conflict in [OnConflict::Fail, OnConflict::Ignore] {
            let sql = insert_unnest(on_conflict);
            for at in 1..=ROW_COLUMNS {
                assert_eq!(sql.matches(&format!("${at}::")).count(), 1, "{sql}");
            }
            assert!(!sql.contains(&format!("${}", ROW_COLUMNS + 1)), "{sql}");
            assert_eq!(sql.matches("string_to_array").count(), 3, "{sql}");
            assert!(sql.contains("u.id::uuid"), "{sql}");
            assert_eq!(
                sql.ends_with("ON CONFLICT DO NOTHING"),
                on_conflict == OnConflict::Ignore
            );
        }
    }
}
