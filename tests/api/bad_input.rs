//! Bodies that are not hook events, and missing or wrong tokens: each gets a clear answer and the
//! server stays healthy.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::audit::audit_rows;
use crate::helpers::{
    ADMIN_TOKEN, TestApp, assert_error, assert_refused, bash, decision_of, sample, scrape,
    spawn_app, spawn_app_with,
};

async fn app_with_agent() -> (TestApp, String) {
    let app = spawn_app().await;
    let agent = app.create_token("agent", "team").await;
    (app, agent)
}

#[tokio::test]
async fn malformed_json_is_a_400_naming_the_problem() {
    let (app, agent) = app_with_agent().await;
    for body in [
        r#"{"session_id": "s","#,
        r#"{"hook_event_name": "#,
        "{not json",
    ] {
        let response = app.evaluate_raw(Some(&agent), body).await;
        let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
        assert!(message.contains("not valid JSON"), "{body}: {message}");
    }
    assert!(audit_rows(&app.db).await.is_empty());
    app.assert_healthy().await;
}

/// Claude Code's HTTP hooks take a 400 as "proceed": a body that names its event but cannot be
/// read whole gets that event's failure decision, is audited and counted.
#[tokio::test]
async fn an_event_that_names_itself_but_cannot_be_read_whole_is_denied() {
    let (app, agent) = app_with_agent().await;
    let bodies = [
        // An MCP tool's arguments nested deeper than the engine reads.
        format!(
            r#"{{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"mcp__db__query","tool_input":{{"q":"drop table users","x":{}{}}}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        ),
        // Cut short after the event's name.
        r#"{"session_id":"s2","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"#.to_owned(),
    ];
    let mut invalid_utf8 =
        br#"{"session_id":"s3","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":""#.to_vec();
    invalid_utf8.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    invalid_utf8.extend_from_slice(br#""}}"#);
    let bodies = bodies
        .map(String::into_bytes)
        .into_iter()
        .chain([invalid_utf8]);
    for body in bodies {
        let text = String::from_utf8_lossy(&body)
            .chars()
            .take(120)
            .collect::<String>();
        let response = app.evaluate_raw(Some(&agent), body).await;
        assert_eq!(response.status(), StatusCode::OK, "{text}");
        let reply: Value = response.json().await.unwrap();
        assert_eq!(decision_of(&reply), "deny", "{text}: {reply}");
        let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains("could not be read whole"), "{reason}");
    }

    let mut rows = audit_rows(&app.db).await;
    rows.sort_by_key(|row| row["session_id"].as_str().unwrap_or_default().to_owned());
    let sessions: Vec<&Value> = rows.iter().map(|row| &row["session_id"]).collect();
    assert_eq!(sessions, [&json!("s1"), &json!("s2"), &json!("s3")]);
    for row in &rows {
        assert_eq!(row["decision"], "deny", "{row}");
        assert_eq!(row["winner"], "toolgate-failure", "{row}");
    }
    assert_eq!(rows[0]["tool"], "mcp__db__query");
    let metrics = scrape(&app, &app.address).await;
    let unreadable = sample(
        &metrics,
        "toolgate_evaluation_failures_total",
        &[("reason", "unreadable")],
    );
    assert_eq!(unreadable, Some(3.0));
    app.assert_healthy().await;
}

/// JavaScript's `JSON.stringify` writes a lone surrogate in a tool's input as `\ud800`, which no
/// Rust string holds: a model could end any command so, and the event was a 400. It is read as
/// U+FFFD, which is what Node hands bash in its place, and evaluated.
#[tokio::test]
async fn a_lone_surrogate_escape_is_read_as_the_replacement_character_and_evaluated() {
    let (app, agent) = app_with_agent().await;
    let id = app
        .push("global", &crate::helpers::deny_bundle("g", "Bash(rm:*)"))
        .await;
    let activation = app.activate("global", id).await;
    app.wait_served("global", activation).await;
    let body = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~ \ud800"},"tool_use_id":"t1"}"#;
    let response = app.evaluate_raw(Some(&agent), body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");

    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["winner"], "Bash(rm:*)");
    assert_eq!(
        rows[0]["input"]["tool_input"]["command"],
        "rm -rf ~ \u{fffd}"
    );
    app.assert_healthy().await;
}

#[tokio::test]
async fn wrong_types_are_a_400_naming_the_field() {
    let (app, agent) = app_with_agent().await;
    let event = json!({"hook_event_name": "PreToolUse", "tool_name": 5, "tool_input": {}});
    let response = app
        .evaluate_raw(Some(&agent), serde_json::to_vec(&event).unwrap())
        .await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
    assert!(message.contains("tool_name"), "{message}");

    let response = app.evaluate_raw(Some(&agent), "[1, 2]").await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
    assert!(message.contains("object"), "{message}");

    let response = app
        .evaluate_raw(Some(&agent), r#"{"session_id": "s"}"#)
        .await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
    assert!(message.contains("hook_event_name"), "{message}");
    app.assert_healthy().await;
}

/// A 413 would let the agent's call go ahead unchecked: an event over the limit is answered from
/// its head, in the agent's own schema, with the failure decision, and audited.
#[tokio::test]
async fn a_20_mib_event_gets_the_failure_decision_not_a_413() {
    let (app, agent) = app_with_agent().await;
    let mut body = br#"{"session_id":"big","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/home/u/.bashrc","content":""#
        .to_vec();
    body.resize(body.len() + 20 * 1024 * 1024, b'a');
    body.extend_from_slice(br#""},"tool_use_id":"t1"}"#);
    let response = app.evaluate_raw(Some(&agent), body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("larger than the 4194304-byte limit"),
        "{reason}"
    );

    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["session_id"], "big");
    assert_eq!(rows[0]["event"], "PreToolUse");
    assert_eq!(rows[0]["tool"], "Write");
    assert_eq!(rows[0]["decision"], "deny");
    assert_eq!(rows[0]["winner"], "toolgate-failure");
    let metrics = scrape(&app, &app.address).await;
    let too_large = sample(
        &metrics,
        "toolgate_evaluation_failures_total",
        &[("reason", "too_large")],
    );
    assert_eq!(too_large, Some(1.0));
    app.assert_healthy().await;
}

/// Every agent's route answers so, in that agent's schema (here Cursor's, with a smaller limit).
#[tokio::test]
async fn an_event_over_the_limit_is_denied_in_the_agents_own_schema() {
    let app = spawn_app_with(|config| config.max_body_bytes = 64 * 1024).await;
    let agent = app.create_token("agent", "team").await;
    let event = format!(
        r#"{{"conversation_id":"c","hook_event_name":"beforeShellExecution","cwd":"/p","command":"rm -rf ~ #{}"}}"#,
        "a".repeat(100 * 1024)
    );
    // Whole, and as a stream of chunks with no `Content-Length` to tell the size up front.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = event
        .as_bytes()
        .chunks(8 * 1024)
        .map(|chunk| Ok(chunk.to_vec()))
        .collect();
    let stream = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    for body in [reqwest::Body::from(event), stream] {
        let response = app
            .evaluate_at("/v1/evaluate/cursor", Some(&agent), body)
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let reply: Value = response.json().await.unwrap();
        assert_eq!(reply["permission"], "deny", "{reply}");
    }
    app.assert_healthy().await;
}

/// A body over the limit that does not even begin like an event is a 413; so is a bundle.
#[tokio::test]
async fn a_20_mib_body_that_is_no_event_is_a_413() {
    let (app, agent) = app_with_agent().await;
    let body = vec![b'a'; 20 * 1024 * 1024];
    let response = app.evaluate_raw(Some(&agent), body.clone()).await;
    let message = assert_error(response, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    assert!(message.contains("4194304"), "{message}");

    let response = app
        .client
        .post(app.url("/v1/tenants/team/bundles"))
        .bearer_auth(ADMIN_TOKEN)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let message = assert_error(response, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    assert!(message.contains("4194304"), "{message}");
    app.assert_healthy().await;
}

/// Anything up to `--max-body-bytes` is evaluated, not only what axum's own default limit
/// (2 MiB) lets through: a 413 would let the agent's tool call go ahead unchecked.
#[tokio::test]
async fn a_3_mib_event_under_the_4_mib_limit_is_evaluated() {
    let (app, agent) = app_with_agent().await;
    let mut body =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a.txt","content":""#
            .to_vec();
    body.resize(body.len() + 3 * 1024 * 1024, b'a');
    body.extend_from_slice(br#""}}"#);
    let response = app.evaluate_raw(Some(&agent), body).await;
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.unwrap();
    assert!(answer.is_object(), "{answer}");
    app.assert_healthy().await;
}

#[tokio::test]
async fn json_nested_10000_deep_is_a_400_without_overflowing_the_stack() {
    let (app, agent) = app_with_agent().await;
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for body in [
        deep.clone(),
        format!(r#"{{"tool_input":{deep},"hook_event_name":"PreToolUse"}}"#),
    ] {
        let response = app.evaluate_raw(Some(&agent), body).await;
        let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
        assert!(message.contains("nests deeper"), "{message}");
    }
    app.assert_healthy().await;
}

#[tokio::test]
async fn invalid_utf8_is_a_400() {
    let (app, agent) = app_with_agent().await;
    let mut body = br#"{"session_id":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe, 0xc3]);
    body.extend_from_slice(
        br#"","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
    );
    let response = app.evaluate_raw(Some(&agent), body).await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_event").await;
    app.assert_healthy().await;
}

#[tokio::test]
async fn unknown_event_names_get_no_opinion() {
    let (app, agent) = app_with_agent().await;
    let reply = app
        .evaluate(
            &agent,
            &json!({"hook_event_name": "SomethingNew", "session_id": "s", "extra": [1]}),
        )
        .await;
    assert_eq!(reply, json!({}));
    app.assert_healthy().await;
}

#[tokio::test]
async fn unknown_tools_are_valid_events() {
    let (app, agent) = app_with_agent().await;
    let id = app
        .push("global", &crate::helpers::deny_bundle("g", "WebFetch"))
        .await;
    app.activate("global", id).await;
    let event = json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__somewhere__new_tool",
        "tool_input": {"anything": {"nested": true}},
    });
    let reply = app.evaluate(&agent, &event).await;
    assert_eq!(reply, json!({}));
    app.assert_healthy().await;
}

#[tokio::test]
async fn a_missing_token_is_a_401() {
    let app = spawn_app().await;
    // A hook event: the failure decision, as a 401 would let the agent proceed (a developer's
    // shell without the token's variable would run unchecked).
    let response = app
        .evaluate_raw(None, serde_json::to_vec(&bash("ls")).unwrap())
        .await;
    assert_refused(response, "a bearer token is required").await;
    // Anything else: the 401, before what else is wrong with it (a query no route takes).
    let response = app.evaluate_raw(None, b"{}".to_vec()).await;
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = app
        .client
        .post(app.url("/v1/evaluate?x=1"))
        .json(&bash("ls"))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    app.assert_healthy().await;
}

#[tokio::test]
async fn a_wrong_token_is_a_401() {
    let app = spawn_app().await;
    let response = app
        .evaluate_raw(
            Some("tg_0000000000000000000000000000000000000000000000000000000000000000"),
            serde_json::to_vec(&bash("ls")).unwrap(),
        )
        .await;
    assert_refused(response, "unknown or revoked token").await;
    let response = app
        .evaluate_raw(
            Some("tg_0000000000000000000000000000000000000000000000000000000000000000"),
            b"not an event".to_vec(),
        )
        .await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = app
        .client
        .post(app.url("/v1/evaluate"))
        .header("authorization", "Basic abc")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    app.assert_healthy().await;
}

#[tokio::test]
async fn an_admin_token_cannot_evaluate_and_an_agent_token_cannot_administer() {
    let (app, agent) = app_with_agent().await;
    let response = app
        .evaluate_raw(
            Some(&app.admin_token),
            serde_json::to_vec(&bash("ls")).unwrap(),
        )
        .await;
    assert_refused(response, "this endpoint needs a token with role `agent`").await;
    let response = app
        .evaluate_raw(Some(&app.admin_token), b"[]".to_vec())
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    let response = app
        .push_as(
            &agent,
            "team",
            &crate::helpers::deny_bundle("x", "Bash(rm:*)"),
        )
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
}

#[tokio::test]
async fn anonymous_loopback_evaluation_is_off_by_default_and_uses_global_when_on() {
    let app = spawn_app().await;
    let response = app
        .evaluate_raw(
            None,
            serde_json::to_vec(&crate::helpers::tool("WebFetch")).unwrap(),
        )
        .await;
    assert_refused(response, "a bearer token is required").await;

    let open =
        crate::helpers::spawn_app_with(|config| config.allow_anonymous_loopback = true).await;
    let id = open
        .push("global", &crate::helpers::deny_bundle("g", "WebFetch"))
        .await;
    let activation = open.activate("global", id).await;
    open.wait_served("global", activation).await;
    let response = open
        .evaluate_raw(
            None,
            serde_json::to_vec(&crate::helpers::tool("WebFetch")).unwrap(),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: serde_json::Value = response.json().await.unwrap();
    assert_eq!(crate::helpers::decision_of(&reply), "deny", "{reply}");
}

#[tokio::test]
async fn a_bundle_with_a_nul_character_or_a_null_name_is_a_422_and_nothing_is_stored() {
    let app = spawn_app().await;
    let nul = json!({"name": "n", "permissions": {"deny": ["Bash(rm:*)", "Bash(x\u{0}y)"]}});
    let null_name = json!({"name": null});
    for (bundle, location) in [(nul, "permissions.deny[1]"), (null_name, "name")] {
        let response = app.push_as(&app.admin_token, "team", &bundle).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_bundle", "{body}");
        assert_eq!(body["errors"][0]["location"], location, "{body}");
    }
    let list = app.list_bundles("team").await;
    assert_eq!(list["bundles"], json!([]));
}

/// `TOOLGATE_ADMIN_TOKEN` is the `global` tenant's admin, which acts on every tenant: a short
/// one could be guessed over HTTP, and one with blanks around it could never be presented
/// (the `Authorization` header is trimmed). The server refuses to start with either, and the
/// message names the variable, never its value.
#[tokio::test]
async fn a_short_or_padded_bootstrap_admin_token_is_refused_at_start() {
    for token in [
        "admin".to_owned(),
        "x".repeat(31),
        format!(" {ADMIN_TOKEN}"),
        format!("{ADMIN_TOKEN}\n"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut config = toolgate::config::Config::embedded(dir.path());
        config.listen = "127.0.0.1:0".into();
        config.admin_token = Some(token.clone());
        let Err(error) = toolgate::startup::Application::build(config).await else {
            panic!("the server started with TOOLGATE_ADMIN_TOKEN={token:?}");
        };
        let message = format!("{error:#}");
        assert!(message.contains("TOOLGATE_ADMIN_TOKEN"), "{message}");
        assert!(!message.contains(token.trim()), "{message}");
    }
    // 32 characters are enough.
    let dir = tempfile::tempdir().unwrap();
    let mut config = toolgate::config::Config::embedded(dir.path());
    config.listen = "127.0.0.1:0".into();
    config.admin_token = Some("x".repeat(32));
    assert!(toolgate::startup::Application::build(config).await.is_ok());
}
