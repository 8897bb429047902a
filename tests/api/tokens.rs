//! Tokens on both stores: an expired token is refused as a revoked one is — a 401 on the admin
//! and audit routes, the failure decision on the evaluate routes — whether the replica knows it
//! from memory or looks it up, and each use is counted; an admin makes, lists and revokes its
//! tenant's tokens through the API, and a revocation reaches every replica at once.

use chrono::{Duration, Utc};
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    Backend, TestApp, assert_error, assert_refused, bash, decision_of, deny_bundle, eventually,
    on_both_backends, sample, scrape, spawn_app, spawn_app_on, spawn_app_on_with, spawn_app_with,
    spawn_replica, tool,
};

on_both_backends!(an_expired_token_is_refused_as_a_revoked_one_is);

async fn an_expired_token_is_refused_as_a_revoked_one_is(backend: Backend) {
    let app = spawn_app_on(backend).await;
    // Every role's count is there at 0 before any use: a series that first appears at 1 is no
    // increase to Prometheus, and the alert on it would miss a lone use.
    let text = scrape(&app, &app.address).await;
    for role in ["agent", "admin", "auditor"] {
        let before = sample(
            &text,
            "toolgate_expired_token_uses_total",
            &[("role", role)],
        );
        assert_eq!(before, Some(0.0), "{role}: {text}");
    }
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

/// `POST path` with `token` and a JSON `body`.
async fn post_as(app: &TestApp, token: &str, path: &str, body: &Value) -> Response {
    app.client
        .post(app.url(path))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Makes a token through the API as `admin`; the 201 body.
async fn make_token(app: &TestApp, admin: &str, tenant: &str, body: Value) -> Value {
    let path = format!("/v1/tenants/{tenant}/tokens");
    let response = post_as(app, admin, &path, &body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["cache-control"], "no-store");
    response.json().await.unwrap()
}

async fn revoke(app: &TestApp, admin: &str, tenant: &str, id: &Value) -> Response {
    let path = format!("/v1/tenants/{tenant}/tokens/{id}/revoke");
    post_as(app, admin, &path, &json!(null)).await
}

on_both_backends!(an_admin_makes_lists_and_revokes_its_tenants_tokens);

async fn an_admin_makes_lists_and_revokes_its_tenants_tokens(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let admin = app.create_token("admin", "team").await;

    // A tenant's admin makes an agent token; it is shown once, and it works at once.
    let made = make_token(
        &app,
        &admin,
        "team",
        json!({"role": "agent", "description": "CI runners", "expires_in": "30d"}),
    )
    .await;
    let token = made["token"].as_str().unwrap().to_owned();
    assert!(toolgate::auth::is_token_shaped(&token), "{made}");
    assert_eq!(made["role"], "agent");
    assert_eq!(made["tenant"], "team");
    assert_eq!(made["description"], "CI runners");
    assert_eq!(made["prefix"], token[..10]);
    let expires = chrono::DateTime::parse_from_rfc3339(made["expires_at"].as_str().unwrap());
    let lifetime = expires.unwrap().with_timezone(&Utc) - Utc::now();
    assert!(
        lifetime > Duration::days(29) && lifetime <= Duration::days(30),
        "{made}"
    );
    assert_eq!(app.decide(&token, &bash("ls")).await, "none");

    // The listing names who made it and never shows a token or its hash.
    let listed = app.get_as(&admin, "/v1/tenants/team/tokens").await;
    assert_eq!(listed.status(), StatusCode::OK);
    let text = listed.text().await.unwrap();
    assert!(!text.contains(&token[3..]), "a token is listed: {text}");
    let listed: Value = serde_json::from_str(&text).unwrap();
    let tokens = listed["tokens"].as_array().unwrap();
    let maker = tokens.iter().find(|t| t["role"] == "admin").unwrap();
    let mine = tokens.iter().find(|t| t["id"] == made["id"]).unwrap();
    assert_eq!(mine["created_by"], maker["id"], "{listed}");
    assert_eq!(
        maker["created_by"],
        json!(null),
        "made by the CLI: {listed}"
    );
    assert!(mine.get("token").is_none() && mine.get("hash").is_none());

    // The bootstrap admin of `global` makes tokens of any tenant, any role.
    let other = make_token(&app, &app.admin_token, "other", json!({"role": "admin"})).await;
    assert_eq!(other["created_by"], json!(null));
    assert_eq!(other["expires_at"], json!(null));

    // A tenant's admin acts on its own tenant only; other roles and no token are refused.
    for tenant in ["other", "global"] {
        let path = format!("/v1/tenants/{tenant}/tokens");
        let response = post_as(&app, &admin, &path, &json!({"role": "agent"})).await;
        assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
        let response = app.get_as(&admin, &path).await;
        assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let path = "/v1/tenants/team/tokens";
    let response = post_as(&app, &token, path, &json!({"role": "admin"})).await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    let response = app
        .client
        .post(app.url(path))
        .json(&json!({"role": "agent"}));
    let response = response.send().await.unwrap();
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // A wrong body is a 400 naming the member, and stores nothing.
    let before = app.db.list_tokens(None).await.unwrap().len();
    for (body, named) in [
        (json!({"role": "root"}), "`role`"),
        (json!({"role": "agent", "expires_in": "90"}), "`expires_in`"),
        (json!({"role": "agent", "tenant": "x"}), "`tenant`"),
        (
            json!({"role": "agent", "description": "x".repeat(257)}),
            "`description`",
        ),
    ] {
        let response = post_as(&app, &admin, path, &body).await;
        let message =
            assert_error(response, StatusCode::BAD_REQUEST, "invalid_token_request").await;
        assert!(message.contains(named), "{body}: {message}");
    }
    assert_eq!(app.db.list_tokens(None).await.unwrap().len(), before);

    // Another tenant's token is not found through this tenant's path, and stays valid.
    let response = revoke(&app, &admin, "team", &other["id"]).await;
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    let other_token = other["token"].as_str().unwrap();
    let response = app.get_as(other_token, "/v1/tenants/other/bundles").await;
    assert_eq!(response.status(), StatusCode::OK);
    let response = revoke(&app, &admin, "team", &json!("x1")).await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_token_id").await;

    // Revoked: refused by this replica from the answer on; a second revocation finds nothing.
    let response = revoke(&app, &admin, "team", &made["id"]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let event = serde_json::to_vec(&bash("ls")).unwrap();
    let response = app.evaluate_raw(Some(&token), event).await;
    assert_refused(response, "unknown or revoked token").await;
    let response = revoke(&app, &admin, "team", &made["id"]).await;
    assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    let listed = app.get_json("/v1/tenants/team/tokens").await;
    let mine = listed["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == made["id"])
        .unwrap()
        .clone();
    assert_ne!(mine["revoked_at"], json!(null), "{listed}");
    assert_eq!(mine["revoked_by"], maker["id"], "{listed}");
}

/// A revocation through replica A is announced: B, which knew the token and polls only every
/// minute, refuses it without waiting for its poll.
#[tokio::test]
async fn a_revocation_through_a_is_refused_by_b_without_a_poll() {
    let a = spawn_app().await;
    let b = spawn_replica(&a.database_url, |config| {
        config.poll_interval = std::time::Duration::from_secs(60);
    })
    .await;
    let made = make_token(&a, &a.admin_token, "team", json!({"role": "agent"})).await;
    let token = made["token"].as_str().unwrap().to_owned();
    assert_eq!(b.decide(&token, &bash("ls")).await, "none");
    let response = revoke(&a, &a.admin_token, "team", &made["id"]).await;
    assert_eq!(response.status(), StatusCode::OK);
    let event = serde_json::to_vec(&bash("ls")).unwrap();
    eventually(
        std::time::Duration::from_secs(10),
        "B to refuse the revoked token",
        || async {
            let response = b.evaluate_raw(Some(&token), event.clone()).await;
            let reply: Value = response.json().await.unwrap();
            (decision_of(&reply) == "deny").then_some(())
        },
    )
    .await;
}

/// `--token-max-lifetime`: a token made through the API without an expiry gets that lifetime,
/// and one asked to outlive it is refused; the CLI's tokens are not limited.
#[tokio::test]
async fn the_servers_longest_token_lifetime_bounds_the_apis_tokens() {
    let app = spawn_app_with(|config| {
        config.token_max_lifetime = Some(std::time::Duration::from_secs(7 * 24 * 3600));
    })
    .await;
    let made = make_token(&app, &app.admin_token, "team", json!({"role": "agent"})).await;
    let expires = chrono::DateTime::parse_from_rfc3339(made["expires_at"].as_str().unwrap());
    let lifetime = expires.unwrap().with_timezone(&Utc) - Utc::now();
    assert!(
        lifetime > Duration::days(6) && lifetime <= Duration::days(7),
        "{made}"
    );
    let path = "/v1/tenants/team/tokens";
    let body = json!({"role": "agent", "expires_in": "30d"});
    let response = post_as(&app, &app.admin_token, path, &body).await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_token_request").await;
    assert!(message.contains("--token-max-lifetime"), "{message}");
    let unlimited = app.create_token("agent", "team").await;
    assert_eq!(app.decide(&unlimited, &bash("ls")).await, "none");
}

on_both_backends!(a_lookup_in_flight_when_its_token_is_revoked_does_not_bring_it_back);

/// A request's database lookup reads a token while it is still active; the token is revoked
/// through the API, and this replica reads its tokens again, before the lookup ends. The token
/// must not come back into memory when it does: it would be accepted until the next poll.
async fn a_lookup_in_flight_when_its_token_is_revoked_does_not_bring_it_back(backend: Backend) {
    use std::sync::Arc;
    use toolgate::auth::{Role, TokenInfo, hash_token};

    let app = spawn_app_on(backend).await;
    let token = app.create_token("agent", "team").await;
    let hash = hash_token(&token);
    let store = &app.state().store;

    // The lookup starts, as `auth::authenticate` does: the token is active.
    let reads = store.token_reads();
    let row = app.db.token_by_hash(&hash).await.unwrap().expect("active");
    // Meanwhile the token is revoked, and this replica refuses it from the answer on.
    let response = revoke(&app, &app.admin_token, "team", &json!(row.id)).await;
    assert_eq!(response.status(), StatusCode::OK);
    // The lookup ends, remembering what it read.
    let info = TokenInfo {
        id: Some(row.id),
        role: Role::Agent,
        tenant: row.tenant,
        expires_at: row.expires_at,
    };
    assert!(!store.remember_token(hash, Arc::new(info), reads));

    let event = serde_json::to_vec(&bash("ls")).unwrap();
    let response = app.evaluate_raw(Some(&token), event).await;
    assert_refused(response, "unknown or revoked token").await;
}

on_both_backends!(a_revoked_admin_token_a_replica_still_knows_makes_no_token);

/// A replica learns of a revocation at its next poll when it missed the `NOTIFY` (its listener
/// reconnecting, the CLI on the embedded store). Until then it accepts the revoked admin token:
/// that token must not make a token that outlives its revocation.
async fn a_revoked_admin_token_a_replica_still_knows_makes_no_token(backend: Backend) {
    let app = stale_replica(backend).await;
    let admin = app.create_token("admin", "team").await;
    let listed = app.get_as(&admin, "/v1/tenants/team/tokens").await;
    let listed: Value = listed.json().await.unwrap();
    let id = listed["tokens"][0]["id"].as_i64().unwrap();
    // Revoked past this replica, which still holds the token in memory.
    assert!(app.db.revoke_token(id, None, None).await.unwrap());
    let before = app.db.list_tokens(None).await.unwrap().len();

    let path = "/v1/tenants/team/tokens";
    let response = post_as(&app, &admin, path, &json!({"role": "admin"})).await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_eq!(app.db.list_tokens(None).await.unwrap().len(), before);
    // And the replica now knows it is revoked.
    let response = app.get_as(&admin, path).await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

/// A token made through the API never outlives the token that made it: an admin token that
/// expires in a day makes tokens that expire with it, and cannot make one that lives longer.
#[tokio::test]
async fn a_token_made_through_the_api_never_outlives_its_maker() {
    let app = spawn_app().await;
    let maker_expires = Utc::now() + Duration::days(1);
    let admin = app
        .create_token_expiring("admin", "team", Some(maker_expires))
        .await;
    let made = make_token(&app, &admin, "team", json!({"role": "admin"})).await;
    let expires = chrono::DateTime::parse_from_rfc3339(made["expires_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc);
    assert!(
        (expires - maker_expires).num_milliseconds().abs() < 1000,
        "{made}"
    );
    let body = json!({"role": "agent", "expires_in": "30d"});
    let response = post_as(&app, &admin, "/v1/tenants/team/tokens", &body).await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_token_request").await;
    assert!(message.contains("the token making it"), "{message}");
}

/// A replica that neither listens for revocations nor polls within a test's time: it learns
/// of a revocation only when it looks.
async fn stale_replica(backend: Backend) -> TestApp {
    spawn_app_on_with(backend, |config| {
        config.poll_interval = std::time::Duration::from_secs(600);
        config.listen_notifications = false;
    })
    .await
}

on_both_backends!(a_revoked_admin_token_a_replica_still_knows_changes_nothing);

/// The same stale replica: the revoked admin token can neither push nor activate nor roll back
/// a bundle, nor revoke a token, and nothing it asked for is stored.
async fn a_revoked_admin_token_a_replica_still_knows_changes_nothing(backend: Backend) {
    let app = stale_replica(backend).await;
    let first = app.push("team", &deny_bundle("first", "WebFetch")).await;
    let second = app.push("team", &deny_bundle("second", "mcp__s")).await;
    app.activate("team", first).await;
    let live = app.activate("team", second).await;
    let other = make_token(&app, &app.admin_token, "team", json!({"role": "agent"})).await;
    let admin = app.create_token("admin", "team").await;
    let listed = app.get_json("/v1/tenants/team/tokens").await;
    let id = listed["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["role"] == "admin")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    // Known to this replica, then revoked past it.
    let response = app.get_as(&admin, "/v1/tenants/team/bundles").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(app.db.revoke_token(id, None, None).await.unwrap());

    let response = app
        .push_as(&admin, "team", &deny_bundle("third", "mcp__t"))
        .await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = app.activate_as(&admin, "team", first).await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = post_as(&app, &admin, "/v1/tenants/team/rollback", &json!(null)).await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let response = revoke(&app, &admin, "team", &other["id"]).await;
    assert_error(response, StatusCode::UNAUTHORIZED, "unauthorized").await;

    assert_eq!(
        app.list_bundles("team").await["bundles"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(app.policy("team").await["live"]["id"], json!(live));
    let other = other["token"].as_str().unwrap();
    assert_eq!(app.decide(other, &tool("WebFetch")).await, "none");
}
