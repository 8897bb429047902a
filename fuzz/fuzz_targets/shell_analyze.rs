//! Fuzzes the shell analyser: any byte string must analyse without a panic, a stack overflow or
//! unbounded work, and every reported command must be well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_engine::shell::{ShellLimits, analyze};

fuzz_target!(
    init: {
        // brush-parser's own panics (an fd number that overflows `i32`, …) are caught by the
        // engine (`shell::parse::guarded`) and make the input unparseable: not findings. Every
        // other panic still goes to libFuzzer's hook, which aborts.
        let libfuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_parser = info
                .location()
                .is_some_and(|location| location.file().contains("brush-parser"));
            if !in_parser {
                libfuzzer_hook(info);
            }
        }));
    },
    |data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else { return };
    let limits = ShellLimits::default();
    let analysis = analyze(command, &limits);
    assert!(analysis.commands.len() <= limits.max_commands);
    for simple in &analysis.commands {
        assert!(!simple.argv.is_empty());
        assert!(simple.depth <= limits.max_depth);
    }
    }
);
