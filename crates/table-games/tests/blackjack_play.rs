//! Blackjack played over the API against a real ledger on a real Postgres, from stacked shoes:
//! money, decisions, the progressive pot, concurrency, refusals, recall and the audit chain.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use domain::cards::{Card, Decks, Shoe};
use platform::auth::Role;
use platform::http::Limits;
use platform::testing::{Reply, send};
use platform::upstream::Upstream;
use serde_json::{Value, json};
use uuid::Uuid;

mod common;

use common::Casino;

impl Casino {
    /// Opens a six-deck table whose shoe starts with `first` (dealing order), then 2s.
    async fn table(&self, token: &str, first: &str) -> Uuid {
        let table =
            self.call("POST", "/v1/blackjack/tables", Some(token), None, Some(json!({"decks": 6}))).await;
        assert_eq!(table.status, StatusCode::CREATED, "{}", table.body);
        let id: Uuid = table.body["id"].as_str().unwrap().parse().unwrap();
        self.stack(id, first).await;
        id
    }

    async fn stack(&self, table: Uuid, first: &str) {
        let mut cards: Vec<Card> = first.split_whitespace().map(|c| c.parse().unwrap()).collect();
        while cards.len() < 312 {
            cards.push("2C".parse().unwrap());
        }
        let shoe = Shoe::stacked(Decks::Six, cards, 260).unwrap();
        // (A write of the shoe, counted as every write of it is.)
        sqlx::query("UPDATE bj_tables SET shoe = $2, shoe_version = shoe_version + 1 WHERE id = $1")
            .bind(table)
            .bind(serde_json::to_value(&shoe).unwrap())
            .execute(&self.state.pool)
            .await
            .unwrap();
    }

    async fn deal(&self, token: &str, table: Uuid, key: &str, spots: Value) -> Reply {
        self.call(
            "POST",
            &format!("/v1/blackjack/tables/{table}/rounds"),
            Some(token),
            Some(key),
            Some(json!({"spots": spots})),
        )
        .await
    }

    async fn act(&self, token: &str, round: &str, body: Value) -> Reply {
        self.call("POST", &format!("/v1/blackjack/rounds/{round}/actions"), Some(token), None, Some(body))
            .await
    }
}

#[tokio::test]
async fn a_round_is_dealt_played_and_settled_through_the_ledger() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    // Player 10 6 against the dealer's 9 (hole 7); a hit brings a 5: 21. The dealer's 16 draws a 2.
    let table = casino.table(&token, "10S 9H 6D 7C 5C").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.body);
    assert_eq!((dealt.body["state"].as_str(), dealt.body["step"].as_i64()), (Some("playing"), Some(0)));
    assert_eq!(dealt.body["round"]["dealer"], json!(["9H"]), "the hole card stays on the server");
    // 10 6 may be hit, stood or doubled; not split.
    assert_eq!(
        dealt.body["allowed_actions"],
        json!([{"action": "hit"}, {"action": "stand"}, {"action": "double"}])
    );
    assert_eq!(casino.balance(wallet).await, 9_500);
    let replay = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    assert_eq!((replay.status, casino.balance(wallet).await), (StatusCode::OK, 9_500));

    let round = dealt.body["id"].as_str().unwrap();
    let done = casino.act(&token, round, json!({"step": 0, "action": "hit"})).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(done.body["state"], "settled");
    assert_eq!(done.body["allowed_actions"], json!([]), "a settled round awaits nothing");
    assert_eq!(done.body["round"]["dealer"], json!(["9H", "7C", "2C"]));
    assert_eq!(
        (done.body["staked_cents"].as_i64(), done.body["returned_cents"].as_i64()),
        (Some(500), Some(1_000))
    );
    assert_eq!(casino.balance(wallet).await, 10_500);

    let recall = casino.call("GET", "/v1/blackjack/recall", Some(&token), None, None).await;
    let last = &recall.body[0];
    assert_eq!(
        (last["balance_before_cents"].as_i64(), last["balance_after_cents"].as_i64()),
        (Some(10_000), Some(10_500))
    );
    assert_eq!(last["actions"], json!([{"step": 0, "decision": {"action": "hit"}, "by": "player"}]));
    assert_eq!(last["round"]["spots"][0]["hands"][0]["cards"], json!(["10S", "6D", "5C"]));

    let auditor = casino.tokens.issue("audit", Role::Auditor, None, Duration::from_secs(60)).unwrap();
    let chain = casino.call("GET", "/v1/tables/audit/verify", Some(&auditor), None, None).await;
    assert_eq!((chain.body["intact"].clone(), chain.body["records"].clone()), (json!(true), json!(1)));
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn of_two_concurrent_decisions_exactly_one_applies() {
    let casino = Casino::new().await;
    let (token, _) = casino.player(10_000).await;
    let table = casino.table(&token, "10S 9H 6D 7C 3C 4C").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let router = casino.router.clone();
        let request = Request::post(format!("/v1/blackjack/rounds/{round}/actions"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::from(json!({"step": 0, "action": "hit"}).to_string()))
            .unwrap();
        tasks.push(tokio::spawn(async move { send(&router, request).await }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        let reply = task.await.unwrap();
        statuses.push((reply.status, reply.code().to_owned()));
    }
    let applied = statuses.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    assert_eq!(applied, 1, "{statuses:?}");
    assert!(statuses.iter().filter(|(s, _)| *s != StatusCode::OK).all(|(_, code)| code == "stale_step"));
    let now = casino.call("GET", &format!("/v1/blackjack/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(
        now.body["round"]["spots"][0]["hands"][0]["cards"].as_array().unwrap().len(),
        3,
        "one card drawn"
    );
}

#[tokio::test]
async fn doubles_and_splits_take_their_wager_from_the_wallet_or_are_refused() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(1_500).await;
    // A pair of 8s against a 9 (hole 7): split (500 more), then double the first hand (500 more):
    // 8 3 then a 10 = 21; the second 8 takes a 2 and stands. The dealer's 16 draws a 10: bust.
    let table = casino.table(&token, "8S 9H 8D 7C 3C 10H 2S 10D").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let allowed: Vec<&str> = dealt.body["allowed_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(allowed, ["hit", "stand", "double", "split"], "a pair may be split");
    let split = casino.act(&token, &round, json!({"step": 0, "action": "split"})).await;
    assert_eq!(split.status, StatusCode::OK, "{}", split.body);
    assert_eq!(casino.balance(wallet).await, 500);
    let double = casino.act(&token, &round, json!({"step": 1, "action": "double"})).await;
    assert_eq!(double.status, StatusCode::OK, "{}", double.body);
    assert_eq!(casino.balance(wallet).await, 0);
    // Nothing left to double with: refused, nothing changes.
    let broke = casino.act(&token, &round, json!({"step": 2, "action": "double"})).await;
    assert_eq!(broke.code(), "insufficient_funds", "{}", broke.body);
    let same = casino.call("GET", &format!("/v1/blackjack/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(same.body["step"], 2);
    let stand = casino.act(&token, &round, json!({"step": 2, "action": "stand"})).await;
    assert_eq!(stand.body["state"], "settled", "{}", stand.body);
    // 21 doubled wins 1000 on 1000; 10 wins 500 on 500 against the bust.
    assert_eq!(stand.body["returned_cents"], 3_000);
    assert_eq!(casino.balance(wallet).await, 3_000);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn three_sevens_of_diamonds_win_the_pot_and_it_is_funded_again() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let pot = casino.state.blackjack.pot_account;
    assert_eq!(casino.balance(pot).await, 1_000_000, "seeded at $10,000 (K.A.R. 111-301-5(j)(6))");
    // Player 7D 7D, the dealer's 7D up and 10C in the hole: 14 against 17.
    let table = casino.table(&token, "7D 7D 7D 10C").await;
    let dealt =
        casino.deal(&token, table, "r1", json!([{"wager": 500, "blazing_7s": true, "trilux": 100}])).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.body);
    assert_eq!(dealt.body["round"]["spots"][0]["sides"]["sevens"], "three_diamond_sevens");
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let done = casino.act(&token, &round, json!({"step": 0, "action": "stand"})).await;
    assert_eq!(done.body["state"], "settled", "{}", done.body);
    // The pot at the deal held the seed and this wager's 24 cents: all of it is won.
    assert_eq!(done.body["pot_prize_cents"], 1_000_024);
    // Wager lost, TriLux (suited three of a kind) 9 to 1: 1,000 back; the progressive $1 spent.
    assert_eq!(done.body["returned_cents"], 1_000);
    assert_eq!(casino.balance(wallet).await, 10_000 - 700 + 1_000 + 1_000_024);
    assert_eq!(casino.balance(pot).await, 1_000_000, "re-seeded after the top prize (111-301-5(j)(7))");
    let meter = casino.call("GET", "/v1/blackjack/progressive", None, None, None).await;
    assert_eq!(meter.body["pot_cents"], 1_000_000);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn bad_requests_get_clear_problems_and_move_nothing() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(1_000).await;
    let (stranger, _) = casino.player(1_000).await;
    let bad_decks =
        casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 3}))).await;
    assert_eq!(bad_decks.code(), "invalid_decks");
    let bad_cut = casino
        .call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 2, "cut": 10})))
        .await;
    assert_eq!(bad_cut.code(), "cut_out_of_range");
    for limits in [
        json!({"min_wager_cents": 50}),
        json!({"max_wager_cents": 500_000}),
        json!({"min_wager_cents": 1_000, "max_wager_cents": 500}),
    ] {
        let refused =
            casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(limits.clone())).await;
        assert_eq!(refused.code(), "invalid_limits", "{limits}");
    }
    let fives = json!({"min_wager_cents": 500, "max_wager_cents": 2_500});
    let fives = casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(fives)).await;
    assert_eq!(
        (fives.body["min_wager_cents"].as_i64(), fives.body["max_wager_cents"].as_i64()),
        (Some(500), Some(2_500))
    );
    let fives: Uuid = fives.body["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(casino.deal(&token, fives, "low", json!([{"wager": 100}])).await.code(), "wager_out_of_range");
    let two =
        casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 2}))).await;
    let two: Uuid = two.body["id"].as_str().unwrap().parse().unwrap();
    let table = casino.table(&token, "10S 9H 6D 7C").await;
    let cases = [
        (table, json!([{"wager": 150}]), "wager_out_of_range"),
        (table, json!([]), "no_spots"),
        (table, json!([{"wager": 500, "bonus": 1}]), "invalid_body"),
        (two, json!([{"wager": 500, "royal_match": 100}]), "royal_match_needs_six_decks"),
        (two, json!([{"wager": 500, "blazing_7s": true}]), "blazing_sevens_need_six_decks"),
        (table, json!([{"wager": 5_000}]), "insufficient_funds"),
    ];
    for (i, (at, spots, code)) in cases.into_iter().enumerate() {
        let reply = casino.deal(&token, at, &format!("k{i}"), spots.clone()).await;
        assert_eq!(reply.code(), code, "{spots}");
    }
    assert_eq!(casino.deal(&stranger, table, "s", json!([{"wager": 100}])).await.code(), "table_not_found");
    let missing_key = casino
        .call(
            "POST",
            &format!("/v1/blackjack/tables/{table}/rounds"),
            Some(&token),
            None,
            Some(json!({"spots": [{"wager": 100}]})),
        )
        .await;
    assert_eq!(missing_key.code(), "missing_idempotency_key");
    assert_eq!(casino.balance(wallet).await, 1_000);

    let dealt = casino.deal(&token, table, "ok", json!([{"wager": 100}])).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    // Dealing again while the round is in play answers that round, nothing staked (a player
    // who lost the page finds the hand where it was).
    let staked = casino.balance(wallet).await;
    let again = casino.deal(&token, table, "second", json!([{"wager": 100}])).await;
    assert_eq!(
        (again.status, again.body["id"].as_str()),
        (StatusCode::OK, Some(round.as_str())),
        "{}",
        again.body
    );
    assert_eq!(again.headers["idempotent-replayed"], "false");
    assert_eq!(again.headers["content-location"], format!("/v1/blackjack/rounds/{round}").as_str());
    assert_eq!(casino.balance(wallet).await, staked, "nothing more staked");
    assert_eq!(casino.act(&token, &round, json!({"step": 3, "action": "hit"})).await.code(), "stale_step");
    assert_eq!(
        casino.act(&token, &round, json!({"step": 0, "action": "split"})).await.code(),
        "action_not_allowed"
    );
    assert_eq!(
        casino
            .act(&token, &round, json!({"step": 0, "action": "insurance", "spot": 0, "amount": 50}))
            .await
            .code(),
        "out_of_turn"
    );
    assert_eq!(
        casino.act(&stranger, &round, json!({"step": 0, "action": "stand"})).await.code(),
        "round_not_found"
    );
    let stood = casino.act(&token, &round, json!({"step": 0, "action": "stand"})).await;
    assert_eq!(stood.body["state"], "settled");
    assert_eq!(
        casino.act(&token, &round, json!({"step": 1, "action": "stand"})).await.code(),
        "round_not_in_play"
    );
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn the_math_and_the_meter_are_public() {
    let casino = Casino::new().await;
    let math = casino.call("GET", "/v1/blackjack/math", None, None, None).await;
    assert_eq!(math.status, StatusCode::OK);
    assert_eq!(math.body["main_game"][0]["decks"], 6);
    let trilux = math.body["side_wagers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["decks"] == 6 && w["wager"] == "trilux")
        .unwrap();
    let rtp = trilux["return_to_player_decimal"].as_f64().unwrap();
    assert!((rtp - 0.9676).abs() < 0.0001, "{rtp}");
    // The split hands' protection against a dealer blackjack found at the end is a reading:
    // published with what losing every split hand would add (a few hundredths of a percent).
    for reading in math.body["readings"].as_array().unwrap() {
        assert_eq!(reading["rule"], "K.A.R. 111-301-6(g)(3)");
        let (edge, adds, other) = (
            reading["house_edge_percent"].as_f64().unwrap(),
            reading["other_reading_adds_percent"].as_f64().unwrap(),
            reading["house_edge_other_reading_percent"].as_f64().unwrap(),
        );
        assert!(adds > 0.01 && adds < 0.05, "{reading}");
        assert!((other - edge - adds).abs() < 1e-12, "{reading}");
    }
    assert_eq!(math.body["readings"].as_array().unwrap().len(), 2, "six and two decks");
    let meter = casino.call("GET", "/v1/blackjack/progressive", None, None, None).await;
    assert_eq!(
        (meter.body["pot_cents"].as_i64(), meter.body["contribution_percent"].as_i64()),
        (Some(1_000_000), Some(24))
    );
}

#[tokio::test]
async fn a_round_cut_short_by_a_crash_resumes_with_the_same_cards_and_charges_once() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let table = casino.table(&token, "5S 9H 6D 7C 10C").await;
    let player = casino.tokens.verify(&token).unwrap().sub;

    // A crash after the wagers left the wallet, before the cards were dealt: the round is
    // `open` and the ledger holds its stake under the step's key.
    let id = Uuid::now_v7();
    sqlx::query(
        "INSERT INTO bj_rounds (id, table_id, player_id, wallet_account_id, bets, state, balance_before_cents, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'open', 10000, now() - interval '1 minute')",
    )
    .bind(id)
    .bind(table)
    .bind(&player)
    .bind(wallet)
    .bind(json!([{"wager": 500}]))
    .execute(&casino.state.pool)
    .await
    .unwrap();
    let stake_id =
        Uuid::new_v5(&table_games::TABLES_NAMESPACE, format!("bj-round/{id}/stake/escrow").as_bytes());
    let stake = json!({"id": stake_id, "debit_account_id": wallet, "credit_account_id": casino.state.blackjack.escrow_account,
                       "amount": 500, "currency": "USD", "metadata": {"game": "blackjack", "round": id}});
    assert_eq!(casino.ledger_call("POST", "/v1/transfers", Some(stake)).await.status, StatusCode::CREATED);
    assert_eq!(table_games::blackjack::recover(&casino.state, Duration::ZERO).await.unwrap(), 1);
    assert_eq!(casino.balance(wallet).await, 9_500, "the wagers were taken once");
    let round = id.to_string();
    let dealt = casino.call("GET", &format!("/v1/blackjack/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(dealt.body["round"]["spots"][0]["hands"][0]["cards"], json!(["5S", "6D"]));

    // A crash after a double's wager left the wallet, before the round moved on: the decision,
    // sent again on the same step, draws the same card and replays in the ledger.
    let double_id = Uuid::new_v5(&table_games::TABLES_NAMESPACE, format!("bj-round/{id}/step/0").as_bytes());
    let double = json!({"id": double_id, "debit_account_id": wallet, "credit_account_id": casino.state.blackjack.escrow_account,
                        "amount": 500, "currency": "USD", "metadata": {"game": "blackjack", "round": id}});
    assert_eq!(
        casino.ledger_call("POST", "/v1/transfers/batch", Some(json!({"transfers": [double]}))).await.status,
        StatusCode::CREATED
    );
    let done = casino.act(&token, &round, json!({"step": 0, "action": "double"})).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(done.body["round"]["spots"][0]["hands"][0]["cards"], json!(["5S", "6D", "10C"]));
    // 21 against the dealer's 16, which draws a 2: 18. The doubled 1000 wins 1000.
    assert_eq!(done.body["returned_cents"], 2_000);
    assert_eq!(casino.balance(wallet).await, 10_000 - 1_000 + 2_000, "each wager taken once");
    casino.assert_books_balance().await;
}

/// A double whose wager the ledger does not take (it does not answer) holds the round's step
/// without holding a lock: the round waits, another decision on that step is refused, and the
/// recovery pass takes the wager and applies the double once (ADR 0004).
#[tokio::test]
async fn a_decision_waiting_for_the_ledger_is_finished_once_by_the_recovery_pass() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let table = casino.table(&token, "5S 9H 6D 7C 10C").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let dead = Upstream::remote("ledger", "http://127.0.0.1:9", Duration::from_secs(2)).unwrap();
    let cut =
        casino.state.with_ledger(ledger_api::LedgerClient::new(dead, casino.tokens.clone(), "table-games"));
    let cut_router = table_games::router(cut, Limits::default());
    let request = Request::post(format!("/v1/blackjack/rounds/{round}/actions"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(json!({"step": 0, "action": "double"}).to_string()))
        .unwrap();
    let waiting = send(&cut_router, request).await;
    assert_eq!(waiting.status, StatusCode::SERVICE_UNAVAILABLE, "{}", waiting.body);
    assert_eq!(casino.balance(wallet).await, 9_500, "the double's wager was not taken");
    let later = casino.act(&token, &round, json!({"step": 1, "action": "stand"})).await;
    assert_eq!(later.code(), "stale_step", "the pending double holds step 0");
    let other = casino.act(&token, &round, json!({"step": 0, "action": "stand"})).await;
    assert_eq!(other.code(), "decision_pending", "{}", other.body);
    assert_eq!(other.body["context"]["pending"]["action"], "double");
    assert_eq!(table_games::blackjack::recover(&casino.state, Duration::ZERO).await.unwrap(), 1);
    let done = casino.call("GET", &format!("/v1/blackjack/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(done.body["state"], "settled", "{}", done.body);
    assert_eq!(done.body["round"]["spots"][0]["hands"][0]["cards"], json!(["5S", "6D", "10C"]));
    assert_eq!(done.body["returned_cents"], 2_000);
    assert_eq!(casino.balance(wallet).await, 10_000 - 1_000 + 2_000, "each wager taken once");
    assert_eq!(table_games::blackjack::recover(&casino.state, Duration::ZERO).await.unwrap(), 0, "once");
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn the_house_finishes_an_abandoned_round_by_standing() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    // The dealer shows an ace (hole 9): insurance is offered; the player never comes back.
    let table = casino.table(&token, "10S AH 10D 9C").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await;
    assert_eq!(dealt.body["round"]["phase"], "insurance");
    let idle = Duration::from_secs(3600);
    assert_eq!(
        table_games::blackjack::finish_abandoned(&casino.state, idle).await.unwrap(),
        0,
        "not idle yet"
    );
    assert_eq!(table_games::blackjack::finish_abandoned(&casino.state, Duration::ZERO).await.unwrap(), 1);
    let round = dealt.body["id"].as_str().unwrap();
    let done = casino.call("GET", &format!("/v1/blackjack/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(done.body["state"], "settled");
    let decisions: Vec<Value> = done.body["actions"].as_array().unwrap().clone();
    assert_eq!(decisions.len(), 2);
    assert!(decisions.iter().all(|d| d["by"] == "house (round abandoned)"));
    assert_eq!(decisions[0]["decision"], json!({"action": "decline_insurance", "spot": 0}));
    assert_eq!(decisions[1]["decision"], json!({"action": "stand"}));
    // 20 against the dealer's 20: a push, the wager returned.
    assert_eq!(casino.balance(wallet).await, 10_000);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn more_spots_than_the_table_allows_are_refused_before_any_money_moves() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(100_000).await;
    let six =
        casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 6}))).await;
    assert_eq!(six.body["max_spots"], 7, "a real table's seven by default");
    let two =
        casino.call("POST", "/v1/blackjack/tables", Some(&token), None, Some(json!({"decks": 2}))).await;
    assert_eq!(two.body["max_spots"], 5, "what a two-deck shoe always serves");
    for (decks, spots) in [(6, 8), (2, 6), (6, 0)] {
        let refused = casino
            .call(
                "POST",
                "/v1/blackjack/tables",
                Some(&token),
                None,
                Some(json!({"decks": decks, "max_spots": spots})),
            )
            .await;
        assert_eq!(
            (refused.status, refused.body["code"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("invalid_max_spots"))
        );
    }
    let table: Uuid = six.body["id"].as_str().unwrap().parse().unwrap();
    let spots = vec![json!({"wager": 100}); 45];
    let refused = casino.deal(&token, table, "many", json!(spots)).await;
    assert_eq!(
        (refused.status, refused.body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("too_many_spots")),
        "{}",
        refused.body
    );
    assert_eq!(casino.balance(wallet).await, 100_000, "nothing moved");
    let seven = casino.deal(&token, table, "seven", json!(vec![json!({"wager": 100}); 7])).await;
    assert_eq!(seven.status, StatusCode::CREATED, "{}", seven.body);
}

/// Writes a shoe of exactly `cards` (dealing order) to the table, its cut card behind the last:
/// a shoe stored before the reserve existed, which a round can run dry.
async fn store_short_shoe(casino: &Casino, table: Uuid, cards: &str) {
    let cards: Vec<&str> = cards.split_whitespace().collect();
    let shoe = json!({"decks": "6", "cards": cards, "next": 0, "cut": cards.len()});
    sqlx::query("UPDATE bj_tables SET shoe = $2 WHERE id = $1")
        .bind(table)
        .bind(shoe)
        .execute(&casino.state.pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_round_the_shoe_cannot_finish_is_voided_with_every_wager_returned() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let table = casino.table(&token, "").await;
    let auditor = casino.tokens.issue("audit", Role::Auditor, None, Duration::from_secs(60)).unwrap();

    // At the deal: three cards for a round that needs four.
    store_short_shoe(&casino, table, "2C 3D 4H").await;
    let spots = json!([{"wager": 500, "trilux": 100, "blazing_7s": true}]);
    let voided = casino.deal(&token, table, "v1", spots.clone()).await;
    assert_eq!(voided.status, StatusCode::CREATED, "{}", voided.body);
    assert_eq!(
        (voided.body["state"].as_str(), voided.body["refusal"].as_str()),
        (Some("voided"), Some("shoe_exhausted"))
    );
    assert_eq!(voided.body["returned_cents"], voided.body["staked_cents"]);
    assert_eq!(
        casino.balance(wallet).await,
        10_000,
        "the wager, the side wager and the progressive returned"
    );
    let replay = casino.deal(&token, table, "v1", spots).await;
    assert_eq!((replay.status, replay.body["state"].as_str()), (StatusCode::OK, Some("voided")));
    assert_eq!(casino.balance(wallet).await, 10_000, "returned once");

    // In play: four cards deal the round; the player's hit finds none.
    store_short_shoe(&casino, table, "2C 3D 4H 5S").await;
    let dealt = casino.deal(&token, table, "v2", json!([{"wager": 500}])).await;
    assert_eq!(dealt.body["state"], "playing", "{}", dealt.body);
    let round = dealt.body["id"].as_str().unwrap();
    let hit = casino.act(&token, round, json!({"step": 0, "action": "hit"})).await;
    assert_eq!((hit.status, hit.body["state"].as_str()), (StatusCode::OK, Some("voided")), "{}", hit.body);
    assert_eq!(casino.balance(wallet).await, 10_000);
    assert_eq!(
        casino.balance(casino.state.blackjack.pot_account).await,
        1_000_000,
        "the pot gave back its contribution"
    );

    // The table is not stranded: the next round is dealt and settled (from a stacked shoe, so
    // that standing settles it whatever a random shoe would have dealt).
    casino.stack(table, "10S 9H 6D 7C").await;
    let next = casino.deal(&token, table, "v3", json!([{"wager": 500}])).await;
    assert_eq!(next.status, StatusCode::CREATED, "{}", next.body);
    let chain = casino.call("GET", "/v1/tables/audit/verify", Some(&auditor), None, None).await;
    assert_eq!(chain.body["intact"], true);
    assert!(chain.body["records"].as_i64().unwrap() >= 2, "the voided rounds are chained");
    let settled =
        casino.act(&token, next.body["id"].as_str().unwrap(), json!({"step": 0, "action": "stand"})).await;
    assert_eq!(settled.body["state"], "settled", "{}", settled.body);
    casino.assert_books_balance().await;
}

#[test]
fn the_largest_round_at_the_highest_house_limit_is_one_the_ledger_pays() {
    use domain::blackjack::side_wagers::{SevensPrize, royal_match, trilux, trilux_super_3};
    let deck: Vec<Card> = Card::deck().collect();
    let mut most_side_odds = 0i64;
    let mut most_sevens_for_one = 0i64;
    for &a in &deck {
        for &b in &deck {
            for &up in &deck {
                for odds in [trilux([a, b], up), trilux_super_3([a, b], up), royal_match([a, b])]
                    .into_iter()
                    .flatten()
                {
                    most_side_odds = most_side_odds.max(i64::from(odds.to.div_ceil(odds.per)));
                }
                if let Some(n) = SevensPrize::of([a, b], up).and_then(SevensPrize::for_one) {
                    most_sevens_for_one = most_sevens_for_one.max(i64::from(n));
                }
            }
        }
    }
    let w = table_games::kit::house::HouseLimits::MOST_CENTS;
    // A spot: four hands, each doubled and paid 3 to 2 at most on both parts; three side wagers at
    // their best odds; insurance at 2 to 1; the progressive's fixed prize on the posted wager
    // (its pot prize is a separate transfer from the pot, bounded by the pot).
    let per_spot = 4 * (2 * w) * 5 / 2 + 3 * w * (1 + most_side_odds) + 3 * w / 2 + most_sevens_for_one * w;
    let round = 7 * per_spot;
    assert!(round < domain::Amount::MAX_CENTS, "{round} cents at a {w}-cent limit");
}

#[tokio::test]
async fn a_deal_from_a_shoe_written_since_it_was_read_is_refused_and_dealt_again() {
    use chrono::SubsecRound;
    use domain::blackjack::round::Round;
    use table_games::blackjack::repository::Write;
    use table_games::blackjack::store::{self, NewRound};
    use table_games::kit::round::Rows;
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let table = casino.table(&token, "10S 9H 6D 7C 3C 4C").await;
    let pool = &casino.state.pool;
    let bets = json!([{"wager": 500}]);
    let round = Uuid::now_v7();
    let repository = &casino.state.blackjack.repository;
    let created_at = chrono::Utc::now().trunc_subsecs(6);
    let new = NewRound { id: round, table, player: "p".into(), wallet, bets, created_at };
    let (recorded, _) = repository.record(&new).await.unwrap().expect("recorded");
    let (_, read) = repository.read(&round).await.unwrap();
    // The round before, finishing just after this round's shoe was read, writes the shoe.
    sqlx::query("UPDATE bj_tables SET shoe_version = shoe_version + 1 WHERE id = $1")
        .bind(table)
        .execute(pool)
        .await
        .unwrap();
    let rules = casino.state.blackjack.repository.table_rules(table, None).await.unwrap();
    let mut shoe = read.shoe.clone();
    let dealt = Round::deal(rules, recorded.spot_bets().unwrap(), &mut shoe).unwrap();
    let at_deal = store::AtDeal { pot: 0, balance_before: 10_000 };
    let deal = |read_version| store::Dealt {
        id: round,
        round: dealt.clone(),
        at_deal,
        staked: 500,
        shoe: shoe.clone(),
        shuffled: false,
        read_version,
    };
    let as_read = (recorded.clone(), read.clone());
    let stale = repository.write(&as_read, Write::Deal(deal(read.version))).await.unwrap();
    assert!(stale.is_none(), "a deal from an out-of-date shoe is not written");
    let (still, fresh) = repository.read(&round).await.unwrap();
    assert_eq!((still.state.as_str(), fresh.version), ("open", read.version + 1));
    let as_read = (recorded.clone(), fresh.clone());
    let written = repository.write(&as_read, Write::Deal(deal(fresh.version))).await.unwrap();
    assert!(written.is_some());
    let (now, after) = repository.read(&round).await.unwrap();
    assert_eq!(now.state.as_str(), "playing");
    assert_eq!(after.version, fresh.version + 1, "the deal's write of the shoe is counted");
    assert_eq!(after.shoe, shoe, "the shoe is written as the deal left it");
    // Written once: the same deal again finds the round dealt.
    let again = repository.write(&(recorded, after.clone()), Write::Deal(deal(after.version))).await.unwrap();
    assert!(again.is_none());
}

/// A process works a decision out on the round and shoe as it last wrote them, without reading
/// them first; another process (a second replica: its own memory, the same database and ledger)
/// may have moved the round on since. A decision on the step the database is at is made, not
/// refused as stale from the memory; one on the step the memory is at is refused; every card is
/// drawn once.
#[tokio::test]
async fn a_process_whose_memory_of_a_round_is_behind_another_s_decides_on_the_round_as_it_is() {
    let casino = Casino::new().await;
    let other = casino.state.as_another_process();
    let other = table_games::router(other, Limits::default());
    let (token, wallet) = casino.player(10_000).await;
    // Player 10 6 against the dealer's 9 (hole 7); a hit brings a 2 (18); the dealer's 16 draws
    // a 3 (19).
    let table = casino.table(&token, "10S 9H 6D 7C 2C 3C").await;
    let dealt = casino.deal(&token, table, "r1", json!([{"wager": 500}])).await; // remembered here
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let request = Request::post(format!("/v1/blackjack/rounds/{round}/actions"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(json!({"step": 0, "action": "hit"}).to_string()))
        .unwrap();
    let hit = send(&other, request).await;
    assert_eq!((hit.status, hit.body["step"].as_i64()), (StatusCode::OK, Some(1)), "{}", hit.body);
    let behind = casino.act(&token, &round, json!({"step": 0, "action": "stand"})).await;
    assert_eq!(behind.code(), "stale_step", "{}", behind.body);
    let stood = casino.act(&token, &round, json!({"step": 1, "action": "stand"})).await;
    assert_eq!(stood.status, StatusCode::OK, "{}", stood.body);
    assert_eq!(stood.body["state"], "settled");
    assert_eq!(stood.body["round"]["spots"][0]["hands"][0]["cards"], json!(["10S", "6D", "2C"]));
    assert_eq!(stood.body["round"]["dealer"], json!(["9H", "7C", "3C"]));
    assert_eq!(casino.balance(wallet).await, 9_500, "18 loses to 19: the wager taken once");
    casino.assert_books_balance().await;
}

/// The deal and each decision are written without reading the round back (one statement for
/// many rounds): what a step answers, and what the process remembers for the next decision, is
/// built from what it wrote, so it must be the round exactly as stored. A hit (no wager added),
/// a stand that ends the round, and at the next round a double (its wager taken, then applied).
#[tokio::test]
async fn each_step_answers_the_round_exactly_as_it_is_stored() {
    use domain::blackjack::round::{Action, SpotBet};
    use table_games::blackjack::saga;
    let casino = Casino::new().await;
    let (token, _) = casino.player(10_000).await;
    let player = casino.tokens.verify(&token).unwrap().sub;
    let table = casino.table(&token, "5S 9H 3D 7C 2C 4C 6S 10H 5D 7H 10D 2H").await;
    let state = &casino.state;
    let as_stored = |id: Uuid| async move {
        format!("{:?}", state.blackjack.repository.load(id).await.unwrap().unwrap())
    };
    let bets: Vec<SpotBet> = serde_json::from_value(json!([{"wager": 500}])).unwrap();
    let (first, _) = saga::place_bets(state, table, &player, "r1", &bets).await.unwrap();
    assert_eq!(format!("{first:?}"), as_stored(first.id).await, "dealt");
    let hit = saga::decide(state, first.id, Some(&player), Some((0, Action::Hit))).await.unwrap();
    assert_eq!((hit.state.as_str(), hit.step), ("playing", 1));
    assert_eq!(format!("{hit:?}"), as_stored(first.id).await, "hit");
    let stood = saga::decide(state, first.id, Some(&player), Some((1, Action::Stand))).await.unwrap();
    assert_eq!(stood.state.as_str(), "settled");
    assert_eq!(format!("{stood:?}"), as_stored(first.id).await, "stood");
    let (second, _) = saga::place_bets(state, table, &player, "r2", &bets).await.unwrap();
    assert_eq!(format!("{second:?}"), as_stored(second.id).await, "dealt again");
    let double = Some((0, Action::Double { amount: None }));
    let doubled = saga::decide(state, second.id, Some(&player), double).await.unwrap();
    assert_eq!((doubled.state.as_str(), doubled.staked_cents), ("settled", Some(1_000)));
    assert_eq!(format!("{doubled:?}"), as_stored(second.id).await, "doubled");
    casino.assert_books_balance().await;
}

/// A process remembers a table's shoe as it last wrote it and records the table's next round
/// without reading the shoe back; another process (its own memory, the same database) may have
/// dealt from the shoe since. The deal worked out on the remembered shoe is not written: the
/// round is dealt from the shoe as stored, and no card is dealt twice (a shoe of 32 different
/// cards, three rounds, each process dealing in turn).
#[tokio::test]
async fn a_round_after_another_process_dealt_is_dealt_from_the_shoe_as_stored() {
    use domain::blackjack::round::{Action, SpotBet};
    use table_games::blackjack::saga;
    let casino = Casino::new().await;
    let (token, _) = casino.player(100_000).await;
    let player = casino.tokens.verify(&token).unwrap().sub;
    let distinct: Vec<String> = ["S", "H", "D", "C"]
        .iter()
        .flat_map(|suit| (2..=9).map(move |rank| format!("{rank}{suit}")))
        .collect();
    let table = casino.table(&token, &distinct.join(" ")).await;
    let this = casino.state.clone();
    let other = casino.state.as_another_process();
    let bets: Vec<SpotBet> = serde_json::from_value(json!([{"wager": 500}])).unwrap();
    let mut dealt: Vec<String> = Vec::new();
    for (n, state) in [&this, &other, &this].into_iter().enumerate() {
        let (round, _) = saga::place_bets(state, table, &player, &format!("r{n}"), &bets).await.unwrap();
        let mut round = round;
        while round.state.as_str() == "playing" {
            round = saga::decide(state, round.id, Some(&player), Some((round.step, Action::Stand)))
                .await
                .unwrap();
        }
        assert_eq!(round.state.as_str(), "settled");
        let cards = round.round.unwrap();
        dealt.extend(cards.dealer.iter().map(ToString::to_string));
        for spot in &cards.spots {
            dealt.extend(spot.hands.iter().flat_map(|h| h.cards.iter().map(ToString::to_string)));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let twice: Vec<&String> = dealt.iter().filter(|c| !seen.insert(*c)).collect();
    assert!(twice.is_empty(), "dealt twice: {twice:?} of {dealt:?}");
    let (mut from_shoe, mut first) = (dealt.clone(), distinct[..dealt.len()].to_vec());
    from_shoe.sort();
    first.sort();
    assert_eq!(from_shoe, first, "the shoe's first cards, each once");
    casino.assert_books_balance().await;
}
