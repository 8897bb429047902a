//! When toolgate cannot decide a valid event it answers with the failure decision, never a 5xx.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::audit::audit_rows;
use crate::helpers::{
    assert_error, assert_refused, decision_of, deny_bundle, eventually, scrape, spawn_app,
    spawn_app_with, spawn_replica, tool,
};

/// A token of the right shape that no one created.
const UNKNOWN: &str = "tg_0000000000000000000000000000000000000000000000000000000000000000";

fn reason_of(reply: &Value) -> &str {
    reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
}

#[tokio::test]
async fn shed_evaluations_get_the_failure_decision_and_shed_admin_requests_a_503() {
    let app = spawn_app_with(|config| config.concurrency_limit = 0).await;
    let agent = app.create_token("agent", "team").await;
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(reason_of(&reply).contains("toolgate failed"), "{reply}");
    let post = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_response": {}});
    assert_eq!(app.evaluate(&agent, &post).await, json!({}));
    // Not an event at all is still a 400.
    let response = app.evaluate_raw(Some(&agent), "nope").await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;

    let response = app
        .push_as(&app.admin_token, "team", &deny_bundle("x", "WebFetch"))
        .await;
    assert_error(response, StatusCode::SERVICE_UNAVAILABLE, "overloaded").await;
    app.assert_healthy().await;
}

/// A shed request is checked from memory only: a missing token is refused (the failure decision
/// naming it, or a 401 for a body that is no event), a token this replica
/// does not know gets the failure decision unrecorded (anyone could write the audit so), a
/// known token's answer is audited under its tenant, and every agent is answered in its own
/// schema.
#[tokio::test]
async fn shed_requests_are_answered_in_the_agents_schema_and_audited_only_for_known_callers() {
    let app = spawn_app_with(|config| config.concurrency_limit = 0).await;
    let event = serde_json::to_vec(&tool("WebFetch")).unwrap();
    let response = app.evaluate_raw(None, event.clone()).await;
    assert_refused(response, "a bearer token is required").await;
    let response = app.evaluate_raw(None, "nope").await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = app.evaluate_raw(Some(UNKNOWN), event.clone()).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    // Only its head is kept (`UNCHECKED_BODY_BYTES`), which names the event: still the failure
    // decision, not a 413.
    let mut big = tool("WebFetch");
    big["tool_input"]["prompt"] = json!("x".repeat(3 << 20));
    let response = app
        .evaluate_raw(Some(UNKNOWN), serde_json::to_vec(&big).unwrap())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");

    // Known once the next poll has loaded it.
    let agent = app.create_token("agent", "team").await;
    let rows = eventually(Duration::from_secs(10), "a shed answer audited", || async {
        app.evaluate(&agent, &tool("WebFetch")).await;
        let rows = audit_rows(&app.db).await;
        (!rows.is_empty()).then_some(rows)
    })
    .await;
    assert!(
        rows.iter()
            .all(|row| row["tenant"] == "team" && row["failure"] == true),
        "only the known token's answers are audited: {rows:#?}"
    );

    let cursor = json!({"conversation_id": "c1", "generation_id": "g1",
        "hook_event_name": "beforeShellExecution", "workspace_roots": ["/p"],
        "command": "ls", "cwd": "/p"});
    let cursor = serde_json::to_vec(&cursor).unwrap();
    let response = app
        .evaluate_at("/v1/evaluate/cursor", Some(&agent), cursor.clone())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["permission"], "deny", "{reply}");
    let response = app
        .evaluate_at("/v1/evaluate/emacs", Some(&agent), cursor)
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
}

/// An evaluation stuck past `--request-timeout` (here: its token lookup waits on a lock the
/// test holds) gets the failure decision in the agent's schema, not a 408 that would let the
/// tool call go ahead.
#[tokio::test]
async fn an_evaluation_past_the_request_timeout_gets_the_failure_decision() {
    let app = spawn_app_with(|config| config.request_timeout = Duration::from_millis(300)).await;
    let pool = app.db.as_postgres().expect("PostgreSQL").clone();
    let mut lock = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE tokens IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let event = serde_json::to_vec(&tool("WebFetch")).unwrap();
    let response = app.evaluate_raw(Some(UNKNOWN), event).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(reason_of(&reply).contains("ran out of time"), "{reply}");
    let post = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_response": {}});
    let response = app
        .evaluate_raw(Some(UNKNOWN), serde_json::to_vec(&post).unwrap())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    lock.rollback().await.unwrap();
    let metrics = scrape(&app, &app.address).await;
    assert!(
        metrics.contains("toolgate_evaluation_failures_total{reason=\"timeout\"} 2"),
        "{metrics}"
    );
}

/// A body that has not arrived by `--request-timeout` holds no event to answer: a 408 in the
/// JSON envelope, and the connection is not held open.
#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_a_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = spawn_app_with(|config| config.request_timeout = Duration::from_millis(300)).await;
    let agent = app.create_token("agent", "team").await;
    let host = app.address.trim_start_matches("http://");
    let mut socket = tokio::net::TcpStream::connect(host).await.unwrap();
    let head = format!(
        "POST /v1/evaluate HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {agent}\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{"
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    socket.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let body: Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(body["error"]["code"], "request_timeout", "{body}");
}

/// An evaluate request without a valid token (none, a malformed header, a token no one holds)
/// gives its evaluation permit back as soon as that is known, not once its body has arrived.
/// Otherwise anyone who can connect could hold every permit with bodies that never finish:
/// every agent's events would then be shed with the failure decision.
#[tokio::test]
async fn a_request_without_a_valid_token_holds_no_permit_while_its_body_arrives() {
    use tokio::io::AsyncWriteExt;

    // One permit, and a deadline far past the test: a refused request that kept its permit
    // would keep it until then.
    let app = spawn_app_with(|config| {
        config.concurrency_limit = 1;
        config.request_timeout = Duration::from_secs(60);
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    let host = app.address.trim_start_matches("http://");
    let mut held = Vec::new();
    for authorization in [
        String::new(),
        "Authorization: Basic dXNlcjpwdw==\r\n".to_owned(),
        "Authorization: Bearer tg_short\r\n".to_owned(),
        format!("Authorization: Bearer {UNKNOWN}\r\n"),
    ] {
        let mut socket = tokio::net::TcpStream::connect(host).await.unwrap();
        let head = format!(
            "POST /v1/evaluate HTTP/1.1\r\nHost: {host}\r\n{authorization}\
             Content-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{{"
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        held.push(socket);
    }
    // The refused requests' bodies are still owed, and they hold no permit: the agent's event
    // is evaluated, not shed (once each refusal is known, which takes no body).
    eventually(
        Duration::from_secs(10),
        "the agent's event evaluated",
        || async {
            let reply = app.evaluate(&agent, &tool("WebFetch")).await;
            (decision_of(&reply) == "none").then_some(())
        },
    )
    .await;
    drop(held);
}

/// A connection whose request head has not arrived by `--request-timeout` — sent a byte at a
/// time, cut short, or never begun (an idle keep-alive connection too) — is closed, so that
/// slow clients cannot hold the server's connections (and its file descriptors) forever, nor
/// keep a graceful shutdown from finishing.
#[tokio::test]
async fn a_request_head_that_does_not_arrive_in_time_closes_the_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = spawn_app_with(|config| config.request_timeout = Duration::from_millis(300)).await;
    let host = app.address.trim_start_matches("http://");
    for sent in [
        format!("POST /v1/evaluate HTTP/1.1\r\nHost: {host}\r\n"),
        String::new(),
    ] {
        let mut socket = tokio::net::TcpStream::connect(host).await.unwrap();
        socket.write_all(sent.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        // Not a timing assertion: the guard only turns a connection held forever into a failure.
        let closed =
            tokio::time::timeout(Duration::from_secs(20), socket.read_to_end(&mut response)).await;
        assert!(
            closed.is_ok(),
            "the server still holds a connection that sent {sent:?}"
        );
    }
    // The server still answers.
    let response = app
        .client
        .get(format!("{}/healthz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_failure_decision_is_configurable() {
    let prompt = json!({"hook_event_name": "UserPromptSubmit", "session_id": "s",
        "prompt": "deploy it"});
    let app = spawn_app_with(|config| {
        config.concurrency_limit = 0;
        config.failure_decision = toolgate_engine::Outcome::Ask;
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "ask", "{reply}");
    // By default a prompt toolgate cannot judge goes through.
    assert_eq!(app.evaluate(&agent, &prompt).await, json!({}));

    // `--failure-blocks-prompts`: it is blocked, in the agent's schema, and audited as a deny;
    // the other non-gating events still go through.
    let app = spawn_app_with(|config| {
        config.concurrency_limit = 0;
        config.failure_blocks_prompts = true;
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    let reply = app.evaluate(&agent, &prompt).await;
    assert_eq!(reply["decision"], "block", "{reply}");
    assert!(
        reply["reason"]
            .as_str()
            .is_some_and(|reason| reason.contains("toolgate failed")),
        "{reply}"
    );
    let post = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "tool_response": {}});
    assert_eq!(app.evaluate(&agent, &post).await, json!({}));
    // Audited once the next poll has made the token known in memory (as for any shed request).
    eventually(
        Duration::from_secs(10),
        "the blocked prompt audited",
        || async {
            app.evaluate(&agent, &prompt).await;
            let rows = audit_rows(&app.db).await;
            rows.iter()
                .any(|row| row["event"] == "UserPromptSubmit" && row["decision"] == "deny")
                .then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn with_no_database_and_no_cache_nothing_is_loaded_and_evaluation_fails_closed() {
    // Port 1 on loopback: nothing listens there.
    let app = spawn_replica("postgres://postgres@127.0.0.1:1/none", |config| {
        config.allow_anonymous_loopback = true;
    })
    .await;
    let response = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    app.assert_healthy().await;

    // Anonymous (loopback) evaluation: no policy is loaded.
    let response = app
        .evaluate_raw(None, serde_json::to_vec(&tool("WebFetch")).unwrap())
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(reason_of(&reply).contains("no policy is loaded"), "{reply}");

    // A token that cannot be checked: the failure decision too.
    let reply = app.evaluate(UNKNOWN, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(
        reason_of(&reply).contains("the token could not be checked"),
        "{reply}"
    );
    // One of a shape no token has is refused without the database.
    let response = app
        .evaluate_raw(
            Some("tg_unknown"),
            serde_json::to_vec(&tool("WebFetch")).unwrap(),
        )
        .await;
    assert_refused(response, "unknown or revoked token").await;

    // Admin writes: a clear 503.
    let response = app
        .push_as(&app.admin_token, "team", &deny_bundle("x", "WebFetch"))
        .await;
    assert_error(
        response,
        StatusCode::SERVICE_UNAVAILABLE,
        "database_unavailable",
    )
    .await;
}

/// A token lookup that fails with an error other than an outage (here the table is gone; a
/// revoked privilege or a statement timeout does the same) must not be a 500, which the agent
/// takes as "proceed": the event gets the failure decision, as while the database is away.
#[tokio::test]
async fn a_token_lookup_that_fails_gets_the_failure_decision_not_a_500() {
    let app = spawn_app().await;
    let agent = app.create_token("agent", "team").await;
    assert_eq!(app.decide(&agent, &tool("WebFetch")).await, "none");
    sqlx::query("ALTER TABLE tokens RENAME TO tokens_away")
        .execute(app.pg())
        .await
        .unwrap();
    let reply = app.evaluate(UNKNOWN, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(
        reason_of(&reply).contains("could not be checked"),
        "{reply}"
    );
    // A token the replica knows is still answered from memory.
    assert_eq!(app.decide(&agent, &tool("WebFetch")).await, "none");
}

/// A panic on the evaluate route outside the engine (which catches its own) is answered with
/// the failure decision by the route's guard, not with the 500 the outer `CatchPanic` would give
/// and the agent would take as "proceed". The route here is the real middleware stack around a
/// handler that panics, served over HTTP, standing in for a bug in decoding, auditing or metrics.
#[tokio::test]
async fn a_panic_outside_the_engine_gets_the_failure_decision() {
    use axum::Router;
    use axum::routing::post;
    use toolgate::middleware::{Limits, common_layers, evaluate_layers};

    let app = spawn_app().await;
    let agent = app.create_token("agent", "team").await;
    let state = app.state.clone().expect("the server runs in this process");
    let limits = Limits {
        max_body_bytes: 1 << 20,
        request_timeout: Duration::from_secs(30),
        concurrency_limit: 8,
        replica_id: "panics".to_owned(),
        metrics: state.metrics.clone(),
    };
    async fn panics() -> axum::http::StatusCode {
        panic!("a bug outside the engine")
    }
    let panics: Router = Router::new().route("/v1/evaluate", post(panics));
    let router = common_layers(evaluate_layers(panics, &limits, &state), &limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let response = app
        .client
        .post(format!("http://{address}/v1/evaluate"))
        .bearer_auth(&agent)
        .json(&tool("Bash"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(reason_of(&reply).contains("toolgate failed"), "{reply}");
    let metrics = scrape(&app, &app.address).await;
    assert!(
        metrics.contains(r#"toolgate_evaluation_failures_total{reason="panic"} 1"#),
        "{metrics}"
    );

    // A body that is not an event cannot be given a decision: the guard answers as `CatchPanic`
    // would.
    let response = app
        .client
        .post(format!("http://{address}/v1/evaluate"))
        .bearer_auth(&agent)
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
}

/// Holds a lock on the tokens table that every query of it waits for, until rolled back.
pub async fn lock_tokens(
    app: &crate::helpers::TestApp,
) -> sqlx::Transaction<'static, sqlx::Postgres> {
    let mut lock = app.pg().begin().await.unwrap();
    sqlx::query("LOCK TABLE tokens IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    lock
}

/// Token lookups of this app's replica waiting on a lock, as PostgreSQL sees them.
pub async fn lookups_waiting(app: &crate::helpers::TestApp) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND wait_event_type = 'Lock' AND query LIKE '%AND hash = $1%'",
    )
    .fetch_one(app.pg())
    .await
    .unwrap()
}

/// A flood of made-up token-shaped bearers, each of which would be looked up in the database,
/// while no lookup can finish (the tokens table is locked): only a few lookups hold a
/// connection, the rest of the flood gets the failure decision at once, and the admin routes
/// and known agents go on. A token found in no row is then refused from memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_unknown_tokens_leaves_the_pool_to_admin_routes_and_known_tokens() {
    let app = spawn_app().await;
    let id = app.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    let agent = app.create_token("agent", "team").await;
    // Looked up once, then known.
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(!reason_of(&reply).contains("toolgate failed"), "{reply}");

    let lock = lock_tokens(&app).await;
    let event = serde_json::to_vec(&tool("WebFetch")).unwrap();
    let flood: Vec<_> = (0..64)
        .map(|_| {
            let token = toolgate::auth::generate_token().unwrap();
            let request = app
                .client
                .post(app.url("/v1/evaluate"))
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body(event.clone());
            tokio::spawn(async move {
                let response = request.send().await.unwrap();
                let status = response.status();
                (token, status, response.json::<Value>().await.ok())
            })
        })
        .collect();
    eventually(
        Duration::from_secs(30),
        "a token lookup on the lock",
        || async { (lookups_waiting(&app).await > 0).then_some(()) },
    )
    .await;

    let response = app
        .client
        .get(app.url("/v1/tenants/team/bundles"))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "an admin route during the flood"
    );
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert!(!reason_of(&reply).contains("toolgate failed"), "{reply}");
    lock.rollback().await.unwrap();

    let mut refused = None;
    let mut failed = 0;
    for answer in flood {
        let (token, status, reply) = answer.await.unwrap();
        assert_eq!(status, StatusCode::OK, "a flooding request");
        let reply = reply.unwrap();
        assert_eq!(decision_of(&reply), "deny", "{reply}");
        let reason = reason_of(&reply);
        if reason.contains("the caller was refused: unknown or revoked token") {
            // Looked up once the lock was gone: no such token.
            refused = Some(token);
        } else {
            assert!(reason.contains("the token could not be checked"), "{reply}");
            failed += 1;
        }
    }
    assert!(failed > 0);

    // A token found in no row is refused from memory: with the table locked again, its answer
    // needs no lookup.
    let refused = refused.expect("a flooding token was looked up");
    let lock = lock_tokens(&app).await;
    let response = app.evaluate_raw(Some(&refused), event).await;
    assert_refused(response, "unknown or revoked token").await;
    lock.rollback().await.unwrap();
}
