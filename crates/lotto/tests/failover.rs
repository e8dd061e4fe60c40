//! Failover (issue 34): two `lotto` replicas behind one address on the replicated Postgres of ADR
//! 0013, started with `lotto cluster start` as an operator starts it (etcd, three Patroni
//! members, HAProxy in front of Postgres and of the replicas, from Debian's packages), under the
//! mixed load of the chaos test. The replica whose draw scheduler leads is killed (SIGKILL) and
//! started again; the primary is killed outright (its Patroni, its Postgres and every backend, as
//! the loss of its machine would) and brought back as a standby; then the other replica, then the
//! new primary. After it:
//!
//! - every acknowledged request is found exactly once (a commit acknowledged only once a
//!   synchronous standby has it is never lost);
//! - the money checks of the chaos test hold (trial balance, every account against its journal,
//!   every audit chain, every ticket and round charged and paid once, nothing left in escrow);
//! - the seconds without an acknowledged write after each death are printed, and are within the
//!   two minutes of K.A.R. 112-110-9 (the goal, 15 s, is printed beside them);
//! - every request was answered in the end (a client retries on a dropped connection, a 503, or
//!   the front's 502 or 504), and one draw scheduler leads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::cluster::Cluster;
use common::mixed::{self, Client, Tally, VIRN_KEY, WEBHOOK_SECRET};
use common::{Lotto, SECRET};
use platform::auth::TokenKeys;
use tokio::sync::RwLock;

/// Seconds from `since` to the first acknowledged write sent after it.
async fn without_writes(client: &Client, since: Instant, dir: &Path) -> f64 {
    for _ in 0..1_200 {
        if let Some(gap) = client.tally.first_write_after(since) {
            return gap.as_secs_f64();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no write was acknowledged within 120 s; see {}", dir.display());
}

/// The connections the primary serves now (every client's, the standbys' not counted).
async fn server_connections(url: &str) -> i64 {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let count =
        sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'")
            .fetch_one(&pool)
            .await
            .unwrap();
    pool.close().await;
    count
}

/// A `lotto` replica of the layout: the process and where its metrics are.
struct Replica {
    lotto: Option<Lotto>,
    env: Vec<(&'static str, String)>,
    metrics: String,
}

impl Replica {
    fn start(env: &[(&'static str, String)], listen: u16) -> Replica {
        let metrics_port = common::free_port();
        let mut env = env.to_vec();
        env.push(("LOTTO_LISTEN", format!("127.0.0.1:{listen}")));
        env.push(("LOTTO_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}")));
        let lotto = Lotto::start(&env, Duration::from_secs(60));
        Replica { lotto: Some(lotto), env, metrics: format!("http://127.0.0.1:{metrics_port}/metrics") }
    }

    /// SIGKILL, then started again (its port is its own, so the front finds it there).
    fn kill_and_restart(&mut self) {
        self.lotto.take().unwrap().kill();
        std::thread::sleep(Duration::from_secs(1));
        self.lotto = Some(Lotto::start(&self.env, Duration::from_secs(60)));
    }

    /// What one of its metrics says now (the first series of that name).
    async fn metric(&self, http: &reqwest::Client, name: &str) -> Option<f64> {
        let text = http.get(&self.metrics).send().await.ok()?.text().await.ok()?;
        text.lines()
            .find(|line| line.starts_with(name) && line[name.len()..].starts_with([' ', '{']))
            .and_then(|line| line.rsplit(' ').next()?.parse().ok())
    }
}

/// The replica whose scheduler leads now (waits for one to say so).
async fn leader(replicas: &[Replica], http: &reqwest::Client) -> usize {
    for _ in 0..600 {
        for (n, replica) in replicas.iter().enumerate() {
            if replica.metric(http, "draw_scheduler_leader").await == Some(1.0) {
                return n;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no replica's draw scheduler leads");
}

// Two threads: the cluster's commands block one while the load goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_and_the_primary_lost_under_load_lose_no_acknowledged_request_and_move_no_cent_wrongly() {
    let (cluster, url) = Cluster::start();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let winners = mixed::instant_winners(&url, &keys, Duration::from_secs(3)).await;
    // The replicas share what an operator shares between them: the database, the keys and the
    // settings.
    let env = [
        ("DATABASE_URL", url.clone()),
        ("LOTTO_SECRETS_DIR", cluster.dir.join("secrets").display().to_string()),
        ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned()),
        ("LOTTO_VIRN_KEY", VIRN_KEY.to_owned()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
        ("LOTTO_BJ_ABANDONED_AFTER_SECONDS", "3".to_owned()),
        // Six players at a debug build's full speed exceed the default 20 requests a second per
        // identity: lifted, so that the throughput measured is the platform's, not the limit's.
        ("LOTTO_RATE_PER_IDENTITY", "60000".to_owned()),
    ];
    let mut figures = Vec::new();
    let mut replicas: Vec<Replica> =
        (0..2).map(|r| Replica::start(&env, cluster.base_port + 31 + r)).collect();
    let front = format!("http://127.0.0.1:{}", cluster.base_port + 30);
    let http = reqwest::Client::new();
    for _ in 0..100 {
        let ready = http.get(format!("{front}/readyz")).send().await.is_ok_and(|r| r.status() == 200);
        if ready {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let client =
        Client { http: http.clone(), base: Arc::new(RwLock::new(front)), tally: Arc::new(Tally::default()) };
    let players = mixed::funded_players(&client, 6).await;
    let load = mixed::start(&client, &players, &winners, &keys, 30);

    // Throughput through the front: over one replica (the other stopped, as in a rolling
    // restart), then over both. Printed, not asserted: this machine's two cores are shared by
    // both replicas, Postgres's three members and the load.
    let mut rates = Vec::new();
    let second = replicas[1].lotto.take().unwrap().terminate();
    assert!(second.iter().all(|line| !line.contains("ERROR")), "{second:?}");
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let from = Instant::now();
        tokio::time::sleep(Duration::from_secs(8)).await;
        let writes = client.tally.writes_between(from, Instant::now());
        rates.push((writes as f64 / 8.0, server_connections(&url).await));
        if replicas[1].lotto.is_none() {
            replicas[1].lotto = Some(Lotto::start(&replicas[1].env, Duration::from_secs(60)));
        }
    }
    figures.push(format!(
        "acknowledged writes/s over one replica {:.0} ({} server connections), over two {:.0} ({}): {:.2}x",
        rates[0].0,
        rates[0].1,
        rates[1].0,
        rates[1].1,
        rates[1].0 / rates[0].0
    ));

    let mut gaps = Vec::new();
    for round in 0..2 {
        // A replica lost: the scheduler's leader first, the other replica the second time.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let leading = leader(&replicas, &http).await;
        let lost = if round == 0 { leading } else { 1 - leading };
        replicas[lost].kill_and_restart();
        figures.push(format!("lotto{} killed (it led the draws: {})", lost + 1, lost == leading));
        // The primary lost, and brought back as a standby once another member took over.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let said = cluster.run("kill primary");
        let killed_at = Instant::now();
        let gap = without_writes(&client, killed_at, &cluster.dir).await;
        figures.push(format!("{}: writes acknowledged again after {gap:.1} s", said.trim()));
        gaps.push(gap);
        cluster.run("start");
    }
    client.tally.done.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    let checked = mixed::settled_and_checked(&client, &url, &keys).await;

    // One leader, whichever it is; the draws due while none could draw were drawn once, late.
    let mut leaders = 0;
    let mut late = 0.0;
    for replica in &replicas {
        leaders += usize::from(replica.metric(&http, "draw_scheduler_leader").await == Some(1.0));
        late += replica.metric(&http, "draws_late_total").await.unwrap_or(0.0);
    }
    let status = cluster.run("status");
    println!(
        "failover: {}\n{checked}\nseconds without writes after each primary's death: {gaps:.1?} (goal 15 s, ceiling 120 s); \
         draws reported late since the restarts: {late}\n{status}",
        figures.join("; ")
    );
    assert_eq!(leaders, 1, "one draw scheduler leads");
    assert!(gaps.iter().all(|gap| *gap < 120.0), "K.A.R. 112-110-9 allows two minutes: {gaps:?}");
    assert!(client.tally.retried.load(Ordering::Relaxed) > 0, "no request met a failure");
    for replica in replicas {
        replica.lotto.unwrap().terminate();
    }
}
