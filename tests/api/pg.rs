//! A private PostgreSQL server that a test may stop and start again, without disturbing the shared
//! one from `DATABASE_URL`. initdb into a temporary directory, `pg_ctl start` on a free port; as
//! the `postgres` user when the tests run as root. Stopped (immediately) on drop.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PrivatePostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

fn pg_bin() -> PathBuf {
    if let Ok(dir) = std::env::var("TOOLGATE_TEST_PG_BIN") {
        return PathBuf::from(dir);
    }
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        if dir.join("pg_ctl").exists() && dir.join("initdb").exists() {
            return dir;
        }
    }
    for version in ["17", "16", "15", "14", "13"] {
        let dir = PathBuf::from(format!("/usr/lib/postgresql/{version}/bin"));
        if dir.join("pg_ctl").exists() {
            return dir;
        }
    }
    panic!("PostgreSQL binaries not found: set TOOLGATE_TEST_PG_BIN or run scripts/test");
}

fn output_of(command: &mut Command) -> String {
    let output = command.output().expect("failed to run a command");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("no free port")
}

impl PrivatePostgres {
    /// initdb and start.
    pub fn start() -> Self {
        let bin = pg_bin();
        let as_postgres = output_of(Command::new("id").arg("-u")) == "0";
        let dir = tempfile::Builder::new()
            .prefix("toolgate-test-pg")
            .tempdir()
            .expect("tempdir");
        if as_postgres {
            let uid: u32 = output_of(Command::new("id").args(["-u", "postgres"]))
                .parse()
                .expect("no `postgres` user: run scripts/test, which creates it");
            let gid: u32 = output_of(Command::new("id").args(["-g", "postgres"]))
                .parse()
                .expect("postgres gid");
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown");
        }
        let pg = Self {
            dir,
            bin,
            port: free_port(),
            as_postgres,
        };
        let data = pg.data();
        let status = pg
            .command("initdb")
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .output()
            .expect("initdb");
        assert!(
            status.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        pg.start_server();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Starts (again) on the same port.
    pub fn start_server(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.socket_dir().display()
        );
        let output = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.path().join("server.log"))
            .args(["-w", "-o", &options, "start"])
            .output()
            .expect("pg_ctl start");
        assert!(
            output.status.success(),
            "pg_ctl start failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Stops immediately.
    pub fn stop(&self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        self.stop();
    }
}
