//! When toolgate cannot decide a valid event it answers with the failure decision, never a 5xx.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{assert_error, decision_of, deny_bundle, spawn_app_with, spawn_replica, tool};

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

#[tokio::test]
async fn the_failure_decision_is_configurable() {
    let app = spawn_app_with(|config| {
        config.concurrency_limit = 0;
        config.failure_decision = toolgate_engine::Outcome::Ask;
    })
    .await;
    let agent = app.create_token("agent", "team").await;
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "ask", "{reply}");
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
    let response = app
        .evaluate_raw(
            Some("tg_unknown"),
            serde_json::to_vec(&tool("WebFetch")).unwrap(),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");

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
