//! One audit row: what it holds, how it is built from an evaluated event (secrets masked, large
//! fields truncated), and the canonical encoding its chain hash is computed over.
//!
//! Building a row runs on the request path: it is bounded (at most [`MAX_STRINGS`] strings are
//! scanned, each field is scanned over at most [`FIELD_LIMIT`] + [`REDACT_MARGIN`] bytes, the
//! stored input is at most [`INPUT_LIMIT`] bytes) and it never keeps a secret the `secrets`
//! pack's detector finds. This module must not log the input.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use toolgate_engine::decision::Mode;
use toolgate_engine::protocol::HookEvent;
use toolgate_engine::secrets::Scanner;
use toolgate_engine::{Decision, Outcome};

/// Strings longer than this (bytes) are stored as a redacted head of this length, plus their size
/// and sha256.
pub const FIELD_LIMIT: usize = 4096;
/// How far past [`FIELD_LIMIT`] a long string is scanned before it is cut, so that a secret that
/// starts inside the kept head (a private key of several KiB) is found whole and masked.
pub const REDACT_MARGIN: usize = 16 * 1024;
/// Largest stored input (the canonical JSON of the masked fields); larger inputs keep only their
/// size and sha256.
pub const INPUT_LIMIT: usize = 64 * 1024;
/// Most strings of one event that are scanned; an event with more keeps only size and sha256.
pub const MAX_STRINGS: usize = 4096;
/// Longest id-like column (session id, tool name, permission mode…), in bytes.
pub const SHORT_LIMIT: usize = 512;
/// Longest `cwd` or `reason`, in bytes.
pub const LONG_LIMIT: usize = 4096;

/// The `prev_hash` of the first row of a chain.
pub const GENESIS: [u8; 32] = [0; 32];

/// One audit row, as stored in the `audit` table and in the spool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// A UUIDv7 (time-ordered), lowercase with hyphens.
    pub id: String,
    /// When the event was evaluated, in microseconds since the Unix epoch; non-decreasing along a
    /// replica's chain.
    pub time_us: i64,
    /// The replica that wrote the row.
    pub replica_id: String,
    /// Position in the replica's chain (1, 2, …).
    pub seq: i64,
    /// The previous row's hash ([`GENESIS`] for a chain's first row).
    #[serde(with = "hex32")]
    pub prev_hash: [u8; 32],
    /// sha256 over the canonical encoding of this row and `prev_hash` ([`Row::compute_hash`]).
    #[serde(with = "hex32")]
    pub hash: [u8; 32],
    /// The caller's tenant (`None` when the token could not be checked).
    pub tenant: Option<String>,
    /// The agent dialect the event came in (`claude-code`, `cursor`, …).
    pub agent: String,
    /// `session_id`.
    pub session_id: Option<String>,
    /// `tool_use_id`.
    pub tool_use_id: Option<String>,
    /// `prompt_id`.
    pub prompt_id: Option<String>,
    /// The event name.
    pub event: String,
    /// The tool name.
    pub tool: Option<String>,
    /// The answer given: `deny`, `ask`, `allow` or `none`.
    pub decision: String,
    /// `enforced`, or `shadow` when warn-mode rules matched too.
    pub mode: String,
    /// With shadow hits: the answer had warn rules been enforced.
    pub shadow_decision: Option<String>,
    /// The rule that decided.
    pub winner: Option<String>,
    /// The bundle the winning answer came from (`tenant:bundle_id:sha256`, one of
    /// [`Row::bundles`]): two bundles can hold rules of one id. `None` when no bundle answered,
    /// and in rows written before this column existed.
    #[serde(default)]
    pub winner_bundle: Option<String>,
    /// Every matched rule id, most restrictive first.
    pub rules: Vec<String>,
    /// The ids of the matched warn-mode rules.
    pub shadow_rules: Vec<String>,
    /// The reason given to the agent.
    pub reason: Option<String>,
    /// The bundles evaluated: `tenant:bundle_id:sha256`.
    pub bundles: Vec<String>,
    /// The masked input: canonical JSON text of `tool_input`, `prompt`, `tool_response`.
    pub input: String,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `permission_mode`.
    pub permission_mode: Option<String>,
    /// Evaluation time in microseconds.
    pub latency_us: i64,
    /// The same (session_id, tool_use_id, event) was seen recently by this replica.
    pub repeat: bool,
    /// The answer is toolgate's failure decision (no policy, panic, token not checkable, overload).
    pub failure: bool,
}

/// The bundle an evaluation used, for [`Row::bundles`].
pub fn bundle_ref(tenant: &str, bundle_id: i64, sha256: &str) -> String {
    list_item(&BundleRef::new(tenant, bundle_id, sha256).to_string())
}

/// A bundle as an audit row names it: `tenant:id:sha256` in the row's text (the form its hash
/// covers), `{"tenant", "id", "sha256"}` in the query API and the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleRef<'a> {
    pub tenant: &'a str,
    /// `None` when the text's id is not a number (never in a row toolgate wrote).
    pub id: Option<i64>,
    pub sha256: &'a str,
}

impl<'a> BundleRef<'a> {
    pub fn new(tenant: &'a str, id: i64, sha256: &'a str) -> Self {
        BundleRef {
            tenant,
            id: Some(id),
            sha256,
        }
    }

    /// Reads a row's `tenant:id:sha256`; missing parts read as empty. Tenant names hold no `:`.
    pub fn parse(text: &'a str) -> Self {
        let mut parts = text.splitn(3, ':');
        let tenant = parts.next().unwrap_or_default();
        let id = parts.next().and_then(|id| id.parse::<i64>().ok());
        let sha256 = parts.next().unwrap_or_default();
        BundleRef { tenant, id, sha256 }
    }

    /// Reads the query API's `{"tenant", "id", "sha256"}`.
    pub fn from_json(value: &'a Value) -> Option<Self> {
        let part = |key: &str| value.get(key).unwrap_or(&Value::Null);
        let id = match part("id") {
            Value::Null => None,
            id => Some(id.as_i64()?),
        };
        Some(BundleRef {
            tenant: part("tenant").as_str()?,
            id,
            sha256: part("sha256").as_str()?,
        })
    }

    pub fn to_json(self) -> Value {
        serde_json::json!({"tenant": self.tenant, "id": self.id, "sha256": self.sha256})
    }
}

impl std::fmt::Display for BundleRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.tenant)?;
        f.write_char(':')?;
        if let Some(id) = self.id {
            write!(f, "{id}")?;
        }
        f.write_char(':')?;
        f.write_str(self.sha256)
    }
}

/// An item of a list column: never empty and without U+001F, the separator the database insert
/// splits on, so a list reads back exactly as it was hashed.
fn list_item(text: &str) -> String {
    let item = short(text).replace('\u{1f}', "\u{FFFD}");
    if item.is_empty() {
        "\u{FFFD}".to_owned()
    } else {
        item
    }
}

/// What the request path knows about one evaluated event.
pub struct Evaluation<'a> {
    /// The caller's tenant.
    pub tenant: Option<&'a str>,
    /// The event.
    pub event: &'a HookEvent,
    /// The answer given.
    pub decision: &'a Decision,
    /// The bundles evaluated.
    pub bundles: Vec<String>,
    /// The one of `bundles` the winning answer came from.
    pub winner_bundle: Option<String>,
    /// Evaluation time.
    pub latency_us: i64,
    /// Whether `decision` is the failure decision.
    pub failure: bool,
}

impl Row {
    /// Builds the row of one evaluated event, stamped now. `replica_id`, `seq`, the hashes and
    /// `repeat` are filled in by the writer.
    pub fn build(evaluation: &Evaluation<'_>) -> Row {
        Self::build_masked(evaluation, mask_input(evaluation.event))
    }

    /// [`Row::build`] with the event's input already masked ([`mask_input`]): a remembered
    /// answer masks the input it was given once for all its rows.
    pub fn build_masked(evaluation: &Evaluation<'_>, input: String) -> Row {
        let now = Utc::now();
        let time_us = now.timestamp_micros();
        let event = evaluation.event;
        let decision = evaluation.decision;
        let shadow_rules: Vec<String> = decision
            .matched
            .iter()
            .filter(|hit| hit.mode == Mode::Warn)
            .map(|hit| list_item(&hit.rule_id))
            .collect();
        let shadow_decision = (!shadow_rules.is_empty()).then(|| {
            decision
                .matched
                .iter()
                .map(|hit| hit.outcome)
                .fold(decision.outcome, Outcome::max)
                .as_str()
                .to_owned()
        });
        Row {
            id: uuid_v7(time_us),
            time_us,
            replica_id: String::new(),
            seq: 0,
            prev_hash: GENESIS,
            hash: GENESIS,
            tenant: evaluation.tenant.map(short),
            agent: event.agent.as_str().to_owned(),
            session_id: event.session_id.as_deref().map(short),
            tool_use_id: event.tool_use_id.as_deref().map(short),
            prompt_id: event.prompt_id.as_deref().map(short),
            event: short(&event.event),
            tool: event.tool_name.as_deref().map(short),
            decision: decision.outcome.as_str().to_owned(),
            mode: if shadow_rules.is_empty() {
                "enforced"
            } else {
                "shadow"
            }
            .to_owned(),
            shadow_decision,
            winner: decision.winner.as_deref().map(short),
            winner_bundle: evaluation.winner_bundle.clone(),
            rules: decision
                .matched
                .iter()
                .map(|hit| list_item(&hit.rule_id))
                .collect(),
            shadow_rules,
            // A reason may quote a word of the input (the path of `rm -rf PATH`): masked as
            // the input is.
            reason: decision
                .reason
                .as_deref()
                .map(|reason| clean(&Scanner::builtin().redact(reason), LONG_LIMIT)),
            bundles: evaluation.bundles.clone(),
            input,
            cwd: event
                .cwd
                .as_deref()
                .map(|cwd| clean(&Scanner::builtin().redact(cwd), LONG_LIMIT)),
            permission_mode: event.permission_mode.as_deref().map(short),
            latency_us: evaluation.latency_us,
            repeat: false,
            failure: evaluation.failure,
        }
    }

    /// The key that marks repeats: (session_id, tool_use_id, event), when the event has a
    /// tool use id.
    pub fn repeat_key(&self) -> Option<(String, String, String)> {
        Some((
            self.session_id.clone().unwrap_or_default(),
            self.tool_use_id.clone()?,
            self.event.clone(),
        ))
    }

    /// The row's time.
    pub fn time(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_micros(self.time_us).unwrap_or_default()
    }

    /// sha256 over a version tag, `prev_hash` and the canonical encoding of every other column:
    /// each string as its byte length (u32 BE, `0xFFFFFFFF` for null) and bytes, each integer as
    /// i64 BE, each bool as one byte, each list as its length (u32 BE) and items, in the column
    /// order of [`Row`].
    ///
    /// A row with a `winner_bundle` is tagged `v2` and has it after `winner`; a row without one
    /// is encoded as in `v1`, which had no such column, so rows written before it verify as they
    /// were. The tags differ, so a `winner_bundle` edited away or added breaks the hash.
    pub fn compute_hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(if self.winner_bundle.is_some() {
            b"toolgate-audit-v2\0"
        } else {
            b"toolgate-audit-v1\0"
        });
        h.update(self.prev_hash);
        put_str(&mut h, &self.id);
        put_i64(&mut h, self.time_us);
        put_str(&mut h, &self.replica_id);
        put_i64(&mut h, self.seq);
        put_opt(&mut h, self.tenant.as_deref());
        put_str(&mut h, &self.agent);
        put_opt(&mut h, self.session_id.as_deref());
        put_opt(&mut h, self.tool_use_id.as_deref());
        put_opt(&mut h, self.prompt_id.as_deref());
        put_str(&mut h, &self.event);
        put_opt(&mut h, self.tool.as_deref());
        put_str(&mut h, &self.decision);
        put_str(&mut h, &self.mode);
        put_opt(&mut h, self.shadow_decision.as_deref());
        put_opt(&mut h, self.winner.as_deref());
        if let Some(bundle) = &self.winner_bundle {
            put_str(&mut h, bundle);
        }
        put_list(&mut h, &self.rules);
        put_list(&mut h, &self.shadow_rules);
        put_opt(&mut h, self.reason.as_deref());
        put_list(&mut h, &self.bundles);
        put_str(&mut h, &self.input);
        put_opt(&mut h, self.cwd.as_deref());
        put_opt(&mut h, self.permission_mode.as_deref());
        put_i64(&mut h, self.latency_us);
        h.update([u8::from(self.repeat), u8::from(self.failure)]);
        h.finalize().into()
    }
}

impl Row {
    /// The row as the query API and `toolgate audit export` show it: `time` in RFC 3339 (UTC,
    /// microseconds), `input` as JSON, `bundles` as objects, hashes in hex.
    pub fn to_json(&self) -> Value {
        let bundles: Vec<Value> = self
            .bundles
            .iter()
            .map(|bundle| BundleRef::parse(bundle).to_json())
            .collect();
        serde_json::json!({
            "id": self.id,
            "time": self.time().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "tenant": self.tenant,
            "agent": self.agent,
            "session_id": self.session_id,
            "tool_use_id": self.tool_use_id,
            "prompt_id": self.prompt_id,
            "event": self.event,
            "tool": self.tool,
            "decision": self.decision,
            "mode": self.mode,
            "shadow_decision": self.shadow_decision,
            "winner": self.winner,
            "winner_bundle": self.winner_bundle.as_deref().map(|bundle| BundleRef::parse(bundle).to_json()),
            "rules": self.rules,
            "shadow_rules": self.shadow_rules,
            "reason": self.reason,
            "bundles": bundles,
            "input": serde_json::from_str::<Value>(&self.input)
                .unwrap_or_else(|_| Value::String(self.input.clone())),
            "cwd": self.cwd,
            "permission_mode": self.permission_mode,
            "latency_us": self.latency_us,
            "repeat": self.repeat,
            "failure": self.failure,
            "replica_id": self.replica_id,
            "seq": self.seq,
            "prev_hash": hex::encode(self.prev_hash),
            "hash": hex::encode(self.hash),
        })
    }

    /// The row [`Row::to_json`] wrote: an export line, read back to verify its chain without the
    /// database. `input` is written back as compact JSON, as it was stored. The error names the
    /// member that is missing or of the wrong type.
    pub fn from_json(value: &Value) -> Result<Row, String> {
        let members = value
            .as_object()
            .ok_or_else(|| "an audit row is a JSON object".to_owned())?;
        let get = |name: &str| members.get(name).unwrap_or(&Value::Null);
        let wrong = |name: &str, what: &str| format!("`{name}` must be {what}");
        let text = |name: &str| {
            get(name)
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| wrong(name, "a string"))
        };
        let optional = |name: &str| match get(name) {
            Value::Null => Ok(None),
            Value::String(text) => Ok(Some(text.clone())),
            _ => Err(wrong(name, "a string or null")),
        };
        let integer = |name: &str| get(name).as_i64().ok_or_else(|| wrong(name, "an integer"));
        let boolean = |name: &str| get(name).as_bool().ok_or_else(|| wrong(name, "a boolean"));
        let list = |name: &str| {
            get(name)
                .as_array()
                .and_then(|items| {
                    items
                        .iter()
                        .map(|item| item.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| wrong(name, "an array of strings"))
        };
        let bundle = |name: &str, value: &Value| {
            BundleRef::from_json(value)
                .map(|bundle| bundle.to_string())
                .ok_or_else(|| wrong(name, "a bundle object {tenant, id, sha256}"))
        };
        let hash = |name: &str| {
            get(name)
                .as_str()
                .and_then(|text| hex::decode(text).ok())
                .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
                .ok_or_else(|| wrong(name, "64 hex digits"))
        };
        let id = text("id")?;
        let time = text("time")?;
        let time_us = DateTime::parse_from_rfc3339(&time)
            .map_err(|_| wrong("time", "an RFC 3339 time"))?
            .timestamp_micros();
        let bundles = get("bundles")
            .as_array()
            .ok_or_else(|| wrong("bundles", "an array of bundle objects"))?
            .iter()
            .map(|item| bundle("bundles", item))
            .collect::<Result<Vec<_>, _>>()?;
        let winner_bundle = match get("winner_bundle") {
            Value::Null => None,
            value => Some(bundle("winner_bundle", value)?),
        };
        Ok(Row {
            id,
            time_us,
            replica_id: text("replica_id")?,
            seq: integer("seq")?,
            prev_hash: hash("prev_hash")?,
            hash: hash("hash")?,
            tenant: optional("tenant")?,
            agent: text("agent")?,
            session_id: optional("session_id")?,
            tool_use_id: optional("tool_use_id")?,
            prompt_id: optional("prompt_id")?,
            event: text("event")?,
            tool: optional("tool")?,
            decision: text("decision")?,
            mode: text("mode")?,
            shadow_decision: optional("shadow_decision")?,
            winner: optional("winner")?,
            winner_bundle,
            rules: list("rules")?,
            shadow_rules: list("shadow_rules")?,
            reason: optional("reason")?,
            bundles,
            input: members
                .get("input")
                .ok_or_else(|| wrong("input", "present"))?
                .to_string(),
            cwd: optional("cwd")?,
            permission_mode: optional("permission_mode")?,
            latency_us: integer("latency_us")?,
            repeat: boolean("repeat")?,
            failure: boolean("failure")?,
        })
    }
}

fn put_len(h: &mut Sha256, len: usize) {
    h.update(u32::try_from(len).unwrap_or(u32::MAX - 1).to_be_bytes());
}

fn put_str(h: &mut Sha256, s: &str) {
    put_len(h, s.len());
    h.update(s.as_bytes());
}

fn put_opt(h: &mut Sha256, s: Option<&str>) {
    match s {
        Some(s) => put_str(h, s),
        None => h.update(u32::MAX.to_be_bytes()),
    }
}

fn put_i64(h: &mut Sha256, n: i64) {
    h.update(n.to_be_bytes());
}

fn put_list(h: &mut Sha256, items: &[String]) {
    put_len(h, items.len());
    for item in items {
        put_str(h, item);
    }
}

/// A short text column: NUL bytes (which PostgreSQL text cannot hold) replaced, cut at
/// [`SHORT_LIMIT`] bytes.
fn short(text: &str) -> String {
    clean(text, SHORT_LIMIT)
}

fn clean(text: &str, limit: usize) -> String {
    let cut = floor_char_boundary(text, limit);
    text.get(..cut)
        .unwrap_or_default()
        .replace('\0', "\u{FFFD}")
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut at = at;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The stored input: `{"tool_input": …, "prompt": …, "tool_response": …}` (absent parts left
/// out), every string masked by the secret detector, strings over [`FIELD_LIMIT`] bytes replaced
/// by `{"$truncated": {"bytes", "sha256", "head"}}` (sha256 of the original string, `head` its
/// masked beginning). Over [`INPUT_LIMIT`] bytes or [`MAX_STRINGS`] strings, the whole input is
/// `{"$truncated": {"bytes", "sha256"}}` of its masked JSON.
pub fn mask_input(event: &HookEvent) -> String {
    let mut budget = MAX_STRINGS;
    let mut out = Map::new();
    if !event.tool_input.is_null() {
        out.insert(
            "tool_input".into(),
            mask_value(&event.tool_input, &mut budget),
        );
    }
    if let Some(prompt) = &event.prompt {
        out.insert("prompt".into(), mask_string(prompt, &mut budget));
    }
    if let Some(response) = &event.tool_response {
        out.insert("tool_response".into(), mask_value(response, &mut budget));
    }
    let text = Value::Object(out).to_string();
    if budget == 0 || text.len() > INPUT_LIMIT {
        return serde_json::json!({"$truncated": {
            "bytes": text.len(),
            "sha256": hex::encode(Sha256::digest(text.as_bytes())),
            "strings_over_limit": budget == 0,
        }})
        .to_string();
    }
    text
}

fn mask_value(value: &Value, budget: &mut usize) -> Value {
    match value {
        Value::String(text) => mask_string(text, budget),
        Value::Array(items) => {
            Value::Array(items.iter().map(|item| mask_value(item, budget)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let key = match mask_string(key, budget) {
                        Value::String(key) => key,
                        _ => "[REDACTED:long-key]".to_owned(),
                    };
                    (key, mask_value(item, budget))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn mask_string(text: &str, budget: &mut usize) -> Value {
    if *budget == 0 {
        return Value::Null;
    }
    *budget -= 1;
    let scanner = Scanner::builtin();
    if text.len() <= FIELD_LIMIT {
        return Value::String(scanner.redact(text).into_owned());
    }
    let window = text
        .get(..floor_char_boundary(text, FIELD_LIMIT + REDACT_MARGIN))
        .unwrap_or_default();
    let redacted = scanner.redact(window);
    let head = redacted
        .get(..floor_char_boundary(&redacted, FIELD_LIMIT))
        .unwrap_or_default();
    serde_json::json!({"$truncated": {
        "bytes": text.len(),
        "sha256": hex::encode(Sha256::digest(text.as_bytes())),
        "head": head,
    }})
}

/// A UUIDv7: 48 bits of Unix milliseconds, then 74 bits from a per-thread xorshift generator
/// seeded once from the OS (ids must be unique, not unguessable; no syscall per row).
pub fn uuid_v7(time_us: i64) -> String {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let mut seed = [0u8; 8];
            let _ = getrandom::fill(&mut seed);
            u64::from_le_bytes(seed) | 1
        });
    }
    let next = || {
        STATE.with(|state| {
            let mut x = state.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            state.set(x);
            x
        })
    };
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&next().to_le_bytes());
    bytes[8..].copy_from_slice(&next().to_le_bytes());
    let ms = u64::try_from(time_us / 1000).unwrap_or_default();
    bytes[..6].copy_from_slice(&ms.to_be_bytes()[2..]);
    bytes[6] = 0x70 | (bytes[6] & 0x0f);
    bytes[8] = 0x80 | (bytes[8] & 0x3f);
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Hex (de)serialisation of a 32-byte hash.
mod hex32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex::encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 32], D::Error> {
        let text = <&str>::deserialize(deserializer)?;
        let mut out = [0u8; 32];
        hex::decode_to_slice(text, &mut out).map_err(serde::de::Error::custom)?;
        Ok(out)
    }
}

/// A minimal row of replica `r` with `seq` (its time too), hashed over a zero `prev_hash`.
#[cfg(test)]
pub(crate) fn sample(seq: i64) -> Row {
    let mut row = Row {
        id: format!("id-{seq}"),
        time_us: seq,
        replica_id: "r".into(),
        seq,
        prev_hash: [0; 32],
        hash: [seq as u8; 32],
        tenant: None,
        agent: "claude-code".into(),
        session_id: None,
        tool_use_id: None,
        prompt_id: None,
        event: "PreToolUse".into(),
        tool: None,
        decision: "none".into(),
        mode: "enforced".into(),
        shadow_decision: None,
        winner: None,
        winner_bundle: None,
        rules: vec![],
        shadow_rules: vec![],
        reason: None,
        bundles: vec![],
        input: "{}".into(),
        cwd: None,
        permission_mode: None,
        latency_us: 1,
        repeat: false,
        failure: false,
    };
    row.hash = row.compute_hash();
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(json: Value) -> HookEvent {
        HookEvent::from_value(json).unwrap()
    }

    fn github_token() -> String {
        // Assembled at run time; shaped like a classic personal access token.
        let body: String = (0..36)
            .map(|i| char::from(b"aZ3kQ9xLm2"[(i * 7 + 3) % 10]))
            .collect();
        format!("ghp_{body}")
    }

    #[test]
    fn secrets_are_masked_everywhere_in_the_input() {
        let token = github_token();
        let e = event(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": format!("curl -H 'Authorization: token {token}' x"),
                           "nested": [{"deep": token.clone()}]},
        }));
        let input = mask_input(&e);
        assert!(!input.contains(&token), "{input}");
        assert!(input.contains("[REDACTED:"), "{input}");
    }

    /// A `.env` file's worth of keys: each one is masked, however many the field holds.
    #[test]
    fn every_secret_in_a_field_is_masked() {
        let tokens: Vec<String> = (0..75)
            .map(|i| {
                let body: String = (0..36)
                    .map(|j| char::from(b"aZ3kQ9xLm2Pw"[(i * 5 + j * 7 + 3) % 12]))
                    .collect();
                format!("ghp_{body}")
            })
            .collect();
        let content: String = tokens
            .iter()
            .enumerate()
            .map(|(i, token)| format!("TOKEN_{i}={token}\n"))
            .collect();
        assert!(content.len() <= FIELD_LIMIT);
        let e = event(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "/p/.env", "content": content},
        }));
        let input = mask_input(&e);
        for (i, token) in tokens.iter().enumerate() {
            assert!(!input.contains(token.as_str()), "token {i} kept");
        }
    }

    /// The baseline pack names the path it judged (`recursive or forced removal of `PATH`…`),
    /// and a path may hold a credential: the row's reason is masked as its input is.
    #[test]
    fn secrets_in_the_reason_and_the_cwd_are_masked() {
        let token = github_token();
        let e = event(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": format!("/w/{token}"),
            "tool_input": {"command": format!("rm -rf /home/u/{token}")},
        }));
        let decision = Decision {
            outcome: Outcome::Deny,
            reason: Some(format!(
                "recursive or forced removal of `/home/u/{token}` reaches outside the project"
            )),
            ..Decision::none()
        };
        let row = Row::build(&Evaluation {
            tenant: Some("t"),
            event: &e,
            decision: &decision,
            bundles: vec![],
            winner_bundle: None,
            latency_us: 1,
            failure: false,
        });
        let reason = row.reason.as_deref().unwrap();
        assert!(!reason.contains(&token), "{reason}");
        assert!(reason.contains("[REDACTED:"), "{reason}");
        assert!(
            reason.starts_with("recursive or forced removal"),
            "{reason}"
        );
        assert!(!row.cwd.as_deref().unwrap().contains(&token));
        assert!(!row.input.contains(&token));
    }

    #[test]
    fn long_fields_keep_a_masked_head_size_and_sha256() {
        let token = github_token();
        let mut content = "x".repeat(FIELD_LIMIT - 10);
        content.push(' ');
        content.push_str(&token);
        content.push_str(&"y".repeat(50_000));
        let e = event(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "/p/a", "content": content},
        }));
        let input: Value = serde_json::from_str(&mask_input(&e)).unwrap();
        let truncated = &input["tool_input"]["content"]["$truncated"];
        assert_eq!(truncated["bytes"], content.len());
        assert_eq!(
            truncated["sha256"],
            hex::encode(Sha256::digest(content.as_bytes()))
        );
        let head = truncated["head"].as_str().unwrap();
        assert!(head.len() <= FIELD_LIMIT);
        assert!(!head.contains(&token[..12]), "a cut secret must not leak");
    }

    #[test]
    fn huge_inputs_keep_only_size_and_hash() {
        let items: Vec<Value> = (0..MAX_STRINGS + 5)
            .map(|i| Value::from(format!("s{i}")))
            .collect();
        let e = event(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "mcp__x", "tool_input": {"a": items},
        }));
        let input: Value = serde_json::from_str(&mask_input(&e)).unwrap();
        assert!(input["$truncated"]["sha256"].is_string(), "{input}");
    }

    #[test]
    fn the_hash_covers_every_column() {
        let e = event(
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "session_id": "s\u{0}1"}),
        );
        let decision = Decision::none();
        let row = Row::build(&Evaluation {
            tenant: Some("t"),
            event: &e,
            decision: &decision,
            bundles: vec![bundle_ref("t", 1, "ab")],
            winner_bundle: None,
            latency_us: 3,
            failure: false,
        });
        assert_eq!(row.session_id.as_deref(), Some("s\u{FFFD}1"));
        let base = row.compute_hash();
        let mut edited = row.clone();
        edited.decision = "deny".into();
        assert_ne!(edited.compute_hash(), base);
        let mut edited = row.clone();
        edited.rules = vec!["a".into()];
        assert_ne!(edited.compute_hash(), base);
        let mut edited = row.clone();
        edited.prev_hash = [1; 32];
        assert_ne!(edited.compute_hash(), base);
        let mut moved = row.clone();
        moved.tool = None;
        moved.cwd = Some("Bash".into());
        assert_ne!(moved.compute_hash(), base);
    }

    /// Rows written before `winner_bundle` existed keep their hash: pinned (the value was worked
    /// out apart, from the encoding [`Row::compute_hash`] documents), so that a change to the `v1`
    /// encoding cannot pass unnoticed.
    #[test]
    fn a_row_without_a_winner_bundle_is_hashed_as_in_v1() {
        assert_eq!(
            hex::encode(sample(1).compute_hash()),
            "6cbff9dcf8ec92b80768c00d742f8f326274efd185302b00ebfda52c97267865"
        );
    }

    /// A row's bundle text, its query-API object and back: the same bundle, the same text.
    #[test]
    fn a_bundle_ref_reads_back_as_written() {
        let text = bundle_ref("team-a", 42, "ab12");
        let parsed = BundleRef::parse(&text);
        assert_eq!(parsed, BundleRef::new("team-a", 42, "ab12"));
        assert_eq!(parsed.to_string(), text);
        let json = parsed.to_json();
        assert_eq!(
            json,
            json!({"tenant": "team-a", "id": 42, "sha256": "ab12"})
        );
        assert_eq!(BundleRef::from_json(&json), Some(parsed));

        // An id that is not a number reads as none, and is written back without one.
        let odd = BundleRef::parse("t:x:ab");
        assert_eq!(odd.id, None);
        assert_eq!(odd.to_string(), "t::ab");
        for wrong in [
            json!({"tenant": "t", "id": "42", "sha256": "ab"}),
            json!({"tenant": "t", "id": 4.2, "sha256": "ab"}),
            json!({"tenant": 1, "id": 42, "sha256": "ab"}),
            json!({"tenant": "t", "id": 42}),
            json!("t:42:ab"),
        ] {
            assert_eq!(BundleRef::from_json(&wrong), None, "{wrong}");
        }
    }

    #[test]
    fn the_hash_covers_the_winner_bundle() {
        let base = sample(1);
        let mut sourced = base.clone();
        sourced.winner_bundle = Some(bundle_ref("global", 7, "ab"));
        let mut other = base.clone();
        other.winner_bundle = Some(bundle_ref("t", 7, "ab"));
        let hashes = [&base, &sourced, &other].map(Row::compute_hash);
        assert_ne!(hashes[0], hashes[1]);
        assert_ne!(hashes[1], hashes[2]);
        assert_ne!(hashes[0], hashes[2]);
    }

    /// An export line reads back as the row it was written from, `winner_bundle` and all.
    #[test]
    fn a_row_reads_back_from_its_json() {
        let mut row = sample(3);
        row.winner_bundle = Some(bundle_ref("global", 7, "ab"));
        row.bundles = vec![bundle_ref("t", 2, "cd"), bundle_ref("global", 7, "ab")];
        row.rules = vec!["r\u{1}".into()];
        row.input = r#"{"tool_input":{"command":"ls \"ä\"\n","n":-0.0,"x":1e+300}}"#.into();
        row.hash = row.compute_hash();
        let line = row.to_json().to_string();
        let read = Row::from_json(&serde_json::from_str(&line).unwrap()).unwrap();
        assert_eq!(read, row);
        assert_eq!(read.to_json().to_string(), line);
    }

    #[test]
    fn list_items_hold_no_separator_and_are_never_empty() {
        let e = event(
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "echo"}}),
        );
        let hit = |rule_id: &str, mode| toolgate_engine::decision::RuleHit {
            rule_id: rule_id.to_owned(),
            outcome: Outcome::Ask,
            mode,
            reason: String::new(),
        };
        let decision = Decision {
            outcome: Outcome::Ask,
            matched: vec![
                hit("Bash(echo \u{1f}*)", Mode::Enforce),
                hit("", Mode::Enforce),
                hit("warn\u{1f}", Mode::Warn),
            ],
            ..Decision::none()
        };
        let row = Row::build(&Evaluation {
            tenant: Some("t"),
            event: &e,
            decision: &decision,
            bundles: vec![bundle_ref("t\u{1f}", 1, "ab")],
            winner_bundle: None,
            latency_us: 3,
            failure: false,
        });
        assert_eq!(row.rules.len(), 3);
        for item in row
            .rules
            .iter()
            .chain(&row.shadow_rules)
            .chain(&row.bundles)
        {
            assert!(!item.is_empty() && !item.contains('\u{1f}'), "{item:?}");
        }
    }

    #[test]
    fn ids_are_uuid_v7() {
        let id = uuid_v7(1_700_000_000_000_000);
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "7");
        assert_ne!(uuid_v7(1), uuid_v7(1));
    }
}
