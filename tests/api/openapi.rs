//! `openapi.yaml` documents exactly the routes the server serves: the router is built from
//! `routes::ROUTES`, and these tests compare that table with the spec's paths and check that the
//! server answers every route of the table.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use toolgate::routes::ROUTES;

use crate::helpers::spawn_app;

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn documented() -> BTreeSet<(String, String)> {
    let spec: Value =
        serde_norway::from_str(include_str!("../../openapi.yaml")).expect("openapi.yaml parses");
    assert_eq!(spec["openapi"], "3.1.0");
    let paths = spec["paths"].as_object().expect("`paths` is an object");
    paths
        .iter()
        .flat_map(|(path, item)| {
            let item = item.as_object().expect("a path item is an object");
            item.keys()
                .filter(|key| METHODS.contains(&key.as_str()))
                .map(|method| (method.to_uppercase(), path.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn routed() -> BTreeSet<(String, String)> {
    ROUTES
        .iter()
        .map(|route| (route.verb.as_str().to_owned(), route.path.to_owned()))
        .collect()
}

#[test]
fn the_spec_documents_exactly_the_routed_routes() {
    let documented = documented();
    let routed = routed();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty() && unrouted.is_empty(),
        "routes missing from openapi.yaml: {undocumented:?}; paths in openapi.yaml no route serves: {unrouted:?}"
    );
}

#[tokio::test]
async fn the_server_answers_every_route_of_the_table() {
    let app = spawn_app().await;
    for route in ROUTES {
        let path = route
            .path
            .replace("{tenant}", "global")
            .replace("{id}", "1")
            .replace("{agent}", "claude-code");
        let method = Method::from_bytes(route.verb.as_str().as_bytes()).unwrap();
        let response = app
            .client
            .request(method, app.url(&path))
            .send()
            .await
            .unwrap();
        let status = response.status();
        let body = response.text().await.unwrap();
        assert_ne!(
            status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{} {path}",
            route.verb.as_str()
        );
        assert!(
            !body.contains("no such route"),
            "{} {path} is not routed: {status} {body}",
            route.verb.as_str()
        );
    }
}
