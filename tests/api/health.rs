use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Backend, on_both_backends, spawn_app, spawn_app_on};

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
