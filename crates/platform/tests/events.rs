//! The significant-events log (issue 50): an event commits with the change it records or not at
//! all, the chainer gives every event one place, and any change to the log is found; exports
//! check against the chain, and a month archived to a file and dropped comes back from it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use platform::events::archive;
use platform::events::chain::{self, RecordedEvent};
use platform::events::export::{self, Format};
use platform::events::query::{self, Filter};
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

async fn log_pool() -> PgPool {
    let url = platform::testing::fresh_database().await.unwrap();
    platform::db::connect(&url, "logtest", &sqlx::migrate::Migrator::DEFAULT, 4).await.unwrap()
}

fn at(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 12, 0, 0).unwrap()
}

#[derive(serde::Serialize)]
struct Note<'a> {
    n: i64,
    text: &'a str,
}

async fn record(pool: &PgPool, kind: Kind, player: Uuid, n: i64) {
    let mut tx = pool.begin().await.unwrap();
    let event =
        Event::new(kind, &Note { n, text: "a \"quoted\", text\nwith a line" }).unwrap().player(player);
    events::record(&mut tx, "logtest", &event).await.unwrap();
    tx.commit().await.unwrap();
}

async fn everything(pool: &PgPool) -> Vec<RecordedEvent> {
    query::find(pool, &Filter::default(), 0, 500).await.unwrap()
}

#[tokio::test]
async fn an_event_commits_with_its_transaction_and_is_chained_once_in_order() {
    let pool = log_pool().await;
    let ann = Uuid::now_v7();
    // Rolled back: the change did not happen, so neither did its event.
    let mut tx = pool.begin().await.unwrap();
    events::record(
        &mut tx,
        "logtest",
        &Event::new(Kind::Deposit, &Note { n: 0, text: "" }).unwrap().player(ann),
    )
    .await
    .unwrap();
    tx.rollback().await.unwrap();
    for n in 1..=5 {
        record(&pool, Kind::Deposit, ann, n).await;
    }
    record(&pool, Kind::Login, Uuid::now_v7(), 6).await;
    assert_eq!(chain::chain_all(&pool, None).await.unwrap(), 6);
    assert_eq!(chain::chain_all(&pool, None).await.unwrap(), 0, "nothing is chained twice");
    let all = everything(&pool).await;
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), (1..=6).collect::<Vec<_>>());
    assert_eq!(all[0].prev_hash, hex::encode(chain::GENESIS));
    for pair in all.windows(2) {
        assert_eq!(pair[1].prev_hash, pair[0].hash);
    }
    let anns = query::find(&pool, &Filter { player: Some(ann), ..Filter::default() }, 0, 500).await.unwrap();
    assert_eq!(anns.len(), 5);
    assert!(anns.iter().all(|e| e.kind == "deposit" && e.player_id == Some(ann)));
    let logins =
        query::find(&pool, &Filter { kind: Some(Kind::Login), ..Filter::default() }, 0, 500).await.unwrap();
    assert_eq!(logins.len(), 1);
    let paged = query::find(&pool, &Filter::default(), 4, 2).await.unwrap();
    assert_eq!(paged.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![5, 6]);
    let check = chain::verify(&pool).await.unwrap();
    assert!(check.intact, "{check:?}");
    assert_eq!((check.events, check.head_seq, check.pending), (6, Some(6), 0));
    assert_eq!(check.head_hash.as_deref(), Some(all[5].hash.as_str()));
}

#[tokio::test]
async fn concurrent_writers_and_chainers_leave_one_chain_without_gaps() {
    let pool = log_pool().await;
    let mut tasks = Vec::new();
    for w in 0..8 {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            for n in 0..50 {
                record(&pool, Kind::Login, Uuid::now_v7(), w * 1000 + n).await;
                if n % 10 == 0 {
                    chain::chain_all(&pool, None).await.unwrap();
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    chain::chain_all(&pool, None).await.unwrap();
    let check = chain::verify(&pool).await.unwrap();
    assert!(check.intact, "{check:?}");
    assert_eq!((check.events, check.pending), (400, 0));
}

#[tokio::test]
async fn a_changed_removed_or_added_event_is_found() {
    let pool = log_pool().await;
    for n in 1..=4 {
        record(&pool, Kind::Deposit, Uuid::now_v7(), n).await;
    }
    chain::chain_all(&pool, None).await.unwrap();
    // The log refuses changes outright...
    let refused = sqlx::query("UPDATE events.log SET details = '{}' WHERE seq = 2").execute(&pool).await;
    assert!(refused.unwrap_err().to_string().contains("append-only"));
    let refused = sqlx::query("DELETE FROM events.log WHERE seq = 2").execute(&pool).await;
    assert!(refused.unwrap_err().to_string().contains("append-only"));
    // ...and one who gets past the trigger is found by the chain.
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("SET LOCAL session_replication_role = replica").execute(&mut *tx).await.unwrap();
    sqlx::query("UPDATE events.log SET details = '{\"n\":20,\"text\":\"\"}' WHERE seq = 2")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let check = chain::verify(&pool).await.unwrap();
    assert_eq!((check.intact, check.first_broken_seq), (false, Some(2)), "{check:?}");

    let pool = log_pool().await;
    for n in 1..=4 {
        record(&pool, Kind::Deposit, Uuid::now_v7(), n).await;
    }
    chain::chain_all(&pool, None).await.unwrap();
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("SET LOCAL session_replication_role = replica").execute(&mut *tx).await.unwrap();
    sqlx::query("DELETE FROM events.log WHERE seq = 3").execute(&mut *tx).await.unwrap();
    tx.commit().await.unwrap();
    let check = chain::verify(&pool).await.unwrap();
    assert_eq!((check.intact, check.first_broken_seq), (false, Some(3)), "{check:?}");
}

async fn export_text(pool: &PgPool, from: DateTime<Utc>, to: DateTime<Utc>, format: Format) -> String {
    let header = export::plan(pool, from, to).await.unwrap();
    let mut out = Vec::new();
    let mut stream = std::pin::pin!(export::stream(pool.clone(), &header, format));
    while let Some(chunk) = futures_util::StreamExt::next(&mut stream).await {
        out.extend_from_slice(&chunk.unwrap());
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn an_export_states_its_range_and_checks_complete_and_unaltered() {
    let pool = log_pool().await;
    let ann = Uuid::now_v7();
    for (day, n) in [(1, 1), (2, 2), (3, 3), (4, 4)] {
        record(&pool, Kind::Deposit, ann, n).await;
        chain::chain_all(&pool, Some(at(2026, 10, day))).await.unwrap();
    }
    // Days 2 and 3: events 2 and 3, joined to the chain at event 1's hash.
    let text = export_text(&pool, at(2026, 10, 2), at(2026, 10, 4), Format::Jsonl).await;
    let check = export::check_jsonl(text.as_bytes()).unwrap();
    assert!(check.intact, "{check:?}");
    assert_eq!((check.events, check.first_seq, check.last_seq), (2, Some(2), Some(3)));
    let all = everything(&pool).await;
    assert_eq!(check.prev_hash.as_deref(), Some(all[0].hash.as_str()));
    assert_eq!(check.last_hash.as_deref(), Some(all[2].hash.as_str()));
    // A line changed, a line dropped, the last line cut: each found.
    let changed = text.replacen("\\\"quoted\\\"", "\\\"quote\\\"", 1);
    assert_ne!(changed, text);
    assert!(!export::check_jsonl(changed.as_bytes()).unwrap().intact);
    let lines: Vec<&str> = text.lines().collect();
    let dropped = [lines[0], lines[2]].join("\n");
    assert!(!export::check_jsonl(dropped.as_bytes()).unwrap().intact);
    let cut = lines[..2].join("\n");
    let cut = export::check_jsonl(cut.as_bytes()).unwrap();
    assert!(!cut.intact && cut.problem.unwrap().contains("states 2 events"));
    // The CSV: a header row, and one row per event, the details quoted as CSV quotes them.
    let csv = export_text(&pool, at(2026, 10, 2), at(2026, 10, 4), Format::Csv).await;
    assert!(csv.starts_with(export::CSV_COLUMNS));
    assert!(
        csv.contains("\"{\"\"n\"\":2,\"\"text\"\":\"\"a \\\"\"quoted\\\"\", text\\nwith a line\"\"}\""),
        "{csv}"
    );
    // An empty range joins the chain where it stood.
    let empty = export_text(&pool, at(2026, 9, 1), at(2026, 9, 30), Format::Jsonl).await;
    let check = export::check_jsonl(empty.as_bytes()).unwrap();
    assert!(check.intact && check.events == 0, "{check:?}");
}

#[tokio::test]
async fn a_month_sealed_archived_and_dropped_comes_back_from_its_file() {
    let pool = log_pool().await;
    let ann = Uuid::now_v7();
    for (month, day) in [(10, 5), (10, 20), (11, 3)] {
        record(&pool, Kind::Deposit, ann, i64::from(day)).await;
        chain::chain_all(&pool, Some(at(2026, month, day))).await.unwrap();
    }
    let october = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
    let november = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
    // Not before the month is over; not out of order.
    let early = archive::seal(&pool, "logtest", october, Some(at(2026, 10, 31))).await.unwrap_err();
    assert_eq!(early.code(), "month_not_over");
    let out_of_order = archive::seal(&pool, "logtest", november, Some(at(2026, 12, 2))).await.unwrap_err();
    assert_eq!(out_of_order.code(), "month_sealed");
    let seal = archive::seal(&pool, "logtest", october, Some(at(2026, 11, 10))).await.unwrap();
    assert_eq!((seal.first_seq, seal.last_seq, seal.events), (Some(1), Some(2), 2));
    assert_eq!(archive::seal(&pool, "logtest", october, None).await.unwrap_err().code(), "month_sealed");
    // An event chained now, with the clock back in October, lands after the seal.
    record(&pool, Kind::Login, ann, 99).await;
    chain::chain_all(&pool, Some(at(2026, 10, 25))).await.unwrap();
    let last = everything(&pool).await.pop().unwrap();
    assert!(last.recorded_at.as_str() >= "2026-11-03", "{last:?}");

    let dir = std::env::temp_dir().join(format!("events-{}", Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2026-10.jsonl");
    archive::archive(&pool, "logtest", october, &file).await.unwrap();
    chain::chain_all(&pool, None).await.unwrap();
    let kept = everything(&pool).await;
    assert!(kept.iter().all(|e| e.seq > 2), "October is gone from the database");
    let check = chain::verify(&pool).await.unwrap();
    assert!(check.intact, "the chain still verifies, from the seal: {check:?}");
    assert_eq!((check.first_seq, check.archived_months), (Some(3), 1));
    assert!(archive::check_file(&file).unwrap().intact);

    // A changed file is not taken back.
    let text = std::fs::read_to_string(&file).unwrap();
    let forged = dir.join("forged.jsonl");
    std::fs::write(&forged, text.replacen("\"n\":5", "\"n\":6", 1)).unwrap();
    assert_eq!(archive::restore(&pool, "logtest", &forged).await.unwrap_err().code(), "archive_mismatch");
    // The file itself is, and October answers queries again.
    archive::restore(&pool, "logtest", &file).await.unwrap();
    let anns = query::find(&pool, &Filter { player: Some(ann), ..Filter::default() }, 0, 500).await.unwrap();
    assert_eq!(anns.iter().map(|e| e.seq).take(2).collect::<Vec<_>>(), vec![1, 2]);
    chain::chain_all(&pool, None).await.unwrap();
    let check = chain::verify(&pool).await.unwrap();
    assert!(check.intact && check.first_seq == Some(1) && check.archived_months == 0, "{check:?}");
    let kinds: Vec<String> = everything(&pool).await.into_iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "log_archive").count(),
        3,
        "sealed, archived, restored: {kinds:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_process_that_vanished_is_recorded_unavailable_once() {
    let pool = log_pool().await;
    // A process of this machine that is gone (a child that has exited), never stopped cleanly.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id().cast_signed();
    child.wait().unwrap();
    let vanished = Uuid::now_v7();
    sqlx::query("INSERT INTO events.processes (instance, service, host, pid, version) VALUES ($1, 'ledger', $2, $3, 'x')")
        .bind(vanished)
        .bind(events::lifecycle::host())
        .bind(pid)
        .execute(&pool)
        .await
        .unwrap();
    let this = events::lifecycle::started(&pool, "logtest", serde_json::json!({"listen": "127.0.0.1:0"}))
        .await
        .unwrap();
    assert_eq!(events::lifecycle::record_lapses(&pool, "logtest").await.unwrap(), 0, "recorded once");
    this.stopped().await.unwrap();
    chain::chain_all(&pool, None).await.unwrap();
    let all = everything(&pool).await;
    let kinds: Vec<&str> = all.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, vec!["process_started", "unavailability", "process_stopped"]);
    assert!(
        all[1].details.get().contains(&vanished.to_string()) && all[1].details.get().contains("process_gone")
    );
    assert!(all[0].details.get().contains("executable_sha256"));
}
