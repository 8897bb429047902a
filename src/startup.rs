//! Building and running the server: the database (PostgreSQL pools, or the embedded SQLite file
//! with its migrations and starter bundle), the initial policy load, the reload tasks, the router
//! and the listening socket.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::audit::Audit;
use crate::audit::store::AuditStore;
use crate::auth::{GLOBAL_TENANT, TokenLookups, hash_token};
use crate::config::Config;
use crate::decisions::Decisions;
use crate::metrics::Metrics;
use crate::middleware::{self, Limits};
use crate::routes::evaluate::FailurePolicy;
use crate::routes::{Group, ROUTES, Route};
use crate::state::{AppState, Inner};
use crate::store::cache::Cache;
use crate::store::reload::{PolicyStore, Reloader};
use crate::store::{Database, Location, explain_migrate_error, postgres, sqlite, starter};

/// A built server, bound to its port, with its background tasks running.
pub struct Application {
    listener: TcpListener,
    router: Router,
    /// `--metrics-listen`: `/metrics` alone, on its own socket.
    metrics: Option<(TcpListener, Router)>,
    state: AppState,
    store: String,
    /// `--request-timeout`: how long a connection may take to send a request head.
    head_timeout: Duration,
    /// `--shutdown-delay`: how long to go on serving, not ready, once told to stop.
    shutdown_delay: Duration,
}

impl Application {
    /// Connects to the database — lazily to PostgreSQL; to the embedded SQLite file at once,
    /// applying its migrations and activating the starter bundle on an empty store — loads the
    /// live policies (from the database, or from the cache while it is away), starts the reload
    /// tasks and binds the listening socket.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        check_admin_token(config.admin_token.as_deref())?;
        let location = config.location().map_err(anyhow::Error::msg)?;
        let (pool, listener_pool, writer_pool) = match &location {
            Location::Postgres(url) => {
                let options =
                    postgres::connect_options(url, "toolgate").context("invalid DATABASE_URL")?;
                let pool = postgres::lazy_pool(
                    options.clone(),
                    config.db_max_connections,
                    config.db_acquire_timeout,
                );
                let listener_pool = postgres::lazy_pool(
                    options
                        .clone()
                        .application_name(&listener_application_name(&config.replica_id)),
                    1,
                    config.db_acquire_timeout,
                );
                // Named per replica, so that a restarted replica can tell when the connections
                // of the process it replaces have finished (audit::writer, `resolve_head`).
                let writer_pool = postgres::writer_pool(
                    options
                        .application_name(&application_name("toolgate-audit", &config.replica_id)),
                    config.db_acquire_timeout,
                );
                (
                    Database::Postgres(pool),
                    Some(listener_pool),
                    Some(Database::Postgres(writer_pool)),
                )
            }
            Location::Sqlite(options) => (
                open_embedded(&location, options, &config).await?,
                None,
                None,
            ),
        };
        let metrics = Metrics::new().context("failed to register metrics")?;
        let store = Arc::new(PolicyStore::new());
        let reloader = Arc::new(Reloader::new(
            pool.clone(),
            store.clone(),
            Cache::new(&config.cache_dir),
            config.replica_id.clone(),
            // The embedded store was migrated above.
            config.migrate && !pool.is_embedded(),
            metrics.clone(),
        ));
        reloader.initial_load().await?;
        if let Some(listener_pool) = listener_pool
            && config.listen_notifications
        {
            tokio::spawn(reloader.clone().listen(listener_pool));
        }
        tokio::spawn(reloader.clone().poll(config.poll_interval));

        let listener = TcpListener::bind(&config.listen)
            .await
            .with_context(|| format!("failed to listen on `{}`", config.listen))?;
        let metrics_listener = match &config.metrics_listen {
            Some(address) => Some(
                TcpListener::bind(address)
                    .await
                    .with_context(|| format!("failed to listen on `{address}` for metrics"))?,
            ),
            None => None,
        };
        let audit_store = AuditStore::from(pool.clone());
        let audit = Audit::start(
            &config.audit,
            writer_pool.map_or_else(|| audit_store.clone(), AuditStore::from),
            &config.replica_id,
            metrics.audit().clone(),
        )?;
        if let Some(retention) = config.audit_retention {
            tokio::spawn(crate::audit::prune_periodically(audit_store, retention));
        }
        let state = AppState::new(Inner {
            pool,
            store,
            reloader,
            token_lookups: TokenLookups::new(config.db_max_connections),
            admin_token_hash: config.admin_token.as_deref().map(hash_token),
            allow_anonymous_loopback: config.allow_anonymous_loopback,
            failure: FailurePolicy {
                gate: config.failure_decision,
                block_prompts: config.failure_blocks_prompts,
            },
            replica_id: config.replica_id.clone(),
            metrics: metrics.clone(),
            max_body_bytes: config.max_body_bytes,
            audit,
            decisions: Decisions::new(config.decision_cache_bytes),
            replays: Arc::new(tokio::sync::Semaphore::new(1)),
            token_max_lifetime: config.token_max_lifetime,
            stopping: AtomicBool::new(false),
        });
        let head_timeout = config.request_timeout;
        let shutdown_delay = config.shutdown_delay;
        let limits = Limits {
            max_body_bytes: config.max_body_bytes,
            request_timeout: config.request_timeout,
            concurrency_limit: config.concurrency_limit,
            replica_id: config.replica_id,
            metrics,
        };
        let separate = metrics_listener.is_some();
        let router = build_router(state.clone(), &limits, |route| {
            !(separate && route.group == Group::Metrics)
        });
        let metrics = metrics_listener.map(|listener| {
            let router = build_router(state.clone(), &limits, |route| {
                route.group == Group::Metrics
            });
            (listener, router)
        });
        Ok(Self {
            listener,
            router,
            metrics,
            state,
            store: location.describe(),
            head_timeout,
            shutdown_delay,
        })
    }

    /// The store, for logs: `postgres` or `sqlite:<file>`.
    pub fn store(&self) -> &str {
        &self.store
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The bound address of the separate metrics listener, if there is one.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics
            .as_ref()
            .and_then(|(listener, _)| listener.local_addr().ok())
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

    /// Serves until `shutdown` completes, and then for `--shutdown-delay` more with `/readyz`
    /// answering 503 `stopping` (both listeners, when metrics have their own); then stops
    /// accepting, finishes in-flight requests and drains the audit queue to the database or the
    /// spool.
    ///
    /// The delay is for a load balancer: it goes on sending new connections to a replica until
    /// its health check or endpoint update has caught up, and a hook whose connection is refused
    /// is a non-blocking error to Claude Code, so the call would run unchecked.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (stop, stopped) = tokio::sync::watch::channel(());
        let state = self.state.clone();
        let delay = self.shutdown_delay;
        tokio::spawn(async move {
            shutdown.await;
            state.stopping.store(true, Ordering::Relaxed);
            if !delay.is_zero() {
                tracing::info!(
                    delay_ms = delay.as_millis() as u64,
                    "stopping: /readyz answers 503 while requests are still served for --shutdown-delay"
                );
                tokio::time::sleep(delay).await;
            }
            let _ = stop.send(());
        });
        let head_timeout = self.head_timeout;
        let main = serve(self.listener, self.router, head_timeout, stopped.clone());
        let served = match self.metrics {
            Some((listener, router)) => {
                let metrics = serve(listener, router, head_timeout, stopped);
                let (main, metrics) = tokio::join!(main, metrics);
                main.and(metrics)
            }
            None => main.await,
        };
        self.state
            .audit
            .shutdown(std::time::Duration::from_secs(10))
            .await;
        tracing::info!("toolgate stopped");
        served
    }
}

/// The fewest characters `TOOLGATE_ADMIN_TOKEN` may have (a generated token has 67).
pub const MIN_ADMIN_TOKEN_CHARS: usize = 32;

/// Refuses a bootstrap admin token that is short enough to guess over HTTP, or that has blanks
/// around it, which a request can never present (the `Authorization` header is trimmed). The
/// message names the variable, never the value.
fn check_admin_token(token: Option<&str>) -> anyhow::Result<()> {
    let Some(token) = token else {
        return Ok(());
    };
    anyhow::ensure!(
        token.trim() == token,
        "TOOLGATE_ADMIN_TOKEN starts or ends with white space, which no request can send"
    );
    anyhow::ensure!(
        token.chars().count() >= MIN_ADMIN_TOKEN_CHARS,
        "TOOLGATE_ADMIN_TOKEN is shorter than {MIN_ADMIN_TOKEN_CHARS} characters; generate one \
         with `openssl rand -hex 32`"
    );
    Ok(())
}

/// Serves `router` on `listener` (HTTP/1.1) until `stopped` changes, then stops accepting and
/// waits for the open connections to finish their requests.
///
/// Each connection must deliver every request head within `head_timeout` (`--request-timeout`),
/// counted from when the server starts waiting for it — so an idle keep-alive connection too —
/// or it is closed. axum's `serve` gives hyper no timer, under which its header timeout does
/// nothing: a client that sent half a head, or nothing at all, held its connection (a task and
/// a file descriptor) forever, and kept a graceful shutdown from ending.
async fn serve(
    listener: TcpListener,
    router: Router,
    head_timeout: Duration,
    mut stopped: tokio::sync::watch::Receiver<()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(head_timeout);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        let service = router
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            });
        let connection = graceful
            .watch(http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
        // A connection's error (the peer went away, its head timed out) concerns it alone.
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// After a failed `accept`: nothing for a connection that went away before it was taken; for
/// anything else (`EMFILE`: out of file descriptors) a log line and a pause of a second, as
/// hyper and axum do, rather than a loop that spins on the error.
async fn accept_failed(error: &std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %error, "failed to accept a connection");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Opens the SQLite store (creating its directory and file), applies its migrations unless told
/// not to, and on a store with no bundle at all activates the starter bundle.
async fn open_embedded(
    location: &Location,
    options: &sqlx::sqlite::SqliteConnectOptions,
    config: &Config,
) -> anyhow::Result<Database> {
    let file = location.sqlite_file().unwrap_or_default();
    let file = file.display();
    location
        .create_dir()
        .with_context(|| format!("failed to create the directory of `{file}`"))?;
    let pool = sqlite::open(
        options.clone(),
        config.db_max_connections,
        config.db_acquire_timeout,
    )
    .await
    .with_context(|| format!("failed to open the SQLite store `{file}`"))?;
    let db = Database::Sqlite(pool);
    if config.migrate {
        db.migrate().await.map_err(|error| {
            anyhow::anyhow!(
                "failed to apply the migrations to `{file}`: {}",
                explain_migrate_error(&error)
            )
        })?;
    }
    if config.starter_bundle {
        activate_starter(&db).await?;
    }
    Ok(db)
}

/// Pushes and activates the starter bundle for `global` when the store has no bundle at all.
/// Idempotent even when two processes race: the same content is the same bundle, and
/// activating the live bundle again adds nothing.
async fn activate_starter(db: &Database) -> anyhow::Result<()> {
    if db.has_bundles().await.context("failed to read the store")? {
        return Ok(());
    }
    let bundle = starter::bundle().map_err(anyhow::Error::msg)?;
    let sha256 = bundle.sha256();
    let (summary, _) = db
        .insert_bundle(GLOBAL_TENANT, &bundle.name, &sha256, &bundle.document, None)
        .await
        .context("failed to store the starter bundle")?;
    let (activation, created) = db
        .activate(GLOBAL_TENANT, summary.id, None)
        .await
        .context("failed to activate the starter bundle")?;
    if created {
        tracing::info!(tenant = %GLOBAL_TENANT, bundle.id = summary.id, bundle.sha256 = %sha256, activation.id = activation.id, "empty store: starter bundle (baseline, secrets) activated");
    }
    Ok(())
}

/// The `application_name` of a replica's LISTEN connection (PostgreSQL keeps 63 bytes).
pub fn listener_application_name(replica_id: &str) -> String {
    application_name("toolgate-listener", replica_id)
}

/// The `application_name` of a replica's connections of one `kind` (`toolgate-listener`,
/// `toolgate-audit`), cut to PostgreSQL's 63 bytes.
fn application_name(kind: &str, replica_id: &str) -> String {
    let mut name = format!("{kind} {replica_id}");
    while name.len() > 63 {
        name.pop();
    }
    name
}

/// The router with every route of [`ROUTES`] and every layer.
pub fn router(state: AppState, limits: &Limits) -> Router {
    build_router(state, limits, |_| true)
}

/// The router with the routes of [`ROUTES`] that `include` keeps, each behind its group's layers.
fn build_router(state: AppState, limits: &Limits, include: impl Fn(&Route) -> bool) -> Router {
    let mut evaluate = Router::new();
    let mut admin = Router::new();
    let mut plain = Router::new();
    for route in ROUTES.iter().filter(|route| include(route)) {
        let group = match route.group {
            Group::Evaluate => &mut evaluate,
            Group::Admin => &mut admin,
            Group::Health | Group::Metrics => &mut plain,
        };
        *group = std::mem::take(group).route(route.path, route.method_router());
    }
    let router = Router::new()
        .merge(middleware::evaluate_layers(evaluate, limits, &state))
        .merge(middleware::admin_layers(admin, limits))
        .merge(plain);
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
