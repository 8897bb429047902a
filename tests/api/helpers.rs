//! `spawn_app()` and friends: a fresh database per test on the server from `DATABASE_URL` (or a
//! fresh SQLite file in a temporary directory), the real server on port 0, and an HTTP client.
//!
//! Tests that hold for both stores are written once, as `async fn name(backend: Backend)`, and
//! listed in `on_both_backends!`, which makes `name::postgres` and `name::sqlite` of them.

use std::future::Future;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use toolgate::config::Config;
use toolgate::startup::Application;
use toolgate::state::AppState;
use toolgate::store::{Database, Location, sqlite};

static TRACING: LazyLock<()> = LazyLock::new(toolgate::telemetry::init_for_tests);

pub const ADMIN_TOKEN: &str = "tg_bootstrap_admin_token_for_tests";

static REPLICAS: AtomicU32 = AtomicU32::new(0);

/// The store a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh database on the PostgreSQL server of `DATABASE_URL`.
    Postgres,
    /// The embedded store: a fresh SQLite file in a temporary data directory.
    Sqlite,
}

/// Makes `name::postgres` and `name::sqlite` tests of each `async fn name(backend: Backend)`.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn postgres() {
                super::$name(crate::helpers::Backend::Postgres).await
            }
            #[tokio::test]
            async fn sqlite() {
                super::$name(crate::helpers::Backend::Sqlite).await
            }
        }
    )*};
}
pub(crate) use on_both_backends;

pub struct TestApp {
    pub address: String,
    /// The `--metrics-listen` listener's base URL, when there is one.
    pub metrics_address: Option<String>,
    /// `postgres://…` or `sqlite://…`, as the CLI takes it.
    pub database_url: String,
    /// A pool of the test's own on the server's database.
    pub db: Database,
    pub client: reqwest::Client,
    pub admin_token: String,
    pub cache_dir: PathBuf,
    /// The audit spool directory (`--audit-spool-dir`).
    pub spool_dir: PathBuf,
    pub replica_id: String,
    /// The server's state, when it runs in this process.
    pub state: Option<AppState>,
    _dirs: Vec<tempfile::TempDir>,
}

fn base_url() -> String {
    std::env::var("DATABASE_URL")
        .expect("DATABASE_URL is not set: run the tests with scripts/test, which starts PostgreSQL")
}

/// `url` with its database name replaced.
pub fn with_database(url: &str, database: &str) -> String {
    let (main, query) = match url.split_once('?') {
        Some((main, query)) => (main, Some(query)),
        None => (url, None),
    };
    let after_scheme = main.find("://").map(|at| at + 3).unwrap_or(0);
    let base = match main[after_scheme..].find('/') {
        Some(at) => &main[..after_scheme + at],
        None => main,
    };
    match query {
        Some(query) => format!("{base}/{database}?{query}"),
        None => format!("{base}/{database}"),
    }
}

/// Creates an empty database on the server of `server_url` and returns its URL.
pub async fn create_database(server_url: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).unwrap();
    let name = format!("test_{}", hex::encode(bytes));
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect(server_url)
        .await
        .expect("cannot connect to DATABASE_URL");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("CREATE DATABASE");
    admin.close().await;
    with_database(server_url, &name)
}

pub fn test_config(database_url: &str) -> Config {
    let n = REPLICAS.fetch_add(1, Ordering::Relaxed);
    let mut config = Config::new(database_url);
    config.listen = "127.0.0.1:0".into();
    config.admin_token = Some(ADMIN_TOKEN.into());
    config.poll_interval = Duration::from_millis(200);
    config.replica_id = format!("test-{}-{n}", std::process::id());
    config.db_max_connections = 5;
    config
}

/// A server on a fresh database.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// A server on a fresh store of `backend`. An SQLite store starts without the starter bundle
/// here, so that both backends start empty.
pub async fn spawn_app_on(backend: Backend) -> TestApp {
    spawn_app_on_with(backend, |_| {}).await
}

/// [`spawn_app_on`], configured by `configure`.
pub async fn spawn_app_on_with(backend: Backend, configure: impl FnOnce(&mut Config)) -> TestApp {
    match backend {
        Backend::Postgres => spawn_app_with(configure).await,
        Backend::Sqlite => {
            let data = tempfile::tempdir().expect("tempdir");
            let mut app = spawn_embedded(data.path(), |config| {
                config.starter_bundle = false;
                configure(config);
            })
            .await;
            app._dirs.push(data);
            app
        }
    }
}

/// A server on the embedded store in `data_dir`, with `toolgate serve`'s embedded defaults
/// (starter bundle, anonymous loopback evaluation) unless `configure` changes them.
pub async fn spawn_embedded(
    data_dir: &std::path::Path,
    configure: impl FnOnce(&mut Config),
) -> TestApp {
    let mut config = test_config("");
    let embedded = Config::embedded(data_dir);
    config.database_url = embedded.database_url;
    config.data_dir = embedded.data_dir;
    config.cache_dir = embedded.cache_dir;
    config.allow_anonymous_loopback = embedded.allow_anonymous_loopback;
    config.audit.spool_dir = embedded.audit.spool_dir;
    configure(&mut config);
    let file = config.location().unwrap().sqlite_file().unwrap();
    start(config, format!("sqlite://{}", file.display()), None).await
}

/// A server on a fresh database, configured by `configure`.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Config)) -> TestApp {
    let database_url = create_database(&base_url()).await;
    spawn_replica(&database_url, configure).await
}

/// A server on an existing database (another replica). Its cache directory is a fresh temporary
/// one unless `configure` sets one.
pub async fn spawn_replica(database_url: &str, configure: impl FnOnce(&mut Config)) -> TestApp {
    spawn_replica_until(database_url, configure, std::future::pending()).await
}

/// A server on a fresh database, configured by `configure`, that is told to stop (as by
/// SIGTERM) when `shutdown` completes.
pub async fn spawn_app_until(
    configure: impl FnOnce(&mut Config),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> TestApp {
    let database_url = create_database(&base_url()).await;
    spawn_replica_until(&database_url, configure, shutdown).await
}

async fn spawn_replica_until(
    database_url: &str,
    configure: impl FnOnce(&mut Config),
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> TestApp {
    let cache = tempfile::tempdir().expect("tempdir");
    let mut config = test_config(database_url);
    config.cache_dir = cache.path().to_owned();
    config.audit.spool_dir = cache.path().join("spool");
    configure(&mut config);
    start_until(config, database_url.to_owned(), Some(cache), shutdown).await
}

/// Builds and runs the server of `config`, and a pool of the test's own on its database.
async fn start(config: Config, database_url: String, cache: Option<tempfile::TempDir>) -> TestApp {
    start_until(config, database_url, cache, std::future::pending()).await
}

/// [`start`], with the server told to stop when `shutdown` completes.
async fn start_until(
    config: Config,
    database_url: String,
    cache: Option<tempfile::TempDir>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> TestApp {
    LazyLock::force(&TRACING);
    let cache_dir = config.cache_dir.clone();
    let spool_dir = config.audit.spool_dir.clone();
    let replica_id = config.replica_id.clone();
    let admin_token = config.admin_token.clone().unwrap_or_default();
    let location = config.location().unwrap();
    let application = Application::build(config).await.expect("build");
    let address = format!("http://{}", application.local_addr().unwrap());
    let state = application.state().clone();
    let metrics_address = application
        .metrics_addr()
        .map(|address| format!("http://{address}"));
    tokio::spawn(application.run_until(shutdown));
    let db = match location {
        Location::Postgres(url) => Database::Postgres(
            PgPoolOptions::new()
                .max_connections(2)
                .acquire_timeout(Duration::from_secs(2))
                .connect_lazy(&url)
                .unwrap(),
        ),
        Location::Sqlite(options) => Database::Sqlite(
            sqlite::open(*options, 2, Duration::from_secs(10))
                .await
                .expect("open the SQLite store"),
        ),
    };
    TestApp {
        address,
        metrics_address,
        database_url,
        db,
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
        admin_token,
        cache_dir,
        spool_dir,
        replica_id,
        state: Some(state),
        _dirs: cache.into_iter().collect(),
    }
}

/// A client for a server running in another process on the embedded store in `data_dir`.
pub async fn attach(address: &str, data_dir: &std::path::Path, admin_token: &str) -> TestApp {
    let location = Location::embedded(data_dir);
    let file = location.sqlite_file().unwrap();
    let Location::Sqlite(options) = location else {
        unreachable!("the embedded store is SQLite")
    };
    TestApp {
        address: address.to_owned(),
        metrics_address: None,
        database_url: format!("sqlite://{}", file.display()),
        db: Database::Sqlite(
            sqlite::open(*options, 2, Duration::from_secs(10))
                .await
                .expect("open the SQLite store"),
        ),
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap(),
        admin_token: admin_token.to_owned(),
        cache_dir: data_dir.join("cache"),
        spool_dir: data_dir.join("spool"),
        replica_id: String::new(),
        state: None,
        _dirs: Vec::new(),
    }
}

/// The body of `GET {base}/metrics` (a server's base URL), whatever its status.
pub async fn metrics_text(client: &reqwest::Client, base: &str) -> String {
    let response = client.get(format!("{base}/metrics")).send().await;
    response.unwrap().text().await.unwrap()
}

/// The metrics text of `base` (a server's base URL).
pub async fn scrape(app: &TestApp, base: &str) -> String {
    let response = app
        .client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    response.text().await.unwrap()
}

/// The value of the one sample of `name` whose labels include every pair of `labels`.
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<f64> = text
        .lines()
        .filter_map(|line| line.strip_prefix(name)?.strip_prefix('{'))
        .filter_map(|line| line.rsplit_once("} "))
        .filter(|(pairs, _)| {
            labels
                .iter()
                .all(|(key, value)| pairs.contains(&format!("{key}=\"{value}\"")))
        })
        .map(|(_, value)| value.parse().unwrap())
        .collect();
    assert!(
        found.len() <= 1,
        "several samples of {name} match {labels:?}"
    );
    found.first().copied()
}

/// Retries `check` every 20 ms until it returns `Some`, for at most `limit`.
pub async fn eventually<T, F, Fut>(limit: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "gave up waiting for: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn bash(command: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp/p",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
}

/// A `PreToolUse` for a tool-wide rule (`WebFetch`, `mcp__server`), which needs no shell analysis.
pub fn tool(name: &str) -> Value {
    let input = if name == "WebFetch" {
        json!({"url": "https://example.com/", "prompt": "read it"})
    } else {
        json!({"arg": 1})
    };
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp/p",
        "tool_name": name,
        "tool_input": input,
    })
}

pub fn deny_bundle(name: &str, pattern: &str) -> Value {
    json!({"name": name, "permissions": {"deny": [pattern]}})
}

pub fn decision_of(reply: &Value) -> &str {
    reply["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
}

impl TestApp {
    /// The state of the server running in this process.
    pub fn state(&self) -> &AppState {
        self.state
            .as_ref()
            .expect("the server runs in another process")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// The PostgreSQL pool of a PostgreSQL test.
    pub fn pg(&self) -> &PgPool {
        self.db.as_postgres().expect("a PostgreSQL test")
    }

    pub async fn create_token(&self, role: &str, tenant: &str) -> String {
        self.create_token_expiring(role, tenant, None).await
    }

    /// A token that expires at `expires_at` (`None`: never), stored as `token create` stores it.
    pub async fn create_token_expiring(
        &self,
        role: &str,
        tenant: &str,
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> String {
        let token = toolgate::auth::generate_token().unwrap();
        let hash = toolgate::auth::hash_token(&token);
        self.db
            .insert_token(toolgate::store::NewToken {
                expires_at,
                ..toolgate::store::NewToken::new(&hash, "tg_test", role, tenant)
            })
            .await
            .expect("insert token");
        token
    }

    /// Runs `sql` with `id` bound to `$1` straight on the database, past the API.
    pub async fn execute(&self, sql: &'static str, id: i64) -> Result<u64, sqlx::Error> {
        toolgate::on_pool!(&self.db, |pool| sqlx::query(sql)
            .bind(id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected()))
    }

    /// Stores a bundle straight in the table, past the API's checks; returns its id.
    pub async fn insert_raw_bundle(&self, tenant: &str, document: &Value) -> i64 {
        toolgate::on_pool!(&self.db, |pool| sqlx::query_scalar(
            "INSERT INTO bundles (tenant, name, sha256, document) \
             VALUES ($1, 'raw', $2, $3) RETURNING id"
        )
        .bind(tenant)
        .bind("a".repeat(64))
        .bind(sqlx::types::Json(document))
        .fetch_one(pool)
        .await
        .unwrap())
    }

    /// The (id, previous_id) of every activation of `tenant`, oldest first.
    pub async fn activation_history(&self, tenant: &str) -> Vec<(i64, Option<i64>)> {
        toolgate::on_pool!(&self.db, |pool| sqlx::query_as(
            "SELECT id, previous_id FROM activations WHERE tenant = $1 ORDER BY id"
        )
        .bind(tenant)
        .fetch_all(pool)
        .await
        .unwrap())
    }

    /// `GET path` with `token`.
    pub async fn get_as(&self, token: &str, path: &str) -> Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    /// `GET path` as the bootstrap admin; the JSON answer.
    pub async fn get_json(&self, path: &str) -> Value {
        self.client
            .get(self.url(path))
            .bearer_auth(&self.admin_token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// The activation this replica serves for `tenant`.
    pub async fn served(&self, tenant: &str) -> Option<i64> {
        self.policy(tenant).await["served"]["activation_id"].as_i64()
    }

    /// The decision for `event` with `token`: `deny`, `ask`, `allow` or `none`.
    pub async fn decide(&self, token: &str, event: &Value) -> String {
        decision_of(&self.evaluate(token, event).await).to_owned()
    }

    /// Evaluates an event without a token; asserts 200 and returns the reply.
    pub async fn evaluate_anonymously(&self, event: &Value) -> Value {
        let response = self
            .evaluate_raw(None, serde_json::to_vec(event).unwrap())
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    pub async fn push_as(&self, token: &str, tenant: &str, bundle: &Value) -> Response {
        self.client
            .post(self.url(&format!("/v1/tenants/{tenant}/bundles")))
            .bearer_auth(token)
            .json(bundle)
            .send()
            .await
            .unwrap()
    }

    /// Pushes as the bootstrap admin; returns the bundle id.
    pub async fn push(&self, tenant: &str, bundle: &Value) -> i64 {
        let response = self.push_as(&self.admin_token, tenant, bundle).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert!(status.is_success(), "push failed: {status} {body}");
        body["id"].as_i64().unwrap()
    }

    pub async fn activate_as(&self, token: &str, tenant: &str, id: i64) -> Response {
        self.client
            .post(self.url(&format!("/v1/tenants/{tenant}/bundles/{id}/activate")))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    /// Activates as the bootstrap admin; returns the activation id.
    pub async fn activate(&self, tenant: &str, id: i64) -> i64 {
        let response = self.activate_as(&self.admin_token, tenant, id).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap();
        assert!(status.is_success(), "activate failed: {status} {body}");
        body["id"].as_i64().unwrap()
    }

    pub async fn rollback(&self, tenant: &str) -> Response {
        self.client
            .post(self.url(&format!("/v1/tenants/{tenant}/rollback")))
            .bearer_auth(&self.admin_token)
            .send()
            .await
            .unwrap()
    }

    pub async fn policy(&self, tenant: &str) -> Value {
        self.get_json(&format!("/v1/tenants/{tenant}/policy")).await
    }

    pub async fn list_bundles(&self, tenant: &str) -> Value {
        self.get_json(&format!("/v1/tenants/{tenant}/bundles"))
            .await
    }

    /// Waits until this replica serves `activation_id` for `tenant`.
    pub async fn wait_served(&self, tenant: &str, activation_id: i64) {
        eventually(
            Duration::from_secs(10),
            "the activation to be served",
            || async { (self.served(tenant).await == Some(activation_id)).then_some(()) },
        )
        .await;
    }

    pub async fn evaluate_raw(
        &self,
        token: Option<&str>,
        body: impl Into<reqwest::Body>,
    ) -> Response {
        self.evaluate_at("/v1/evaluate", token, body).await
    }

    /// Posts `body` to an evaluate route (`/v1/evaluate/cursor`).
    pub async fn evaluate_at(
        &self,
        path: &str,
        token: Option<&str>,
        body: impl Into<reqwest::Body>,
    ) -> Response {
        let mut request = self
            .client
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send().await.unwrap()
    }

    /// Evaluates an event; asserts 200 and returns the reply.
    pub async fn evaluate(&self, token: &str, event: &Value) -> Value {
        let response = self
            .evaluate_raw(Some(token), serde_json::to_vec(event).unwrap())
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()["content-type"],
            "application/json",
            "evaluate must answer JSON"
        );
        response.json().await.unwrap()
    }

    /// Asserts the server still answers `/healthz`.
    pub async fn assert_healthy(&self) {
        let response = self.client.get(self.url("/healthz")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body, json!({"status": "ok"}));
    }
}

/// Asserts an error envelope with `code`; returns the message.
pub async fn assert_error(response: Response, status: StatusCode, code: &str) -> String {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], code, "{body}");
    body["error"]["message"].as_str().unwrap().to_owned()
}

/// Asserts the answer to a hook event from a caller toolgate refused (no token, a token no one
/// holds, one of another role): 200 with the failure decision, a deny naming why, since any
/// error status would let the agent proceed.
pub async fn assert_refused(response: Response, why: &str) {
    assert_eq!(response.status(), StatusCode::OK);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(decision_of(&reply), "deny", "{reply}");
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        reason.contains(&format!("the caller was refused: {why}")),
        "{reply}"
    );
}
