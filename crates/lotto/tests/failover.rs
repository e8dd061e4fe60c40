//! Failover (issue 34): the platform run apart (each service its own binary, two replicas of
//! each, two gateways behind one address) on the replicated Postgres of ADR 0013, started with
//! `lotto cluster start` as an operator starts it (etcd, three Patroni members, HAProxy in front
//! of Postgres and of each service, from Debian's packages), under the mixed load of the chaos
//! test. Twice: one replica of each service is killed (SIGKILL) and started again (the draw
//! scheduler's leader the first time), then the primary is killed outright (its Patroni, its
//! Postgres and every backend, as the loss of its machine would) and brought back as a standby.
//! A Powerball drawing's sales close during it (the draw-games replicas' clock is shifted to meet
//! it), with slips sold at a till and online until then and refused after. After it:
//!
//! - every acknowledged request is found exactly once (a commit acknowledged only once a
//!   synchronous standby has it is never lost);
//! - the money checks of the chaos test hold (trial balance, every account against its journal,
//!   every audit chain, every ticket and round charged and paid once, nothing left in escrow);
//! - the seconds without an acknowledged write after each death are printed, and are within the
//!   two minutes of K.A.R. 112-110-9 (the goal, 15 s, is printed beside them);
//! - the drawing closed and exported once, with no ticket sold after its close;
//! - every request was answered in the end (a client retries on a dropped connection, a 503, or
//!   the front's 502 or 504), and one draw scheduler leads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::SECRET;
use common::apart::{Apart, DRAWS, GATEWAY, INSTANT, LEDGER, TABLES};
use common::cluster::Cluster;
use common::mixed::{self, Client, Tally, VIRN_KEY, WEBHOOK_SECRET};
use common::powerball_load::{self, Close};
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

// Two threads: the cluster's commands block one while the load goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_and_the_primary_lost_under_load_lose_no_acknowledged_request_and_move_no_cent_wrongly() {
    let (cluster, url) = Cluster::start();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let winners = mixed::instant_winners(&url, &keys, Duration::from_secs(3)).await;
    // A Powerball drawing's sales close about half a minute into the load, on the draws' clock
    // (the cluster, the replicas and the players take most of a minute to come up first).
    let close = Close::in_(Duration::from_secs(100));
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
        ("LOTTO_CLOCK_OFFSET_SECONDS", close.offset.to_string()),
        ("LOTTO_POWERBALL_ONLINE", "true".to_owned()),
    ];
    let mut figures = Vec::new();
    let mut apart = Apart::start(&cluster.said, &cluster.dir, &env).await;
    let http = reqwest::Client::new();
    let client = Client {
        http: http.clone(),
        base: Arc::new(RwLock::new(apart.front.clone())),
        tally: Arc::new(Tally::default()),
    };
    let players = mixed::funded_players(&client, 6).await;
    let load = mixed::start(&client, &players, &winners, &keys, 30);
    let powerball = powerball_load::start(&client, &keys, &players[0], close).await;

    // Throughput through the front: over one replica of each service (the others stopped, as
    // in a rolling restart), then over two. Printed, not asserted: this machine's two cores are
    // shared by every replica, Postgres's three members and the load.
    let mut rates = Vec::new();
    for one in [true, false] {
        if one {
            for service in &mut apart.replicas {
                service[1].stop();
            }
        }
        tokio::time::sleep(Duration::from_secs(3)).await;
        let from = Instant::now();
        tokio::time::sleep(Duration::from_secs(8)).await;
        let writes = client.tally.writes_between(from, Instant::now());
        rates.push((writes as f64 / 8.0, server_connections(&url).await));
        if one {
            for service in &mut apart.replicas {
                service[1].start(&http).await;
            }
        }
    }
    figures.push(format!(
        "acknowledged writes/s over one replica of each service {:.0} ({} server connections), over two {:.0} ({}): {:.2}x",
        rates[0].0,
        rates[0].1,
        rates[1].0,
        rates[1].1,
        rates[1].0 / rates[0].0
    ));

    let mut gaps = Vec::new();
    for round in 0..2 {
        // A replica of each service lost, one after another, each started again a second
        // later: the draw scheduler's leader first, the other draw-games replica the second time.
        let leading = apart.draws_leader().await;
        let lost_draws = if round == 0 { leading } else { 1 - leading };
        let retried = client.tally.retried.load(Ordering::Relaxed);
        for service in [DRAWS, LEDGER, TABLES, INSTANT, GATEWAY] {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let n = if service == DRAWS { lost_draws } else { round };
            apart.kill_and_restart(service, n).await;
        }
        figures.push(format!(
            "round {}: one replica of each service killed and restarted (draw-games{} led the draws), {} requests retried",
            round + 1,
            lost_draws + 1,
            client.tally.retried.load(Ordering::Relaxed) - retried
        ));
        // The primary lost, and brought back as a standby once another member took over.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let said = cluster.run("kill primary");
        let killed_at = Instant::now();
        let gap = without_writes(&client, killed_at, &cluster.dir).await;
        figures.push(format!("{}: writes acknowledged again after {gap:.1} s", said.trim()));
        gaps.push(gap);
        cluster.run("start");
    }
    // Sales go on across the close, however long the disturbance took.
    let closed = close.sales_close - chrono::Duration::seconds(close.offset) + chrono::Duration::seconds(5);
    if let Ok(wait) = (closed - chrono::Utc::now()).to_std() {
        tokio::time::sleep(wait).await;
    }
    client.tally.done.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    let sold = powerball.await.unwrap();
    let checked = mixed::settled_and_checked(&client, &url, &keys).await;
    let powerball = powerball_load::checked(&url, close, sold).await;

    // One leader, whichever it is; the draws due while none could draw were drawn once, late.
    let mut leaders = 0;
    for replica in &apart.replicas[DRAWS] {
        leaders += usize::from(replica.metric(&http, "draw_scheduler_leader").await == Some(1.0));
    }
    let late = apart.metric_sum(DRAWS, "draws_late_total").await;
    let status = cluster.run("status");
    println!(
        "failover: {}\n{checked}\n{powerball}\nseconds without writes after each primary's death: {gaps:.1?} (goal 15 s, ceiling 120 s); \
         draws reported late since the restarts: {late}\n{status}",
        figures.join("; ")
    );
    assert_eq!(leaders, 1, "one draw scheduler leads");
    assert!(sold.0 > 0 && sold.2 > 0, "Powerball sales met on both sides of the close: {sold:?}");
    assert!(gaps.iter().all(|gap| *gap < 120.0), "K.A.R. 112-110-9 allows two minutes: {gaps:?}");
    assert!(client.tally.retried.load(Ordering::Relaxed) > 0, "no request met a failure");
    apart.stop();
}
