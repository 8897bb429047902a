//! With the database stopped, evaluation goes on from the live policy, admin writes answer 503,
//! and everything resumes when it is back; a replica started while it is down serves the cache.
//! These tests use a private PostgreSQL they can stop (`pg.rs`).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{assert_error, decision_of, deny_bundle, eventually, spawn_replica, tool};
use crate::pg::PrivatePostgres;

#[tokio::test]
async fn evaluation_goes_on_while_the_database_is_down_and_writes_resume_after() {
    let pg = PrivatePostgres::start();
    let app = spawn_replica(&pg.url(), |_| {}).await;
    let agent = app.create_token("agent", "team").await;
    let id = app.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );

    pg.stop();

    // Evaluation continues from memory.
    for _ in 0..3 {
        assert_eq!(
            decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
            "deny"
        );
    }
    // Writes fail fast with a clear 503.
    let response = app
        .push_as(&app.admin_token, "team", &deny_bundle("y", "mcp__db"))
        .await;
    let message = assert_error(
        response,
        StatusCode::SERVICE_UNAVAILABLE,
        "database_unavailable",
    )
    .await;
    assert!(message.contains("database"), "{message}");
    let response = app.activate_as(&app.admin_token, "team", id).await;
    assert_error(
        response,
        StatusCode::SERVICE_UNAVAILABLE,
        "database_unavailable",
    )
    .await;
    // Readiness says degraded, yet ready.
    eventually(
        Duration::from_secs(10),
        "readyz to say degraded",
        || async {
            let response = app.client.get(app.url("/readyz")).send().await.unwrap();
            let ok = response.status() == StatusCode::OK;
            let body: Value = response.json().await.unwrap();
            (ok && body["status"] == "degraded" && body["database"] == "down").then_some(())
        },
    )
    .await;
    app.assert_healthy().await;

    pg.start_server();

    // Everything resumes without a restart of toolgate.
    let second = eventually(Duration::from_secs(20), "pushes to work again", || async {
        let response = app
            .push_as(&app.admin_token, "team", &deny_bundle("y", "mcp__db"))
            .await;
        if response.status().is_success() {
            let body: Value = response.json().await.unwrap();
            body["id"].as_i64()
        } else {
            None
        }
    })
    .await;
    let activation = app.activate("team", second).await;
    app.wait_served("team", activation).await;
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("mcp__db__query")).await),
        "deny"
    );
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
        "none"
    );
    eventually(Duration::from_secs(10), "readyz to say ready", || async {
        let body: Value = app
            .client
            .get(app.url("/readyz"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (body["status"] == "ready").then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_replica_started_while_the_database_is_down_serves_the_cached_policy() {
    let pg = PrivatePostgres::start();
    let a = spawn_replica(&pg.url(), |_| {}).await;
    let agent = a.create_token("agent", "team").await;
    let id = a.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = a.activate("team", id).await;
    a.wait_served("team", activation).await;
    // Wait until A's cache holds the activation and the agent token.
    let cache_file = a.cache_dir.join("policies.json");
    eventually(
        Duration::from_secs(10),
        "A's cache to be written",
        || async {
            let text = std::fs::read_to_string(&cache_file).ok()?;
            let cache: Value = serde_json::from_str(&text).ok()?;
            let has_policy = cache["policies"]
                .as_array()?
                .iter()
                .any(|p| p["activation_id"].as_i64() == Some(activation));
            let has_token = !cache["tokens"].as_array()?.is_empty();
            (has_policy && has_token).then_some(())
        },
    )
    .await;
    assert!(
        !std::fs::read_to_string(&cache_file)
            .unwrap()
            .contains(&agent),
        "the cache must hold token hashes only"
    );

    pg.stop();

    let cache_dir = a.cache_dir.clone();
    let c = spawn_replica(&pg.url(), move |config| config.cache_dir = cache_dir).await;
    let response = c.client.get(c.url("/readyz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "degraded", "{body}");
    assert_eq!(
        decision_of(&c.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );

    pg.start_server();
    eventually(
        Duration::from_secs(20),
        "C to reach the database",
        || async {
            let body: Value = c
                .client
                .get(c.url("/readyz"))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            (body["status"] == "ready").then_some(())
        },
    )
    .await;
}
