//! `toolgate audit replay`: what a candidate bundle would have decided on a tenant's audited
//! events, beside what the bundles live at the time decided on the same events.
//!
//! Each row is rebuilt into its event (event name, tool, the stored input, cwd, permission mode,
//! ids, agent) and evaluated twice: against the bundles the row names (the versions that were
//! live), and against the same with the tenant's bundle among them replaced by the candidate.
//! Both evaluations see the same rebuilt event, with its secrets masked and no transcript path
//! (so no home directory), so a difference between them is the candidate's doing, not what the
//! audit leaves out. Both run on this build's engine. Rows whose input was truncated, and
//! toolgate's failure decisions, are skipped and counted.

use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use toolgate_engine::protocol::{Agent, HookEvent};
use toolgate_engine::{CompiledPolicy, Decision, Outcome, evaluate};

use super::record::{BundleRef, Row};
use super::store::{AuditStore, Filter};
use crate::auth::GLOBAL_TENANT;
use crate::store::Database;
use crate::store::reload::compile_document;

/// Rows read from the database, and evaluated on a blocking thread, at a time: at most 250 inputs
/// of 64 KiB held.
const PAGE: i64 = 250;
/// Compiled bundle versions kept: rows come newest first, so the versions they name come in runs,
/// and a window naming many versions is not held compiled all at once.
const BUNDLES_KEPT: usize = 8;

/// What to replay.
pub struct Replay {
    /// The tenant whose bundle the candidate stands in for; `global` replays every tenant's rows.
    pub tenant: String,
    /// The candidate, compiled.
    pub candidate: Arc<CompiledPolicy>,
    /// Rows at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Rows before this time.
    pub until: Option<DateTime<Utc>>,
    /// Most rows replayed (newest first).
    pub limit: u64,
    /// Most changes kept for the report (all are counted).
    pub show: usize,
}

/// A row whose decision the candidate changes.
#[derive(Debug)]
pub struct Change {
    /// The row.
    pub row: Row,
    /// The decision of the bundles live at the time, on the rebuilt event.
    pub before: Decision,
    /// The decision with the candidate in the tenant's bundle's place.
    pub after: Decision,
}

/// What a replay found.
#[derive(Debug, Default)]
pub struct Report {
    /// Rows read.
    pub rows: u64,
    /// Rows both evaluations answered alike.
    pub unchanged: u64,
    /// Rows the candidate answers otherwise, by (before, after).
    pub transitions: BTreeMap<(Outcome, Outcome), u64>,
    /// The first [`Replay::show`] changes, newest first.
    pub changes: Vec<Change>,
    /// Rows skipped: their input was truncated.
    pub truncated: u64,
    /// Rows skipped: toolgate's failure decision (no bundle decided them).
    pub failures: u64,
    /// Rows skipped: a bundle they name is gone, is not the version named, or no longer loads.
    pub unavailable: u64,
    /// Rows skipped: the evaluation of their event failed (a panic in the engine).
    pub failed: u64,
    /// The oldest and newest row replayed.
    pub span: Option<(DateTime<Utc>, DateTime<Utc>)>,
}

impl Report {
    /// Rows the candidate answers otherwise.
    pub fn changed(&self) -> u64 {
        self.transitions.values().sum()
    }

    /// Adds the report of the next (older) page.
    fn add(&mut self, page: Report) {
        self.rows += page.rows;
        self.unchanged += page.unchanged;
        for (transition, count) in page.transitions {
            *self.transitions.entry(transition).or_default() += count;
        }
        self.changes.extend(page.changes);
        self.truncated += page.truncated;
        self.failures += page.failures;
        self.unavailable += page.unavailable;
        self.failed += page.failed;
        self.span = match (self.span, page.span) {
            (Some((oldest, newest)), Some((older, newer))) => {
                Some((oldest.min(older), newest.max(newer)))
            }
            (span, None) | (None, span) => span,
        };
    }
}

/// Replays `replay` over the audit in `database`. The evaluations run on the blocking pool, a
/// page of rows at a time, so that a server's runtime goes on serving; setting `cancel` stops the
/// replay within a row (its report is then partial).
pub async fn run(
    database: &Database,
    replay: &Replay,
    cancel: &Arc<AtomicBool>,
) -> Result<Report, sqlx::Error> {
    let filter = Filter {
        tenant: (replay.tenant != GLOBAL_TENANT).then(|| replay.tenant.clone()),
        since: replay.since,
        until: replay.until,
        ..Filter::default()
    };
    let mut pages = AuditStore::from(database.clone()).pages(filter, PAGE);
    let mut bundles = Bundles::new(database);
    let mut report = Report::default();
    while report.rows < replay.limit && !cancel.load(Ordering::Relaxed) {
        let Some(mut rows) = pages.next().await? else {
            break;
        };
        rows.truncate(usize::try_from(replay.limit - report.rows).unwrap_or(usize::MAX));
        let mut decided = Vec::with_capacity(rows.len());
        for row in rows {
            let live = bundles.of(&row.bundles).await?;
            decided.push((row, live));
        }
        let tenant = replay.tenant.clone();
        let candidate = Arc::clone(&replay.candidate);
        let show = replay.show.saturating_sub(report.changes.len());
        let cancel = Arc::clone(cancel);
        let page = tokio::task::spawn_blocking(move || {
            replay_page(decided, &tenant, &candidate, show, &cancel)
        })
        .await;
        // A page's task ends only by returning (panics are caught in it) or with the runtime.
        let Ok(page) = page else { break };
        report.add(page);
    }
    Ok(report)
}

/// A stored bundle, compiled, with its tenant.
type Owned = (String, Arc<CompiledPolicy>);

/// The policies a row names, each with its tenant; `None` when one is not to be had.
type Live = Option<Vec<Owned>>;

/// Replays one page of rows, each with the policies it names; keeps at most `show` changes.
fn replay_page(
    rows: Vec<(Row, Live)>,
    tenant: &str,
    candidate: &Arc<CompiledPolicy>,
    show: usize,
    cancel: &AtomicBool,
) -> Report {
    let mut report = Report::default();
    for (row, live) in rows {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        report.rows += 1;
        let time = row.time();
        report.span = Some(match report.span {
            Some((oldest, newest)) => (oldest.min(time), newest.max(time)),
            None => (time, time),
        });
        if row.failure {
            report.failures += 1;
            continue;
        }
        let Some(event) = rebuilt_event(&row) else {
            report.truncated += 1;
            continue;
        };
        let Some(live) = live else {
            report.unavailable += 1;
            continue;
        };
        // The engine catches nothing itself; the serving path catches its panics the same way.
        let decided = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let before = Decision::combine(live.iter().map(|(_, policy)| evaluate(policy, &event)));
            let after = Decision::combine(
                with_candidate(&live, tenant, candidate)
                    .iter()
                    .map(|policy| evaluate(policy, &event)),
            );
            (before, after)
        }));
        let Ok((before, after)) = decided else {
            report.failed += 1;
            continue;
        };
        if before.outcome == after.outcome && before.winner == after.winner {
            report.unchanged += 1;
            continue;
        }
        *report
            .transitions
            .entry((before.outcome, after.outcome))
            .or_default() += 1;
        if report.changes.len() < show {
            report.changes.push(Change { row, before, after });
        }
    }
    report
}

/// The policies a row was decided by, with `tenant`'s replaced by the candidate (added first,
/// or last for `global`, when the row had none of that tenant).
fn with_candidate(
    live: &[Owned],
    tenant: &str,
    candidate: &Arc<CompiledPolicy>,
) -> Vec<Arc<CompiledPolicy>> {
    let mut policies: Vec<Arc<CompiledPolicy>> = live
        .iter()
        .map(|(owner, policy)| {
            if owner == tenant {
                Arc::clone(candidate)
            } else {
                Arc::clone(policy)
            }
        })
        .collect();
    if !live.iter().any(|(owner, _)| owner == tenant) {
        if tenant == GLOBAL_TENANT {
            policies.push(Arc::clone(candidate));
        } else {
            policies.insert(0, Arc::clone(candidate));
        }
    }
    policies
}

/// The event a row records, or `None` when its input was truncated (what the agent sent is not
/// all there).
pub fn rebuilt_event(row: &Row) -> Option<HookEvent> {
    let input: Value = serde_json::from_str(&row.input).ok()?;
    if holds_truncation(&input) {
        return None;
    }
    let mut event = Map::new();
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            event.insert(key.to_owned(), value);
        }
    };
    let text = |text: &Option<String>| text.clone().map(Value::String);
    put("hook_event_name", Some(Value::String(row.event.clone())));
    put("tool_name", text(&row.tool));
    put("session_id", text(&row.session_id));
    put("tool_use_id", text(&row.tool_use_id));
    put("prompt_id", text(&row.prompt_id));
    put("cwd", text(&row.cwd));
    put("permission_mode", text(&row.permission_mode));
    for key in ["tool_input", "prompt", "tool_response"] {
        put(key, input.get(key).cloned());
    }
    let mut event = HookEvent::from_value(Value::Object(event)).ok()?;
    event.agent = Agent::parse(&row.agent).unwrap_or_default();
    Some(event)
}

/// Whether an input holds a `$truncated` stand-in anywhere.
fn holds_truncation(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$truncated") || map.values().any(holds_truncation),
        Value::Array(items) => items.iter().any(holds_truncation),
        _ => false,
    }
}

/// The stored bundles rows name, compiled, the last [`BUNDLES_KEPT`] used kept.
struct Bundles<'a> {
    database: &'a Database,
    /// By `tenant:id:sha256`, the most recently used last; `None` for one gone, of another
    /// sha256, or that no longer compiles.
    kept: VecDeque<(String, Option<Owned>)>,
}

impl<'a> Bundles<'a> {
    fn new(database: &'a Database) -> Self {
        Self {
            database,
            kept: VecDeque::with_capacity(BUNDLES_KEPT + 1),
        }
    }

    /// The compiled bundles `refs` name, each with its tenant, in order; `None` when one is not
    /// to be had. A database error is an error, not a bundle missing.
    async fn of(&mut self, refs: &[String]) -> Result<Live, sqlx::Error> {
        let mut policies = Vec::with_capacity(refs.len());
        for reference in refs {
            let at = match self.kept.iter().position(|(kept, _)| kept == reference) {
                Some(at) => at,
                None => {
                    let loaded = self.load(reference).await?;
                    if self.kept.len() == BUNDLES_KEPT {
                        self.kept.pop_front();
                    }
                    self.kept.push_back((reference.clone(), loaded));
                    self.kept.len() - 1
                }
            };
            let entry = self.kept.remove(at);
            let policy = entry.as_ref().and_then(|(_, policy)| policy.clone());
            if let Some(entry) = entry {
                self.kept.push_back(entry);
            }
            let Some(policy) = policy else {
                return Ok(None);
            };
            policies.push(policy);
        }
        Ok(Some(policies))
    }

    async fn load(&self, reference: &str) -> Result<Option<Owned>, sqlx::Error> {
        let BundleRef {
            tenant,
            id: Some(id),
            sha256,
        } = BundleRef::parse(reference)
        else {
            return Ok(None);
        };
        let Some(stored) = self.database.get_bundle(tenant, id).await? else {
            return Ok(None);
        };
        if stored.summary.sha256 != sha256 {
            return Ok(None);
        }
        let compiled = tokio::task::spawn_blocking(move || compile_document(stored.document))
            .await
            .ok()
            .and_then(Result::ok);
        Ok(compiled.map(|compiled| (tenant.to_owned(), Arc::new(compiled))))
    }
}

/// The report as JSON (`--json`).
pub fn report_json(report: &Report) -> Value {
    let decision = |decision: &Decision| json!({"decision": decision.outcome.as_str(), "winner": decision.winner, "reason": decision.reason});
    json!({
        "rows": report.rows,
        "unchanged": report.unchanged,
        "changed": report.changed(),
        "skipped": {
            "truncated": report.truncated,
            "failures": report.failures,
            "unavailable": report.unavailable,
            "failed": report.failed,
        },
        "transitions": report.transitions.iter().map(|((from, to), count)| {
            json!({"from": from.as_str(), "to": to.as_str(), "count": count})
        }).collect::<Vec<_>>(),
        "changes": report.changes.iter().map(|change| {
            let row = change.row.to_json();
            json!({
                "id": row["id"], "time": row["time"], "tenant": row["tenant"],
                "event": row["event"], "tool": row["tool"], "input": row["input"],
                "before": decision(&change.before), "after": decision(&change.after),
            })
        }).collect::<Vec<_>>(),
    })
}

/// One line naming what a row's call was: a command, a path, a prompt's start, or the input;
/// [`printable`], at most 80 characters.
pub fn summary(row: &Row) -> String {
    let input: Value = serde_json::from_str(&row.input).unwrap_or(Value::Null);
    let tool_input = &input["tool_input"];
    let text = ["command", "file_path", "path", "url", "pattern"]
        .iter()
        .find_map(|key| tool_input[key].as_str().map(str::to_owned))
        .or_else(|| input["prompt"].as_str().map(str::to_owned))
        .unwrap_or_else(|| tool_input.to_string());
    let line = printable(&text);
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`): what an agent sent must not
/// move the cursor or recolour the terminal of whoever reads a report.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}
