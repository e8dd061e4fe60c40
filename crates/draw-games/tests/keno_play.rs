//! Castle Keno played at once against a real ledger on a real Postgres: money, idempotency,
//! refusals, recovery after a crash, and the audit chain.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Game;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use domain::keno::{BetOption, Draw, Ticket, settle};
use platform::auth::Role;
use platform::testing::send;
use serde_json::{Value, json};
use uuid::Uuid;

/// What the stored numbers must have paid, by the domain's rules.
fn expected_payout(ticket: &Value) -> i64 {
    let option: BetOption = serde_json::from_value(ticket["option"].clone()).unwrap();
    let spots: Vec<u8> = ticket["spots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| u8::try_from(n.as_u64().unwrap()).unwrap())
        .collect();
    let numbers: Vec<u8> = ticket["draw_numbers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| u8::try_from(n.as_u64().unwrap()).unwrap())
        .collect();
    let rules =
        Ticket::new(option, &spots, u32::try_from(ticket["tickets"].as_u64().unwrap()).unwrap(), u32::MAX)
            .unwrap();
    settle(&rules, &Draw { numbers: numbers.try_into().unwrap() }).payout_cents
}

#[tokio::test]
async fn a_ticket_is_staked_drawn_and_paid_once() {
    let game = Game::new().await;
    let (player, wallet) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    let body = json!({"option": "bet", "spots": [1, 2, 3, 4, 5, 6, 7, 8], "tickets": 3});
    let first = game.play(Some(&token), Some("t-1"), body.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let ticket = first.body.clone();
    // The one answer of every create (ADR 0009 §7): where it is, and that it is new.
    let location = format!("/v1/keno/tickets/{}", ticket["id"].as_str().unwrap());
    assert_eq!(first.headers["location"], location.as_str());
    assert_eq!(first.headers["idempotent-replayed"], "false");
    assert_eq!((ticket["state"].as_str(), ticket["stake_cents"].as_i64()), (Some("settled"), Some(300)));
    let numbers = ticket["draw_numbers"].as_array().unwrap();
    assert_eq!(numbers.len(), 20);
    let payout = ticket["payout_cents"].as_i64().unwrap();
    assert_eq!(payout, expected_payout(&ticket));
    assert_eq!(game.balance(wallet).await, 10_000 - 300 + payout);

    let replay = game.play(Some(&token), Some("t-1"), body).await;
    assert_eq!((replay.status, replay.body.clone()), (StatusCode::OK, ticket.clone()));
    assert_eq!(replay.headers["idempotent-replayed"], "true");
    assert_eq!(game.balance(wallet).await, 10_000 - 300 + payout, "a replay moves nothing");
    let other = game.play(Some(&token), Some("t-1"), json!({"option": "bet", "spots": [9]})).await;
    assert_eq!((other.status, other.code()), (StatusCode::CONFLICT, "idempotency_conflict"));

    let id = ticket["id"].as_str().unwrap();
    let read = game.get(&format!("/v1/keno/tickets/{id}"), Some(&token)).await;
    assert_eq!(read.body, ticket);
    let stranger = game.token("someone-else", Role::Player);
    let hidden = game.get(&format!("/v1/keno/tickets/{id}"), Some(&stranger)).await;
    assert_eq!(hidden.code(), "ticket_not_found");

    // The player's tickets, a page at a time, newest first.
    for key in ["t-2", "t-3"] {
        let more = game.play(Some(&token), Some(key), json!({"option": "top_or_bottom"})).await;
        assert_eq!(more.status, StatusCode::CREATED);
    }
    let page = game.get("/v1/keno/tickets?limit=2", Some(&token)).await;
    let ids = |body: &Value| -> Vec<String> {
        body["items"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(ids(&page.body).len(), 2);
    let after = page.body["next"].as_str().unwrap();
    let rest = game.get(&format!("/v1/keno/tickets?limit=2&after={after}"), Some(&token)).await;
    assert_eq!(
        (ids(&rest.body), &rest.body["next"]),
        (vec![id.to_owned()], &Value::Null),
        "the first ticket comes last"
    );
    let bad = game.get("/v1/keno/tickets?after=2026-13-01_x", Some(&token)).await;
    assert_eq!(bad.code(), "invalid_cursor");
    game.assert_books_balance().await;
}

#[tokio::test]
async fn refusals_move_no_money() {
    let game = Game::new().await;
    let (player, wallet) = game.player(150).await;
    let token = game.token(&player, Role::Player);
    let cases = [
        (json!({"option": "bet", "spots": (1..=16).collect::<Vec<u8>>()}), "spots_not_allowed"),
        (json!({"option": "bet_against", "spots": [1, 2, 3, 4, 5]}), "spots_not_allowed"),
        (json!({"option": "top_or_bottom", "spots": [1]}), "spots_not_allowed"),
        (json!({"option": "bet", "spots": [81]}), "spot_out_of_range"),
        (json!({"option": "bet", "spots": [4, 4]}), "duplicate_spot"),
        (json!({"option": "bet", "spots": [4], "tickets": 0}), "stake_out_of_range"),
        (json!({"option": "bet", "spots": [4], "tickets": 101}), "stake_out_of_range"),
        (json!({"option": "jackpot", "spots": [4]}), "invalid_body"),
        (json!({"option": "bet", "spots": [4], "tickets": 2}), "insufficient_funds"),
    ];
    for (i, (body, code)) in cases.into_iter().enumerate() {
        let reply = game.play(Some(&token), Some(&format!("k{i}")), body.clone()).await;
        assert_eq!(reply.code(), code, "{body}");
    }
    assert_eq!(
        game.play(Some(&token), None, json!({"option": "bet", "spots": [4]})).await.code(),
        "missing_idempotency_key"
    );
    assert_eq!(
        game.play(None, Some("x"), json!({"option": "bet", "spots": [4]})).await.status,
        StatusCode::UNAUTHORIZED
    );
    let operator = game.token("ops", Role::Operator);
    assert_eq!(
        game.play(Some(&operator), Some("x"), json!({"option": "bet", "spots": [4]})).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(game.balance(wallet).await, 150);
    game.assert_books_balance().await;
}

#[tokio::test]
async fn tickets_left_between_steps_are_finished_once_by_recovery() {
    let game = Game::new().await;
    let (player, wallet) = game.player(1_000).await;
    // Two crashes after the numbers were recorded: one before the ledger batch, one after it
    // (the ledger holds the batch under the steps' keys, the ticket still says `drawn`).
    // HIT ALL 2 spots with both hit pays $10 per $1 ticket (castle-keno-rules.txt).
    let numbers: Vec<i16> = (1..=20).collect();
    let (before, after) = (Uuid::now_v7(), Uuid::now_v7());
    for id in [before, after] {
        sqlx::query(
            "INSERT INTO keno_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents, state,
                draw_numbers, hits, payout_cents, updated_at)
             VALUES ($1, $2, $3, 'hit_all', '{1,2}', 2, 200, 'drawn', $4, 2, 2000, now() - interval '1 minute')",
        )
        .bind(id)
        .bind(&player)
        .bind(wallet)
        .bind(&numbers)
        .execute(&game.state.pool)
        .await
        .unwrap();
    }
    let step = |step: &str| {
        Uuid::new_v5(&draw_games::DRAWS_NAMESPACE, format!("keno-ticket/{after}/{step}").as_bytes())
    };
    let house = game.state.house_account;
    let batch = json!({"transfers": [
        {"id": step("stake"), "debit_account_id": wallet, "credit_account_id": house, "amount": 200, "currency": "USD",
         "metadata": {"game": "castle_keno", "ticket": after}},
        {"id": step("prize"), "debit_account_id": house, "credit_account_id": wallet, "amount": 2000, "currency": "USD",
         "metadata": {"game": "castle_keno", "ticket": after}}]});
    assert_eq!(
        game.ledger_call("POST", "/v1/transfers/batch", Some(batch)).await.status,
        StatusCode::CREATED
    );
    assert_eq!(game.balance(wallet).await, 2_800);

    assert_eq!(draw_games::saga::keno::play_now::recover(&game.state, Duration::ZERO).await.unwrap(), 2);
    assert_eq!(
        draw_games::saga::keno::play_now::recover(&game.state, Duration::ZERO).await.unwrap(),
        0,
        "nothing left to finish"
    );
    for id in [before, after] {
        let state: String = sqlx::query_scalar("SELECT state FROM keno_tickets WHERE id = $1")
            .bind(id)
            .fetch_one(&game.state.pool)
            .await
            .unwrap();
        assert_eq!(state, "settled");
    }
    assert_eq!(game.balance(wallet).await, 1_000 + 2 * (2000 - 200), "each staked once, paid once");
    let chained: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log").fetch_one(&game.state.pool).await.unwrap();
    assert_eq!(chained, 2, "each outcome chained once");
    game.assert_books_balance().await;
}

#[tokio::test]
async fn a_pending_ticket_hides_its_numbers() {
    let game = Game::new().await;
    let (player, wallet) = game.player(0).await;
    let token = game.token(&player, Role::Player);
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO keno_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents, state,
            draw_numbers, hits, payout_cents)
         VALUES ($1, $2, $3, 'bet', '{1}', 1, 100, 'drawn', $4, 0, 0)",
    )
    .bind(id)
    .bind(&player)
    .bind(wallet)
    .bind((21..=40).collect::<Vec<i16>>())
    .execute(&game.state.pool)
    .await
    .unwrap();
    let read = game.get(&format!("/v1/keno/tickets/{id}"), Some(&token)).await;
    assert_eq!(read.body["state"], "drawn");
    assert_eq!(
        (read.body["draw_numbers"].clone(), read.body["payout_cents"].clone()),
        (Value::Null, Value::Null)
    );
    // The wallet is empty: recovery ends it refused, and it never shows its numbers.
    assert_eq!(draw_games::saga::keno::play_now::recover(&game.state, Duration::ZERO).await.unwrap(), 1);
    let view = draw_games::saga::keno::play_now::drive(&game.state, id).await.unwrap();
    assert_eq!(
        (view.state.as_str(), view.refusal.as_deref(), view.draw_numbers),
        ("refused", Some("insufficient_funds"), None)
    );
    game.assert_books_balance().await;
}

#[tokio::test]
async fn every_outcome_is_chained_and_tampering_shows() {
    let game = Game::new().await;
    let (player, _) = game.player(100_000).await;
    let token = game.token(&player, Role::Player);
    for i in 0..5 {
        let reply = game.play(Some(&token), Some(&format!("a{i}")), json!({"option": "top_or_bottom"})).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    }
    let auditor = game.token("audit", Role::Auditor);
    let verify = || async { game.get("/v1/draws/audit/verify", Some(&auditor)).await };
    let report = verify().await;
    assert_eq!((report.body["intact"].clone(), report.body["records"].clone()), (json!(true), json!(5)));
    let refused = sqlx::query("UPDATE audit_log SET record = record || ' ' WHERE seq = 3")
        .execute(&game.state.pool)
        .await;
    assert!(refused.is_err(), "the log refuses updates");
    // A superuser who disables the guard still cannot hide it.
    sqlx::query("ALTER TABLE audit_log DISABLE TRIGGER USER").execute(&game.state.pool).await.unwrap();
    sqlx::query("UPDATE audit_log SET record = replace(record, '\"hits\"', '\"hits\" ') WHERE seq = 3")
        .execute(&game.state.pool)
        .await
        .unwrap();
    let report = verify().await;
    assert_eq!(
        (report.body["intact"].clone(), report.body["first_broken_seq"].clone()),
        (json!(false), json!(3))
    );
    let player_view = game.get("/v1/draws/audit/verify", Some(&token)).await;
    assert_eq!(player_view.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn pay_tables_and_math_are_public() {
    let game = Game::new().await;
    let tables = game.get("/v1/keno/paytables", None).await;
    assert_eq!(tables.status, StatusCode::OK);
    let bet = tables.body.as_array().unwrap().iter().find(|t| t["option"] == "bet").unwrap();
    assert!(bet["cells"].as_array().unwrap().contains(&json!([10, 10, 800_000])));
    let math = game.get("/v1/keno/math", None).await;
    let rows = math.body.as_array().unwrap();
    assert_eq!(rows.len(), 45);
    let one = rows.iter().find(|r| r["option"] == "bet" && r["spots"] == 1).unwrap();
    assert_eq!(one["return_to_player"], json!({"numerator": 3, "denominator": 4}));
}

#[tokio::test]
async fn concurrent_tickets_share_ledger_calls_but_not_refusals() {
    let game = Game::new().await;
    let mut players = Vec::new();
    for i in 0..24 {
        // Every fourth player cannot afford the ticket.
        let (player, wallet) = game.player(if i % 4 == 0 { 50 } else { 500 }).await;
        players.push((game.token(&player, Role::Player), wallet, i % 4 == 0));
    }
    let plays: Vec<_> = players
        .iter()
        .map(|(token, _, _)| {
            let router = game.router.clone();
            let request = Request::post("/v1/keno/tickets")
                .header("content-type", "application/json")
                .header("authorization", format!("Bearer {token}"))
                .header("idempotency-key", "same-key-each")
                .body(Body::from(json!({"option": "bet", "spots": [1, 2, 3, 4], "tickets": 2}).to_string()))
                .unwrap();
            tokio::spawn(async move { send(&router, request).await })
        })
        .collect();
    let mut replies = Vec::new();
    for play in plays {
        replies.push(play.await.unwrap());
    }
    for ((_, wallet, broke), reply) in players.iter().zip(replies) {
        if *broke {
            assert_eq!(reply.code(), "insufficient_funds");
            assert_eq!(game.balance(*wallet).await, 50);
        } else {
            assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
            assert_eq!(game.balance(*wallet).await, 500 - 200 + expected_payout(&reply.body));
        }
    }
    let chained: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log").fetch_one(&game.state.pool).await.unwrap();
    assert_eq!(chained, 18, "every settled ticket chained once, no refused one");
    game.assert_books_balance().await;
}

#[test]
fn the_largest_keno_prize_at_the_default_limit_is_one_the_ledger_pays() {
    let prize = domain::keno::top_prize_cents() * i64::from(draw_games::config::DEFAULT_MAX_TICKETS);
    assert!(prize > 0 && prize < domain::Amount::MAX_CENTS, "{prize}");
}

/// The play-now writes find each ticket by its id in the plan a fresh database gives them (a
/// statement is planned once per connection; one planned on an empty table read every
/// unfinished ticket at each settlement: ADR 0010, session 14).
#[tokio::test]
async fn play_now_settlements_read_their_tickets_by_key_on_a_fresh_database() {
    let game = Game::new().await;
    for sql in
        [draw_games::store::keno::tickets::SETTLE_DRAWN, draw_games::store::keno::tickets::REFUSE_DRAWN]
    {
        let plan = platform::group_commit::generic_plan(&game.state.pool, sql).await.unwrap();
        if let Err(e) = platform::testing::reads_by_key(&plan, &["keno_tickets_pkey"]) {
            panic!("{sql} {e}");
        }
    }
}
