//! What one evaluation costs with warm and with cold caches: decode, evaluate and render each
//! event of a file (one hook event body per line) against a bundle, first in a tight loop, then
//! after evicting the caches (writing a 32 MiB buffer) before every evaluation. Only the
//! evaluation is timed. `bench/cold.sh` runs it on the load benchmark's bundle and event mix.
//!
//! ```sh
//! cargo run --release -p toolgate-engine --example cold_caches -- BUNDLE.json EVENTS.jsonl
//! ```
//!
//! With `--warm-only N` it only runs the whole file N times, warm, and times nothing: the run to
//! count instructions of under `valgrind --tool=callgrind` (this machine's VM exposes no
//! hardware counters, and the count, unlike a time, is the same from run to run).

use std::hint::black_box;
use std::time::Instant;

use toolgate_engine::bundle::Format;
use toolgate_engine::protocol::{self, Agent};
use toolgate_engine::{Bundle, CompiledPolicy, evaluate};

const WARM_RUNS: u32 = 5_000;
const COLD_RUNS: u32 = 300;
const EVICTION_BYTES: usize = 32 << 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(bundle), Some(events)) = (args.next(), args.next()) else {
        return Err("usage: cold_caches BUNDLE.json EVENTS.jsonl [--warm-only N]".into());
    };
    let warm_only: Option<u32> = match (args.next().as_deref(), args.next()) {
        (None, _) => None,
        (Some("--warm-only"), Some(runs)) => Some(runs.parse()?),
        _ => return Err("usage: cold_caches BUNDLE.json EVENTS.jsonl [--warm-only N]".into()),
    };
    let bundle = Bundle::parse(&std::fs::read_to_string(bundle)?, Format::Json)?;
    let policy = CompiledPolicy::compile(&bundle).map_err(|errors| format!("{errors:?}"))?;
    let events = std::fs::read_to_string(events)?;
    let bodies: Vec<&str> = events
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let once = |body: &str| -> Result<(), Box<dyn std::error::Error>> {
        let event = protocol::decode(Agent::ClaudeCode, body.as_bytes())?;
        let decision = evaluate(&policy, &event);
        black_box(protocol::render(Agent::ClaudeCode, &event, &decision));
        Ok(())
    };
    if let Some(runs) = warm_only {
        for _ in 0..runs {
            bodies.iter().try_for_each(|body| once(body))?;
        }
        return Ok(());
    }
    let mut eviction = vec![0u8; EVICTION_BYTES];
    println!("{:>3} {:>9} {:>9}  event", "#", "warm µs", "cold µs");
    for (n, body) in bodies.iter().enumerate() {
        let started = Instant::now();
        for _ in 0..WARM_RUNS {
            once(body)?;
        }
        let warm = started.elapsed().as_secs_f64() * 1e6 / f64::from(WARM_RUNS);
        let mut cold = 0.0;
        for run in 0..COLD_RUNS {
            for byte in eviction.iter_mut().step_by(64) {
                *byte = byte.wrapping_add(run.to_le_bytes()[0]);
            }
            let started = Instant::now();
            once(body)?;
            cold += started.elapsed().as_secs_f64() * 1e6;
        }
        let cold = cold / f64::from(COLD_RUNS);
        let shown: String = body
            .chars()
            .skip(body.find("tool_name").unwrap_or(0))
            .take(60)
            .collect();
        println!("{:>3} {warm:>9.1} {cold:>9.1}  {shown}", n + 1);
    }
    black_box(&eviction);
    Ok(())
}
