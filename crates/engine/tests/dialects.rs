//! Every agent's dialect: a real event of each agent (fixtures from the reference) decoded,
//! evaluated against one Claude-Code-terms bundle, and rendered — for deny, ask, allow and no
//! opinion — then checked against that agent's reply schema.

use serde_json::{Value, json};
use toolgate_engine::protocol::{
    Agent, COPILOT_EVENTS, configured_event, decode_head, decode_head_named, decode_named,
    decode_value, render,
};
use toolgate_engine::{Bundle, CompiledPolicy, Outcome, evaluate};

fn fixtures() -> Value {
    serde_json::from_str(include_str!("dialects/fixtures.json")).expect("fixtures are JSON")
}

fn schemas() -> Value {
    serde_json::from_str(include_str!("dialects/schemas.json")).expect("schemas are JSON")
}

fn policy() -> CompiledPolicy {
    let bundle = Bundle::from_value(json!({
        "name": "every-agent",
        "permissions": { "deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"], "allow": ["Bash(ls *)"] }
    }))
    .expect("valid");
    CompiledPolicy::compile(&bundle).expect("compiles")
}

fn event_for(agent: Agent, command: &str) -> Value {
    let template = fixtures()[agent.as_str()].to_string();
    let escaped = serde_json::to_string(command).expect("string");
    let inner = escaped.trim_matches('"');
    // Copilot's toolArgs is a JSON string inside JSON: escape once more there.
    let inner = if agent == Agent::Copilot {
        serde_json::to_string(inner)
            .expect("string")
            .trim_matches('"')
            .to_owned()
    } else {
        inner.to_owned()
    };
    serde_json::from_str(&template.replace("COMMAND", &inner)).expect("fixture stays JSON")
}

/// Checks a reply body against the agent's schema: only known keys, known enum values.
fn check_schema(agent: Agent, body: &Value) {
    let schema = &schemas()[agent.as_str()];
    let object = body
        .as_object()
        .unwrap_or_else(|| panic!("{}: reply must be an object: {body}", agent.as_str()));
    let allowed: Vec<&str> = schema["top"]
        .as_array()
        .expect("top")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for (key, value) in object {
        assert!(
            allowed.contains(&key.as_str()),
            "{}: unknown key `{key}` in {body}",
            agent.as_str()
        );
        // What `toolgate hook` accepts from a server must cover what the engine renders.
        assert!(
            agent.reply_keys().contains(&key.as_str()),
            "{}: `{key}` is missing from Agent::reply_keys",
            agent.as_str()
        );
        if let Some(values) = schema["enums"].get(key).and_then(Value::as_array) {
            assert!(
                values.contains(value),
                "{}: `{key}` = {value} not in {values:?}",
                agent.as_str()
            );
        }
    }
    if let Some(specific) = object.get("hookSpecificOutput") {
        let allowed: Vec<&str> = schema["hookSpecificOutput"]
            .as_array()
            .expect("nested")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for (key, value) in specific.as_object().expect("object") {
            assert!(
                allowed.contains(&key.as_str()),
                "{}: unknown key `hookSpecificOutput.{key}`",
                agent.as_str()
            );
            if let Some(values) = schema["enums"].get(key).and_then(Value::as_array) {
                assert!(
                    values.contains(value),
                    "{}: `{key}` = {value} not in {values:?}",
                    agent.as_str()
                );
            }
        }
        assert!(
            specific.get("hookEventName").is_some(),
            "{}: hookSpecificOutput needs hookEventName",
            agent.as_str()
        );
    }
}

/// What each agent must receive for each outcome.
fn expected(agent: Agent, outcome: Outcome) -> (Option<Value>, u8) {
    let claude = |decision: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": "*"}});
    match (agent, outcome) {
        (_, Outcome::None) if agent == Agent::Windsurf => (None, 0),
        (Agent::Cline, Outcome::None | Outcome::Allow) => (Some(json!({"cancel": false})), 0),
        (_, Outcome::None) => (Some(json!({})), 0),
        (Agent::ClaudeCode | Agent::VsCode, outcome) => (Some(claude(outcome.as_str())), 0),
        (Agent::Codex, Outcome::Ask) => (Some(claude("deny")), 0),
        // Codex takes an allow for a failed hook: no opinion is what it enforces anyway.
        (Agent::Codex, Outcome::Allow) => (Some(json!({})), 0),
        (Agent::Codex, outcome) => (Some(claude(outcome.as_str())), 0),
        (Agent::Copilot, outcome) => (
            Some(json!({"permissionDecision": outcome.as_str(), "permissionDecisionReason": "*"})),
            0,
        ),
        (Agent::Cursor, Outcome::Allow) => (Some(json!({"permission": "allow"})), 0),
        (Agent::Cursor, outcome) => (
            Some(
                json!({"permission": outcome.as_str(), "user_message": "*", "agent_message": "*"}),
            ),
            0,
        ),
        (Agent::Gemini, Outcome::Allow) => (Some(json!({"decision": "allow"})), 0),
        (Agent::Gemini, _) => (Some(json!({"decision": "deny", "reason": "*"})), 0),
        (Agent::Cline, _) => (Some(json!({"cancel": true, "errorMessage": "*"})), 0),
        (Agent::Windsurf, Outcome::Allow) => (None, 0),
        (Agent::Windsurf, _) => (None, 2),
    }
}

fn matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(star), Value::String(_)) if star == "*" => true,
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, v)| a.get(k).is_some_and(|a| matches(v, a)))
        }
        _ => expected == actual,
    }
}

#[test]
fn every_agent_gets_every_outcome_in_its_own_schema() {
    let policy = policy();
    let cases = [
        ("rm -rf build", Outcome::Deny),
        ("git push origin main", Outcome::Ask),
        ("ls -la", Outcome::Allow),
        ("make", Outcome::None),
    ];
    for agent in Agent::ALL {
        for (command, outcome) in cases {
            let event = decode_value(agent, event_for(agent, command))
                .unwrap_or_else(|e| panic!("{}: fixture does not decode: {e}", agent.as_str()));
            assert_eq!(
                event.tool_name.as_deref(),
                Some("Bash"),
                "{}: shell tool maps to Bash",
                agent.as_str()
            );
            assert_eq!(event.event, "PreToolUse", "{}", agent.as_str());
            let decision = evaluate(&policy, &event);
            assert_eq!(decision.outcome, outcome, "{}: `{command}`", agent.as_str());
            let reply = render(agent, &event, &decision);
            let (body, exit_code) = expected(agent, outcome);
            assert_eq!(
                reply.exit_code,
                exit_code,
                "{}: exit code for {outcome}",
                agent.as_str()
            );
            match (&body, &reply.body) {
                (None, None) => {}
                (Some(expected), Some(actual)) => {
                    assert!(
                        matches(expected, actual),
                        "{} {outcome}: expected {expected}, got {actual}",
                        agent.as_str()
                    );
                    check_schema(agent, actual);
                }
                _ => panic!(
                    "{} {outcome}: expected body {body:?}, got {:?}",
                    agent.as_str(),
                    reply.body
                ),
            }
            if exit_code == 2 {
                assert!(
                    reply
                        .stderr
                        .as_deref()
                        .is_some_and(|reason| !reason.is_empty()),
                    "{}: reason on stderr",
                    agent.as_str()
                );
            }
        }
    }
}

/// The event's JSON text with the member holding the command last, as the agents send it (the
/// event's name and ids first, the tool's input after them).
fn big_member_last(event: &Value) -> Vec<u8> {
    let (big, small): (Vec<_>, Vec<_>) = event
        .as_object()
        .expect("an object")
        .iter()
        .map(|(key, value)| (key, serde_json::to_string(value).expect("JSON")))
        .partition(|(_, value)| value.contains("xxxxxxxxxx"));
    let members: Vec<String> = small
        .into_iter()
        .chain(big)
        .map(|(key, value)| format!("{key:?}:{value}"))
        .collect();
    format!("{{{}}}", members.join(",")).into_bytes()
}

/// An event too large to read whole is answered from its head: the reply to the head, cut in the
/// middle of the command, is the reply to the whole event.
#[test]
fn a_head_cut_inside_the_command_is_answered_like_the_whole_event() {
    let policy = policy();
    let command = format!("rm -rf build {}", "x".repeat(200_000));
    for agent in Agent::ALL {
        let small = decode_value(agent, event_for(agent, "rm -rf build")).expect("decodes");
        let decision = evaluate(&policy, &small);
        assert_eq!(decision.outcome, Outcome::Deny, "{}", agent.as_str());
        let whole = decode_value(agent, event_for(agent, &command)).expect("fixture decodes");
        let body = big_member_last(&event_for(agent, &command));
        let at = body
            .windows(10)
            .position(|window| window == b"xxxxxxxxxx")
            .expect("the command is in the body");
        let head = body.get(..at + 100_000).expect("cut inside the command");
        let cut = decode_head(agent, head)
            .unwrap_or_else(|e| panic!("{}: head does not decode: {e}", agent.as_str()));
        assert_eq!(cut.event, whole.event, "{}", agent.as_str());
        assert_eq!(cut.session_id, whole.session_id, "{}", agent.as_str());
        assert_eq!(
            render(agent, &cut, &decision),
            render(agent, &whole, &decision),
            "{}",
            agent.as_str()
        );
    }
}

#[test]
fn a_head_that_is_no_event_is_an_error() {
    let heads: [&[u8]; 5] = [
        b"",
        b"[1, 2",
        br#"{"session_id": "s", "tool_input": {"command": "rm -rf /"#,
        br#"{"session_id": "s", "hook_event_name": "PreTool"#,
        br#"{"hook_event_name": 3, "tool_input": {"#,
    ];
    for head in heads {
        let error = decode_head(Agent::ClaudeCode, head);
        assert!(error.is_err(), "{}", String::from_utf8_lossy(head));
    }
    let deep = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_input":{{"a":{}"#,
        "[".repeat(100_000)
    );
    let event = decode_head(Agent::ClaudeCode, deep.as_bytes()).expect("decodes");
    assert_eq!(event.event, "PreToolUse");
}

#[test]
fn file_and_mcp_tools_map_to_claude_names() {
    let cases = [
        (
            Agent::Cursor,
            json!({"hook_event_name": "beforeReadFile", "file_path": "/p/.env", "content": "", "workspace_roots": ["/p"]}),
            "Read",
        ),
        (
            Agent::Gemini,
            json!({"hook_event_name": "BeforeTool", "cwd": "/p", "tool_name": "read_file", "tool_input": {"absolute_path": "/p/.env"}}),
            "Read",
        ),
        (
            Agent::Gemini,
            json!({"hook_event_name": "BeforeTool", "cwd": "/p", "tool_name": "write_file", "tool_input": {"file_path": "/p/a", "content": "x"}}),
            "Write",
        ),
        (
            Agent::Copilot,
            json!({"cwd": "/p", "toolName": "view", "toolArgs": {"path": "/p/.env"}}),
            "Read",
        ),
        (
            Agent::Copilot,
            json!({"cwd": "/p", "toolName": "edit", "toolArgs": {"path": "/p/a", "old_str": "a", "new_str": "b"}}),
            "Edit",
        ),
        (
            Agent::VsCode,
            json!({"hookEventName": "PreToolUse", "cwd": "/p", "tool_name": "replace_string_in_file", "tool_input": {"filePath": "/p/a", "oldString": "a", "newString": "b"}}),
            "Edit",
        ),
        (
            Agent::Cline,
            json!({"hookName": "PreToolUse", "workspaceRoots": ["/p"], "preToolUse": {"toolName": "write_to_file", "parameters": {"path": "/p/a", "content": "x"}}}),
            "Write",
        ),
        (
            Agent::Windsurf,
            json!({"agent_action_name": "pre_read_code", "tool_info": {"file_path": "/p/.env"}}),
            "Read",
        ),
        (
            Agent::Codex,
            json!({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "apply_patch", "tool_input": {"command": "*** Begin Patch\n*** Update File: /p/a\n@@\n-a\n+b\n*** End Patch"}}),
            "Edit",
        ),
    ];
    for (agent, raw, tool) in cases {
        let event = decode_value(agent, raw).unwrap_or_else(|e| panic!("{}: {e}", agent.as_str()));
        assert_eq!(event.tool_name.as_deref(), Some(tool), "{}", agent.as_str());
        let path = event.input_str("file_path").unwrap_or_default();
        assert!(
            path.starts_with("/p/"),
            "{}: file_path mapped, got {:?}",
            agent.as_str(),
            event.tool_input
        );
    }
    let mcp = decode_value(
        Agent::Cline,
        json!({"hookName": "PreToolUse", "preToolUse": {"toolName": "use_mcp_tool", "parameters": {"server_name": "github", "tool_name": "create_issue", "arguments": "{\"title\":\"x\"}"}}}),
    )
    .expect("decodes");
    assert_eq!(mcp.tool_name.as_deref(), Some("mcp__github__create_issue"));
    assert_eq!(mcp.tool_input["title"], "x");
    // A lone surrogate escape reads as U+FFFD; arguments that do not parse are kept as text.
    let cline = |arguments: &str| {
        decode_value(
            Agent::Cline,
            json!({"hookName": "PreToolUse", "preToolUse": {"toolName": "use_mcp_tool", "parameters": {"server_name": "db", "tool_name": "query", "arguments": arguments}}}),
        )
        .expect("decodes")
        .tool_input
    };
    assert_eq!(
        cline(r#"{"sql":"drop table users \ud800"}"#),
        json!({"sql": "drop table users \u{fffd}"})
    );
    assert_eq!(
        cline(r#"{"sql":"drop table users"#),
        json!({"arguments": r#"{"sql":"drop table users"#})
    );
}

#[test]
fn prompts_are_blocked_in_each_agents_way() {
    let bundle = Bundle::from_value(json!({
        "name": "prompts",
        "rules": [{"id": "no-prod-talk", "events": ["UserPromptSubmit"], "content": "(?i)drop database", "decision": "deny", "reason": "not here"}]
    }))
    .expect("valid");
    let policy = CompiledPolicy::compile(&bundle).expect("compiles");
    let cursor = decode_value(Agent::Cursor, json!({"hook_event_name": "beforeSubmitPrompt", "prompt": "please DROP DATABASE prod", "workspace_roots": ["/p"]})).expect("decodes");
    let reply = render(Agent::Cursor, &cursor, &evaluate(&policy, &cursor));
    assert_eq!(
        reply.body,
        Some(json!({"continue": false, "user_message": "not here"}))
    );
    let windsurf = decode_value(Agent::Windsurf, json!({"agent_action_name": "pre_user_prompt", "tool_info": {"user_prompt": "drop database now"}})).expect("decodes");
    let reply = render(Agent::Windsurf, &windsurf, &evaluate(&policy, &windsurf));
    assert_eq!(
        (reply.exit_code, reply.stderr.as_deref()),
        (2, Some("not here"))
    );
}

/// Copilot CLI's `permissionRequest` is answered with `behavior` (and exit 2 for a deny), not
/// with the `permissionDecision` of its `preToolUse`.
#[test]
fn copilot_permission_requests_are_answered_with_a_behavior() {
    let request = |command: &str| {
        json!({"hookEventName": "permissionRequest", "timestamp": 1760000000000_u64,
               "cwd": "/home/user/my-project", "toolName": "bash",
               "toolArgs": serde_json::to_string(&json!({"command": command})).expect("json")})
    };
    let policy = policy();
    let reply = |command: &str| {
        let event = decode_value(Agent::Copilot, request(command)).expect("decodes");
        render(Agent::Copilot, &event, &evaluate(&policy, &event))
    };
    let denied = reply("rm -rf build");
    assert_eq!(denied.exit_code, 2);
    let body = denied.body.expect("a body");
    assert_eq!(body["behavior"], "deny", "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    let allowed = reply("ls -la").body.expect("a body");
    assert_eq!(allowed, json!({"behavior": "allow"}));
    assert_eq!(
        reply("git push origin x").body,
        Some(json!({})),
        "ask: the user decides"
    );
    assert_eq!(reply("make").body, Some(json!({})));
    // A lone surrogate escape in the arguments' JSON reads as U+FFFD, not as a broken event.
    let event = json!({"hookEventName": "permissionRequest", "cwd": "/home/user/my-project",
                       "toolName": "bash", "toolArgs": r#"{"command":"rm -rf build \ud800"}"#});
    let event = decode_value(Agent::Copilot, event).expect("decodes");
    assert_eq!(event.input_str("command"), Some("rm -rf build \u{fffd}"));
}

#[test]
fn the_home_comes_from_each_agents_transcript_path() {
    let cases = [
        (
            Agent::Gemini,
            json!({"hook_event_name": "BeforeTool", "cwd": "/home/ann/p", "tool_name": "read_file",
                   "transcript_path": "/home/ann/.gemini/tmp/3f2a/chats/session-1.json",
                   "tool_input": {"absolute_path": "/home/ann/p/a.txt"}}),
        ),
        (
            Agent::Codex,
            json!({"hook_event_name": "PreToolUse", "cwd": "/home/ann/p", "tool_name": "Bash",
                   "transcript_path": "/home/ann/.codex/sessions/2026/11/24/rollout-1.jsonl",
                   "tool_input": {"command": "ls"}}),
        ),
        (
            Agent::VsCode,
            json!({"hookEventName": "PreToolUse", "cwd": "/home/ann/p", "tool_name": "Bash",
                   "transcript_path": "/home/ann/.claude/projects/p/s.jsonl",
                   "tool_input": {"command": "ls"}}),
        ),
    ];
    for (agent, body) in cases {
        let event = decode_value(agent, body).expect("decodes");
        assert_eq!(event.home.as_deref(), Some("/home/ann"), "{agent:?}");
    }
}

/// The reason-carrying members of a reply, at any depth.
fn reasons(body: &Value) -> Vec<String> {
    const KEYS: [&str; 6] = [
        "permissionDecisionReason",
        "reason",
        "message",
        "user_message",
        "agent_message",
        "errorMessage",
    ];
    let mut found = Vec::new();
    if let Value::Object(map) = body {
        for (key, value) in map {
            match value {
                Value::String(text) if KEYS.contains(&key.as_str()) => found.push(text.clone()),
                _ => found.extend(reasons(value)),
            }
        }
    }
    found
}

/// A deny, or an ask sent as a block, whose rule gave no reason (or a blank one) still carries a
/// reason: Copilot requires `permissionDecisionReason` with a deny (`hook-protocols.md` §6.5),
/// Claude Code requires one with a Stop block (§4.4), and Codex drops a deny whose reason is
/// blank.
#[test]
fn a_block_always_carries_a_reason() {
    let stop = json!({"hook_event_name": "Stop", "stop_hook_active": false});
    let permission = json!({"hookEventName": "permissionRequest", "cwd": "/p", "toolName": "bash",
                            "toolArgs": "{\"command\":\"rm -rf build\"}"});
    let mut events: Vec<(Agent, Value)> = Agent::ALL
        .into_iter()
        .map(|agent| (agent, event_for(agent, "rm -rf build")))
        .collect();
    events.push((Agent::ClaudeCode, stop.clone()));
    events.push((Agent::Codex, stop));
    events.push((Agent::Copilot, permission));
    for (agent, raw) in events {
        let event = decode_value(agent, raw).expect("decodes");
        for (outcome, reason) in [
            (Outcome::Deny, None),
            (Outcome::Deny, Some("")),
            (Outcome::Deny, Some(" \n")),
            (Outcome::Ask, None),
            (Outcome::Ask, Some("")),
        ] {
            let decision = toolgate_engine::Decision {
                outcome,
                reason: reason.map(str::to_owned),
                ..toolgate_engine::Decision::none()
            };
            let reply = render(agent, &event, &decision);
            let label = format!("{} {} {outcome} {reason:?}", agent.as_str(), event.event);
            let mut texts = reply.body.as_ref().map(reasons).unwrap_or_default();
            texts.extend(reply.stderr.clone());
            if texts.is_empty() {
                // Only an ask may be no block: the agent asks the user itself.
                assert_eq!(outcome, Outcome::Ask, "{label}: no reason in {reply:?}");
                continue;
            }
            for text in texts {
                assert!(
                    !text.trim().is_empty(),
                    "{label}: blank reason in {reply:?}"
                );
            }
        }
    }
}

/// Codex's PreToolUse enforces only a deny, and takes a reply with an allow, an ask or
/// `additionalContext` for a failed hook, deny and all (`hook-protocols.md` §6.2): its deny
/// carries no context, its allow is no opinion. Its PermissionRequest, the approval prompt
/// itself, is answered as Claude Code's.
#[test]
fn codex_gets_only_what_it_enforces() {
    let bundle = Bundle::from_value(json!({
        "name": "codex",
        "permissions": { "ask": ["Bash(git push:*)"], "allow": ["Bash(ls *)"] },
        "rules": [{"id": "no-rm", "tool": "Bash", "content": "rm -rf", "decision": "deny",
                   "reason": "no", "additional_context": "rm is off limits here"}]
    }))
    .expect("valid");
    let policy = CompiledPolicy::compile(&bundle).expect("compiles");
    let reply = |event: &str, command: &str| {
        let raw = json!({"hook_event_name": event, "cwd": "/p", "tool_name": "Bash",
                         "tool_input": {"command": command}, "turn_id": "t1"});
        let event = decode_value(Agent::Codex, raw).expect("decodes");
        let decision = evaluate(&policy, &event);
        render(Agent::Codex, &event, &decision)
            .body
            .expect("a body")
    };
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no"}});
    assert_eq!(reply("PreToolUse", "rm -rf build"), deny);
    assert_eq!(reply("PreToolUse", "ls -la"), json!({}));
    let ask = reply("PreToolUse", "git push origin main");
    assert_eq!(
        ask["hookSpecificOutput"]["permissionDecision"], "deny",
        "{ask}"
    );
    assert_eq!(
        reply("PermissionRequest", "git push origin main"),
        json!({})
    );
    let denied = reply("PermissionRequest", "rm -rf build");
    assert_eq!(
        denied["hookSpecificOutput"]["decision"],
        json!({"behavior": "deny", "message": "no"})
    );
    // Claude Code gets the context beside its deny.
    let raw = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "rm -rf build"}});
    let event = decode_value(Agent::ClaudeCode, raw).expect("decodes");
    let claude = render(Agent::ClaudeCode, &event, &evaluate(&policy, &event));
    let body = claude.body.expect("a body");
    assert_eq!(
        body["hookSpecificOutput"]["additionalContext"],
        "rm is off limits here"
    );
}

/// VS Code's Stop says `stop_hook_active` as Claude Code's does, and its replies are Claude Code's
/// (`hook-protocols.md` §6.6): a Stop that a block already kept going is not blocked again (§8.9).
#[test]
fn a_vscode_stop_is_never_blocked_twice() {
    let bundle = Bundle::from_value(json!({
        "name": "stop",
        "rules": [{"id": "tests-first", "events": ["Stop"], "tool": ".*", "decision": "deny",
                   "reason": "run the tests"}]
    }))
    .expect("valid");
    let policy = CompiledPolicy::compile(&bundle).expect("compiles");
    let reply = |active: bool| {
        let raw = json!({"hookEventName": "Stop", "sessionId": "vs-1", "cwd": "/p",
                         "timestamp": "2026-11-22T00:00:00.000Z", "stop_hook_active": active});
        let event = decode_value(Agent::VsCode, raw).expect("decodes");
        render(Agent::VsCode, &event, &evaluate(&policy, &event)).body
    };
    assert_eq!(
        reply(false),
        Some(json!({"decision": "block", "reason": "run the tests"}))
    );
    assert_eq!(reply(true), Some(json!({})));
}

/// Copilot's agentStop and subagentStop block with `decision: "block"` and the reason as the next
/// turn's prompt (`hook-protocols.md` §6.5, GitHub's hooks reference), in either dialect; a stop
/// that a block already kept going (`stop_hook_active`) is let through, never blocked twice.
#[test]
fn copilot_stops_are_blocked_once() {
    let bundle = Bundle::from_value(json!({
        "name": "stop",
        "rules": [{"id": "tests-first", "events": ["Stop", "SubagentStop"], "tool": ".*",
                   "decision": "deny", "reason": "run the tests"}]
    }))
    .expect("valid");
    let policy = CompiledPolicy::compile(&bundle).expect("compiles");
    let camel = |name: &str, active: bool| {
        json!({"hookEventName": name, "sessionId": "c-1", "timestamp": 1767225600000_u64,
               "cwd": "/p", "transcriptPath": "/p/t.jsonl", "stopReason": "end_turn",
               "stop_hook_active": active})
    };
    let pascal = |name: &str, active: bool| {
        json!({"hook_event_name": name, "session_id": "c-1", "timestamp": "2026-11-22T00:00:00.000Z",
               "cwd": "/p", "transcript_path": "/p/t.jsonl", "stop_reason": "end_turn",
               "stop_hook_active": active})
    };
    let block = json!({"decision": "block", "reason": "run the tests"});
    for (raw, stop) in [
        (camel("agentStop", false), "Stop"),
        (camel("subagentStop", false), "SubagentStop"),
        (pascal("Stop", false), "Stop"),
        (pascal("SubagentStop", false), "SubagentStop"),
    ] {
        let event = decode_value(Agent::Copilot, raw.clone()).expect("decodes");
        assert_eq!(event.event, stop, "{raw}");
        let reply = render(Agent::Copilot, &event, &evaluate(&policy, &event));
        let body = reply.body.expect("a body");
        check_schema(Agent::Copilot, &body);
        assert_eq!((body, reply.exit_code), (block.clone(), 0), "{raw}");
    }
    for raw in [
        camel("agentStop", true),
        pascal("Stop", true),
        json!({"hookEventName": "agentStop", "cwd": "/p", "stopHookActive": true}),
    ] {
        let event = decode_value(Agent::Copilot, raw.clone()).expect("decodes");
        let reply = render(Agent::Copilot, &event, &evaluate(&policy, &event));
        assert_eq!(reply.body, Some(json!({})), "{raw}");
    }
}

/// Copilot's camelCase payloads do not say which event they are (GitHub's hooks reference): the
/// hook's configuration names it, and each event is then read, and answered, as that event. A
/// permissionRequest gets its `behavior`, not the `permissionDecision` it would ignore.
#[test]
fn copilot_events_are_named_by_the_hooks_configuration() {
    let policy = policy();
    let body = |command: &str| {
        json!({"sessionId": "c-1", "timestamp": 1767225600000_u64, "cwd": "/p", "toolName": "bash",
               "toolArgs": serde_json::to_string(&json!({"command": command})).expect("json")})
        .to_string()
        .into_bytes()
    };
    let reply = |configured: Option<&str>, command: &str| {
        let event = decode_named(Agent::Copilot, configured, &body(command)).expect("decodes");
        let reply = render(Agent::Copilot, &event, &evaluate(&policy, &event));
        (
            event.event.clone(),
            reply.body.expect("a body"),
            reply.exit_code,
        )
    };
    let (name, denied, code) = reply(Some("permissionRequest"), "rm -rf build");
    assert_eq!(name, "PermissionRequest");
    assert_eq!(
        (denied["behavior"].as_str(), code),
        (Some("deny"), 2),
        "{denied}"
    );
    assert!(denied.get("permissionDecision").is_none(), "{denied}");
    // Unnamed, it is read as before: a preToolUse.
    let (name, denied, _) = reply(None, "rm -rf build");
    assert_eq!(
        (name.as_str(), &denied["permissionDecision"]),
        ("PreToolUse", &json!("deny"))
    );
    for (configured, event) in [
        ("postToolUse", "PostToolUse"),
        ("userPromptSubmitted", "UserPromptSubmit"),
        ("agentStop", "Stop"),
        ("subagentStop", "SubagentStop"),
        ("sessionStart", "SessionStart"),
        ("preCompact", "PreCompact"),
    ] {
        let (name, body, _) = reply(Some(configured), "rm -rf build");
        assert_eq!(name, event, "{configured}");
        // Permission rules gate tool calls only: no permissionDecision on any other event.
        assert_eq!(body, json!({}), "{configured}");
    }
    // A name the body gives itself wins over the configured one.
    let named = json!({"hookEventName": "preToolUse", "cwd": "/p", "toolName": "bash",
                       "toolArgs": "{\"command\":\"ls\"}"});
    let event = decode_named(
        Agent::Copilot,
        Some("postToolUse"),
        named.to_string().as_bytes(),
    )
    .expect("decodes");
    assert_eq!(event.event, "PreToolUse");
    // An event too large to read whole is named so too.
    let head = &body("rm -rf build")[..60];
    let event = decode_head_named(Agent::Copilot, Some("permissionRequest"), head).expect("head");
    assert_eq!(event.event, "PermissionRequest");
    // Every Copilot event is accepted; anything else, and any other agent, is not.
    for name in COPILOT_EVENTS {
        assert_eq!(configured_event(Agent::Copilot, name), Ok(name));
    }
    let unknown = configured_event(Agent::Copilot, "PreToolUse").unwrap_err();
    assert!(
        unknown.contains("unknown copilot event `PreToolUse`"),
        "{unknown}"
    );
    assert!(configured_event(Agent::Cursor, "preToolUse").is_err());
}

/// The PascalCase `PermissionRequest` takes the same `behavior` output as the camelCase one
/// (GitHub's hooks reference, "permissionRequest decision control").
#[test]
fn a_pascal_case_copilot_permission_request_is_answered_with_a_behavior() {
    let policy = policy();
    let raw = json!({"hook_event_name": "PermissionRequest", "session_id": "c-1", "cwd": "/p",
                     "timestamp": "2026-11-22T00:00:00.000Z", "tool_name": "Bash",
                     "tool_input": {"command": "rm -rf build"}});
    let event = decode_value(Agent::Copilot, raw).expect("decodes");
    let reply = render(Agent::Copilot, &event, &evaluate(&policy, &event));
    let body = reply.body.expect("a body");
    assert_eq!(
        (body["behavior"].as_str(), reply.exit_code),
        (Some("deny"), 2),
        "{body}"
    );
}
