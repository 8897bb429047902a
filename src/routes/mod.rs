//! HTTP handlers, one module per resource. Handlers are named `<verb>_<resource>`.
//!
//! [`ROUTES`] is the one list of the service's routes: `startup::router` builds the router from
//! it, the HTTP metrics label requests by its paths, and a test checks that `openapi.yaml`
//! documents exactly these routes. Adding a route is one line here (and its section in the spec).

pub mod audit;
pub mod bundles;
pub mod evaluate;
pub mod health;
pub mod metrics;
pub mod page;
pub mod replay;
pub mod tokens;

use axum::routing::{MethodFilter, MethodRouter, on};

use crate::state::AppState;

/// An HTTP method a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `GET`
    Get,
    /// `POST`
    Post,
}

impl Verb {
    /// The uppercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
        }
    }

    fn filter(self) -> MethodFilter {
        match self {
            Self::Get => MethodFilter::GET,
            Self::Post => MethodFilter::POST,
        }
    }
}

/// Which stack of layers a route sits behind (see `middleware`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `/v1/evaluate`: concurrency limit that sheds with the failure decision, timeout.
    Evaluate,
    /// The admin API: load shed, concurrency limit, timeout.
    Admin,
    /// Health checks: no limits, so they answer under overload.
    Health,
    /// `/metrics`: no limits; on its own listener when `--metrics-listen` is given.
    Metrics,
}

/// One route: a method, an axum path template, its layer group and its handler.
pub struct Route {
    /// The method.
    pub verb: Verb,
    /// The path template (`/v1/tenants/{tenant}/bundles`), as in `openapi.yaml`.
    pub path: &'static str,
    /// The layers it sits behind.
    pub group: Group,
    /// Makes the handler for the route's method (given, so a table row cannot disagree with
    /// its handler's method).
    handler: fn(MethodFilter) -> MethodRouter<AppState>,
}

impl Route {
    /// The route's method router.
    pub fn method_router(&self) -> MethodRouter<AppState> {
        (self.handler)(self.verb.filter())
    }
}

/// Every route of the service.
pub static ROUTES: &[Route] = &[
    Route {
        verb: Verb::Post,
        path: "/v1/evaluate",
        group: Group::Evaluate,
        handler: |method| on(method, evaluate::evaluate_event),
    },
    // A hook URL with a trailing slash: a 404 there would be "proceed" to the agent.
    Route {
        verb: Verb::Post,
        path: "/v1/evaluate/",
        group: Group::Evaluate,
        handler: |method| on(method, evaluate::evaluate_event),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/evaluate/{agent}",
        group: Group::Evaluate,
        handler: |method| on(method, evaluate::evaluate_event),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/bundles",
        group: Group::Admin,
        handler: |method| on(method, bundles::create_bundle),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/tenants/{tenant}/bundles",
        group: Group::Admin,
        handler: |method| on(method, bundles::list_bundles),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/tenants/{tenant}/bundles/{id}",
        group: Group::Admin,
        handler: |method| on(method, bundles::get_bundle),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/bundles/{id}/activate",
        group: Group::Admin,
        handler: |method| on(method, bundles::activate_bundle),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/tenants/{tenant}/activations",
        group: Group::Admin,
        handler: |method| on(method, bundles::list_activations),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/rollback",
        group: Group::Admin,
        handler: |method| on(method, bundles::rollback_policy),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/replay",
        group: Group::Admin,
        handler: |method| on(method, replay::replay_bundle),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/tenants/{tenant}/policy",
        group: Group::Admin,
        handler: |method| on(method, bundles::get_policy),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/tokens",
        group: Group::Admin,
        handler: |method| on(method, tokens::create_token),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/tenants/{tenant}/tokens",
        group: Group::Admin,
        handler: |method| on(method, tokens::list_tokens),
    },
    Route {
        verb: Verb::Post,
        path: "/v1/tenants/{tenant}/tokens/{id}/revoke",
        group: Group::Admin,
        handler: |method| on(method, tokens::revoke_token),
    },
    Route {
        verb: Verb::Get,
        path: "/v1/audit",
        group: Group::Admin,
        handler: |method| on(method, audit::list_audit),
    },
    Route {
        verb: Verb::Get,
        path: "/healthz",
        group: Group::Health,
        handler: |method| on(method, health::get_health),
    },
    Route {
        verb: Verb::Get,
        path: "/readyz",
        group: Group::Health,
        handler: |method| on(method, health::get_readiness),
    },
    Route {
        verb: Verb::Get,
        path: "/metrics",
        group: Group::Metrics,
        handler: |method| on(method, metrics::get_metrics),
    },
];

/// The index in [`ROUTES`] of the first route with this path template.
pub fn route_index(path: &str) -> Option<usize> {
    ROUTES.iter().position(|route| route.path == path)
}
