//! Criterion benchmarks of the engine: compiling a 200-rule bundle and one of regex rules, and
//! evaluating a realistic
//! event mix (Bash simple, Bash compound with substitution, Read, Edit, WebFetch, MCP) against it.
//! Budget (ARCHITECTURE.md): median evaluate ≤ 10 µs for a Bash event.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolgate_engine::protocol::HookEvent;
use toolgate_engine::{Bundle, CompiledPolicy, evaluate};

/// A bundle of 200 permission rules of the shapes organisations write.
fn bundle_200() -> Value {
    let mut allow = Vec::new();
    let mut ask = Vec::new();
    let mut deny = Vec::new();
    for i in 0..35 {
        allow.push(format!("Bash(npm run task{i}:*)"));
        allow.push(format!("Bash(make target{i} *)"));
    }
    for i in 0..30 {
        deny.push(format!("Bash(tool{i} --dangerous *)"));
        ask.push(format!("Bash(deploy{i}:*)"));
    }
    for i in 0..20 {
        deny.push(format!("Read(~/secret{i}/**)"));
        allow.push(format!("Edit(src/module{i}/**)"));
    }
    for i in 0..10 {
        allow.push(format!("WebFetch(domain:docs{i}.example.com)"));
        deny.push(format!("mcp__server{i}__delete_*"));
    }
    allow.extend(
        [
            "Bash(git status)",
            "Bash(git diff *)",
            "Bash(cargo test *)",
            "Bash(ls *)",
            "Read(src/**)",
        ]
        .map(String::from),
    );
    deny.extend(
        [
            "Bash(git push --force:*)",
            "Bash(rm -rf *)",
            "Read(.env)",
            "Read(~/.ssh/**)",
            "Edit(.github/**)",
        ]
        .map(String::from),
    );
    assert_eq!(allow.len() + ask.len() + deny.len(), 200);
    json!({ "name": "bench", "permissions": { "allow": allow, "ask": ask, "deny": deny } })
}

fn event(tool: &str, input: Value) -> HookEvent {
    HookEvent::from_value(json!({
        "hook_event_name": "PreToolUse",
        "session_id": "bench",
        "transcript_path": "/home/user/.claude/projects/p/s.jsonl",
        "cwd": "/home/user/project",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_bench"
    }))
    .expect("valid event")
}

fn events() -> Vec<(&'static str, HookEvent)> {
    vec![
        (
            "bash_simple",
            event("Bash", json!({ "command": "git status" })),
        ),
        (
            "bash_compound_substitution",
            event(
                "Bash",
                json!({ "command": "cd src && cargo test $(echo --release) 2>&1 | tail -5" }),
            ),
        ),
        (
            "read",
            event(
                "Read",
                json!({ "file_path": "/home/user/project/src/main.rs" }),
            ),
        ),
        (
            "edit",
            event(
                "Edit",
                json!({ "file_path": "/home/user/project/src/module3/lib.rs", "old_string": "a", "new_string": "b" }),
            ),
        ),
        (
            "webfetch",
            event(
                "WebFetch",
                json!({ "url": "https://docs3.example.com/guide", "prompt": "summarise" }),
            ),
        ),
        (
            "mcp",
            event("mcp__server4__delete_issue", json!({ "id": 7 })),
        ),
    ]
}

/// A bundle of 16 extended rules with Unicode-class regexes (near the 16 MiB regex budget), the kind whose compilation is the
/// cost of loading a bundle.
fn bundle_regexes() -> Value {
    let rules: Vec<Value> = (0..16)
        .map(|i| {
            json!({"id": format!("r{i}"), "tool": "Bash|Write", "decision": "ask",
                   "args": format!(r"--token{i}[= ]\w{{8}}"),
                   "content": format!(r"(?i)secret{i}\s*[:=]\s*\w{{8}}")})
        })
        .collect();
    json!({"name": "regexes", "rules": rules})
}

fn benches(c: &mut Criterion) {
    let regexes = bundle_regexes();
    c.bench_function("compile_16_regex_rules", |b| {
        b.iter(|| {
            let bundle = Bundle::from_value(black_box(regexes.clone())).expect("valid");
            CompiledPolicy::compile(&bundle).expect("compiles")
        })
    });
    let document = bundle_200();
    c.bench_function("compile_200_rules", |b| {
        b.iter(|| {
            let bundle = Bundle::from_value(black_box(document.clone())).expect("valid");
            CompiledPolicy::compile(&bundle).expect("compiles")
        })
    });
    let policy =
        CompiledPolicy::compile(&Bundle::from_value(document).expect("valid")).expect("compiles");
    let mut group = c.benchmark_group("evaluate_200_rules");
    for (name, event) in events() {
        group.bench_function(name, |b| {
            b.iter(|| evaluate(black_box(&policy), black_box(&event)))
        });
    }
    group.finish();
    let limits = toolgate_engine::shell::ShellLimits::default();
    let mut shell = c.benchmark_group("shell_analyze");
    for (name, command) in [
        ("simple", "git status"),
        (
            "compound_substitution",
            "cd src && cargo test $(echo --release) 2>&1 | tail -5",
        ),
    ] {
        shell.bench_function(name, |b| {
            b.iter(|| toolgate_engine::shell::analyze(black_box(command), &limits))
        });
    }
    shell.finish();
    let mut decode = c.benchmark_group("decode");
    for (name, body) in [
        (
            "bash",
            r#"{"session_id":"bench","transcript_path":"/home/dev/.claude/projects/p/t.jsonl","cwd":"/home/dev/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status","description":"Show status"},"tool_use_id":"toolu_01"}"#,
        ),
        (
            "write",
            r##"{"session_id":"bench","transcript_path":"/home/dev/.claude/projects/p/t.jsonl","cwd":"/home/dev/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/home/dev/project/notes.md","content":"# Notes\nNothing secret here.\nA second line of ordinary prose, long enough to be a paragraph of a real file.\n"},"tool_use_id":"toolu_01"}"##,
        ),
    ] {
        decode.bench_function(name, |b| {
            b.iter(|| {
                toolgate_engine::protocol::decode(
                    toolgate_engine::protocol::Agent::ClaudeCode,
                    black_box(body.as_bytes()),
                )
            })
        });
    }
    decode.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
