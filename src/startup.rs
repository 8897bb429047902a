//! Building and running the server: pools, the initial policy load, the reload tasks, the router
//! and the listening socket.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;

use crate::audit::Audit;
use crate::audit::store::AuditStore;
use crate::auth::hash_token;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::middleware::{self, Limits};
use crate::routes::{audit, bundles, evaluate, health};
use crate::state::{AppState, Inner};
use crate::store::cache::Cache;
use crate::store::postgres;
use crate::store::reload::{PolicyStore, Reloader};

/// A built server, bound to its port, with its background tasks running.
pub struct Application {
    listener: TcpListener,
    router: Router,
    state: AppState,
}

impl Application {
    /// Connects (lazily) to the database, loads the live policies (from the database, or from
    /// the cache while it is away), starts the reload tasks and binds the listening socket.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        let options = postgres::connect_options(&config.database_url, "toolgate")
            .context("invalid DATABASE_URL")?;
        let pool = postgres::lazy_pool(
            options.clone(),
            config.db_max_connections,
            config.db_acquire_timeout,
        );
        let listener_pool = postgres::lazy_pool(
            options.application_name(&listener_application_name(&config.replica_id)),
            1,
            config.db_acquire_timeout,
        );
        let store = Arc::new(PolicyStore::new());
        let reloader = Arc::new(Reloader::new(
            pool.clone(),
            store.clone(),
            Cache::new(&config.cache_dir),
            config.replica_id.clone(),
            config.migrate,
        ));
        reloader.initial_load().await;
        if config.listen_notifications {
            tokio::spawn(reloader.clone().listen(listener_pool));
        }
        tokio::spawn(reloader.clone().poll(config.poll_interval));

        let listener = TcpListener::bind(&config.listen)
            .await
            .with_context(|| format!("failed to listen on `{}`", config.listen))?;
        let metrics = Metrics::new().context("failed to register metrics")?;
        let audit_store = AuditStore::Postgres(pool.clone());
        let audit = Audit::start(
            &config.audit,
            audit_store.clone(),
            &config.replica_id,
            metrics.audit.clone(),
        )?;
        if let Some(retention) = config.audit_retention {
            tokio::spawn(crate::audit::prune_periodically(audit_store, retention));
        }
        let state = AppState::new(Inner {
            pool,
            store,
            admin_token_hash: config.admin_token.as_deref().map(hash_token),
            allow_anonymous_loopback: config.allow_anonymous_loopback,
            failure_decision: config.failure_decision,
            replica_id: config.replica_id.clone(),
            metrics,
            max_body_bytes: config.max_body_bytes,
            audit: audit.clone(),
        });
        let limits = Limits {
            max_body_bytes: config.max_body_bytes,
            request_timeout: config.request_timeout,
            concurrency_limit: config.concurrency_limit,
            failure_decision: config.failure_decision,
            replica_id: config.replica_id,
            audit: Some(audit),
        };
        let router = router(state.clone(), &limits);
        Ok(Self {
            listener,
            router,
            state,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.local_addr().map(|addr| addr.port()).unwrap_or(0)
    }

    /// The shared state (for tests and embedding).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until SIGINT or SIGTERM, then drains in-flight requests.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `shutdown` completes, then stops accepting, finishes in-flight requests and
    /// drains the audit queue to the database or the spool.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let served = axum::serve(
            self.listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await;
        self.state
            .audit
            .shutdown(std::time::Duration::from_secs(10))
            .await;
        served
    }
}

/// The `application_name` of a replica's LISTEN connection (PostgreSQL keeps 63 bytes).
pub fn listener_application_name(replica_id: &str) -> String {
    let mut name = format!("toolgate-listener {replica_id}");
    while name.len() > 63 {
        name.pop();
    }
    name
}

/// The router with every route and layer.
pub fn router(state: AppState, limits: &Limits) -> Router {
    let evaluate = middleware::evaluate_layers(
        Router::new()
            .route("/v1/evaluate", post(evaluate::evaluate_event))
            .route("/v1/evaluate/{agent}", post(evaluate::evaluate_agent_event)),
        limits,
    );
    let admin = middleware::admin_layers(
        Router::new()
            .route(
                "/v1/tenants/{tenant}/bundles",
                post(bundles::create_bundle).get(bundles::list_bundles),
            )
            .route(
                "/v1/tenants/{tenant}/bundles/{id}",
                get(bundles::get_bundle),
            )
            .route(
                "/v1/tenants/{tenant}/bundles/{id}/activate",
                post(bundles::activate_bundle),
            )
            .route(
                "/v1/tenants/{tenant}/rollback",
                post(bundles::rollback_policy),
            )
            .route("/v1/tenants/{tenant}/policy", get(bundles::get_policy))
            .route("/v1/audit", get(audit::list_audit)),
        limits,
    );
    let health = Router::new()
        .route("/healthz", get(health::get_health))
        .route("/readyz", get(health::get_readiness));
    let router = Router::new().merge(evaluate).merge(admin).merge(health);
    middleware::common_layers(router, limits).with_state(state)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %error, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(error = %error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
