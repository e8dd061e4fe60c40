//! The platform run apart on a replicated layout (`lotto cluster`, ADR 0013): each service its
//! own binary, as docker-compose.yml and the Kubernetes manifests run them, two replicas of each
//! on the ports `lotto cluster start` prints for them, behind the layout's fronts; one payments
//! sandbox. Every process is started, killed and started again as an operator's supervisor
//! would.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The services, in the order `lotto cluster start` prints their fronts.
/// What the identity provider signs its webhooks with, and the key the player files are sealed
/// with, as an operator gives every replica.
const IDENTITY_WEBHOOK_SECRET: &str = "the identity sandbox's secret for services apart";
const IDENTITY_KEY: &str = "the player files' key for services run apart";

pub const SERVICES: [&str; 5] = ["gateway", "ledger", "draw-games", "table-games", "instant"];
pub const GATEWAY: usize = 0;
pub const LEDGER: usize = 1;
pub const DRAWS: usize = 2;
pub const TABLES: usize = 3;
pub const INSTANT: usize = 4;

/// The lottery's Ed25519 seed the instant replicas share (the layout gives it to both).
const SIGNING_KEY: &str = "5a1d0c0ffee0ddba11f00d5eed0fa11c0c0a5eedf00dfacadebeef0123456789";

/// A service's address and its replicas' ports, as `lotto cluster start` printed them.
#[derive(Debug, Clone)]
pub struct Front {
    pub port: u16,
    pub replicas: Vec<u16>,
}

/// Reads the fronts from `lotto cluster start`'s line `services run apart: gateway
/// 127.0.0.1:F (R1, R2); ledger ...`.
pub fn fronts(said: &str) -> Vec<Front> {
    let line =
        said.lines().find_map(|l| l.strip_prefix("services run apart: ")).expect("it names the fronts");
    let fronts: Vec<Front> = line
        .split("; ")
        .zip(SERVICES)
        .map(|(each, name)| {
            let rest = each.strip_prefix(name).expect("in the order of SERVICES").trim();
            let (front, replicas) = rest.split_once(" (").unwrap();
            let port = front.rsplit(':').next().unwrap().parse().unwrap();
            let replicas = replicas.trim_end_matches(')').split(", ").map(|p| p.parse().unwrap()).collect();
            Front { port, replicas }
        })
        .collect();
    assert_eq!(fronts.len(), SERVICES.len(), "{line}");
    fronts
}

/// One process of the layout: how it is started, and the running child.
pub struct Process {
    command: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    dir: PathBuf,
    port: u16,
    ready_path: &'static str,
    /// Its metrics (Prometheus text).
    pub metrics: String,
    child: Option<Child>,
}

impl Process {
    fn spawn(&mut self) {
        let log = std::fs::File::options().create(true).append(true).open(self.log()).unwrap();
        let mut command = Command::new(&self.command);
        command
            .args(&self.args)
            .env_remove("DATABASE_URL")
            .current_dir(&self.dir)
            .stdout(Stdio::null())
            .stderr(log);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        self.child = Some(command.spawn().unwrap_or_else(|e| panic!("{}: {e}", self.command.display())));
    }

    /// Where what it logs goes (every start of it appends).
    pub fn log(&self) -> PathBuf {
        let name = self.command.file_name().unwrap().to_string_lossy().into_owned();
        self.dir.join(format!("{name}-{}.log", self.port))
    }

    /// Waits until it answers its readiness path (or fails, if it exited).
    async fn ready(&mut self, http: &reqwest::Client) {
        let url = format!("http://127.0.0.1:{}{}", self.port, self.ready_path);
        for _ in 0..600 {
            if http.get(&url).send().await.is_ok_and(|r| r.status() == 200) {
                return;
            }
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                panic!(
                    "{} on {} exited at start: {status}; see {}",
                    self.command.display(),
                    self.port,
                    self.log().display()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{} on {} was not ready within 60 s", self.command.display(), self.port);
    }

    /// SIGKILL: no shutdown, as the loss of its machine would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM and a clean exit, as a rolling restart stops it.
    pub fn stop(&mut self) {
        let child = self.child.as_mut().expect("running");
        let pid = child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let status = child.wait().unwrap();
        assert!(status.success(), "{} exited with {status}", self.command.display());
        self.child = None;
    }

    /// Started again (on its own port, where the front looks for it) and ready.
    pub async fn start(&mut self, http: &reqwest::Client) {
        self.spawn();
        self.ready(http).await;
    }

    /// What one of its metrics says now (the first series of that name).
    pub async fn metric(&self, http: &reqwest::Client, name: &str) -> Option<f64> {
        let text = http.get(&self.metrics).send().await.ok()?.text().await.ok()?;
        text.lines()
            .find(|line| line.starts_with(name) && line[name.len()..].starts_with([' ', '{']))
            .and_then(|line| line.rsplit(' ').next()?.parse().ok())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Two replicas of every service and a payments sandbox, on a layout's ports.
pub struct Apart {
    /// `replicas[service][n]`, services in the order of [`SERVICES`].
    pub replicas: Vec<Vec<Process>>,
    pub sandbox: Process,
    /// The address clients call (the gateways' front).
    pub front: String,
    http: reqwest::Client,
}

impl Apart {
    /// Starts them in the order a supervisor would (the ledger first, the gateways last), with
    /// what an operator gives every replica (`env`: the database, the keys, the settings) and
    /// what each service needs to find the others (their fronts).
    pub async fn start(said: &str, dir: &Path, env: &[(&'static str, String)]) -> Apart {
        Apart::start_on(fronts(said), dir, env).await
    }

    /// One process of each service, each its own front (no balancer), on free ports.
    pub async fn start_one_each(dir: &Path, env: &[(&'static str, String)]) -> Apart {
        let fronts = SERVICES
            .iter()
            .map(|_| {
                let port = super::free_port();
                Front { port, replicas: vec![port] }
            })
            .collect();
        Apart::start_on(fronts, dir, env).await
    }

    /// [`Apart::start`] on `fronts`.
    pub async fn start_on(fronts: Vec<Front>, dir: &Path, env: &[(&'static str, String)]) -> Apart {
        let url = |service: usize| format!("http://127.0.0.1:{}", fronts[service].port);
        let bin = super::binaries();
        let sandbox_port = super::free_port();
        // The layout's own settings, then the test's (a later setting wins: a test may log more).
        let mut shared: Vec<(String, String)> = Vec::new();
        shared.extend(
            [
                ("LOTTO_TOKEN_SECRET", super::SECRET.to_owned()),
                ("LOTTO_LOG", "warn".to_owned()),
                ("LOTTO_LEDGER_URL", url(LEDGER)),
                ("LOTTO_DRAWS_URL", url(DRAWS)),
                ("LOTTO_TABLES_URL", url(TABLES)),
                ("LOTTO_INSTANT_URL", url(INSTANT)),
                ("LOTTO_PAYMENTS_URL", format!("http://127.0.0.1:{sandbox_port}")),
                ("LOTTO_IDENTITY_URL", format!("http://127.0.0.1:{sandbox_port}")),
                ("LOTTO_LOCATION_URL", format!("http://127.0.0.1:{sandbox_port}")),
                ("LOTTO_IDENTITY_WEBHOOK_SECRET", IDENTITY_WEBHOOK_SECRET.to_owned()),
                ("LOTTO_IDENTITY_KEY", IDENTITY_KEY.to_owned()),
                ("LOTTO_GATEWAY_URL", url(GATEWAY)),
                ("LOTTO_SIGNING_KEY", SIGNING_KEY.to_owned()),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        shared.extend(env.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        let process = |command: &str, args: &[&str], port: u16, ready_path: &'static str| {
            let metrics_port = super::free_port();
            let mut env = shared.clone();
            env.push(("LOTTO_LISTEN".to_owned(), format!("127.0.0.1:{port}")));
            env.push(("LOTTO_METRICS_LISTEN".to_owned(), format!("127.0.0.1:{metrics_port}")));
            Process {
                command: bin.join(command),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                env,
                dir: dir.to_owned(),
                port,
                ready_path,
                metrics: format!("http://127.0.0.1:{metrics_port}/metrics"),
                child: None,
            }
        };
        let http = reqwest::Client::new();
        let mut replicas: Vec<Vec<Process>> = SERVICES
            .iter()
            .zip(&fronts)
            .map(|(name, front)| {
                front.replicas.iter().map(|port| process(name, &[], *port, "/readyz")).collect()
            })
            .collect();
        let mut sandbox = process("lotto", &["payments-sandbox"], sandbox_port, "/healthz");
        // Players open its identity pages where it listens.
        sandbox.env.push(("LOTTO_PUBLIC_URL".to_owned(), format!("http://127.0.0.1:{sandbox_port}")));
        // Each service once its front passes to it: a service that needs another at its start
        // (the ledger, for the accounts it opens) finds it.
        for service in [LEDGER, DRAWS, TABLES, INSTANT, GATEWAY] {
            if service == GATEWAY {
                sandbox.start(&http).await;
            }
            for replica in &mut replicas[service] {
                replica.start(&http).await;
            }
            let ready = format!("{}/readyz", url(service));
            for _ in 0..100 {
                if http.get(&ready).send().await.is_ok_and(|r| r.status() == 200) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Apart { replicas, sandbox, front: url(GATEWAY), http }
    }

    /// Kills replica `n` of `service` (SIGKILL), then starts it again, as its supervisor would
    /// a second later.
    pub async fn kill_and_restart(&mut self, service: usize, n: usize) {
        self.replicas[service][n].kill();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let http = self.http.clone();
        self.replicas[service][n].start(&http).await;
    }

    /// The draw-games replica whose scheduler leads now (waits for one to say so).
    pub async fn draws_leader(&self) -> usize {
        for _ in 0..600 {
            for (n, replica) in self.replicas[DRAWS].iter().enumerate() {
                if replica.metric(&self.http, "draw_scheduler_leader").await == Some(1.0) {
                    return n;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no draw-games replica's scheduler leads");
    }

    /// The sum over a service's replicas of one of their metrics.
    pub async fn metric_sum(&self, service: usize, name: &str) -> f64 {
        let mut sum = 0.0;
        for replica in &self.replicas[service] {
            sum += replica.metric(&self.http, name).await.unwrap_or(0.0);
        }
        sum
    }

    /// Every process stopped cleanly (SIGTERM), the gateways first.
    pub fn stop(mut self) {
        for service in [GATEWAY, INSTANT, TABLES, DRAWS, LEDGER] {
            for replica in &mut self.replicas[service] {
                replica.stop();
            }
        }
        self.sandbox.stop();
    }
}
