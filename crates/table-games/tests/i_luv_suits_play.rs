//! I Luv Suits played over the API against a real ledger on a real Postgres (K.A.R. 111-301-74 to
//! -76): every wager through the ledger, hidden dealer cards, the progressive pot, concurrent
//! decisions, refusals, crash recovery, abandoned rounds, recall and the audit chain. The cards
//! come from the server's CSPRNG; where a test needs known cards it replaces the stored deal
//! while the round waits for its decision, as a stacked deck would.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use domain::cards::Card;
use platform::auth::Role;
use platform::testing::{Reply, send};
use serde_json::{Value, json};
use table_games::kit::round::Rows;
use uuid::Uuid;

mod common;

use common::Casino;

impl Casino {
    async fn place(&self, token: &str, key: &str, wagers: Value) -> Reply {
        self.call("POST", "/v1/i-luv-suits/rounds", Some(token), Some(key), Some(wagers)).await
    }

    async fn decide(&self, token: &str, round: &str, decision: Value) -> Reply {
        self.call(
            "POST",
            &format!("/v1/i-luv-suits/rounds/{round}/decision"),
            Some(token),
            None,
            Some(decision),
        )
        .await
    }

    /// Replaces a dealt round's cards (player's seven, then the dealer's).
    async fn stack(&self, round: &str, player: &str, dealer: &str) {
        let cards =
            |text: &str| -> Vec<Card> { text.split_whitespace().map(|c| c.parse().unwrap()).collect() };
        let deal = json!({"player": cards(player), "dealer": cards(dealer)});
        let done = sqlx::query("UPDATE ils_rounds SET deal = $2 WHERE id = $1::uuid AND state = 'deciding'")
            .bind(round)
            .bind(deal)
            .execute(&self.state.pool)
            .await
            .unwrap();
        assert_eq!(done.rows_affected(), 1);
        Rows::forget(&self.state.i_luv_suits.repository, &round.parse().unwrap()).unwrap();
    }

    async fn audit_records(&self) -> Value {
        let auditor = self.tokens.issue("audit", Role::Auditor, None, Duration::from_secs(60)).unwrap();
        let chain = self.call("GET", "/v1/tables/audit/verify", Some(&auditor), None, None).await;
        assert_eq!(chain.body["intact"], true, "{}", chain.body);
        chain.body["records"].clone()
    }
}

#[tokio::test]
async fn a_round_with_every_wager_is_dealt_decided_and_settled_through_the_ledger() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let pot = casino.state.i_luv_suits.pot_account;
    assert_eq!(casino.balance(pot).await, 100_000, "funded with $1,000 (111-301-76(i)(5))");
    let wagers = json!({"ante_cents": 500, "flush_rush_cents": 100, "super_flush_rush_cents": 100, "progressive": true});
    let dealt = casino.place(&token, "r1", wagers.clone()).await;
    assert_eq!(dealt.status, StatusCode::CREATED, "{}", dealt.body);
    assert_eq!(dealt.body["state"], "deciding");
    assert_eq!(dealt.body["player"]["cards"].as_array().unwrap().len(), 7);
    assert_eq!(dealt.body["dealer"], Value::Null, "the dealer's cards stay on the server");
    let location = dealt.headers["location"].to_str().unwrap().to_owned();
    // Ante, both side wagers and the $5 progressive; 22% of it ($1.10) into the pot.
    assert_eq!(casino.balance(wallet).await, 10_000 - 1_200);
    assert_eq!(casino.balance(pot).await, 100_110);
    assert_eq!(dealt.body["pot_at_deal_cents"], 100_110);
    let replay = casino.place(&token, "r1", wagers).await;
    assert_eq!((replay.status, casino.balance(wallet).await), (StatusCode::OK, 8_800));
    let other = casino.place(&token, "r1", json!({"ante_cents": 600})).await;
    assert_eq!(other.code(), "idempotency_conflict");

    // Five hearts holding 5-6-7-8 in a row; the dealer's K-7-6 of spades qualifies and loses.
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "5H 6H 7H 8H KH 2C 3D", "KS 7S 6S 2S 3C 5D 4D").await;
    let read = casino.call("GET", &location, Some(&token), None, None).await;
    assert_eq!(
        read.body["play"],
        json!({"min_cents": 500, "max_cents": 1_000}),
        "up to 2x with five of a suit"
    );
    let done = casino.decide(&token, &round, json!({"decision": "play", "play_cents": 1_000})).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(
        (done.body["state"].as_str(), done.body["showdown"].as_str()),
        (Some("settled"), Some("player_wins"))
    );
    assert_eq!(done.body["dealer"]["cards"], json!(["KS", "7S", "6S", "2S", "3C", "5D", "4D"]));
    assert_eq!(done.body["dealer"]["flush"], json!(["KS", "7S", "6S", "2S"]));
    // Ante and play 1 to 1; Flush Rush 10 to 1; Super Flush Rush 75 to 1; progressive 50 for 1.
    let returns = &done.body["returns"];
    assert_eq!(
        [&returns["ante_cents"], &returns["play_cents"], &returns["flush_rush_cents"]],
        [&json!(1_000), &json!(2_000), &json!(1_100)]
    );
    assert_eq!(
        [&returns["super_flush_rush_cents"], &returns["progressive_cents"]],
        [&json!(7_600), &json!(25_000)]
    );
    assert_eq!(
        (done.body["staked_cents"].as_i64(), done.body["returned_cents"].as_i64()),
        (Some(2_200), Some(36_700))
    );
    assert_eq!(casino.balance(wallet).await, 10_000 - 2_200 + 36_700);
    assert_eq!(done.body["balance_after_cents"], 10_000 - 2_200 + 36_700);
    // The same decision sent again finds the round it made; another is refused.
    let again = casino.decide(&token, &round, json!({"decision": "play", "play_cents": 1_000})).await;
    assert_eq!((again.status, casino.balance(wallet).await), (StatusCode::OK, 44_500));
    let fold = casino.decide(&token, &round, json!({"decision": "fold"})).await;
    assert_eq!((fold.status, fold.code()), (StatusCode::CONFLICT, "round_not_in_play"));

    let recall = casino.call("GET", "/v1/i-luv-suits/recall", Some(&token), None, None).await;
    let last = &recall.body[0];
    assert_eq!(last["player"]["cards"], json!(["5H", "6H", "7H", "8H", "KH", "2C", "3D"]));
    assert_eq!(last["decision"], json!({"decision": "play", "play_cents": 1_000, "by": "player"}));
    assert_eq!(
        (last["balance_before_cents"].as_i64(), last["balance_after_cents"].as_i64()),
        (Some(10_000), Some(44_500))
    );
    assert_eq!(casino.audit_records().await, 1);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn a_dealer_without_a_nine_high_three_flush_pays_the_ante_and_pushes_the_play_and_a_fold_keeps_the_sides()
 {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let first = casino.place(&token, "a", json!({"ante_cents": 500})).await;
    let round = first.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "2H 3H 4H 6S 7C 9D JD", "8S 7S 6S 2C 3C 5D 4D").await;
    let done = casino.decide(&token, &round, json!({"decision": "play"})).await;
    assert_eq!(done.body["showdown"], "dealer_does_not_qualify", "{}", done.body);
    assert_eq!(
        (done.body["returns"]["ante_cents"].as_i64(), done.body["returns"]["play_cents"].as_i64()),
        (Some(1_000), Some(500))
    );
    assert_eq!(casino.balance(wallet).await, 10_500);
    // Folded with a four-card flush: the ante is lost, the Flush Rush still pays 1 to 1 (76(e)).
    let second = casino.place(&token, "b", json!({"ante_cents": 500, "flush_rush_cents": 200})).await;
    let round = second.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "2H 5H 9H KH 3S 4C 6D", "AS 7S 6S 2C 3C 5D 4D").await;
    let folded = casino.decide(&token, &round, json!({"decision": "fold"})).await;
    assert_eq!(
        (folded.body["showdown"].as_str(), folded.body["returned_cents"].as_i64()),
        (Some("folded"), Some(400))
    );
    assert_eq!(casino.balance(wallet).await, 10_500 - 700 + 400);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn bad_wagers_and_decisions_get_clear_problems_and_move_nothing() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(1_000).await;
    let (stranger, _) = casino.player(1_000).await;
    let cases = [
        (json!({"ante_cents": 400}), "wager_out_of_range"),
        (json!({"ante_cents": 60_000}), "wager_out_of_range"),
        (json!({"ante_cents": 500, "flush_rush_cents": 50}), "side_wager_out_of_range"),
        (json!({"ante_cents": 500, "bonus_cents": 100}), "invalid_body"),
        (json!({"ante_cents": 500, "flush_rush_cents": 600}), "insufficient_funds"),
    ];
    for (i, (wagers, code)) in cases.into_iter().enumerate() {
        let reply = casino.place(&token, &format!("k{i}"), wagers.clone()).await;
        assert_eq!(reply.code(), code, "{wagers}: {}", reply.body);
        assert!(reply.status.is_client_error());
    }
    let no_key = casino
        .call("POST", "/v1/i-luv-suits/rounds", Some(&token), None, Some(json!({"ante_cents": 500})))
        .await;
    assert_eq!(no_key.code(), "missing_idempotency_key");
    assert_eq!(casino.balance(wallet).await, 1_000, "nothing moved");

    let dealt = casino.place(&token, "ok", json!({"ante_cents": 500})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "2H 5H 9H KH 3S 4C 6D", "AS 7S 6S 2C 3C 5D 4D").await;
    for (decision, code) in [
        (json!({"decision": "play", "play_cents": 1_000}), "play_over_multiple"),
        (json!({"decision": "play", "play_cents": 400}), "play_under_ante"),
        (json!({"decision": "raise"}), "invalid_body"),
    ] {
        assert_eq!(casino.decide(&token, &round, decision.clone()).await.code(), code, "{decision}");
    }
    assert_eq!(casino.decide(&stranger, &round, json!({"decision": "fold"})).await.code(), "round_not_found");
    // 500 left after the ante: a play of 500 is taken; first try with too little.
    let second = casino.place(&token, "two", json!({"ante_cents": 500})).await;
    assert_eq!(second.status, StatusCode::CREATED, "{}", second.body);
    assert_eq!(casino.balance(wallet).await, 0);
    let broke = casino.decide(&token, &round, json!({"decision": "play"})).await;
    assert_eq!(broke.code(), "insufficient_funds", "{}", broke.body);
    let still =
        casino.call("GET", &format!("/v1/i-luv-suits/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(
        (still.body["state"].as_str(), still.body["decision"].clone()),
        (Some("deciding"), Value::Null)
    );
    let folded = casino.decide(&token, &round, json!({"decision": "fold"})).await;
    assert_eq!(folded.body["state"], "settled", "{}", folded.body);
    assert_eq!(casino.balance(wallet).await, 0);
    let unknown = casino.decide(&token, &Uuid::now_v7().to_string(), json!({"decision": "fold"})).await;
    assert_eq!(unknown.code(), "round_not_found");
    casino.decide(&token, second.body["id"].as_str().unwrap(), json!({"decision": "fold"})).await;
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn of_concurrent_decisions_exactly_one_applies_and_the_play_is_taken_once() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let dealt = casino.place(&token, "r", json!({"ante_cents": 500})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "2H 5H 9H KH 3S 4C 6D", "AS 7S 6S 2C 3C 5D 4D").await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let router = casino.router.clone();
        let decision = if i % 2 == 0 { json!({"decision": "play"}) } else { json!({"decision": "fold"}) };
        let request = Request::post(format!("/v1/i-luv-suits/rounds/{round}/decision"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::from(decision.to_string()))
            .unwrap();
        tasks.push(tokio::spawn(async move { (decision, send(&router, request).await) }));
    }
    let mut answers = Vec::new();
    for task in tasks {
        let (decision, reply) = task.await.unwrap();
        answers.push((
            decision["decision"].as_str().unwrap().to_owned(),
            reply.status,
            reply.code().to_owned(),
        ));
    }
    let now = casino.call("GET", &format!("/v1/i-luv-suits/rounds/{round}"), Some(&token), None, None).await;
    let applied = now.body["decision"]["decision"].as_str().unwrap().to_owned();
    assert_eq!(now.body["state"], "settled");
    // Every request for the decision that applied is answered with it; every other is refused.
    for (decision, status, code) in &answers {
        if *decision == applied {
            assert_eq!(*status, StatusCode::OK, "{answers:?}");
        } else {
            assert!(["round_not_in_play", "decision_pending"].contains(&code.as_str()), "{answers:?}");
        }
    }
    let staked = if applied == "play" { 1_000 } else { 500 };
    assert_eq!(now.body["staked_cents"], staked);
    let returned = now.body["returned_cents"].as_i64().unwrap();
    assert_eq!(casino.balance(wallet).await, 10_000 - staked + returned, "the play wager taken once");
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn a_crash_between_steps_is_finished_by_recovery_with_the_same_cards_charging_once() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let dealt = casino.place(&token, "r", json!({"ante_cents": 500})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "2H 5H 9H KH AH 4C 6D", "AS 7S 6S 2C 3C 5D 4D").await;
    // The process died after recording the play and taking its wager, before making it the
    // round's decision: the pending decision is on the row, the wager in escrow.
    let pending = json!({"decision": "play", "play_cents": 1_000, "by": "player"});
    sqlx::query(
        "UPDATE ils_rounds SET pending = $2, updated_at = now() - interval '1 minute' WHERE id = $1::uuid",
    )
    .bind(&round)
    .bind(&pending)
    .execute(&casino.state.pool)
    .await
    .unwrap();
    let id: Uuid = round.parse().unwrap();
    let play = table_games::i_luv_suits::steps::leg(
        id,
        ledger_api::Money::Stake,
        "play",
        wallet,
        casino.state.i_luv_suits.escrow_account,
        1_000,
    );
    casino.state.kit.pay(vec![play], Vec::new()).await.unwrap();
    assert_eq!(casino.balance(wallet).await, 8_500);
    let waiting =
        casino.call("GET", &format!("/v1/i-luv-suits/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(waiting.body["play"], Value::Null, "a decision waits: no other may be made");
    assert_eq!(table_games::i_luv_suits::recover(&casino.state, Duration::ZERO).await.unwrap(), 1);
    let done = casino.call("GET", &format!("/v1/i-luv-suits/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(done.body["state"], "settled", "{}", done.body);
    assert_eq!(
        done.body["player"]["cards"],
        json!(["2H", "5H", "9H", "KH", "AH", "4C", "6D"]),
        "the same cards"
    );
    assert_eq!(
        (done.body["staked_cents"].as_i64(), done.body["returned_cents"].as_i64()),
        (Some(1_500), Some(3_000))
    );
    assert_eq!(casino.balance(wallet).await, 10_000 - 1_500 + 3_000, "the play taken once");
    // A round whose deal never happened (wagers perhaps taken) is dealt by recovery, once.
    let open = casino.place(&token, "o", json!({"ante_cents": 500})).await;
    let open_id = open.body["id"].as_str().unwrap().to_owned();
    sqlx::query("UPDATE ils_rounds SET state = 'open', deal = NULL, updated_at = now() - interval '1 minute' WHERE id = $1::uuid")
        .bind(&open_id)
        .execute(&casino.state.pool)
        .await
        .unwrap();
    assert_eq!(table_games::i_luv_suits::recover(&casino.state, Duration::ZERO).await.unwrap(), 1);
    let redealt =
        casino.call("GET", &format!("/v1/i-luv-suits/rounds/{open_id}"), Some(&token), None, None).await;
    assert_eq!(redealt.body["state"], "deciding");
    assert_eq!(casino.balance(wallet).await, 11_500 - 500, "the ante taken once");
    // Abandoned: the house folds for the player; the round settles, nothing waits in escrow.
    let folded = table_games::i_luv_suits::finish_abandoned(&casino.state, Duration::ZERO).await.unwrap();
    assert_eq!(folded, 1);
    let done =
        casino.call("GET", &format!("/v1/i-luv-suits/rounds/{open_id}"), Some(&token), None, None).await;
    assert_eq!(done.body["decision"], json!({"decision": "fold", "play_cents": null, "by": "house"}));
    assert_eq!(casino.audit_records().await, 2);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn a_seven_card_straight_flush_wins_the_pot_and_it_is_funded_again() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let pot = casino.state.i_luv_suits.pot_account;
    let dealt = casino.place(&token, "r", json!({"ante_cents": 500, "progressive": true})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    casino.stack(&round, "8H 9H 10H JH QH KH AH", "KS 7S 6S 2S 3C 5D 4D").await;
    let done = casino.decide(&token, &round, json!({"decision": "play", "play_cents": 1_500})).await;
    assert_eq!(done.body["state"], "settled", "{}", done.body);
    // The whole meter at the deal: the $1,000 and this wager's $1.10.
    assert_eq!(done.body["returns"]["pot_prize_cents"], 100_110);
    assert_eq!(done.body["returns"]["top_prize"], true);
    assert_eq!(casino.balance(pot).await, 100_000, "funded again after the top prize");
    let table = casino.call("GET", "/v1/i-luv-suits/table", None, None, None).await;
    assert_eq!(table.body["pot_cents"], 100_000);
    // Ante and 3x play win 1 to 1: 1,000 + 3,000.
    assert_eq!(casino.balance(wallet).await, 10_000 - 2_500 + 4_000 + 100_110);
    casino.assert_books_balance().await;
}

#[tokio::test]
async fn the_math_page_publishes_every_reading_with_exact_fractions() {
    let casino = Casino::new().await;
    let math = casino.call("GET", "/v1/i-luv-suits/math", None, None, None).await;
    assert_eq!(math.status, StatusCode::OK);
    let readings = math.body["base_game"].as_array().unwrap();
    // Three readings of 76(i)(1), two of 75(a)(2)'s floor.
    assert_eq!(readings.len(), 6);
    let implemented: Vec<&Value> = readings.iter().filter(|r| r["implemented"] == true).collect();
    assert_eq!(implemented.len(), 1);
    assert_eq!(implemented[0]["qualifier"], "at_least_nine_high_three_card_flush");
    let edge = implemented[0]["house_edge_per_ante"]["decimal"].as_f64().unwrap();
    assert!((0.0266..0.0267).contains(&edge), "{edge}");
    // Both other readings qualify more dealer hands than a best flush holding a 9: a rank adds
    // every low four-card flush, any suit adds a shorter suit's three with a 9.
    let share = |qualifier: &str| {
        readings.iter().find(|r| r["qualifier"] == qualifier).unwrap()["dealer_qualifies"]["decimal"]
            .as_f64()
            .unwrap()
    };
    let (rank, best, any) =
        (share("at_least_nine_high_three_card_flush"), share("best_hand"), share("any_three_card_flush"));
    assert!(best < rank && best < any && best > 0.5 && rank < 1.0 && any < 1.0, "{best} {rank} {any}");
    assert!(readings.iter().all(|r| r["house_edge_per_ante"]["decimal"].as_f64().unwrap() > 0.0));
    let sides = math.body["side_wagers"].as_array().unwrap();
    let lines: u64 = sides[0]["lines"].as_array().unwrap().iter().map(|l| l["hands"].as_u64().unwrap()).sum();
    assert!(lines > 0 && lines < 133_784_560);
    assert_eq!(math.body["ambiguities"].as_array().unwrap().len(), 5);
    let progressive = &math.body["progressive"];
    let at_seed = progressive["at_seed"]["decimal"].as_f64().unwrap();
    let line = progressive["at_empty_meter"]["decimal"].as_f64().unwrap()
        + progressive["per_meter_dollar"]["decimal"].as_f64().unwrap() * 1_000.0;
    assert!((at_seed - line).abs() < 1e-9, "the return is linear in the meter");
}

/// A process decides a round it dealt without reading it first, from its memory of the deal;
/// another process (a second replica: its own memory, the same database and ledger) may have
/// decided it since, and several decisions may race on the remembered round. Exactly one
/// decision applies, a different one is refused, the same one answers the round as settled, and
/// nothing is taken twice.
#[tokio::test]
async fn a_round_remembered_by_one_process_and_decided_by_another_is_decided_once() {
    let casino = Casino::new().await;
    let other = casino.state.as_another_process();
    let other = table_games::router(other, platform::http::Limits::default());
    let (token, wallet) = casino.player(10_000).await;
    let decide_on = |router: &axum::Router, round: &str, decision: Value| {
        let request = Request::post(format!("/v1/i-luv-suits/rounds/{round}/decision"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(Body::from(decision.to_string()))
            .unwrap();
        let router = router.clone();
        async move { send(&router, request).await }
    };
    // Dealt here (remembered), folded there: this process's play is refused, its fold answered.
    let dealt = casino.place(&token, "a", json!({"ante_cents": 500})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let folded = decide_on(&other, &round, json!({"decision": "fold"})).await;
    assert_eq!(folded.body["state"], "settled", "{}", folded.body);
    let play = decide_on(&casino.router, &round, json!({"decision": "play"})).await;
    assert_eq!(play.code(), "round_not_in_play", "{}", play.body);
    let fold = decide_on(&casino.router, &round, json!({"decision": "fold"})).await;
    assert_eq!((fold.status, fold.body["state"].as_str()), (StatusCode::OK, Some("settled")));
    assert_eq!(casino.balance(wallet).await, 10_000 - 500, "the ante lost once, no play taken");

    // Dealt here, eight decisions racing on the remembered round, half through the other process.
    let dealt = casino.place(&token, "b", json!({"ante_cents": 500})).await;
    let round = dealt.body["id"].as_str().unwrap().to_owned();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let router = if i < 4 { casino.router.clone() } else { other.clone() };
        let decision = if i % 2 == 0 { json!({"decision": "play"}) } else { json!({"decision": "fold"}) };
        let answer = decide_on(&router, &round, decision.clone());
        tasks.push(tokio::spawn(async move { (decision, answer.await) }));
    }
    let mut answers = Vec::new();
    for task in tasks {
        let (decision, reply) = task.await.unwrap();
        answers.push((
            decision["decision"].as_str().unwrap().to_owned(),
            reply.status,
            reply.code().to_owned(),
        ));
    }
    let now = casino.call("GET", &format!("/v1/i-luv-suits/rounds/{round}"), Some(&token), None, None).await;
    assert_eq!(now.body["state"], "settled", "{}", now.body);
    let applied = now.body["decision"]["decision"].as_str().unwrap().to_owned();
    for (decision, status, code) in &answers {
        if *decision == applied {
            assert_eq!(*status, StatusCode::OK, "{answers:?}");
        } else {
            assert!(["round_not_in_play", "decision_pending"].contains(&code.as_str()), "{answers:?}");
        }
    }
    let staked = if applied == "play" { 1_000 } else { 500 };
    assert_eq!(now.body["staked_cents"], staked, "{}", now.body);
    let returned = now.body["returned_cents"].as_i64().unwrap();
    assert_eq!(casino.balance(wallet).await, 10_000 - 500 - staked + returned, "the play taken at most once");
    casino.assert_books_balance().await;
}
