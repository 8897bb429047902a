//! The `toolgate` binary's database and client subcommands against a running server, on both
//! stores.

use std::process::{Command, Output};
use std::time::Duration;

use serde_json::json;

use crate::helpers::{
    Backend, bash, decision_of, eventually, on_both_backends, spawn_app, spawn_app_on,
    spawn_embedded, tool,
};

on_both_backends!(token_create_and_bundle_push_activate_rollback_work_end_to_end);

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| arg.to_string()).collect()
}

pub(crate) async fn toolgate(args: Vec<String>, env: Vec<(&'static str, String)>) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(args)
            .env_remove("TOOLGATE_TOKEN")
            .env_remove("DATABASE_URL")
            .env_remove("TOOLGATE_DATA_DIR")
            .envs(env)
            .output()
            .expect("run toolgate")
    })
    .await
    .unwrap()
}

pub(crate) fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "toolgate failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

on_both_backends!(token_list_and_revoke_work_and_the_server_refuses_a_revoked_token);
async fn token_list_and_revoke_work_and_the_server_refuses_a_revoked_token(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let database = vec![("DATABASE_URL", app.database_url.clone())];
    let create = ["token", "create", "--role", "agent", "--tenant", "team"];
    let created = toolgate(strings(&create), database.clone()).await;
    // With no live bundle, neither the tenant's nor `global`'s, nothing decides its events.
    let note = String::from_utf8_lossy(&created.stderr).into_owned();
    assert!(
        note.contains("neither tenant `team` nor `global` has a live bundle yet: its agents' events get no opinion"),
        "{note}"
    );
    let text = stdout(&created);
    let agent = text.split_whitespace().last().unwrap().to_owned();
    // "created agent token <id> for tenant …"
    let id = text.split_whitespace().nth(3).unwrap().to_owned();
    assert!(id.parse::<i64>().is_ok(), "{text}");
    let noted = [
        "token",
        "create",
        "--role",
        "agent",
        "--tenant",
        "other",
        "--description",
        "ci runner",
    ];
    stdout(&toolgate(strings(&noted), database.clone()).await);
    assert_eq!(app.evaluate(&agent, &tool("WebFetch")).await, json!({}));
    // With one live, nothing to say.
    let bundle = app
        .push("served", &crate::helpers::deny_bundle("s", "mcp__x"))
        .await;
    app.activate("served", bundle).await;
    let served = ["token", "create", "--role", "agent", "--tenant", "served"];
    let created = toolgate(strings(&served), database.clone()).await;
    assert!(created.stderr.is_empty(), "{created:?}");
    // With `global`'s live, a tenant without its own is evaluated against `global`'s alone.
    let org = app
        .push("global", &crate::helpers::deny_bundle("org", "mcp__y"))
        .await;
    app.activate("global", org).await;
    let fresh = ["token", "create", "--role", "agent", "--tenant", "fresh"];
    let created = toolgate(strings(&fresh), database.clone()).await;
    let note = String::from_utf8_lossy(&created.stderr).into_owned();
    assert!(
        note.contains("tenant `fresh` has no live bundle yet; its agents are evaluated against the `global` tenant's policy alone"),
        "{note}"
    );

    let listed = stdout(&toolgate(strings(&["token", "list"]), database.clone()).await);
    let line = |listed: &str| {
        listed
            .lines()
            .find(|line| line.starts_with(&format!("{id}\t")))
            .map(str::to_owned)
    };
    let mine = line(&listed).unwrap_or_else(|| panic!("{listed}"));
    let fields: Vec<&str> = mine.split('\t').collect();
    assert_eq!(fields[1], &agent[..10], "{mine}");
    assert_eq!(fields[2..4], ["agent", "team"], "{mine}");
    assert_eq!(fields[5], "-", "not revoked: {mine}");
    assert!(!listed.contains(&agent), "a listing never shows a token");
    assert!(
        listed.contains("\tother\t") && listed.contains("ci runner"),
        "{listed}"
    );
    let team = stdout(
        &toolgate(
            strings(&["token", "list", "--tenant", "team"]),
            database.clone(),
        )
        .await,
    );
    assert!(!team.contains("\tother\t"), "{team}");
    // Both stores write times alike (RFC 3339, UTC, milliseconds), and `--json` gives the
    // same as one object a line.
    let created = fields[4];
    assert!(
        created.len() == 24 && created.ends_with('Z') && created.as_bytes()[10] == b'T',
        "{mine}"
    );
    let json_lines = stdout(
        &toolgate(
            strings(&["token", "list", "--tenant", "team", "--json"]),
            database.clone(),
        )
        .await,
    );
    let listed: Vec<serde_json::Value> = json_lines
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let listed_mine = listed
        .iter()
        .find(|token| token["id"].as_i64() == id.parse().ok())
        .unwrap_or_else(|| panic!("{json_lines}"));
    assert_eq!(listed_mine["prefix"], json!(&agent[..10]), "{json_lines}");
    assert_eq!(listed_mine["revoked_at"], json!(null), "{json_lines}");
    assert!(
        chrono::DateTime::parse_from_rfc3339(listed_mine["created_at"].as_str().unwrap()).is_ok(),
        "{json_lines}"
    );
    let made = stdout(
        &toolgate(
            strings(&[
                "token", "create", "--role", "auditor", "--tenant", "team", "--json",
            ]),
            database.clone(),
        )
        .await,
    );
    let made: serde_json::Value = serde_json::from_str(&made).unwrap();
    assert_eq!(
        (&made["role"], &made["tenant"]),
        (&json!("auditor"), &json!("team"))
    );
    assert!(made["token"].as_str().unwrap().starts_with("tg_"), "{made}");
    assert!(made["id"].is_i64(), "{made}");

    let text = stdout(&toolgate(strings(&["token", "revoke", &id]), database.clone()).await);
    assert!(text.contains(&format!("revoked token {id}")), "{text}");
    let again = toolgate(strings(&["token", "revoke", &id]), database.clone()).await;
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains(&format!("no active token has id {id}")),
        "{stderr}"
    );
    let listed = stdout(&toolgate(strings(&["token", "list"]), database.clone()).await);
    let mine = line(&listed).unwrap();
    assert_ne!(mine.split('\t').nth(5), Some("-"), "revoked: {mine}");

    // A token that leaked is revoked by the token itself, which is never printed back.
    let leaked = made["token"].as_str().unwrap();
    let out = toolgate(strings(&["token", "revoke", leaked]), database.clone()).await;
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("revoked token {};", made["id"])),
        "{text}"
    );
    assert!(!text.contains(leaked), "{text}");
    let unknown = format!("tg_{}", "0".repeat(64));
    for (token, says) in [
        (
            unknown.as_str(),
            "error: no token of this store starts `tg_0000000`",
        ),
        (
            "tg_short",
            "neither a token id (`toolgate token list`) nor a token (`tg_` and 64 hex digits)",
        ),
    ] {
        let out = toolgate(strings(&["token", "revoke", token]), database.clone()).await;
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
    }

    eventually(
        Duration::from_secs(10),
        "the server to refuse the revoked token",
        || async {
            let reply = app.evaluate(&agent, &tool("WebFetch")).await;
            let reason = reply["hookSpecificOutput"]["permissionDecisionReason"].to_string();
            reason
                .contains("the caller was refused: unknown or revoked token")
                .then_some(())
        },
    )
    .await;
    let response = app.evaluate_raw(Some(&agent), b"{}".to_vec()).await;
    assert_eq!(response.status(), reqwest::StatusCode::UNAUTHORIZED);
}

on_both_backends!(token_create_takes_an_expiry_and_token_list_shows_it);
/// `token create --expires-in`/`--expires-at` store an expiry, said at creation and in the
/// listing; a bare number, a time past and both flags are refused before anything is stored.
async fn token_create_takes_an_expiry_and_token_list_shows_it(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let database = vec![("DATABASE_URL", app.database_url.clone())];
    let create = |extra: &[&str]| {
        let mut args = strings(&["token", "create", "--role", "agent", "--tenant", "team"]);
        args.extend(strings(extra));
        toolgate(args, database.clone())
    };
    let before = chrono::Utc::now();
    let text = stdout(&create(&["--expires-in", "90d"]).await);
    let agent = text.split_whitespace().last().unwrap().to_owned();
    let said = text
        .split(", expiring at ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("{text}"));
    let expires = chrono::DateTime::parse_from_rfc3339(said).unwrap();
    let days = (expires.with_timezone(&chrono::Utc) - before).num_days();
    assert!((89..=90).contains(&days), "{text}");
    assert_eq!(app.evaluate(&agent, &tool("WebFetch")).await, json!({}));

    let made = stdout(&create(&["--expires-at", "2999-01-31T00:00:00Z", "--json"]).await);
    let made: serde_json::Value = serde_json::from_str(&made).unwrap();
    assert_eq!(
        chrono::DateTime::parse_from_rfc3339(made["expires_at"].as_str().unwrap()).unwrap(),
        chrono::DateTime::parse_from_rfc3339("2999-01-31T00:00:00Z").unwrap(),
        "{made}"
    );
    let forever = stdout(&create(&["--json"]).await);
    let forever: serde_json::Value = serde_json::from_str(&forever).unwrap();
    assert_eq!(forever["expires_at"], json!(null), "{forever}");

    // The listing has an `expires` column (RFC 3339, UTC, milliseconds on both stores), `-` for
    // never, and `expires_at` in JSON.
    let listed = stdout(&toolgate(strings(&["token", "list"]), database.clone()).await);
    let header: Vec<&str> = listed.lines().next().unwrap().split('\t').collect();
    assert_eq!(
        header,
        [
            "id",
            "prefix",
            "role",
            "tenant",
            "created",
            "revoked",
            "expires",
            "description"
        ]
    );
    let column: Vec<&str> = listed
        .lines()
        .skip(1)
        .map(|line| line.split('\t').nth(6).unwrap())
        .collect();
    assert_eq!(column[1], "2999-01-31T00:00:00.000Z", "{listed}");
    assert_eq!(column[2], "-", "{listed}");
    assert!(
        column[0].len() == 24 && column[0].ends_with('Z'),
        "{listed}"
    );
    let json_lines =
        stdout(&toolgate(strings(&["token", "list", "--json"]), database.clone()).await);
    let first: serde_json::Value =
        serde_json::from_str(json_lines.lines().next().unwrap()).unwrap();
    assert!(first["expires_at"].is_string(), "{json_lines}");

    // An expired token is marked in the listing.
    app.create_token_expiring(
        "agent",
        "team",
        Some(chrono::Utc::now() - chrono::Duration::minutes(5)),
    )
    .await;
    let listed = stdout(&toolgate(strings(&["token", "list"]), database.clone()).await);
    let last = listed.lines().last().unwrap();
    assert!(
        last.split('\t').nth(6).unwrap().ends_with("Z (expired)"),
        "{listed}"
    );

    for (extra, says) in [
        (
            vec!["--expires-in", "90"],
            "`90` has no unit: write `90d` for days",
        ),
        (vec!["--expires-in", "0d"], "`0d` is no time at all"),
        (
            vec!["--expires-at", "2001-01-01T00:00:00Z"],
            "`--expires-at` 2001-01-01T00:00:00Z is not in the future",
        ),
        (
            vec!["--expires-in", "1d", "--expires-at", "2999-01-01T00:00:00Z"],
            "cannot be used with",
        ),
    ] {
        let out = create(&extra).await;
        assert!(!out.status.success(), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
    }
    let count = stdout(&toolgate(strings(&["token", "list", "--json"]), database.clone()).await)
        .lines()
        .count();
    assert_eq!(count, 4, "nothing stored by a refused create");
}

/// A token created after the last poll is found in the database on its first use and
/// remembered in memory; revoked before any poll saw it, the next poll drops it all the same.
#[tokio::test]
async fn a_token_revoked_before_any_poll_saw_it_is_dropped_at_the_next() {
    use std::sync::Arc;
    use toolgate::auth::{Role, TokenInfo, generate_token, hash_token};
    use toolgate::store::reload::{PolicyStore, Reloader};

    let app = spawn_app().await;
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(PolicyStore::new());
    let reloader = Reloader::new(
        app.db.clone(),
        store.clone(),
        toolgate::store::cache::Cache::new(cache.path()),
        "revocation-test".into(),
        false,
        toolgate::metrics::Metrics::new().unwrap(),
    );
    reloader.sync(None).await.unwrap();
    let hash = hash_token(&generate_token().unwrap());
    let id = app
        .db
        .insert_token(toolgate::store::NewToken::new(
            &hash, "tg_test", "agent", "team",
        ))
        .await
        .unwrap()
        .expect("stored")
        .id;
    let info = TokenInfo {
        id: Some(id),
        role: Role::Agent,
        tenant: "team".into(),
        expires_at: None,
    };
    assert!(store.remember_token(hash, Arc::new(info), store.token_reads()));
    assert!(app.db.revoke_token(id, None, None).await.unwrap());
    reloader.sync(None).await.unwrap();
    assert!(
        store.tokens().get(&hash).is_none(),
        "a revoked token stays known"
    );
}

async fn token_create_and_bundle_push_activate_rollback_work_end_to_end(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let database = vec![("DATABASE_URL", app.database_url.clone())];
    let out = toolgate(
        ["token", "create", "--role", "agent", "--tenant", "team"]
            .map(String::from)
            .to_vec(),
        database.clone(),
    )
    .await;
    let text = stdout(&out);
    let agent = text.split_whitespace().last().unwrap().to_owned();
    assert!(agent.starts_with("tg_"), "{text}");
    assert_eq!(app.evaluate(&agent, &tool("WebFetch")).await, json!({}));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bundle.yaml");
    std::fs::write(
        &file,
        "name: cli\npermissions:\n  deny: [WebFetch]\ntests:\n  - {name: fetch, tool: WebFetch, input: {url: \"https://a.example/\"}, expect: deny}\n",
    )
    .unwrap();
    let client = vec![
        ("TOOLGATE_SERVER", app.address.clone()),
        ("TOOLGATE_TENANT", "team".to_owned()),
    ];
    let with_token = |args: &[&str]| {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        all.push("--token".into());
        all.push(app.admin_token.clone());
        all
    };
    let out = toolgate(
        with_token(&["bundle", "push", file.to_str().unwrap(), "--activate"]),
        client.clone(),
    )
    .await;
    let text = stdout(&out);
    assert!(text.contains("pushed bundle `cli`"), "{text}");
    assert!(text.contains("activated bundle"), "{text}");
    let policy = app.policy("team").await;
    app.wait_served("team", policy["live"]["id"].as_i64().unwrap())
        .await;
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );

    // The list marks the live bundle; `--json` gives the same as JSON.
    let live = policy["live"]["bundle_id"].as_i64().unwrap();
    let out = toolgate(with_token(&["bundle", "list"]), client.clone()).await;
    let text = stdout(&out);
    let row = text
        .lines()
        .find(|line| line.split_whitespace().next() == Some(&live.to_string()))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("cli") && row.contains("  live (activation "),
        "{text}"
    );
    let out = toolgate(with_token(&["bundle", "list", "--json"]), client.clone()).await;
    let listed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(listed["live"]["bundle_id"], json!(live), "{listed}");
    assert_eq!(listed["bundles"][0]["name"], "cli", "{listed}");

    // A page at a time: the next page's `--cursor` is said on stderr, and lists the rest.
    let older = app
        .push("team", &crate::helpers::deny_bundle("older", "mcp__o"))
        .await;
    let newest = app
        .push("team", &crate::helpers::deny_bundle("newest", "mcp__n"))
        .await;
    let ids = |text: &str| -> Vec<i64> {
        text.lines()
            .skip(1)
            .map(|line| line.split_whitespace().next().unwrap().parse().unwrap())
            .collect()
    };
    let out = toolgate(
        with_token(&["bundle", "list", "--limit", "2"]),
        client.clone(),
    )
    .await;
    assert_eq!(ids(&stdout(&out)), [newest, older]);
    let notes = String::from_utf8_lossy(&out.stderr).into_owned();
    let (live_note, note) = notes.split_once('\n').unwrap_or_else(|| panic!("{notes}"));
    // The live bundle is the oldest, on the next page: said so, as this page marks none.
    assert!(
        live_note.starts_with(&format!("note: the live bundle, {live} (activation ")),
        "{notes}"
    );
    assert!(live_note.ends_with("), is not on this page"), "{notes}");
    let cursor = note
        .strip_prefix("note: more bundles follow: `--cursor ")
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("{note}"))
        .to_owned();
    let out = toolgate(
        with_token(&["bundle", "list", "--limit", "2", "--cursor", &cursor]),
        client.clone(),
    )
    .await;
    assert_eq!(ids(&stdout(&out)), [live]);
    assert!(out.stderr.is_empty(), "the last page: {out:?}");
    let out = toolgate(
        with_token(&["bundle", "list", "--cursor", "not a cursor"]),
        client.clone(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("`cursor` is not a cursor this API returned (invalid_query, HTTP 400)"),
        "{out:?}"
    );
    let out = toolgate(
        with_token(&["bundle", "list", "--limit", "0"]),
        client.clone(),
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "clap refuses it: {out:?}");

    // `show` prints the document, which pushes back as the same bundle.
    let out = toolgate(
        with_token(&["bundle", "show", &live.to_string()]),
        client.clone(),
    )
    .await;
    let shown: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(shown["name"], "cli", "{shown}");
    assert_eq!(shown["permissions"]["deny"], json!(["WebFetch"]), "{shown}");
    let missing = toolgate(with_token(&["bundle", "show", "999999"]), client.clone()).await;
    assert_eq!(missing.status.code(), Some(1));

    // Activating the live bundle again changes nothing, and says so.
    let id = live.to_string();
    let out = toolgate(with_token(&["bundle", "activate", &id]), client.clone()).await;
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("bundle {id} is already live for tenant `team`")),
        "{text}"
    );
    let out = toolgate(
        with_token(&["bundle", "push", file.to_str().unwrap(), "--json"]),
        client.clone(),
    )
    .await;
    let pushed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (pushed["id"].as_i64(), &pushed["created"]),
        (Some(live), &json!(false))
    );

    // A bundle with an error: exit 1, the error listed on stderr.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"name":"bad","permissions":{"deny":["Bash("]}}"#).unwrap();
    let out = toolgate(
        with_token(&["bundle", "push", bad.to_str().unwrap()]),
        client.clone(),
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("permissions.deny"));

    let out = toolgate(with_token(&["bundle", "rollback"]), client.clone()).await;
    assert_eq!(out.status.code(), Some(1), "nothing to roll back to");

    // The history: a row an activation, newest first, the live one and a rollback marked.
    let newest = newest.to_string();
    stdout(&toolgate(with_token(&["bundle", "activate", &newest]), client.clone()).await);
    stdout(&toolgate(with_token(&["bundle", "rollback"]), client.clone()).await);
    let out = toolgate(with_token(&["bundle", "history"]), client.clone()).await;
    let text = stdout(&out);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    let bundles: Vec<&str> = rows.iter().map(|row| row[1]).collect();
    assert_eq!(
        bundles,
        [live.to_string().as_str(), &newest, &live.to_string()],
        "{text}"
    );
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .ends_with(&format!("live, rollback of activation {}", rows[1][0])),
        "{text}"
    );
    let out = toolgate(with_token(&["bundle", "history", "--json"]), client).await;
    let history: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        history["activations"].as_array().unwrap().len(),
        3,
        "{history}"
    );
}

#[tokio::test]
async fn healthcheck_exits_0_on_a_ready_server_and_1_on_a_404_or_nothing() {
    let app = spawn_app().await;
    let probe = |url: String| toolgate(vec!["healthcheck".into(), "--url".into(), url], vec![]);
    assert!(probe(app.url("/readyz")).await.status.success());
    let missing = probe(app.url("/no-such-route")).await;
    assert_eq!(missing.status.code(), Some(1));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}/readyz", listener.local_addr().unwrap());
    drop(listener);
    // Without --url it probes /readyz where `serve` listens (TOOLGATE_LISTEN, an unspecified
    // address read as loopback), so the image's HEALTHCHECK follows a changed listen address.
    let port = app.address.rsplit(':').next().unwrap().to_owned();
    let listen = format!("0.0.0.0:{port}");
    let default = toolgate(strings(&["healthcheck"]), vec![("TOOLGATE_LISTEN", listen)]).await;
    assert!(default.status.success(), "{default:?}");
    let refused = probe(closed).await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("did not answer"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[tokio::test]
async fn migrate_and_token_create_default_to_the_embedded_store_in_the_data_dir() {
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap().to_owned();
    let out = toolgate(
        vec!["migrate".into(), "--data-dir".into(), data_dir.clone()],
        vec![],
    )
    .await;
    let text = stdout(&out);
    let file = data.path().join("toolgate.db");
    assert!(
        text.contains(&format!("migrations applied (sqlite:{})", file.display())),
        "{text}"
    );
    // Before any server ran on it; the data directory from the environment this time.
    let out = toolgate(
        ["token", "create", "--role", "agent", "--tenant", "team"]
            .map(String::from)
            .to_vec(),
        vec![("TOOLGATE_DATA_DIR", data_dir)],
    )
    .await;
    let text = stdout(&out);
    let agent = text.split_whitespace().last().unwrap().to_owned();
    assert!(agent.starts_with("tg_"), "{text}");

    // The server on that store accepts the token, and the starter bundle of `global` applies.
    let app = spawn_embedded(data.path(), |_| {}).await;
    let reply = app.evaluate(&agent, &bash("rm -rf ~")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert_eq!(app.evaluate(&agent, &bash("cargo test")).await, json!({}));
}

/// Pushing a directory of fragments, the warnings name the fragment and the place in it, not
/// the place in the merged document the server saw.
#[tokio::test]
async fn pushing_fragments_names_the_fragment_of_each_warning() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("10-base.yaml"),
        "name: frags\npermissions:\n  allow: ['Bash(cargo test *)']\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("20-team.yaml"),
        "permissions:\n  allow: ['Bash(python:*)']\n",
    )
    .unwrap();
    let out = toolgate(
        strings(&[
            "bundle",
            "push",
            dir.path().to_str().unwrap(),
            "--token",
            &app.admin_token,
        ]),
        vec![("TOOLGATE_SERVER", app.address.clone())],
    )
    .await;
    let text = stdout(&out);
    assert!(
        text.contains("\nwarning: 20-team.yaml: permissions.allow[0]: `Bash(python:*)`"),
        "{text}"
    );
}

/// A whole `managed-settings.json` pushes as it lints and tests: named after its file.
#[tokio::test]
async fn a_managed_settings_file_pushes_named_after_its_file() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("managed-settings.json");
    std::fs::write(
        &file,
        r#"{"permissions":{"deny":["WebFetch"],"defaultMode":"acceptEdits"},"env":{"A":"1"}}"#,
    )
    .unwrap();
    let out = toolgate(
        strings(&[
            "bundle",
            "push",
            file.to_str().unwrap(),
            "--json",
            "--token",
            &app.admin_token,
        ]),
        vec![("TOOLGATE_SERVER", app.address.clone())],
    )
    .await;
    let pushed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(pushed["name"], "managed-settings", "{pushed}");
    // What toolgate does not read is a note: no warning.
    assert_eq!(pushed["warnings"], json!([]), "{pushed}");
    let findings: Vec<(&str, &str)> = pushed["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["severity"].as_str().unwrap(),
                finding["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        findings,
        [("note", "ignored-key"), ("note", "ignored-setting")],
        "{pushed}"
    );
}

/// A command that fails says so on one line, with its cause, and exits 1: no `Caused by:`
/// block, and no stack backtrace even where `RUST_BACKTRACE` is set (as it is on many Rust
/// developers' machines).
#[tokio::test]
async fn a_failing_command_prints_one_error_line_without_a_backtrace() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    // A database that refuses is said at once, with the reason, not after the pool's 30 s
    // as "pool timed out".
    let database = dead.replace("http://", "postgres://nobody:SECRETPW@") + "/toolgate";
    let invalid_tenant = "error: invalid tenant `Team A`: names match `[a-z0-9][a-z0-9_-]{0,62}`";
    for (args, says) in [
        (
            strings(&["bundle", "list", "--server", &dead, "--token", "tg_x"]),
            "error: failed to reach",
        ),
        (
            strings(&["token", "create", "--role", "agent", "--tenant", "Team A"]),
            invalid_tenant,
        ),
        // A tenant no tenant can have lists and exports nothing: said, not passed over.
        (
            strings(&["token", "list", "--tenant", "Team A"]),
            invalid_tenant,
        ),
        (
            strings(&["audit", "export", "--tenant", "Team A"]),
            invalid_tenant,
        ),
        (
            strings(&["bundle", "list", "--tenant", "Team A", "--token", "tg_x"]),
            invalid_tenant,
        ),
        (
            strings(&["token", "list", "--database-url", &database]),
            "error: failed to connect to the database",
        ),
        // No token: the variable and how to make one are named.
        (
            strings(&["bundle", "list", "--server", &dead, "--tenant", "team"]),
            "error: an admin token is required: give `--token` or set `TOOLGATE_TOKEN` \
             (`toolgate token create --role admin --tenant team` makes one)",
        ),
    ] {
        let started = std::time::Instant::now();
        let output = toolgate(args.clone(), vec![("RUST_BACKTRACE", "1".to_owned())]).await;
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?}");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(says), "{stderr}");
        assert!(!stderr.contains("pool timed out"), "{stderr}");
        assert!(!stderr.contains("SECRETPW"), "{stderr}");
    }
}

/// A `--server` without its scheme is said to be no URL, as the hook's `--url` is, not
/// "unreachable (http: invalid format)"; the evaluate URL of a hook entry works as the base.
#[tokio::test]
async fn a_server_url_without_a_scheme_is_named_as_such() {
    let app = spawn_app().await;
    let bare = app.address.trim_start_matches("http://").to_owned();
    for server in [vec![("TOOLGATE_SERVER", bare.clone())], vec![]] {
        let mut args = strings(&["bundle", "list", "--token", &app.admin_token]);
        if server.is_empty() {
            args.extend(strings(&["--server", &bare]));
        }
        let output = toolgate(args, server).await;
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.trim(),
            format!(
                "error: --server (or TOOLGATE_SERVER): `{bare}` is not an http:// or https:// \
                 URL (the server's base URL, such as `http://127.0.0.1:8080`)"
            )
        );
    }
    let evaluate = format!("{}/v1/evaluate", app.address);
    let output = toolgate(
        strings(&[
            "bundle",
            "list",
            "--token",
            &app.admin_token,
            "--server",
            &evaluate,
        ]),
        vec![],
    )
    .await;
    assert!(stdout(&output).starts_with("    id  name"), "{output:?}");
}

/// The admin commands and `healthcheck` name the server without the credentials or query its
/// URL may carry, and never print the token.
#[tokio::test]
async fn client_commands_never_print_the_servers_credentials_or_the_token() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = listener.local_addr().unwrap();
    drop(listener);
    let server = format!("http://admin:SECRETPW@{dead}/?key=SECRETQ");
    let token = format!("tg_{}", "5ec7".repeat(16));
    let mut runs = Vec::new();
    for command in [
        &["bundle", "list"][..],
        &["bundle", "rollback"],
        &["bundle", "activate", "1"],
    ] {
        let mut args = strings(command);
        args.extend(strings(&["--server", &server, "--token", &token]));
        runs.push(toolgate(args, vec![]).await);
    }
    runs.push(
        toolgate(
            strings(&["bundle", "list", "--server", &server]),
            vec![("TOOLGATE_TOKEN", token.clone())],
        )
        .await,
    );
    runs.push(toolgate(strings(&["healthcheck", "--url", &server]), vec![]).await);
    for output in runs {
        assert!(!output.status.success());
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            all.contains(&dead.to_string()),
            "the server is named: {all}"
        );
        for secret in ["SECRETPW", "SECRETQ", token.as_str()] {
            assert!(!all.contains(secret), "{secret} printed: {all}");
        }
    }
}

/// A cut-off before the earliest date chrono holds is refused with a message, not a panic.
#[tokio::test]
async fn audit_prune_refuses_an_age_too_large_to_subtract() {
    let data = tempfile::tempdir().unwrap();
    let output = toolgate(
        strings(&[
            "audit",
            "prune",
            "--older-than",
            "100000000d",
            "--dry-run",
            "--data-dir",
            data.path().to_str().unwrap(),
        ]),
        vec![("RUST_BACKTRACE", "0".to_owned())],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("`--older-than` is too large"), "{stderr}");
}

/// An age without its unit is refused before anything is pruned: `--older-than 90` was 90
/// seconds, and dropped every month but the current one.
#[tokio::test]
async fn audit_prune_refuses_an_age_without_a_unit() {
    let data = tempfile::tempdir().unwrap();
    let prune = |age: &str| {
        toolgate(
            strings(&[
                "audit",
                "prune",
                "--older-than",
                age,
                "--dry-run",
                "--data-dir",
                data.path().to_str().unwrap(),
            ]),
            vec![],
        )
    };
    let output = prune("90").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`90` has no unit: write `90d` for days"),
        "{stderr}"
    );
    let output = prune("90d").await;
    let said = stdout(&output);
    // The cut-off is a time as the rest of the CLI writes one.
    let cutoff = said
        .trim()
        .strip_prefix("nothing to prune: no audit month ended before ")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(
        chrono::DateTime::parse_from_rfc3339(cutoff).is_ok(),
        "{said}"
    );
}

/// `token create|list|revoke --server` go through the admin API with an admin token, for a
/// security team without access to the database; what they print is what the database
/// commands print.
#[tokio::test]
async fn token_commands_work_through_the_admin_api_with_server() {
    let app = spawn_app().await;
    let admin = app.create_token("admin", "team").await;
    let args = |rest: &[&str]| {
        let mut all = strings(&["token"]);
        all.extend(strings(rest));
        all.extend(strings(&["--server", &app.address, "--token", &admin]));
        all
    };
    let out = toolgate(
        args(&[
            "create",
            "--role",
            "agent",
            "--tenant",
            "team",
            "--description",
            "ci",
            "--expires-in",
            "30d",
        ]),
        vec![],
    )
    .await;
    let text = stdout(&out);
    assert!(text.starts_with("created agent token "), "{text}");
    assert!(text.contains("for tenant `team`, expiring at "), "{text}");
    let token = text.lines().last().unwrap().to_owned();
    assert_eq!(app.decide(&token, &tool("WebFetch")).await, "none");
    let id: i64 = text
        .split_whitespace()
        .nth(3)
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));

    // Listed as the database command lists, never the token; `--tenant` is required.
    let out = toolgate(args(&["list", "--tenant", "team"]), vec![]).await;
    let text = stdout(&out);
    let mine = text
        .lines()
        .find(|line| line.starts_with(&format!("{id}\t")))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        mine.ends_with("\tci") && mine.contains("\tagent\tteam\t"),
        "{mine}"
    );
    assert!(!text.contains(&token[3..]), "{text}");
    let out = toolgate(args(&["list", "--tenant", "team", "--json"]), vec![]).await;
    let listed: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(
        listed
            .iter()
            .any(|t| t["id"] == json!(id) && t["created_by"].is_i64())
    );
    let out = toolgate(args(&["list"]), vec![]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`--tenant` is required"));

    // Another tenant is refused by the server, as the API refuses it.
    let out = toolgate(
        args(&["create", "--role", "agent", "--tenant", "other"]),
        vec![],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("forbidden"),
        "{out:?}"
    );

    // Revoked by id; the API revokes by id only.
    let out = toolgate(args(&["revoke", "--tenant", "team", &token]), vec![]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give the token's id"));
    let out = toolgate(
        args(&["revoke", "--tenant", "team", &id.to_string()]),
        vec![],
    )
    .await;
    assert!(stdout(&out).starts_with(&format!("revoked token {id};")));
    let event = serde_json::to_vec(&tool("WebFetch")).unwrap();
    let response = app.evaluate_raw(Some(&token), event).await;
    crate::helpers::assert_refused(response, "unknown or revoked token").await;
}
