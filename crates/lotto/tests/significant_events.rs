//! The significant-events log against the real `lotto` process (issue 50): an event is written
//! in the transaction of the change it records, so a process killed with SIGKILL mid-way leaves
//! both or neither, and the next start records the unavailability; a million events export,
//! streamed, while the process's memory stays where it was, and the file verifies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Lotto, mail_reader, status_kb};
use sqlx::PgPool;
use uuid::Uuid;

/// Registration is the write whose event goes with it: a player row and its `registration`
/// event in one transaction.
async fn register(http: &reqwest::Client, base: &str, email: &str) -> bool {
    let body = serde_json::json!({"email": email, "password": "a long enough password 1", "date_of_birth": "1990-05-17"});
    matches!(http.post(format!("{base}/v1/players")).json(&body).send().await, Ok(r) if r.status() == 202)
}

/// The players of `pool`'s database and the players of its registration events, kept or
/// waiting to be chained.
async fn players_and_registrations(pool: &PgPool) -> (BTreeSet<Uuid>, BTreeSet<Uuid>) {
    let players: Vec<Uuid> =
        sqlx::query_scalar("SELECT id FROM gateway.players").fetch_all(pool).await.unwrap();
    let registered: Vec<Uuid> = sqlx::query_scalar(
        "SELECT player_id FROM events.pending WHERE kind = 'registration'
         UNION ALL SELECT player_id FROM events.log WHERE kind = 'registration'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let distinct: BTreeSet<Uuid> = registered.iter().copied().collect();
    assert_eq!(distinct.len(), registered.len(), "a registration recorded twice");
    (players.into_iter().collect(), distinct)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_mid_write_leaves_each_change_with_its_event_and_its_unavailability_recorded() {
    let url = platform::testing::fresh_database().await.unwrap();
    let env = [("DATABASE_URL", url.clone())];
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let base = lotto.base_url.clone();
    let http = reqwest::Client::new();
    let going = Arc::new(AtomicBool::new(true));
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (http, base, going) = (http.clone(), base.clone(), going.clone());
            tokio::spawn(async move {
                let mut n = 0;
                while going.load(Ordering::Relaxed) {
                    register(&http, &base, &format!("w{w}-{n}@example.com")).await;
                    n += 1;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let killed = lotto.pid();
    lotto.kill();
    going.store(false, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    let pool = PgPool::connect(&url).await.unwrap();
    let (players, registered) = players_and_registrations(&pool).await;
    assert!(players.len() > 8, "registrations went in before the kill: {}", players.len());
    assert_eq!(players, registered, "every player has its registration event, and no event a missing player");

    // The next start finds the process gone and records it, once.
    let again = Lotto::start(&env, Duration::from_secs(60));
    let deadline = Instant::now() + Duration::from_secs(30);
    let lapse = loop {
        let found: Option<String> =
            sqlx::query_scalar("SELECT details FROM events.log WHERE kind = 'unavailability'")
                .fetch_optional(&pool)
                .await
                .unwrap();
        if let Some(found) = found {
            break found;
        }
        assert!(Instant::now() < deadline, "no unavailability recorded");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(lapse.contains("process_gone"), "{lapse}");
    let starts: i64 = sqlx::query_scalar("SELECT count(*) FROM events.log WHERE kind = 'process_started'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(starts, 2);
    println!(
        "{} players registered before SIGKILL of pid {killed}, each with its event; {lapse}",
        players.len()
    );
    let lines = again.terminate();
    assert!(lines.iter().any(|l| l.contains("stopped")), "{lines:?}");
    let stopped: i64 =
        sqlx::query_scalar("SELECT count(*) FROM events.pending WHERE kind = 'process_stopped'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(stopped, 1, "a clean stop is recorded");
    let check = platform::events::chain::verify(&pool).await.unwrap();
    assert!(check.intact, "{check:?}");
}

/// The events a test puts in: a million, as a busy month's worth of logins and plays.
const EVENTS: i64 = 1_000_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_events_export_streamed_in_bounded_memory_and_verify() {
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(&[("DATABASE_URL", url.clone())], Duration::from_secs(60));
    let pool = PgPool::connect(&url).await.unwrap();
    // Recorded as services record them (waiting in `pending`), chained by the process's chainer.
    sqlx::query(
        "INSERT INTO events.pending (service, kind, player_id, details)
         SELECT 'gateway', 'login', gen_random_uuid(),
                '{\"who\":\"player\",\"session\":\"' || gen_random_uuid() || '\",\"n\":' || n || '}'
           FROM generate_series(1, $1) AS n",
    )
    .bind(EVENTS)
    .execute(&pool)
    .await
    .unwrap();
    let chaining = Instant::now();
    loop {
        let left: i64 =
            sqlx::query_scalar("SELECT count(*) FROM events.pending").fetch_one(&pool).await.unwrap();
        if left == 0 {
            break;
        }
        assert!(chaining.elapsed() < Duration::from_secs(600), "{left} events still pending");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let chained_in = chaining.elapsed();
    let (bytes, count): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                  WHERE i.inhparent = 'events.log'::regclass),
                (SELECT count(*) FROM events.log)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();

    let before = status_kb(lotto.pid(), "VmHWM");
    let started = Instant::now();
    let answer = reqwest::Client::new()
        .get(format!("{}/v1/events/export?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z", lotto.base_url))
        .bearer_auth(mail_reader())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let file = std::env::temp_dir().join(format!("events-{}.jsonl", Uuid::now_v7()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let mut answer = answer;
    let mut written = 0usize;
    while let Some(chunk) = answer.chunk().await.unwrap() {
        written += chunk.len();
        std::io::Write::write_all(&mut out, &chunk).unwrap();
    }
    drop(out);
    let exported_in = started.elapsed();
    let after = status_kb(lotto.pid(), "VmHWM");
    // The file verified as a regulator would: `lotto verify-events`.
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["verify-events", file.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&verified.stdout).into_owned();
    std::fs::remove_file(&file).unwrap();
    println!(
        "{count} events chained in {:.1} s ({:.0}/s); {:.0} bytes each on disk with their indexes; \
         exported ({:.0} MiB) in {:.1} s; the process's peak resident memory {} MiB before, {} MiB after\n{said}",
        chained_in.as_secs_f64(),
        count as f64 / chained_in.as_secs_f64(),
        bytes as f64 / count as f64,
        written as f64 / 1048576.0,
        exported_in.as_secs_f64(),
        before / 1024,
        after / 1024,
    );
    assert!(count >= EVENTS);
    assert!(verified.status.success() && said.contains("intact"), "{said}");
    assert!(said.contains(&format!("{count} events")), "{said}");
    // The export is hundreds of megabytes; the process holds a page of it at a time.
    assert!(written > 200 << 20, "{written}");
    assert!(after < before + 64 * 1024, "peak resident memory grew from {before} kB to {after} kB");
}
