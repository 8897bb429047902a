//! `/metrics`: the labelled series after real evaluations, bounded labels, live bundle info, and
//! the separate metrics listener.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::failure::{lock_tokens, lookups_waiting};
use crate::helpers::{
    TestApp, assert_error, bash, eventually, sample, scrape, spawn_app, spawn_app_with, tool,
};

fn decisions(text: &str, tool: &str, decision: &str) -> Option<f64> {
    sample(
        text,
        "toolgate_decisions_total",
        &[
            ("agent", "claude-code"),
            ("event", "PreToolUse"),
            ("tool", tool),
            ("decision", decision),
            ("mode", "enforce"),
        ],
    )
}

/// The label values of `label` over every sample of `name`.
fn label_values(text: &str, name: &str, label: &str) -> Vec<String> {
    let key = format!("{label}=\"");
    text.lines()
        .filter_map(|line| line.strip_prefix(name)?.strip_prefix('{'))
        .filter_map(|line| {
            let start = line.find(&key)? + key.len();
            let end = line[start..].find('"')?;
            Some(line[start..start + end].to_owned())
        })
        .collect()
}

async fn serve_bundle(app: &TestApp, tenant: &str, bundle: &Value) -> i64 {
    let id = app.push(tenant, bundle).await;
    let activation = app.activate(tenant, id).await;
    app.wait_served(tenant, activation).await;
    id
}

#[tokio::test]
async fn evaluations_appear_as_labelled_series() {
    let app = spawn_app().await;
    let agent = app.create_token("agent", "team").await;
    let bundle = json!({
        "name": "team-policy",
        "permissions": {
            "deny": ["Bash(git push --force:*)", "mcp__prod-db__drop_table"],
            "ask": ["Bash(terraform apply:*)"],
            "allow": ["Bash(cargo test:*)", "WebFetch"],
        },
        "rules": [{"id": "curl-anything", "program": ["curl"], "decision": "deny",
                   "reason": "shadowed", "mode": "warn"}],
    });
    let bundle_id = serve_bundle(&app, "team", &bundle).await;

    for (event, expected) in [
        (bash("git push --force origin main"), "deny"),
        (bash("git push --force origin dev"), "deny"),
        (bash("terraform apply -auto-approve"), "ask"),
        (bash("cargo test --workspace"), "allow"),
        (bash("curl https://example.com"), "none"),
        (tool("WebFetch"), "allow"),
        (tool("mcp__prod-db__drop_table"), "deny"),
        (tool("mcp__prod-db__select"), "none"),
        (tool("BrandNewTool"), "none"),
    ] {
        let reply = app.evaluate(&agent, &event).await;
        assert_eq!(crate::helpers::decision_of(&reply), expected, "{event}");
    }
    let stop = json!({"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": false});
    app.evaluate(&agent, &stop).await;
    let unknown = json!({"hook_event_name": "SomethingInvented", "session_id": "s"});
    app.evaluate(&agent, &unknown).await;

    let text = scrape(&app, &app.address).await;
    assert_eq!(decisions(&text, "Bash", "deny"), Some(2.0), "{text}");
    assert_eq!(decisions(&text, "Bash", "ask"), Some(1.0));
    assert_eq!(decisions(&text, "Bash", "allow"), Some(1.0));
    assert_eq!(decisions(&text, "Bash", "none"), Some(1.0));
    assert_eq!(decisions(&text, "WebFetch", "allow"), Some(1.0));
    assert_eq!(decisions(&text, "mcp__prod-db__*", "deny"), Some(1.0));
    assert_eq!(decisions(&text, "mcp__prod-db__*", "none"), Some(1.0));
    assert_eq!(decisions(&text, "other", "none"), Some(1.0));
    let shadow = [("tool", "Bash"), ("decision", "deny"), ("mode", "warn")];
    assert_eq!(
        sample(&text, "toolgate_decisions_total", &shadow),
        Some(1.0),
        "the shadow rule's answer is counted apart: {text}"
    );
    let stop = [("event", "Stop"), ("tool", "none"), ("decision", "none")];
    assert_eq!(sample(&text, "toolgate_decisions_total", &stop), Some(1.0));
    let other = [("event", "other"), ("tool", "none")];
    assert_eq!(sample(&text, "toolgate_decisions_total", &other), Some(1.0));
    assert!(!text.contains("SomethingInvented") && !text.contains("BrandNewTool"));

    let team_denies = [("tenant", "team"), ("decision", "deny")];
    assert_eq!(
        sample(&text, "toolgate_tenant_decisions_total", &team_denies),
        Some(3.0)
    );
    let force_push = [
        ("rule", "Bash(git push --force:*)"),
        ("mode", "enforce"),
        ("decision", "deny"),
    ];
    assert_eq!(
        sample(&text, "toolgate_rule_hits_total", &force_push),
        Some(2.0)
    );
    let curl = [("rule", "curl-anything"), ("mode", "warn")];
    assert_eq!(sample(&text, "toolgate_rule_hits_total", &curl), Some(1.0));

    let gate = [("gate", "true")];
    assert_eq!(
        sample(&text, "toolgate_evaluation_duration_seconds_count", &gate),
        Some(9.0)
    );
    let evaluate = [
        ("method", "POST"),
        ("path", "/v1/evaluate"),
        ("status", "200"),
    ];
    assert_eq!(
        sample(
            &text,
            "toolgate_http_request_duration_seconds_count",
            &evaluate
        ),
        Some(11.0)
    );
    let sha = app.policy("team").await["served"]["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    let info = [
        ("tenant", "team"),
        ("bundle_id", &bundle_id.to_string()),
        ("sha256", &sha),
    ];
    assert_eq!(sample(&text, "toolgate_bundle_info", &info), Some(1.0));
    let activated = sample(
        &text,
        "toolgate_bundle_activated_timestamp_seconds",
        &[("tenant", "team")],
    )
    .unwrap();
    assert!(activated > 1.7e9, "{activated}");
    assert!(sample(&text, "toolgate_reloads_total", &[("result", "loaded")]).unwrap() >= 1.0);
    assert_eq!(
        sample(&text, "toolgate_database_up", &[]),
        None,
        "no labels"
    );
    assert!(text.contains("\ntoolgate_database_up 1\n"), "{text}");
    assert!(text.contains("\nprocess_resident_memory_bytes "), "{text}");
}

#[tokio::test]
async fn http_labels_are_route_templates_and_bundle_info_follows_activations() {
    let app = spawn_app().await;
    let first = serve_bundle(&app, "team-a", &json!({"name": "one"})).await;
    let second = serve_bundle(&app, "team-a", &json!({"name": "two"})).await;
    let response = app
        .client
        .get(app.url("/no/such/route/42"))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    let response = app
        .client
        .get(app.url("/v1/tenants/team-a/bundles/999999"))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);

    let text = scrape(&app, &app.address).await;
    let paths = label_values(
        &text,
        "toolgate_http_request_duration_seconds_count",
        "path",
    );
    assert!(paths.iter().any(|path| path == "unmatched"), "{paths:?}");
    assert!(
        paths
            .iter()
            .all(|path| path == "unmatched" || toolgate::routes::route_index(path).is_some()),
        "every path label is a route template: {paths:?}"
    );
    let get_bundle = [
        ("method", "GET"),
        ("path", "/v1/tenants/{tenant}/bundles/{id}"),
        ("status", "404"),
    ];
    assert_eq!(
        sample(
            &text,
            "toolgate_http_request_duration_seconds_count",
            &get_bundle
        ),
        Some(1.0)
    );
    let ids = label_values(&text, "toolgate_bundle_info", "bundle_id");
    assert_eq!(
        ids,
        vec![second.to_string()],
        "bundle {first} is gone: {text}"
    );
}

#[tokio::test]
async fn a_separate_metrics_listener_takes_metrics_off_the_main_one() {
    let app = spawn_app_with(|config| config.metrics_listen = Some("127.0.0.1:0".into())).await;
    let metrics = app.metrics_address.clone().expect("a metrics listener");
    assert_ne!(metrics, app.address);
    let agent = app.create_token("agent", "team").await;
    app.evaluate(&agent, &bash("ls")).await;

    let response = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    let text = scrape(&app, &metrics).await;
    assert_eq!(decisions(&text, "Bash", "none"), Some(1.0), "{text}");
    let response = app
        .client
        .get(format!("{metrics}/v1/evaluate"))
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
}

/// `toolgate_token_lookups_total{result}` of `text`.
fn token_lookups(text: &str, result: &str) -> Option<f64> {
    sample(text, "toolgate_token_lookups_total", &[("result", result)])
}

/// Tokens not in memory are counted by what became of them, and their database queries timed:
/// a token found, one found in no row and then refused from memory, one whose query failed,
/// and one shed while the only lookup the pool allows waits on a lock. Tokens in memory are not
/// lookups.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_lookups_are_counted_by_result_and_timed() {
    // No poll: a token made after the start stays out of memory until it is looked up. Five
    // connections allow one lookup at a time.
    let app = spawn_app_with(|config| config.poll_interval = Duration::from_secs(3600)).await;
    // The initial load and the listener's first resync have read the tokens; none comes later.
    eventually(Duration::from_secs(30), "the listener's resync", || async {
        let text = scrape(&app, &app.address).await;
        let syncs = sample(&text, "toolgate_reloads_total", &[("result", "unchanged")]);
        (syncs >= Some(2.0)).then_some(())
    })
    .await;
    let text = scrape(&app, &app.address).await;
    for result in [
        "known",
        "unknown",
        "negative_cache_hit",
        "shed",
        "database_error",
    ] {
        assert_eq!(token_lookups(&text, result), Some(0.0), "{result}: {text}");
    }

    let agent = app.create_token("agent", "team").await;
    for _ in 0..2 {
        assert_eq!(app.evaluate(&agent, &bash("ls")).await, json!({}));
    }
    let unknown = toolgate::auth::generate_token().unwrap();
    for _ in 0..2 {
        let response = app
            .evaluate_raw(Some(&unknown), bash("ls").to_string())
            .await;
        crate::helpers::assert_refused(response, "unknown or revoked token").await;
    }

    // The query fails: the token is not checked, and the evaluation gets the failure decision.
    let rename = async |sql: &'static str| sqlx::query(sql).execute(app.pg()).await.unwrap();
    rename("ALTER TABLE tokens RENAME TO tokens_away").await;
    let failed = toolgate::auth::generate_token().unwrap();
    let reply = app.evaluate(&failed, &bash("ls")).await;
    assert_eq!(crate::helpers::decision_of(&reply), "deny", "{reply}");
    rename("ALTER TABLE tokens_away RENAME TO tokens").await;

    // One lookup waits on a lock and holds the only permit; the next is shed.
    let lock = lock_tokens(&app).await;
    let waiting = {
        let request = app
            .client
            .post(app.url("/v1/evaluate"))
            .bearer_auth(toolgate::auth::generate_token().unwrap())
            .header("content-type", "application/json")
            .body(bash("ls").to_string());
        tokio::spawn(async move { request.send().await.unwrap().status() })
    };
    eventually(
        Duration::from_secs(30),
        "a token lookup on the lock",
        || async { (lookups_waiting(&app).await > 0).then_some(()) },
    )
    .await;
    let shed = toolgate::auth::generate_token().unwrap();
    let reply = app.evaluate(&shed, &bash("ls")).await;
    assert_eq!(crate::helpers::decision_of(&reply), "deny", "{reply}");
    lock.rollback().await.unwrap();
    assert_eq!(waiting.await.unwrap(), StatusCode::OK);

    let text = scrape(&app, &app.address).await;
    for (result, count) in [
        ("known", 1.0),
        ("unknown", 2.0),
        ("negative_cache_hit", 1.0),
        ("shed", 1.0),
        ("database_error", 1.0),
    ] {
        assert_eq!(
            token_lookups(&text, result),
            Some(count),
            "{result}: {text}"
        );
    }
    assert_eq!(
        sample(&text, "toolgate_token_lookup_duration_seconds_count", &[]),
        None,
        "no labels"
    );
    assert!(
        text.contains("\ntoolgate_token_lookup_duration_seconds_count 4\n"),
        "the four queries are timed: {text}"
    );
    let failures = [("reason", "token_unchecked")];
    assert_eq!(
        sample(&text, "toolgate_evaluation_failures_total", &failures),
        Some(2.0)
    );
}
