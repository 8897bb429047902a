//! The audit on the embedded SQLite store: a batch goes in as multi-row `INSERT … ON CONFLICT DO
//! NOTHING` statements inside one `BEGIN IMMEDIATE` transaction (one commit, one fsync with
//! `synchronous=FULL`, so concurrent evaluations share it); a replayed row is ignored. Times are
//! microseconds, lists JSON arrays. Pruning deletes whole months of rows.

use chrono::{DateTime, Datelike, TimeZone, Utc};
use futures_util::TryStreamExt as _;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{QueryBuilder, Row as _, Sqlite};

use super::{
    ExpectedHead, Filter, PruneReport, Verifier, VerifyReport, decode_row, hash32, month_end,
    month_name,
};
use crate::audit::record::Row;
use crate::audit::spool::Head;
use crate::store::sqlite::begin_write;

const COLUMNS: &str = "id, time_us, replica_id, seq, prev_hash, hash, tenant, agent, session_id, \
    tool_use_id, prompt_id, event, tool, decision, mode, shadow_decision, winner, winner_bundle, \
    rules, shadow_rules, reason, bundles, input, cwd, permission_mode, latency_us, repeat, failure";

/// Rows per `INSERT` statement: 28 columns each, well under SQLite's 32 766 bound parameters.
const ROWS_PER_STATEMENT: usize = 500;

fn list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_owned())
}

fn parse_list(row: &SqliteRow, column: &str) -> Result<Vec<String>, sqlx::Error> {
    let text: String = row.try_get(column)?;
    serde_json::from_str(&text)
        .map_err(|error| sqlx::Error::Decode(format!("`{column}`: {error}").into()))
}

fn from_sqlite(row: &SqliteRow) -> Result<Row, sqlx::Error> {
    let lists = [
        parse_list(row, "rules")?,
        parse_list(row, "shadow_rules")?,
        parse_list(row, "bundles")?,
    ];
    decode_row(row, row.try_get("time_us")?, lists)
}

pub(super) async fn insert(pool: &SqlitePool, rows: &[Row]) -> Result<(), sqlx::Error> {
    let mut tx = begin_write(pool).await?;
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let mut query = QueryBuilder::<Sqlite>::new(format!("INSERT INTO audit ({COLUMNS}) "));
        query.push_values(chunk, |mut values, row| {
            values
                .push_bind(row.id.as_str())
                .push_bind(row.time_us)
                .push_bind(row.replica_id.as_str())
                .push_bind(row.seq)
                .push_bind(row.prev_hash.as_slice())
                .push_bind(row.hash.as_slice())
                .push_bind(row.tenant.as_deref())
                .push_bind(row.agent.as_str())
                .push_bind(row.session_id.as_deref())
                .push_bind(row.tool_use_id.as_deref())
                .push_bind(row.prompt_id.as_deref())
                .push_bind(row.event.as_str())
                .push_bind(row.tool.as_deref())
                .push_bind(row.decision.as_str())
                .push_bind(row.mode.as_str())
                .push_bind(row.shadow_decision.as_deref())
                .push_bind(row.winner.as_deref())
                .push_bind(row.winner_bundle.as_deref())
                .push_bind(list(&row.rules))
                .push_bind(list(&row.shadow_rules))
                .push_bind(row.reason.as_deref())
                .push_bind(list(&row.bundles))
                .push_bind(row.input.as_str())
                .push_bind(row.cwd.as_deref())
                .push_bind(row.permission_mode.as_deref())
                .push_bind(row.latency_us)
                .push_bind(row.repeat)
                .push_bind(row.failure);
        });
        query.push(" ON CONFLICT DO NOTHING");
        query.build().execute(&mut *tx).await?;
    }
    tx.commit().await
}

pub(super) async fn head(pool: &SqlitePool, replica: &str) -> Result<Option<Head>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT seq, hash, time_us FROM ( \
           SELECT seq, hash, time_us FROM audit WHERE replica_id = ?1 \
           UNION ALL \
           SELECT seq, hash, time_us FROM audit_checkpoints WHERE replica_id = ?1 \
         ) ORDER BY seq DESC LIMIT 1",
    )
    .bind(replica)
    .fetch_optional(pool)
    .await?;
    row.map(|row| {
        Ok(Head {
            seq: row.try_get("seq")?,
            hash: hash32(&row, "hash")?,
            time_us: row.try_get("time_us")?,
        })
    })
    .transpose()
}

pub(super) async fn query(
    pool: &SqlitePool,
    filter: &Filter,
    limit: i64,
) -> Result<Vec<Row>, sqlx::Error> {
    let mut query = QueryBuilder::<Sqlite>::new(format!("SELECT {COLUMNS} FROM audit WHERE 1"));
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
    if let Some(event) = &filter.event {
        query.push(" AND event = ").push_bind(event.clone());
    }
    if let Some(agent) = &filter.agent {
        query.push(" AND agent = ").push_bind(agent.clone());
    }
    if let Some(rule) = &filter.rule {
        query
            .push(" AND EXISTS (SELECT 1 FROM json_each(audit.rules) WHERE value = ")
            .push_bind(rule.clone())
            .push(")");
    }
    if let Some(since) = filter.since {
        query
            .push(" AND time_us >= ")
            .push_bind(since.timestamp_micros());
    }
    if let Some(until) = filter.until {
        query
            .push(" AND time_us < ")
            .push_bind(until.timestamp_micros());
    }
    if let Some((time, id)) = &filter.before {
        query
            .push(" AND (time_us, id) < (")
            .push_bind(time.timestamp_micros())
            .push(", ")
            .push_bind(id.clone())
            .push(")");
    }
    query
        .push(" ORDER BY time_us DESC, id DESC LIMIT ")
        .push_bind(limit);
    let rows = query.build().fetch_all(pool).await?;
    rows.iter().map(from_sqlite).collect()
}

pub(super) async fn verify(
    pool: &SqlitePool,
    replica: Option<&str>,
    expected: &[ExpectedHead],
) -> Result<VerifyReport, sqlx::Error> {
    let checkpoints: Vec<(String, i64, Vec<u8>)> =
        sqlx::query_as("SELECT replica_id, seq, hash FROM audit_checkpoints")
            .fetch_all(pool)
            .await?;
    let sql = format!(
        "SELECT {COLUMNS} FROM audit WHERE (?1 IS NULL OR replica_id = ?1) \
         ORDER BY replica_id, seq, time_us"
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(replica)
        .fetch(pool);
    Verifier::new(checkpoints, expected)
        .only(replica)
        .check_all(rows.and_then(|row| async move { from_sqlite(&row) }))
        .await
}

/// The first instant of the month (UTC) holding `time`.
fn month_start(time: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(time.year(), time.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(time)
}

pub(super) async fn prune(
    pool: &SqlitePool,
    cutoff: DateTime<Utc>,
    dry_run: bool,
) -> Result<PruneReport, sqlx::Error> {
    // Every month that ends on or before the cut-off, i.e. every row before its month's start.
    let upper = month_start(cutoff).timestamp_micros();
    let mut tx = begin_write(pool).await?;
    let (first, last): (Option<i64>, Option<i64>) =
        sqlx::query_as("SELECT min(time_us), max(time_us) FROM audit WHERE time_us < ?1")
            .bind(upper)
            .fetch_one(&mut *tx)
            .await?;
    let mut report = PruneReport::default();
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(report);
    };
    let mut month = DateTime::from_timestamp_micros(first).map(month_start);
    let last = DateTime::from_timestamp_micros(last).unwrap_or_default();
    while let Some(start) = month.filter(|start| *start <= last) {
        let name = month_name(start);
        month = month_end(&name);
        report.partitions.push(name);
    }
    if dry_run {
        return Ok(report);
    }
    sqlx::query(
        "INSERT INTO audit_checkpoints (replica_id, seq, hash, time_us) \
         SELECT replica_id, seq, hash, time_us FROM audit AS a \
         WHERE time_us < ?1 AND seq = ( \
           SELECT max(seq) FROM audit AS b WHERE b.replica_id = a.replica_id AND b.time_us < ?1) \
         ON CONFLICT (replica_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, \
           time_us = excluded.time_us, \
           pruned_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') \
         WHERE audit_checkpoints.seq < excluded.seq",
    )
    .bind(upper)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM audit WHERE time_us < ?1")
        .bind(upper)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(report)
}
