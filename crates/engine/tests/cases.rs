//! Runs the engine's case corpus: every `tests/cases/**/*.yaml` file holds one bundle and the
//! cases evaluated against it (an event, the expected decision, optionally the winning rule and
//! the exact reply). One test runs them all and reports every failure at once.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::{HookEvent, render_claude};
use toolgate_engine::shell::{ShellLimits, Unresolved, analyze};
use toolgate_engine::{Bundle, CompiledPolicy, Outcome, evaluate};

/// Default working directory (the project root) of corpus events.
const CWD: &str = "/home/user/project";
/// Default transcript path, which tells the engine the user's home is `/home/user`.
const TRANSCRIPT: &str = "/home/user/.claude/projects/-home-user-project/session.jsonl";

/// Every corpus file, sorted.
fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")];
    while let Some(dir) = dirs.pop() {
        for entry in
            std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|ext| ext == "yaml" || ext == "yml")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Builds the hook event of one case from its shorthand or full form.
fn case_event(case: &Value) -> Value {
    let mut event = if let Some(event) = case.get("event") {
        event.clone()
    } else if let Some(command) = case.get("command") {
        json!({ "tool_name": "Bash", "tool_input": { "command": command } })
    } else if let Some(tool) = case.get("tool") {
        json!({ "tool_name": tool, "tool_input": case.get("input").cloned().unwrap_or(json!({})) })
    } else {
        panic!("case needs `event`, `command` or `tool`: {case}");
    };
    let map = event.as_object_mut().expect("event is an object");
    map.entry("hook_event_name").or_insert(json!("PreToolUse"));
    map.entry("session_id").or_insert(json!("corpus"));
    map.entry("cwd").or_insert(json!(
        case.get("cwd").and_then(Value::as_str).unwrap_or(CWD)
    ));
    map.entry("transcript_path").or_insert(json!(
        case.get("transcript")
            .and_then(Value::as_str)
            .unwrap_or(TRANSCRIPT)
    ));
    event
}

#[test]
fn corpus() {
    let mut total = 0;
    let mut failures = Vec::new();
    for file in corpus_files() {
        let name = file
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).expect("read corpus file");
        let doc: Value =
            serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{name}: invalid YAML: {e}"));
        let bundle = Bundle::from_value(doc["bundle"].clone())
            .unwrap_or_else(|e| panic!("{name}: invalid bundle:\n{e}"));
        let policy = CompiledPolicy::compile(&bundle)
            .unwrap_or_else(|e| panic!("{name}: bundle does not compile:\n{e}"));
        let cases = doc["cases"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: `cases` must be a list"));
        for (i, case) in cases.iter().enumerate() {
            total += 1;
            let label = format!(
                "{name} #{i} {}",
                case.get("name")
                    .and_then(Value::as_str)
                    .or_else(|| case.get("command").and_then(Value::as_str))
                    .unwrap_or("")
            );
            let event = HookEvent::from_value(case_event(case))
                .unwrap_or_else(|e| panic!("{label}: bad event: {e}"));
            let decision = evaluate(&policy, &event);
            let expect = case["expect"]
                .as_str()
                .and_then(Outcome::parse)
                .unwrap_or_else(|| panic!("{label}: `expect` must be deny, ask, allow or none"));
            let winner = decision.winner.as_deref().unwrap_or("-");
            if decision.outcome != expect {
                failures.push(format!(
                    "{label}\n    expected {expect}, got {} by `{winner}` ({})",
                    decision.outcome,
                    decision.reason.as_deref().unwrap_or("")
                ));
                continue;
            }
            if let Some(rule) = case.get("rule").and_then(Value::as_str)
                && decision.winner.as_deref() != Some(rule)
            {
                failures.push(format!(
                    "{label}\n    expected winning rule `{rule}`, got `{winner}`"
                ));
                continue;
            }
            if let Some(reply) = case.get("reply") {
                let actual = render_claude(&event, &decision);
                if !reply_matches(reply, &actual) {
                    failures.push(format!(
                        "{label}\n    expected reply {reply}\n    got            {actual}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} corpus cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{total} corpus cases passed");
}

/// Every Bash command of the corpus is analysed within a tenth of the analysis's fuel: the
/// budget that stops inputs which multiply work stays far from the commands the rules are
/// tested on.
#[test]
fn commands_use_a_tenth_of_the_fuel_at_most() {
    let tenth = ShellLimits {
        max_fuel: ShellLimits::default().max_fuel / 10,
        ..ShellLimits::default()
    };
    for file in corpus_files() {
        let text = std::fs::read_to_string(&file).expect("read corpus file");
        let doc: Value = serde_norway::from_str(&text).expect("corpus file is YAML");
        for case in doc["cases"].as_array().into_iter().flatten() {
            let Some(command) = case_event(case)["tool_input"]["command"]
                .as_str()
                .map(str::to_owned)
            else {
                continue;
            };
            let analysis = analyze(&command, &tenth);
            assert!(
                !analysis.unresolved.contains(&Unresolved::TooMuchWork),
                "{}: {command}",
                file.display()
            );
        }
    }
}

/// Whether `actual` equals `expected`, where a string `"*"` in `expected` matches any string.
fn reply_matches(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::String(star), Value::String(_)) if star == "*" => true,
        (Value::Object(expected), Value::Object(actual)) => {
            expected.len() == actual.len()
                && expected.iter().all(|(key, value)| {
                    actual
                        .get(key)
                        .is_some_and(|actual| reply_matches(value, actual))
                })
        }
        (Value::Array(expected), Value::Array(actual)) => {
            expected.len() == actual.len()
                && expected
                    .iter()
                    .zip(actual)
                    .all(|(e, a)| reply_matches(e, a))
        }
        _ => expected == actual,
    }
}

#[test]
fn corpus_is_large_enough() {
    let total: usize = corpus_files()
        .iter()
        .map(|file| {
            let doc: Value = serde_norway::from_str(&std::fs::read_to_string(file).expect("read"))
                .expect("yaml");
            doc["cases"].as_array().map_or(0, Vec::len)
        })
        .sum();
    assert!(
        total >= 150,
        "the corpus has {total} cases; it must keep at least 150"
    );
}

#[test]
fn bundles_parse_from_yaml_text() {
    let bundle = Bundle::parse(
        "name: t\npermissions:\n  deny: ['Bash(rm:*)']\n",
        Format::Yaml,
    )
    .expect("valid");
    assert_eq!(bundle.name, "t");
}
