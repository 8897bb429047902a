//! Hook events in and hook replies out, in each agent's own wire format.
//!
//! Decoding is lenient, as the agents keep adding fields: unknown fields are ignored, optional
//! fields are optional, and `Task` is read as `Agent`. Rendering is exact: a reply that does not
//! pass the agent's schema is silently ignored by the agent, and a deny lost that way is a
//! security failure.

mod claude;
mod dialects;
mod json;

pub use claude::render_claude;
pub use dialects::{
    COPILOT_EVENTS, Reply, configured_event, decode, decode_head, decode_head_named, decode_named,
    decode_value, render,
};

use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

/// Claude Code's hook events (`hook-protocols.md` §1), the names other agents' events are read
/// as too; most frequent first (the metrics' label order).
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "UserPromptSubmit",
    "PostToolUseFailure",
    "PermissionDenied",
    "PostToolBatch",
    "Stop",
    "SubagentStop",
    "SubagentStart",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PreCompact",
    "PostCompact",
    "UserPromptExpansion",
    "InstructionsLoaded",
    "MessageDisplay",
    "TaskCreated",
    "TaskCompleted",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
    "Setup",
    "PreModelSwitch",
    "PostModelSwitch",
];

/// Input limits for event decoding.
pub const MAX_EVENT_DEPTH: usize = 64;

/// Which agent's dialect an event arrived in and its reply must be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Agent {
    /// Claude Code.
    #[default]
    ClaudeCode,
    /// OpenAI Codex CLI: Claude-style events and replies; only deny is enforced.
    Codex,
    /// GitHub Copilot CLI and cloud agent (camelCase or VS Code-compatible events).
    Copilot,
    /// Cursor (`beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, …).
    Cursor,
    /// Gemini CLI (`BeforeTool`, …).
    Gemini,
    /// VS Code agent hooks (camelCase common fields, VS Code tool names, Claude-style replies).
    VsCode,
    /// Cline (`{hookName, preToolUse: {toolName, parameters}}`).
    Cline,
    /// Windsurf Cascade (`agent_action_name`, `tool_info`; blocks by exit code 2).
    Windsurf,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 8] = [
        Self::ClaudeCode,
        Self::Codex,
        Self::Copilot,
        Self::Cursor,
        Self::Gemini,
        Self::VsCode,
        Self::Cline,
        Self::Windsurf,
    ];

    /// The agent's name as used in URLs, metrics and the audit (`claude-code`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::Copilot => "copilot",
            Self::Cursor => "cursor",
            Self::Gemini => "gemini",
            Self::VsCode => "vscode",
            Self::Cline => "cline",
            Self::Windsurf => "windsurf",
        }
    }

    /// The top-level keys of a JSON reply in this agent's schema (toolgate's server answers
    /// Windsurf, which blocks by exit code, with `decision: "block"` and `reason`). A reply
    /// with any other key is not one toolgate wrote: the agent would ignore it.
    pub fn reply_keys(self) -> &'static [&'static str] {
        const CLAUDE: &[&str] = &[
            "hookSpecificOutput",
            "decision",
            "reason",
            "continue",
            "stopReason",
            "systemMessage",
            "suppressOutput",
        ];
        match self {
            Self::ClaudeCode | Self::Codex | Self::VsCode | Self::Gemini => CLAUDE,
            Self::Copilot => &[
                "permissionDecision",
                "permissionDecisionReason",
                "modifiedArgs",
                "additionalContext",
                "suppressOutput",
                "decision",
                "reason",
                "behavior",
                "message",
            ],
            Self::Cursor => &[
                "permission",
                "user_message",
                "agent_message",
                "continue",
                "followup_message",
            ],
            Self::Cline => &["cancel", "contextModification", "errorMessage"],
            Self::Windsurf => &["decision", "reason"],
        }
    }

    /// Parses an agent name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "claude" => Some(Self::ClaudeCode),
            "gemini-cli" => Some(Self::Gemini),
            "vs-code" => Some(Self::VsCode),
            _ => Self::ALL.into_iter().find(|agent| agent.as_str() == name),
        }
    }
}

/// A hook event, decoded into the one internal shape every dialect maps to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookEvent {
    /// The event, in Claude Code's terms (`PreToolUse`, `UserPromptSubmit`, …).
    pub event: String,
    /// The agent's own event name, when it differs from Claude Code's (`beforeShellExecution`).
    pub native_event: Option<String>,
    /// The agent that sent the event.
    pub agent: Agent,
    /// `session_id`.
    pub session_id: Option<String>,
    /// `transcript_path`.
    pub transcript_path: Option<String>,
    /// `cwd`: the project root that relative rules and paths are resolved against.
    pub cwd: Option<String>,
    /// `permission_mode`.
    pub permission_mode: Option<String>,
    /// `prompt_id`.
    pub prompt_id: Option<String>,
    /// `tool_name`, with the legacy `Task` read as `Agent`.
    pub tool_name: Option<String>,
    /// `tool_input` (an object, or `Null` when absent).
    pub tool_input: Value,
    /// `tool_use_id`.
    pub tool_use_id: Option<String>,
    /// `tool_response` (PostToolUse).
    pub tool_response: Option<Value>,
    /// `prompt` (UserPromptSubmit).
    pub prompt: Option<String>,
    /// `agent_id`, inside a subagent.
    pub agent_id: Option<String>,
    /// `agent_type`.
    pub agent_type: Option<String>,
    /// `stop_hook_active` (Stop, SubagentStop).
    pub stop_hook_active: bool,
    /// The user's home directory, when the event (or the caller) tells it.
    pub home: Option<String>,
}

/// Why a body is not a hook event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// Not JSON at all.
    #[error("the body is not valid JSON: {0}")]
    Json(String),
    /// JSON, but not an object.
    #[error("a hook event must be a JSON object")]
    NotAnObject,
    /// Nested deeper than [`MAX_EVENT_DEPTH`].
    #[error("the event nests deeper than {MAX_EVENT_DEPTH} levels")]
    TooDeep,
    /// A field has the wrong type.
    #[error("field `{field}` must be {expected}")]
    WrongType {
        /// The field's name.
        field: &'static str,
        /// What it must be (`a string`, `an object`).
        expected: &'static str,
    },
    /// A required field is missing.
    #[error("field `{0}` is required")]
    Missing(&'static str),
}

impl EventError {
    /// The name of the offending field, if one is to blame.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            Self::WrongType { field, .. } | Self::Missing(field) => Some(field),
            _ => None,
        }
    }
}

impl HookEvent {
    /// Decodes a Claude Code hook event from raw bytes. An object's members are read straight
    /// from the text ([`Members`]); any other text is parsed whole, so that JSON which is no
    /// object is told apart from text which is no JSON.
    pub fn from_slice(body: &[u8]) -> Result<Self, EventError> {
        let first = body
            .iter()
            .find(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
        if first == Some(&b'{') {
            Self::from_members(json::parse_event(body)?)
        } else {
            Self::from_value(json::parse_event(body)?)
        }
    }

    /// Decodes a Claude Code hook event from a parsed JSON value.
    pub fn from_value(value: Value) -> Result<Self, EventError> {
        let Value::Object(mut map) = value else {
            return Err(EventError::NotAnObject);
        };
        Self::from_members(Members::take_from(&mut map))
    }

    /// Decodes a Claude Code hook event from its members.
    fn from_members(mut members: Members) -> Result<Self, EventError> {
        let event = members
            .string("hook_event_name")?
            .ok_or(EventError::Missing("hook_event_name"))?;
        let tool_name = members
            .string("tool_name")?
            .map(|name| canonical_tool_name(&name).to_owned());
        let tool_input = match members.take("tool_input") {
            None | Some(Value::Null) => Value::Null,
            Some(Value::Object(input)) => Value::Object(input),
            Some(_) => {
                return Err(EventError::WrongType {
                    field: "tool_input",
                    expected: "an object",
                });
            }
        };
        if tool_name.is_some() && event_has_tool(&event) && tool_input.is_null() {
            return Err(EventError::Missing("tool_input"));
        }
        let transcript_path = members.string("transcript_path")?;
        let home = transcript_path
            .as_deref()
            .and_then(crate::paths::home_from_transcript)
            .map(str::to_owned);
        Ok(Self {
            event,
            native_event: None,
            agent: Agent::ClaudeCode,
            session_id: members.string("session_id")?,
            transcript_path,
            cwd: members.string("cwd")?,
            permission_mode: members.string("permission_mode")?,
            prompt_id: members.string("prompt_id")?,
            tool_name,
            tool_input,
            tool_use_id: members.string("tool_use_id")?,
            tool_response: members.take("tool_response"),
            prompt: members.string("prompt")?,
            agent_id: members.string("agent_id")?,
            agent_type: members.string("agent_type")?,
            stop_hook_active: matches!(members.take("stop_hook_active"), Some(Value::Bool(true))),
            home,
        })
    }

    /// A string field of `tool_input`.
    pub fn input_str(&self, field: &str) -> Option<&str> {
        self.tool_input.get(field).and_then(Value::as_str)
    }

    /// Whether this event is about a tool call that a policy can gate
    /// (`PreToolUse`, `PermissionRequest`).
    pub fn is_gate(&self) -> bool {
        matches!(self.event.as_str(), "PreToolUse" | "PermissionRequest")
    }

    /// Whether this is a Stop or SubagentStop that a block already kept going
    /// (`stop_hook_active`): blocking it again would keep the agent working for ever
    /// (`hook-protocols.md` §8.9), so it is never blocked twice.
    pub fn is_stop_kept_going(&self) -> bool {
        self.stop_hook_active && matches!(self.event.as_str(), "Stop" | "SubagentStop")
    }

    /// Everything a decision about this event depends on, as bytes, or `None` when that is
    /// longer than `limit` bytes.
    ///
    /// The key holds every field that evaluation or the rendering of its reply reads. It leaves
    /// out what only names one call (`session_id`, `tool_use_id`, `prompt_id`), and the
    /// transcript path counts only through the home it implies. So two events with equal keys
    /// get equal decisions from one policy, and a server may answer the second with the first's
    /// decision. The key says nothing about the policy: a cache keys on that too.
    pub fn decision_key(&self, limit: usize) -> Option<Vec<u8>> {
        // Naming every field makes a new one a compile error here until someone decides whether
        // decisions depend on it.
        let Self {
            event,
            native_event,
            agent,
            session_id: _,
            transcript_path: _,
            cwd,
            permission_mode,
            prompt_id: _,
            tool_name,
            tool_input,
            tool_use_id: _,
            tool_response,
            prompt,
            agent_id,
            agent_type,
            stop_hook_active,
            home,
        } = self;
        let fields = (
            event,
            native_event,
            agent.as_str(),
            cwd,
            permission_mode,
            tool_name,
            tool_input,
            tool_response,
            prompt,
            agent_id,
            agent_type,
            stop_hook_active,
            home,
        );
        // JSON is self-delimiting, so different fields never run into the same bytes.
        let mut key = BoundedWriter {
            bytes: Vec::with_capacity(limit.min(512)),
            limit,
        };
        serde_json::to_writer(&mut key, &fields).ok()?;
        Some(key.bytes)
    }
}

/// A byte buffer that refuses to grow past `limit`, so that a large event stops its key's
/// serialisation early instead of copying megabytes.
struct BoundedWriter {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for BoundedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Events that carry `tool_name` and `tool_input`.
fn event_has_tool(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse"
            | "PermissionRequest"
            | "PermissionDenied"
            | "PostToolUse"
            | "PostToolUseFailure"
    )
}

/// Claude Code's legacy tool-name aliases, resolved (`Task` → `Agent`).
pub fn canonical_tool_name(name: &str) -> &str {
    match name {
        "Task" => "Agent",
        "KillShell" | "KillBash" => "TaskStop",
        "AgentOutputTool" | "BashOutputTool" | "AgentOutput" | "BashOutput" => "TaskOutput",
        "ListMcpResources" => "ListMcpResourcesTool",
        "ReadMcpResource" => "ReadMcpResourceTool",
        "ReadMcpResourceDir" => "ReadMcpResourceDirTool",
        "ListPeers" => "ListAgents",
        "Brief" => "SendUserMessage",
        other => other,
    }
}

/// The top-level members of a Claude Code event that decoding reads.
const MEMBERS: [&str; 14] = [
    "hook_event_name",
    "tool_name",
    "tool_input",
    "transcript_path",
    "session_id",
    "cwd",
    "permission_mode",
    "prompt_id",
    "tool_use_id",
    "tool_response",
    "prompt",
    "agent_id",
    "agent_type",
    "stop_hook_active",
];

/// A Claude Code event's members named in [`MEMBERS`], in that order. Read straight from the
/// text ([`HookEvent::from_slice`]), the members no decoding reads are skipped unbuilt: no map,
/// no key, no value is allocated for them. A member given twice counts with its last value, as
/// in `JSON.parse` and serde_json's own maps. A skipped member is checked as JSON text but its
/// numbers are not computed, so one past `f64`'s range (`1e400`, which `JSON.parse` reads as
/// `Infinity`) is no error there, as it is in a member that is read.
#[derive(Debug, Default)]
struct Members([Option<Value>; MEMBERS.len()]);

impl Members {
    /// The members of `map`, taken out of it.
    fn take_from(map: &mut Map<String, Value>) -> Self {
        Self(MEMBERS.map(|name| map.remove(name)))
    }

    /// The member `name` (one of [`MEMBERS`]), taken out.
    fn take(&mut self, name: &'static str) -> Option<Value> {
        let index = MEMBERS.iter().position(|member| *member == name)?;
        self.0.get_mut(index)?.take()
    }

    /// The string member `name`; absent or `null` is `None`.
    fn string(&mut self, name: &'static str) -> Result<Option<String>, EventError> {
        match self.take(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(EventError::WrongType {
                field: name,
                expected: "a string",
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Members;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
        let mut members = Members::default();
        while let Some(index) = map.next_key_seed(MemberIndex)? {
            match index.and_then(|index| members.0.get_mut(index)) {
                Some(slot) => *slot = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(members)
    }
}

/// Reads a member's name as its index in [`MEMBERS`] (`None` for any other), without
/// allocating it.
struct MemberIndex;

impl<'de> DeserializeSeed<'de> for MemberIndex {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for MemberIndex {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(MEMBERS.iter().position(|member| *member == name))
    }
}

/// Whether JSON text nests deeper than `limit` arrays/objects. A cheap scan that runs before the
/// parser, so that hostile nesting never reaches a recursive descent. Strings, most of an
/// event's bytes, are skipped with `memchr` to their closing quote.
pub fn nesting_exceeds(body: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&byte) = body.get(at) {
        at += 1;
        match byte {
            b'"' => match string_end(body, at) {
                Some(end) => at = end,
                None => return false,
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Where the string whose text starts at `at` ends: just past its closing quote, or `None`
/// when the text ends first.
fn string_end(body: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let found = memchr::memchr2(b'"', b'\\', body.get(at..)?)?;
        at += found + 1;
        if body.get(at - 1) == Some(&b'"') {
            return Some(at);
        }
        at += 1; // The escaped byte, which may be a quote or a backslash.
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(value: Value) -> HookEvent {
        HookEvent::from_value(value).unwrap()
    }

    fn base() -> Value {
        json!({
            "hook_event_name": "PreToolUse",
            "session_id": "s1",
            "transcript_path": "/home/ann/.claude/projects/p/s1.jsonl",
            "cwd": "/home/ann/proj",
            "permission_mode": "default",
            "prompt_id": "p1",
            "tool_name": "Bash",
            "tool_input": { "command": "git status" },
            "tool_use_id": "toolu_1",
        })
    }

    fn key_with(field: &str, value: Value) -> Vec<u8> {
        let mut changed = base();
        changed[field] = value;
        event(changed).decision_key(4096).unwrap()
    }

    #[test]
    fn the_calls_own_names_are_not_in_the_decision_key() {
        let key = event(base()).decision_key(4096).unwrap();
        assert_eq!(key_with("session_id", json!("s2")), key);
        assert_eq!(key_with("tool_use_id", json!("toolu_2")), key);
        assert_eq!(key_with("prompt_id", json!("p2")), key);
        // Another session's transcript under the same home.
        let transcript = json!("/home/ann/.claude/projects/q/s2.jsonl");
        assert_eq!(key_with("transcript_path", transcript), key);
    }

    #[test]
    fn what_decisions_depend_on_is_in_the_decision_key() {
        let key = event(base()).decision_key(4096).unwrap();
        for (field, value) in [
            ("hook_event_name", json!("PermissionRequest")),
            ("cwd", json!("/home/ann")),
            ("permission_mode", json!("plan")),
            ("tool_name", json!("PowerShell")),
            ("tool_input", json!({ "command": "git status " })),
            ("tool_response", json!({ "stdout": "" })),
            ("prompt", json!("hi")),
            ("agent_id", json!("a1")),
            ("agent_type", json!("Explore")),
            ("stop_hook_active", json!(true)),
            // Another home.
            (
                "transcript_path",
                json!("/root/.claude/projects/p/s1.jsonl"),
            ),
        ] {
            assert_ne!(key_with(field, value), key, "{field}");
        }
    }

    #[test]
    fn a_decision_key_longer_than_its_limit_is_none() {
        let key = event(base()).decision_key(4096).unwrap();
        assert_eq!(event(base()).decision_key(key.len()), Some(key.clone()));
        assert_eq!(event(base()).decision_key(key.len() - 1), None);
        let long = json!({ "command": "x".repeat(10_000) });
        let mut large = base();
        large["tool_input"] = long;
        assert_eq!(event(large).decision_key(4096), None);
    }

    /// Bodies whose members are read straight from the text decode as the same bodies parsed
    /// into a value first: every member, unknown ones of every shape, members given twice, an
    /// escaped name, and each wrong type, missing field and non-object.
    #[test]
    fn members_read_from_the_text_are_the_members_of_the_value() {
        let whole = base().to_string();
        let bodies = [
            whole.clone(),
            json!({
                "hook_event_name": "PostToolUse", "tool_name": "Task", "tool_input": {"a": [1]},
                "tool_response": {"stdout": "x"}, "prompt": "p", "prompt_id": "q",
                "agent_id": "a", "agent_type": "t", "stop_hook_active": true,
                "tool_use_id": "u", "permission_mode": "plan",
                "extra": {"deep": [[{"x": null}]], "n": 1.5e300, "s": "\"\\"}, "more": [true, false]
            })
            .to_string(),
            whole.replacen('{', r#"{"cwd":"/first","hook_event_name":"Stop", "#, 1),
            whole.replacen("tool_name", r"tool\u005fname", 1),
            format!(" \n\t{whole}\r\n"),
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}"#.into(),
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":[]}"#.into(),
            r#"{"hook_event_name":"Stop","cwd":7}"#.into(),
            r#"{"hook_event_name":null}"#.into(),
            r#"{"stop_hook_active":"yes","hook_event_name":"Stop","session_id":null}"#.into(),
            r#"{"hook_event_name":"Stop","x":"\ud800"}"#.into(),
            r#"{"hook_event_name":"Stop"} {}"#.into(),
            r#"{"hook_event_name":"Stop""#.into(),
            "[1]".into(),
            "\"text\"".into(),
            String::new(),
        ]
        .map(String::into_bytes);
        let mut not_utf8 = br#"{"hook_event_name":"Stop","x":""#.to_vec();
        not_utf8.extend_from_slice(&[0xff, b'"', b'}']);
        // The one difference: a number past f64's range in a member no one reads.
        let huge = br#"{"hook_event_name":"Stop","x":1e400}"#;
        assert!(HookEvent::from_slice(huge).is_ok());
        assert!(json::parse_event::<Value>(huge).is_err());
        for body in bodies.into_iter().chain([not_utf8]) {
            let body = body.as_slice();
            let from_value = json::parse_event::<Value>(body)
                .and_then(HookEvent::from_value)
                .map_err(|error| std::mem::discriminant(&error));
            let from_text =
                HookEvent::from_slice(body).map_err(|error| std::mem::discriminant(&error));
            assert_eq!(from_text, from_value, "{}", String::from_utf8_lossy(body));
        }
    }

    /// The scan agrees with a byte-by-byte reading on every text of up to six bytes of JSON's
    /// structure: quotes, escapes, brackets and a letter.
    #[test]
    fn the_nesting_scan_reads_strings_as_a_byte_by_byte_scan_does() {
        fn byte_by_byte(body: &[u8], limit: usize) -> bool {
            let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
            body.iter().any(|&byte| {
                if in_string {
                    (in_string, escaped) = match byte {
                        _ if escaped => (true, false),
                        b'\\' => (true, true),
                        b'"' => (false, false),
                        _ => (true, false),
                    };
                    return false;
                }
                match byte {
                    b'"' => in_string = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                depth > limit
            })
        }
        const BYTES: [u8; 7] = [b'"', b'\\', b'[', b']', b'{', b'}', b'a'];
        let mut body = Vec::new();
        for len in 0..=6u32 {
            for mut n in 0..BYTES.len().pow(len) {
                body.clear();
                for _ in 0..len {
                    body.push(BYTES[n % BYTES.len()]);
                    n /= BYTES.len();
                }
                for limit in 0..3 {
                    assert_eq!(
                        nesting_exceeds(&body, limit),
                        byte_by_byte(&body, limit),
                        "{} within {limit}",
                        String::from_utf8_lossy(&body)
                    );
                }
            }
        }
    }
}
