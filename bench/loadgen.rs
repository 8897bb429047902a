//! Open-loop load at a fixed rate, for the latency an operator sees below saturation (wrk, which
//! `bench/run.sh` also runs, keeps every connection busy and so measures the tail at saturation).
//!
//! `--rate` requests per second, evenly spaced, go round-robin over `--connections` HTTP/1.1
//! connections. A thread of its own releases each request when it is due (tokio's timer ticks in
//! milliseconds, too coarse for requests 25 µs apart). A request is timed from when it was due
//! when its connection was still busy with the last answer then (a slow answer delays the
//! requests behind it, and they count that wait: no coordinated omission), and from when it was
//! sent otherwise. The bodies are cycled from `--bodies`, one JSON document per line
//! (`bench/events.jsonl`). Prints one line:
//!
//! ```text
//! rate 20000 achieved 19998 requests 199980 errors 0 p50_us 212 p90_us 388 p99_us 905 p999_us 1850 max_us 4100
//! ```
//!
//! `achieved` counts the measured requests answered by the end of the run: below the rate, the
//! server could not keep up, and the latencies of what it answered tell little more.
//!
//! `cargo run --release --example loadgen -- --url http://127.0.0.1:8080/v1/evaluate --rate 20000`

use std::time::Duration;

use axum::body::Bytes;
use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::time::Instant;

#[derive(Parser)]
struct Args {
    /// Where to POST.
    #[arg(long)]
    url: String,
    /// Requests per second, all connections together.
    #[arg(long)]
    rate: f64,
    /// Connections, each sending one request at a time.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Seconds measured.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Seconds at the same rate before, not measured.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// The bodies, one per line.
    #[arg(long, default_value = "bench/events.jsonl")]
    bodies: std::path::PathBuf,
    /// Sent as `Authorization: Bearer …`.
    #[arg(long, env = "TOOLGATE_BENCH_TOKEN", default_value = "")]
    token: String,
    /// Runtime worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

/// One connection's share of the run.
struct Share {
    /// Latencies of the measured requests, in microseconds.
    latencies: Vec<u32>,
    /// Measured requests answered by the end of the run.
    in_time: u64,
    errors: u64,
}

struct Target {
    address: String,
    host: String,
    path: String,
    token: String,
    bodies: Vec<Bytes>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    anyhow::ensure!(args.rate > 0.0, "--rate must be above 0");
    anyhow::ensure!(args.connections > 0, "--connections must be above 0");
    let rest = args
        .url
        .strip_prefix("http://")
        .ok_or_else(|| anyhow::anyhow!("--url must start with http://"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let bodies: Vec<Bytes> = std::fs::read_to_string(&args.bodies)?
        .lines()
        .filter(|line| !line.is_empty())
        .map(|line| Bytes::copy_from_slice(line.as_bytes()))
        .collect();
    anyhow::ensure!(!bodies.is_empty(), "no bodies in {}", args.bodies.display());
    let target = std::sync::Arc::new(Target {
        address: host.to_owned(),
        host: host.to_owned(),
        path: if path.is_empty() { "/" } else { path }.to_owned(),
        token: args.token.clone(),
        bodies,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads.max(1))
        .enable_all()
        .build()?;
    let connections = args.connections;
    let period = Duration::from_secs_f64(1.0 / args.rate);
    let start = Instant::now() + Duration::from_millis(50);
    let measured = start + Duration::from_secs_f64(args.warmup);
    let end = measured + Duration::from_secs_f64(args.duration);
    let (queues, tasks): (Vec<_>, Vec<_>) = (0..connections)
        .map(|c| {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let task = runtime.spawn(connection(target.clone(), c, rx, measured, end));
            (tx, task)
        })
        .unzip();
    // The pacer: releases request i at start + i × period to connection i mod connections.
    std::thread::spawn(move || {
        let mut due = start;
        let mut i = 0usize;
        while due < end {
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
                continue;
            }
            while due <= now && due < end {
                let _ = queues[i % connections].send(due);
                i += 1;
                due += period;
            }
        }
    });
    let shares = runtime.block_on(async {
        let mut shares = Vec::new();
        for task in tasks {
            shares.push(task.await?);
        }
        anyhow::Ok(shares)
    })?;
    let errors: u64 = shares.iter().map(|share| share.errors).sum();
    let in_time: u64 = shares.iter().map(|share| share.in_time).sum();
    let mut latencies: Vec<u32> = shares.into_iter().flat_map(|s| s.latencies).collect();
    latencies.sort_unstable();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or(0)
    };
    println!(
        "rate {:.0} achieved {:.0} requests {} errors {} p50_us {} p90_us {} p99_us {} p999_us {} max_us {}",
        args.rate,
        in_time as f64 / args.duration,
        latencies.len(),
        errors,
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.999),
        latencies.last().copied().unwrap_or(0),
    );
    Ok(())
}

/// Sends each request the pacer releases to this connection; records those due from `measured`
/// on. A failed request counts as an error and the connection is made again. Requests still
/// waiting at `end` (a server that cannot keep up) are not sent: they count neither as answered
/// in time nor in the latencies, which hold only what was answered.
async fn connection(
    target: std::sync::Arc<Target>,
    index: usize,
    mut released: tokio::sync::mpsc::UnboundedReceiver<Instant>,
    measured: Instant,
    end: Instant,
) -> Share {
    let mut share = Share {
        latencies: Vec::new(),
        in_time: 0,
        errors: 0,
    };
    let mut sender = connect(&target).await.ok();
    let mut body = index % target.bodies.len();
    // When the last answer came.
    let mut free = Instant::now();
    while let Some(due) = released.recv().await {
        let sent = Instant::now();
        if sent > end {
            break;
        }
        // Still busy when it was due: the wait for the last answer is the server's.
        let from = if free > due { due } else { sent };
        let result = match &mut sender {
            Some(sender) => send(sender, &target, body).await,
            None => Err(anyhow::anyhow!("not connected")),
        };
        free = Instant::now();
        match result {
            Ok(()) if due >= measured => {
                let micros = free.duration_since(from).as_micros();
                share
                    .latencies
                    .push(u32::try_from(micros).unwrap_or(u32::MAX));
                share.in_time += u64::from(free <= end);
            }
            Ok(()) => {}
            Err(_) => {
                if due >= measured {
                    share.errors += 1;
                }
                sender = connect(&target).await.ok();
            }
        }
        body = (body + 1) % target.bodies.len();
    }
    share
}

async fn connect(target: &Target) -> anyhow::Result<http1::SendRequest<Full<Bytes>>> {
    let stream = tokio::net::TcpStream::connect(&target.address).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    Ok(sender)
}

async fn send(
    sender: &mut http1::SendRequest<Full<Bytes>>,
    target: &Target,
    body: usize,
) -> anyhow::Result<()> {
    sender.ready().await?;
    let request = hyper::Request::post(&target.path)
        .header(hyper::header::HOST, &target.host)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(
            hyper::header::AUTHORIZATION,
            format!("Bearer {}", target.token),
        )
        .body(Full::new(target.bodies[body].clone()))?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    response.into_body().collect().await?;
    anyhow::ensure!(status == hyper::StatusCode::OK, "status {status}");
    Ok(())
}
