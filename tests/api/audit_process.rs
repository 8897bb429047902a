//! The audit against the real `toolgate serve` binary as a child process: SIGKILL loses no
//! answered evaluation, and generated credentials never reach the audit table or the logs.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use crate::audit::{bash_call, verify_cli, verify_cli_with};
use crate::helpers::{create_database, eventually, metrics_text};
use crate::pg::PrivatePostgres;

const ADMIN: &str = "tg_process_test_admin_token_00000000";

/// A `toolgate serve` child with its standard error captured.
struct Server {
    child: Child,
    address: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    async fn start(database_url: &str, dir: &Path, replica: &str, log_level: &str) -> Server {
        Self::start_with(database_url, dir, replica, log_level, &[]).await
    }

    async fn start_with(
        database_url: &str,
        dir: &Path,
        replica: &str,
        log_level: &str,
        extra: &[&str],
    ) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["--log-format", "json", "serve", "--listen", "127.0.0.1:0"])
            .args(["--replica-id", replica])
            .arg("--cache-dir")
            .arg(dir.join("cache"))
            .arg("--audit-spool-dir")
            .arg(dir.join("spool"))
            .args(extra)
            .env("DATABASE_URL", database_url)
            .env("TOOLGATE_ADMIN_TOKEN", ADMIN)
            .env("RUST_LOG", log_level)
            .env_remove("TOOLGATE_AUDIT_MODE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolgate serve");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let marker = "\"address\":\"";
                    if let Some(at) = line.find(marker) {
                        let address: String = line[at + marker.len()..]
                            .chars()
                            .take_while(|c| *c != '"')
                            .collect();
                        let _ = tx.send(address);
                    }
                    let mut log = log.lock().unwrap();
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        // Built before waiting, so that a failed start still kills the child (on drop).
        let mut server = Server {
            child,
            address: String::new(),
            log,
        };
        let address = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(60)))
            .await
            .unwrap()
            .expect("toolgate serve did not report its address");
        server.address = format!("http://{address}");
        server
    }

    fn kill(&mut self) {
        // SIGKILL.
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then waits for the process to exit.
    fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
        tokio::task::block_in_place(|| self.child.wait().unwrap())
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh database on the shared server of `DATABASE_URL` (its URL and a pool), an agent
/// token, and a directory for a server's cache and spool.
async fn fresh() -> (String, PgPool, String, tempfile::TempDir) {
    let url = create_database(&std::env::var("DATABASE_URL").unwrap()).await;
    let db = pool(&url).await;
    let token = agent_token(&db).await;
    (url, db, token, tempfile::tempdir().unwrap())
}

async fn pool(url: &str) -> PgPool {
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(2))
        .connect_lazy(url)
        .unwrap()
}

async fn agent_token(pool: &PgPool) -> String {
    toolgate::store::postgres::MIGRATOR.run(pool).await.unwrap();
    let token = toolgate::auth::generate_token().unwrap();
    let hash = toolgate::auth::hash_token(&token);
    toolgate::store::Database::Postgres(pool.clone())
        .insert_token(toolgate::store::NewToken::new(
            &hash, "tg_test", "agent", "team",
        ))
        .await
        .unwrap();
    token
}

async fn evaluate(
    client: &reqwest::Client,
    server: &str,
    token: &str,
    event: &Value,
) -> Option<Value> {
    let response = client
        .post(format!("{server}/v1/evaluate"))
        .bearer_auth(token)
        .json(event)
        .send()
        .await
        .ok()?;
    if response.status() != StatusCode::OK {
        return None;
    }
    response.json().await.ok()
}

/// `n` clients firing evaluations (tool use ids `{prefix}-{c}-{i}`) until the server stops
/// answering. Each returns the ids it got an answer for; `answered` counts them as they come.
fn fire(
    n: usize,
    client: &reqwest::Client,
    address: &str,
    token: &str,
    prefix: &str,
) -> (Vec<tokio::task::JoinHandle<Vec<String>>>, Arc<AtomicUsize>) {
    let answered = Arc::new(AtomicUsize::new(0));
    let clients = (0..n)
        .map(|c| {
            let (client, address, token, prefix, answered) = (
                client.clone(),
                address.to_owned(),
                token.to_owned(),
                prefix.to_owned(),
                answered.clone(),
            );
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0.. {
                    let id = format!("{prefix}-{c}-{i}");
                    match evaluate(&client, &address, &token, &bash_call("s", &id, "ls")).await {
                        Some(reply) => {
                            assert_eq!(reply, json!({}), "nothing may be refused");
                            ids.push(id);
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        None => break,
                    }
                }
                ids
            })
        })
        .collect();
    (clients, answered)
}

/// Every id the clients of [`fire`] got an answer for, once they have stopped.
async fn answered_by(clients: Vec<tokio::task::JoinHandle<Vec<String>>>) -> Vec<String> {
    let mut ids = Vec::new();
    for client in clients {
        ids.extend(client.await.unwrap());
    }
    ids
}

/// One more evaluation (id `after`), answered.
async fn one_more(client: &reqwest::Client, server: &Server, token: &str) -> String {
    let reply = evaluate(
        client,
        &server.address,
        token,
        &bash_call("s", "after", "ls"),
    )
    .await;
    assert_eq!(reply, Some(json!({})));
    "after".to_owned()
}

/// Stops or starts `pg` off the runtime's threads (`pg_ctl` waits).
async fn in_background(pg: &Arc<PrivatePostgres>, what: fn(&PrivatePostgres)) {
    let pg = pg.clone();
    tokio::task::spawn_blocking(move || what(&pg))
        .await
        .unwrap();
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

async fn recorded_ids(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT tool_use_id FROM audit WHERE tool_use_id IS NOT NULL")
        .fetch_all(pool)
        .await
        .unwrap_or_default()
}

/// K evaluations answered (some with the database up, some while it is down and rows go to
/// the spool, the last ones racing the kill), SIGKILL, restart with the same replica id: every
/// answered evaluation is in the audit and the chain verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_evaluation_answered_before_a_sigkill_is_in_the_audit_after_a_restart() {
    let pg = Arc::new(PrivatePostgres::start());
    let url = pg.url();
    let db = pool(&url).await;
    let token = agent_token(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(&url, dir.path(), "killed-replica", "info").await;
    let client = client();

    let mut answered = Vec::new();
    for i in 0..20 {
        let id = format!("up-{i}");
        let reply = evaluate(&client, &server.address, &token, &bash_call("s", &id, "ls")).await;
        assert_eq!(reply, Some(json!({})));
        answered.push(id);
    }
    in_background(&pg, PrivatePostgres::stop).await;
    // Concurrent clients keep firing; the kill lands while requests are in flight.
    let (clients, _) = fire(4, &client, &server.address, &token, "down");
    eventually(Duration::from_secs(60), "rows to be spooled", || async {
        let spool = dir.path().join("spool");
        let bytes: u64 = std::fs::read_dir(&spool)
            .ok()?
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum();
        (bytes > 64 * 1024).then_some(())
    })
    .await;
    server.kill();
    answered.extend(answered_by(clients).await);
    assert!(answered.len() > 40, "{} answered", answered.len());

    in_background(&pg, PrivatePostgres::start_server).await;
    let server = Server::start(&url, dir.path(), "killed-replica", "info").await;
    // New evaluations continue the same chain.
    answered.push(one_more(&client, &server, &token).await);
    let missing = eventually(
        Duration::from_secs(60),
        "every answered evaluation to be in the audit",
        || async {
            let recorded = recorded_ids(&db).await;
            let missing: Vec<&String> = answered
                .iter()
                .filter(|id| !recorded.contains(id))
                .collect();
            missing.is_empty().then_some(missing.len())
        },
    )
    .await;
    assert_eq!(missing, 0);
    let (code, out) = verify_cli(&url).await;
    assert_eq!(code, Some(0), "{out}");
    let replicas: Vec<String> = sqlx::query_scalar("SELECT DISTINCT replica_id FROM audit")
        .fetch_all(&db)
        .await
        .unwrap();
    assert_eq!(replicas, vec!["killed-replica".to_owned()]);
}

/// The review's repro: rows spooled during an outage, the process stopped, one byte of the
/// first record of the newest segment flipped, a restart. Only that record is lost: every row
/// after it is replayed, the damage is logged with its segment and offset (not its content),
/// counted, and its segment copied aside; `audit verify` reports the one missing row. The spool
/// already held four copies of damaged segments: the oldest is removed, with a warning and a
/// count, the copies count in the spool's bytes, and once an operator removes them they no
/// longer do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_spool_record_loses_only_itself_across_a_restart() {
    let pg = Arc::new(PrivatePostgres::start());
    let url = pg.url();
    let db = pool(&url).await;
    let token = agent_token(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(&url, dir.path(), "damaged-replica", "info").await;
    let client = client();
    let mut answered = Vec::new();
    let mut ask = async |id: String| {
        let reply = evaluate(&client, &server.address, &token, &bash_call("s", &id, "ls")).await;
        assert_eq!(reply, Some(json!({})), "{id}");
        answered.push(id);
    };
    ask("up".into()).await;
    in_background(&pg, PrivatePostgres::stop).await;
    for i in 0..5 {
        ask(format!("down-{i}")).await;
    }
    server.kill();
    let spool = dir.path().join("spool");
    let newest = std::fs::read_dir(&spool)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".seg"))
        .max()
        .expect("rows were spooled");
    let path = spool.join(&newest);
    let mut bytes = std::fs::read(&path).unwrap();
    // Inside the first record's payload (its header is 16 bytes).
    bytes[40] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let earlier: Vec<String> = (1..=4)
        .map(|n| format!("{:012}.seg.corrupt", 900_000_000_000_u64 + n))
        .collect();
    for name in &earlier {
        std::fs::write(spool.join(name), [7u8; 1000]).unwrap();
    }

    in_background(&pg, PrivatePostgres::start_server).await;
    let server = Server::start(&url, dir.path(), "damaged-replica", "info").await;
    let lost = "down-0".to_owned();
    eventually(
        Duration::from_secs(60),
        "every other answered evaluation to be in the audit",
        || async {
            let recorded = recorded_ids(&db).await;
            answered
                .iter()
                .filter(|id| **id != lost)
                .all(|id| recorded.contains(id))
                .then_some(())
        },
    )
    .await;
    assert!(!recorded_ids(&db).await.contains(&lost));
    let log = server.log();
    let line = log
        .lines()
        .find(|line| line.contains("failed its checksum"))
        .unwrap_or_else(|| panic!("no error about the damaged record:\n{log}"));
    assert!(line.contains("\"level\":\"ERROR\""), "{line}");
    assert!(
        line.contains(&format!("\"segment\":\"{newest}\"")),
        "{line}"
    );
    assert!(line.contains("\"offset\":0"), "{line}");
    assert!(
        !line.contains("down-0"),
        "the record's content is not logged: {line}"
    );
    assert_eq!(
        std::fs::read(spool.join(format!("{newest}.corrupt"))).unwrap(),
        bytes,
        "the damaged bytes are kept"
    );
    let metrics = metrics_text(&client, &server.address).await;
    assert!(
        metrics.contains("toolgate_audit_spool_corrupt_records_total 1"),
        "{metrics}"
    );
    let (code, out) = verify_cli(&url).await;
    assert_ne!(code, Some(0), "the damaged row is a gap: {out}");

    // Four copies were there already: the oldest went to make room for the new one.
    assert!(!spool.join(&earlier[0]).exists());
    for name in &earlier[1..] {
        assert!(spool.join(name).exists(), "{name}");
    }
    let line = eventually(
        Duration::from_secs(30),
        "a warning about the removed copy",
        || {
            let log = server.log();
            async move {
                log.lines()
                    .find(|line| line.contains("removed the oldest copy of a damaged audit spool"))
                    .map(str::to_owned)
            }
        },
    )
    .await;
    assert!(line.contains("\"level\":\"WARN\""), "{line}");
    assert!(line.contains(&earlier[0]), "{line}");
    assert!(
        metrics.contains("\ntoolgate_audit_spool_quarantine_dropped_total 1\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("\ntoolgate_audit_spool_quarantined_files 4\n"),
        "{metrics}"
    );
    // The spool's bytes are its segments' and its copies', until an operator removes them.
    let on_disk = |suffixes: &[&str]| -> u64 {
        std::fs::read_dir(&spool)
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| {
                let name = entry.file_name().into_string().unwrap_or_default();
                suffixes.iter().any(|suffix| name.ends_with(suffix))
            })
            .map(|entry| entry.metadata().unwrap().len())
            .sum()
    };
    let spool_bytes = async |client: &reqwest::Client| {
        let metrics = metrics_text(client, &server.address).await;
        let line = metrics
            .lines()
            .find(|line| line.starts_with("toolgate_audit_spool_bytes "))
            .unwrap()
            .to_owned();
        line["toolgate_audit_spool_bytes ".len()..]
            .parse::<u64>()
            .unwrap()
    };
    let expected = on_disk(&[".seg", ".seg.corrupt"]);
    assert!(expected > on_disk(&[".seg"]) + 3000);
    eventually(
        Duration::from_secs(30),
        "the copies in the spool's bytes",
        || async { (spool_bytes(&client).await == expected).then_some(()) },
    )
    .await;
    for entry in std::fs::read_dir(&spool).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".seg.corrupt") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let segments = on_disk(&[".seg"]);
    eventually(
        Duration::from_secs(30),
        "removed copies to stop counting",
        || async {
            let metrics = metrics_text(&client, &server.address).await;
            (spool_bytes(&client).await == segments
                && metrics.contains("\ntoolgate_audit_spool_quarantined_files 0\n"))
            .then_some(())
        },
    )
    .await;
}

/// With the database up, rows go straight to it and the spool stays empty. A SIGKILL lands
/// with inserts in flight; after a restart with the same replica id every answered evaluation is
/// in the audit, and the chain goes on after the last committed row: no fork, no gap, and no
/// restart, even for a batch that was sent and never committed (its claim is made certain).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_with_inserts_in_flight_loses_nothing_and_forks_no_chain() {
    let (url, db, token, dir) = fresh().await;
    let mut server = Server::start(&url, dir.path(), "busy-replica", "info").await;
    let client = client();
    let (clients, answered) = fire(8, &client, &server.address, &token, "busy");
    eventually(
        Duration::from_secs(60),
        "500 answered evaluations",
        || async { (answered.load(Ordering::Relaxed) >= 500).then_some(()) },
    )
    .await;
    let spool = dir.path().join("spool");
    let segments = || {
        std::fs::read_dir(&spool)
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".seg"))
            .count()
    };
    assert_eq!(
        segments(),
        0,
        "the database took every batch; nothing was spooled"
    );
    server.kill();
    let mut ids = answered_by(clients).await;
    // The head file as a process killed between sending a batch and its commit leaves it.
    {
        let (mut spool, _, recovered) =
            toolgate::audit::spool::Spool::open(&spool, 1 << 20, 1 << 30).unwrap();
        let mut record = recovered.recorded.expect("a head file");
        record.claimed = record.claimed.max(record.settled.seq + 5);
        spool.record_head(&record).unwrap();
    }

    let server = Server::start(&url, dir.path(), "busy-replica", "info").await;
    ids.push(one_more(&client, &server, &token).await);
    let recorded = recorded_ids(&db).await;
    let missing: Vec<&String> = ids.iter().filter(|id| !recorded.contains(id)).collect();
    assert!(missing.is_empty(), "answered but not recorded: {missing:?}");
    let (code, out) = verify_cli(&url).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("note:"), "the chain restarted: {out}");
    assert_eq!(segments(), 0);
}

/// A replica started under a new id on an old spool (the default id is new in every process)
/// starts its own chain instead of continuing the rows the old id left there, and a second
/// process on a spool in use refuses to start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_replica_id_on_an_old_spool_starts_its_own_chain() {
    let (url, db, token, dir) = fresh().await;
    let client = reqwest::Client::new();
    let mut first = Server::start(&url, dir.path(), "first-run", "info").await;
    let reply = evaluate(&client, &first.address, &token, &bash_call("s", "a", "ls")).await;
    assert_eq!(reply, Some(json!({})));

    let intruder = {
        let (url, spool) = (url.clone(), dir.path().join("spool"));
        let cache = dir.path().join("intruder-cache");
        tokio::task::spawn_blocking(move || {
            Command::new(env!("CARGO_BIN_EXE_toolgate"))
                .args([
                    "serve",
                    "--listen",
                    "127.0.0.1:0",
                    "--replica-id",
                    "intruder",
                ])
                .arg("--cache-dir")
                .arg(cache)
                .arg("--audit-spool-dir")
                .arg(spool)
                .env("DATABASE_URL", url)
                .env("TOOLGATE_ADMIN_TOKEN", ADMIN)
                .env_remove("TOOLGATE_AUDIT_MODE")
                .output()
                .expect("run toolgate serve")
        })
        .await
        .unwrap()
    };
    let stderr = String::from_utf8_lossy(&intruder.stderr);
    assert!(!intruder.status.success(), "{stderr}");
    assert!(stderr.contains("--audit-spool-dir"), "{stderr}");

    first.kill();
    let second = Server::start(&url, dir.path(), "second-run", "info").await;
    let reply = evaluate(&client, &second.address, &token, &bash_call("s", "b", "ls")).await;
    assert_eq!(reply, Some(json!({})));
    // The spool directory's head is the first run's: the second starts its own chain at 1.
    let expected = [("first-run".to_owned(), 1), ("second-run".to_owned(), 1)];
    let chains = eventually(
        Duration::from_secs(30),
        "both chains in the table",
        || async {
            let chains: Vec<(String, i64)> =
                sqlx::query_as("SELECT replica_id, seq FROM audit ORDER BY replica_id, seq")
                    .fetch_all(&db)
                    .await
                    .ok()?;
            (chains.len() >= expected.len()).then_some(chains)
        },
    )
    .await;
    assert_eq!(chains, expected);
    let (code, out) = verify_cli(&url).await;
    assert_eq!(code, Some(0), "{out}");
}

/// SIGTERM stops accepting, finishes in-flight requests and drains the audit queue: in async
/// mode (answer first, write behind) every answered evaluation is still in the audit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_the_audit_queue() {
    let (url, db, token, dir) = fresh().await;
    let mut server = Server::start_with(
        &url,
        dir.path(),
        "drained-replica",
        "info",
        &["--audit-mode", "async"],
    )
    .await;
    let client = reqwest::Client::new();
    let mut firing = Vec::new();
    for c in 0..8 {
        let (client, address, token) = (client.clone(), server.address.clone(), token.clone());
        firing.push(tokio::spawn(async move {
            let mut answered = Vec::new();
            for i in 0..50 {
                let id = format!("term-{c}-{i}");
                if evaluate(&client, &address, &token, &bash_call("s", &id, "ls"))
                    .await
                    .is_some()
                {
                    answered.push(id);
                }
            }
            answered
        }));
    }
    let mut answered = Vec::new();
    for task in firing {
        answered.extend(task.await.unwrap());
    }
    assert_eq!(answered.len(), 400);
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    eventually(Duration::from_secs(5), "the drain to be logged", || async {
        server.log().contains("queue drained").then_some(())
    })
    .await;
    let recorded = recorded_ids(&db).await;
    let missing = answered.iter().filter(|id| !recorded.contains(id)).count();
    assert_eq!(missing, 0, "answered evaluations missing after SIGTERM");
}

/// Tiny deterministic generator, so no realistic credential is ever committed.
struct Rng(u64);

impl Rng {
    fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                let x = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
                char::from(a[(x % a.len() as u64) as usize])
            })
            .collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// (name, secret, the text that carries it).
fn credentials() -> Vec<(&'static str, String, String)> {
    let mut r = Rng(0x5eed_1234_abcd);
    let github = format!("ghp_{}", r.chars(36, ALNUM));
    let aws = format!("AKIA{}", r.chars(16, &[UPPER, "234567"].concat()));
    let slack = format!(
        "xoxb-{}-{}-{}",
        r.chars(12, "0123456789"),
        r.chars(13, "0123456789"),
        r.chars(24, ALNUM)
    );
    let key_body: Vec<String> = (0..12)
        .map(|_| r.chars(64, &[ALNUM, "+/"].concat()))
        .collect();
    let key_line = key_body[3].clone();
    let private_key = format!(
        "-----BEGIN RSA {}-----\n{}\n-----END RSA {}-----",
        "PRIVATE KEY",
        key_body.join("\n"),
        "PRIVATE KEY"
    );
    let password = format!("S3cr3t-{}", r.chars(6, ALNUM));
    vec![
        (
            "github",
            github.clone(),
            format!("export GITHUB_TOKEN={github}\n"),
        ),
        (
            "aws",
            aws.clone(),
            format!("[default]\naws_access_key_id = {aws}\nregion = eu-west-1\n"),
        ),
        (
            "slack",
            slack.clone(),
            format!("curl -d token={slack} https://slack.com/api/chat.postMessage"),
        ),
        ("private-key", key_line, format!("{private_key}\n")),
        (
            "url-credentials",
            password.clone(),
            [
                "psql postgres://admin",
                ":",
                &password,
                "@db.internal:5432/app",
            ]
            .concat(),
        ),
    ]
}

#[tokio::test]
async fn generated_credentials_never_reach_the_audit_table_or_the_logs() {
    let (url, db, token, dir) = fresh().await;
    let server = Server::start(&url, dir.path(), "secret-replica", "debug").await;
    let client = reqwest::Client::new();

    let credentials = credentials();
    let mut events = Vec::new();
    for (name, _, text) in &credentials {
        events.push(json!({"hook_event_name": "PreToolUse", "session_id": "s",
            "tool_use_id": format!("write-{name}"), "cwd": "/tmp/p", "tool_name": "Write",
            "tool_input": {"file_path": "/tmp/p/config", "content": text}}));
        events.push(bash_call(
            "s",
            &format!("bash-{name}"),
            &format!("echo '{text}' > /tmp/x"),
        ));
        events.push(
            json!({"hook_event_name": "UserPromptSubmit", "session_id": "s",
            "prompt_id": format!("prompt-{name}"), "prompt": format!("use this: {text}")}),
        );
        events.push(json!({"hook_event_name": "PostToolUse", "session_id": "s",
            "tool_use_id": format!("post-{name}"), "tool_name": "Bash",
            "tool_input": {"command": "cat config"}, "tool_response": {"stdout": text}}));
        // A large Write whose secret sits where the stored head is cut.
        let mut big = "x".repeat(4096 - 20);
        big.push('\n');
        big.push_str(text);
        big.push_str(&"y".repeat(30_000));
        events.push(json!({"hook_event_name": "PreToolUse", "session_id": "s",
            "tool_use_id": format!("big-{name}"), "tool_name": "Write",
            "tool_input": {"file_path": "/tmp/p/big", "content": big}}));
    }
    for event in &events {
        assert!(
            evaluate(&client, &server.address, &token, event)
                .await
                .is_some()
        );
    }
    let texts: Vec<String> = sqlx::query_scalar("SELECT a::text FROM audit a")
        .fetch_all(&db)
        .await
        .unwrap();
    assert_eq!(texts.len(), events.len());
    let all = texts.join("\n");
    assert!(
        all.contains("[REDACTED:"),
        "secrets are masked, not dropped"
    );
    let log = server.log();
    assert!(log.contains("evaluated"), "debug logs were captured");
    for (name, secret, _) in &credentials {
        assert!(
            !all.contains(secret.as_str()),
            "the {name} credential is in the audit table"
        );
        assert!(
            !log.contains(secret.as_str()),
            "the {name} credential is in the logs"
        );
    }
}

/// The writer logs its chain's head (at stop here; every minute while it moves), a witness
/// outside the database: a tail deleted from the database afterwards passes `audit verify`
/// alone, and fails it against the logged head, or against the head the spool directory keeps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_logged_chain_head_shows_a_tail_deleted_after_it() {
    let (url, db, token, dir) = fresh().await;
    let mut server = Server::start(&url, dir.path(), "witnessed-replica", "info").await;
    let client = client();
    for i in 0..4 {
        let id = format!("w-{i}");
        let reply = evaluate(&client, &server.address, &token, &bash_call("s", &id, "ls")).await;
        assert_eq!(reply, Some(json!({})));
    }
    let metrics = metrics_text(&client, &server.address).await;
    assert!(
        metrics.contains("toolgate_audit_chain_head_seq{replica=\"witnessed-replica\"} 4\n"),
        "{metrics}"
    );
    assert!(server.terminate().success());
    let head: Value = eventually(Duration::from_secs(10), "the head to be logged", || {
        let log = server.log();
        async move {
            log.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .rfind(|line| line["message"] == "audit chain head")
        }
    })
    .await;
    assert_eq!(head["level"], "INFO", "{head}");
    assert_eq!(head["audit.replica"], "witnessed-replica", "{head}");
    assert_eq!(head["audit.seq"], 4, "{head}");
    let hash: Vec<u8> =
        sqlx::query_scalar("SELECT hash FROM audit WHERE replica_id = $1 AND seq = 4")
            .bind("witnessed-replica")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(head["audit.hash"], hex::encode(hash), "{head}");

    let logged = format!(
        "--expect-head=witnessed-replica=4:{}",
        head["audit.hash"].as_str().unwrap()
    );
    let spool = format!("--spool-dir={}", dir.path().join("spool").display());
    for witness in [&logged, &spool] {
        let (code, out) = verify_cli_with(&url, &[witness]).await;
        assert_eq!(code, Some(0), "{witness}: {out}");
    }
    sqlx::query("DELETE FROM audit WHERE seq = 4")
        .execute(&db)
        .await
        .unwrap();
    assert_eq!(verify_cli(&url).await.0, Some(0), "invisible to the chain");
    for witness in [&logged, &spool] {
        let (code, out) = verify_cli_with(&url, &[witness]).await;
        assert_eq!(code, Some(1), "{witness}: {out}");
        assert!(
            out.contains("truncated: replica `witnessed-replica` ends at row ")
                && out.contains("(seq 3), before its expected head at seq 4: seq 4 is missing"),
            "{witness}: {out}"
        );
    }
}
