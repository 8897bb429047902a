//! The `secrets` pack: credentials in what the agent writes or sends (deny), in the user's prompt
//! (block) and in what a tool returned (a warning in the agent's context, no block).
//!
//! The texts are the evaluator's `content_texts` (Write `content`, Edit `new_string`, MultiEdit
//! edits, NotebookEdit `new_source`, the Bash command, every string of an MCP or web tool input,
//! the prompt, the tool response), bounded; the detection is `secrets::Scanner` (gitleaks-derived
//! detectors with placeholders allowlisted). A reason names the detector ids only: this module
//! must never copy the matched text, or any part of the scanned text, anywhere.

use super::Findings;
use crate::decision::{Mode, Outcome};
use crate::evaluate::Evaluation;
use crate::secrets::Scanner;

/// The detector ids that fire on any of `texts`, deduplicated, in order of first appearance.
fn detectors(texts: &[&str]) -> Vec<&'static str> {
    let scanner = Scanner::builtin();
    let mut ids: Vec<&'static str> = Vec::new();
    for text in texts {
        for finding in scanner.scan(text) {
            if !ids.contains(&finding.rule_id) {
                ids.push(finding.rule_id);
            }
        }
    }
    ids
}

fn named(ids: &[&str]) -> String {
    ids.iter()
        .take(5)
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tool inputs of a gating event.
pub(crate) fn check_gate(eval: &mut Evaluation<'_>) {
    let texts = eval.content_texts(None);
    let ids = detectors(&texts);
    if ids.is_empty() {
        return;
    }
    let tool = eval.event.tool_name.as_deref().unwrap_or("the tool");
    let mut findings = Findings::default();
    findings.add(
        "secret-in-tool-input",
        format!(
            "the {tool} input holds a credential (detector {}); write a reference to an environment variable or secret manager instead",
            named(&ids)
        ),
    );
    findings.report(eval);
}

/// Prompts and tool responses.
pub(crate) fn check_lifecycle(eval: &mut Evaluation<'_>) {
    match eval.event.event.as_str() {
        "UserPromptSubmit" => {
            let texts = eval.content_texts(None);
            let ids = detectors(&texts);
            if ids.is_empty() {
                return;
            }
            let mut findings = Findings::default();
            findings.add(
                "secret-in-prompt",
                format!(
                    "the prompt holds a credential (detector {}); remove it (and rotate it) before sending, or refer to it by environment variable",
                    named(&ids)
                ),
            );
            findings.report(eval);
        }
        "PostToolUse" | "PostToolUseFailure" => {
            let texts = eval.content_texts(None);
            let ids = detectors(&texts);
            if ids.is_empty() {
                return;
            }
            let warning = format!(
                "toolgate: the tool output contains a credential (detector {}). Do not repeat it, write it to a file, commit it or send it anywhere; refer to it by environment variable and tell the user it may need rotating.",
                named(&ids)
            );
            eval.context(&warning);
            eval.hit(
                "secret-in-tool-response",
                Outcome::None,
                Mode::Enforce,
                format!(
                    "the tool output holds a credential (detector {}); the agent was warned (toolgate secrets rule `secret-in-tool-response`)",
                    named(&ids)
                ),
            );
        }
        _ => {}
    }
}
