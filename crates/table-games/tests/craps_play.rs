//! Craps played over the API against a real ledger on a real Postgres (K.A.R. 111-501-44, -45):
//! bets made and taken down, one roll per request settling every bet in one ledger batch, the
//! dice from the server's CSPRNG, refusals with their codes and nothing moved, concurrent rolls,
//! a crash mid-roll finished by recovery with the same dice, recall, and the audit chain.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use platform::auth::Role;
use platform::testing::{Reply, send};
use serde_json::{Value, json};
use uuid::Uuid;

mod common;

use common::Casino;

impl Casino {
    async fn open_craps(&self, token: &str) -> String {
        let opened = self.call("POST", "/v1/craps/sessions", Some(token), None, Some(json!({}))).await;
        assert_eq!(opened.status, StatusCode::CREATED, "{}", opened.body);
        opened.body["id"].as_str().unwrap().to_owned()
    }

    async fn craps(&self, token: &str, session: &str, what: &str, key: &str, body: Value) -> Reply {
        self.call("POST", &format!("/v1/craps/sessions/{session}/{what}"), Some(token), Some(key), Some(body))
            .await
    }

    async fn craps_escrow(&self) -> i64 {
        self.balance(self.state.craps.escrow_account).await
    }
}

/// Every cent a request moved, by the ledger's own reckoning of the wallet.
fn wallet_change(play: &Value) -> i64 {
    play["result"]["balance_after_cents"].as_i64().unwrap()
        - play["result"]["balance_before_cents"].as_i64().unwrap()
}

fn expected_change(play: &Value) -> i64 {
    let m = &play["result"]["money"];
    let get = |k: &str| m[k].as_i64().unwrap();
    -get("staked_cents") - get("commission_cents")
        + get("taken_down_cents")
        + get("returned_cents")
        + get("winnings_cents")
}

#[tokio::test]
async fn rolls_settle_every_bet_in_one_batch_and_the_books_balance() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(100_000).await;
    let session = casino.open_craps(&token).await;
    let bets = json!({"changes": [
        {"change": "place", "bet": "pass", "amount_cents": 1_000},
        {"change": "place", "bet": "field", "amount_cents": 500},
        {"change": "place", "bet": "horn", "amount_cents": 400},
        {"change": "place", "bet": "place", "number": 6, "amount_cents": 1_200},
        {"change": "working", "bet": "place", "number": 6, "working": true},
        {"change": "place", "bet": "all_small", "amount_cents": 100},
        {"change": "place", "bet": "hot_shooter", "amount_cents": 100}
    ], "expected_rolls": 0});
    let first = casino.craps(&token, &session, "rolls", "r0", bets.clone()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert_eq!(first.body["result"]["money"]["staked_cents"], 3_300);
    assert_eq!(wallet_change(&first.body), expected_change(&first.body));
    let dice = &first.body["result"]["roll"]["roll"];
    let total = dice["die1"].as_i64().unwrap() + dice["die2"].as_i64().unwrap();
    assert!((2..=12).contains(&total));
    // The field and the horn are decided by any roll: they are off the layout now.
    let layout: Vec<&str> = first.body["session"]["bets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bet"].as_str().unwrap())
        .collect();
    assert!(!layout.contains(&"field") && !layout.contains(&"horn"), "{layout:?}");
    let replay = casino.craps(&token, &session, "rolls", "r0", bets).await;
    assert_eq!(replay.status, StatusCode::OK);
    assert_eq!(replay.body["result"]["roll"], first.body["result"]["roll"], "a retry answers the same roll");
    // Roll on, adding a pass bet whenever the puck is off, until the layout is empty.
    let mut rolls = 1;
    let mut view = first.body;
    while view["session"]["bets"].as_array().is_some_and(|b| !b.is_empty()) || rolls < 5 {
        let point_off = view["session"]["point"].is_null();
        let has_line = view["session"]["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "pass");
        let changes = if point_off && !has_line && rolls < 5 {
            json!([{"change": "place", "bet": "pass", "amount_cents": 1_000}])
        } else {
            json!([])
        };
        if point_off && !has_line && rolls >= 5 {
            // Nothing left but what cannot be taken down: take the rest down and stop.
            let down: Vec<Value> = view["session"]["bets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    let mut bet = b.clone();
                    let o = bet.as_object_mut().unwrap();
                    o.retain(|k, _| k == "bet" || k == "number" || k == "dice" || k == "halves");
                    o.insert("change".to_owned(), json!("remove"));
                    bet
                })
                .collect();
            if !down.is_empty() {
                let taken = casino.craps(&token, &session, "bets", "down", json!({"changes": down})).await;
                assert_eq!(taken.status, StatusCode::CREATED, "{}", taken.body);
                assert_eq!(wallet_change(&taken.body), expected_change(&taken.body));
            }
            break;
        }
        let next =
            casino.craps(&token, &session, "rolls", &format!("r{rolls}"), json!({"changes": changes})).await;
        assert_eq!(next.status, StatusCode::CREATED, "{}", next.body);
        assert_eq!(wallet_change(&next.body), expected_change(&next.body), "{}", next.body);
        view = next.body;
        rolls += 1;
        assert!(rolls < 400, "the layout never emptied");
    }
    let on_layout =
        casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(casino.craps_escrow().await, on_layout.body["on_layout_cents"].as_i64().unwrap());
    let recall = casino.call("GET", "/v1/craps/recall", Some(&token), None, None).await;
    assert_eq!(recall.body.as_array().unwrap().len(), rolls.min(10));
    assert!(recall.body[0]["roll"]["outcomes"].is_array());
    let auditor = casino.tokens.issue("audit", Role::Auditor, None, Duration::from_secs(60)).unwrap();
    let chain = casino.call("GET", "/v1/tables/audit/verify", Some(&auditor), None, None).await;
    assert_eq!(chain.body["intact"], true);
    let trial = casino.ledger_call("GET", "/v1/reports/trial-balance", None).await;
    assert_eq!(trial.body["balanced"], true);
    let _ = wallet;
}

/// A roll's stake and what it pays back move as one transfer (ADR 0010, session 15): a wallet
/// that cannot cover the stake is refused even when the roll would have paid it more (a come-out
/// 7 or 11 on the pass line, 8 in 36), with nothing moved and no roll shown.
#[tokio::test]
async fn a_stake_the_wallet_cannot_cover_is_refused_whatever_the_dice() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(5_000).await;
    let session = casino.open_craps(&token).await;
    for i in 0..40 {
        let changes = json!([{"change": "place", "bet": "pass", "amount_cents": 6_000}]);
        let reply =
            casino.craps(&token, &session, "rolls", &format!("short/{i}"), json!({"changes": changes})).await;
        assert_eq!(reply.code(), "insufficient_funds", "{}", reply.body);
    }
    assert_eq!(casino.balance(wallet).await, 5_000, "nothing moved");
    let view = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(view.body["rolls"], 0, "{}", view.body);
    let trial = casino.ledger_call("GET", "/v1/reports/trial-balance", None).await;
    assert_eq!(trial.body["balanced"], true);
}

#[tokio::test]
async fn bad_bets_get_clear_problems_and_move_nothing() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(5_000).await;
    let (stranger, _) = casino.player(5_000).await;
    let session = casino.open_craps(&token).await;
    let cases = [
        (json!([]), "shooter_needs_line_bet"),
        (json!([{"change": "place", "bet": "come", "amount_cents": 500}]), "bet_not_allowed_now"),
        (json!([{"change": "place", "bet": "pass", "amount_cents": 50}]), "wager_out_of_range"),
        (
            json!([{"change": "place", "bet": "place", "number": 6, "amount_cents": 1_000}]),
            "amount_not_in_units",
        ),
        (json!([{"change": "place", "bet": "place", "number": 7, "amount_cents": 1_200}]), "invalid_bet"),
        (json!([{"change": "place", "bet": "pass_odds", "amount_cents": 1_000}]), "bet_not_allowed_now"),
        (json!([{"change": "place", "bet": "lucky_seven", "amount_cents": 500}]), "invalid_body"),
        (json!([{"change": "remove", "bet": "field"}]), "no_such_bet"),
        (json!([{"change": "place", "bet": "pass", "amount_cents": 6_000}]), "insufficient_funds"),
    ];
    for (i, (changes, code)) in cases.into_iter().enumerate() {
        let reply =
            casino.craps(&token, &session, "rolls", &format!("k{i}"), json!({"changes": changes})).await;
        assert_eq!(reply.code(), code, "{changes}: {}", reply.body);
    }
    assert_eq!(casino.balance(wallet).await, 5_000, "nothing moved");
    assert_eq!(
        casino.craps(&stranger, &session, "rolls", "s", json!({"changes": []})).await.code(),
        "session_not_found"
    );
    let unknown = casino.craps(&token, &Uuid::now_v7().to_string(), "rolls", "u", json!({})).await;
    assert_eq!(unknown.code(), "session_not_found");
    let missing_key = casino
        .call("POST", &format!("/v1/craps/sessions/{session}/rolls"), Some(&token), None, Some(json!({})))
        .await;
    assert_eq!(missing_key.code(), "missing_idempotency_key");
    // Odds over the multiple, once a point is set; the pass bet cannot come down.
    let mut key = 0;
    loop {
        key += 1;
        let r = casino
            .craps(
                &token,
                &session,
                "rolls",
                &format!("p{key}"),
                json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]}),
            )
            .await;
        if !r.body["session"]["point"].is_null() {
            break;
        }
        assert!(key < 100);
    }
    let over = casino
        .craps(
            &token,
            &session,
            "bets",
            "o",
            json!({"changes": [{"change": "place", "bet": "pass_odds", "amount_cents": 20_000}]}),
        )
        .await;
    assert_eq!(over.code(), "odds_over_multiple");
    let down = casino
        .craps(&token, &session, "bets", "d", json!({"changes": [{"change": "remove", "bet": "pass"}]}))
        .await;
    assert_eq!(down.code(), "contract_bet");
    let trial = casino.ledger_call("GET", "/v1/reports/trial-balance", None).await;
    assert_eq!(trial.body["balanced"], true);
}

#[tokio::test]
async fn of_concurrent_rolls_on_one_view_exactly_one_is_thrown() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(100_000).await;
    let session = casino.open_craps(&token).await;
    let mut tasks = Vec::new();
    for i in 0..6 {
        let router = casino.router.clone();
        let body = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}], "expected_rolls": 0});
        let request = Request::post(format!("/v1/craps/sessions/{session}/rolls"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", format!("c{i}"))
            .body(Body::from(body.to_string()))
            .unwrap();
        tasks.push(tokio::spawn(async move { send(&router, request).await }));
    }
    let mut answers = Vec::new();
    for task in tasks {
        let reply = task.await.unwrap();
        answers.push((reply.status, reply.code().to_owned()));
    }
    let thrown = answers.iter().filter(|(s, _)| *s == StatusCode::CREATED).count();
    assert_eq!(thrown, 1, "{answers:?}");
    assert!(
        answers
            .iter()
            .filter(|(s, _)| *s != StatusCode::CREATED)
            .all(|(_, c)| c == "stale_step" || c == "roll_in_progress")
    );
    let now = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(now.body["rolls"], 1);
    let on_layout = now.body["on_layout_cents"].as_i64().unwrap();
    let recall = casino.call("GET", "/v1/craps/recall", Some(&token), None, None).await;
    let money = &recall.body[0]["money"];
    let won = money["returned_cents"].as_i64().unwrap() + money["winnings_cents"].as_i64().unwrap();
    assert_eq!(casino.balance(wallet).await, 100_000 - 1_000 + won, "one pass bet taken, once");
    assert_eq!(casino.craps_escrow().await, on_layout);
}

/// A process works a request out on the session as it last recorded it, without reading it
/// first; another process (a second replica: its own memory, the same database and ledger) may
/// have moved the session on since. Nothing may be thrown on a session behind the database, no
/// refusal may come from one, and a retried key answers its record.
#[tokio::test]
async fn a_process_whose_memory_of_a_session_is_behind_another_s_throws_nothing_twice() {
    let casino = Casino::new().await;
    let other = casino.state.as_another_process();
    let other = table_games::router(other, platform::http::Limits::default());
    let (token, wallet) = casino.player(100_000).await;
    let session = casino.open_craps(&token).await; // this process remembers it, no roll thrown
    let roll_on = |router: &axum::Router, key: &str, body: Value| {
        let router = router.clone();
        let request = Request::post(format!("/v1/craps/sessions/{session}/rolls"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap();
        async move { send(&router, request).await }
    };
    // What the player bets on the layout they were last shown, as the web client does: a field
    // bet, and a pass line bet when the come-out needs one.
    let bets_on = |layout: &Value| {
        let mut changes = vec![json!({"change": "place", "bet": "field", "amount_cents": 500})];
        let has_pass = layout["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "pass");
        if layout["point"].is_null() && !has_pass {
            changes.push(json!({"change": "place", "bet": "pass", "amount_cents": 1_000}));
        }
        changes
    };
    let opened = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    let mut layout = opened.body;
    let mut answers: Vec<Value> = Vec::new();
    for key in ["b1", "b2"] {
        let played = roll_on(&other, key, json!({"changes": bets_on(&layout)})).await;
        assert_eq!(played.status, StatusCode::CREATED, "{}", played.body);
        layout = played.body["session"].clone();
        answers.push(played.body);
    }
    // This process still remembers no roll thrown: a request expecting the two thrown is worked
    // out again on the session as it is, not refused as stale.
    let asked = json!({"changes": bets_on(&layout), "expected_rolls": 2});
    let behind = roll_on(&casino.router, "a1", asked.clone()).await;
    assert_eq!(behind.status, StatusCode::CREATED, "{}", behind.body);
    assert_eq!(behind.body["session"]["rolls"], 3, "{}", behind.body);
    layout = behind.body["session"].clone();
    answers.push(behind.body.clone());
    let again = roll_on(&casino.router, "a1", asked).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.body["result"]["roll"], behind.body["result"]["roll"], "a retry answers its record");
    // The other process now remembers two requests where the database holds three.
    let stale = roll_on(&other, "b3", json!({"changes": bets_on(&layout)})).await;
    assert_eq!(stale.status, StatusCode::CREATED, "{}", stale.body);
    assert_eq!(stale.body["session"]["rolls"], 4, "{}", stale.body);
    answers.push(stale.body.clone());
    let first = roll_on(&other, "b1", json!({"changes": []})).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    assert_eq!(first.body["result"]["roll"], answers[0]["result"]["roll"]);

    let recall = casino.call("GET", "/v1/craps/recall", Some(&token), None, None).await;
    assert_eq!(recall.body.as_array().unwrap().len(), 4, "four rolls thrown, each once");
    let moved: i64 = answers.iter().map(wallet_change).sum();
    assert_eq!(answers.iter().map(expected_change).sum::<i64>(), moved);
    assert_eq!(casino.balance(wallet).await, 100_000 + moved);
    let now = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(casino.craps_escrow().await, now.body["on_layout_cents"].as_i64().unwrap());
    let trial = casino.ledger_call("GET", "/v1/reports/trial-balance", None).await;
    assert_eq!(trial.body["balanced"], true);
}

#[tokio::test]
async fn a_crash_after_the_dice_is_finished_by_recovery_with_the_same_roll_charging_once() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(10_000).await;
    let session = casino.open_craps(&token).await;
    let first = casino
        .craps(
            &token,
            &session,
            "rolls",
            "a",
            json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]}),
        )
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    // Replay the recorded request as if the process died after its money moved and before the
    // session moved on: put it back as pending, forget its record.
    let id: Uuid = session.parse().unwrap();
    let stored = sqlx::query_as::<_, (Value,)>("SELECT session FROM craps_sessions WHERE id = $1")
        .bind(id)
        .fetch_one(&casino.state.pool)
        .await
        .unwrap();
    let pending = json!({
        "key": "a", "seq": 0,
        "changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}],
        "report": first.body["result"]["roll"], "next": stored.0, "money": first.body["result"]["money"],
        "legs": "wallet_net", "balance_before_cents": 10_000
    });
    sqlx::query("DELETE FROM craps_rolls WHERE session_id = $1")
        .bind(id)
        .execute(&casino.state.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE craps_sessions SET rolls = 0, pending = $2, updated_at = now() - interval '1 minute' WHERE id = $1")
        .bind(id)
        .bind(&pending)
        .execute(&casino.state.pool)
        .await
        .unwrap();
    let blocked = casino.craps(&token, &session, "rolls", "b", json!({})).await;
    assert_eq!(blocked.code(), "roll_in_progress");
    assert_eq!(table_games::craps::recover(&casino.state, Duration::ZERO).await.unwrap(), 1);
    let again = casino
        .craps(
            &token,
            &session,
            "rolls",
            "a",
            json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]}),
        )
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.body["result"]["roll"], first.body["result"]["roll"], "the same dice");
    assert_eq!(
        casino.balance(wallet).await,
        first.body["result"]["balance_after_cents"].as_i64().unwrap(),
        "charged once"
    );
    let trial = casino.ledger_call("GET", "/v1/reports/trial-balance", None).await;
    assert_eq!(trial.body["balanced"], true);
}

#[tokio::test]
async fn the_math_page_computes_every_wager_and_flags_player_edges() {
    let casino = Casino::new().await;
    let math = casino.call("GET", "/v1/craps/math", None, None, None).await;
    assert_eq!(math.status, StatusCode::OK);
    let wagers = math.body["wagers"].as_array().unwrap();
    let pass = wagers.iter().find(|w| w["wager"] == "pass").unwrap();
    assert_eq!(
        (pass["house_edge"]["numerator"].as_str(), pass["house_edge"]["denominator"].as_str()),
        (Some("7"), Some("495"))
    );
    let hot = &math.body["ambiguities"][0];
    let flagged: Vec<bool> = hot["readings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["player_has_the_edge"].as_bool().unwrap())
        .collect();
    assert_eq!(flagged, [false, false, true, true], "read as n to 1, the hot shooter favours the player");
    // The seven-out on exactly the eighth roll, which neither sentence covers, named with its chance.
    let question = hot["question"].as_str().unwrap();
    assert!(question.contains("exactly the eighth roll") && question.contains('%'), "{question}");

    // Buys and lays: the edge per unit of the bet and, smaller, per unit of bet and commission.
    for wager in ["buy_4_at_20_dollars", "lay_4_to_win_20_dollars"] {
        let w = wagers.iter().find(|w| w["wager"] == wager).unwrap();
        let (per_bet, per_total) = (
            w["house_edge"]["decimal"].as_f64().unwrap(),
            w["house_edge_per_total_wagered"]["decimal"].as_f64().unwrap(),
        );
        assert!(0.0 < per_total && per_total < per_bet, "{wager}: {per_total} vs {per_bet}");
    }
    // A $20 buy on the 4 pays a $1 commission: 1/21 of bet and commission, 1/20 of the bet.
    let buy4 = wagers.iter().find(|w| w["wager"] == "buy_4_at_20_dollars").unwrap();
    assert_eq!(
        buy4["house_edge"]["numerator"].as_str().zip(buy4["house_edge"]["denominator"].as_str()),
        Some(("1", "20"))
    );
    assert_eq!(
        buy4["house_edge_per_total_wagered"]["numerator"]
            .as_str()
            .zip(buy4["house_edge_per_total_wagered"]["denominator"].as_str()),
        Some(("1", "21"))
    );
    assert!(
        wagers.iter().filter(|w| w["wager"] == "pass").all(|w| w["house_edge_per_total_wagered"].is_null())
    );

    // The hardways under both power odds pay tables, lit and at the house's rate.
    let power = math.body["power_odds"].as_array().unwrap();
    for n in [4, 6, 8, 10] {
        let lit: Vec<&Value> = power.iter().filter(|p| p["wager"] == format!("hardway_{n}")).collect();
        assert_eq!(lit.len(), 2, "hardway {n} under tables one and two");
        let plain =
            wagers.iter().find(|w| w["wager"] == format!("hardway_{n}")).unwrap()["house_edge"]["decimal"]
                .as_f64()
                .unwrap();
        assert!(lit.iter().all(|p| p["house_edge_when_lit"]["decimal"].as_f64().unwrap() < plain), "{lit:?}");
    }
}

#[tokio::test]
async fn with_power_odds_lit_on_every_roll_any_seven_pays_thirteen_to_two() {
    let mut options = assembly::Options::for_tests().unwrap();
    options.tables.craps.rules.power_odds = Some(domain::craps::session::PowerOdds {
        table: domain::craps::PowerTable::One,
        per_thousand_rolls: 1_000,
    });
    let casino = Casino::with(options).await;
    let (token, _) = casino.player(1_000_000).await;
    let session = casino.open_craps(&token).await;
    // An odd any seven cannot be paid 13 to 2 in whole cents: refused with its unit.
    let odd = casino
        .craps(
            &token,
            &session,
            "bets",
            "odd",
            json!({"changes": [{"change": "place", "bet": "any_seven", "amount_cents": 101}]}),
        )
        .await;
    assert_eq!(odd.code(), "amount_not_in_units");
    for n in 0..200 {
        let mut changes = vec![json!({"change": "place", "bet": "any_seven", "amount_cents": 200})];
        let layout =
            casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
        if layout.body["point"].is_null()
            && !layout.body["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "pass")
        {
            changes.push(json!({"change": "place", "bet": "pass", "amount_cents": 100}));
        }
        let r = casino.craps(&token, &session, "rolls", &format!("p{n}"), json!({"changes": changes})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        let roll = &r.body["result"]["roll"];
        assert_eq!(roll["power_odds"], true, "lit on every roll at 1000 in 1000");
        let seven = roll["outcomes"].as_array().unwrap().iter().find(|o| o["bet"] == "any_seven").unwrap();
        if roll["total"] == 7 {
            assert_eq!(
                (seven["result"].as_str(), seven["returned_cents"].as_i64()),
                (Some("won"), Some(200 + 1_300))
            );
            assert_eq!(wallet_change(&r.body), expected_change(&r.body));
            return;
        }
        assert_eq!(seven["result"], "lost");
    }
    panic!("no 7 in 200 rolls");
}

/// A player who leaves bets on the layout and never comes back: the house takes down what may
/// come down and rolls out the contract bets (45(d)), every step paid through the ledger and
/// recorded; nothing stays in escrow, and the house makes no bet of its own.
#[tokio::test]
async fn the_house_closes_an_abandoned_session_and_nothing_stays_in_escrow() {
    let casino = Casino::new().await;
    let (token, wallet) = casino.player(100_000).await;
    let session = casino.open_craps(&token).await;
    // A pass line bet until a point is set (a come-out natural or craps decides it at once).
    let mut rolled = 0;
    loop {
        let body = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]});
        let play = casino.craps(&token, &session, "rolls", &format!("p{rolled}"), body).await;
        assert_eq!(play.status, StatusCode::CREATED, "{}", play.body);
        rolled += 1;
        if !play.body["session"]["point"].is_null() {
            break;
        }
        assert!(rolled < 200, "no point in 200 come-out rolls");
    }
    let more = json!({"changes": [
        {"change": "place", "bet": "pass_odds", "amount_cents": 2_000},
        {"change": "place", "bet": "place", "number": 8, "amount_cents": 600},
        {"change": "place", "bet": "field", "amount_cents": 500},
    ]});
    let left = casino.craps(&token, &session, "bets", "left", more).await;
    assert_eq!(left.status, StatusCode::CREATED, "{}", left.body);
    assert_eq!(casino.craps_escrow().await, 1_000 + 2_000 + 600 + 500);
    let id: Uuid = session.parse().unwrap();
    // Not yet abandoned: left alone.
    let idle = Duration::from_secs(3_600);
    assert_eq!(table_games::craps::close_abandoned(&casino.state, idle).await.unwrap(), 0);
    sqlx::query("UPDATE craps_sessions SET updated_at = now() - interval '2 hours' WHERE id = $1")
        .bind(id)
        .execute(&casino.state.pool)
        .await
        .unwrap();
    assert_eq!(table_games::craps::close_abandoned(&casino.state, idle).await.unwrap(), 1);

    let now = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(now.body["bets"], json!([]), "{}", now.body);
    assert_eq!(casino.craps_escrow().await, 0, "nothing waits in escrow");
    // The house's requests: the first took down odds, place and field (3,100 back) and rolled;
    // any after it only rolled. None made a bet.
    let house: Vec<(String, Value, i64)> = sqlx::query_as(
        "SELECT key, money, balance_after_cents FROM craps_rolls WHERE session_id = $1 AND key LIKE 'house-close/%'
          ORDER BY seq",
    )
    .bind(id)
    .fetch_all(&casino.state.pool)
    .await
    .unwrap();
    assert!(!house.is_empty());
    assert_eq!(house[0].1["taken_down_cents"], 3_100, "{:?}", house[0]);
    assert!(house.iter().all(|(_, money, _)| money["staked_cents"] == 0));
    let lost_or_won: i64 = house
        .iter()
        .map(|(_, m, _)| m["returned_cents"].as_i64().unwrap() + m["lost_cents"].as_i64().unwrap())
        .sum();
    assert_eq!(lost_or_won, 1_000, "the pass line bet was decided by the house's rolls");
    assert_eq!(casino.balance(wallet).await, house.last().unwrap().2, "the wallet as last recorded");
    // Closed: nothing left to close.
    assert_eq!(table_games::craps::close_abandoned(&casino.state, Duration::ZERO).await.unwrap(), 0);
    casino.assert_books_balance().await;
}

/// Fifteen copies of one roll's key sent at once (a client retrying an answer it lost, on a
/// connection budget of the default's size for one core, 20): one roll is thrown, every copy is
/// answered with it, and none waits out the pool or the deadline (issue 32 §5: all fifteen got
/// 503 after 5 to 10 s, each holding a connection while it waited).
#[tokio::test]
async fn copies_of_one_key_sent_at_once_wait_for_its_one_roll() {
    let mut options = assembly::Options::for_tests().unwrap();
    options.config.db_max_connections = 20;
    options.config.request_timeout = Duration::from_secs(4);
    let casino = Casino::with(options).await;
    let (token, wallet) = casino.player(100_000).await;
    let session = casino.open_craps(&token).await;
    let body = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 1_000}]});
    let copies: Vec<_> = (0..15)
        .map(|_| {
            let router = casino.router.clone();
            let request = Request::post(format!("/v1/craps/sessions/{session}/rolls"))
                .header("content-type", "application/json")
                .header("authorization", format!("Bearer {token}"))
                .header("idempotency-key", "the-one-roll")
                .body(Body::from(body.to_string()))
                .unwrap();
            tokio::spawn(async move { send(&router, request).await })
        })
        .collect();
    let mut answers = Vec::new();
    for copy in copies {
        answers.push(copy.await.unwrap());
    }
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|&&s| s == 201).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 14, "{statuses:?}");
    let dice: Vec<&Value> = answers.iter().map(|a| &a.body["result"]["roll"]).collect();
    assert!(dice.iter().all(|d| *d == dice[0]), "one roll answered to every copy: {dice:?}");
    let now = casino.call("GET", &format!("/v1/craps/sessions/{session}"), Some(&token), None, None).await;
    assert_eq!(now.body["rolls"], 1);
    assert_eq!(casino.balance(wallet).await, 100_000 + wallet_change(&answers[0].body));
    casino.assert_books_balance().await;
}
