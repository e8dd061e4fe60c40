//! A replicated layout of a test's own (`lotto cluster`, ADR 0013), on free ports in a scratch
//! directory, stopped when the test ends however it ends.

use std::path::PathBuf;
use std::process::Command;

/// A replicated layout of this test's, stopped when the test ends (however it ends).
pub struct Cluster {
    pub dir: PathBuf,
    pub base_port: u16,
    /// What `lotto cluster start` printed the first time (the URL, the fronts' ports).
    pub said: String,
}

impl Cluster {
    /// `lotto cluster start` on a fresh directory and free ports; returns it and its URL.
    pub fn start() -> (Cluster, String) {
        let mut cluster = Cluster {
            dir: platform::config::scratch_dir("cluster"),
            base_port: free_ports(),
            said: String::new(),
        };
        let said = cluster.run("start");
        let url =
            said.lines().find_map(|l| l.strip_prefix("DATABASE_URL=")).expect("it says the URL").to_owned();
        cluster.said = said;
        (cluster, url)
    }

    /// Runs `lotto cluster <args>`; returns what it printed.
    pub fn run(&self, args: &str) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_lotto"))
            .arg("cluster")
            .args(args.split(' '))
            .env("LOTTO_CLUSTER_DIR", &self.dir)
            .env("LOTTO_CLUSTER_PORT", self.base_port.to_string())
            .env("LOTTO_LOG", "warn")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "lotto cluster {args}: {said}{}", String::from_utf8_lossy(&out.stderr));
        said
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_lotto"))
            .args(["cluster", "stop"])
            .env("LOTTO_CLUSTER_DIR", &self.dir)
            .output();
    }
}

/// A base port whose layout's ports (base to base + 44, and base + 50, where the README's walk-through
/// restores) are all free now, and all below Linux's ephemeral range (32768 and up): a port free
/// now but in that range may be taken as the source port of a connection the cluster's own parts
/// make (Patroni to etcd, HAProxy's checks) before the part that listens on it starts (seen: a
/// member's REST API "Address already in use").
///
/// Ports free now are not yet taken, so two clusters of one test binary started side by side
/// could be given overlapping layouts (seen in CI: bases 27680 and 27701); the bases handed out in
/// this process are remembered and a base within a layout's width of one is never handed out again.
pub fn free_ports() -> u16 {
    static HANDED_OUT: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    const WIDTH: u16 = 51;
    let free = |port: u16| std::net::TcpListener::bind(("127.0.0.1", port)).is_ok();
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for _ in 0..100 {
        let base = 20_000 + (super::free_port() % 12_700);
        let clear_of_others = handed_out.iter().all(|&other| base.abs_diff(other) >= WIDTH);
        if clear_of_others && (0..=44).chain([50]).all(|offset| free(base + offset)) {
            handed_out.push(base);
            return base;
        }
    }
    panic!("no free run of ports for the cluster");
}
