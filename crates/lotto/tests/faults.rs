//! Faults of the replicated layout other than a lost primary (issue 34, ADR 0013), on `lotto
//! cluster` from Debian's packages:
//!
//! - **etcd lost**: the primary goes on taking writes (Patroni's failsafe mode: every member still
//!   answers it), and nothing is promoted;
//! - **etcd and the primary lost together**: nothing can be promoted without the consensus store,
//!   so no member becomes a second primary; writes wait, and come back once etcd does;
//!
//! - **the primary cut off the network** (`lotto cluster cut`, the kernel's packet filter):
//!   it acknowledges no write from the cut on, even to a client on its own machine (its commits
//!   wait for a synchronous standby it cannot reach, then Patroni demotes it, failing to reach
//!   etcd or any member); a standby takes over; once healed, it rejoins as a standby without
//!   what it had not acknowledged.
//!
//! Throughout, no two members are ever primary at once (sampled every 100 ms).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::cluster::Cluster;
use sqlx::Connection;
use sqlx::postgres::PgConnectOptions;

/// The members' roles as their Patroni REST APIs say (None for one that does not answer).
async fn roles(http: &reqwest::Client, base_port: u16) -> Vec<Option<String>> {
    let mut roles = Vec::new();
    for member in 0..3 {
        let url = format!("http://127.0.0.1:{}/patroni", base_port + 11 + member);
        let role = match http.get(url).timeout(Duration::from_millis(500)).send().await {
            Ok(response) => response
                .json::<serde_json::Value>()
                .await
                .ok()
                .and_then(|v| v["role"].as_str().map(str::to_owned)),
            Err(_) => None,
        };
        roles.push(role);
    }
    roles
}

/// Watches the roles every 100 ms until dropped; counts the samples with two primaries.
struct Watch {
    two_primaries: Arc<AtomicUsize>,
    samples: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Watch {
    fn start(base_port: u16) -> Watch {
        let watch = Watch { two_primaries: Arc::default(), samples: Arc::default(), stop: Arc::default() };
        let (two, samples, stop) = (watch.two_primaries.clone(), watch.samples.clone(), watch.stop.clone());
        tokio::spawn(async move {
            let http = reqwest::Client::new();
            while !stop.load(Ordering::Relaxed) {
                let primaries = roles(&http, base_port)
                    .await
                    .iter()
                    .flatten()
                    .filter(|r| *r == "master" || *r == "primary")
                    .count();
                samples.fetch_add(1, Ordering::Relaxed);
                if primaries > 1 {
                    two.fetch_add(1, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        watch
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One write through `to` with a deadline: the number written when it was acknowledged.
async fn write(to: &PgConnectOptions, n: i64) -> Option<i64> {
    let attempt = async {
        let mut conn = sqlx::PgConnection::connect_with(to).await.ok()?;
        sqlx::query("INSERT INTO fault_writes (n) VALUES ($1)").bind(n).execute(&mut conn).await.ok()?;
        Some(n)
    };
    tokio::time::timeout(Duration::from_secs(2), attempt).await.ok().flatten()
}

/// Writes through `url` every 100 ms for `period`; the numbers acknowledged (the attempts are
/// numbered from `from` on).
async fn writes_for(url: &str, from: i64, period: Duration) -> Vec<i64> {
    writes_sent_for(&url.parse().unwrap(), from, period).await.into_iter().map(|(n, _)| n).collect()
}

/// [`writes_for`] through `to`, with when each acknowledged write was sent.
async fn writes_sent_for(to: &PgConnectOptions, from: i64, period: Duration) -> Vec<(i64, Instant)> {
    let until = Instant::now() + period;
    let mut acknowledged = Vec::new();
    let mut n = from;
    while Instant::now() < until {
        let sent = Instant::now();
        acknowledged.extend(write(to, n).await.map(|n| (n, sent)));
        n += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    acknowledged
}

/// A layout of this test's, with the table the writes go to; returns it and its URL.
async fn cluster_with_a_table() -> (Cluster, String) {
    let (cluster, url) = Cluster::start();
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query("CREATE TABLE fault_writes (n bigint PRIMARY KEY)").execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    (cluster, url)
}

/// The member whose Patroni says it is the primary (waits for one).
async fn primary(http: &reqwest::Client, base_port: u16) -> usize {
    for _ in 0..600 {
        let found = roles(http, base_port)
            .await
            .iter()
            .position(|r| matches!(r.as_deref(), Some("master" | "primary")));
        if let Some(member) = found {
            return member;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no member is primary");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn losing_etcd_makes_no_second_primary_and_loses_no_acknowledged_write() {
    let (cluster, url) = cluster_with_a_table().await;
    let watch = Watch::start(cluster.base_port);
    let http = reqwest::Client::new();

    // etcd lost: the primary still answers every member, so it keeps its role and its writes.
    cluster.run("kill etcd");
    let during = writes_for(&url, 0, Duration::from_secs(12)).await;
    let attempted = usize::try_from(during.last().copied().unwrap_or(0) + 1).unwrap();
    let roles_without_etcd = roles(&http, cluster.base_port).await;
    cluster.run("start");
    assert_eq!(
        during.len(),
        attempted,
        "writes went on without etcd: {} of {attempted} acknowledged",
        during.len()
    );

    // etcd and the primary lost together: no member may promote itself.
    cluster.run("kill etcd");
    let said = cluster.run("kill primary");
    let stalled = writes_for(&url, 1_000, Duration::from_secs(10)).await;
    let roles_without_both = roles(&http, cluster.base_port).await;
    let back = Instant::now();
    cluster.run("start");
    let resumed = back.elapsed();
    let resumed_roles = roles(&http, cluster.base_port).await;
    assert!(
        roles_without_both.iter().flatten().all(|r| r != "master" && r != "primary"),
        "a member became primary without etcd: {roles_without_both:?}"
    );

    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let kept: Vec<i64> =
        sqlx::query_scalar("SELECT n FROM fault_writes ORDER BY n").fetch_all(&mut conn).await.unwrap();
    let lost: Vec<&i64> = during.iter().filter(|n| !kept.contains(n)).collect();

    let samples = watch.samples.load(Ordering::Relaxed);
    let two = watch.two_primaries.load(Ordering::Relaxed);
    drop(watch);
    println!(
        "faults: etcd lost: {} of {attempted} writes acknowledged, roles {roles_without_etcd:?}; etcd and the primary \
         lost ({}): {} writes acknowledged, roles {roles_without_both:?}, writes back {:.1} s after etcd's return \
         ({resumed_roles:?}); acknowledged writes missing: {lost:?}; samples with two primaries: {two} of {samples}",
        during.len(),
        said.trim(),
        stalled.len(),
        resumed.as_secs_f64(),
    );
    assert!(stalled.is_empty(), "writes were acknowledged with neither etcd nor a primary: {stalled:?}");
    assert!(lost.is_empty(), "acknowledged writes missing: {lost:?}");
    assert_eq!(two, 0, "two members were primary at once in {two} of {samples} samples");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_primary_cut_off_the_network_acknowledges_no_write_and_rejoins_as_a_standby() {
    let (cluster, url) = cluster_with_a_table().await;
    let http = reqwest::Client::new();
    let old = primary(&http, cluster.base_port).await;
    // A client on the primary's own machine: its unix socket, which the cut leaves.
    let member = format!("member{}", old + 1);
    let beside = PgConnectOptions::new()
        // Where `lotto cluster` puts it (a short path: a socket's may not pass 107 bytes).
        .socket(format!("/tmp/lotto-cluster-{}/{member}", cluster.base_port))
        .port(cluster.base_port + 1 + u16::try_from(old).unwrap())
        .username("postgres")
        .database("lotto");

    // Writes through the one address and beside the primary, before, during and after the cut.
    let period = Duration::from_secs(30);
    let through_proxy = tokio::spawn({
        let to: PgConnectOptions = url.parse().unwrap();
        async move { writes_sent_for(&to, 0, period).await }
    });
    let on_its_machine = tokio::spawn(async move { writes_sent_for(&beside, 100_000, period).await });
    tokio::time::sleep(Duration::from_secs(3)).await;
    let said = cluster.run(&format!("cut {member}"));
    let cut_at = Instant::now();
    let through_proxy = through_proxy.await.unwrap();
    let on_its_machine = on_its_machine.await.unwrap();
    let gap = through_proxy
        .iter()
        .filter(|(_, sent)| *sent > cut_at)
        .map(|(_, sent)| *sent - cut_at)
        .min()
        .expect("writes came back through the one address");
    let new = primary(&http, cluster.base_port).await;

    // Healed: the old primary rejoins as a standby of the new one.
    cluster.run("heal");
    let healed_at = Instant::now();
    let mut rejoined = None;
    for _ in 0..900 {
        let roles = roles(&http, cluster.base_port).await;
        if matches!(roles[old].as_deref(), Some("replica")) {
            rejoined = Some(healed_at.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let kept: Vec<i64> =
        sqlx::query_scalar("SELECT n FROM fault_writes ORDER BY n").fetch_all(&mut conn).await.unwrap();
    let acknowledged_cut_off: Vec<i64> =
        on_its_machine.iter().filter(|(_, sent)| *sent > cut_at).map(|(n, _)| *n).collect();
    let lost: Vec<i64> =
        through_proxy.iter().chain(&on_its_machine).map(|(n, _)| *n).filter(|n| !kept.contains(n)).collect();
    println!(
        "faults: {} ({} was primary): writes through the one address back after {:.1} s, on member{}; \
         writes acknowledged beside the cut-off primary after the cut: {}; rejoined as a standby {:.1} s after \
         the heal; acknowledged writes missing: {lost:?}",
        said.trim(),
        member,
        gap.as_secs_f64(),
        new + 1,
        acknowledged_cut_off.len(),
        rejoined.map_or(f64::NAN, |d| d.as_secs_f64()),
    );
    assert!(acknowledged_cut_off.is_empty(), "the cut-off primary acknowledged {acknowledged_cut_off:?}");
    assert_ne!(new, old, "a standby took over");
    assert!(gap < Duration::from_secs(120), "K.A.R. 112-110-9 allows two minutes: {gap:?}");
    assert!(rejoined.is_some(), "{member} did not rejoin as a standby within 90 s of the heal");
    assert!(lost.is_empty(), "acknowledged writes missing: {lost:?}");
}
