//! Two replicas on one database: activations made through A are served by B, through
//! LISTEN/NOTIFY and, when that connection is lost, through polling.

use std::time::{Duration, Instant};

use serde_json::json;
use toolgate::startup::listener_application_name;

use crate::helpers::{decision_of, deny_bundle, eventually, spawn_app, spawn_replica, tool};

#[tokio::test]
async fn an_activation_through_a_is_served_by_b() {
    let a = spawn_app().await;
    let b = spawn_replica(&a.database_url, |config| {
        // Long enough that only the notification can explain a quick convergence.
        config.poll_interval = Duration::from_secs(60);
    })
    .await;
    let agent = a.create_token("agent", "team").await;
    let id = a.push("team", &deny_bundle("x", "WebFetch")).await;
    a.activate("team", id).await;
    eventually(Duration::from_secs(10), "B to deny", || async {
        let reply = b.evaluate(&agent, &tool("WebFetch")).await;
        (decision_of(&reply) == "deny").then_some(())
    })
    .await;
}

#[tokio::test]
async fn b_converges_by_polling_when_its_listen_connection_is_killed() {
    let a = spawn_app().await;
    let b = spawn_replica(&a.database_url, |_| {}).await;
    let name = listener_application_name(&b.replica_id);
    let pid: i32 = eventually(
        Duration::from_secs(10),
        "B's listener to connect",
        || async {
            sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE application_name = $1")
                .bind(&name)
                .fetch_optional(a.pg())
                .await
                .unwrap()
        },
    )
    .await;
    let killed: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .fetch_one(a.pg())
        .await
        .unwrap();
    assert!(killed);

    let agent = a.create_token("agent", "team").await;
    let id = a.push("team", &deny_bundle("x", "WebFetch")).await;
    a.activate("team", id).await;
    eventually(Duration::from_secs(10), "B to deny", || async {
        (decision_of(&b.evaluate(&agent, &tool("WebFetch")).await) == "deny").then_some(())
    })
    .await;
    // And B's listener comes back.
    eventually(
        Duration::from_secs(10),
        "B's listener to reconnect",
        || async {
            let pid: Option<i32> =
                sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE application_name = $1")
                    .bind(&name)
                    .fetch_optional(a.pg())
                    .await
                    .unwrap();
            pid.filter(|new| *new != 0).map(|_| ())
        },
    )
    .await;
}

#[tokio::test]
async fn polling_alone_converges() {
    let a = spawn_app().await;
    let b = spawn_replica(&a.database_url, |config| {
        config.listen_notifications = false;
    })
    .await;
    let agent = a.create_token("agent", "team").await;
    let id = a.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = a.activate("team", id).await;
    b.wait_served("team", activation).await;
    assert_eq!(
        decision_of(&b.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );
}

/// Propagation latency from A's activation answer to B serving it, over 50 activations.
/// A measurement, not a test: run with `cargo test --test api -- --ignored --nocapture propagation`.
#[tokio::test]
#[ignore = "benchmark; run explicitly"]
async fn propagation_latency_over_50_activations() {
    let a = spawn_app().await;
    let b = spawn_replica(&a.database_url, |config| {
        config.poll_interval = Duration::from_secs(60);
    })
    .await;
    let first = a.push("team", &deny_bundle("one", "Bash(rm:*)")).await;
    let second = a
        .push(
            "team",
            &json!({"name": "two", "permissions": {"ask": ["Bash(rm:*)"]}}),
        )
        .await;
    let mut samples = Vec::new();
    for i in 0..50 {
        let bundle = if i % 2 == 0 { first } else { second };
        let started = Instant::now();
        let activation = a.activate("team", bundle).await;
        loop {
            let policy = b.policy("team").await;
            if policy["served"]["activation_id"].as_i64() == Some(activation) {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "not propagated"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        samples.push(started.elapsed());
    }
    samples.sort();
    let p50 = samples[samples.len() / 2];
    let p99 = samples[(samples.len() * 99 / 100).min(samples.len() - 1)];
    let max = samples[samples.len() - 1];
    println!(
        "propagation over {} activations: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        samples.len(),
        p50.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        max.as_secs_f64() * 1000.0
    );
}

/// A replica that starts after a tenant's live bundle stopped compiling has no running policy
/// to keep: it serves the last good one from its disk cache, and without one the tenant's
/// events get the failure decision, never the `{}` of a tenant without rules. Once a bundle
/// that compiles goes live, the tenant is served again.
#[tokio::test]
async fn a_replica_starting_on_a_bundle_that_fails_to_compile_serves_the_cache_or_fails_closed() {
    let a = spawn_app().await;
    let agent = a.create_token("agent", "team").await;
    let good = a.push("team", &deny_bundle("good", "WebFetch")).await;
    let good_activation = a.activate("team", good).await;
    a.wait_served("team", good_activation).await;
    let cached = a.cache_dir.join("policies.json");
    let cache = eventually(Duration::from_secs(10), "A to cache the bundle", || async {
        let text = std::fs::read_to_string(&cached).ok()?;
        text.contains(&format!("\"activation_id\":{good_activation}"))
            .then_some(text)
    })
    .await;
    // A row the API would never have accepted, made live.
    let bad = a
        .insert_raw_bundle(
            "team",
            &json!({"name": "bad", "permissions": {"deny": ["Bash("]}}),
        )
        .await;
    a.activate("team", bad).await;

    // B starts with A's cache: the last good policy.
    let b_cache = tempfile::tempdir().unwrap();
    std::fs::write(b_cache.path().join("policies.json"), &cache).unwrap();
    let b = spawn_replica(&a.database_url, |config| {
        config.cache_dir = b_cache.path().to_owned();
    })
    .await;
    assert_eq!(b.served("team").await, Some(good_activation));
    let reply = b.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert_eq!(b.get_json("/readyz").await["unserved"], json!(0));

    // C starts with no cache: the failure decision, and /readyz counts the tenant.
    let c = spawn_replica(&a.database_url, |_| {}).await;
    assert_eq!(c.served("team").await, None);
    let reply = c.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"].to_string();
    assert!(reason.contains("failed to load"), "{reply}");
    assert_eq!(c.get_json("/readyz").await["unserved"], json!(1));
    // Another tenant of C's is not affected.
    let other = c.create_token("agent", "other").await;
    assert_eq!(c.evaluate(&other, &tool("WebFetch")).await, json!({}));

    // A bundle that compiles, made live: C serves it.
    let fixed = a.push("team", &deny_bundle("fixed", "mcp__x")).await;
    let fixed_activation = a.activate("team", fixed).await;
    c.wait_served("team", fixed_activation).await;
    assert_eq!(c.evaluate(&agent, &tool("WebFetch")).await, json!({}));
    assert_eq!(c.get_json("/readyz").await["unserved"], json!(0));
}
