//! Remembered decisions: the same call made again is answered from memory, counted and audited
//! like a fresh one; a decision made with one policy is never given under another (a new
//! activation, a rollback, another tenant); a call too large to remember is evaluated afresh.

use serde_json::{Value, json};

use crate::audit::{audit_rows, bash_call};
use crate::helpers::{
    Backend, TestApp, decision_of, deny_bundle, on_both_backends, sample, scrape, spawn_app_on,
    spawn_app_with,
};

/// The count of `toolgate_decision_cache_lookups_total{result}`.
async fn lookups(app: &TestApp, result: &str) -> f64 {
    let text = scrape(app, &app.address).await;
    sample(
        &text,
        "toolgate_decision_cache_lookups_total",
        &[("result", result)],
    )
    .unwrap_or(0.0)
}

/// The count of enforced `toolgate_decisions_total` answers of `decision` to Bash calls.
async fn bash_decisions(app: &TestApp, decision: &str) -> f64 {
    let text = scrape(app, &app.address).await;
    sample(
        &text,
        "toolgate_decisions_total",
        &[
            ("tool", "Bash"),
            ("decision", decision),
            ("mode", "enforce"),
        ],
    )
    .unwrap_or(0.0)
}

/// Pushes and activates `bundle` for `tenant`, and waits until the server serves it.
async fn make_live(app: &TestApp, tenant: &str, bundle: &Value) {
    let id = app.push(tenant, bundle).await;
    let activation = app.activate(tenant, id).await;
    app.wait_served(tenant, activation).await;
}

on_both_backends!(a_repeated_call_is_answered_from_memory);

async fn a_repeated_call_is_answered_from_memory(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "acme").await;
    make_live(&app, "acme", &deny_bundle("acme", "Bash(rm:*)")).await;

    let first = app
        .evaluate(&agent, &bash_call("s1", "toolu_1", "rm -rf build"))
        .await;
    assert_eq!(decision_of(&first), "deny");
    assert_eq!(lookups(&app, "miss").await, 1.0);
    assert_eq!(lookups(&app, "hit").await, 0.0);

    // Another session and another tool use: the same call, answered from memory, word for word.
    let again = app
        .evaluate(&agent, &bash_call("s2", "toolu_2", "rm -rf build"))
        .await;
    assert_eq!(again, first);
    assert_eq!(lookups(&app, "hit").await, 1.0);

    // Counted and audited like any evaluation: two answers, two rows, each with its own ids.
    assert_eq!(bash_decisions(&app, "deny").await, 2.0);
    let rows = audit_rows(&app.db).await;
    let calls: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| {
            (
                row["session_id"].as_str().unwrap(),
                row["tool_use_id"].as_str().unwrap(),
                row["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [("s1", "toolu_1", "deny"), ("s2", "toolu_2", "deny")]
    );

    // A different command, or the same one from another directory, is evaluated afresh.
    let other = app
        .evaluate(&agent, &bash_call("s1", "toolu_3", "ls build"))
        .await;
    assert_eq!(other, json!({}));
    let mut elsewhere = bash_call("s1", "toolu_4", "rm -rf build");
    elsewhere["cwd"] = json!("/tmp/q");
    assert_eq!(decision_of(&app.evaluate(&agent, &elsewhere).await), "deny");
    assert_eq!(lookups(&app, "miss").await, 3.0);
    assert_eq!(lookups(&app, "hit").await, 1.0);
}

on_both_backends!(a_remembered_answers_rows_are_masked_too);

async fn a_remembered_answers_rows_are_masked_too(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "acme").await;
    make_live(&app, "acme", &deny_bundle("acme", "Bash(rm:*)")).await;
    // A made-up token in the GitHub format, built at run time so that no scanner flags this file.
    let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
    let command = format!("curl -H 'Authorization: token {token}' https://api.github.com/user");
    for n in 0..3 {
        let call = bash_call("s", &format!("toolu_{n}"), &command);
        app.evaluate(&agent, &call).await;
    }
    assert_eq!(lookups(&app, "hit").await, 2.0);
    let rows = audit_rows(&app.db).await;
    assert_eq!(rows.len(), 3);
    for row in &rows {
        let text = row.to_string();
        assert!(!text.contains(&token), "{text}");
        assert!(text.contains("REDACTED"), "{text}");
    }
}

on_both_backends!(a_decision_is_never_given_under_another_policy);

async fn a_decision_is_never_given_under_another_policy(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let acme = app.create_token("agent", "acme").await;
    let beta = app.create_token("agent", "beta").await;
    let call = bash_call("s", "toolu", "rm -rf build");
    make_live(&app, "acme", &deny_bundle("strict", "Bash(rm:*)")).await;
    assert_eq!(decision_of(&app.evaluate(&acme, &call).await), "deny");
    assert_eq!(decision_of(&app.evaluate(&acme, &call).await), "deny");
    assert_eq!(lookups(&app, "hit").await, 1.0);

    // Another tenant with no policy of its own: not acme's remembered deny.
    assert_eq!(app.evaluate(&beta, &call).await, json!({}));

    // A new activation for acme: the remembered deny is not given.
    make_live(&app, "acme", &deny_bundle("lenient", "Bash(curl:*)")).await;
    assert_eq!(app.evaluate(&acme, &call).await, json!({}));

    // Rolled back: the strict bundle again, evaluated with the reloaded policy.
    let response = app.rollback("acme").await;
    assert!(response.status().is_success());
    let activation: Value = response.json().await.unwrap();
    app.wait_served("acme", activation["id"].as_i64().unwrap())
        .await;
    assert_eq!(decision_of(&app.evaluate(&acme, &call).await), "deny");

    // A `global` policy beside acme's own changes acme's answers too.
    make_live(&app, "global", &deny_bundle("global", "Bash(ls:*)")).await;
    let listing = bash_call("s", "toolu", "ls build");
    assert_eq!(decision_of(&app.evaluate(&acme, &listing).await), "deny");
    assert_eq!(decision_of(&app.evaluate(&beta, &listing).await), "deny");
}

#[tokio::test]
async fn a_call_too_large_to_remember_is_evaluated_afresh() {
    let app = spawn_app_with(|_| {}).await;
    let agent = app.create_token("agent", "acme").await;
    make_live(&app, "acme", &deny_bundle("acme", "Bash(rm:*)")).await;
    let long = format!("rm -rf build # {}", "x".repeat(9 * 1024));
    for n in 0..2 {
        let call = bash_call("s", &format!("toolu_{n}"), &long);
        assert_eq!(decision_of(&app.evaluate(&agent, &call).await), "deny");
    }
    assert_eq!(lookups(&app, "too_large").await, 2.0);
    assert_eq!(lookups(&app, "hit").await, 0.0);
}

#[tokio::test]
async fn no_decision_is_remembered_when_the_cache_is_off() {
    let app = spawn_app_with(|config| config.decision_cache_bytes = 0).await;
    let agent = app.create_token("agent", "acme").await;
    make_live(&app, "acme", &deny_bundle("acme", "Bash(rm:*)")).await;
    for n in 0..2 {
        let call = bash_call("s", &format!("toolu_{n}"), "rm -rf build");
        assert_eq!(decision_of(&app.evaluate(&agent, &call).await), "deny");
    }
    assert_eq!(bash_decisions(&app, "deny").await, 2.0);
    for result in ["hit", "miss", "too_large"] {
        assert_eq!(lookups(&app, result).await, 0.0, "{result}");
    }
}
