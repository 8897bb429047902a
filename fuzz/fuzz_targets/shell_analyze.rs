//! Fuzzes the shell analyser: any byte string must analyse without a panic, a stack overflow or
//! unbounded work, and every reported command must be well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_engine::shell::{ShellLimits, analyze};

fuzz_target!(
    init: toolgate_engine::shell::quiet_parser_panics(),
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
