//! Criterion benchmark of what metrics cost `/v1/evaluate`: `observe_evaluation` for a typical
//! event once its label sets are resolved (the steady state), with no rule hit, with two rule
//! hits, and for an MCP tool; and `observe_http`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolgate::metrics::Metrics;
use toolgate_engine::decision::{Mode, RuleHit};
use toolgate_engine::protocol::HookEvent;
use toolgate_engine::{Decision, Outcome};

fn event(tool: &str) -> HookEvent {
    HookEvent {
        event: "PreToolUse".to_owned(),
        tool_name: Some(tool.to_owned()),
        ..HookEvent::default()
    }
}

fn hit(rule: &str, outcome: Outcome, mode: Mode) -> RuleHit {
    RuleHit {
        rule_id: rule.to_owned(),
        outcome,
        mode,
        reason: String::new(),
    }
}

fn metrics(c: &mut Criterion) {
    let metrics = Metrics::new().expect("metrics");
    let bash = event("Bash");
    let mcp = event("mcp__github__create_issue");
    let none = Decision::none();
    let denied = Decision {
        outcome: Outcome::Deny,
        matched: vec![
            hit("Bash(git push --force:*)", Outcome::Deny, Mode::Enforce),
            hit("curl-anywhere", Outcome::Ask, Mode::Warn),
        ],
        ..Decision::none()
    };
    let mut group = c.benchmark_group("metrics");
    group.bench_function("observe_evaluation/no_hit", |b| {
        b.iter(|| metrics.observe_evaluation("team-a", black_box(&bash), black_box(&none), 1e-5))
    });
    group.bench_function("observe_evaluation/two_hits", |b| {
        b.iter(|| metrics.observe_evaluation("team-a", black_box(&bash), black_box(&denied), 1e-5))
    });
    group.bench_function("observe_evaluation/mcp", |b| {
        b.iter(|| metrics.observe_evaluation("team-a", black_box(&mcp), black_box(&none), 1e-5))
    });
    group.bench_function("observe_http", |b| {
        b.iter(|| metrics.observe_http(black_box("POST"), Some(0), 200, 1e-4))
    });
    group.finish();
}

criterion_group!(benches, metrics);
criterion_main!(benches);
