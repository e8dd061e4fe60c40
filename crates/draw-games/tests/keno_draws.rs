//! Scheduled Castle Keno draws against a real ledger on a real Postgres, on a clock the tests move:
//! multi-draw tickets settled by each draw, the close instant, catch-up after downtime, and two
//! schedulers at once.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use common::Game;
use domain::keno::{BetOption, Draw, Ticket, settle};
use draw_games::DrawsState;
use draw_games::saga::keno::draws::{close_draw, run_due_draws};
use platform::auth::Role;
use platform::clock::Clock;
use serde_json::{Value, json};

/// A game whose clock stands still at a moment in the middle of a draw's sales.
async fn game_at_rest() -> (Game, DateTime<Utc>) {
    let mut game = Game::new().await;
    let schedule = game.state.schedule;
    let start = schedule.sales_close_at(schedule.next_after(Utc::now())) - Duration::seconds(100);
    game.state.clock = Clock::manual(start);
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    (game, start)
}

fn interval(state: &DrawsState) -> Duration {
    state.schedule.interval
}

/// What a draw's numbers pay this entry, by the domain's rules.
fn payout_of(ticket: &Value, numbers: &Value) -> i64 {
    let option: BetOption = serde_json::from_value(ticket["option"].clone()).unwrap();
    let spots: Vec<u8> = serde_json::from_value(ticket["spots"].clone()).unwrap();
    let numbers: Vec<u8> = serde_json::from_value(numbers.clone()).unwrap();
    let rules =
        Ticket::new(option, &spots, u32::try_from(ticket["tickets"].as_u64().unwrap()).unwrap(), u32::MAX)
            .unwrap();
    settle(&rules, &Draw { numbers: numbers.try_into().unwrap() }).payout_cents
}

async fn draw_records(game: &Game) -> Vec<i64> {
    let records: Vec<String> =
        sqlx::query_scalar("SELECT record FROM audit_log WHERE kind = 'keno.draw' ORDER BY seq")
            .fetch_all(&game.state.pool)
            .await
            .unwrap();
    records.iter().map(|r| serde_json::from_str::<Value>(r).unwrap()["draw"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn a_multi_draw_ticket_is_settled_by_each_of_its_draws() {
    let (game, start) = game_at_rest().await;
    let (player, wallet) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    let next = game.state.schedule.next_after(start);
    let body = json!({"option": "bet", "spots": [5, 15, 25, 35, 45], "tickets": 2, "draws": 3});
    let bought = game.post("/v1/keno/draw-tickets", &token, "md-1", body.clone()).await;
    assert_eq!(bought.status, StatusCode::CREATED, "{}", bought.body);
    let draws: Vec<i64> = bought.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["draw_number"].as_i64().unwrap())
        .collect();
    assert_eq!(draws, vec![next, next + 1, next + 2]);
    assert_eq!(game.balance(wallet).await, 10_000 - 600, "the stake for all three draws, once");
    assert_eq!(game.balance(game.state.escrow_account).await, 600);
    let replay = game.post("/v1/keno/draw-tickets", &token, "md-1", body).await;
    assert_eq!((replay.status, game.balance(wallet).await), (StatusCode::OK, 9_400));

    // Two draws pass; the third is still on sale.
    game.state.clock.set(game.state.schedule.sales_close_at(next + 1));
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 2);
    let id = bought.body["id"].as_str().unwrap();
    let ticket = game.get(&format!("/v1/keno/draw-tickets/{id}"), Some(&token)).await.body;
    let entries = ticket["entries"].as_array().unwrap();
    let mut won = 0;
    for entry in &entries[..2] {
        assert_eq!(entry["draw_state"], "settled");
        assert_eq!(entry["payout_cents"].as_i64().unwrap(), payout_of(&ticket, &entry["numbers"]));
        won += entry["payout_cents"].as_i64().unwrap();
    }
    assert_eq!(
        (entries[2]["draw_state"].as_str(), entries[2]["numbers"].clone()),
        (Some("open"), Value::Null)
    );
    assert_eq!(game.balance(wallet).await, 9_400 + won);
    assert_eq!(game.balance(game.state.escrow_account).await, 200, "the third draw's stake waits");

    game.state.clock.advance(interval(&game.state));
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 1);
    let ticket = game.get(&format!("/v1/keno/draw-tickets/{id}"), Some(&token)).await.body;
    let third = &ticket["entries"][2];
    won += payout_of(&ticket, &third["numbers"]);
    assert_eq!(third["payout_cents"].as_i64().unwrap(), payout_of(&ticket, &third["numbers"]));
    assert_eq!(game.balance(wallet).await, 9_400 + won);
    assert_eq!(game.balance(game.state.escrow_account).await, 0);
    assert_eq!(draw_records(&game).await, vec![next, next + 1, next + 2]);

    // Public reads: the draws and their numbers.
    let draw = game.get(&format!("/v1/keno/draws/{next}"), None).await;
    assert_eq!((draw.status, draw.body["state"].as_str()), (StatusCode::OK, Some("settled")));
    assert_eq!(draw.body["numbers"], ticket["entries"][0]["numbers"]);
    assert_eq!(draw.body["entries"], 1);
    // One page at a time, newest first, by the cursor each page gives.
    let numbers = |body: &Value| -> Vec<i64> {
        body["items"].as_array().unwrap().iter().map(|d| d["number"].as_i64().unwrap()).collect()
    };
    let list = game.get("/v1/keno/draws?limit=2", None).await;
    assert_eq!(numbers(&list.body), vec![next + 3, next + 2], "the draw on sale comes first");
    let after = list.body["next"].as_str().unwrap();
    let more = game.get(&format!("/v1/keno/draws?limit=2&after={after}"), None).await;
    assert_eq!(numbers(&more.body), vec![next + 1, next]);
    let last = game
        .get(&format!("/v1/keno/draws?limit=2&after={}", more.body["next"].as_str().unwrap()), None)
        .await;
    assert_eq!((numbers(&last.body), &last.body["next"]), (vec![], &Value::Null));
    assert_eq!(game.get("/v1/keno/draws?after=yesterday", None).await.code(), "invalid_cursor");
    assert_eq!(game.get("/v1/keno/draws/1", None).await.code(), "draw_not_found");
    assert_eq!(game.get("/v1/keno/draws?limit=0", None).await.code(), "invalid_limit");
    game.assert_books_balance().await;
}

#[tokio::test]
async fn a_ticket_bought_at_the_close_instant_goes_to_the_next_draw() {
    let (game, start) = game_at_rest().await;
    let (player, _) = game.player(1_000).await;
    let token = game.token(&player, Role::Player);
    let n = game.state.schedule.next_after(start);
    let close = game.state.schedule.sales_close_at(n);
    let body = json!({"option": "top_or_bottom"});

    game.state.clock.set(close - Duration::microseconds(1));
    let before = game.post("/v1/keno/draw-tickets", &token, "before", body.clone()).await;
    assert_eq!(before.body["entries"][0]["draw_number"].as_i64(), Some(n));
    game.state.clock.set(close);
    let at = game.post("/v1/keno/draw-tickets", &token, "at", body.clone()).await;
    assert_eq!(
        at.body["entries"][0]["draw_number"].as_i64(),
        Some(n + 1),
        "at the close instant: the next draw"
    );

    // A leader whose clock runs ahead closed draw n + 1 early: a purchase still inside its sales
    // (by this process's clock) finds it closed and joins the one after.
    close_draw(&game.state, n + 1).await.unwrap();
    game.state.clock.set(close + Duration::seconds(1));
    let late = game.post("/v1/keno/draw-tickets", &token, "late", body).await;
    assert_eq!(late.body["entries"][0]["draw_number"].as_i64(), Some(n + 2));
    let frozen = game.get(&format!("/v1/keno/draws/{}", n + 1), None).await;
    assert_eq!((frozen.body["state"].as_str(), frozen.body["entries"].as_i64()), (Some("closed"), Some(1)));
    assert_eq!(frozen.body["wager_set_hash"].as_str().unwrap().len(), 64);
}

#[tokio::test]
async fn refused_purchases_move_nothing() {
    let (game, _) = game_at_rest().await;
    let (player, wallet) = game.player(250).await;
    let token = game.token(&player, Role::Player);
    let cases = [
        (json!({"option": "bet", "spots": [1, 2], "draws": 3}), "insufficient_funds"),
        (json!({"option": "bet", "spots": [1, 2], "draws": 0}), "draws_out_of_range"),
        (json!({"option": "bet", "spots": [1, 2], "draws": 21}), "draws_out_of_range"),
        (json!({"option": "hit_all", "spots": [1]}), "spots_not_allowed"),
        (json!({"option": "bet", "spots": [1], "draws": "3"}), "invalid_body"),
    ];
    for (i, (body, code)) in cases.into_iter().enumerate() {
        let reply = game.post("/v1/keno/draw-tickets", &token, &format!("r{i}"), body.clone()).await;
        assert_eq!(reply.code(), code, "{body}");
    }
    assert_eq!(game.balance(wallet).await, 250);
    let entries: i64 =
        sqlx::query_scalar("SELECT count(*) FROM keno_entries").fetch_one(&game.state.pool).await.unwrap();
    assert_eq!(entries, 0);
    game.assert_books_balance().await;
}

#[tokio::test]
async fn missed_draws_run_in_order_exactly_once() {
    let (game, start) = game_at_rest().await;
    let (player, wallet) = game.player(5_000).await;
    let token = game.token(&player, Role::Player);
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 0);
    let n = game.state.schedule.next_after(start);
    let body = json!({"option": "bet", "spots": [10, 20, 30], "draws": 4});
    assert_eq!(game.post("/v1/keno/draw-tickets", &token, "k", body).await.status, StatusCode::CREATED);

    // Down for five intervals and a bit.
    game.state.clock.advance(interval(&game.state) * 5 + Duration::seconds(7));
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 5);
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 0, "nothing runs twice");
    assert_eq!(draw_records(&game).await, (n..n + 5).collect::<Vec<_>>(), "in order, once each");
    let states: Vec<String> =
        sqlx::query_scalar("SELECT state FROM keno_draws WHERE number BETWEEN $1 AND $2 ORDER BY number")
            .bind(n)
            .bind(n + 5)
            .fetch_all(&game.state.pool)
            .await
            .unwrap();
    assert_eq!(states, ["settled", "settled", "settled", "settled", "settled", "open"]);
    let won: i64 = sqlx::query_scalar("SELECT coalesce(sum(payout_cents), 0)::bigint FROM keno_entries")
        .fetch_one(&game.state.pool)
        .await
        .unwrap();
    assert_eq!(game.balance(wallet).await, 5_000 - 400 + won);
    game.assert_books_balance().await;
}

#[tokio::test]
async fn two_schedulers_at_once_run_each_draw_once() {
    let (game, start) = game_at_rest().await;
    let mut other = game.another_process().await;
    other.clock = game.state.clock.clone();
    let mut wallets = Vec::new();
    for i in 0..6 {
        let (player, wallet) = game.player(10_000).await;
        let token = game.token(&player, Role::Player);
        let body =
            json!({"option": "bet", "spots": [i + 1, i + 11, i + 21, i + 31], "tickets": 3, "draws": 4});
        assert_eq!(game.post("/v1/keno/draw-tickets", &token, "t", body).await.status, StatusCode::CREATED);
        wallets.push(wallet);
    }
    let n = game.state.schedule.next_after(start);
    // The passes race each other directly (no leadership), draw by draw.
    for _ in 0..4 {
        game.state.clock.advance(interval(&game.state));
        let (a, b) = tokio::join!(run_due_draws(&game.state), run_due_draws(&other));
        a.unwrap();
        b.unwrap();
    }
    assert_eq!(draw_records(&game).await, (n..n + 4).collect::<Vec<_>>());
    // And as the service runs them: two schedulers, one leads.
    let handles = [
        draw_games::saga::scheduler::spawn_scheduler(
            game.state.clone(),
            std::time::Duration::from_millis(50),
        ),
        draw_games::saga::scheduler::spawn_scheduler(other.clone(), std::time::Duration::from_millis(50)),
    ];
    game.state.clock.advance(interval(&game.state) * 2);
    let settled = async {
        loop {
            let open: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM keno_draws WHERE number < $1 AND state <> 'settled'",
            )
            .bind(n + 6)
            .fetch_one(&game.state.pool)
            .await
            .unwrap();
            if open == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), settled)
        .await
        .expect("the leader ran the draws");
    for handle in handles {
        handle.abort();
    }
    assert_eq!(draw_records(&game).await, (n..n + 6).collect::<Vec<_>>(), "each draw once");
    let paid: Vec<(i64, i64)> =
        sqlx::query_as("SELECT count(*), count(*) FILTER (WHERE paid) FROM keno_entries")
            .fetch_all(&game.state.pool)
            .await
            .unwrap();
    assert_eq!(paid, vec![(24, 24)]);
    for wallet in wallets {
        let won: i64 = sqlx::query_scalar(
            "SELECT coalesce(sum(payout_cents), 0)::bigint FROM keno_entries WHERE wallet_account_id = $1",
        )
        .bind(wallet)
        .fetch_one(&game.state.pool)
        .await
        .unwrap();
        assert_eq!(game.balance(wallet).await, 10_000 - 1_200 + won, "staked once, every prize paid once");
    }
    game.assert_books_balance().await;
}

/// Every time a draw records is the service's clock's, as its schedule is: with the clock three
/// days ahead (a demonstration's offset), a draw is not closed, drawn or settled three days before
/// its own sales closed (issue 32 §5; they came from the database's `now()`).
#[tokio::test]
async fn a_draws_times_come_from_the_clock_its_schedule_runs_on() {
    let mut game = Game::new().await;
    let schedule = game.state.schedule;
    let ahead = Utc::now() + Duration::days(3);
    let number = schedule.next_after(ahead);
    let close = schedule.sales_close_at(number);
    let sold_at = close - Duration::seconds(100);
    game.state.clock = Clock::manual(sold_at);
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 0);
    // Issue 47 §4: the tickets sold then are recorded at the clock's time too, both kinds.
    let (player, _) = game.player(1_000).await;
    let token = game.token(&player, Role::Player);
    let now = game.post("/v1/keno/tickets", &token, "n-1", json!({"option": "bet", "spots": [7]})).await;
    let later = game
        .post("/v1/keno/draw-tickets", &token, "d-1", json!({"option": "bet", "spots": [7], "draws": 1}))
        .await;
    for (table, sold) in [("keno_tickets", &now), ("keno_draw_tickets", &later)] {
        assert_eq!(sold.status, StatusCode::CREATED, "{}", sold.body);
        let id: uuid::Uuid = sold.body["id"].as_str().unwrap().parse().unwrap();
        let (created, updated): (DateTime<Utc>, DateTime<Utc>) =
            sqlx::query_as(&format!("SELECT created_at, updated_at FROM {table} WHERE id = $1"))
                .bind(id)
                .fetch_one(&game.state.pool)
                .await
                .unwrap();
        assert_eq!(created, sold_at, "{table}");
        // `updated_at` is the recovery's own mark, kept on the database's clock as its sweeps
        // compare it there; no answer shows it.
        let _ = updated;
    }
    // A void and its refund are stamped on the same clock (they were the database's).
    let service = game.token("gateway", Role::Service);
    let path = format!("/v1/draws/players/{player}/void-future-tickets");
    let voided = game.post(&path, &service, "v-1", json!({"reason": "time_out"})).await;
    assert_eq!(voided.status, StatusCode::OK, "{}", voided.body);
    let void = &voided.body["voided"][0];
    let stamp = |field: &str| void[field].as_str().map(|t| t.parse::<DateTime<Utc>>().unwrap());
    assert_eq!((stamp("voided_at"), stamp("refunded_at")), (Some(sold_at), Some(sold_at)), "{void}");
    let done_at = close + Duration::seconds(1);
    game.state.clock.set(done_at);
    assert_eq!(run_due_draws(&game.state).await.unwrap(), 1);
    let (closed_at, drawn_at, settled_at): (DateTime<Utc>, DateTime<Utc>, DateTime<Utc>) =
        sqlx::query_as("SELECT closed_at, drawn_at, settled_at FROM keno_draws WHERE number = $1")
            .bind(number)
            .fetch_one(&game.state.pool)
            .await
            .unwrap();
    assert_eq!([closed_at, drawn_at, settled_at], [done_at; 3], "draw {number}, sales closed at {close}");
    let shown = game.get(&format!("/v1/keno/draws/{number}"), None).await.body;
    assert_eq!(shown["drawn_at"].as_str().map(|t| t.parse::<DateTime<Utc>>().unwrap()), Some(done_at));
}
