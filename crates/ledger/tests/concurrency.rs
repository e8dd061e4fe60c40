//! Races the ledger must win: parallel debits of one wallet, parallel replays of one transfer,
//! and a post racing a void of one hold. Requests run truly in parallel on a multi-threaded runtime.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::{TestApp, transfer};
use serde_json::json;
use uuid::Uuid;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_parallel_debits_of_a_wallet_funded_for_ten_succeed_ten_times() {
    let app = Arc::new(TestApp::new().await);
    let wallet = app.funded_wallet("whale", 1_000).await;
    let house = app.account("house_revenue", "casino").await;
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let app = Arc::clone(&app);
            tokio::spawn(async move { app.post("/v1/transfers", transfer(wallet, house, 100)).await })
        })
        .collect();
    let mut created = 0;
    let mut refused = 0;
    for task in tasks {
        let reply = task.await.unwrap();
        match (reply.status, reply.code()) {
            (StatusCode::CREATED, _) => created += 1,
            (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_funds") => refused += 1,
            other => panic!("unexpected {other:?}: {}", reply.body),
        }
    }
    assert_eq!((created, refused), (10, 90));
    assert_eq!((app.posted(wallet).await, app.posted(house).await), (0, 1_000));
    app.assert_ledger_consistent().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_parallel_replays_of_one_transfer_apply_it_once() {
    let app = Arc::new(TestApp::new().await);
    let wallet = app.funded_wallet("ann", 1_000).await;
    let house = app.account("house_revenue", "casino").await;
    let body = transfer(wallet, house, 300);
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let (app, body) = (Arc::clone(&app), body.clone());
            tokio::spawn(async move { app.post("/v1/transfers", body).await })
        })
        .collect();
    let mut statuses = Vec::new();
    let mut bodies = Vec::new();
    for task in tasks {
        let reply = task.await.unwrap();
        statuses.push(reply.status);
        bodies.push(reply.body);
    }
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CREATED).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 49, "{statuses:?}");
    assert!(bodies.iter().all(|b| *b == bodies[0]), "every replay returns the first answer");
    assert_eq!((app.posted(wallet).await, app.posted(house).await), (700, 300));
    assert_eq!(app.transfer_count().await, 2, "the deposit and one transfer");
    app.assert_ledger_consistent().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_post_racing_a_void_of_one_hold_has_exactly_one_winner() {
    let app = Arc::new(TestApp::new().await);
    let wallet = app.funded_wallet("ann", 20 * 100).await;
    let escrow = app.account("game_escrow", "craps").await;
    let mut posts_won = 0;
    for _ in 0..20 {
        let mut hold = transfer(wallet, escrow, 100);
        hold["pending"] = json!(true);
        let hold_id = hold["id"].clone();
        assert_eq!(app.post("/v1/transfers", hold).await.status, StatusCode::CREATED);
        let racers: Vec<_> = ["post_pending_id", "void_pending_id"]
            .into_iter()
            .map(|field| {
                let app = Arc::clone(&app);
                let body = json!({"id": Uuid::now_v7(), field: hold_id});
                tokio::spawn(async move { app.post("/v1/transfers", body).await })
            })
            .collect();
        let mut outcomes = Vec::new();
        for racer in racers {
            let reply = racer.await.unwrap();
            outcomes.push((reply.status, reply.code().to_owned()));
        }
        let winners = outcomes.iter().filter(|(s, _)| *s == StatusCode::CREATED).count();
        let losers =
            outcomes.iter().filter(|(s, c)| *s == StatusCode::CONFLICT && c == "hold_already_ended").count();
        assert_eq!((winners, losers), (1, 1), "{outcomes:?}");
        if outcomes[0].0 == StatusCode::CREATED {
            posts_won += 1;
        }
    }
    let balance = app.balance(wallet).await;
    assert_eq!(balance["pending_debits"], 0);
    assert_eq!(balance["posted"], 2_000 - 100 * posts_won);
    assert_eq!(app.posted(escrow).await, 100 * posts_won);
    app.assert_ledger_consistent().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crossing_transfers_between_two_accounts_never_deadlock_or_lose_money() {
    let app = Arc::new(TestApp::new().await);
    let a = app.funded_wallet("a", 10_000).await;
    let b = app.funded_wallet("b", 10_000).await;
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let app = Arc::clone(&app);
            let (from, to) = if i % 2 == 0 { (a, b) } else { (b, a) };
            tokio::spawn(async move { app.post("/v1/transfers", transfer(from, to, 7)).await })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap().status, StatusCode::CREATED);
    }
    assert_eq!(app.posted(a).await + app.posted(b).await, 20_000);
    assert_eq!(app.posted(a).await, 10_000);
    app.assert_ledger_consistent().await;
}

/// A game escrow is hot (many balance rows) and may not go negative: a debit locks every row.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_debits_of_a_sharded_no_overdraft_account_never_overdraw_it() {
    let app = Arc::new(TestApp::new().await);
    let escrow = app.account("game_escrow", "keno").await;
    let flags = app.get(&format!("/v1/accounts/{escrow}")).await.body["flags"].clone();
    assert_eq!(flags, json!({"no_negative_balance": true, "hot": true}));
    // Fund it with 20 stakes, which land on many different rows.
    for i in 0..20 {
        let player = app.funded_wallet(&format!("p{i}"), 50).await;
        assert_eq!(app.post("/v1/transfers", transfer(player, escrow, 50)).await.status, StatusCode::CREATED);
    }
    let house = app.account("house_revenue", "casino").await;
    let tasks: Vec<_> = (0..60)
        .map(|_| {
            let app = Arc::clone(&app);
            tokio::spawn(async move { app.post("/v1/transfers", transfer(escrow, house, 100)).await })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        let reply = task.await.unwrap();
        match reply.status {
            StatusCode::CREATED => created += 1,
            _ => assert_eq!(reply.code(), "insufficient_funds", "{}", reply.body),
        }
    }
    assert_eq!(created, 10);
    assert_eq!((app.posted(escrow).await, app.posted(house).await), (0, 1_000));
    app.assert_ledger_consistent().await;
}

/// Batches touching the same accounts in opposite orders lock balance rows in one global order,
/// so Postgres never has to break a deadlock (which would cost a second and a retry).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn overlapping_batches_never_deadlock() {
    let app = Arc::new(TestApp::new().await);
    let mut wallets = Vec::new();
    for i in 0..8 {
        wallets.push(app.funded_wallet(&format!("w{i}"), 100_000).await);
    }
    let house = app.account("house_revenue", "casino").await;
    let deadlocks = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let before = deadlocks().await;
    let tasks: Vec<_> = (0..16)
        .map(|t| {
            let app = Arc::clone(&app);
            let mut order = wallets.clone();
            if t % 2 == 1 {
                order.reverse();
            }
            order.rotate_left(t % 8);
            tokio::spawn(async move {
                let mut transfers: Vec<_> =
                    order.windows(2).map(|pair| transfer(pair[0], pair[1], 10)).collect();
                transfers.push(transfer(order[0], house, 1));
                app.post("/v1/transfers/batch", json!({ "transfers": transfers })).await
            })
        })
        .collect();
    for task in tasks {
        let reply = task.await.unwrap();
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    }
    // The statistics collector reports with a short delay.
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    assert_eq!(deadlocks().await, before, "Postgres had to break a deadlock");
    assert_eq!(app.posted(house).await, 16);
    app.assert_ledger_consistent().await;
}
