use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, bash, decision_of, deny_bundle, eventually, on_both_backends, spawn_app, spawn_app_on,
    spawn_app_until,
};

on_both_backends!(readyz_is_ready_once_the_initial_load_finished_even_with_no_bundles);

#[tokio::test]
async fn healthz_is_ok() {
    let app = spawn_app().await;
    app.assert_healthy().await;
}

async fn readyz_is_ready_once_the_initial_load_finished_even_with_no_bundles(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let response = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], json!("ready"));
    assert_eq!(body["database"], json!("up"));
}

/// Told to stop (SIGTERM), a replica with `--shutdown-delay` is no longer ready, so that the
/// load balancer takes it out, but it goes on accepting connections and deciding hook events
/// for the delay: a refused connection would be a non-blocking error to Claude Code.
#[tokio::test]
async fn a_stopping_replica_is_not_ready_but_still_decides_for_the_shutdown_delay() {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = spawn_app_until(
        |config| config.shutdown_delay = Duration::from_secs(3600),
        async move {
            let _ = stopped.await;
        },
    )
    .await;
    let agent = app.create_token("agent", "team").await;
    let id = app.push("team", &deny_bundle("no-rm", "Bash(rm:*)")).await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);

    stop.send(()).unwrap();
    let body = eventually(
        Duration::from_secs(10),
        "/readyz to say stopping",
        || async {
            let response = app.client.get(app.url("/readyz")).send().await.unwrap();
            (response.status() == StatusCode::SERVICE_UNAVAILABLE)
                .then_some(response.json::<Value>().await.unwrap())
        },
    )
    .await;
    assert_eq!(body["status"], json!("stopping"));
    assert_eq!(body["database"], json!("up"));

    // A new connection is still accepted and its event decided.
    let fresh = reqwest::Client::new();
    let response = fresh
        .post(app.url("/v1/evaluate"))
        .bearer_auth(&agent)
        .json(&bash("rm -r build"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(decision_of(&response.json().await.unwrap()), "deny");
    app.assert_healthy().await;
}

/// Without `--shutdown-delay` (the default), a replica told to stop closes its listener at once.
#[tokio::test]
async fn without_a_shutdown_delay_a_stopping_replica_closes_its_listener() {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = spawn_app_until(|_| {}, async move {
        let _ = stopped.await;
    })
    .await;
    app.assert_healthy().await;
    stop.send(()).unwrap();
    eventually(Duration::from_secs(10), "the listener to close", || async {
        // A fresh client: no kept-alive connection from before.
        let fresh = reqwest::Client::new();
        fresh
            .get(app.url("/healthz"))
            .send()
            .await
            .err()
            .map(|_| ())
    })
    .await;
}

#[tokio::test]
async fn responses_carry_a_request_id() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    let id = response.headers()["x-request-id"].to_str().unwrap();
    assert!(id.starts_with(&app.replica_id), "{id}");

    // A client's own id is kept when it is a plain token, and replaced otherwise: it goes into
    // the logs.
    let echoed = |sent: String| {
        let request = app
            .client
            .get(app.url("/healthz"))
            .header("x-request-id", sent);
        async move {
            let response = request.send().await.unwrap();
            response.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    assert_eq!(echoed("trace-01.a_b".into()).await, "trace-01.a_b");
    for unfit in [
        "x".repeat(65),
        r#"a" level=error msg="forged"#.to_owned(),
        "a b".to_owned(),
    ] {
        let id = echoed(unfit.clone()).await;
        assert!(id.starts_with(&app.replica_id), "{unfit:?} → {id}");
    }
}

#[tokio::test]
async fn unknown_routes_answer_a_json_404() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/nope")).send().await.unwrap();
    crate::helpers::assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
}
