//! Fuzzes hook-event decoding and the whole evaluation behind it: any body must either be rejected
//! with an error or decoded, evaluated against a bundle with every kind of rule, and rendered; and
//! a body that is JSON decodes as the same event, or the same error, through a JSON value.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::{EventError, HookEvent, render_claude};
use toolgate_engine::{CompiledPolicy, evaluate};

static POLICY: LazyLock<CompiledPolicy> = LazyLock::new(|| {
    CompiledPolicy::from_text(
        r#"{"name":"fuzz","include":["baseline","secrets"],"permissions":{
            "allow":["Bash(ls *)","Read(src/**)","WebFetch(domain:*.example.com)","mcp__github"],
            "ask":["Bash(git *)","Agent(model:opus)"],
            "deny":["Bash(rm:*)","Read(.env)","Read(~/.ssh/**)","Edit(//etc/**)","mcp__db__drop_*"]}}"#,
        Format::Json,
    )
    .expect("the fuzz bundle compiles")
});

fuzz_target!(
    init: toolgate_engine::shell::quiet_parser_panics(),
    |data: &[u8]| {
        let decoded = HookEvent::from_slice(data);
        // Read straight from the text, the event is the event read through a JSON value.
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data)
            && decoded != Err(EventError::TooDeep)
        {
            assert_eq!(decoded, HookEvent::from_value(value));
        }
        if let Ok(event) = decoded {
            let decision = evaluate(&POLICY, &event);
            let reply = render_claude(&event, &decision);
            assert!(reply.is_object());
        }
    }
);
