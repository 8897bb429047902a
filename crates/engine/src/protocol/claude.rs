//! Claude Code's hook reply shapes (`hook-protocols.md` §4).

use serde_json::{Map, Value, json};

use super::HookEvent;
use crate::decision::{Decision, Outcome};

/// Events whose block is a top-level `{"decision":"block","reason":…}`.
const TOP_LEVEL_BLOCK_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Stop",
    "SubagentStop",
    "ConfigChange",
    "PreCompact",
    "TaskCreated",
];

/// Events with no `decision` field whose block is `{"continue":false,"stopReason":…}`
/// (`hook-protocols.md` §4.4). Their other block, exit code 2, keeps the teammate working with the
/// reason as feedback (§5); `continue: false` stops it (§4.1: it takes precedence over every event
/// decision). toolgate sends `continue: false`, over HTTP and from the command hook alike: an HTTP
/// hook has no exit code to block with (§3.4), so it is the one block that works on both
/// transports and through `toolgate hook --url`, which relays the server's JSON; and it is the
/// fail-closed one, as a teammate that is stopped cannot finish the task or loop, where exit 2
/// would send a denied TeammateIdle back to work to go idle and be denied again, with no
/// `stop_hook_active` to end it.
const CONTINUE_FALSE_EVENTS: &[&str] = &["TaskCompleted", "TeammateIdle"];

/// Events that accept `hookSpecificOutput.additionalContext`.
const CONTEXT_EVENTS: &[&str] = &[
    "PreToolUse",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "SessionStart",
    "SubagentStart",
];

/// Renders `decision` as the JSON body Claude Code expects for `event`. No opinion is `{}`.
pub fn render_claude(event: &HookEvent, decision: &Decision) -> Value {
    let name = event.event.as_str();
    let reason = reason_text(decision);
    let context = decision
        .additional_context
        .as_deref()
        .filter(|_| CONTEXT_EVENTS.contains(&name));
    let mut reply = Map::new();
    match name {
        "PreToolUse" => {
            let mut specific = Map::new();
            specific.insert("hookEventName".into(), json!("PreToolUse"));
            if decision.outcome != Outcome::None {
                specific.insert(
                    "permissionDecision".into(),
                    json!(decision.outcome.as_str()),
                );
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            if let Some(context) = context {
                specific.insert("additionalContext".into(), json!(context));
            }
            if specific.len() > 1 {
                reply.insert("hookSpecificOutput".into(), Value::Object(specific));
            }
        }
        "PermissionRequest" => {
            let decision = match decision.outcome {
                Outcome::Deny => Some(json!({ "behavior": "deny", "message": reason })),
                Outcome::Allow => Some(json!({ "behavior": "allow" })),
                // `ask` is what a permission request already is: let the dialog show.
                Outcome::Ask | Outcome::None => None,
            };
            if let Some(decision) = decision {
                reply.insert(
                    "hookSpecificOutput".into(),
                    json!({ "hookEventName": "PermissionRequest", "decision": decision }),
                );
            }
        }
        // An MCP server's elicitation, and the user's answer to it, are blocked by answering it
        // `decline` (`hook-protocols.md` §4.4: `hookSpecificOutput.action`
        // accept|decline|cancel; §5: exit 2 denies an Elicitation and turns an
        // ElicitationResult into a decline). `decline` is the documented block for both, where
        // `cancel` would only dismiss the request.
        "Elicitation" | "ElicitationResult" => {
            if matches!(decision.outcome, Outcome::Deny | Outcome::Ask) {
                reply.insert(
                    "hookSpecificOutput".into(),
                    json!({ "hookEventName": name, "action": "decline" }),
                );
            }
        }
        _ => {
            let blocks = matches!(decision.outcome, Outcome::Deny | Outcome::Ask);
            // A Stop hook that already blocked once must not loop the agent forever.
            if blocks && !event.is_stop_kept_going() && TOP_LEVEL_BLOCK_EVENTS.contains(&name) {
                reply.insert("decision".into(), json!("block"));
                reply.insert("reason".into(), json!(reason));
            } else if blocks && CONTINUE_FALSE_EVENTS.contains(&name) {
                reply.insert("continue".into(), json!(false));
                reply.insert("stopReason".into(), json!(reason));
            }
            if let Some(context) = context {
                reply.insert(
                    "hookSpecificOutput".into(),
                    json!({ "hookEventName": name, "additionalContext": context }),
                );
            }
        }
    }
    Value::Object(reply)
}

/// The reason sent with `decision`: its own, or when that is missing or blank, a default for its
/// outcome. Agents want a reason with a block: Claude Code's Stop and SubagentStop require one
/// (`hook-protocols.md` §4.4), Copilot's `permissionDecisionReason` is required for a deny (§6.5),
/// and Codex drops a deny or block whose reason is blank, as a reply it cannot use.
pub(super) fn reason_text(decision: &Decision) -> String {
    match &decision.reason {
        Some(reason) if !reason.trim().is_empty() => reason.clone(),
        _ => default_reason(decision.outcome).to_owned(),
    }
}

fn default_reason(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Deny => "blocked by toolgate policy",
        Outcome::Ask => "toolgate policy asks for confirmation",
        Outcome::Allow => "allowed by toolgate policy",
        Outcome::None => "",
    }
}
