//! A token of tenant A can neither push, read nor activate tenant B's bundles, nor evaluate
//! against B's policy.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    Backend, assert_error, decision_of, deny_bundle, on_both_backends, spawn_app_on, tool,
};

on_both_backends!(tokens_are_confined_to_their_tenant);

async fn tokens_are_confined_to_their_tenant(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let admin_a = app.create_token("admin", "tenant-a").await;
    let agent_a = app.create_token("agent", "tenant-a").await;
    let agent_b = app.create_token("agent", "tenant-b").await;
    let bundle_b = app.push("tenant-b", &deny_bundle("b", "mcp__b")).await;
    let activation = app.activate("tenant-b", bundle_b).await;
    app.wait_served("tenant-b", activation).await;

    // Push, list, read, activate, roll back and read the policy of B: all refused.
    let response = app
        .push_as(&admin_a, "tenant-b", &deny_bundle("evil", "Bash(rm:*)"))
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    for path in [
        "/v1/tenants/tenant-b/bundles".to_owned(),
        format!("/v1/tenants/tenant-b/bundles/{bundle_b}"),
        "/v1/tenants/tenant-b/policy".to_owned(),
    ] {
        let response = app
            .client
            .get(app.url(&path))
            .bearer_auth(&admin_a)
            .send()
            .await
            .unwrap();
        assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let response = app.activate_as(&admin_a, "tenant-b", bundle_b).await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    let response = app
        .client
        .post(app.url("/v1/tenants/tenant-b/rollback"))
        .bearer_auth(&admin_a)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;

    // A's bundle ids are not reachable through A's path either.
    let response = app.activate_as(&admin_a, "tenant-a", bundle_b).await;
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;

    // Evaluation follows the token's tenant: B's deny does not apply to A's agent.
    assert_eq!(app.evaluate(&agent_a, &tool("mcp__b__x")).await, json!({}));
    assert_eq!(
        decision_of(&app.evaluate(&agent_b, &tool("mcp__b__x")).await),
        "deny"
    );

    // A's admin works on A.
    let response = app
        .push_as(&admin_a, "tenant-a", &deny_bundle("a", "Bash(rm:*)"))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
}
