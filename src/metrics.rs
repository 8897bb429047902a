//! Metrics, in a struct that owns its Prometheus registry (there is no global registry).
//!
//! The catalogue (every name is `toolgate_*`):
//!
//! | metric | labels |
//! |---|---|
//! | `decisions_total` | `agent`, `event`, `tool`, `decision`, `mode` |
//! | `tenant_decisions_total` | `tenant`, `decision` (enforced answers) |
//! | `rule_hits_total` | `rule`, `mode`, `decision` (what the rule says) |
//! | `evaluation_failures_total` | `reason` (`not_loaded`, `panic`, `refused`, `shed`, `token_unchecked`, `timeout`, `too_large`, `unreadable`) |
//! | `evaluation_duration_seconds` (histogram) | `gate` |
//! | `decision_cache_lookups_total` | `result` (`hit`, `miss`, `too_large`) |
//! | `token_lookups_total` | `result` (`known`, `unknown`, `negative_cache_hit`, `shed`, `database_error`) |
//! | `token_lookup_duration_seconds` (histogram) | — (the database query of a token not in memory) |
//! | `expired_token_uses_total` | `role` (`agent`, `admin`, `auditor`): refused requests with an expired token |
//! | `http_request_duration_seconds` (histogram) | `method`, `path` (the route template), `status` |
//! | `bundle_info` (= 1) | `tenant`, `bundle_id`, `sha256` |
//! | `bundle_activated_timestamp_seconds`, `bundle_activation_id`, `bundle_loaded_timestamp_seconds` | `tenant` |
//! | `reloads_total` | `result` (`loaded`, `unchanged`, `compile_error`, `database_error`, `cache`) |
//! | `database_up` | — |
//! | `build_info` (= 1) | `version` |
//!
//! the audit writer's `toolgate_audit_*` ([`AuditMetrics`]), and the process collector's
//! `process_*`.
//!
//! `decisions_total` counts every evaluated event once with `mode="enforce"` and its enforced
//! answer; an event that shadow (`warn`) rules matched is counted once more with `mode="warn"` and
//! the most restrictive shadow answer, so "what would enforcing the shadow rules change" is a
//! query. Failures answered with the failure decision are in `evaluation_failures_total`, not in
//! `decisions_total`.
//!
//! Every label value is bounded, because most of them come from requests or from bundles:
//! events outside Claude Code's event list are `other`; tools outside Claude Code's tool list are
//! `other`, MCP tools are grouped per server as `mcp__<server>__*` for the first
//! [`MAX_MCP_SERVERS`] servers seen (later ones, and malformed names, are `mcp__*`); rule ids
//! (pack rules, permission-rule texts, extended-rule ids, all from bundles) and tenant names keep
//! their own series for the first [`MAX_RULE_LABELS`] / [`MAX_TENANT_LABELS`] distinct values
//! and are `other` after that, cut to [`MAX_LABEL_BYTES`] bytes; HTTP paths are the matched route
//! template or `unmatched`. Tenants get a counter of their own rather than a label on
//! `decisions_total`, which would multiply its series by the number of tenants.
//!
//! The request path resolves each label set to its counter once: the children live in maps
//! behind `ArcSwap`, keyed by small integers where possible, and a miss (the first time a label
//! set is seen) copies the map. Nothing here locks on the request path.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use prometheus::core::Collector;
use prometheus::{
    GaugeVec, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};
use toolgate_engine::decision::Mode;
use toolgate_engine::protocol::{Agent, EVENTS, HookEvent, canonical_tool_name};
use toolgate_engine::{Decision, Outcome};

use crate::decisions::Lookup;

/// Distinct rule ids that get a series of their own; the rest are counted as `other`.
pub const MAX_RULE_LABELS: usize = 1000;
/// Distinct tenants that get a series of their own; the rest are counted as `other`.
pub const MAX_TENANT_LABELS: usize = 1000;
/// Longest rule or tenant label value, in bytes (cut on a character boundary).
pub const MAX_LABEL_BYTES: usize = 200;
/// MCP servers that get a `mcp__<server>__*` tool label; tools of later servers are `mcp__*`.
pub const MAX_MCP_SERVERS: usize = 64;

/// Latency buckets, from 10 µs to 10 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025,
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// Claude Code's built-in tools (after `canonical_tool_name`), most frequent first; anything
/// else that is not an MCP tool is `other`.
const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Edit",
    "Write",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "Agent",
    "TodoWrite",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Monitor",
    "Skill",
    "SlashCommand",
    "LSP",
    "AskUserQuestion",
    "ExitPlanMode",
    "EnterPlanMode",
    "TaskCreate",
    "TaskUpdate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "ReadMcpResourceDirTool",
    "EnterWorktree",
    "ExitWorktree",
    "Workflow",
    "Artifact",
    "SendUserMessage",
    "ListAgents",
    "CronCreate",
    "CronDelete",
    "CronList",
];

/// Tool label ids: the index in [`TOOLS`], then these, then MCP servers.
const TOOL_NONE: u16 = TOOLS.len() as u16;
const TOOL_OTHER: u16 = TOOL_NONE + 1;
const TOOL_MCP_OTHER: u16 = TOOL_NONE + 2;
const TOOL_MCP_FIRST: u16 = TOOL_NONE + 3;

/// HTTP methods with a label of their own; the rest are `other`.
const METHODS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// Why an evaluation was answered with the failure decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No policy snapshot is loaded yet.
    NotLoaded,
    /// The engine panicked.
    Panic,
    /// Shed: too many requests in flight.
    Shed,
    /// The caller was refused: no token, a token no one holds, or one without the agent role.
    Refused,
    /// An unknown token could not be checked (the database is away).
    TokenUnchecked,
    /// The request ran past `--request-timeout`.
    Timeout,
    /// The event is larger than `--max-body-bytes`.
    TooLarge,
    /// The event names itself but is not JSON that can be read whole.
    Unreadable,
}

impl Failure {
    const ALL: [Failure; 8] = [
        Self::NotLoaded,
        Self::Panic,
        Self::Refused,
        Self::Shed,
        Self::TokenUnchecked,
        Self::Timeout,
        Self::TooLarge,
        Self::Unreadable,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotLoaded => "not_loaded",
            Self::Panic => "panic",
            Self::Refused => "refused",
            Self::Shed => "shed",
            Self::TokenUnchecked => "token_unchecked",
            Self::Timeout => "timeout",
            Self::TooLarge => "too_large",
            Self::Unreadable => "unreadable",
        }
    }
}

/// What became of a bearer token that is not in memory, for `toolgate_token_lookups_total{result}`.
/// Tokens in memory (and the bootstrap admin token) are never looked up and not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLookup {
    /// The database holds it: the caller is known (and remembered until the next poll).
    Known,
    /// The database holds no such token: 401, and its hash is remembered as unknown.
    Unknown,
    /// Refused from the memory of unknown hashes, without a query.
    NegativeCacheHit,
    /// Not checked: every lookup a replica runs at once was busy.
    Shed,
    /// Not checked: the query failed (the database away, or an error).
    DatabaseError,
}

impl TokenLookup {
    const ALL: [TokenLookup; 5] = [
        Self::Known,
        Self::Unknown,
        Self::NegativeCacheHit,
        Self::Shed,
        Self::DatabaseError,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Known => "known",
            Self::Unknown => "unknown",
            Self::NegativeCacheHit => "negative_cache_hit",
            Self::Shed => "shed",
            Self::DatabaseError => "database_error",
        }
    }
}

/// The result of one reload step, for `toolgate_reloads_total{result}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reload {
    /// A tenant's new live policy was compiled and swapped in.
    Loaded,
    /// A sync found nothing new.
    Unchanged,
    /// A tenant's live bundle failed to compile; the running policy stays.
    CompileError,
    /// A sync could not reach the database.
    DatabaseError,
    /// The policies were loaded from the disk cache.
    Cache,
}

impl Reload {
    const ALL: [Reload; 5] = [
        Self::Loaded,
        Self::Unchanged,
        Self::CompileError,
        Self::DatabaseError,
        Self::Cache,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Loaded => "loaded",
            Self::Unchanged => "unchanged",
            Self::CompileError => "compile_error",
            Self::DatabaseError => "database_error",
            Self::Cache => "cache",
        }
    }
}

/// One tenant's live bundle, as exported by [`Metrics::set_live_bundles`].
#[derive(Debug, Clone, PartialEq)]
pub struct LiveBundle {
    /// The tenant.
    pub tenant: String,
    /// The bundle's id.
    pub bundle_id: i64,
    /// The bundle's sha256.
    pub sha256: String,
    /// The activation's id (grows with every activation and rollback).
    pub activation_id: i64,
    /// When it was activated, in Unix seconds.
    pub activated_at: f64,
    /// When this replica loaded it, in Unix seconds.
    pub loaded_at: f64,
}

/// The service's metrics. Cheap to clone: one `Arc`.
#[derive(Clone)]
pub struct Metrics(Arc<Inner>);

struct Inner {
    registry: Registry,
    decisions: IntCounterVec,
    decision_children: Children<u64, IntCounter>,
    mcp_servers: ArcSwap<McpServers>,
    tenant_decisions: IntCounterVec,
    tenant_children: Capped<4>,
    rule_hits: IntCounterVec,
    /// Per rule: a slot per (mode, decision).
    rule_children: Capped<8>,
    failures: [IntCounter; Failure::ALL.len()],
    decision_cache: [IntCounter; Lookup::ALL.len()],
    token_lookups: [IntCounter; TokenLookup::ALL.len()],
    token_lookup_seconds: Histogram,
    expired_token_uses: IntCounterVec,
    gate_seconds: Histogram,
    other_seconds: Histogram,
    http_seconds: HistogramVec,
    http_children: Children<u32, Histogram>,
    bundle_info: IntGaugeVec,
    bundle_activated: GaugeVec,
    bundle_activation_id: IntGaugeVec,
    bundle_loaded: GaugeVec,
    live: Mutex<HashMap<String, LiveBundle>>,
    reloads: [IntCounter; 5],
    database_up: IntGauge,
    audit: AuditMetrics,
}

/// Children of a metric vector, resolved once per key: lock-free reads, copy-on-write inserts
/// (there are few distinct keys, and each is inserted once). Keys are small packed integers,
/// hashed by one multiplication.
struct Children<K, M> {
    map: ArcSwap<HashMap<K, M, BuildHasherDefault<PackedKeyHasher>>>,
}

impl<K: Hash + Eq + Copy, M: Clone> Children<K, M> {
    fn new() -> Self {
        Self {
            map: ArcSwap::from_pointee(HashMap::default()),
        }
    }

    /// Applies `apply` to the child for `key`, made by `make` the first time.
    fn with(&self, key: K, make: impl FnOnce() -> M, apply: impl FnOnce(&M)) {
        if let Some(child) = self.map.load().get(&key) {
            return apply(child);
        }
        let child = make();
        self.map.rcu(|map| {
            let mut map = HashMap::clone(map);
            map.entry(key).or_insert_with(|| child.clone());
            map
        });
        apply(&child);
    }
}

/// Hashes a packed integer key by a Fibonacci multiplication (the keys are few and distinct, and
/// come from this module, not from requests).
#[derive(Default)]
struct PackedKeyHasher(u64);

impl Hasher for PackedKeyHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.0 ^= u64::from(value);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }
}

/// Counters of a label whose values come from outside (rule ids, tenants): one entry per value
/// for the first `cap` values, then `other`; each entry has `N` slots for the other labels'
/// combinations, filled when first used (so unused combinations export no series).
struct Capped<const N: usize> {
    map: ArcSwap<HashMap<Box<str>, [Option<IntCounter>; N]>>,
    cap: usize,
}

impl<const N: usize> Capped<N> {
    const OTHER: &'static str = "other";

    fn new(cap: usize) -> Self {
        Self {
            map: ArcSwap::from_pointee(HashMap::new()),
            cap,
        }
    }

    /// Increments the counter of `value` (or `other`) in `slot`, made by `make(label value)` the
    /// first time.
    fn inc(&self, value: &str, slot: usize, make: impl FnOnce(&str) -> IntCounter) {
        let value = truncate(value, MAX_LABEL_BYTES);
        let map = self.map.load();
        let (key, slots) = match map.get(value) {
            Some(slots) => (value, Some(slots)),
            None if self.has_room(&map) => (value, None),
            None => (Self::OTHER, map.get(Self::OTHER)),
        };
        if let Some(Some(counter)) = slots.and_then(|slots| slots.get(slot)) {
            return counter.inc();
        }
        let counter = make(key);
        counter.inc();
        self.map.rcu(|map| {
            let mut map = HashMap::clone(map);
            let key = if map.contains_key(key) || self.has_room(&map) {
                key
            } else {
                Self::OTHER
            };
            let slots = map
                .entry(key.into())
                .or_insert_with(|| std::array::from_fn(|_| None));
            if let Some(entry) = slots.get_mut(slot) {
                entry.get_or_insert_with(|| counter.clone());
            }
            map
        });
    }

    fn has_room(&self, map: &HashMap<Box<str>, [Option<IntCounter>; N]>) -> bool {
        map.len() - usize::from(map.contains_key(Self::OTHER)) < self.cap
    }
}

/// MCP servers seen so far, each with its tool label id.
#[derive(Default, Clone)]
struct McpServers {
    ids: HashMap<Box<str>, u16>,
    labels: Vec<Box<str>>,
}

/// Registers `collector` in `registry` and returns it.
fn registered<C: Collector + Clone + 'static>(
    registry: &Registry,
    collector: prometheus::Result<C>,
) -> prometheus::Result<C> {
    let collector = collector?;
    registry.register(Box::new(collector.clone()))?;
    Ok(collector)
}

impl Metrics {
    /// Creates and registers the metrics in a new registry.
    pub fn new() -> prometheus::Result<Self> {
        let registry = Registry::new();
        let counters = |name: &str, help: &str, labels: &[&str]| {
            registered(&registry, IntCounterVec::new(Opts::new(name, help), labels))
        };
        let decisions = counters(
            "toolgate_decisions_total",
            "Evaluated hook events by agent, event, tool, answer and mode (enforce: the answer \
             given; warn: what matching shadow rules would have answered)",
            &["agent", "event", "tool", "decision", "mode"],
        )?;
        let tenant_decisions = counters(
            "toolgate_tenant_decisions_total",
            "Enforced answers by tenant (the first 1000 tenants; later ones as `other`)",
            &["tenant", "decision"],
        )?;
        let rule_hits = counters(
            "toolgate_rule_hits_total",
            "Rule matches by rule id (the first 1000 ids; later ones as `other`), mode and the \
             rule's decision",
            &["rule", "mode", "decision"],
        )?;
        let failures = counters(
            "toolgate_evaluation_failures_total",
            "Hook events answered with the failure decision, by reason",
            &["reason"],
        )?;
        let decision_cache = counters(
            "toolgate_decision_cache_lookups_total",
            "Evaluations by whether their decision was remembered (hit), evaluated and remembered \
             (miss), or evaluated and too large to remember (too_large)",
            &["result"],
        )?;
        let token_lookups = counters(
            "toolgate_token_lookups_total",
            "Bearer tokens not in memory by what became of them: found in the database (known), \
             in no row (unknown), refused from the memory of unknown tokens (negative_cache_hit), \
             or not checked because every allowed lookup was busy (shed) or the query failed \
             (database_error)",
            &["result"],
        )?;
        let expired_token_uses = counters(
            "toolgate_expired_token_uses_total",
            "Requests refused because their token had expired (still in use: rotate it), by \
             the token's role",
            &["role"],
        )?;
        // Each role's series exists from the start at 0, so that the first expired use is an
        // increase: a series born at 1 is no increase to `increase()`, and the alert
        // ToolgateExpiredTokensInUse would miss a token used once (a nightly admin script).
        for role in crate::auth::Role::ALL {
            expired_token_uses.with_label_values(&[role.as_str()]);
        }
        let reloads = counters(
            "toolgate_reloads_total",
            "Policy reload steps by result",
            &["result"],
        )?;
        let latencies = |name: &str, help: &str, labels: &[&str]| {
            let opts = HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec());
            registered(&registry, HistogramVec::new(opts, labels))
        };
        let evaluation_seconds = latencies(
            "toolgate_evaluation_duration_seconds",
            "Time to evaluate one event against the live policies (gate: PreToolUse or \
             PermissionRequest)",
            &["gate"],
        )?;
        let http_seconds = latencies(
            "toolgate_http_request_duration_seconds",
            "HTTP requests by method, route template and status",
            &["method", "path", "status"],
        )?;
        let token_lookup_seconds = registered(
            &registry,
            Histogram::with_opts(
                HistogramOpts::new(
                    "toolgate_token_lookup_duration_seconds",
                    "Time of the database query that looks up a bearer token not in memory",
                )
                .buckets(LATENCY_BUCKETS.to_vec()),
            ),
        )?;
        let gauges = |name: &str, help: &str, labels: &[&str]| {
            registered(&registry, GaugeVec::new(Opts::new(name, help), labels))
        };
        let int_gauges = |name: &str, help: &str, labels: &[&str]| {
            registered(&registry, IntGaugeVec::new(Opts::new(name, help), labels))
        };
        let bundle_info = int_gauges(
            "toolgate_bundle_info",
            "The bundle this replica serves for each tenant (always 1)",
            &["tenant", "bundle_id", "sha256"],
        )?;
        let bundle_activated = gauges(
            "toolgate_bundle_activated_timestamp_seconds",
            "When the bundle this replica serves for each tenant was activated",
            &["tenant"],
        )?;
        let bundle_activation_id = int_gauges(
            "toolgate_bundle_activation_id",
            "The activation this replica serves for each tenant (grows with every activation)",
            &["tenant"],
        )?;
        let bundle_loaded = gauges(
            "toolgate_bundle_loaded_timestamp_seconds",
            "When this replica loaded the bundle it serves for each tenant",
            &["tenant"],
        )?;
        let build_info = int_gauges(
            "toolgate_build_info",
            "The running toolgate version (always 1)",
            &["version"],
        )?;
        build_info
            .with_label_values(&[env!("CARGO_PKG_VERSION")])
            .set(1);
        let database_up = registered(
            &registry,
            IntGauge::new(
                "toolgate_database_up",
                "1 while the last contact with the database succeeded",
            ),
        )?;
        #[cfg(target_os = "linux")]
        registry.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        ))?;

        let inner = Inner {
            decision_children: Children::new(),
            mcp_servers: ArcSwap::from_pointee(McpServers::default()),
            tenant_children: Capped::new(MAX_TENANT_LABELS),
            rule_children: Capped::new(MAX_RULE_LABELS),
            failures: Failure::ALL.map(|reason| failures.with_label_values(&[reason.as_str()])),
            decision_cache: Lookup::ALL
                .map(|lookup| decision_cache.with_label_values(&[lookup.as_str()])),
            token_lookups: TokenLookup::ALL
                .map(|result| token_lookups.with_label_values(&[result.as_str()])),
            token_lookup_seconds,
            expired_token_uses,
            gate_seconds: evaluation_seconds.with_label_values(&["true"]),
            other_seconds: evaluation_seconds.with_label_values(&["false"]),
            http_children: Children::new(),
            audit: AuditMetrics::register(&registry)?,
            live: Mutex::new(HashMap::new()),
            reloads: Reload::ALL.map(|result| reloads.with_label_values(&[result.as_str()])),
            registry,
            decisions,
            rule_hits,
            tenant_decisions,
            http_seconds,
            bundle_info,
            bundle_activated,
            bundle_activation_id,
            bundle_loaded,
            database_up,
        };
        Ok(Self(Arc::new(inner)))
    }

    /// The registry everything is registered in.
    pub fn registry(&self) -> &Registry {
        &self.0.registry
    }

    /// The audit writer's metrics (`toolgate_audit_*`).
    pub fn audit(&self) -> &AuditMetrics {
        &self.0.audit
    }

    /// The text exposition of every metric.
    pub fn encode(&self) -> Result<String, prometheus::Error> {
        TextEncoder::new().encode_to_string(&self.0.registry.gather())
    }

    /// Counts one event evaluated for `tenant`: its decision (and its shadow decision), every
    /// rule hit, and the evaluation's duration.
    pub fn observe_evaluation(
        &self,
        tenant: &str,
        event: &HookEvent,
        decision: &Decision,
        seconds: f64,
    ) {
        let inner = &self.0;
        let outcome = decision.outcome;
        inner
            .tenant_children
            .inc(tenant, outcome as usize, |tenant| {
                inner
                    .tenant_decisions
                    .with_label_values(&[tenant, outcome.as_str()])
            });
        let agent = agent_index(event.agent);
        let event_id = index_of(EVENTS, &event.event);
        let tool = self.tool_id(event.tool_name.as_deref());
        self.count_decision(event, agent, event_id, tool, decision.outcome, 0);
        let mut shadow: Option<Outcome> = None;
        for hit in &decision.matched {
            let mode = usize::from(hit.mode == Mode::Warn);
            if hit.mode == Mode::Warn {
                shadow = shadow.max(Some(hit.outcome));
            }
            self.count_rule_hit(&hit.rule_id, mode, hit.outcome);
        }
        if let Some(outcome) = shadow {
            self.count_decision(event, agent, event_id, tool, outcome, 1);
        }
        let histogram = if event.is_gate() {
            &inner.gate_seconds
        } else {
            &inner.other_seconds
        };
        histogram.observe(seconds);
    }

    /// Counts one lookup of a remembered decision.
    pub fn observe_decision_cache(&self, lookup: Lookup) {
        let index = Lookup::ALL.iter().position(|l| *l == lookup).unwrap_or(0);
        self.0.decision_cache[index].inc();
    }

    /// Counts what became of a token not in memory, and the time its database query took (when
    /// one ran).
    pub fn observe_token_lookup(&self, result: TokenLookup, query_seconds: Option<f64>) {
        let index = TokenLookup::ALL
            .iter()
            .position(|r| *r == result)
            .unwrap_or(0);
        self.0.token_lookups[index].inc();
        if let Some(seconds) = query_seconds {
            self.0.token_lookup_seconds.observe(seconds);
        }
    }

    /// Counts one request refused because its token had expired.
    pub fn observe_expired_token(&self, role: crate::auth::Role) {
        self.0
            .expired_token_uses
            .with_label_values(&[role.as_str()])
            .inc();
    }

    /// Counts one event answered with the failure decision.
    pub fn observe_failure(&self, reason: Failure) {
        let index = Failure::ALL.iter().position(|r| *r == reason).unwrap_or(0);
        self.0.failures[index].inc();
    }

    /// Counts one HTTP request. `route` is the index of its route in
    /// [`crate::routes::ROUTES`] (`None`: no route matched).
    pub fn observe_http(&self, method: &str, route: Option<usize>, status: u16, seconds: f64) {
        let method_id = index_of(METHODS, method);
        let route_id = route.map_or(u8::MAX, |route| u8::try_from(route).unwrap_or(u8::MAX));
        let key = (u32::from(method_id) << 24) | (u32::from(route_id) << 16) | u32::from(status);
        let make = || {
            let method = METHODS
                .get(usize::from(method_id))
                .copied()
                .unwrap_or("other");
            let path = route
                .and_then(|route| crate::routes::ROUTES.get(route))
                .map_or("unmatched", |route| route.path);
            self.0
                .http_seconds
                .with_label_values(&[method, path, &status.to_string()])
        };
        self.0
            .http_children
            .with(key, make, |histogram| histogram.observe(seconds));
    }

    /// Exports the live bundles: one `toolgate_bundle_info` series per tenant, the series of
    /// bundles no longer served removed.
    pub fn set_live_bundles(&self, bundles: impl IntoIterator<Item = LiveBundle>) {
        let inner = &self.0;
        let next: HashMap<String, LiveBundle> = bundles
            .into_iter()
            .map(|bundle| (bundle.tenant.clone(), bundle))
            .collect();
        let mut live = inner
            .live
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        for (tenant, old) in live.iter() {
            let replaced = next
                .get(tenant)
                .is_none_or(|new| new.bundle_id != old.bundle_id || new.sha256 != old.sha256);
            if replaced {
                let _ = inner.bundle_info.remove_label_values(&[
                    tenant.as_str(),
                    &old.bundle_id.to_string(),
                    &old.sha256,
                ]);
            }
            if !next.contains_key(tenant) {
                let _ = inner.bundle_activated.remove_label_values(&[tenant]);
                let _ = inner.bundle_activation_id.remove_label_values(&[tenant]);
                let _ = inner.bundle_loaded.remove_label_values(&[tenant]);
            }
        }
        for (tenant, bundle) in &next {
            inner
                .bundle_info
                .with_label_values(&[
                    tenant.as_str(),
                    &bundle.bundle_id.to_string(),
                    &bundle.sha256,
                ])
                .set(1);
            inner
                .bundle_activated
                .with_label_values(&[tenant])
                .set(bundle.activated_at);
            inner
                .bundle_activation_id
                .with_label_values(&[tenant])
                .set(bundle.activation_id);
            inner
                .bundle_loaded
                .with_label_values(&[tenant])
                .set(bundle.loaded_at);
        }
        *live = next;
    }

    /// Counts reload steps.
    pub fn observe_reload(&self, result: Reload, count: u64) {
        let index = Reload::ALL.iter().position(|r| *r == result).unwrap_or(0);
        self.0.reloads[index].inc_by(count);
    }

    /// Records whether the database answered.
    pub fn set_database_up(&self, up: bool) {
        self.0.database_up.set(i64::from(up));
    }

    fn count_decision(
        &self,
        event: &HookEvent,
        agent: u8,
        event_id: u8,
        tool: u16,
        outcome: Outcome,
        mode: u8,
    ) {
        let key = u64::from(agent) << 40
            | u64::from(event_id) << 32
            | u64::from(tool) << 16
            | u64::from(outcome as u8) << 8
            | u64::from(mode);
        let make = || {
            let event_label = EVENTS
                .get(usize::from(event_id))
                .copied()
                .unwrap_or("other");
            let tool_label = self.tool_label(tool);
            self.0.decisions.with_label_values(&[
                event.agent.as_str(),
                event_label,
                &tool_label,
                outcome.as_str(),
                modes()[usize::from(mode)],
            ])
        };
        self.0.decision_children.with(key, make, IntCounter::inc);
    }

    fn count_rule_hit(&self, rule: &str, mode: usize, outcome: Outcome) {
        let inner = &self.0;
        let slot = mode * 4 + outcome as usize;
        inner.rule_children.inc(rule, slot, |rule| {
            inner
                .rule_hits
                .with_label_values(&[rule, modes()[mode], outcome.as_str()])
        })
    }

    /// The label id of a tool name.
    fn tool_id(&self, name: Option<&str>) -> u16 {
        let Some(name) = name else {
            return TOOL_NONE;
        };
        let name = canonical_tool_name(name);
        if let Some(index) = TOOLS.iter().position(|tool| *tool == name) {
            return index as u16;
        }
        let Some(rest) = name.strip_prefix("mcp__") else {
            return TOOL_OTHER;
        };
        let Some((server, _tool)) = rest.split_once("__") else {
            return TOOL_OTHER;
        };
        let valid = !server.is_empty()
            && server.len() <= 64
            && server
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return TOOL_MCP_OTHER;
        }
        if let Some(id) = self.0.mcp_servers.load().ids.get(server) {
            return *id;
        }
        let mut id = TOOL_MCP_OTHER;
        self.0.mcp_servers.rcu(|servers| {
            let mut servers = McpServers::clone(servers);
            if let Some(existing) = servers.ids.get(server) {
                id = *existing;
            } else if servers.labels.len() < MAX_MCP_SERVERS {
                id = TOOL_MCP_FIRST + servers.labels.len() as u16;
                servers.ids.insert(server.into(), id);
                servers.labels.push(format!("mcp__{server}__*").into());
            } else {
                id = TOOL_MCP_OTHER;
            }
            servers
        });
        id
    }

    /// The label of a tool label id.
    fn tool_label(&self, id: u16) -> String {
        match id {
            TOOL_NONE => "none".to_owned(),
            TOOL_OTHER => "other".to_owned(),
            TOOL_MCP_OTHER => "mcp__*".to_owned(),
            id if id < TOOL_NONE => TOOLS
                .get(usize::from(id))
                .copied()
                .unwrap_or("other")
                .to_owned(),
            id => self
                .0
                .mcp_servers
                .load()
                .labels
                .get(usize::from(id - TOOL_MCP_FIRST))
                .map_or_else(|| "mcp__*".to_owned(), |label| label.to_string()),
        }
    }
}

fn modes() -> [&'static str; 2] {
    [Mode::Enforce.as_str(), Mode::Warn.as_str()]
}

fn agent_index(agent: Agent) -> u8 {
    Agent::ALL.iter().position(|a| *a == agent).unwrap_or(0) as u8
}

/// The index of `value` in `list`, or `list.len()` (the `other` label) when it is not there.
fn index_of(list: &[&str], value: &str) -> u8 {
    list.iter()
        .position(|item| *item == value)
        .unwrap_or(list.len()) as u8
}

/// `text` cut to at most `max` bytes on a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

// ---- Audit ----------------------------------------------------------------------------------

/// The audit writer's metrics, registered in the app's registry.
#[derive(Clone)]
pub struct AuditMetrics {
    /// `toolgate_audit_queue_depth`: rows waiting for the writer.
    pub queue_depth: IntGauge,
    /// `toolgate_audit_rows_written_total`: rows committed to the database directly.
    pub rows_written: IntCounter,
    /// `toolgate_audit_rows_spooled_total`: rows made durable by an fsync of the spool.
    pub rows_spooled: IntCounter,
    /// `toolgate_audit_rows_replayed_total`: spooled rows shipped to the database.
    pub rows_replayed: IntCounter,
    /// `toolgate_audit_rows_failed_total`: rows that could be made durable nowhere.
    pub rows_failed: IntCounter,
    /// `toolgate_audit_refused_evaluations_total`: evaluations answered with the failure
    /// decision because their row could not be recorded.
    pub refused_evaluations: IntCounter,
    /// `toolgate_audit_batch_rows`: rows per writer batch.
    pub batch_rows: Histogram,
    /// `toolgate_audit_batch_duration_seconds`: time to make one batch durable.
    pub batch_seconds: Histogram,
    /// `toolgate_audit_spool_bytes`: bytes of spool segments and copies of damaged ones on
    /// disk (what `--audit-spool-max-bytes` bounds).
    pub spool_bytes: IntGauge,
    /// `toolgate_audit_spool_quarantined_files`: copies of damaged segments (`NNN.seg.corrupt`)
    /// waiting for an operator.
    pub spool_quarantined_files: IntGauge,
    /// `toolgate_audit_spool_quarantine_dropped_total`: copies of damaged segments removed to
    /// keep at most [`crate::audit::spool::MAX_QUARANTINED`].
    pub spool_quarantine_dropped: IntCounter,
    /// `toolgate_audit_spool_corrupt_records_total`: stretches of the spool that held no
    /// record that checks (a damaged record, or adjacent ones), skipped by the replay.
    pub spool_corrupt_records: IntCounter,
    /// `toolgate_audit_chain_head_seq{replica}`: the seq of the last row of this replica's chain
    /// known durable; a witness of the chain's head outside the database.
    pub chain_head_seq: IntGaugeVec,
}

impl AuditMetrics {
    /// Creates the audit metrics and registers them in `registry`.
    pub fn register(registry: &Registry) -> Result<Self, prometheus::Error> {
        let counter = |name: &str, help: &str| registered(registry, IntCounter::new(name, help));
        let gauge = |name: &str, help: &str| registered(registry, IntGauge::new(name, help));
        let histogram = |name: &str, help: &str, buckets: Vec<f64>| {
            registered(
                registry,
                Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets)),
            )
        };
        Ok(Self {
            queue_depth: gauge(
                "toolgate_audit_queue_depth",
                "Audit rows waiting for the writer",
            )?,
            rows_written: counter(
                "toolgate_audit_rows_written_total",
                "Audit rows committed to the database directly",
            )?,
            rows_spooled: counter(
                "toolgate_audit_rows_spooled_total",
                "Audit rows made durable in the local spool (database unavailable)",
            )?,
            rows_replayed: counter(
                "toolgate_audit_rows_replayed_total",
                "Spooled audit rows shipped to the database",
            )?,
            rows_failed: counter(
                "toolgate_audit_rows_failed_total",
                "Audit rows that could not be made durable",
            )?,
            refused_evaluations: counter(
                "toolgate_audit_refused_evaluations_total",
                "Evaluations answered with the failure decision because the audit could not be written",
            )?,
            batch_rows: histogram(
                "toolgate_audit_batch_rows",
                "Rows per audit writer batch",
                vec![
                    1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0,
                ],
            )?,
            batch_seconds: histogram(
                "toolgate_audit_batch_duration_seconds",
                "Time to make one audit batch durable",
                vec![
                    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                    1.0,
                ],
            )?,
            spool_bytes: gauge(
                "toolgate_audit_spool_bytes",
                "Bytes of audit spool segments and of copies of damaged segments on disk",
            )?,
            spool_quarantined_files: gauge(
                "toolgate_audit_spool_quarantined_files",
                "Copies of damaged audit spool segments (NNN.seg.corrupt) kept for an operator",
            )?,
            spool_quarantine_dropped: counter(
                "toolgate_audit_spool_quarantine_dropped_total",
                "Copies of damaged audit spool segments removed, oldest first, to keep the newest few",
            )?,
            spool_corrupt_records: counter(
                "toolgate_audit_spool_corrupt_records_total",
                "Damaged audit spool records skipped by the replay (their rows are missing)",
            )?,
            chain_head_seq: registered(
                registry,
                IntGaugeVec::new(
                    Opts::new(
                        "toolgate_audit_chain_head_seq",
                        "The seq of the last audit row of this replica's chain known durable \
                         (committed or spooled); it never goes back unless rows were removed",
                    ),
                    &["replica"],
                ),
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_engine::RuleHit;

    /// Every `toolgate_*` metric that the alert rules and the dashboard query is one this file
    /// registers (a histogram's `_bucket`, `_sum` and `_count` series count as the histogram).
    #[test]
    fn deploy_queries_only_metrics_that_exist() {
        let source = include_str!("metrics.rs");
        let registered: std::collections::BTreeSet<&str> = source
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|text| text.starts_with("toolgate_") && !text.contains(' '))
            .collect();
        for (file, text) in [
            (
                "alerts.yml",
                include_str!("../deploy/prometheus/alerts.yml"),
            ),
            (
                "toolgate.json",
                include_str!("../deploy/grafana/dashboards/toolgate.json"),
            ),
        ] {
            let mut rest = text;
            while let Some(at) = rest.find("toolgate_") {
                let name: String = rest[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                rest = &rest[at + name.len()..];
                let base = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|suffix| name.strip_suffix(suffix))
                    .filter(|base| registered.contains(base))
                    .unwrap_or(&name);
                assert!(
                    registered.contains(base),
                    "{file} queries `{name}`, which toolgate does not export"
                );
            }
        }
    }

    fn event(name: &str, tool: Option<&str>) -> HookEvent {
        HookEvent {
            event: name.to_owned(),
            tool_name: tool.map(str::to_owned),
            ..HookEvent::default()
        }
    }

    fn hit(rule: &str, outcome: Outcome, mode: Mode) -> RuleHit {
        RuleHit {
            rule_id: rule.to_owned(),
            outcome,
            mode,
            reason: String::new(),
        }
    }

    /// Asserts that the exposition has exactly these sample lines (labels in name order).
    #[track_caller]
    fn assert_samples(metrics: &Metrics, samples: &[&str]) {
        let text = metrics.encode().unwrap();
        for sample in samples {
            assert!(
                text.lines().any(|line| line == *sample),
                "no `{sample}` in\n{text}"
            );
        }
    }

    /// A `toolgate_decisions_total` sample line of Claude Code.
    fn decision(event: &str, tool: &str, decision: &str, mode: &str, count: u32) -> String {
        format!(
            "toolgate_decisions_total{{agent=\"claude-code\",decision=\"{decision}\",\
             event=\"{event}\",mode=\"{mode}\",tool=\"{tool}\"}} {count}"
        )
    }

    #[test]
    fn decisions_are_counted_with_their_shadow_answer() {
        let metrics = Metrics::new().unwrap();
        let answer = Decision {
            outcome: Outcome::Ask,
            matched: vec![
                hit("curl-pipe", Outcome::Deny, Mode::Warn),
                hit("Bash(terraform apply:*)", Outcome::Ask, Mode::Enforce),
            ],
            ..Decision::none()
        };
        metrics.observe_evaluation(
            "team",
            &event("PreToolUse", Some("Bash")),
            &answer,
            0.000_02,
        );
        assert_samples(
            &metrics,
            &[
                &decision("PreToolUse", "Bash", "ask", "enforce", 1),
                &decision("PreToolUse", "Bash", "deny", "warn", 1),
                r#"toolgate_tenant_decisions_total{decision="ask",tenant="team"} 1"#,
                r#"toolgate_rule_hits_total{decision="ask",mode="enforce",rule="Bash(terraform apply:*)"} 1"#,
                r#"toolgate_rule_hits_total{decision="deny",mode="warn",rule="curl-pipe"} 1"#,
                r#"toolgate_evaluation_duration_seconds_count{gate="true"} 1"#,
            ],
        );
    }

    #[test]
    fn tool_and_event_labels_are_bounded() {
        let metrics = Metrics::new().unwrap();
        let none = Decision::none();
        for (name, tool) in [
            ("PreToolUse", Some("Task")),
            ("PreToolUse", Some("mcp__github__search_repositories")),
            ("PreToolUse", Some("mcp__github__create_issue")),
            ("PreToolUse", Some("mcp__bad name__x")),
            ("PreToolUse", Some("mcp__nothing")),
            ("PreToolUse", Some("SomethingNew")),
            ("MadeUpEvent", None),
        ] {
            metrics.observe_evaluation("team", &event(name, tool), &none, 0.0);
        }
        assert_samples(
            &metrics,
            &[
                &decision("PreToolUse", "Agent", "none", "enforce", 1),
                &decision("PreToolUse", "mcp__github__*", "none", "enforce", 2),
                &decision("PreToolUse", "mcp__*", "none", "enforce", 1),
                &decision("PreToolUse", "other", "none", "enforce", 2),
                &decision("other", "none", "none", "enforce", 1),
            ],
        );
        for server in 0..MAX_MCP_SERVERS + 10 {
            let tool = format!("mcp__s{server}__t");
            metrics.observe_evaluation("team", &event("PreToolUse", Some(&tool)), &none, 0.0);
        }
        let text = metrics.encode().unwrap();
        let servers = text
            .lines()
            .filter(|line| line.contains("tool=\"mcp__s"))
            .count();
        // `github` took one of the places; 11 servers are past the cap, and `bad name` before.
        assert_eq!(servers, MAX_MCP_SERVERS - 1, "MCP server labels are capped");
        assert_samples(
            &metrics,
            &[&decision("PreToolUse", "mcp__*", "none", "enforce", 12)],
        );
    }

    #[test]
    fn rule_labels_are_capped_and_cut() {
        let metrics = Metrics::new().unwrap();
        let long = "é".repeat(MAX_LABEL_BYTES);
        let hits: Vec<RuleHit> = (0..MAX_RULE_LABELS + 5)
            .map(|n| hit(&format!("rule-{n}"), Outcome::Deny, Mode::Enforce))
            .chain([hit(&long, Outcome::Deny, Mode::Warn)])
            .collect();
        let answer = Decision {
            outcome: Outcome::Deny,
            matched: hits,
            ..Decision::none()
        };
        metrics.observe_evaluation("team", &event("PreToolUse", Some("Bash")), &answer, 0.0);
        let text = metrics.encode().unwrap();
        let counted = text
            .lines()
            .filter(|line| {
                line.starts_with("toolgate_rule_hits_total{decision=\"deny\",mode=\"enforce\"")
            })
            .filter(|line| line.ends_with(" 1") || line.ends_with(" 5"))
            .count();
        assert_eq!(counted, MAX_RULE_LABELS + 1, "1000 rules and `other`");
        assert_samples(
            &metrics,
            &[
                r#"toolgate_rule_hits_total{decision="deny",mode="enforce",rule="other"} 5"#,
                // A new rule past the cap is `other` too.
                r#"toolgate_rule_hits_total{decision="deny",mode="warn",rule="other"} 1"#,
            ],
        );
        assert_eq!(truncate(&long, MAX_LABEL_BYTES).len(), MAX_LABEL_BYTES);
        assert_eq!(truncate("aé", 2), "a");
    }

    #[test]
    fn capped_labels_fold_into_other_past_the_cap() {
        let vec = IntCounterVec::new(Opts::new("t", "t"), &["tenant"]).unwrap();
        let capped = Capped::<1>::new(2);
        for tenant in ["a", "b", "c", "a", "d"] {
            capped.inc(tenant, 0, |label| vec.with_label_values(&[label]));
        }
        let count = |label: &str| vec.with_label_values(&[label]).get();
        assert_eq!((count("a"), count("b"), count("other")), (2, 1, 2));
        assert_eq!(capped.map.load().len(), 3, "`a`, `b` and `other`");
    }

    #[test]
    fn live_bundles_replace_their_series() {
        let metrics = Metrics::new().unwrap();
        let bundle = |tenant: &str, id: i64| LiveBundle {
            tenant: tenant.to_owned(),
            bundle_id: id,
            sha256: format!("sha{id}"),
            activation_id: id * 10,
            activated_at: 1000.0 + id as f64,
            loaded_at: 2000.0,
        };
        metrics.set_live_bundles([bundle("a", 1), bundle("b", 2)]);
        metrics.set_live_bundles([bundle("a", 3)]);
        assert_samples(
            &metrics,
            &[
                r#"toolgate_bundle_info{bundle_id="3",sha256="sha3",tenant="a"} 1"#,
                r#"toolgate_bundle_activation_id{tenant="a"} 30"#,
                r#"toolgate_bundle_activated_timestamp_seconds{tenant="a"} 1003"#,
            ],
        );
        let text = metrics.encode().unwrap();
        assert!(
            !text.contains("sha1") && !text.contains("tenant=\"b\""),
            "{text}"
        );
    }

    #[test]
    fn exposition_has_http_process_and_build_metrics() {
        let metrics = Metrics::new().unwrap();
        metrics.observe_http("GET", None, 404, 0.001);
        metrics.observe_http("BREW", Some(0), 200, 0.001);
        assert_samples(
            &metrics,
            &[
                r#"toolgate_http_request_duration_seconds_count{method="GET",path="unmatched",status="404"} 1"#,
                r#"toolgate_http_request_duration_seconds_count{method="other",path="/v1/evaluate",status="200"} 1"#,
                r#"toolgate_http_request_duration_seconds_bucket{method="GET",path="unmatched",status="404",le="0.00001"} 0"#,
                concat!(
                    "toolgate_build_info{version=\"",
                    env!("CARGO_PKG_VERSION"),
                    "\"} 1"
                ),
            ],
        );
        let text = metrics.encode().unwrap();
        assert!(text.contains("\nprocess_resident_memory_bytes "), "{text}");
    }
}
