//! The admin API and hot swap on one replica, on both stores.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, assert_error, decision_of, deny_bundle, eventually, on_both_backends, sample, scrape,
    spawn_app_on, tool,
};

on_both_backends!(
    push_activate_evaluate_changes_the_decision_and_rollback_restores_it,
    an_invalid_bundle_is_a_422_listing_every_error_and_nothing_is_stored,
    a_bundle_whose_tests_fail_is_a_422,
    pushing_identical_content_returns_the_existing_bundle,
    yaml_bundles_are_accepted_and_bundles_can_be_read_back,
    the_global_policy_applies_beside_the_tenants_own_and_the_most_restrictive_wins,
    invalid_tenant_names_are_a_400,
    stored_bundles_and_activations_are_immutable,
    the_force_push_example_is_denied_in_claude_codes_exact_shape,
    a_live_bundle_that_fails_to_compile_never_replaces_the_running_policy,
    concurrent_activations_of_a_tenant_are_serialised,
    bundle_lists_are_paged_by_cursor,
    the_activation_history_shows_who_made_what_live_for_admins_and_auditors,
);

/// `GET …/activations` lists every activation, rollbacks included, newest first, with who made
/// it; a tenant's auditors may read it, its agents and other tenants may not.
async fn the_activation_history_shows_who_made_what_live_for_admins_and_auditors(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let first = app.push("team", &deny_bundle("first", "WebFetch")).await;
    let second = app.push("team", &deny_bundle("second", "mcp__s")).await;
    let one = app.activate("team", first).await;
    let admin = app.create_token("admin", "team").await;
    let response = app.activate_as(&admin, "team", second).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let two = response.json::<Value>().await.unwrap()["id"]
        .as_i64()
        .unwrap();
    let rollback: Value = app.rollback("team").await.json().await.unwrap();
    app.push("other", &deny_bundle("elsewhere", "WebFetch"))
        .await;

    let auditor = app.create_token("auditor", "team").await;
    let response = app.get_as(&auditor, "/v1/tenants/team/activations").await;
    assert_eq!(response.status(), StatusCode::OK);
    let history: Value = response.json().await.unwrap();
    let activations = history["activations"].as_array().unwrap();
    let summary: Vec<_> = activations
        .iter()
        .map(|a| {
            (
                a["id"].clone(),
                a["bundle_id"].clone(),
                a["rollback_of"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (rollback["id"].clone(), json!(first), json!(two)),
            (json!(two), json!(second), json!(null)),
            (json!(one), json!(first), json!(null)),
        ],
        "{history}"
    );
    assert_eq!(history["next_cursor"], json!(null));
    // The bootstrap admin is no token row; the tenant's admin is.
    assert_eq!(activations[2]["activated_by"], json!(null), "{history}");
    assert!(activations[1]["activated_by"].is_i64(), "{history}");
    assert_eq!(activations[1]["name"], "second");

    // A page at a time, as the bundle list.
    let page: Value = app
        .get_as(&auditor, "/v1/tenants/team/activations?limit=2")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(page["activations"].as_array().unwrap().len(), 2, "{page}");
    let cursor = page["next_cursor"].as_str().unwrap();
    let path = format!("/v1/tenants/team/activations?limit=2&cursor={cursor}");
    let rest: Value = app.get_as(&auditor, &path).await.json().await.unwrap();
    assert_eq!(rest["activations"][0]["id"], json!(one), "{rest}");
    assert_eq!(rest["next_cursor"], json!(null), "{rest}");
    let response = app
        .get_as(&auditor, "/v1/tenants/team/activations?cursor=zz")
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;

    // Not for agents, nor for another tenant's tokens.
    let agent = app.create_token("agent", "team").await;
    let response = app.get_as(&agent, "/v1/tenants/team/activations").await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    let response = app.get_as(&auditor, "/v1/tenants/other/activations").await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
    let response = app.get_as(&admin, "/v1/tenants/other/activations").await;
    assert_error(response, StatusCode::FORBIDDEN, "forbidden").await;
}

/// `GET …/bundles` pages newest first by `limit` and `cursor`, as `/v1/audit` does; a bad
/// `limit`, a cursor the API did not return and an unknown parameter are 400s naming it.
async fn bundle_lists_are_paged_by_cursor(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let mut ids = Vec::new();
    for n in 0..5 {
        ids.push(
            app.push(
                "team",
                &deny_bundle(&format!("b{n}"), &format!("mcp__s{n}")),
            )
            .await,
        );
    }
    app.push("other", &deny_bundle("elsewhere", "WebFetch"))
        .await;
    ids.reverse();
    let mut seen = Vec::new();
    let mut path = "/v1/tenants/team/bundles?limit=2".to_owned();
    loop {
        let page = app.get_json(&path).await;
        let bundles = page["bundles"].as_array().unwrap();
        assert!(bundles.len() <= 2, "{page}");
        seen.extend(bundles.iter().map(|bundle| bundle["id"].as_i64().unwrap()));
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/v1/tenants/team/bundles?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(seen, ids, "every bundle once, newest first");
    // The default page holds them all here, and says there is no next one.
    let all = app.list_bundles("team").await;
    assert_eq!(all["bundles"].as_array().unwrap().len(), 5, "{all}");
    assert_eq!(all["next_cursor"], Value::Null, "{all}");
    // A page that ends exactly at the last bundle has no next cursor either.
    let exact = app.get_json("/v1/tenants/team/bundles?limit=5").await;
    assert_eq!(exact["next_cursor"], Value::Null, "{exact}");

    let get = |query: &'static str| {
        app.client
            .get(app.url(&format!("/v1/tenants/team/bundles?{query}")))
            .bearer_auth(&app.admin_token)
            .send()
    };
    for (query, says) in [
        (
            "limit=0",
            "`limit` must be an integer from 1 to 1000; got `0`",
        ),
        (
            "limit=1001",
            "`limit` must be an integer from 1 to 1000; got `1001`",
        ),
        (
            "limit=ten",
            "`limit` must be an integer from 1 to 1000; got `ten`",
        ),
        ("cursor=zz", "`cursor` is not a cursor this API returned"),
        // An audit cursor is not a bundle list's.
        (
            "cursor=313736343030303030303030303030303a30313933613065342d326233632d376434652d386636302d313233343536373839616263",
            "`cursor` is not a cursor this API returned",
        ),
        ("page=2", "unknown parameter `page` (known: limit, cursor)"),
    ] {
        let response = get(query).await.unwrap();
        let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_query").await;
        assert_eq!(message, says, "{query}");
    }
}

async fn push_activate_evaluate_changes_the_decision_and_rollback_restores_it(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let event = tool("WebFetch");
    assert_eq!(app.evaluate(&agent, &event).await, json!({}));

    let first = app
        .push("team", &deny_bundle("no-force-push", "WebFetch"))
        .await;
    let activation = app.activate("team", first).await;
    app.wait_served("team", activation).await;
    let reply = app.evaluate(&agent, &event).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(
        reply["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .is_some_and(|reason| !reason.is_empty())
    );

    let second = app
        .push(
            "team",
            &json!({"name": "ask-force-push", "permissions": {"ask": ["WebFetch"]}}),
        )
        .await;
    let activation = app.activate("team", second).await;
    app.wait_served("team", activation).await;
    assert_eq!(decision_of(&app.evaluate(&agent, &event).await), "ask");

    let response = app.rollback("team").await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rollback: Value = response.json().await.unwrap();
    assert_eq!(rollback["bundle_id"], json!(first));
    assert!(rollback["rollback_of"].is_i64(), "{rollback}");
    app.wait_served("team", rollback["id"].as_i64().unwrap())
        .await;
    assert_eq!(decision_of(&app.evaluate(&agent, &event).await), "deny");

    // Nothing left to roll back to.
    let response = app.rollback("team").await;
    assert_error(response, StatusCode::CONFLICT, "conflict").await;
}

async fn an_invalid_bundle_is_a_422_listing_every_error_and_nothing_is_stored(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let bundle = json!({
        "name": "broken",
        "permissions": {"deny": ["Bash(", 5]},
        "rules": [{"id": "r", "decision": "maybe"}],
    });
    let response = app.push_as(&app.admin_token, "team", &bundle).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_bundle");
    let errors = body["errors"].as_array().unwrap();
    assert!(errors.len() >= 3, "{body}");
    assert!(
        errors
            .iter()
            .all(|e| e["location"].is_string() && e["message"].is_string())
    );

    let list = app.list_bundles("team").await;
    assert_eq!(list["bundles"], json!([]));
}

async fn a_bundle_whose_tests_fail_is_a_422(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let bundle = json!({
        "name": "wrong-tests",
        "permissions": {"deny": ["WebFetch"]},
        "tests": [
            {"name": "fetch is denied", "tool": "WebFetch", "input": {"url": "https://a.example/"}, "expect": "deny"},
            {"name": "mcp is denied (wrong)", "tool": "mcp__x__y", "input": {}, "expect": "deny"},
        ],
    });
    let response = app.push_as(&app.admin_token, "team", &bundle).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bundle_tests_failed");
    assert_eq!(body["errors"].as_array().unwrap().len(), 1, "{body}");
}

async fn pushing_identical_content_returns_the_existing_bundle(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let bundle = json!({
        "name": "same",
        "permissions": {"deny": ["WebFetch"]},
        "tests": [{"name": "fetch", "tool": "WebFetch", "input": {"url": "https://a.example/"}, "expect": "deny"}],
    });
    let first = app.push_as(&app.admin_token, "team", &bundle).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["tests_passed"], json!(1));
    assert_eq!(first["sha256"].as_str().unwrap().len(), 64);
    let again = app.push_as(&app.admin_token, "team", &bundle).await;
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], first["id"]);
    assert_eq!(again["sha256"], first["sha256"]);
}

async fn yaml_bundles_are_accepted_and_bundles_can_be_read_back(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let yaml = "name: from-yaml\npermissions:\n  deny:\n    - Bash(curl:*)\n";
    let push = |content_type: &'static str| {
        app.client
            .post(app.url("/v1/tenants/team/bundles"))
            .bearer_auth(&app.admin_token)
            .header("content-type", content_type)
            .body(yaml)
            .send()
    };
    let response = push("application/yaml").await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.unwrap();
    let id = created["id"].as_i64().unwrap();

    let one = app
        .get_json(&format!("/v1/tenants/team/bundles/{id}"))
        .await;
    assert_eq!(one["name"], "from-yaml");
    assert_eq!(
        one["document"]["permissions"]["deny"],
        json!(["Bash(curl:*)"])
    );

    let list = app.list_bundles("team").await;
    assert_eq!(list["bundles"][0]["id"], json!(id));

    // YAML sent as curl sends a file (form data) is read as JSON; the error says how to
    // send YAML.
    let response = push("application/x-www-form-urlencoded").await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.unwrap();
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("is not valid JSON")
            && message.ends_with("a YAML bundle is sent with `Content-Type: application/yaml`"),
        "{body}"
    );

    // Showing and activating a bundle the tenant does not have say the same, naming both.
    let response = app
        .get_as(&app.admin_token, "/v1/tenants/team/bundles/999999")
        .await;
    let shown = assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    let response = app.activate_as(&app.admin_token, "team", 999_999).await;
    let activated = assert_error(response, StatusCode::NOT_FOUND, "not_found").await;
    assert_eq!(shown, "bundle 999999 does not exist in tenant `team`");
    assert_eq!(activated, shown);
    // An id that is no integer is said to be one.
    let response = app
        .get_as(&app.admin_token, "/v1/tenants/team/bundles/latest")
        .await;
    let message = assert_error(response, StatusCode::BAD_REQUEST, "invalid_bundle_id").await;
    assert_eq!(
        message,
        "a bundle id is an integer (`toolgate bundle list` shows them); got `latest`"
    );
    let response = app
        .client
        .post(app.url("/v1/tenants/team/bundles/99999999999999999999/activate"))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_bundle_id").await;
}

async fn the_global_policy_applies_beside_the_tenants_own_and_the_most_restrictive_wins(
    backend: Backend,
) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let global = app.push("global", &deny_bundle("org", "WebFetch")).await;
    let activation = app.activate("global", global).await;
    app.wait_served("global", activation).await;
    let reply = app.evaluate(&agent, &tool("WebFetch")).await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");

    let own = app
        .push(
            "team",
            &json!({"name": "team", "permissions": {"allow": ["WebFetch", "mcp__tools"]}}),
        )
        .await;
    let activation = app.activate("team", own).await;
    app.wait_served("team", activation).await;
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("mcp__tools__run")).await),
        "allow"
    );
}

async fn invalid_tenant_names_are_a_400(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let response = app
        .push_as(
            &app.admin_token,
            "Bad.Tenant",
            &deny_bundle("x", "WebFetch"),
        )
        .await;
    assert_error(response, StatusCode::BAD_REQUEST, "invalid_tenant").await;
}

async fn stored_bundles_and_activations_are_immutable(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let id = app.push("team", &deny_bundle("x", "WebFetch")).await;
    let activation = app.activate("team", id).await;
    for sql in [
        "UPDATE bundles SET name = 'changed' WHERE id = $1",
        "DELETE FROM bundles WHERE id = $1",
        "UPDATE activations SET bundle_id = bundle_id WHERE id = $1",
        "DELETE FROM activations WHERE id = $1",
    ] {
        let row = if sql.contains("bundles") {
            id
        } else {
            activation
        };
        let error = app.execute(sql, row).await.expect_err(sql);
        assert!(error.to_string().contains("immutable"), "{sql}: {error}");
    }
    let bundle = app
        .get_json(&format!("/v1/tenants/team/bundles/{id}"))
        .await;
    assert_eq!(bundle["name"], "x");
    assert_eq!(app.policy("team").await["live"]["id"], json!(activation));
}

async fn the_force_push_example_is_denied_in_claude_codes_exact_shape(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let id = app
        .push("team", &deny_bundle("x", "Bash(git push --force:*)"))
        .await;
    let activation = app.activate("team", id).await;
    app.wait_served("team", activation).await;
    let reply = app
        .evaluate(
            &agent,
            &crate::helpers::bash("git push --force origin main"),
        )
        .await;
    assert_eq!(
        reply,
        json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "denied by permission rule `Bash(git push --force:*)`",
        }})
    );
    // Seen through a wrapper and a compound command.
    let reply = app
        .evaluate(
            &agent,
            &crate::helpers::bash("cd repo && bash -c 'git push --force origin main'"),
        )
        .await;
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    // And inside a substitution and a here-document, which are evaluated off the runtime's
    // workers: the same answer.
    for command in [
        "echo \"$(git push --force origin main)\"",
        "bash <<'EOF'\ngit push --force origin main\nEOF",
    ] {
        let reply = app.evaluate(&agent, &crate::helpers::bash(command)).await;
        assert_eq!(decision_of(&reply), "deny", "{command}: {reply}");
    }
    assert_eq!(
        app.evaluate(&agent, &crate::helpers::bash("git push origin main"))
            .await,
        json!({})
    );
}

async fn a_live_bundle_that_fails_to_compile_never_replaces_the_running_policy(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let agent = app.create_token("agent", "team").await;
    let good = app.push("team", &deny_bundle("good", "WebFetch")).await;
    let activation = app.activate("team", good).await;
    app.wait_served("team", activation).await;

    // A row the API would never have accepted (written straight into the table).
    let bad = app
        .insert_raw_bundle(
            "team",
            &json!({"name": "bad", "permissions": {"deny": ["Bash("]}}),
        )
        .await;
    let bad_activation = app.activate("team", bad).await;
    // Another tenant's activation afterwards proves the replica has caught up with both.
    let other = app.push("other", &deny_bundle("o", "WebFetch")).await;
    let other_activation = app.activate("other", other).await;
    app.wait_served("other", other_activation).await;
    // And it has tried to load the bad bundle, and refused it.
    eventually(
        std::time::Duration::from_secs(10),
        "a compile error counted in toolgate_reloads_total",
        || async {
            let text = scrape(&app, &app.address).await;
            let errors = sample(
                &text,
                "toolgate_reloads_total",
                &[("result", "compile_error")],
            );
            errors.is_some_and(|n| n >= 1.0).then_some(())
        },
    )
    .await;

    let policy = app.policy("team").await;
    assert_eq!(policy["live"]["id"], json!(bad_activation));
    assert_eq!(
        policy["served"]["activation_id"],
        json!(activation),
        "{policy}"
    );
    assert_eq!(
        decision_of(&app.evaluate(&agent, &tool("WebFetch")).await),
        "deny"
    );
}

async fn concurrent_activations_of_a_tenant_are_serialised(backend: Backend) {
    let app = spawn_app_on(backend).await;
    let a = app.push("team", &deny_bundle("a", "WebFetch")).await;
    let b = app.push("team", &deny_bundle("b", "mcp__b")).await;
    let mut requests = tokio::task::JoinSet::new();
    for i in 0..12 {
        let request = app
            .client
            .post(app.url(&format!(
                "/v1/tenants/team/bundles/{}/activate",
                if i % 2 == 0 { a } else { b }
            )))
            .bearer_auth(&app.admin_token);
        requests.spawn(request.send());
    }
    while let Some(response) = requests.join_next().await {
        let status = response.unwrap().unwrap().status();
        assert!(status.is_success(), "{status}");
    }
    // One chain: every activation's `previous_id` is the one committed just before it.
    let history = app.activation_history("team").await;
    assert!(!history.is_empty());
    let mut previous = None;
    for (id, previous_id) in history {
        assert_eq!(previous_id, previous, "activation {id}");
        previous = Some(id);
    }
}

/// A YAML alias stands for a copy of its anchor, so a small push can stand for a huge document:
/// three thousand aliases of a three-thousand-item list are 30 KB of YAML and nine million
/// values once built (at 600 KB, ten billion: the replica that checks the push runs out of
/// memory, and every tenant's agents lose their gate). A tenant's own admin could do it. The
/// document is measured with its aliases expanded before it is built, and refused when its JSON
/// form would pass the bundle size limit; anchors and aliases within it still work.
#[tokio::test]
async fn a_yaml_bundle_whose_aliases_expand_past_the_size_limit_is_a_422() {
    let app = crate::helpers::spawn_app().await;
    let admin = app.create_token("admin", "team").await;
    let push = |yaml: String| {
        app.client
            .post(app.url("/v1/tenants/team/bundles"))
            .bearer_auth(&admin)
            .header("content-type", "application/yaml")
            .body(yaml)
            .send()
    };
    let items = vec!["x"; 3000].join(", ");
    let aliases = vec!["*a"; 3000].join(", ");
    let bomb = format!("name: bomb\nguidelines: &a [{items}]\nmore: [{aliases}]\n");
    assert!(bomb.len() < 32 * 1024);
    let response = push(bomb).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_bundle", "{body}");
    assert_eq!(body["errors"][0]["location"], "document", "{body}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("aliases are expanded"), "{body}");
    assert!(app.list_bundles("team").await["bundles"] == json!([]));

    let anchors = "name: anchors\ndescription: &d Run cargo fmt first.\nguidelines: [*d]\n";
    let response = push(anchors.to_owned()).await.unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    app.assert_healthy().await;
}
