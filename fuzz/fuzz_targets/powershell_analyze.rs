//! Fuzzes the PowerShell tool: any byte string, as the command of a `PowerShell` tool event from
//! Windows, must be read (or refused), translated, analysed and judged without a panic, a stack
//! overflow or unbounded work.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::{HookEvent, render_claude};
use toolgate_engine::{CompiledPolicy, evaluate};

/// The baseline and secrets packs, with `PowerShell(…)` permission rules of each kind (matched
/// against the command as written and each command of it).
static POLICY: LazyLock<CompiledPolicy> = LazyLock::new(|| {
    CompiledPolicy::from_text(
        r#"{"name":"fuzz","include":["baseline","secrets"],"permissions":{
            "allow":["PowerShell(git *)","PowerShell(Get-ChildItem *)"],
            "ask":["PowerShell(Stop-Process *)"],
            "deny":["PowerShell(Remove-Item *)","Read(~/.ssh/**)"]}}"#,
        Format::Json,
    )
    .expect("the fuzz bundle compiles")
});

fuzz_target!(
    init: toolgate_engine::shell::quiet_parser_panics(),
    |data: &[u8]| {
        let Ok(command) = std::str::from_utf8(data) else { return };
        let body = serde_json::json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "PowerShell",
            "tool_input": { "command": command },
            "cwd": r"C:\Users\user\project",
            "transcript_path": r"C:\Users\user\.claude\projects\p\s.jsonl",
        });
        let event = HookEvent::from_value(body).expect("a PowerShell event decodes");
        let decision = evaluate(&POLICY, &event);
        let reply = render_claude(&event, &decision);
        assert!(reply.is_object());
    }
);
