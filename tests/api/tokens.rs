//! Token expiry on both stores: an expired token is refused as a revoked one is — a 401 on the
//! admin and audit routes, the failure decision on the evaluate routes — whether the replica
//! knows it from memory or looks it up, and each use is counted.

use chrono::{Duration, Utc};
use reqwest::StatusCode;

use crate::helpers::{
    Backend, assert_error, assert_refused, bash, on_both_backends, sample, scrape, spawn_app_on,
};

on_both_backends!(an_expired_token_is_refused_as_a_revoked_one_is);

async fn an_expired_token_is_refused_as_a_revoked_one_is(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let past = Some(Utc::now() - Duration::hours(1));
    let future = Some(Utc::now() + Duration::days(90));
    let expired_agent = app.create_token_expiring("agent", "team", past).await;
    let live_agent = app.create_token_expiring("agent", "team", future).await;
    let expired_admin = app.create_token_expiring("admin", "team", past).await;
    let live_admin = app.create_token_expiring("admin", "team", future).await;

    // A token that has not expired works.
    assert_eq!(app.decide(&live_agent, &bash("ls")).await, "none");
    let listed = app.get_as(&live_admin, "/v1/tenants/team/bundles").await;
    assert_eq!(listed.status(), StatusCode::OK);

    // The first use looks the token up in the database, the second finds it in memory: both
    // refuse it, and say it expired.
    let event = serde_json::to_vec(&bash("ls")).unwrap();
    for _ in 0..2 {
        let response = app.evaluate_raw(Some(&expired_agent), event.clone()).await;
        assert_refused(response, "the token expired at ").await;
        let response = app.get_as(&expired_admin, "/v1/tenants/team/bundles").await;
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let message = assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
        assert!(message.starts_with("the token expired at "), "{message}");
    }
    let text = scrape(&app, &app.address).await;
    let uses = |role| {
        sample(
            &text,
            "toolgate_expired_token_uses_total",
            &[("role", role)],
        )
    };
    assert_eq!(uses("agent"), Some(2.0), "{text}");
    assert_eq!(uses("admin"), Some(2.0), "{text}");
    // Refused like any refused caller: the failure decision, counted as such.
    let refused = sample(
        &text,
        "toolgate_evaluation_failures_total",
        &[("reason", "refused")],
    );
    assert_eq!(refused, Some(2.0), "{text}");
}
