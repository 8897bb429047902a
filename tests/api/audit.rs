//! The audit log through the real server: one row per answered evaluation, chained per replica;
//! `toolgate audit verify` names edited and deleted rows; `GET /v1/audit` filters, pages and
//! scopes by tenant; a database outage under load loses nothing; a full spool refuses.

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use toolgate::audit::store::AuditStore;
use toolgate::on_pool;
use toolgate::store::Database;

use crate::helpers::{
    Backend, TestApp, assert_error, decision_of, eventually, on_both_backends, sample, scrape,
    spawn_app_on, spawn_replica,
};
use crate::pg::PrivatePostgres;

/// A PreToolUse Bash event with its own tool use id.
pub fn bash_call(session: &str, tool_use_id: &str, command: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": session,
        "tool_use_id": tool_use_id,
        "cwd": "/tmp/p",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

/// Every audit row as the API shows it, in chain order.
pub async fn audit_rows(db: &Database) -> Vec<Value> {
    let store = AuditStore::from(db.clone());
    let mut rows = store
        .query(&Default::default(), 1_000_000)
        .await
        .expect("query the audit");
    rows.sort_by(|a, b| (&a.replica_id, a.seq).cmp(&(&b.replica_id, b.seq)));
    rows.iter().map(|row| row.to_json()).collect()
}

/// Runs `toolgate audit verify` against `database_url`; returns (exit code, stdout).
pub async fn verify_cli(database_url: &str) -> (Option<i32>, String) {
    verify_cli_with(database_url, &[]).await
}

/// Runs `toolgate audit verify ARGS` against `database_url`; returns (exit code, stdout).
pub async fn verify_cli_with(database_url: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = audit_cli(database_url, "verify", args).await;
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Runs `toolgate audit COMMAND ARGS` against `database_url`.
async fn audit_cli(database_url: &str, command: &str, args: &[&str]) -> std::process::Output {
    let url = database_url.to_owned();
    let args: Vec<String> = [command]
        .iter()
        .chain(args)
        .map(|arg| (*arg).to_owned())
        .collect();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .arg("audit")
            .args(args)
            .env("DATABASE_URL", url)
            .output()
            .expect("run toolgate audit")
    })
    .await
    .unwrap()
}

async fn count_rows(db: &Database) -> i64 {
    on_pool!(db, |pool| sqlx::query_scalar("SELECT count(*) FROM audit")
        .fetch_one(pool)
        .await
        .unwrap_or(-1))
}

/// Runs `sql` (one `$1` parameter) on the test's own connection to the server's database.
async fn execute(db: &Database, sql: &'static str, parameter: i64) {
    on_pool!(db, |pool| sqlx::query(sql)
        .bind(parameter)
        .execute(pool)
        .await
        .map(drop)
        .unwrap())
}

on_both_backends!(rule_ids_of_any_text_read_back_as_they_were_hashed);
/// Rule ids are bundle text, so they may hold any character. A batch large enough for
/// PostgreSQL's `UNNEST` insert (which joins each list on U+001F and splits it again) reads
/// back as it was hashed, and `verify` passes.
async fn rule_ids_of_any_text_read_back_as_they_were_hashed(backend: Backend) {
    use toolgate::audit::record::{Evaluation, GENESIS, Row};
    use toolgate_engine::decision::{Mode, RuleHit};
    use toolgate_engine::protocol::HookEvent;
    use toolgate_engine::{Decision, Outcome};

    let app = spawn_app_on(backend).await;
    let store = AuditStore::from(app.db.clone());
    let event = HookEvent::from_value(bash_call("s", "t", "echo x")).unwrap();
    let hit = |rule_id: &str| RuleHit {
        rule_id: rule_id.to_owned(),
        outcome: Outcome::Ask,
        mode: Mode::Enforce,
        reason: String::new(),
    };
    let decision = Decision {
        outcome: Outcome::Ask,
        matched: vec![hit("Bash(echo \u{1f}*)"), hit(""), hit("\u{1f}")],
        ..Decision::none()
    };
    let mut head = GENESIS;
    let rows: Vec<Row> = (1..=40)
        .map(|seq| {
            let mut row = Row::build(&Evaluation {
                tenant: Some("team"),
                event: &event,
                decision: &decision,
                bundles: Vec::new(),
                winner_bundle: None,
                latency_us: 1,
                failure: false,
            });
            row.replica_id = "odd-rule-ids".to_owned();
            row.seq = seq;
            row.prev_hash = head;
            row.hash = row.compute_hash();
            head = row.hash;
            row
        })
        .collect();
    store.insert(&rows).await.unwrap();
    let report = store.verify(Some("odd-rule-ids"), &[]).await.unwrap();
    assert_eq!(report.rows, 40);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

on_both_backends!(new_rows_of_any_text_go_in_whole_and_read_back_as_hashed);
/// The writer's new rows go in without a check for rows already there. Every text column holding
/// characters that SQL literals, array literals or `COPY` treat specially reads back as it was
/// hashed; a batch overlapping rows already written (a forked chain)
/// goes in without them; a row for a month with no partition yet creates it.
async fn new_rows_of_any_text_go_in_whole_and_read_back_as_hashed(backend: Backend) {
    use toolgate::audit::record::{Evaluation, GENESIS, Row};
    use toolgate_engine::decision::{Mode, RuleHit};
    use toolgate_engine::protocol::HookEvent;
    use toolgate_engine::{Decision, Outcome};

    const ODD: &str = "tab\there, new\nline, cr\r, back\\slash, \\N, \\., NULL, \"quoted\", \
                       {brace}, comma, U+001F \u{1f}, é, 😀";
    let app = spawn_app_on(backend).await;
    let store = AuditStore::from(app.db.clone());
    let mut call = bash_call(ODD, ODD, ODD);
    call["cwd"] = json!(ODD);
    call["permission_mode"] = json!(ODD);
    let event = HookEvent::from_value(call).unwrap();
    let hit = |rule_id: &str| RuleHit {
        rule_id: rule_id.to_owned(),
        outcome: Outcome::Ask,
        mode: Mode::Enforce,
        reason: ODD.to_owned(),
    };
    let decision = Decision {
        outcome: Outcome::Ask,
        reason: Some(ODD.to_owned()),
        matched: vec![hit(ODD), hit(""), hit("\\"), hit("\"")],
        ..Decision::none()
    };
    let chain = |replica: &str, seqs: std::ops::RangeInclusive<i64>, time_us: Option<i64>| {
        let mut head = GENESIS;
        let mut rows = Vec::new();
        for seq in seqs {
            let mut row = Row::build(&Evaluation {
                tenant: Some(ODD),
                event: &event,
                decision: &decision,
                // Bundles are `tenant:id:sha256`, never holding U+001F (the UNNEST insert's
                // separator), which `record` keeps out of rule ids only.
                bundles: vec![ODD.replace('\u{1f}', ""), String::new()],
                winner_bundle: (seq % 4 == 1).then(|| ODD.replace('\u{1f}', "")),
                latency_us: 1,
                failure: seq % 2 == 0,
            });
            row.replica_id = replica.to_owned();
            row.seq = seq;
            row.repeat = seq % 3 == 0;
            if let Some(time_us) = time_us {
                row.time_us = time_us;
            }
            row.prev_hash = head;
            row.hash = row.compute_hash();
            head = row.hash;
            rows.push(row);
        }
        rows
    };
    let rows = chain("odd-text", 1..=30, None);
    let mut inserter = store.inserter();
    inserter.insert_new(&rows[..20]).await.unwrap();
    // Rows 11–20 are there already: the batch goes in without them.
    inserter.insert_new(&rows[10..]).await.unwrap();
    // January 2031 has no partition yet.
    let later = chain("odd-text-later", 1..=1, Some(1_925_000_000_000_000));
    inserter.insert_new(&later).await.unwrap();

    let report = store.verify(None, &[]).await.unwrap();
    assert_eq!(report.rows, 31);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    let read = audit_rows(&app.db).await;
    let first = read
        .iter()
        .find(|row| row["replica_id"] == "odd-text" && row["seq"] == 1)
        .expect("row 1");
    assert_eq!(*first, rows[0].to_json());
    for column in [
        "tenant",
        "session_id",
        "tool_use_id",
        "reason",
        "cwd",
        "permission_mode",
    ] {
        assert_eq!(first[column], ODD, "{column}");
    }
}

on_both_backends!(every_evaluation_is_recorded_with_its_decision_bundles_and_chain);
async fn every_evaluation_is_recorded_with_its_decision_bundles_and_chain(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let bundle = json!({
        "name": "team-policy",
        "permissions": {"deny": ["Bash(git push --force:*)"]},
        "rules": [{"id": "curl-seen", "program": ["curl"], "decision": "ask",
                   "reason": "curl is watched", "mode": "warn"}],
    });
    let id = app.push("team", &bundle).await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;

    let force = bash_call("s1", "t1", "git push --force origin main");
    assert_eq!(decision_of(&app.evaluate(&agent, &force).await), "deny");
    app.evaluate(&agent, &bash_call("s1", "t2", "curl https://example.com"))
        .await;
    // The same call again: recorded, and marked as a repeat.
    assert_eq!(decision_of(&app.evaluate(&agent, &force).await), "deny");

    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let first = &rows[0];
    assert_eq!(first["tenant"], "team");
    assert_eq!(first["agent"], "claude-code");
    assert_eq!(first["session_id"], "s1");
    assert_eq!(first["tool_use_id"], "t1");
    assert_eq!(first["event"], "PreToolUse");
    assert_eq!(first["tool"], "Bash");
    assert_eq!(first["decision"], "deny");
    assert_eq!(first["mode"], "enforced");
    assert_eq!(first["winner"], "Bash(git push --force:*)");
    assert_eq!(first["rules"], json!(["Bash(git push --force:*)"]));
    assert_eq!(first["cwd"], "/tmp/p");
    assert_eq!(first["permission_mode"], "default");
    assert_eq!(
        first["input"],
        json!({"tool_input": {"command": "git push --force origin main"}})
    );
    assert_eq!(first["bundles"][0]["tenant"], "team");
    assert_eq!(first["bundles"][0]["id"], id);
    assert_eq!(first["bundles"][0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(first["replica_id"], app.replica_id.as_str());
    assert_eq!(first["repeat"], false);
    assert_eq!(first["failure"], false);
    let curl = &rows[1];
    assert_eq!(curl["mode"], "shadow");
    assert_eq!(curl["decision"], "none");
    assert_eq!(curl["shadow_decision"], "ask");
    assert_eq!(curl["shadow_rules"], json!(["curl-seen"]));
    assert_eq!(rows[2]["repeat"], true);
    let seqs: Vec<i64> = rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, vec![1, 2, 3]);
    assert_eq!(rows[1]["prev_hash"], rows[0]["hash"]);
    assert_eq!(rows[2]["prev_hash"], rows[1]["hash"]);
    // The database took them: nothing went through the spool.
    let metrics = app.state().metrics.audit();
    assert_eq!(metrics.rows_written.get(), 3);
    assert_eq!(metrics.rows_spooled.get(), 0);
    assert_eq!(metrics.spool_bytes.get(), 0);

    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("3 rows"), "{out}");
}

on_both_backends!(the_row_names_the_bundle_whose_rule_won);
/// The tenant's bundle and `global`'s both hold a rule `guard`: the row says which one decided,
/// and the chain still verifies (rows with a winner bundle are hashed as `v2`).
async fn the_row_names_the_bundle_whose_rule_won(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let guard = |decision: &str, programs: &[&str]| {
        json!({"name": "b", "rules": [
            {"id": "guard", "program": programs, "decision": decision, "reason": "guarded"},
        ]})
    };
    let team = app.push("team", &guard("ask", &["curl", "wget"])).await;
    let global = app.push("global", &guard("deny", &["curl"])).await;
    for (tenant, id) in [("team", team), ("global", global)] {
        let activation = app.activate(tenant, id).await;
        app.wait_served(tenant, activation).await;
    }

    // global's deny beats team's ask; team's ask is the only answer for wget; ls has none.
    let calls = [
        ("curl https://example.com", "deny"),
        ("wget https://example.com", "ask"),
        ("ls", "none"),
    ];
    for (n, (command, decision)) in calls.iter().enumerate() {
        let call = bash_call("s1", &format!("t{n}"), command);
        assert_eq!(decision_of(&app.evaluate(&agent, &call).await), *decision);
    }

    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let winners: Vec<(&Value, &Value)> = rows
        .iter()
        .map(|row| (&row["winner"], &row["winner_bundle"]))
        .collect();
    assert_eq!(*winners[0].0, "guard");
    assert_eq!(winners[0].1["tenant"], "global");
    assert_eq!(winners[0].1["id"], global);
    assert_eq!(*winners[1].0, "guard");
    assert_eq!(winners[1].1["tenant"], "team");
    assert_eq!(winners[1].1["id"], team);
    assert_eq!(*winners[2].1, Value::Null);
    for row in &rows {
        if !row["winner_bundle"].is_null() {
            assert!(
                row["bundles"]
                    .as_array()
                    .unwrap()
                    .contains(&row["winner_bundle"]),
                "{row}"
            );
        }
    }
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(0), "{out}");

    // Editing which bundle decided breaks the chain at that row.
    execute(
        &app.db,
        "UPDATE audit SET winner_bundle = NULL WHERE seq = $1",
        1,
    )
    .await;
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(1), "{out}");
    let edited = rows[0]["id"].as_str().unwrap();
    assert!(out.contains(&format!("edited: row {edited}")), "{out}");
}

on_both_backends!(an_export_verifies_without_the_database);
/// `GET /v1/audit?format=jsonl` gives a file that `toolgate audit verify --export` checks with no
/// database at all: whole, it verifies; an edited line, a line taken out and a line that is no
/// row are each named.
async fn an_export_verifies_without_the_database(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let auditor = app.create_token("auditor", "team").await;
    let id = app
        .push("team", &json!({"name": "b", "include": ["baseline"]}))
        .await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    // Inputs that must come back byte for byte: numbers, escapes, text beyond ASCII.
    let write = json!({
        "hook_event_name": "PreToolUse", "session_id": "s", "tool_use_id": "w",
        "cwd": "/tmp/p", "tool_name": "Write",
        "tool_input": {"file_path": "/tmp/p/ä.txt", "content": "line\n\"q\" ✓ \u{1}",
                       "mode": 420, "ratio": 0.5, "big": 1e300, "neg": -0.0},
    });
    app.evaluate(&agent, &write).await;
    for (n, command) in ["ls", "rm -rf ~", "git status"].iter().enumerate() {
        app.evaluate(&agent, &bash_call("s", &format!("t{n}"), command))
            .await;
    }
    let response = get_audit(&app, &auditor, "?format=jsonl").await;
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");

    let dir = tempfile::tempdir().unwrap();
    let nowhere = "postgres://nobody@127.0.0.1:1/none";
    let verify = async |name: &str, content: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        verify_cli_with(nowhere, &["--export", path.to_str().unwrap()]).await
    };
    let (code, out) = verify("whole.jsonl", text.clone()).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("4 rows in 1 replica chain verified"), "{out}");

    // Newest first: line 2 is the third row.
    let row: Value = serde_json::from_str(lines[1]).unwrap();
    let edited = lines[1].replace("\"decision\":\"deny\"", "\"decision\":\"allow\"");
    assert_ne!(edited, lines[1], "the third row is the denied `rm -rf ~`");
    let (code, out) = verify(
        "edited.jsonl",
        [lines[0], &edited, lines[2], lines[3]].join("\n"),
    )
    .await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("edited: row {}", row["id"].as_str().unwrap())),
        "{out}"
    );

    let (code, out) = verify("holed.jsonl", [lines[0], lines[2], lines[3]].join("\n")).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("gap"), "{out}");

    let (code, out) = verify("junk.jsonl", format!("{text}{{\"id\": 7}}\n")).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("line 5 is not an audit row: `id` must be a string"),
        "{out}"
    );
}

/// Runs `toolgate audit replay ARGS` against `database_url`; returns (exit code, stdout and
/// stderr).
async fn replay_cli(database_url: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = audit_cli(database_url, "replay", args).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned() + &stderr,
    )
}

on_both_backends!(replay_shows_what_a_candidate_would_change);
/// A candidate bundle replayed over the tenant's audit: the calls it decides otherwise are
/// counted and listed, `global`'s live bundle still applies beside it, truncated inputs and
/// other tenants' rows are left out, and an identical candidate changes nothing.
async fn replay_shows_what_a_candidate_would_change(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let other = app.create_token("agent", "other").await;
    let live = json!({"name": "live", "rules": [
        {"id": "no-rm", "program": ["rm"], "decision": "deny", "reason": "no rm"},
    ]});
    let org = json!({"name": "org", "rules": [
        {"id": "no-dd", "program": ["dd"], "decision": "deny", "reason": "no dd"},
    ]});
    for (tenant, bundle) in [("team", &live), ("global", &org)] {
        let id = app.push(tenant, bundle).await;
        let activation = app.activate(tenant, id).await;
        app.wait_served(tenant, activation).await;
    }
    for (n, command) in [
        "rm -rf build",
        "curl https://example.com",
        "ls",
        "dd if=/dev/zero of=x",
    ]
    .iter()
    .enumerate()
    {
        app.evaluate(&agent, &bash_call("s", &format!("t{n}"), command))
            .await;
    }
    app.evaluate(&other, &bash_call("s", "o1", "curl https://example.com"))
        .await;
    let huge = json!({
        "hook_event_name": "PreToolUse", "session_id": "s", "tool_use_id": "w",
        "cwd": "/tmp/p", "tool_name": "Write",
        "tool_input": {"file_path": "/tmp/p/a", "content": "x".repeat(10_000)},
    });
    app.evaluate(&agent, &huge).await;

    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bundle: &Value| {
        let path = dir.path().join(name);
        std::fs::write(&path, bundle.to_string()).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let candidate = write(
        "candidate.json",
        &json!({"name": "candidate", "rules": [
            {"id": "curl-asks", "program": ["curl"], "decision": "ask", "reason": "curl?"},
        ]}),
    );
    let (code, out) = replay_cli(&app.database_url, &["--tenant", "team", &candidate]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("replayed 5 rows of tenant `team`"), "{out}");
    assert!(out.contains("2 unchanged, 2 changed"), "{out}");
    assert!(out.contains("deny -> none: 1"), "{out}");
    assert!(out.contains("none -> ask: 1"), "{out}");
    assert!(out.contains("skipped 1 with a truncated input"), "{out}");
    assert!(out.contains("rm -rf build  deny (no-rm) -> none"), "{out}");
    assert!(
        out.contains("curl https://example.com  none -> ask (curl-asks)"),
        "{out}"
    );

    let (code, out) = replay_cli(
        &app.database_url,
        &["--tenant", "team", "--json", "--fail-on-change", &candidate],
    )
    .await;
    assert_eq!(code, Some(1), "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["changed"], 2, "{report}");
    let changes = report["changes"].as_array().unwrap();
    assert!(
        changes.iter().all(|change| change["tenant"] == "team"
            && change["before"]["decision"] != change["after"]["decision"]),
        "{report}"
    );

    let same = write("same.json", &live);
    let (code, out) = replay_cli(
        &app.database_url,
        &["--tenant", "team", "--fail-on-change", &same],
    )
    .await;
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("4 unchanged, 0 changed"), "{out}");
}

on_both_backends!(replay_pages_stands_in_for_global_and_counts_what_it_cannot_compare);
/// A `global` candidate replays every tenant's rows in `global`'s place; a tenant with no live
/// bundle of its own gets the candidate beside `global`'s; more rows than a page are read and
/// `--limit` stops them; a row naming a bundle that is gone is counted, and fails the gate.
async fn replay_pages_stands_in_for_global_and_counts_what_it_cannot_compare(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let team = app.create_token("agent", "team").await;
    let other = app.create_token("agent", "other").await;
    let org = json!({"name": "org", "rules": [
        {"id": "no-dd", "program": ["dd"], "decision": "deny", "reason": "no dd"},
    ]});
    let id = app.push("global", &org).await;
    let activation = app.activate("global", id).await;
    app.wait_served("global", activation).await;
    for n in 0..260 {
        let command = if n % 2 == 0 {
            "dd if=/dev/zero of=x"
        } else {
            "ls"
        };
        app.evaluate(&team, &bash_call("s", &format!("t{n}"), command))
            .await;
    }
    app.evaluate(&other, &bash_call("s", "o", "dd if=/dev/zero of=y"))
        .await;

    let dir = tempfile::tempdir().unwrap();
    let candidate = dir.path().join("candidate.json");
    std::fs::write(&candidate, json!({"name": "candidate"}).to_string()).unwrap();
    let candidate = candidate.to_str().unwrap();

    // `global`'s bundle replaced by one without its rule: every dd of every tenant changes.
    let (code, out) = replay_cli(
        &app.database_url,
        &["--tenant", "global", "--json", candidate],
    )
    .await;
    assert_eq!(code, Some(0), "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (report["rows"].as_u64(), report["changed"].as_u64()),
        (Some(261), Some(131)),
        "{report}"
    );
    // `team` has no bundle of its own: the candidate goes beside `global`'s, which still denies.
    let (code, out) = replay_cli(
        &app.database_url,
        &["--tenant", "team", "--json", "--limit", "255", candidate],
    )
    .await;
    assert_eq!(code, Some(0), "{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (report["rows"].as_u64(), report["changed"].as_u64()),
        (Some(255), Some(0)),
        "{report}"
    );

    // A row that names a bundle the store does not have cannot be compared.
    let gone = match backend {
        Backend::Postgres => "UPDATE audit SET bundles = ARRAY['global:999:ab'] WHERE seq = $1",
        Backend::Sqlite => "UPDATE audit SET bundles = '[\"global:999:ab\"]' WHERE seq = $1",
    };
    execute(&app.db, gone, 1).await;
    let (code, out) = replay_cli(
        &app.database_url,
        &["--tenant", "team", "--fail-on-change", candidate],
    )
    .await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("skipped 1 naming a bundle that no longer loads"),
        "{out}"
    );
    assert!(out.contains("error: 1 row could not be compared"), "{out}");
}

on_both_backends!(the_replay_endpoint_reports_to_the_tenants_admin_only);
/// `POST /v1/tenants/{tenant}/replay` answers the report the CLI prints, to an admin of the
/// tenant; other roles and tenants are refused, a bad bundle is a 422 naming its error, a bad
/// parameter a 400 naming it, and a second replay while one runs a 429.
async fn the_replay_endpoint_reports_to_the_tenants_admin_only(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let admin = app.create_token("admin", "team").await;
    let other_admin = app.create_token("admin", "other").await;
    let id = app
        .push(
            "team",
            &json!({"name": "live", "permissions": {"deny": ["Bash(rm:*)"]}}),
        )
        .await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    for (n, command) in ["rm -rf build", "curl https://example.com", "ls"]
        .iter()
        .enumerate()
    {
        app.evaluate(&agent, &bash_call("s", &format!("t{n}"), command))
            .await;
    }
    let candidate = json!({"name": "candidate", "permissions": {"ask": ["Bash(curl:*)"]}});
    let replay = async |token: &str, query: &str, body: &Value| {
        app.client
            .post(app.url(&format!("/v1/tenants/team/replay{query}")))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .unwrap()
    };

    let response = replay(&admin, "?show=1", &candidate).await;
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!(report["rows"], 3, "{report}");
    assert_eq!(report["unchanged"], 1, "{report}");
    assert_eq!(report["changed"], 2, "{report}");
    assert_eq!(
        report["transitions"],
        json!([{"from": "none", "to": "ask", "count": 1}, {"from": "deny", "to": "none", "count": 1}])
    );
    let changes = report["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "`show` lists one: {report}");
    assert_eq!(
        changes[0]["input"]["tool_input"]["command"],
        "curl https://example.com"
    );
    assert_eq!(changes[0]["after"]["winner"], "Bash(curl:*)");

    for token in [&agent, &other_admin] {
        let response = replay(token, "", &candidate).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
    }
    let response = replay(&admin, "", &json!({"name": "bad", "rules": [{"id": "x"}]})).await;
    let message = assert_error(response, StatusCode::UNPROCESSABLE_ENTITY, "invalid_bundle").await;
    assert!(message.contains("nothing was replayed"), "{message}");
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?since=yesterday", "since"),
        ("?sort=up", "sort"),
    ] {
        let response = replay(&admin, query, &candidate).await;
        let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;
        assert!(
            message.contains(&format!("`{field}`")),
            "{query}: {message}"
        );
    }
    // The server runs in this process: its one replay permit is taken here.
    let running = std::sync::Arc::clone(&app.state().replays)
        .try_acquire_owned()
        .unwrap();
    let response = replay(&admin, "", &candidate).await;
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "busy").await;
    drop(running);
    app.assert_healthy().await;
}

on_both_backends!(a_credential_the_reason_quotes_is_masked_in_the_row);
/// The baseline pack's reason names the path it refuses to remove: a credential in that path
/// is masked in the row's reason, as in its input (the agent's own answer keeps it).
async fn a_credential_the_reason_quotes_is_masked_in_the_row(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let id = app
        .push("team", &json!({"name": "b", "include": ["baseline"]}))
        .await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    // Assembled at run time; shaped like a classic personal access token.
    let token: String = (0..36)
        .map(|i| char::from(b"aZ3kQ9xLm2"[(i * 7 + 3) % 10]))
        .collect();
    let token = format!("ghp_{token}");
    let call = bash_call("s", "t", &format!("rm -rf /home/u/{token}"));
    let reply = app.evaluate(&agent, &call).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 1);
    let row = rows[0].to_string();
    assert!(!row.contains(&token), "{row}");
    let reason = rows[0]["reason"].as_str().unwrap();
    assert!(reason.contains("[REDACTED:"), "{reason}");
}

on_both_backends!(failure_answers_are_audited_too);
async fn failure_answers_are_audited_too(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    // A non-gating event is answered `{}`; a gate with nothing live is `none`: both recorded.
    app.evaluate(&agent, &bash_call("s", "t", "ls")).await;
    app.evaluate(
        &agent,
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hello"}),
    )
    .await;
    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["event"], "UserPromptSubmit");
    assert_eq!(rows[1]["input"], json!({"prompt": "hello"}));
    // An unknown token while the database cannot check it is a failure answer (covered with a
    // stopped database in `a_database_outage_under_load_loses_no_answered_evaluation`).
}

/// A server on a fresh store of `backend` that has answered `n` evaluations, and their rows.
async fn app_with_rows(backend: Backend, n: usize) -> (TestApp, Vec<Value>) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    for i in 0..n {
        app.evaluate(&agent, &bash_call("s", &format!("t{i}"), "ls"))
            .await;
    }
    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), n);
    (app, rows)
}

on_both_backends!(verify_names_an_edited_row_and_a_deleted_row);
async fn verify_names_an_edited_row_and_a_deleted_row(backend: Backend) {
    let (app, rows) = app_with_rows(backend, 6).await;
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(0), "{out}");

    // Edit row 2's decision.
    let edited = rows[1]["id"].as_str().unwrap().to_owned();
    execute(
        &app.db,
        "UPDATE audit SET decision = 'allow' WHERE seq = $1",
        2,
    )
    .await;
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains(&format!("edited: row {edited}")), "{out}");
    execute(
        &app.db,
        "UPDATE audit SET decision = 'none' WHERE seq = $1",
        2,
    )
    .await;
    assert_eq!(verify_cli(&app.database_url).await.0, Some(0));

    // Delete row 4: a gap between rows 3 and 5.
    execute(&app.db, "DELETE FROM audit WHERE seq = $1", 4).await;
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(1), "{out}");
    let (before, after) = (
        rows[2]["id"].as_str().unwrap(),
        rows[4]["id"].as_str().unwrap(),
    );
    assert!(
        out.contains(&format!(
            "seq 4 is missing, between row {before} and row {after}"
        )),
        "{out}"
    );
}

on_both_backends!(verify_catches_a_truncated_tail_against_a_head_known_elsewhere);
/// Deleting a chain's newest rows leaves no gap and no broken link, so `verify` alone passes;
/// against the head the metric exported, or the one the replica's spool directory keeps, it
/// names the replica and the missing seqs.
async fn verify_catches_a_truncated_tail_against_a_head_known_elsewhere(backend: Backend) {
    let (app, rows) = app_with_rows(backend, 5).await;
    let replica = app.replica_id.as_str();
    let text = scrape(&app, &app.address).await;
    let seq = sample(
        &text,
        "toolgate_audit_chain_head_seq",
        &[("replica", replica)],
    );
    assert_eq!(seq, Some(5.0), "{text}");
    let hash = rows[4]["hash"].as_str().unwrap();
    let spool = app.spool_dir.to_str().unwrap();
    let witnesses = [
        format!("--expect-head={replica}=5"),
        format!("--expect-head={replica}=5:{hash}"),
        format!("--spool-dir={spool}"),
    ];
    for witness in &witnesses {
        let (code, out) = verify_cli_with(&app.database_url, &[witness]).await;
        assert_eq!(code, Some(0), "{witness}: {out}");
        assert!(out.contains("and 1 expected head reached"), "{out}");
    }
    // Checking one replica, a head of another is refused.
    let (code, _) =
        verify_cli_with(&app.database_url, &["--replica", "other", &witnesses[0]]).await;
    assert_eq!(code, Some(1));
    // A replica id with a typo in it checks nothing: that is a failure, not "ok: 0 rows".
    let (code, out) = verify_cli_with(&app.database_url, &["--replica", replica]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("ok: 5 rows in 1 replica chain verified"),
        "{out}"
    );
    let typo = format!("{replica}x");
    let (code, out) = verify_cli_with(&app.database_url, &["--replica", &typo]).await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.starts_with(&format!(
            "unknown replica: no audit row or pruned checkpoint of replica `{typo}`"
        )),
        "{out}"
    );

    execute(&app.db, "DELETE FROM audit WHERE seq > $1", 3).await;
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(
        code,
        Some(0),
        "a cut tail is invisible to the chain itself: {out}"
    );
    let last = rows[2]["id"].as_str().unwrap();
    for witness in &witnesses {
        let (code, out) = verify_cli_with(&app.database_url, &[witness]).await;
        assert_eq!(code, Some(1), "{witness}: {out}");
        assert!(
            out.contains(&format!(
                "truncated: replica `{replica}` ends at row {last} (seq 3), before its expected \
                 head at seq 5: seqs 4..=5 are missing"
            )),
            "{witness}: {out}"
        );
    }
}

on_both_backends!(prune_drops_old_months_and_verify_starts_from_the_checkpoint);
async fn prune_drops_old_months_and_verify_starts_from_the_checkpoint(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    for i in 0..4 {
        app.evaluate(&agent, &bash_call("s", &format!("t{i}"), "ls"))
            .await;
    }
    // Move the first two rows (and their month) into the past by rewriting them through the
    // writer's own encoding: re-insert them as an old month's rows with recomputed hashes.
    let store = AuditStore::from(app.db.clone());
    let mut rows = store.query(&Default::default(), 100).await.unwrap();
    rows.sort_by_key(|row| row.seq);
    let old = chrono::DateTime::parse_from_rfc3339("2020-01-15T00:00:00Z")
        .unwrap()
        .timestamp_micros();
    execute(&app.db, "DELETE FROM audit WHERE seq > $1", 0).await;
    let mut prev = toolgate::audit::record::GENESIS;
    for (i, row) in rows.iter_mut().enumerate() {
        if i < 2 {
            row.time_us = old + i as i64;
        }
        row.prev_hash = prev;
        row.hash = row.compute_hash();
        prev = row.hash;
    }
    store.insert(&rows).await.unwrap();
    assert_eq!(verify_cli(&app.database_url).await.0, Some(0));

    let output = tokio::task::spawn_blocking({
        let url = app.database_url.clone();
        move || {
            Command::new(env!("CARGO_BIN_EXE_toolgate"))
                .args(["audit", "prune", "--older-than", "30d"])
                .env("DATABASE_URL", url)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("dropped audit_y2020m01"), "{out}");
    assert_eq!(count_rows(&app.db).await, 2);
    // The kept rows start at seq 3: not a gap, thanks to the checkpoint.
    let (code, out) = verify_cli(&app.database_url).await;
    assert_eq!(code, Some(0), "{out}");
}

async fn get_audit(app: &TestApp, token: &str, query: &str) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/v1/audit{query}")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

async fn get_rows(app: &TestApp, token: &str, query: &str) -> Value {
    let response = get_audit(app, token, query).await;
    assert_eq!(response.status(), StatusCode::OK, "{query}");
    response.json().await.unwrap()
}

on_both_backends!(get_audit_filters_pages_and_keeps_tenants_apart);
async fn get_audit_filters_pages_and_keeps_tenants_apart(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent_a = app.create_token("agent", "team-a").await;
    let agent_b = app.create_token("agent", "team-b").await;
    let auditor_a = app.create_token("auditor", "team-a").await;
    let auditor_global = app.create_token("auditor", "global").await;
    let admin_b = app.create_token("admin", "team-b").await;
    let id = app
        .push(
            "team-a",
            &json!({"name": "a", "permissions": {"deny": ["Bash(rm:*)"]}}),
        )
        .await;
    let activation = app.activate("team-a", id).await;
    app.wait_served("team-a", activation).await;
    for i in 0..5 {
        app.evaluate(&agent_a, &bash_call("sa", &format!("a{i}"), "ls"))
            .await;
    }
    app.evaluate(&agent_a, &bash_call("sa2", "a-rm", "rm -r x"))
        .await;
    for i in 0..3 {
        app.evaluate(&agent_b, &bash_call("sb", &format!("b{i}"), "ls"))
            .await;
    }

    // An agent token may not read the audit.
    assert_error(
        get_audit(&app, &agent_a, "").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    )
    .await;
    // Another tenant's rows: 403 when asked for, never visible otherwise.
    assert_error(
        get_audit(&app, &auditor_a, "?tenant=team-b").await,
        StatusCode::FORBIDDEN,
        "forbidden",
    )
    .await;
    let own = get_rows(&app, &auditor_a, "").await;
    let own = own["rows"].as_array().unwrap();
    assert_eq!(own.len(), 6);
    assert!(own.iter().all(|row| row["tenant"] == "team-a"));
    let b = get_rows(&app, &admin_b, "").await;
    assert_eq!(b["rows"].as_array().unwrap().len(), 3);
    assert!(
        b["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|row| row["tenant"] == "team-b")
    );
    let all = get_rows(&app, &auditor_global, "").await;
    assert_eq!(all["rows"].as_array().unwrap().len(), 9);
    let only_b = get_rows(&app, &auditor_global, "?tenant=team-b").await;
    assert_eq!(only_b["rows"].as_array().unwrap().len(), 3);

    // Filters.
    let denied = get_rows(&app, &auditor_a, "?decision=deny").await;
    let denied = denied["rows"].as_array().unwrap();
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["tool_use_id"], "a-rm");
    let by_rule = get_rows(&app, &auditor_global, "?rule=Bash(rm:*)").await;
    assert_eq!(by_rule["rows"].as_array().unwrap().len(), 1);
    let by_session = get_rows(&app, &auditor_global, "?session_id=sb").await;
    assert_eq!(by_session["rows"].as_array().unwrap().len(), 3);
    let by_tool = get_rows(&app, &auditor_global, "?tool=Read").await;
    assert_eq!(by_tool["rows"].as_array().unwrap().len(), 0);
    // Every row here is a Claude Code PreToolUse; an agent's alias reads as its agent.
    for (query, count) in [
        ("?event=PreToolUse", 9),
        ("?event=UserPromptSubmit", 0),
        ("?agent=claude", 9),
        ("?agent=cursor&event=PreToolUse", 0),
    ] {
        let rows = get_rows(&app, &auditor_global, query).await;
        assert_eq!(rows["rows"].as_array().unwrap().len(), count, "{query}");
    }
    let future = get_rows(&app, &auditor_global, "?since=2999-01-01T00:00:00Z").await;
    assert_eq!(future["rows"].as_array().unwrap().len(), 0);
    let past = get_rows(&app, &auditor_global, "?until=2000-01-01T00:00:00Z").await;
    assert_eq!(past["rows"].as_array().unwrap().len(), 0);

    // Keyset pages of 2 walk every row once, newest first.
    let mut seen = Vec::new();
    let mut query = "?limit=2".to_owned();
    loop {
        let page = get_rows(&app, &auditor_global, &query).await;
        let rows = page["rows"].as_array().unwrap();
        assert!(rows.len() <= 2);
        seen.extend(
            rows.iter()
                .map(|row| row["id"].as_str().unwrap().to_owned()),
        );
        match page["next_cursor"].as_str() {
            Some(cursor) => query = format!("?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 9);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 9);
    let newest_first: Vec<String> = all["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(seen, newest_first);

    // JSON Lines export of the filtered log.
    let response = get_audit(&app, &auditor_a, "?format=jsonl").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/jsonl");
    let text = response.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|row| row["tenant"] == "team-a"));

    // Bad parameters are named: 400s, never the database's error as a 500.
    let dashes = format!("?cursor={}", hex::encode(format!("0:{}", "-".repeat(36))));
    let no_dashes = format!("?cursor={}", hex::encode(format!("0:{}", "a".repeat(36))));
    // A time chrono reads but PostgreSQL refuses (before 4713 BC): not the database's 500.
    let ancient = format!(
        "?cursor={}",
        hex::encode("-1000000000000000000:0193a0e4-2b3c-7d4e-8f60-123456789abc")
    );
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=abc", "limit"),
        ("?since=", "since"),
        ("?decision=block", "decision"),
        ("?agent=robot", "agent"),
        ("?since=yesterday", "since"),
        ("?cursor=zz", "cursor"),
        (dashes.as_str(), "cursor"),
        (no_dashes.as_str(), "cursor"),
        (ancient.as_str(), "cursor"),
        ("?tool=%00", "tool"),
        ("?session_id=a%00b", "session_id"),
        ("?rule=%00", "rule"),
        ("?format=csv", "format"),
        ("?colour=red", "colour"),
    ] {
        let message = assert_error(
            get_audit(&app, &auditor_global, query).await,
            StatusCode::BAD_REQUEST,
            "invalid_query",
        )
        .await;
        assert!(
            message.contains(&format!("`{field}`")),
            "{query}: {message}"
        );
    }
    // An offset's `+` left unescaped arrives as a space: the message says so.
    let message = assert_error(
        get_audit(&app, &auditor_global, "?since=2026-11-01T00:00:00+01:00").await,
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
    assert!(message.contains("write it `%2B`"), "{message}");
    // Text filters are bounded in characters, as openapi.yaml's `maxLength: 512` counts them.
    let wide = "%C3%A9".repeat(512);
    let page = get_rows(&app, &auditor_global, &format!("?rule={wide}")).await;
    assert_eq!(
        page["rows"],
        json!([]),
        "512 two-byte characters are a rule id"
    );
    let message = assert_error(
        get_audit(&app, &auditor_global, &format!("?rule={wide}e")).await,
        StatusCode::BAD_REQUEST,
        "invalid_query",
    )
    .await;
    assert_eq!(message, "`rule` is longer than 512 characters");
    assert_error(
        get_audit(&app, &auditor_global, "?tenant=Bad!").await,
        StatusCode::BAD_REQUEST,
        "invalid_tenant",
    )
    .await;
}

/// N evaluations from concurrent clients at full speed, with PostgreSQL stopped (immediate)
/// for 10 s in the middle: every answered evaluation has a row, each client's rows are in its
/// request order along the replica's chain, and verify passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_outage_under_load_loses_no_answered_evaluation() {
    const CLIENTS: usize = 8;
    const BEFORE: usize = 300;
    /// How long the database stays down while the clients keep firing (the scenario).
    const OUTAGE: Duration = Duration::from_secs(10);
    const AFTER: usize = 300;
    let pg = std::sync::Arc::new(PrivatePostgres::start());
    let app = std::sync::Arc::new(spawn_replica(&pg.url(), |_| {}).await);
    let agent = app.create_token("agent", "team").await;
    app.evaluate(&agent, &bash_call("warm", "warm", "ls")).await;

    let fired = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let halt = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Clients fire until the shared counter passes `until` or `halt` is raised.
    let phase = |until: usize| {
        let mut clients = Vec::new();
        for client in 0..CLIENTS {
            let app = app.clone();
            let agent = agent.clone();
            let fired = fired.clone();
            let halt = halt.clone();
            clients.push(tokio::spawn(async move {
                let mut answered = Vec::new();
                loop {
                    if halt.load(std::sync::atomic::Ordering::Relaxed) {
                        return answered;
                    }
                    let n = fired.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if n >= until {
                        return answered;
                    }
                    let id = format!("c{client}-{n}");
                    let response = app
                        .evaluate_raw(
                            Some(&agent),
                            serde_json::to_vec(&bash_call(&format!("c{client}"), &id, "ls"))
                                .unwrap(),
                        )
                        .await;
                    assert_eq!(response.status(), StatusCode::OK);
                    let reply: Value = response.json().await.unwrap();
                    assert_eq!(reply, json!({}), "no evaluation may be refused: {reply}");
                    answered.push(id);
                }
            }));
        }
        clients
    };
    let mut answered: HashMap<usize, Vec<String>> = HashMap::new();
    let collect = |answered: &mut HashMap<usize, Vec<String>>, ids: Vec<String>| {
        for id in ids {
            let client: usize = id[1..id.find('-').unwrap()].parse().unwrap();
            answered.entry(client).or_default().push(id);
        }
    };
    // Before: the database is up. Then stop it while clients keep firing.
    let before = phase(BEFORE);
    for client in before {
        collect(&mut answered, client.await.unwrap());
    }
    let during = phase(usize::MAX);
    let stopper = {
        let pg = pg.clone();
        tokio::task::spawn_blocking(move || pg.stop())
    };
    stopper.await.unwrap();
    // The outage lasts OUTAGE of full-speed evaluations (a scenario length, not a wait for
    // anything: the clients run all along).
    tokio::time::sleep(OUTAGE).await;
    halt.store(true, std::sync::atomic::Ordering::Relaxed);
    for client in during {
        collect(&mut answered, client.await.unwrap());
    }
    halt.store(false, std::sync::atomic::Ordering::Relaxed);
    let spooled = app.state().metrics.audit().rows_spooled.get();
    assert!(
        spooled > 0,
        "rows went to the spool while the database was down"
    );
    {
        let pg = pg.clone();
        tokio::task::spawn_blocking(move || pg.start_server())
            .await
            .unwrap();
    }
    let after = phase(fired.load(std::sync::atomic::Ordering::Relaxed) + AFTER);
    for client in after {
        collect(&mut answered, client.await.unwrap());
    }
    // The counted phases end when the shared counter passes their mark (each client overshoots
    // by one); the outage ran for OUTAGE.
    let total: usize = answered.values().map(Vec::len).sum();
    assert!(
        total >= BEFORE + AFTER + spooled as usize - 2 * CLIENTS,
        "{total}"
    );
    assert_eq!(app.state().metrics.audit().refused_evaluations.get(), 0);

    eventually(
        Duration::from_secs(60),
        "every answered evaluation to reach the database",
        || async { (count_rows(&app.db).await == total as i64 + 1).then_some(()) },
    )
    .await;
    let rows = audit_rows(&app.db).await;
    let seq_of: HashMap<String, i64> = rows
        .iter()
        .map(|row| {
            (
                row["tool_use_id"].as_str().unwrap().to_owned(),
                row["seq"].as_i64().unwrap(),
            )
        })
        .collect();
    for ids in answered.values() {
        let seqs: Vec<i64> = ids
            .iter()
            .map(|id| *seq_of.get(id).unwrap_or_else(|| panic!("no row for {id}")))
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[0] < w[1]),
            "a client's rows follow its request order"
        );
    }
    assert!(app.state().metrics.audit().rows_replayed.get() >= spooled);
    let (code, out) = verify_cli(&pg.url()).await;
    assert_eq!(code, Some(0), "{out}");
}

#[tokio::test]
async fn a_full_spool_refuses_evaluations_with_the_failure_decision() {
    let pg = PrivatePostgres::start();
    let app = spawn_replica(&pg.url(), |config| {
        config.audit.spool_max_bytes = 64 * 1024;
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    app.evaluate(&agent, &bash_call("s", "warm", "ls")).await;
    pg.stop();

    // Fire until the spool is full (bounded: 64 KiB holds well under 2000 rows).
    let mut recorded = 1;
    let mut refusal = None;
    for _ in 0..2000 {
        let reply = app
            .evaluate(&agent, &bash_call("s", &format!("t{recorded}"), "ls"))
            .await;
        if reply != json!({}) {
            refusal = Some(reply);
            break;
        }
        recorded += 1;
    }
    let reason = refusal.expect("the spool never filled up");
    assert_eq!(decision_of(&reason), "deny", "{reason}");
    let text = reason["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("the audit record could not be written"),
        "{text}"
    );
    let metrics = &app.state().metrics.audit();
    assert!(metrics.refused_evaluations.get() >= 1);
    assert!(metrics.rows_failed.get() >= 1);
    assert!(metrics.spool_bytes.get() > 0);

    // Back: the spool drains, evaluations are recorded again, nothing answered is missing.
    pg.start_server();
    eventually(
        Duration::from_secs(30),
        "evaluations to be recorded again",
        || async {
            let reply = app.evaluate(&agent, &bash_call("s", "again", "ls")).await;
            (reply == json!({})).then_some(())
        },
    )
    .await;
    let rows = audit_rows(&app.db).await;
    let ids: HashSet<&str> = rows
        .iter()
        .filter_map(|row| row["tool_use_id"].as_str())
        .collect();
    for n in 1..recorded {
        assert!(
            ids.contains(format!("t{n}").as_str()),
            "t{n} was answered but not recorded"
        );
    }
    let (code, out) = verify_cli(&pg.url()).await;
    assert_eq!(code, Some(0), "{out}");
}
