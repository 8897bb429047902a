//! Hot swap: the per-tenant compiled policies behind one `ArcSwap`, and the background tasks that
//! keep them equal to the live activations in the database.
//!
//! - Request handlers call [`PolicyStore::snapshot`] once and use that snapshot for the whole
//!   decision; they never lock.
//! - A listener task `LISTEN`s on `toolgate_policy` (its own connection, application name
//!   `toolgate-listener <replica id>`), reconnecting with capped exponential backoff (100 ms → 5 s); after
//!   every (re)connect it resyncs everything, since notifications may have been missed. A
//!   notification names a tenant whose activation changed, or says a token was revoked.
//! - With the embedded SQLite store there is no `LISTEN`: one node, so an activation or rollback
//!   reloads its tenant in-process right after it commits ([`Reloader::reload_after_commit`]).
//! - A poll task compares the live (tenant, activation id) pairs every `poll_interval` and
//!   reloads what changed, so a lost notification costs one interval. It also refreshes the
//!   token hashes and notices whether the database is up.
//! - A bundle that fails to compile is logged and skipped: it never replaces a running policy.
//!   Where none runs (a replica starting, after an upgrade that refuses an old bundle), the
//!   tenant is served the last good policy from the disk cache, or else is *unserved*: its
//!   events get the failure decision, never the `{}` of a tenant without rules.
//! - After every change the live documents and token hashes are written to the disk cache, which
//!   is read at start when the database cannot be reached.
//!
//! Nothing here runs on the request path.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use sqlx::postgres::{PgListener, PgPool};
use toolgate_engine::{Bundle, CompiledPolicy};

use super::cache::{Cache, CacheContents, CachedToken};
use super::database::{
    Database, LiveRow, TOKENS_CHANGED, explain_migrate_error, is_migration_failure,
};
use super::postgres::CHANNEL;
use crate::auth::{Role, TokenHash, TokenInfo, TokenMap};
use crate::metrics::{LiveBundle, Metrics, Reload};

/// One tenant's live policy, compiled.
#[derive(Debug)]
pub struct LivePolicy {
    /// What is live, as stored.
    pub row: LiveRow,
    /// The compiled policy.
    pub compiled: CompiledPolicy,
    /// When this replica loaded it.
    pub loaded_at: DateTime<Utc>,
    /// Which load this is: unique within the process, never 0, so that a remembered decision
    /// names the policies it was made with ([`crate::decisions`]).
    pub generation: u64,
}

impl LivePolicy {
    /// A policy loaded now.
    pub fn new(row: LiveRow, compiled: CompiledPolicy) -> Self {
        static GENERATIONS: AtomicU64 = AtomicU64::new(1);
        Self {
            row,
            compiled,
            loaded_at: Utc::now(),
            generation: GENERATIONS.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// Every tenant's live policy at one moment.
pub type Snapshot = HashMap<String, Arc<LivePolicy>>;

/// The live policies and known tokens of this replica.
#[derive(Debug)]
pub struct PolicyStore {
    snapshot: ArcSwap<Snapshot>,
    /// Tenants whose live bundle failed to compile with no earlier policy to keep serving.
    unserved: ArcSwap<BTreeSet<String>>,
    tokens: ArcSwap<TokenMap>,
    /// How many times the reloader has read the tokens from the database: a lookup that began
    /// before a read may have seen a token that read found revoked ([`Self::remember_token`]).
    token_reads: AtomicU64,
    loaded: AtomicBool,
    database_up: AtomicBool,
}

impl Default for PolicyStore {
    fn default() -> Self {
        Self::new()
    }
}

impl PolicyStore {
    /// An empty store: nothing loaded yet.
    pub fn new() -> Self {
        Self {
            snapshot: ArcSwap::from_pointee(Snapshot::new()),
            unserved: ArcSwap::from_pointee(BTreeSet::new()),
            tokens: ArcSwap::from_pointee(TokenMap::new()),
            token_reads: AtomicU64::new(0),
            loaded: AtomicBool::new(false),
            database_up: AtomicBool::new(false),
        }
    }

    /// The current snapshot. Load it once per request.
    pub fn snapshot(&self) -> arc_swap::Guard<Arc<Snapshot>> {
        self.snapshot.load()
    }

    /// The tenants whose live bundle failed to compile and that have no policy from before it
    /// (none running, none in the cache): their events get the failure decision.
    pub fn unserved(&self) -> arc_swap::Guard<Arc<BTreeSet<String>>> {
        self.unserved.load()
    }

    /// The known token hashes.
    pub fn tokens(&self) -> arc_swap::Guard<Arc<TokenMap>> {
        self.tokens.load()
    }

    /// Where the reloader's reads of the tokens stand: take it before looking a token up in the
    /// database, and give it to [`Self::remember_token`].
    pub fn token_reads(&self) -> u64 {
        self.token_reads.load(Ordering::SeqCst)
    }

    /// Adds a token found in the database on a miss, by a lookup that began at `reads`
    /// ([`Self::token_reads`]); returns whether it did. Not when the reloader has read the
    /// tokens since: the token may have been revoked in between, and that read would not see
    /// it to drop it (a revoked token would be accepted until the next poll).
    pub fn remember_token(&self, hash: TokenHash, info: Arc<TokenInfo>, reads: u64) -> bool {
        let mut remembered = false;
        self.tokens.rcu(|tokens| {
            remembered = self.token_reads() == reads;
            if !remembered {
                return Arc::clone(tokens);
            }
            let mut tokens = TokenMap::clone(tokens);
            tokens.insert(hash, info.clone());
            Arc::new(tokens)
        });
        remembered
    }

    /// Replaces the known tokens with `tokens`, read from the database or the cache.
    fn replace_tokens(&self, tokens: TokenMap) {
        self.tokens.store(Arc::new(tokens));
    }

    /// Counts a read of the tokens from the database, before what it read replaces the known
    /// tokens: a lookup in flight across it then remembers nothing.
    fn count_token_read(&self) {
        self.token_reads.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether a policy snapshot has been loaded (from the database or the cache), even an empty one.
    pub fn is_loaded(&self) -> bool {
        self.loaded.load(Ordering::Acquire)
    }

    /// Whether the last contact with the database succeeded.
    pub fn database_up(&self) -> bool {
        self.database_up.load(Ordering::Relaxed)
    }

    /// Records whether the database answered.
    pub fn set_database_up(&self, up: bool) {
        self.database_up.store(up, Ordering::Relaxed);
    }

    fn publish(&self, snapshot: Snapshot, unserved: BTreeSet<String>) {
        self.snapshot.store(Arc::new(snapshot));
        self.unserved.store(Arc::new(unserved));
        self.loaded.store(true, Ordering::Release);
    }
}

/// Compiles a stored row's document.
pub fn compile_row(row: &LiveRow) -> Result<CompiledPolicy, String> {
    compile_document(row.document.clone())
}

/// Compiles a stored document.
pub fn compile_document(document: serde_json::Value) -> Result<CompiledPolicy, String> {
    let bundle = Bundle::from_value(document).map_err(|e| e.to_string())?;
    CompiledPolicy::compile(&bundle).map_err(|e| e.to_string())
}

/// The tenants whose live bundle failed to compile and that `snapshot` has no policy for.
fn unserved(state: &SyncState, snapshot: &Snapshot) -> BTreeSet<String> {
    state
        .failed
        .keys()
        .filter(|tenant| !snapshot.contains_key(*tenant))
        .cloned()
        .collect()
}

/// Compiles stored rows on the blocking pool (the work is CPU-bound), each with its outcome.
async fn compile_rows(
    rows: Vec<LiveRow>,
) -> Result<Vec<(Result<CompiledPolicy, String>, LiveRow)>, tokio::task::JoinError> {
    tokio::task::spawn_blocking(move || {
        rows.into_iter()
            .map(|row| (compile_row(&row), row))
            .collect()
    })
    .await
}

/// Mutable state of the reloader, behind one async lock so reloads never interleave.
#[derive(Default)]
struct SyncState {
    /// Activations that failed to compile, not retried until they change.
    failed: HashMap<String, i64>,
    /// The token rows last written to the cache.
    tokens: Vec<CachedToken>,
    /// Whether migrations have run in this process.
    migrated: bool,
}

/// Keeps a [`PolicyStore`] in step with the database.
pub struct Reloader {
    db: Database,
    store: Arc<PolicyStore>,
    cache: Cache,
    replica_id: String,
    migrate: bool,
    metrics: Metrics,
    state: tokio::sync::Mutex<SyncState>,
}

impl Reloader {
    /// A reloader for `store`.
    pub fn new(
        db: Database,
        store: Arc<PolicyStore>,
        cache: Cache,
        replica_id: String,
        migrate: bool,
        metrics: Metrics,
    ) -> Self {
        Self {
            db,
            store,
            cache,
            replica_id,
            migrate,
            metrics,
            state: tokio::sync::Mutex::new(SyncState::default()),
        }
    }

    /// The first load: from the database, or from the disk cache when the database is away.
    ///
    /// Fails when the migrator refuses the store (a newer build migrated it, say): a replica
    /// that served its cache then would never see an activation or a revocation, and look
    /// healthy all the while.
    pub async fn initial_load(&self) -> anyhow::Result<()> {
        match self.sync(None).await {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Migrate(refused)) => {
                anyhow::bail!(
                    "the database's migrations refuse this build: {}",
                    explain_migrate_error(&refused)
                )
            }
            Err(error) => {
                let error = self.db.explain(&error).await;
                tracing::warn!(error = %error, "database unavailable at start; trying the policy cache");
                self.load_cache().await;
                Ok(())
            }
        }
    }

    /// The disk cache's contents, read on the blocking pool.
    async fn read_cache(&self) -> anyhow::Result<Option<CacheContents>> {
        let cache = self.cache.clone();
        tokio::task::spawn_blocking(move || cache.read())
            .await
            .map_err(|error| anyhow::anyhow!("policy cache task failed: {error}"))?
    }

    async fn load_cache(&self) {
        let contents = match self.read_cache().await {
            Ok(Some(contents)) => contents,
            Ok(None) => {
                tracing::warn!(cache.path = %self.cache.path().display(), "no policy cache; not ready until the database answers");
                return;
            }
            Err(error) => {
                tracing::error!(error = %format!("{error:#}"), "policy cache unreadable; not ready until the database answers");
                return;
            }
        };
        let mut state = self.state.lock().await;
        let mut snapshot = Snapshot::new();
        for row in contents.policies {
            match compile_row(&row) {
                Ok(compiled) => {
                    snapshot.insert(row.tenant.clone(), Arc::new(LivePolicy::new(row, compiled)));
                }
                Err(error) => {
                    tracing::error!(tenant = %row.tenant, activation.id = row.activation_id, error = %error, "cached bundle failed to compile; the tenant's events get the failure decision");
                    state.failed.insert(row.tenant.clone(), row.activation_id);
                    self.metrics.observe_reload(Reload::CompileError, 1);
                }
            }
        }
        let tokens = token_map(&contents.tokens);
        tracing::info!(
            policies = snapshot.len(),
            tokens = tokens.len(),
            "serving policies from the cache"
        );
        self.store.replace_tokens(tokens);
        state.tokens = contents.tokens;
        self.metrics.observe_reload(Reload::Cache, 1);
        self.publish(snapshot, &state);
    }

    /// Brings the given tenants (all when `None`) up to date with the database. Returns how many
    /// tenants changed.
    pub async fn sync(&self, tenants: Option<Vec<String>>) -> Result<usize, sqlx::Error> {
        let result = self.sync_inner(tenants).await;
        self.store.set_database_up(result.is_ok());
        self.metrics.set_database_up(result.is_ok());
        match &result {
            Ok(0) => self.metrics.observe_reload(Reload::Unchanged, 1),
            Ok(_) => {}
            Err(_) => self.metrics.observe_reload(Reload::DatabaseError, 1),
        }
        result
    }

    async fn sync_inner(&self, tenants: Option<Vec<String>>) -> Result<usize, sqlx::Error> {
        let mut state = self.state.lock().await;
        if self.migrate && !state.migrated {
            self.db.migrate().await.map_err(|error| match error {
                sqlx::migrate::MigrateError::Execute(error) => error,
                // The migrator refused this store: no retry will change that, and the replica
                // must not serve its cache as if the database were merely away.
                refused if !is_migration_failure(&refused) => {
                    sqlx::Error::Migrate(Box::new(refused))
                }
                other => sqlx::Error::Protocol(format!("migration failed: {other}")),
            })?;
            state.migrated = true;
        }
        let full = tenants.is_none();
        let versions = self.db.live_versions(tenants.as_deref()).await?;
        let current = self.store.snapshot.load_full();
        let changed: Vec<String> = versions
            .iter()
            .filter(|(tenant, id)| {
                current.get(tenant).map(|live| live.row.activation_id) != Some(*id)
                    && state.failed.get(tenant) != Some(id)
            })
            .map(|(tenant, _)| tenant.clone())
            .collect();
        let tokens_changed = if full {
            self.refresh_tokens(&mut state).await?
        } else {
            false
        };
        if changed.is_empty() {
            if !self.store.is_loaded() {
                self.publish(Snapshot::clone(&current), &state);
            }
            if tokens_changed {
                self.write_cache(&current, &state).await;
            }
            return Ok(0);
        }
        let rows = self.db.live_rows(&changed).await?;
        let compiled = compile_rows(rows)
            .await
            .map_err(|error| sqlx::Error::Protocol(format!("compile task failed: {error}")))?;
        let mut next = Snapshot::clone(&current);
        let mut count = 0;
        for (result, row) in compiled {
            match result {
                Ok(compiled) => {
                    tracing::info!(tenant = %row.tenant, activation.id = row.activation_id, bundle.id = row.bundle_id, bundle.sha256 = %row.sha256, "policy loaded");
                    state.failed.remove(&row.tenant);
                    next.insert(row.tenant.clone(), Arc::new(LivePolicy::new(row, compiled)));
                    count += 1;
                    self.metrics.observe_reload(Reload::Loaded, 1);
                }
                Err(error) => {
                    tracing::error!(tenant = %row.tenant, activation.id = row.activation_id, bundle.id = row.bundle_id, error = %error, "live bundle failed to compile; keeping the running policy");
                    state.failed.insert(row.tenant.clone(), row.activation_id);
                    self.metrics.observe_reload(Reload::CompileError, 1);
                }
            }
        }
        let without = unserved(&state, &next);
        if !without.is_empty() {
            self.serve_cached(&without, &mut next).await;
        }
        self.publish(next.clone(), &state);
        self.write_cache(&next, &state).await;
        Ok(count)
    }

    /// Puts the cached policies of `tenants`, whose live bundles failed to compile and which
    /// run none, into `next`: the last good policy this replica (or one sharing its cache
    /// directory) served. Read before the cache is written again without them.
    async fn serve_cached(&self, tenants: &BTreeSet<String>, next: &mut Snapshot) {
        let policies = match self.read_cache().await {
            Ok(contents) => contents
                .map(|contents| contents.policies)
                .unwrap_or_default(),
            Err(error) => {
                tracing::error!(error = %format!("{error:#}"), "policy cache unreadable");
                Vec::new()
            }
        };
        let wanted: Vec<LiveRow> = policies
            .into_iter()
            .filter(|row| tenants.contains(&row.tenant))
            .collect();
        let compiled = compile_rows(wanted).await.unwrap_or_default();
        for (result, row) in compiled {
            if let Ok(compiled) = result {
                tracing::warn!(tenant = %row.tenant, activation.id = row.activation_id, bundle.id = row.bundle_id, "serving the cached last good policy in place of the live bundle that failed to compile");
                next.insert(row.tenant.clone(), Arc::new(LivePolicy::new(row, compiled)));
            }
        }
    }

    /// Swaps `snapshot` in, with the tenants that failed to load and are not in it, and exports
    /// its bundles as metrics.
    fn publish(&self, snapshot: Snapshot, state: &SyncState) {
        let unserved = unserved(state, &snapshot);
        for tenant in &unserved {
            tracing::error!(tenant = %tenant, "no policy can be served for the tenant: its events get the failure decision until a bundle that compiles is activated");
        }
        self.metrics
            .set_live_bundles(snapshot.values().map(|live| LiveBundle {
                tenant: live.row.tenant.clone(),
                bundle_id: live.row.bundle_id,
                sha256: live.row.sha256.clone(),
                activation_id: live.row.activation_id,
                activated_at: unix_seconds(live.row.activated_at),
                loaded_at: unix_seconds(live.loaded_at),
            }));
        self.store.publish(snapshot, unserved);
    }

    /// Replaces the known tokens with the database's; returns whether they changed.
    async fn refresh_tokens(&self, state: &mut SyncState) -> Result<bool, sqlx::Error> {
        let rows = self.db.active_tokens().await?;
        // Even when nothing changed: a lookup that read a token this read found revoked may be
        // in flight, and must not put it back.
        self.store.count_token_read();
        let mut cached: Vec<CachedToken> = rows
            .into_iter()
            .map(|row| CachedToken {
                hash: hex::encode(&row.hash),
                id: row.id,
                role: row.role,
                tenant: row.tenant,
                expires_at: row.expires_at,
            })
            .collect();
        cached.sort();
        if cached == state.tokens {
            // Tokens remembered on a miss since the last poll live in memory only: the list
            // replaces them too, or one revoked before any poll saw it would stay valid.
            if self.store.tokens().len() != cached.len() {
                self.store.replace_tokens(token_map(&cached));
            }
            return Ok(false);
        }
        self.store.replace_tokens(token_map(&cached));
        state.tokens = cached;
        Ok(true)
    }

    async fn write_cache(&self, snapshot: &Snapshot, state: &SyncState) {
        let mut policies: Vec<LiveRow> = snapshot.values().map(|live| live.row.clone()).collect();
        policies.sort_by(|a, b| a.tenant.cmp(&b.tenant));
        let contents = CacheContents {
            format: 0,
            written_by: self.replica_id.clone(),
            policies,
            tokens: state.tokens.clone(),
        };
        let cache = self.cache.clone();
        match tokio::task::spawn_blocking(move || cache.write(&contents)).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::error!(error = %format!("{error:#}"), "failed to write the policy cache")
            }
            Err(error) => tracing::error!(error = %error, "policy cache task failed"),
        }
    }

    /// Called after an activation or rollback of `tenant` committed. With the embedded store
    /// (one node, no `NOTIFY`) it reloads the tenant now, so the answer to the activation goes
    /// out once this node serves it; with PostgreSQL the `NOTIFY` sent in the transaction does
    /// that on every replica, and this does nothing. A failure is logged: the poll retries.
    pub async fn reload_after_commit(&self, tenant: &str) {
        if !self.db.is_embedded() {
            return;
        }
        if let Err(error) = self.sync(Some(vec![tenant.to_owned()])).await {
            tracing::warn!(tenant = %tenant, error = %error, "reload after the activation failed; the poll will retry");
        }
    }

    /// Reads the tokens again now: after a revocation, on the replica that made it and on every
    /// replica its `NOTIFY` reaches. A failure is logged: the poll retries.
    pub async fn reload_tokens(&self) {
        let result = async {
            let mut state = self.state.lock().await;
            if self.refresh_tokens(&mut state).await? {
                let snapshot = self.store.snapshot.load_full();
                self.write_cache(&snapshot, &state).await;
            }
            Ok::<_, sqlx::Error>(())
        }
        .await;
        if let Err(error) = result {
            tracing::warn!(error = %error, "reloading the tokens failed; the poll will retry");
        }
    }

    /// Polls the live versions every `interval`, forever.
    pub async fn poll(self: Arc<Self>, interval: Duration) {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        // What the last poll found wrong, so that each kind of trouble is said once when it
        // starts: the database away (a warning), or back but migrated by a newer build (an
        // error: this replica is blind to activations and revocations until it runs one too).
        let mut trouble: Option<&'static str> = None;
        loop {
            ticker.tick().await;
            match self.sync(None).await {
                Ok(changed) => {
                    if trouble.take().is_some() {
                        tracing::info!("database reachable again");
                    }
                    if changed > 0 {
                        tracing::info!(tenants = changed, "poll found new activations");
                    }
                }
                Err(sqlx::Error::Migrate(refused)) => {
                    if trouble.replace("refused") != Some("refused") {
                        tracing::error!(
                            error = %explain_migrate_error(&refused),
                            "the database's migrations refuse this build; serving the running \
                             policies, blind to activations and revocations"
                        );
                    }
                }
                Err(error) => {
                    if trouble.replace("away") != Some("away") {
                        let error = self.db.explain(&error).await;
                        tracing::warn!(error = %error, "poll failed; serving the running policies");
                    }
                }
            }
        }
    }

    /// `LISTEN`s for activations on `listener_pool` (a pool of one connection), forever.
    pub async fn listen(self: Arc<Self>, listener_pool: PgPool) {
        const FIRST: Duration = Duration::from_millis(100);
        const CAP: Duration = Duration::from_secs(5);
        let mut backoff = FIRST;
        loop {
            match self.listen_once(&listener_pool, &mut backoff).await {
                Ok(()) => tracing::warn!("listener connection lost; reconnecting"),
                // The first failure since the listener last connected is a warning; the retries
                // after it, every 5 s for as long as the database is away, are debug lines (the
                // poll's warning and `toolgate_database_up` say it is still away, and
                // `listening for activations` that it is back).
                Err(error) if backoff == FIRST => {
                    tracing::warn!(error = %error, backoff_ms = backoff.as_millis() as u64, "listener failed; reconnecting (retries are logged at debug until it connects)")
                }
                Err(error) => {
                    tracing::debug!(error = %error, backoff_ms = backoff.as_millis() as u64, "listener failed; reconnecting")
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(CAP);
        }
    }

    async fn listen_once(
        &self,
        listener_pool: &PgPool,
        backoff: &mut Duration,
    ) -> Result<(), sqlx::Error> {
        let mut listener = PgListener::connect_with(listener_pool).await?;
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await?;
        tracing::info!(channel = CHANNEL, "listening for activations");
        *backoff = Duration::from_millis(100);
        // Notifications sent while we were not listening are lost: catch up.
        if let Err(error) = self.sync(None).await {
            tracing::warn!(error = %error, "resync after connecting the listener failed");
        }
        while let Some(notification) = listener.try_recv().await? {
            if notification.payload() == TOKENS_CHANGED {
                self.reload_tokens().await;
                continue;
            }
            let tenant = notification.payload().to_owned();
            if let Err(error) = self.sync(Some(vec![tenant.clone()])).await {
                tracing::warn!(tenant = %tenant, error = %error, "reload after notification failed; the poll will retry");
            }
        }
        Ok(())
    }
}

fn unix_seconds(time: DateTime<Utc>) -> f64 {
    time.timestamp_micros() as f64 / 1e6
}

fn token_map(tokens: &[CachedToken]) -> TokenMap {
    tokens
        .iter()
        .filter_map(|token| {
            let hash: TokenHash = hex::decode(&token.hash).ok()?.try_into().ok()?;
            let info = TokenInfo {
                id: Some(token.id),
                role: Role::parse(&token.role)?,
                tenant: token.tenant.clone(),
                expires_at: token.expires_at,
            };
            Some((hash, Arc::new(info)))
        })
        .collect()
}
