//! What the `lotto` process tests share: the command started the way a user starts it (a real
//! process, a real socket), killed or stopped.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `lotto` process; killed if a test fails before stopping it.
pub struct Lotto {
    child: Child,
    pub base_url: String,
    /// What it printed before it said where it listens.
    pub banner: Vec<String>,
    stdout: mpsc::Receiver<String>,
}

impl Lotto {
    /// Starts `lotto` with `env` and waits (up to `wait`) for its "listening on" line.
    // The child is reaped by `terminate` or by `Drop`, which clippy cannot see from here.
    #[allow(clippy::zombie_processes)]
    pub fn start(env: &[(&str, String)], wait: Duration) -> Lotto {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lotto"));
        command
            .env_remove("DATABASE_URL")
            .env("LOTTO_LISTEN", "127.0.0.1:0")
            .env("LOTTO_LOG", "warn")
            .env("LOTTO_TOKEN_SECRET", SECRET)
            // The secrets lotto keeps go to a directory of this start's unless a test names one.
            .env("LOTTO_SECRETS_DIR", platform::config::scratch_dir("lotto-secrets"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("spawn lotto");
        let (tx, stdout) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut banner = Vec::new();
        loop {
            match stdout.recv_timeout(wait) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("lotto listening on ") {
                        return Lotto { child, base_url: url.to_owned(), banner, stdout };
                    }
                    banner.push(line);
                }
                Err(e) => {
                    let _ = child.kill();
                    panic!("lotto did not say where it listens: {e}");
                }
            }
        }
    }

    /// The process's id (for its `/proc` figures).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process outright (SIGKILL): no shutdown, no cleanup, as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM and waits for a clean exit; returns what it printed meanwhile.
    pub fn terminate(mut self) -> Vec<String> {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "lotto exited with {status}");
        self.stdout.try_iter().collect()
    }
}

impl Drop for Lotto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The secret the tests start `lotto` with, so they can sign tokens it accepts.
pub const SECRET: &str = "lotto-command-tests-secret-0123456789abcdef";

pub mod apart;
pub mod cluster;
pub mod mixed;
pub mod powerball_load;

/// The workspace's binaries, built as the image builds them (a no-op when they are current).
pub fn binaries() -> std::path::PathBuf {
    let status = Command::new(env!("CARGO")).args(["build", "--workspace", "--bins"]).status().unwrap();
    assert!(status.success(), "cargo build --bins failed");
    std::path::Path::new(env!("CARGO_BIN_EXE_lotto")).parent().unwrap().to_path_buf()
}

/// A `/proc/<pid>/status` figure in kB (`VmRSS`: resident now; `VmHWM`: the most resident).
pub fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(&format!("{field}:"))).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A player registered and logged in at `base`; returns the access token.
pub async fn player(http: &reqwest::Client, base: &str, email: &str, password: &str) -> String {
    let body = serde_json::json!({"email": email, "password": password, "date_of_birth": "1990-05-17"});
    let registered = http.post(format!("{base}/v1/players")).json(&body).send().await.unwrap();
    assert_eq!(registered.status(), 201, "{}", registered.text().await.unwrap());
    log_in(http, base, serde_json::json!({"email": email, "password": password})).await
}

/// A session opened with `credentials` (a player's, a staff member's or a terminal's) at
/// `base`; returns the access token.
pub async fn log_in(http: &reqwest::Client, base: &str, credentials: serde_json::Value) -> String {
    let login: serde_json::Value = http
        .post(format!("{base}/v1/sessions"))
        .json(&credentials)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    login["access_token"].as_str().unwrap_or_else(|| panic!("no login: {login}")).to_owned()
}

/// An operator made with `lotto admin create-operator`, as the README does, in the platform's
/// database at `database_url`.
pub fn create_operator(database_url: &str, username: &str, password: &str) {
    let made = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", username])
        .env("DATABASE_URL", database_url)
        .env("LOTTO_ADMIN_PASSWORD", password)
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
}
