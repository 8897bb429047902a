//! The other agents' dialects: each agent's event decoded into the one internal [`HookEvent`]
//! (tool names mapped to Claude Code's where they mean the same thing, so one bundle governs
//! them all), and each [`Decision`] rendered in the agent's own reply schema and exit-code
//! convention (`hook-protocols.md` §6).
//!
//! Agents that cannot ask the user (Gemini CLI, Cline, Windsurf, Codex's PreToolUse, Cursor's file
//! reads) get `ask` rendered as a block whose reason says confirmation is required: toolgate fails
//! closed.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};

use super::claude::reason_text;
use super::{Agent, EventError, HookEvent, canonical_tool_name};
use crate::decision::{Decision, Outcome};

/// A reply to a command hook or an HTTP hook: the body (stdout or HTTP body), the exit code a
/// command hook must exit with, and what goes to stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The JSON body; `None` means print nothing.
    pub body: Option<Value>,
    /// The command hook's exit code (`0`, or `2` where the agent blocks by exit code).
    pub exit_code: u8,
    /// Text for stderr (the block reason, for agents that read it there).
    pub stderr: Option<String>,
}

impl Reply {
    fn json(body: Value) -> Self {
        Self {
            body: Some(body),
            exit_code: 0,
            stderr: None,
        }
    }
}

/// Decodes an agent's event. Claude Code's and Codex's are read straight from the text
/// ([`HookEvent::from_slice`]).
pub fn decode(agent: Agent, body: &[u8]) -> Result<HookEvent, EventError> {
    decode_named(agent, None, body)
}

/// Decodes an agent's event that its hook's configuration names `configured` (a name
/// [`configured_event`] accepts): the event is that one when the body does not say which it is.
pub fn decode_named(
    agent: Agent,
    configured: Option<&str>,
    body: &[u8],
) -> Result<HookEvent, EventError> {
    match agent {
        Agent::ClaudeCode | Agent::Codex => Ok(as_sent_by(agent, HookEvent::from_slice(body)?)),
        _ => decode_value_named(agent, configured, super::json::parse_event(body)?),
    }
}

/// Copilot's camelCase events, by the names its hook configuration gives them (GitHub's hooks
/// reference, "Hook events"; `hook-protocols.md` §6.5).
pub const COPILOT_EVENTS: [&str; 14] = [
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "userPromptTransformed",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "permissionRequest",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "errorOccurred",
    "notification",
];

/// The event a hook's configuration names, for the agent whose events do not say which they
/// are: Copilot's camelCase payloads carry no event name (GitHub's hooks reference, "Hook event
/// input payloads"), so the hook entry must tell it (`?event=` on `/v1/evaluate/copilot`,
/// `toolgate hook --event`). Any other agent, or a name Copilot does not have, is an error that
/// says why.
pub fn configured_event(agent: Agent, name: &str) -> Result<&'static str, String> {
    if agent != Agent::Copilot {
        return Err(format!(
            "only copilot's events are named by the hook's configuration, not {}'s",
            agent.as_str()
        ));
    }
    COPILOT_EVENTS
        .into_iter()
        .find(|event| *event == name)
        .ok_or_else(|| {
            format!(
                "unknown copilot event `{}` (known: {})",
                name.chars().take(64).collect::<String>(),
                COPILOT_EVENTS.join(", ")
            )
        })
}

/// Strings longer than this are left out of an event's head ([`decode_head`]).
const HEAD_STRING_LIMIT: usize = 64 * 1024;

/// Decodes the head of an event too large to read whole (its first bytes, cut anywhere), so that
/// it can be answered in its agent's dialect without being evaluated. The head's top-level
/// members are kept: scalars as they are, strings up to [`HEAD_STRING_LIMIT`]; a longer string,
/// an object or an array stands in empty, as does the member the cut falls in (`tool_input` or
/// `command`, mostly). The content of objects and arrays is never read into memory.
pub fn decode_head(agent: Agent, head: &[u8]) -> Result<HookEvent, EventError> {
    decode_head_named(agent, None, head)
}

/// [`decode_head`] for a hook whose configuration names its event ([`decode_named`]).
pub fn decode_head_named(
    agent: Agent,
    configured: Option<&str>,
    head: &[u8],
) -> Result<HookEvent, EventError> {
    let mut members = Map::new();
    let mut json = serde_json::Deserializer::from_slice(head);
    // The cut ends the parse with an error; the members read before it stay.
    if Members(&mut members).deserialize(&mut json).is_err() && members.is_empty() {
        return Err(EventError::NotAnObject);
    }
    let event = decode_value_named(agent, configured, Value::Object(members))?;
    if event.event.is_empty() {
        // Cut inside the event's name.
        return Err(EventError::Missing("hook_event_name"));
    }
    Ok(event)
}

/// Collects an object's members into the map, as [`decode_head`] keeps them.
struct Members<'a>(&'a mut Map<String, Value>);

impl<'de> DeserializeSeed<'de> for Members<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Members<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            // A string until the value shows its kind: what stays if the cut falls in a string.
            let mut member = Value::String(String::new());
            let read = map.next_value_seed(Member(&mut member));
            self.0.insert(key, member);
            read?;
        }
        Ok(())
    }
}

/// One member's value as [`decode_head`] keeps it. An object or array is set (empty) as soon as
/// it opens, so that it stays when the cut falls inside it.
struct Member<'a>(&'a mut Value);

impl<'de> DeserializeSeed<'de> for Member<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<(), E> {
        *self.0 = Value::Bool(value);
        Ok(())
    }

    fn visit_i64<E>(self, value: i64) -> Result<(), E> {
        *self.0 = Value::from(value);
        Ok(())
    }

    fn visit_u64<E>(self, value: u64) -> Result<(), E> {
        *self.0 = Value::from(value);
        Ok(())
    }

    fn visit_f64<E>(self, value: f64) -> Result<(), E> {
        *self.0 = Value::from(value);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        *self.0 = Value::Null;
        Ok(())
    }

    fn visit_str<E>(self, value: &str) -> Result<(), E> {
        if value.len() <= HEAD_STRING_LIMIT {
            *self.0 = Value::String(value.to_owned());
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        *self.0 = Value::Object(Map::new());
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        *self.0 = Value::Array(Vec::new());
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// Decodes an agent's event from parsed JSON.
pub fn decode_value(agent: Agent, value: Value) -> Result<HookEvent, EventError> {
    decode_value_named(agent, None, value)
}

fn decode_value_named(
    agent: Agent,
    configured: Option<&str>,
    value: Value,
) -> Result<HookEvent, EventError> {
    let Value::Object(map) = value else {
        return Err(EventError::NotAnObject);
    };
    let event = match agent {
        Agent::ClaudeCode | Agent::Codex => HookEvent::from_value(Value::Object(map))?,
        Agent::Copilot => copilot(map, configured)?,
        Agent::VsCode => vscode(map)?,
        Agent::Cursor => cursor(map)?,
        Agent::Gemini => gemini(map)?,
        Agent::Cline => cline(map)?,
        Agent::Windsurf => windsurf(map)?,
    };
    Ok(as_sent_by(agent, event))
}

/// `event` as `agent` sent it: its tool named and its input shaped as Claude Code's.
fn as_sent_by(agent: Agent, mut event: HookEvent) -> HookEvent {
    if let Some(tool) = event.tool_name.take() {
        let (tool, input) = map_tool(agent, &tool, std::mem::take(&mut event.tool_input));
        event.tool_name = Some(tool);
        event.tool_input = input;
    }
    event.agent = agent;
    event
}

fn string(map: &Map<String, Value>, keys: &[&'static str]) -> Result<Option<String>, EventError> {
    for key in keys {
        match map.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => return Ok(Some(text.clone())),
            Some(_) => {
                return Err(EventError::WrongType {
                    field: key,
                    expected: "a string",
                });
            }
        }
    }
    Ok(None)
}

/// A tool-arguments field that is an object, or a string holding a JSON object.
fn arguments(map: &Map<String, Value>, keys: &[&'static str]) -> Result<Value, EventError> {
    for key in keys {
        match map.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::Object(args)) => return Ok(Value::Object(args.clone())),
            // No arguments (and what a too-large event's head holds when cut in this string).
            Some(Value::String(text)) if text.is_empty() => return Ok(json!({})),
            Some(Value::String(text)) => {
                return match super::json::parse(text.as_bytes()) {
                    Ok(Value::Object(args)) => Ok(Value::Object(args)),
                    _ => Err(EventError::WrongType {
                        field: key,
                        expected: "an object or a JSON object string",
                    }),
                };
            }
            Some(_) => {
                return Err(EventError::WrongType {
                    field: key,
                    expected: "an object",
                });
            }
        }
    }
    Ok(json!({}))
}

/// Whether any of the boolean fields `keys` is `true`.
fn flag(map: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter()
        .any(|key| matches!(map.get(*key), Some(Value::Bool(true))))
}

fn first_root(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key)
        .and_then(Value::as_array)
        .and_then(|roots| roots.first())
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Claude-equivalent names of the events the other agents send.
fn claude_event(name: &str) -> &str {
    match name {
        "preToolUse"
        | "BeforeTool"
        | "beforeShellExecution"
        | "beforeMCPExecution"
        | "beforeReadFile"
        | "pre_run_command"
        | "pre_write_code"
        | "pre_read_code"
        | "pre_mcp_tool_use" => "PreToolUse",
        "postToolUse"
        | "AfterTool"
        | "afterShellExecution"
        | "afterMCPExecution"
        | "afterFileEdit"
        | "post_run_command"
        | "post_write_code"
        | "post_read_code"
        | "post_mcp_tool_use" => "PostToolUse",
        "permissionRequest" => "PermissionRequest",
        "userPromptSubmitted" | "BeforeAgent" | "beforeSubmitPrompt" | "pre_user_prompt" => {
            "UserPromptSubmit"
        }
        "sessionStart" | "TaskStart" => "SessionStart",
        "sessionEnd" | "SessionEnd" => "SessionEnd",
        "agentStop" | "AfterAgent" | "stop" | "TaskComplete" => "Stop",
        "subagentStop" => "SubagentStop",
        "preCompact" | "PreCompress" => "PreCompact",
        other => other,
    }
}

fn base(native: &str) -> HookEvent {
    HookEvent {
        event: claude_event(native).to_owned(),
        native_event: Some(native.to_owned()),
        ..HookEvent::default()
    }
}

/// Copilot's event. A camelCase payload says nothing of which event it is, so the name comes
/// from the hook's configuration (`configured`), else `preToolUse`, what toolgate read every such
/// payload as before the configuration could say; a name in the body itself wins.
fn copilot(map: Map<String, Value>, configured: Option<&str>) -> Result<HookEvent, EventError> {
    if map.contains_key("hook_event_name") {
        // The PascalCase, VS Code-compatible dialect carries Claude's names already.
        return HookEvent::from_value(Value::Object(map));
    }
    let native = string(&map, &["hookEventName", "event"])?
        .unwrap_or_else(|| configured.unwrap_or("preToolUse").to_owned());
    let mut event = base(&native);
    event.session_id = string(&map, &["sessionId"])?;
    event.cwd = string(&map, &["cwd"])?;
    event.tool_name = string(&map, &["toolName"])?;
    event.tool_input = arguments(&map, &["toolArgs"])?;
    event.prompt = string(&map, &["prompt"])?;
    event.tool_response = map.get("toolResult").cloned();
    // agentStop says it in snake_case even in the camelCase dialect (GitHub's hooks reference,
    // "agentStop / Stop"); the camelCase spelling is read too.
    event.stop_hook_active = flag(&map, &["stop_hook_active", "stopHookActive"]);
    Ok(event)
}

fn vscode(map: Map<String, Value>) -> Result<HookEvent, EventError> {
    let native = string(&map, &["hookEventName", "hook_event_name"])?
        .ok_or(EventError::Missing("hookEventName"))?;
    let mut event = base(&native);
    event.session_id = string(&map, &["sessionId", "session_id"])?;
    event.cwd = string(&map, &["cwd"])?;
    event.transcript_path = string(&map, &["transcript_path", "transcriptPath"])?;
    event.home = home_of(event.transcript_path.as_deref());
    event.tool_name = string(&map, &["tool_name", "toolName"])?;
    event.tool_input = arguments(&map, &["tool_input", "toolInput"])?;
    event.tool_use_id = string(&map, &["tool_use_id", "toolUseId"])?;
    event.prompt = string(&map, &["prompt"])?;
    // Stop and SubagentStop: a block while it is set would keep the agent working for ever.
    event.stop_hook_active = flag(&map, &["stop_hook_active"]);
    Ok(event)
}

fn cursor(map: Map<String, Value>) -> Result<HookEvent, EventError> {
    let native =
        string(&map, &["hook_event_name"])?.ok_or(EventError::Missing("hook_event_name"))?;
    let mut event = base(&native);
    event.session_id = string(&map, &["conversation_id"])?;
    event.cwd = string(&map, &["cwd"])?.or_else(|| first_root(&map, "workspace_roots"));
    event.prompt = string(&map, &["prompt"])?;
    match native.as_str() {
        "beforeShellExecution" | "afterShellExecution" => {
            let command = string(&map, &["command"])?.ok_or(EventError::Missing("command"))?;
            event.tool_name = Some("Bash".to_owned());
            event.tool_input = json!({ "command": command });
        }
        "beforeReadFile" => {
            let path = string(&map, &["file_path"])?.ok_or(EventError::Missing("file_path"))?;
            event.tool_name = Some("Read".to_owned());
            event.tool_input = json!({ "file_path": path });
        }
        "afterFileEdit" => {
            event.tool_name = Some("Edit".to_owned());
            event.tool_input = json!({ "file_path": string(&map, &["file_path"])? });
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let tool = string(&map, &["tool_name"])?.ok_or(EventError::Missing("tool_name"))?;
            let server =
                string(&map, &["server_name", "server"])?.unwrap_or_else(|| "cursor".to_owned());
            event.tool_name = Some(if tool.starts_with("mcp__") {
                tool
            } else {
                format!("mcp__{server}__{tool}")
            });
            event.tool_input = arguments(&map, &["tool_input"])?;
        }
        _ => {
            event.tool_name = string(&map, &["tool_name"])?;
            event.tool_input = arguments(&map, &["tool_input"])?;
        }
    }
    Ok(event)
}

fn gemini(map: Map<String, Value>) -> Result<HookEvent, EventError> {
    let native =
        string(&map, &["hook_event_name"])?.ok_or(EventError::Missing("hook_event_name"))?;
    let mut event = base(&native);
    event.session_id = string(&map, &["session_id"])?;
    event.cwd = string(&map, &["cwd"])?;
    event.transcript_path = string(&map, &["transcript_path"])?;
    event.home = home_of(event.transcript_path.as_deref());
    event.tool_name = string(&map, &["tool_name"])?;
    event.tool_input = arguments(&map, &["tool_input"])?;
    event.prompt = string(&map, &["prompt"])?;
    event.tool_response = map.get("tool_response").cloned();
    Ok(event)
}

/// The home a transcript path implies ([`crate::paths::home_from_transcript`]).
fn home_of(transcript_path: Option<&str>) -> Option<String> {
    transcript_path
        .and_then(crate::paths::home_from_transcript)
        .map(str::to_owned)
}

fn cline(map: Map<String, Value>) -> Result<HookEvent, EventError> {
    let native = string(&map, &["hookName"])?.ok_or(EventError::Missing("hookName"))?;
    let mut event = base(&native);
    event.session_id = string(&map, &["taskId"])?;
    event.cwd = first_root(&map, "workspaceRoots");
    let key = format!(
        "{}{}",
        native.get(..1).unwrap_or("").to_ascii_lowercase(),
        native.get(1..).unwrap_or("")
    );
    if let Some(Value::Object(payload)) = map.get(&key) {
        event.tool_name = string(payload, &["toolName", "tool"])?;
        event.tool_input = arguments(payload, &["parameters", "params"])?;
        event.prompt = string(payload, &["prompt", "userMessage"])?;
        event.tool_response = payload.get("result").cloned();
    }
    Ok(event)
}

fn windsurf(map: Map<String, Value>) -> Result<HookEvent, EventError> {
    let native =
        string(&map, &["agent_action_name"])?.ok_or(EventError::Missing("agent_action_name"))?;
    let mut event = base(&native);
    event.session_id = string(&map, &["trajectory_id"])?;
    event.tool_use_id = string(&map, &["execution_id"])?;
    let info = match map.get("tool_info") {
        Some(Value::Object(info)) => info.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => {
            return Err(EventError::WrongType {
                field: "tool_info",
                expected: "an object",
            });
        }
    };
    event.cwd = string(&info, &["cwd"])?;
    match native.as_str() {
        "pre_run_command" | "post_run_command" => {
            event.tool_name = Some("Bash".to_owned());
            event.tool_input = json!({ "command": string(&info, &["command_line", "command"])?.unwrap_or_default() });
        }
        "pre_write_code" | "post_write_code" => {
            let new_string = info.get("edits").and_then(Value::as_array).map(|edits| {
                edits
                    .iter()
                    .filter_map(|edit| edit.get("new_string").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
            event.tool_name = Some("Edit".to_owned());
            event.tool_input = json!({ "file_path": string(&info, &["file_path"])?, "new_string": new_string.unwrap_or_default() });
        }
        "pre_read_code" | "post_read_code" => {
            event.tool_name = Some("Read".to_owned());
            event.tool_input = json!({ "file_path": string(&info, &["file_path"])? });
        }
        "pre_mcp_tool_use" | "post_mcp_tool_use" => {
            let server = string(&info, &["mcp_server_name", "server_name"])?
                .unwrap_or_else(|| "windsurf".to_owned());
            let tool = string(&info, &["mcp_tool_name", "tool_name"])?.unwrap_or_default();
            event.tool_name = Some(format!("mcp__{server}__{tool}"));
            event.tool_input = arguments(&info, &["mcp_tool_arguments", "arguments"])?;
        }
        "pre_user_prompt" => event.prompt = string(&info, &["user_prompt"])?,
        _ => {}
    }
    Ok(event)
}

/// Maps an agent's tool name and arguments to Claude Code's, where they mean the same thing.
fn map_tool(agent: Agent, tool: &str, input: Value) -> (String, Value) {
    let rename = |pairs: &[(&str, &str)], input: Value| -> Value {
        let Value::Object(mut map) = input else {
            return input;
        };
        for (from, to) in pairs {
            if !map.contains_key(*to)
                && let Some(value) = map.remove(*from)
            {
                map.insert((*to).to_owned(), value);
            }
        }
        Value::Object(map)
    };
    let path_keys: &[(&str, &str)] = &[
        ("path", "file_path"),
        ("filePath", "file_path"),
        ("absolute_path", "file_path"),
    ];
    let (name, input) = match (agent, tool) {
        (
            _,
            "bash" | "shell" | "run_shell_command" | "runTerminalCommand" | "run_in_terminal"
            | "execute_command",
        ) => ("Bash", rename(&[("commandLine", "command")], input)),
        (_, "view" | "read_file" | "readFile" | "read") => ("Read", rename(path_keys, input)),
        (_, "create" | "write_file" | "write_to_file" | "create_file" | "createFile") => (
            "Write",
            rename(
                &[
                    ("path", "file_path"),
                    ("filePath", "file_path"),
                    ("file_text", "content"),
                ],
                input,
            ),
        ),
        (
            _,
            "edit"
            | "replace"
            | "replace_in_file"
            | "replace_string_in_file"
            | "str_replace"
            | "editFiles",
        ) => (
            "Edit",
            rename(
                &[
                    ("path", "file_path"),
                    ("filePath", "file_path"),
                    ("old_str", "old_string"),
                    ("oldString", "old_string"),
                    ("new_str", "new_string"),
                    ("newString", "new_string"),
                    ("diff", "new_string"),
                ],
                input,
            ),
        ),
        (_, "apply_patch") => return apply_patch(input),
        (_, "grep" | "search_file_content" | "grep_search") => ("Grep", input),
        (_, "glob" | "list_directory" | "list_files") => ("Glob", input),
        (_, "web_fetch" | "fetch_webpage" | "fetch") => ("WebFetch", web_fetch_input(input)),
        (_, "google_web_search" | "web_search") => ("WebSearch", input),
        (_, "task") => ("Agent", input),
        (Agent::Cline, "use_mcp_tool") => {
            let server = input
                .get("server_name")
                .and_then(Value::as_str)
                .unwrap_or("cline")
                .to_owned();
            let tool = input
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let arguments = match input.get("arguments") {
                // Text that is no JSON object (a lone surrogate escape, say) is kept as it is,
                // so that rules on the input still see it.
                Some(Value::String(text)) => match super::json::parse(text.as_bytes()) {
                    Ok(args @ Value::Object(_)) => args,
                    _ => json!({ "arguments": text }),
                },
                Some(args) => args.clone(),
                None => json!({}),
            };
            return (format!("mcp__{server}__{tool}"), arguments);
        }
        _ => return (canonical_tool_name(tool).to_owned(), input),
    };
    (name.to_owned(), input)
}

/// Codex's `apply_patch` carries the patch text; the files it touches make it an Edit.
fn apply_patch(input: Value) -> (String, Value) {
    let patch = input
        .get("command")
        .or_else(|| input.get("patch"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let file = patch.lines().find_map(|line| {
        ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
    });
    (
        "Edit".to_owned(),
        json!({ "file_path": file.unwrap_or(""), "new_string": patch }),
    )
}

/// Gemini's and VS Code's fetch tools name the URL differently (or inside a prompt).
fn web_fetch_input(input: Value) -> Value {
    if input.get("url").is_some() {
        return input;
    }
    let url = input
        .get("urls")
        .and_then(Value::as_array)
        .and_then(|urls| urls.first())
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            input
                .get("prompt")
                .and_then(Value::as_str)
                .and_then(|prompt| {
                    prompt
                        .split_whitespace()
                        .find(|word| word.starts_with("http://") || word.starts_with("https://"))
                        .map(str::to_owned)
                })
        });
    let mut input = input;
    if let (Some(url), Value::Object(map)) = (url, &mut input) {
        map.insert("url".into(), json!(url));
    }
    input
}

/// The reason text for an agent that cannot ask: the block says confirmation is needed.
fn blocking_reason(decision: &Decision) -> String {
    let reason = reason_text(decision);
    if decision.outcome == Outcome::Ask {
        format!("confirmation required (this agent cannot ask): {reason}")
    } else {
        reason
    }
}

/// Renders a decision as `agent` expects it.
pub fn render(agent: Agent, event: &HookEvent, decision: &Decision) -> Reply {
    let blocks = matches!(decision.outcome, Outcome::Deny | Outcome::Ask);
    let reason = blocking_reason(decision);
    match agent {
        Agent::ClaudeCode | Agent::VsCode => Reply::json(super::render_claude(event, decision)),
        Agent::Codex => {
            // Codex's PreToolUse enforces only a deny; it takes an allow, an ask or
            // `additionalContext` for a failed hook, and a deny that comes with context is lost
            // with it (`hook-protocols.md` §6.2). So an ask is sent as a deny, an allow as no
            // opinion, and no context. Its PermissionRequest is answered as Claude Code's: an
            // ask leaves Codex's own approval prompt to the user.
            let mut strict = decision.clone();
            if event.event == "PreToolUse" {
                strict.additional_context = None;
                match strict.outcome {
                    Outcome::Ask => {
                        strict.outcome = Outcome::Deny;
                        strict.reason = Some(reason);
                    }
                    Outcome::Allow => strict.outcome = Outcome::None,
                    Outcome::Deny | Outcome::None => {}
                }
            }
            Reply::json(super::render_claude(event, &strict))
        }
        // Copilot CLI's `permissionRequest` answers with `behavior`, and exit 2 denies too; an
        // ask leaves the user's own prompt to decide. The PascalCase `PermissionRequest` takes
        // the same output (GitHub's hooks reference, "permissionRequest decision control"): a
        // `permissionDecision` there would be ignored, the deny lost.
        Agent::Copilot if event.event == "PermissionRequest" => match decision.outcome {
            Outcome::Deny => Reply {
                body: Some(json!({ "behavior": "deny", "message": reason })),
                exit_code: 2,
                stderr: Some(reason),
            },
            Outcome::Allow => Reply::json(json!({ "behavior": "allow" })),
            Outcome::Ask | Outcome::None => Reply::json(json!({})),
        },
        Agent::Copilot => {
            let mut body = Map::new();
            // agentStop and subagentStop block with `decision: "block"`, the reason being the
            // next turn's prompt (§6.5; GitHub's hooks reference, "agentStop / subagentStop
            // decision control"), as Claude Code's Stop does, and the same field says a block
            // already kept the turn going: that stop is let through, never blocked twice.
            let stop = matches!(event.event.as_str(), "Stop" | "SubagentStop")
                && !event.is_stop_kept_going();
            if (event.event == "UserPromptSubmit" || stop) && blocks {
                body.insert("decision".into(), json!("block"));
                body.insert("reason".into(), json!(reason));
            } else if event.is_gate() && decision.outcome != Outcome::None {
                body.insert(
                    "permissionDecision".into(),
                    json!(decision.outcome.as_str()),
                );
                body.insert(
                    "permissionDecisionReason".into(),
                    json!(reason_text(decision)),
                );
            }
            if let Some(context) = &decision.additional_context {
                body.insert("additionalContext".into(), json!(context));
            }
            Reply::json(Value::Object(body))
        }
        Agent::Cursor => {
            let native = event.native_event.as_deref().unwrap_or("");
            let body = match native {
                "beforeSubmitPrompt" if blocks => {
                    json!({ "continue": false, "user_message": reason })
                }
                "beforeSubmitPrompt" => json!({ "continue": true }),
                _ if !event.is_gate() => json!({}),
                // File reads have no ask in Cursor: ask becomes deny.
                "beforeReadFile" if blocks => {
                    json!({ "permission": "deny", "user_message": reason, "agent_message": reason })
                }
                _ => match decision.outcome {
                    Outcome::None => json!({}),
                    Outcome::Allow => json!({ "permission": "allow" }),
                    outcome => {
                        let reason = reason_text(decision);
                        json!({ "permission": outcome.as_str(), "user_message": reason, "agent_message": reason })
                    }
                },
            };
            Reply::json(body)
        }
        Agent::Gemini => {
            let mut body = Map::new();
            if blocks && (event.is_gate() || event.event == "UserPromptSubmit") {
                body.insert("decision".into(), json!("deny"));
                body.insert("reason".into(), json!(reason));
            } else if decision.outcome == Outcome::Allow {
                body.insert("decision".into(), json!("allow"));
            }
            if let Some(context) = &decision.additional_context {
                let name = event.native_event.as_deref().unwrap_or(&event.event);
                body.insert(
                    "hookSpecificOutput".into(),
                    json!({ "hookEventName": name, "additionalContext": context }),
                );
            }
            Reply::json(Value::Object(body))
        }
        Agent::Cline => {
            let mut body = Map::new();
            body.insert("cancel".into(), json!(blocks));
            if blocks {
                body.insert("errorMessage".into(), json!(reason));
            }
            if let Some(context) = &decision.additional_context {
                body.insert("contextModification".into(), json!(context));
            }
            Reply::json(Value::Object(body))
        }
        Agent::Windsurf => {
            if blocks
                && event
                    .native_event
                    .as_deref()
                    .is_some_and(|name| name.starts_with("pre_"))
            {
                Reply {
                    body: None,
                    exit_code: 2,
                    stderr: Some(reason),
                }
            } else {
                Reply {
                    body: None,
                    exit_code: 0,
                    stderr: None,
                }
            }
        }
    }
}
