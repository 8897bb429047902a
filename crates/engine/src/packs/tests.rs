//! Catalogue tests: every documented example is evaluated through a bundle that includes the
//! packs (each `catches` example must raise its rule, each `allows` example must not), every rule
//! has its generated `docs/rules/<id>.md` page and vice versa, and the catalogue's YAML corpus
//! file is in sync. `TOOLGATE_BLESS=1 cargo test -p toolgate-engine --lib packs` regenerates the
//! docs and the corpus file; this module must not write anything otherwise.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Pack, RuleInfo, catalog};
use crate::bundle::Format;
use crate::decision::{Decision, Outcome};
use crate::{Bundle, CompiledPolicy, HookEvent, evaluate};

const CWD: &str = "/home/user/project";
const TRANSCRIPT: &str = "/home/user/.claude/projects/-home-user-project/session.jsonl";
const FILE_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Grep",
    "Glob",
    "MultiEdit",
    "NotebookEdit",
];

fn policy() -> CompiledPolicy {
    let bundle = Bundle::parse("name: packs\ninclude: [baseline, secrets]\n", Format::Yaml)
        .unwrap_or_else(|e| unreachable!("bundle: {e}"));
    CompiledPolicy::compile(&bundle).unwrap_or_else(|e| unreachable!("compile: {e}"))
}

/// The corpus-case form of one catalogue example (`command:`, `tool:` + `input:` or `event:`).
pub(crate) fn example_case(example: &str) -> Value {
    if let Some(prompt) = example.strip_prefix("Prompt: ") {
        return json!({ "event": { "hook_event_name": "UserPromptSubmit", "prompt": prompt } });
    }
    if let Some(output) = example.strip_prefix("ToolResponse: ") {
        return json!({ "event": {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": { "command": "cat notes.txt" },
            "tool_response": { "stdout": output, "stderr": "", "interrupted": false },
        } });
    }
    if let Some(url) = example
        .strip_prefix("WebFetch(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        return json!({ "tool": "WebFetch", "input": { "url": url, "prompt": "read it" } });
    }
    if let Some(rest) = example.strip_prefix("Mcp(")
        && let Some((tool, text)) = rest.split_once("): ")
    {
        return json!({ "tool": tool, "input": { "query": text } });
    }
    for tool in FILE_TOOLS {
        if let Some(rest) = example.strip_prefix(&format!("{tool}(")) {
            let (path, content) = match rest.split_once("): ") {
                Some((path, content)) => (path, Some(content)),
                None => (rest.strip_suffix(')').unwrap_or(rest), None),
            };
            let input = match *tool {
                "Read" => json!({ "file_path": path }),
                "Grep" => json!({ "pattern": "key", "path": path }),
                "Glob" => json!({ "pattern": path }),
                "Write" => json!({ "file_path": path, "content": content.unwrap_or("x\n") }),
                _ => {
                    json!({ "file_path": path, "old_string": "a", "new_string": content.unwrap_or("b") })
                }
            };
            return json!({ "tool": tool, "input": input });
        }
    }
    json!({ "command": example })
}

/// The hook event of a corpus case, with the corpus defaults.
fn case_event(case: &Value) -> HookEvent {
    let mut event = if let Some(event) = case.get("event") {
        event.clone()
    } else if let Some(command) = case.get("command") {
        json!({ "tool_name": "Bash", "tool_input": { "command": command } })
    } else {
        json!({ "tool_name": case["tool"], "tool_input": case["input"] })
    };
    if let Some(map) = event.as_object_mut() {
        map.entry("hook_event_name").or_insert(json!("PreToolUse"));
        map.entry("session_id").or_insert(json!("corpus"));
        map.entry("cwd").or_insert(json!(CWD));
        map.entry("transcript_path").or_insert(json!(TRANSCRIPT));
    }
    HookEvent::from_value(event).unwrap_or_else(|e| unreachable!("event: {e}"))
}

fn decide(policy: &CompiledPolicy, example: &str) -> Decision {
    evaluate(policy, &case_event(&example_case(example)))
}

fn raised(decision: &Decision, rule: &RuleInfo) -> bool {
    decision.matched.iter().any(|hit| hit.rule_id == rule.id)
}

#[test]
fn every_example_behaves_as_documented() {
    let policy = policy();
    let mut failures = Vec::new();
    for rule in catalog() {
        assert!(!rule.catches.is_empty(), "{}: no caught example", rule.id);
        assert!(!rule.allows.is_empty(), "{}: no negative control", rule.id);
        for example in rule.catches {
            let decision = decide(&policy, example);
            if !raised(&decision, rule) || decision.outcome < rule.decision {
                failures.push(format!(
                    "{}: should catch {example:?}; got {} by {:?} (matched {:?})",
                    rule.id,
                    decision.outcome,
                    decision.winner,
                    decision
                        .matched
                        .iter()
                        .map(|h| h.rule_id.as_str())
                        .collect::<Vec<_>>()
                ));
            }
            if rule.decision == Outcome::None && decision.additional_context.is_none() {
                failures.push(format!("{}: {example:?} should add context", rule.id));
            }
        }
        for example in rule.allows {
            let decision = decide(&policy, example);
            if raised(&decision, rule) {
                failures.push(format!(
                    "{}: should allow {example:?}; it matched ({})",
                    rule.id,
                    decision.reason.as_deref().unwrap_or("")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn catalogue_is_well_formed() {
    let mut ids: Vec<&str> = catalog().iter().map(|rule| rule.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), catalog().len(), "duplicate rule ids");
    for rule in catalog() {
        assert!(
            rule.id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}: ids are kebab-case",
            rule.id
        );
        assert!(!rule.asi.is_empty(), "{}: no OWASP ASI id", rule.id);
        for asi in rule.asi {
            assert!(
                ["ASI01", "ASI02", "ASI03", "ASI05"].contains(asi),
                "{}: {asi}",
                rule.id
            );
        }
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn blessing() -> bool {
    std::env::var_os("TOOLGATE_BLESS").is_some()
}

fn code_block(examples: &[&str]) -> String {
    let mut text = String::from("```text\n");
    for example in examples {
        text.push_str(example);
        text.push('\n');
    }
    text.push_str("```\n");
    text
}

fn decision_label(rule: &RuleInfo) -> &'static str {
    match rule.decision {
        Outcome::None => "context (warns the agent, no block)",
        Outcome::Allow => "allow",
        Outcome::Ask => "ask",
        Outcome::Deny => "deny",
    }
}

/// The generated documentation page of one rule.
fn rule_page(rule: &RuleInfo) -> String {
    format!(
        "# `{id}`\n\n\
         Pack: `{pack}` · Category: `{category}` · Decision: **{decision}** · OWASP Agentic: {asi}\n\n\
         <!-- Generated from crates/engine/src/packs/catalog.rs; edit there and run \
         `TOOLGATE_BLESS=1 cargo test -p toolgate-engine --lib packs`. -->\n\n\
         ## What it does\n\n{description}\n\n\
         ## Why is this bad?\n\n{why}\n\n\
         ## Example\n\nFlagged:\n\n{catches}\nLeft alone:\n\n{allows}\n\
         Examples are Bash commands unless written `Tool(path)` (a file tool call, `: text` is the \
         content written), `Mcp(tool): text`, `Prompt: text` or `ToolResponse: text`.\n",
        id = rule.id,
        pack = rule.pack.name(),
        category = rule.category,
        decision = decision_label(rule),
        asi = rule.asi.join(", "),
        description = rule.description,
        why = rule.why,
        catches = code_block(rule.catches),
        allows = code_block(rule.allows),
    )
}

fn index_page() -> String {
    let mut text = String::from(
        "# Built-in rule packs\n\n\
         Enable them in a bundle with `include: [baseline, secrets]`. Every rule judges analysed \
         shell commands (argv with wrappers, assignments and substitutions resolved), canonical \
         paths and scanned content, not the raw command string. `toolgate packs` prints this list.\n\n\
         <!-- Generated from crates/engine/src/packs/catalog.rs. -->\n",
    );
    for pack in [Pack::Baseline, Pack::Secrets] {
        text.push_str(&format!(
            "\n## `{}`\n\n| Rule | Category | Decision | OWASP | What it flags |\n|---|---|---|---|---|\n",
            pack.name()
        ));
        for rule in catalog().iter().filter(|rule| rule.pack == pack) {
            let summary = rule.description.replace('|', "\\|");
            text.push_str(&format!(
                "| [`{id}`]({id}.md) | {category} | {decision} | {asi} | {summary} |\n",
                id = rule.id,
                category = rule.category,
                decision = decision_label(rule),
                asi = rule.asi.join(", "),
            ));
        }
    }
    text
}

#[test]
fn docs_match_the_catalogue() {
    let dir = repo_root().join("docs/rules");
    let mut expected: Vec<(String, String)> = catalog()
        .iter()
        .map(|rule| (format!("{}.md", rule.id), rule_page(rule)))
        .collect();
    expected.push(("README.md".to_owned(), index_page()));
    if blessing() {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| unreachable!("{e}"));
        for (name, text) in &expected {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| unreachable!("{e}"));
        }
    }
    let mut problems = Vec::new();
    for (name, text) in &expected {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(actual) if actual == *text => {}
            Ok(_) => problems.push(format!("docs/rules/{name} is stale")),
            Err(_) => problems.push(format!("docs/rules/{name} is missing")),
        }
    }
    let on_disk = std::fs::read_dir(&dir).map(|entries| {
        entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
    });
    for name in on_disk.unwrap_or_default() {
        if !expected.iter().any(|(expected, _)| *expected == name) {
            problems.push(format!("docs/rules/{name} documents no rule"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nrun `TOOLGATE_BLESS=1 cargo test -p toolgate-engine --lib packs`",
        problems.join("\n")
    );
}

/// The catalogue examples as a corpus file, with the outcome each one gets.
fn catalogue_corpus(policy: &CompiledPolicy) -> String {
    let mut text = String::from(
        "# Generated from crates/engine/src/packs/catalog.rs: every rule's documented examples.\n\
         # Regenerate with `TOOLGATE_BLESS=1 cargo test -p toolgate-engine --lib packs`.\n\
         bundle:\n  name: packs-catalogue\n  include: [baseline, secrets]\ncases:\n",
    );
    for rule in catalog() {
        for (kind, examples) in [("catches", rule.catches), ("allows", rule.allows)] {
            for example in examples {
                let mut case = example_case(example);
                let decision = decide(policy, example);
                let Some(map) = case.as_object_mut() else {
                    continue;
                };
                map.insert(
                    "name".into(),
                    json!(format!("{} {kind}: {example}", rule.id)),
                );
                map.insert("expect".into(), json!(decision.outcome.as_str()));
                if kind == "catches" && decision.winner.as_deref() == Some(rule.id) {
                    map.insert("rule".into(), json!(rule.id));
                }
                let line = serde_json::to_string(&case).unwrap_or_default();
                text.push_str(&format!("  - {line}\n"));
            }
        }
    }
    text
}

#[test]
fn catalogue_corpus_is_in_sync() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/packs/catalogue.yaml");
    let expected = catalogue_corpus(&policy());
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| unreachable!("{e}"));
        }
        std::fs::write(&path, &expected).unwrap_or_else(|e| unreachable!("{e}"));
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "tests/cases/packs/catalogue.yaml is stale; run `TOOLGATE_BLESS=1 cargo test -p toolgate-engine --lib packs`"
    );
}

/// A private key written after a MiB of padding: the padding hides it from the scan, so the
/// write is what cannot be analysed (the bundle's `unresolvable`, ask by default). The same
/// write under a policy with nothing that scans content stays alone.
#[test]
fn text_past_the_scan_is_unresolvable() {
    let key = ["-----BEGIN OPENSSH", " PRIVATE KEY-----"].concat();
    let content = format!("{}\n{key}\n", "# padding\n".repeat(120_000));
    let case = json!({ "tool": "Write", "input": { "file_path": "notes.md", "content": content } });
    let decision = evaluate(&policy(), &case_event(&case));
    assert_eq!(decision.outcome, Outcome::Ask);
    assert!(
        decision
            .matched
            .iter()
            .any(|hit| hit.rule_id == crate::evaluate::UNRESOLVABLE),
        "{:?}",
        decision.matched
    );
    let bundle = Bundle::parse("name: b\ninclude: [baseline]\n", Format::Yaml)
        .unwrap_or_else(|e| unreachable!("bundle: {e}"));
    let baseline = CompiledPolicy::compile(&bundle).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(
        evaluate(&baseline, &case_event(&case)).outcome,
        Outcome::None
    );
    // A shadow content rule, or one for other events, changes nothing either.
    let shadow = Bundle::parse(
        "name: b\ninclude: [baseline]\nrules:\n  - {id: w, tool: Write, content: 'KEY', decision: deny, mode: warn}\n  - {id: p, content: 'KEY', decision: deny, events: [UserPromptSubmit]}\n",
        Format::Yaml,
    )
    .unwrap_or_else(|e| unreachable!("bundle: {e}"));
    let shadow = CompiledPolicy::compile(&shadow).unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(evaluate(&shadow, &case_event(&case)).outcome, Outcome::None);
    // Under the cut the key is found as before.
    let short = json!({ "tool": "Write", "input": { "file_path": "notes.md", "content": key } });
    assert_eq!(
        evaluate(&policy(), &case_event(&short)).outcome,
        Outcome::Deny
    );
}

/// A line whose substitution the analysis skips at its depth limit, which the baseline pack
/// would otherwise analyse again for each of its 128 `eval`s: see [`heavy_line`].
fn heavy_line() -> String {
    let g = format!("g(){{ {}}}; ", "a=1; ".repeat(600));
    let h = format!("h(){{ eval \"$({g}{})\"; }}; ", "g; ".repeat(100));
    format!(
        "{h}k(){{ {}}}; eval eval eval eval eval eval k",
        "h; ".repeat(250)
    )
}

/// The analysis of [`heavy_line`] stops at its depth limit, skipping the substitution `eval`
/// runs; the pack's analyses of that text again, one for each `eval` the line makes, share the
/// evaluation's fuel, which runs out: the command asks, and says so (23 s in a debug build
/// when each had fuel of its own, 0.4 s now).
#[test]
fn repeated_analyses_of_a_line_share_its_fuel() {
    let decision = decide(&policy(), &heavy_line());
    assert_eq!(decision.outcome, Outcome::Ask);
    let too_much = "the command takes more work to analyse than the analysis limit allows";
    assert!(
        decision.warnings.iter().any(|warning| warning == too_much),
        "{:?}",
        decision.warnings
    );
}

/// Times the evaluation of [`heavy_line`] (`cargo test -p toolgate-engine -- --ignored
/// heavy_line_timing --nocapture`).
#[test]
#[ignore = "timing probe"]
fn heavy_line_timing() {
    let policy = policy();
    let line = heavy_line();
    let start = std::time::Instant::now();
    let decision = decide(&policy, &line);
    println!(
        "{} bytes: {:?} in {:?}; {:?}",
        line.len(),
        decision.outcome,
        start.elapsed(),
        decision.warnings
    );
}
