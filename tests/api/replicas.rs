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
