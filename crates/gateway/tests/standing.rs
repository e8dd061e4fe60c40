//! A player's standing over the API (issue 35, ADR 0014 §4): tickets for future draws voided
//! and refunded when a break begins, the cooling-off before an exclusion's end or a reopening
//! lets play resume, a permanent exclusion, an account closed, and time limits.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{Login, TestGateway, new_id};
use platform::testing::Reply;
use serde_json::{Value, json};

/// A stake as a client sends it: with a key of its own.
async fn play(gw: &TestGateway, player: &Login, path: &str, body: Value) -> Reply {
    let request = Request::post(path)
        .header("authorization", format!("Bearer {}", player.token))
        .header("content-type", "application/json")
        .header("idempotency-key", new_id())
        .body(Body::from(body.to_string()))
        .unwrap();
    gw.send(request).await
}

async fn balance(gw: &TestGateway, player: &Login) -> i64 {
    let wallet = gw.call("GET", "/v1/me/wallet", Some(&player.token), None).await;
    assert_eq!(wallet.status, 200, "{}", wallet.body);
    wallet.body["balance"]["posted"].as_i64().unwrap()
}

/// Logs `player` in again (their sessions ended).
async fn log_in_again(gw: &TestGateway, email: &str, player: &Login) -> Login {
    let again = gw.login(json!({"email": email, "password": common::PASSWORD})).await;
    assert_eq!(again.status, 201, "{}", again.body);
    Login { token: again.body["access_token"].as_str().unwrap().to_owned(), subject: player.subject.clone() }
}

/// A one-spot Keno play now: taken (201), or the problem's code.
async fn keno(gw: &TestGateway, player: &Login) -> Result<(), String> {
    let played = play(gw, player, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    match played.status.as_u16() {
        201 => Ok(()),
        _ => Err(played.body["code"].as_str().unwrap_or_default().to_owned()),
    }
}

/// Moves the player's row's `column` back by `interval` (the test stands in for time passing).
async fn back_date(gw: &TestGateway, player: &Login, column: &str, interval: &str) {
    let sql = format!("UPDATE players SET {column} = {column} - interval '{interval}' WHERE id = $1::uuid");
    sqlx::query(&sql).bind(&player.subject).execute(&gw.state.pool).await.unwrap();
}

#[tokio::test]
async fn a_break_voids_tickets_for_future_draws_and_refunds_each_once() {
    let gw = TestGateway::new().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    let keno =
        play(&gw, &ann, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [7], "draws": 3})).await;
    assert_eq!(keno.status, 201, "{}", keno.body);
    let powerball = play(&gw, &ann, "/v1/powerball/tickets", json!({"quick_picks": 1, "draws": 2})).await;
    assert_eq!(powerball.status, 201, "{}", powerball.body);
    let cost = powerball.body["cost_cents"].as_i64().unwrap();
    // A play-now ticket settles at once: nothing of it is left to void.
    let now = play(&gw, &ann, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(now.status, 201, "{}", now.body);
    let before = balance(&gw, &ann).await;

    let taken =
        gw.call("POST", "/v1/me/time-out", Some(&ann.token), Some(json!({"period": "24_hours"}))).await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let ann = log_in_again(&gw, "ann@example.com", &ann).await;
    assert_eq!(balance(&gw, &ann).await, before + 300 + cost, "both tickets' stakes came back");

    let path = format!("/v1/keno/draw-tickets/{}", keno.body["id"].as_str().unwrap());
    let ticket = gw.call("GET", &path, Some(&ann.token), None).await;
    let voided = &ticket.body["voided"];
    assert_eq!(
        (
            voided["refund_cents"].as_i64(),
            voided["draws"].as_array().map(Vec::len),
            voided["reason"].as_str()
        ),
        (Some(300), Some(3), Some("time_out")),
        "{}",
        ticket.body
    );
    assert!(voided["refunded_at"].is_string(), "{voided}");
    assert_eq!(ticket.body["entries"], json!([]), "no entry is left in a draw: {}", ticket.body);
    let path = format!("/v1/powerball/tickets/{}", powerball.body["serial"].as_str().unwrap());
    let ticket = gw.call("GET", &path, Some(&ann.token), None).await;
    assert_eq!(ticket.body["voided"]["refund_cents"].as_i64(), Some(cost), "{}", ticket.body);

    // Asked again (a retry, another replica's worker, an operator): nothing more is voided or paid.
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    let again = format!("/v1/draws/players/{}/void-future-tickets", ann.subject);
    let again = gw.call("POST", &again, Some(&operator.token), Some(json!({"reason": "time_out"}))).await;
    assert_eq!((again.status.as_u16(), &again.body["voided"]), (200, &json!([])), "{}", again.body);
    assert_eq!(balance(&gw, &ann).await, before + 300 + cost);
    let mine =
        gw.call("POST", "/v1/draws/players/x/void-future-tickets", Some(&ann.token), Some(json!({}))).await;
    assert_eq!(mine.status, 403, "a player does not void tickets: {}", mine.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn an_exclusion_ends_only_a_day_after_the_player_asks_once_its_term_is_over() {
    let gw = TestGateway::new().await;
    let bea = gw.player("bea@example.com").await;
    gw.fund(&bea.token, 5_000).await;
    let excluded =
        gw.call("POST", "/v1/me/self-exclusion", Some(&bea.token), Some(json!({"period": "6_months"}))).await;
    assert_eq!(
        (excluded.status.as_u16(), &excluded.body["permanent"]),
        (200, &json!(false)),
        "{}",
        excluded.body
    );
    let bea = log_in_again(&gw, "bea@example.com", &bea).await;
    let early = gw.call("POST", "/v1/me/self-exclusion/return", Some(&bea.token), None).await;
    assert_eq!(
        (early.status.as_u16(), early.body["code"].as_str()),
        (409, Some("exclusion_in_force")),
        "{}",
        early.body
    );

    // The term is over: play still waits for the player's request.
    back_date(&gw, &bea, "self_excluded_until", "200 days").await;
    let bea = log_in_again(&gw, "bea@example.com", &bea).await;
    let me = gw.call("GET", "/v1/me", Some(&bea.token), None).await;
    assert_eq!(
        (me.body["player"]["standing"].as_str(), &me.body["player"]["play_resumes_at"]),
        (Some("self_excluded"), &Value::Null),
        "{}",
        me.body
    );
    assert_eq!(keno(&gw, &bea).await, Err("play_suspended".into()));
    let asked = gw.call("POST", "/v1/me/self-exclusion/return", Some(&bea.token), None).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let resumes: chrono::DateTime<chrono::Utc> =
        asked.body["play_resumes_at"].as_str().unwrap().parse().unwrap();
    assert!(
        (resumes - chrono::Utc::now() - chrono::Duration::hours(24)).num_seconds().abs() < 60,
        "{resumes}"
    );
    // Asking again does not move the cooling-off on; a deposit waits as a stake does.
    let twice = gw.call("POST", "/v1/me/self-exclusion/return", Some(&bea.token), None).await;
    assert_eq!(twice.body["play_resumes_at"], asked.body["play_resumes_at"], "{}", twice.body);
    assert_eq!(keno(&gw, &bea).await, Err("play_suspended".into()));
    let deposit = gw.deposit(&bea.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "self_excluded", "{}", deposit.body);

    // A day later (the ledger lifts the suspension at the time it was given).
    back_date(&gw, &bea, "return_requested_at", "25 hours").await;
    let bea = log_in_again(&gw, "bea@example.com", &bea).await;
    assert_eq!(keno(&gw, &bea).await, Ok(()));
    let me = gw.call("GET", "/v1/me", Some(&bea.token), None).await;
    assert_eq!(me.body["player"]["standing"], "active", "{}", me.body);
    let none = gw.call("POST", "/v1/me/self-exclusion/return", Some(&bea.token), None).await;
    assert_eq!(none.status, 200, "asking after play resumed changes nothing: {}", none.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_permanent_exclusion_never_ends_and_outlasts_any_term() {
    let gw = TestGateway::new().await;
    let cy = gw.player("cy@example.com").await;
    gw.fund(&cy.token, 2_000).await;
    let never = gw.call("POST", "/v1/me/self-exclusion/return", Some(&cy.token), None).await;
    assert_eq!(never.body["code"], "not_excluded", "{}", never.body);
    let excluded =
        gw.call("POST", "/v1/me/self-exclusion", Some(&cy.token), Some(json!({"period": "permanent"}))).await;
    assert_eq!(excluded.status, 200, "{}", excluded.body);
    assert_eq!(
        (&excluded.body["permanent"], &excluded.body["self_excluded_until"]),
        (&json!(true), &Value::Null)
    );
    let cy = log_in_again(&gw, "cy@example.com", &cy).await;
    let term =
        gw.call("POST", "/v1/me/self-exclusion", Some(&cy.token), Some(json!({"period": "6_months"}))).await;
    assert_eq!(term.body["permanent"], true, "a term asked for later does not shorten it: {}", term.body);
    let cy = log_in_again(&gw, "cy@example.com", &cy).await;
    back_date(&gw, &cy, "self_excluded_until", "1 year").await;
    let asked = gw.call("POST", "/v1/me/self-exclusion/return", Some(&cy.token), None).await;
    assert_eq!(asked.body["code"], "exclusion_in_force", "{}", asked.body);
    let cy = log_in_again(&gw, "cy@example.com", &cy).await;
    assert_eq!(keno(&gw, &cy).await, Err("play_suspended".into()));
    let withdrawal = play(&gw, &cy, "/v1/me/withdrawals", json!({"amount": 2_000, "currency": "USD"})).await;
    assert_eq!(withdrawal.status, 202, "the balance is still the player's: {}", withdrawal.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_closed_account_keeps_its_balance_for_withdrawal_and_reopens_a_day_after_asking() {
    let gw = TestGateway::new().await;
    let dee = gw.player("dee@example.com").await;
    gw.fund(&dee.token, 3_000).await;
    let open = gw.call("POST", "/v1/me/reopening", Some(&dee.token), None).await;
    assert_eq!(open.body["code"], "not_closed", "{}", open.body);
    let scheduled =
        play(&gw, &dee, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [9], "draws": 2})).await;
    assert_eq!(scheduled.status, 201, "{}", scheduled.body);

    let closed = gw.call("POST", "/v1/me/closure", Some(&dee.token), None).await;
    assert_eq!(
        (closed.status.as_u16(), closed.body["standing"].as_str(), &closed.body["play_resumes_at"]),
        (200, Some("closed"), &Value::Null),
        "{}",
        closed.body
    );
    assert_eq!(gw.call("GET", "/v1/me", Some(&dee.token), None).await.body["code"], "session_ended");
    let dee = log_in_again(&gw, "dee@example.com", &dee).await;
    assert_eq!(balance(&gw, &dee).await, 3_000, "the future ticket was refunded");
    assert_eq!(keno(&gw, &dee).await, Err("play_suspended".into()));
    let deposit = gw.deposit(&dee.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "account_closed", "{}", deposit.body);
    let withdrawal = play(&gw, &dee, "/v1/me/withdrawals", json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(withdrawal.status, 202, "{}", withdrawal.body);

    let asked = gw.call("POST", "/v1/me/reopening", Some(&dee.token), None).await;
    assert_eq!(asked.body["standing"], "closed", "{}", asked.body);
    assert!(asked.body["play_resumes_at"].is_string(), "{}", asked.body);
    assert_eq!(keno(&gw, &dee).await, Err("play_suspended".into()));
    back_date(&gw, &dee, "closed_at", "2 days").await;
    back_date(&gw, &dee, "reopen_requested_at", "1 day 1 minute").await;
    let dee = log_in_again(&gw, "dee@example.com", &dee).await;
    assert_eq!(keno(&gw, &dee).await, Ok(()));
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_time_limit_refuses_the_stake_once_the_window_is_played_and_waits_a_day_to_rise() {
    let gw = TestGateway::new().await;
    let eve = gw.player("eve@example.com").await;
    gw.fund(&eve.token, 5_000).await;
    for (body, code) in [
        (json!({"period": "daily", "minutes": 0}), "invalid_time_limit"),
        (json!({"period": "daily", "minutes": 1_441}), "invalid_time_limit"),
        (json!({"period": "hourly", "minutes": 10}), "invalid_body"),
    ] {
        let bad = gw.call("PUT", "/v1/me/time-limits", Some(&eve.token), Some(body)).await;
        assert_eq!(bad.body["code"], code, "{}", bad.body);
    }
    let set = gw
        .call("PUT", "/v1/me/time-limits", Some(&eve.token), Some(json!({"period": "daily", "minutes": 30})))
        .await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(keno(&gw, &eve).await, Ok(()));
    // Half an hour of this session's play is behind her (the test moves its start back).
    sqlx::query("UPDATE sessions SET play_started_at = now() - interval '31 minutes' WHERE subject = $1")
        .bind(&eve.subject)
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let before = balance(&gw, &eve).await;
    let refused = play(&gw, &eve, "/v1/keno/tickets", json!({"option": "bet", "spots": [7]})).await;
    assert_eq!(
        (refused.status.as_u16(), refused.body["code"].as_str()),
        (422, Some("limit_reached")),
        "{}",
        refused.body
    );
    let context = &refused.body["context"];
    assert_eq!(
        (context["kind"].as_str(), context["period"].as_str(), context["limit"].as_i64()),
        (Some("time"), Some("daily"), Some(30)),
        "{context}"
    );
    assert!(context["played"].as_i64().unwrap() >= 31 && context["resets_at"].is_string(), "{context}");
    assert_eq!(balance(&gw, &eve).await, before, "nothing moved");

    let limits = gw.call("GET", "/v1/me/limits", Some(&eve.token), None).await;
    let daily =
        limits.body["time"].as_array().unwrap().iter().find(|l| l["period"] == "daily").unwrap().clone();
    assert_eq!(daily["minutes"], 30, "{daily}");
    assert!(daily["played_minutes"].as_i64().unwrap() >= 31, "{daily}");
    // A raise waits a day; a lowering binds at once.
    let raise = gw
        .call("PUT", "/v1/me/time-limits", Some(&eve.token), Some(json!({"period": "daily", "minutes": 120})))
        .await;
    let daily =
        raise.body["time"].as_array().unwrap().iter().find(|l| l["period"] == "daily").unwrap().clone();
    assert_eq!(
        (daily["minutes"].as_i64(), daily["pending_minutes"].as_i64()),
        (Some(30), Some(120)),
        "{daily}"
    );
    assert_eq!(keno(&gw, &eve).await, Err("limit_reached".into()));
    gw.assert_ledger_balanced().await;
}
