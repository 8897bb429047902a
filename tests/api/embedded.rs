//! The embedded default: `toolgate serve` with no `DATABASE_URL` keeps everything in
//! `<data dir>/toolgate.db`, starts with the starter bundle for `global`, and lets loopback
//! clients evaluate without a token. Some tests run the real binary, in an empty directory.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    ADMIN_TOKEN, assert_error, assert_refused, attach, bash, decision_of, deny_bundle, eventually,
    metrics_text, spawn_embedded, spawn_replica, tool,
};

/// `toolgate serve` running in its own process.
struct Server {
    child: Child,
    address: String,
    /// The log line that says it is listening.
    listening: String,
    /// The log lines before it.
    earlier: Vec<String>,
    /// The log lines after it, as they come.
    later: mpsc::Receiver<String>,
}

impl Server {
    /// Starts `toolgate serve --listen 127.0.0.1:0` in `dir` with nothing in its environment but
    /// `env`, and waits (at most a minute) for its "listening" log line.
    async fn start(dir: &Path, env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .current_dir(dir)
            .env_clear()
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        tokio::task::spawn_blocking(move || {
            let mut child = command.spawn().expect("start toolgate serve");
            let stderr = child.stderr.take().unwrap();
            let (lines, received) = mpsc::channel();
            // Drains stderr for the server's whole life, so logging never blocks it.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    let _ = lines.send(line);
                }
            });
            let mut earlier = Vec::new();
            loop {
                let line = received
                    .recv_timeout(Duration::from_secs(60))
                    .expect("toolgate serve did not say it is listening");
                // stderr is a pipe here, not a terminal: plain text, no colour codes.
                assert!(!line.contains('\u{1b}'), "escape codes in {line:?}");
                if !line.contains("toolgate listening") {
                    earlier.push(line);
                    continue;
                }
                let address = line
                    .split_whitespace()
                    .find_map(|word| word.strip_prefix("address="))
                    .expect("an address in the listening line")
                    .to_owned();
                return Self {
                    child,
                    address: format!("http://{address}"),
                    listening: line,
                    earlier,
                    later: received,
                };
            }
        })
        .await
        .unwrap()
    }

    /// The log lines after the listening line up to the first that contains `what` (included),
    /// waiting at most a minute for it.
    fn lines_until(&self, what: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self
                .later
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no log line with {what:?} after {lines:?}"));
            let found = line.contains(what);
            lines.push(line);
            if found {
                return lines;
            }
        }
    }

    /// Kills the process (SIGKILL: a crash, not a clean stop) and waits for it.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn evaluate_anonymously(client: &reqwest::Client, address: &str, event: &Value) -> Value {
    let response = client
        .post(format!("{address}/v1/evaluate"))
        .json(event)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_new_user_runs_serve_with_no_configuration_in_an_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]).await;
    // The line names the replica, where /metrics is and the build, for one pod's log among many.
    for field in ["replica=", "version=", "metrics_address=127.0.0.1:"] {
        assert!(server.listening.contains(field), "{}", server.listening);
    }
    assert!(
        server
            .listening
            .contains("store=sqlite:./.toolgate/toolgate.db")
            && server
                .listening
                .contains("evaluation without a token is open to loopback clients"),
        "{}",
        server.listening
    );
    let client = reqwest::Client::new();
    let reply = evaluate_anonymously(&client, &server.address, &bash("rm -rf ~")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(
        reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .is_some_and(|reason| reason.contains("fs-remove-outside-project")),
        "{reply}"
    );
    let reply = evaluate_anonymously(&client, &server.address, &bash("cargo test")).await;
    assert_eq!(reply, json!({}));
    assert!(dir.path().join(".toolgate/toolgate.db").is_file());

    // The decisions are counted on /metrics …
    let metrics = metrics_text(&client, &server.address).await;
    for sample in [
        r#"toolgate_decisions_total{agent="claude-code",decision="deny",event="PreToolUse",mode="enforce",tool="Bash"} 1"#,
        r#"toolgate_rule_hits_total{decision="deny",mode="enforce",rule="fs-remove-outside-project"} 1"#,
        "toolgate_audit_rows_written_total 2",
    ] {
        assert!(
            metrics.lines().any(|line| line == sample),
            "no `{sample}` in\n{metrics}"
        );
    }
    // … and audited in the same file: an auditor token made with the CLI reads them back,
    // newest first, and the chain verifies.
    let auditor = last_word(
        &toolgate_in(
            dir.path(),
            &["token", "create", "--role", "auditor", "--tenant", "global"],
        )
        .await,
    );
    let audit: Value = client
        .get(format!("{}/v1/audit", server.address))
        .bearer_auth(&auditor)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rows = audit["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{audit}");
    assert_eq!(rows[0]["decision"], "none");
    assert_eq!(rows[1]["decision"], "deny");
    assert_eq!(rows[1]["winner"], "fs-remove-outside-project");
    assert_eq!(
        rows[1]["input"],
        json!({"tool_input": {"command": "rm -rf ~"}})
    );
    let verified = toolgate_in(dir.path(), &["audit", "verify"]).await;
    assert!(
        verified.contains("ok: 2 rows in 1 replica chain verified"),
        "{verified}"
    );
    // `audit export` filters as `GET /v1/audit` does.
    for filter in [
        &["--decision", "deny"][..],
        &["--rule", "fs-remove-outside-project"],
        &["--tool", "Bash", "--decision", "deny"],
        &[
            "--event",
            "PreToolUse",
            "--agent",
            "claude",
            "--decision",
            "deny",
        ],
    ] {
        let exported = toolgate_in(dir.path(), &[&["audit", "export"][..], filter].concat()).await;
        let ids: Vec<Value> = exported
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap()["id"].clone())
            .collect();
        assert_eq!(ids, [rows[1]["id"].clone()], "{filter:?}: {exported}");
    }
    let none = toolgate_in(dir.path(), &["audit", "export", "--tool", "WebFetch"]).await;
    assert_eq!(none, "");
}

/// Runs `toolgate ARGS` in `dir` with an empty environment; its standard output, once it has
/// exited successfully.
async fn toolgate_in(dir: &Path, args: &[&str]) -> String {
    let dir = dir.to_owned();
    let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(&args)
            .current_dir(dir)
            .env_clear()
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn last_word(text: &str) -> String {
    text.split_whitespace()
        .last()
        .unwrap_or_default()
        .to_owned()
}

/// The embedded store's audit is as durable as PostgreSQL's: concurrent clients evaluate at full
/// speed, the server is killed (SIGKILL) with requests in flight, and after a restart every
/// evaluation that was answered has its row, and the chain verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_evaluation_answered_before_a_sigkill_is_in_the_embedded_audit() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[]).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let answered = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::new();
    for c in 0..4 {
        let (client, address, answered) =
            (client.clone(), server.address.clone(), answered.clone());
        clients.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in 0.. {
                let id = format!("c{c}-{i}");
                let mut event = bash("ls");
                event["session_id"] = json!("s");
                event["tool_use_id"] = json!(id);
                let reply = client
                    .post(format!("{address}/v1/evaluate"))
                    .json(&event)
                    .send()
                    .await;
                let Ok(reply) = reply else { break };
                let Ok(reply) = reply.json::<Value>().await else {
                    break;
                };
                assert_eq!(reply, json!({}), "nothing may be refused");
                ids.push(id);
                answered.fetch_add(1, Ordering::Relaxed);
            }
            ids
        }));
    }
    eventually(
        Duration::from_secs(60),
        "300 answered evaluations",
        || async { (answered.load(Ordering::Relaxed) >= 300).then_some(()) },
    )
    .await;
    server.kill();
    let mut ids = Vec::new();
    for client in clients {
        ids.extend(client.await.unwrap());
    }

    let server = Server::start(dir.path(), &[]).await;
    let exported = toolgate_in(dir.path(), &["audit", "export"]).await;
    let recorded: HashSet<String> = exported
        .lines()
        .map(|line| {
            let row: Value = serde_json::from_str(line).unwrap();
            row["tool_use_id"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    let missing: Vec<&String> = ids.iter().filter(|id| !recorded.contains(*id)).collect();
    assert!(
        missing.is_empty(),
        "{} answered but not recorded: {missing:?}",
        missing.len()
    );
    let verified = toolgate_in(dir.path(), &["audit", "verify"]).await;
    assert!(verified.starts_with("ok: "), "{verified}");
    drop(server);
}

/// PostgreSQL starts with no bundle at all, unlike the embedded store: until one is activated
/// every event gets no opinion, and the replica is ready all the same. The start says so, where
/// the embedded store's (with its starter bundle) does not.
#[tokio::test]
async fn serve_on_an_empty_postgresql_warns_that_no_bundle_is_live() {
    let database = crate::helpers::create_database(
        &std::env::var("DATABASE_URL").expect("DATABASE_URL (scripts/test sets it)"),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[("DATABASE_URL", &database)]).await;
    let warning = "no tenant has a live bundle: every hook event gets no opinion";
    assert!(
        server
            .earlier
            .iter()
            .any(|line| line.contains("WARN") && line.contains(warning)),
        "{:?}",
        server.earlier
    );
    drop(server);

    let embedded = tempfile::tempdir().unwrap();
    let server = Server::start(embedded.path(), &[]).await;
    assert!(
        !server.earlier.iter().any(|line| line.contains(warning)),
        "{:?}",
        server.earlier
    );
}

/// Tool input is never logged, not even at `RUST_LOG=debug`: the shell parser's own debug
/// events (every token and word of a command) are turned off whatever the filter says.
#[tokio::test]
async fn a_command_is_not_logged_even_at_debug() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), &[("RUST_LOG", "debug")]).await;
    let client = reqwest::Client::new();
    let event = bash("echo canary-7f3a | rm -rf ~");
    let reply = evaluate_anonymously(&client, &server.address, &event).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    // The decision's own debug line comes after the parse.
    let lines = server.lines_until("decision.outcome=deny");
    let leaked: Vec<&String> = server
        .earlier
        .iter()
        .chain(&lines)
        .filter(|line| line.contains("canary-7f3a"))
        .collect();
    assert!(leaked.is_empty(), "{leaked:#?}");
}

/// A PostgreSQL that refuses connections at start is named as such: sqlx's pool says only that it
/// timed out, which does not tell a stopped database from a busy pool.
#[tokio::test]
async fn serve_says_why_the_database_cannot_be_reached_at_start() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("postgres://toolgate@127.0.0.1:{port}/toolgate");
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("RUST_LOG", "info,toolgate::store::reload=debug"),
    ];
    let server = Server::start(dir.path(), &env).await;
    let line = server
        .earlier
        .iter()
        .find(|line| line.contains("database unavailable at start"))
        .unwrap_or_else(|| panic!("{:?}", server.earlier));
    assert!(
        line.contains("pool timed out while waiting for an open connection: ")
            && line.contains("Connection refused"),
        "{line}"
    );
    // The LISTEN connection's first failure is a warning, its retries (every few seconds for
    // as long as the database is away) debug lines, not a warning each.
    let lines = server.lines_until("DEBUG toolgate::store::reload: listener failed");
    let warned = lines
        .iter()
        .filter(|line| line.contains("WARN") && line.contains("listener failed"))
        .count();
    assert_eq!(warned, 1, "{lines:#?}");
}

#[tokio::test]
async fn a_restart_on_the_same_file_keeps_bundles_activations_and_tokens_and_adds_no_second_starter()
 {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join(".toolgate");
    let env = [("TOOLGATE_ADMIN_TOKEN", ADMIN_TOKEN)];
    let server = Server::start(dir.path(), &env).await;
    let app = attach(&server.address, &data_dir, ADMIN_TOKEN).await;

    let starter = app.policy("global").await;
    assert_eq!(starter["live"]["name"], "starter", "{starter}");
    let team = app.push("team", &deny_bundle("team", "WebFetch")).await;
    let team_activation = app.activate("team", team).await;
    // The organisation replaces the starter bundle with its own.
    let org = app.push("global", &deny_bundle("org", "mcp__org")).await;
    let org_activation = app.activate("global", org).await;
    // A token made with the CLI while the server runs, on the same file.
    let agent = last_word(
        &toolgate_in(
            dir.path(),
            &["token", "create", "--role", "agent", "--tenant", "team"],
        )
        .await,
    );
    assert_eq!(app.decide(&agent, &tool("WebFetch")).await, "deny");

    server.kill();
    let server = Server::start(dir.path(), &env).await;
    let app = attach(&server.address, &data_dir, ADMIN_TOKEN).await;

    assert_eq!(
        app.policy("team").await["live"]["id"],
        json!(team_activation)
    );
    let global = app.policy("global").await;
    assert_eq!(global["live"]["id"], json!(org_activation), "{global}");
    assert_eq!(global["served"]["activation_id"], json!(org_activation));
    assert_eq!(
        app.activation_history("global").await.len(),
        2,
        "the starter's activation and the organisation's, nothing more"
    );
    let bundles = app.get_json("/v1/tenants/global/bundles").await;
    let names: Vec<&str> = bundles["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bundle| bundle["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["org", "starter"]);
    // The token and both policies survived.
    assert_eq!(app.decide(&agent, &tool("WebFetch")).await, "deny");
    assert_eq!(app.decide(&agent, &tool("mcp__org__x")).await, "deny");
    server.kill();
}

#[tokio::test]
async fn an_empty_store_starts_with_the_starter_bundle_for_global() {
    let data = tempfile::tempdir().unwrap();
    let app = spawn_embedded(data.path(), |_| {}).await;
    let policy = app.policy("global").await;
    assert_eq!(policy["live"]["name"], "starter", "{policy}");
    assert_eq!(policy["live"]["activated_by"], Value::Null);
    assert_eq!(policy["live"]["previous_id"], Value::Null);
    let live = policy["live"]["id"].as_i64().unwrap();
    app.wait_served("global", live).await;

    // Without a token, from loopback: the starter bundle decides.
    let reply = app.evaluate_anonymously(&bash("rm -rf ~")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let reply = app.evaluate_anonymously(&bash("cargo test")).await;
    assert_eq!(reply, json!({}));
    // Its guidelines reach the agent at the start of a session.
    let start = json!({"hook_event_name": "SessionStart", "session_id": "s", "cwd": "/tmp/p",
        "source": "startup"});
    let reply = app.evaluate_anonymously(&start).await;
    assert!(
        reply
            .to_string()
            .contains("Stay inside the project directory"),
        "{reply}"
    );
    // An agent token of any tenant gets it too (global applies to every tenant).
    let agent = app.create_token("agent", "team").await;
    assert_eq!(app.decide(&agent, &bash("rm -rf ~")).await, "deny");
}

#[tokio::test]
async fn anonymous_loopback_opens_evaluation_only_other_routes_still_want_a_token() {
    let data = tempfile::tempdir().unwrap();
    let app = spawn_embedded(data.path(), |_| {}).await;
    let reply = app.evaluate_anonymously(&bash("rm -rf ~")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    for (method, path) in [
        (reqwest::Method::GET, "/v1/tenants/global/bundles"),
        (reqwest::Method::POST, "/v1/tenants/global/bundles"),
        (reqwest::Method::GET, "/v1/tenants/global/bundles/1"),
        (
            reqwest::Method::POST,
            "/v1/tenants/global/bundles/1/activate",
        ),
        (reqwest::Method::POST, "/v1/tenants/global/rollback"),
        (reqwest::Method::GET, "/v1/tenants/global/policy"),
        (reqwest::Method::GET, "/v1/audit"),
    ] {
        let response = app
            .client
            .request(method.clone(), app.url(path))
            .json(&json!({"name": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            response
                .headers()
                .get("www-authenticate")
                .map(|v| v.as_bytes()),
            Some(&b"Bearer"[..]),
            "{method} {path}"
        );
        assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
}

/// Claude Code's hook header `Bearer $TOOLGATE_TOKEN` with the variable unset is `Bearer` and
/// nothing: no token, so a loopback hook is evaluated anonymously, not refused with a 401 that
/// lets the call through.
#[tokio::test]
async fn an_empty_bearer_token_from_loopback_is_evaluated_anonymously() {
    let data = tempfile::tempdir().unwrap();
    let app = spawn_embedded(data.path(), |_| {}).await;
    for header in ["Bearer ", "Bearer"] {
        let response = app
            .client
            .post(app.url("/v1/evaluate"))
            .header("authorization", header)
            .json(&bash("rm -rf ~"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{header:?}");
        let reply: Value = response.json().await.unwrap();
        assert_eq!(decision_of(&reply), "deny", "{header:?}: {reply}");
    }
    // Elsewhere it is a missing token, as before.
    let response = app
        .client
        .get(app.url("/v1/tenants/global/bundles"))
        .header("authorization", "Bearer ")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let closed_data = tempfile::tempdir().unwrap();
    let closed = spawn_embedded(closed_data.path(), |config| {
        config.allow_anonymous_loopback = false;
    })
    .await;
    let response = closed
        .client
        .post(closed.url("/v1/evaluate"))
        .header("authorization", "Bearer ")
        .json(&bash("rm -rf ~"))
        .send()
        .await
        .unwrap();
    assert_refused(response, "a bearer token is required").await;
}

/// The data directory holds prompts and tool input (masked, in the audit and its spool), token
/// hashes and policies: what toolgate creates there is its user's alone, whatever the umask.
#[tokio::test]
async fn the_data_directory_and_what_it_holds_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("home/.toolgate");
    let app = spawn_embedded(&data, |_| {}).await;
    let reply = app.evaluate_anonymously(&bash("rm -rf ~")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    for dir in [data.clone(), data.join("cache"), data.join("spool")] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
    for file in [
        "toolgate.db",
        "toolgate.db-wal",
        "cache/policies.json",
        "spool/head",
    ] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
}

/// On a dual-stack socket (`--listen [::]:8080`) a hook on 127.0.0.1 arrives from
/// `::ffff:127.0.0.1`: a loopback peer all the same, not a 401 that lets the call through.
#[tokio::test]
async fn a_loopback_peer_on_a_dual_stack_listener_is_loopback() {
    if std::net::TcpListener::bind("[::]:0").is_err() {
        eprintln!("no IPv6 here: skipped");
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let app = spawn_embedded(data.path(), |config| config.listen = "[::]:0".into()).await;
    let port = app.address.rsplit(':').next().unwrap().to_owned();
    for host in ["127.0.0.1", "[::1]"] {
        let response = app
            .client
            .post(format!("http://{host}:{port}/v1/evaluate"))
            .json(&bash("rm -rf ~"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{host}");
        let reply: Value = response.json().await.unwrap();
        assert_eq!(decision_of(&reply), "deny", "{host}: {reply}");
    }
}

#[tokio::test]
async fn anonymous_loopback_evaluation_can_be_turned_off_on_the_embedded_store() {
    let data = tempfile::tempdir().unwrap();
    let app = spawn_embedded(data.path(), |config| {
        config.allow_anonymous_loopback = false;
    })
    .await;
    let response = app
        .evaluate_raw(None, serde_json::to_vec(&bash("ls")).unwrap())
        .await;
    assert_refused(response, "a bearer token is required").await;
}

#[tokio::test]
async fn an_activation_on_an_sqlite_url_is_served_when_its_answer_arrives() {
    let data = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", data.path().join("store.db").display());
    // A poll far slower than the test: only the in-process reload can make it visible.
    let app = spawn_replica(&url, |config| {
        config.starter_bundle = false;
        config.poll_interval = Duration::from_secs(3600);
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    let id = app.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = app.activate("team", id).await;
    assert_eq!(app.served("team").await, Some(activation));
    assert_eq!(app.decide(&agent, &tool("WebFetch")).await, "deny");
    let response = app.rollback("team").await;
    assert_error(response, StatusCode::CONFLICT, "conflict").await;
    let other = app.push("team", &deny_bundle("y", "mcp__y")).await;
    app.activate("team", other).await;
    let response = app.rollback("team").await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rollback: Value = response.json().await.unwrap();
    assert_eq!(app.served("team").await, rollback["id"].as_i64());
}

#[tokio::test]
async fn serve_refuses_a_database_url_it_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let output = tokio::task::spawn_blocking({
        let dir = dir.path().to_owned();
        move || {
            Command::new(env!("CARGO_BIN_EXE_toolgate"))
                .args(["serve", "--listen", "127.0.0.1:0"])
                .current_dir(dir)
                .env_clear()
                .env("DATABASE_URL", "mysql://db.internal/toolgate")
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .contains("DATABASE_URL must start with `postgres://`, `postgresql://` or `sqlite://`"),
        "{stderr}"
    );
}

/// A replica that started while its database was away, and finds it back migrated by a newer
/// build, says so as an error (it is blind to activations and revocations from then on), not as
/// one more "poll failed" among the outage's.
#[tokio::test]
async fn a_database_back_migrated_by_a_newer_build_is_an_error_in_the_log() {
    let server_url = std::env::var("DATABASE_URL").expect("DATABASE_URL: run scripts/test");
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name = format!("test_late_{}", hex::encode(bytes));
    let url = crate::helpers::with_database(&server_url, &name);
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("TOOLGATE_POLL_INTERVAL", "200ms"),
        ("RUST_LOG", "info"),
    ];
    // The database does not exist yet: the replica starts on its (empty) cache.
    let server = Server::start(dir.path(), &env).await;
    server.lines_until("poll failed");

    // It appears, migrated by a build that knows one migration more than this one.
    let admin = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&server_url)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .unwrap();
    toolgate::store::postgres::MIGRATOR
        .run(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (29990101000000, 'a newer build', TRUE, $1, 0)",
    )
    .bind(vec![0_u8; 48])
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let lines = server.lines_until("migrations refuse this build");
    let line = lines.last().unwrap();
    assert!(line.contains("ERROR"), "{line}");
    for said in ["29990101000000", "--no-migrate"] {
        assert!(line.contains(said), "{line}");
    }
}
