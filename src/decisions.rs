//! Answer decisions: an evaluated event's reply and decision, kept by what they were made
//! from, so that the same call made again is answered without evaluating it again.
//!
//! Agents repeat themselves: `git status`, the test command, a Read of the file being edited.
//! An evaluation is a pure function of the event's judged fields
//! ([`HookEvent::decision_key`]) and the policies it ran against, so the key is those fields
//! plus, for the tenant's own policy and the `global` one, the generation each was loaded as
//! ([`LivePolicy::generation`]). An activation, rollback or reload loads new generations, and
//! entries made with the old ones are never found again; they age out of the cache.
//!
//! The cache is bounded in bytes (`--decision-cache-bytes`; 0 turns it off) and keeps only
//! events whose key is at most [`MAX_KEY_BYTES`]: large Writes and tool responses are nearly
//! always unique. Failure answers are never kept. Every evaluation is still counted and
//! audited, a remembered one as much as a fresh one.

use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use serde_json::Value;
use toolgate_engine::Decision;
use toolgate_engine::protocol::HookEvent;

use crate::audit::record::mask_input;
use crate::store::reload::LivePolicy;

/// Largest key kept: an event's judged fields as JSON, and the policies' generations.
pub const MAX_KEY_BYTES: usize = 8 * 1024;

/// Bytes an entry is charged beyond its key and reason: the reply, the decision's fields and the
/// cache's own bookkeeping (an estimate; the bound is approximate by nature).
const ENTRY_OVERHEAD_BYTES: u64 = 512;

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The decision was remembered.
    Hit,
    /// Not remembered; evaluated and kept.
    Miss,
    /// Too large to keep; evaluated.
    TooLarge,
}

impl Lookup {
    /// Every lookup result, in metric order.
    pub const ALL: [Self; 3] = [Self::Hit, Self::Miss, Self::TooLarge];

    /// The metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hit => "hit",
            Self::Miss => "miss",
            Self::TooLarge => "too_large",
        }
    }
}

/// An evaluation's outcome, shared by the HTTP answer, the audit row and the cache.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP body, written once: a remembered answer is sent as these bytes again.
    body: Bytes,
    /// The decision.
    pub decision: Decision,
    /// Which of the evaluated policies the winning answer came from (their order: the tenant's
    /// own, then `global`), for the audit row's `winner_bundle`.
    pub winner_source: Option<usize>,
    /// The event's input with secrets masked, for the audit rows: made by the first row.
    masked_input: OnceLock<String>,
}

impl Answer {
    /// The answer `reply` with `decision`.
    pub fn new(reply: &Value, decision: Decision) -> Self {
        Self {
            body: Bytes::from(reply.to_string()),
            decision,
            winner_source: None,
            masked_input: OnceLock::new(),
        }
    }

    /// This answer, its winner from the evaluated policy at `source`.
    pub fn sourced(self, source: Option<usize>) -> Self {
        Self {
            winner_source: source,
            ..self
        }
    }

    /// The HTTP answer: 200 with the reply as JSON.
    pub fn response(&self) -> Response {
        let json = HeaderValue::from_static("application/json");
        ([(header::CONTENT_TYPE, json)], self.body.clone()).into_response()
    }

    /// `event`'s input with secrets masked ([`mask_input`]), masked once per answer: the input
    /// is part of a remembered answer's key, so every event it answers has the same.
    pub fn masked_input(&self, event: &HookEvent) -> &str {
        self.masked_input.get_or_init(|| mask_input(event))
    }
}

/// The key of one event against one pair of policies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key(Box<[u8]>);

impl Key {
    /// The key of `event` for `tenant` evaluated against `policies` (the tenant's own and the
    /// `global` one, either absent), or `None` when it is longer than [`MAX_KEY_BYTES`].
    pub fn new<'a>(
        tenant: &str,
        policies: impl IntoIterator<Item = Option<&'a LivePolicy>>,
        event: &HookEvent,
    ) -> Option<Self> {
        let mut key = event.decision_key(MAX_KEY_BYTES)?;
        // The event's part is JSON, which never holds a NUL byte, so the tail cannot be confused
        // with it; the tenant's name ends the key.
        key.push(0);
        for policy in policies {
            let generation = policy.map_or(0, |policy| policy.generation);
            key.extend_from_slice(&generation.to_le_bytes());
        }
        key.extend_from_slice(tenant.as_bytes());
        Some(Self(key.into_boxed_slice()))
    }
}

/// Charges an entry its approximate size in bytes.
#[derive(Debug, Clone)]
struct Size;

impl Weighter<Key, Arc<Answer>> for Size {
    fn weight(&self, key: &Key, answer: &Arc<Answer>) -> u64 {
        let reason = answer.decision.reason.as_ref().map_or(0, String::len);
        (key.0.len() + reason) as u64 + ENTRY_OVERHEAD_BYTES
    }
}

/// The remembered decisions of this replica.
pub struct Decisions {
    cache: Option<Cache<Key, Arc<Answer>, Size>>,
}

impl Decisions {
    /// A cache of at most about `bytes` bytes; none at all when `bytes` is 0.
    pub fn new(bytes: u64) -> Self {
        let cache = (bytes > 0).then(|| {
            let estimated_items = usize::try_from(bytes / (ENTRY_OVERHEAD_BYTES + 256))
                .unwrap_or(usize::MAX)
                .max(16);
            Cache::with_weighter(estimated_items, bytes, Size)
        });
        Self { cache }
    }

    /// Whether decisions are remembered at all.
    pub fn enabled(&self) -> bool {
        self.cache.is_some()
    }

    /// The remembered answer for `key`.
    pub fn get(&self, key: &Key) -> Option<Arc<Answer>> {
        self.cache.as_ref()?.get(key)
    }

    /// Remembers an evaluation.
    pub fn insert(&self, key: Key, answer: Arc<Answer>) {
        if let Some(cache) = &self.cache {
            cache.insert(key, answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> Arc<Answer> {
        Arc::new(Answer::new(&serde_json::json!({}), Decision::none()))
    }

    fn key(name: &str) -> Key {
        Key(name.as_bytes().into())
    }

    #[test]
    fn a_cache_of_zero_bytes_remembers_nothing() {
        let decisions = Decisions::new(0);
        assert!(!decisions.enabled());
        decisions.insert(key("a"), answer());
        assert!(decisions.get(&key("a")).is_none());
    }

    #[test]
    fn the_cache_stays_within_its_bytes() {
        let decisions = Decisions::new(64 * 1024);
        for n in 0..10_000 {
            decisions.insert(key(&format!("event {n}")), answer());
        }
        let cache = decisions.cache.as_ref().unwrap();
        assert!(cache.weight() <= 64 * 1024, "{}", cache.weight());
        assert!(cache.len() < 10_000);
        assert!(decisions.get(&key("event 9999")).is_some());
    }
}
