//! The benign corpus: everyday developer commands (`commands.txt`) and file-tool calls
//! (`file_ops.yaml`) evaluated with `include: [baseline, secrets]`. None may be denied; every ask
//! is printed with its winning rule and reason (run with `--nocapture` to see them), so the false
//! positive budget of the packs stays visible. This test must not accept a deny for any entry.

use std::path::Path;

use serde_json::{Value, json};
use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::HookEvent;
use toolgate_engine::shell::{ShellLimits, Unresolved, analyze};
use toolgate_engine::{Bundle, CompiledPolicy, Outcome, evaluate};

const CWD: &str = "/home/user/project";
const TRANSCRIPT: &str = "/home/user/.claude/projects/-home-user-project/session.jsonl";

fn dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/benign"))
}

fn policy() -> CompiledPolicy {
    let bundle = Bundle::parse("name: benign\ninclude: [baseline, secrets]\n", Format::Yaml)
        .expect("bundle");
    CompiledPolicy::compile(&bundle).expect("compile")
}

/// Every corpus entry as (label, hook event JSON).
fn entries() -> Vec<(String, Value)> {
    let mut entries = Vec::new();
    let commands = std::fs::read_to_string(dir().join("commands.txt")).expect("commands.txt");
    for line in commands.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let command = line.replace("\\n", "\n");
        entries.push((
            command.clone(),
            json!({ "tool_name": "Bash", "tool_input": { "command": command } }),
        ));
    }
    let ops: Value = serde_norway::from_str(
        &std::fs::read_to_string(dir().join("file_ops.yaml")).expect("file_ops.yaml"),
    )
    .expect("file_ops.yaml is YAML");
    for op in ops.as_array().expect("file_ops.yaml is a list") {
        let event = match op.get("event") {
            Some(event) => event.clone(),
            None => json!({ "tool_name": op["tool"], "tool_input": op["input"] }),
        };
        entries.push((op.to_string(), event));
    }
    entries
}

#[test]
fn benign_corpus_is_never_denied() {
    let policy = policy();
    let entries = entries();
    assert!(
        entries.len() >= 300,
        "the benign corpus has {} entries; keep at least 300",
        entries.len()
    );
    let mut denies = Vec::new();
    let mut asks = Vec::new();
    for (label, mut event) in entries.iter().cloned() {
        let map = event.as_object_mut().expect("object");
        map.entry("hook_event_name").or_insert(json!("PreToolUse"));
        map.entry("session_id").or_insert(json!("benign"));
        map.entry("cwd").or_insert(json!(CWD));
        map.entry("transcript_path").or_insert(json!(TRANSCRIPT));
        let event = HookEvent::from_value(event).expect("event");
        let decision = evaluate(&policy, &event);
        let line = format!(
            "{label}\n    {} by `{}`: {}",
            decision.outcome,
            decision.winner.as_deref().unwrap_or("-"),
            decision.reason.as_deref().unwrap_or("")
        );
        match decision.outcome {
            Outcome::Deny => denies.push(line),
            Outcome::Ask => asks.push(line),
            _ => {}
        }
    }
    eprintln!("{} benign entries, {} asks:", entries.len(), asks.len());
    for ask in &asks {
        eprintln!("  ASK {ask}");
    }
    assert!(
        denies.is_empty(),
        "{} benign entries were denied:\n{}",
        denies.len(),
        denies.join("\n")
    );
}

/// Every benign command is analysed within a tenth of the analysis's fuel: the budget that
/// stops inputs which multiply work stays far from everyday commands.
#[test]
fn benign_commands_use_a_tenth_of_the_fuel_at_most() {
    let tenth = ShellLimits {
        max_fuel: ShellLimits::default().max_fuel / 10,
        ..ShellLimits::default()
    };
    for (label, event) in entries() {
        let Some(command) = event["tool_input"]["command"].as_str() else {
            continue;
        };
        let analysis = analyze(command, &tenth);
        assert!(
            !analysis.unresolved.contains(&Unresolved::TooMuchWork),
            "{label}"
        );
    }
}
