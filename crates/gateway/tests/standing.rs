//! A player's standing over the API (issue 35, ADR 0014 §4): tickets for future draws voided
//! and refunded when a break begins, the cooling-off before an exclusion's end or a reopening
//! lets play resume, a permanent exclusion, an account closed, and time limits.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{Login, TestGateway, balance, new_id, play};
use serde_json::{Value, json};

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
    sqlx::query(
        "UPDATE game_sessions SET started_at = now() - interval '31 minutes' WHERE player_id::text = $1",
    )
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
    // A day later the raise binds at the very next stake (nothing else read the limits first).
    sqlx::query(
        "UPDATE player_limits SET pending_from = now() - interval '1 second' WHERE player_id = $1::uuid",
    )
    .bind(&eve.subject)
    .execute(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!(keno(&gw, &eve).await, Ok(()));
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn an_exclusion_list_excludes_a_player_at_once_refuses_a_registration_and_logs_each_match() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    let fay = gw.player("fay@example.com").await;
    gw.fund(&fay.token, 4_000).await;
    let ticket =
        play(&gw, &fay, "/v1/keno/draw-tickets", json!({"option": "bet", "spots": [3], "draws": 2})).await;
    assert_eq!(ticket.status, 201, "{}", ticket.body);
    let import = |body: String| {
        let request = Request::post("/v1/exclusion-list/import")
            .header("authorization", format!("Bearer {}", operator.token))
            .header("content-type", "text/csv")
            .body(Body::from(body))
            .unwrap();
        gw.send(request)
    };
    // A bad line refuses the whole file, naming the line.
    let refused = import(
        "source,reference,email,date_of_birth,ends_on\nstate,KS-1,Fay@Example.com,,\nstate,KS-2,gus@example.com,31/12/1970,\n"
            .to_owned(),
    )
    .await;
    assert_eq!(
        (refused.status.as_u16(), refused.body["code"].as_str()),
        (422, Some("invalid_exclusion_list"))
    );
    assert_eq!(refused.body["context"]["line"], 3, "{}", refused.body);
    assert_eq!(keno(&gw, &fay).await, Ok(()), "nothing of the refused file was applied");

    let taken = import(
        "source,reference,email,date_of_birth,ends_on\nstate,KS-1,Fay@Example.com,,\nstate,KS-2,gus@example.com,1970-12-31,\n"
            .to_owned(),
    )
    .await;
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert_eq!(
        (
            taken.body["added"].as_u64(),
            taken.body["replaced"].as_u64(),
            taken.body["players_excluded"].as_u64()
        ),
        (Some(2), Some(0), Some(1)),
        "{}",
        taken.body
    );
    // Fay is excluded at once: her session ended, her future ticket refunded, play and deposits
    // refused, a withdrawal taken.
    assert_eq!(gw.call("GET", "/v1/me", Some(&fay.token), None).await.body["code"], "session_ended");
    let fay = log_in_again(&gw, "fay@example.com", &fay).await;
    let me = gw.call("GET", "/v1/me", Some(&fay.token), None).await;
    assert_eq!(me.body["player"]["standing"], "listed", "{}", me.body);
    assert_eq!(keno(&gw, &fay).await, Err("play_suspended".into()));
    let deposit = gw.deposit(&fay.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "excluded_by_list", "{}", deposit.body);
    let path = format!("/v1/keno/draw-tickets/{}", ticket.body["id"].as_str().unwrap());
    let voided = gw.call("GET", &path, Some(&fay.token), None).await;
    assert_eq!(voided.body["voided"]["reason"], "exclusion_list", "{}", voided.body);
    let withdrawal = play(&gw, &fay, "/v1/me/withdrawals", json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!(withdrawal.status, 202, "{}", withdrawal.body);

    // Gus cannot register (with the listed date of birth); someone of his email born on
    // another day can. Both refusals and matches are on the record.
    let gus =
        json!({"email": "gus@example.com", "password": common::PASSWORD, "date_of_birth": "1970-12-31"});
    let refused = gw.call("POST", "/v1/players", None, Some(gus)).await;
    assert_eq!((refused.status.as_u16(), refused.body["code"].as_str()), (403, Some("excluded_by_list")));
    let other =
        json!({"email": "gus@example.com", "password": common::PASSWORD, "date_of_birth": "1971-01-01"});
    assert_eq!(gw.call("POST", "/v1/players", None, Some(other)).await.status, 202);
    let list = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    let matches: Vec<_> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["reference"].clone(), e["matches"].clone()))
        .collect();
    assert!(
        matches.contains(&(json!("KS-1"), json!(1))) && matches.contains(&(json!("KS-2"), json!(1))),
        "{matches:?}"
    );

    // The same reference again replaces it; an entry taken off the list lets play resume.
    let again = gw
        .call(
            "POST",
            "/v1/exclusion-list",
            Some(&operator.token),
            Some(json!({"source": "state", "reference": "KS-1", "email": "fay@example.com", "ends_on": "2000-01-01"})),
        )
        .await;
    assert_eq!(
        (again.body["added"].as_u64(), again.body["replaced"].as_u64()),
        (Some(0), Some(1)),
        "{}",
        again.body
    );
    let me = gw.call("GET", "/v1/me", Some(&fay.token), None).await;
    assert_eq!(me.body["player"]["standing"], "active", "an entry that ended no longer holds: {}", me.body);
    assert_eq!(keno(&gw, &fay).await, Ok(()));

    // An entry taken off the lists releases the player at once; it stays on the record.
    let listed = json!({"source": "operator", "reference": "OP-7", "email": "fay@example.com"});
    let listed = gw.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(listed)).await;
    assert_eq!(listed.body["players_excluded"], 1, "{}", listed.body);
    let fay = log_in_again(&gw, "fay@example.com", &fay).await;
    assert_eq!(keno(&gw, &fay).await, Err("play_suspended".into()));
    let list = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    let op7 = list.body.as_array().unwrap().iter().find(|e| e["reference"] == "OP-7").unwrap();
    let path = format!("/v1/exclusion-list/{}", op7["id"].as_str().unwrap());
    let by_player = gw.call("DELETE", &path, Some(&fay.token), None).await;
    assert_eq!(by_player.status, 403, "{}", by_player.body);
    let removed = gw.call("DELETE", &path, Some(&operator.token), None).await;
    assert_eq!((removed.status.as_u16(), &removed.body), (200, &json!({"players_released": 1})));
    let me = gw.call("GET", "/v1/me", Some(&fay.token), None).await;
    assert_eq!(me.body["player"]["standing"], "active", "{}", me.body);
    assert_eq!(keno(&gw, &fay).await, Ok(()));
    let again = gw.call("DELETE", &path, Some(&operator.token), None).await;
    assert_eq!(
        (again.status.as_u16(), again.body["code"].as_str()),
        (404, Some("exclusion_entry_not_found"))
    );
    let list = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    assert!(!list.body.as_array().unwrap().iter().any(|e| e["reference"] == "OP-7"), "{}", list.body);
    let kept: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM exclusion_list WHERE reference = 'OP-7' AND removed_by IS NOT NULL",
    )
    .fetch_one(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!(kept, 1, "the entry taken off stays on the record with who took it off");

    let entry = json!({"source": "operator", "reference": "X", "email": "x@example.com"});
    let player = gw.call("POST", "/v1/exclusion-list", Some(&fay.token), Some(entry)).await;
    assert_eq!(player.status, 403, "{}", player.body);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn dormant_accounts_are_listed_with_their_balances_until_their_player_returns() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    let hal = gw.player("hal@example.com").await;
    gw.fund(&hal.token, 2_500).await;
    let page = gw.call("GET", "/v1/responsible-gaming", None, None).await;
    assert!(page.body["help_line"].as_str().unwrap().contains("1-800"), "{}", page.body);
    let dormant = gw.call("GET", "/v1/dormant-accounts", Some(&operator.token), None).await;
    assert_eq!((dormant.status.as_u16(), &dormant.body["accounts"]), (200, &json!([])), "{}", dormant.body);

    sqlx::query("UPDATE players SET last_login_at = now() - interval '1100 days' WHERE id = $1::uuid")
        .bind(&hal.subject)
        .execute(&gw.state.pool)
        .await
        .unwrap();
    // Marked dormant once, however many replicas' workers mark at once, in the
    // significant-events log (issue 50).
    let (a, b) = tokio::join!(gw.state.mark_dormant_accounts(), gw.state.mark_dormant_accounts());
    assert_eq!(a.unwrap() + b.unwrap(), 1, "hal, once");
    assert_eq!(gw.state.mark_dormant_accounts().await.unwrap(), 0);
    let dormancy = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM (SELECT kind, player_id FROM events.pending
                                   UNION ALL SELECT kind, player_id FROM events.log) e
              WHERE kind = 'dormancy' AND player_id = $1::uuid",
        )
        .bind(&hal.subject)
        .fetch_one(&gw.state.pool)
        .await
        .unwrap()
    };
    assert_eq!(dormancy().await, 1);
    let dormant = gw.call("GET", "/v1/dormant-accounts", Some(&operator.token), None).await;
    assert_eq!(dormant.body["dormant_after_days"], 1095, "{}", dormant.body);
    let accounts = dormant.body["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), 1, "{}", dormant.body);
    assert_eq!(
        (accounts[0]["email"].as_str(), accounts[0]["balance_cents"].as_i64()),
        (Some("hal@example.com"), Some(2_500))
    );

    // Hal comes back: the balance is his, and the account is no longer dormant.
    let back = gw.login(json!({"email": "hal@example.com", "password": common::PASSWORD})).await;
    assert_eq!(back.status, 201, "{}", back.body);
    let token = back.body["access_token"].as_str().unwrap();
    let wallet = gw.call("GET", "/v1/me/wallet", Some(token), None).await;
    assert_eq!(wallet.body["balance"]["posted"], 2_500, "{}", wallet.body);
    let dormant = gw.call("GET", "/v1/dormant-accounts", Some(&operator.token), None).await;
    assert_eq!(dormant.body["accounts"], json!([]), "{}", dormant.body);
    let cleared: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT dormant_at FROM players WHERE id = $1::uuid")
            .bind(&hal.subject)
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!(cleared, None, "a login ends the dormancy");
}

#[tokio::test]
async fn a_break_taken_between_a_deal_and_a_decision_lets_the_hand_finish_without_a_new_stake() {
    let gw = TestGateway::new().await;
    let ida = gw.player("ida@example.com").await;
    gw.fund(&ida.token, 10_000).await;
    let table = gw.call("POST", "/v1/blackjack/tables", Some(&ida.token), Some(json!({"decks": 6}))).await;
    let rounds = format!("/v1/blackjack/tables/{}/rounds", table.body["id"].as_str().unwrap());
    // Deal until a hand waits for a decision (a natural settles at once).
    let mut round = Value::Null;
    for _ in 0..20 {
        let dealt = play(&gw, &ida, &rounds, json!({"spots": [{"wager": 500}]})).await;
        assert_eq!(dealt.status, 201, "{}", dealt.body);
        if dealt.body["allowed_actions"].as_array().is_some_and(|a| !a.is_empty()) {
            round = dealt.body;
            break;
        }
    }
    assert!(round.is_object(), "no hand waited for a decision in 20 deals");
    let taken =
        gw.call("POST", "/v1/me/time-out", Some(&ida.token), Some(json!({"period": "24_hours"}))).await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let ida = log_in_again(&gw, "ida@example.com", &ida).await;
    let path = format!("/v1/blackjack/rounds/{}/actions", round["id"].as_str().unwrap());
    let allowed = round["allowed_actions"].as_array().unwrap();
    // A double is a new stake: refused, the hand unchanged.
    if let Some(double) = allowed.iter().find(|a| a["action"] == "double") {
        let body = json!({"step": round["step"], "action": "double", "spot": double["spot"]});
        let refused = play(&gw, &ida, &path, body).await;
        assert_eq!(refused.body["code"], "play_suspended", "{}", refused.body);
    }
    // Standing (or declining insurance) adds nothing: the hand plays out and settles, any win paid.
    for _ in 0..10 {
        let allowed = round["allowed_actions"].as_array().unwrap().clone();
        let Some(next) =
            allowed.iter().find(|a| a["action"] == "decline_insurance" || a["action"] == "stand")
        else {
            break;
        };
        let mut body = json!({"step": round["step"], "action": next["action"]});
        if let Some(spot) = next.get("spot") {
            body["spot"] = spot.clone();
        }
        let answer = play(&gw, &ida, &path, body).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        round = answer.body;
    }
    assert_eq!(round["allowed_actions"], json!([]), "the hand finished: {round}");
    assert_eq!(keno(&gw, &ida).await, Err("play_suspended".into()));
    gw.assert_ledger_balanced().await;
}

/// Two replicas of the gateway, each with its own memory: what a player or an operator does to
/// a standing through one, the other enforces at once (the standing and limits are in Postgres,
/// the suspension in the ledger), and a session one ends, the other refuses within its refresh.
#[tokio::test]
async fn what_one_replica_does_to_a_standing_the_other_enforces() {
    let a = TestGateway::new().await;
    let b = a.replica();
    let operator = a.staff("olga", platform::auth::Role::Operator).await;
    let hal = a.player("hal@example.com").await;
    a.fund(&hal.token, 3_000).await;

    // A time limit set through A binds a stake through B.
    let set = a
        .call("PUT", "/v1/me/time-limits", Some(&hal.token), Some(json!({"period": "daily", "minutes": 30})))
        .await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert_eq!(keno(&b, &hal).await, Ok(()));
    sqlx::query(
        "UPDATE game_sessions SET started_at = now() - interval '31 minutes' WHERE player_id::text = $1",
    )
    .bind(&hal.subject)
    .execute(&a.state.pool)
    .await
    .unwrap();
    assert_eq!(keno(&b, &hal).await, Err("limit_reached".into()));
    sqlx::query("DELETE FROM player_limits WHERE player_id = $1::uuid AND kind = 'time'")
        .bind(&hal.subject)
        .execute(&a.state.pool)
        .await
        .unwrap();
    assert_eq!(keno(&a, &hal).await, Ok(()));

    // Listed through A: B refuses the session's token within its refresh, and the stake of a
    // new session; taken off through B, play resumes through A.
    let entry = json!({"source": "state", "reference": "KS-77", "email": "hal@example.com"});
    let listed = a.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(entry)).await;
    assert_eq!(listed.body["players_excluded"], 1, "{}", listed.body);
    let mut refused = None;
    for _ in 0..50 {
        let me = b.call("GET", "/v1/me", Some(&hal.token), None).await;
        if me.status == 401 {
            refused = me.body["code"].as_str().map(str::to_owned);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(refused.as_deref(), Some("session_ended"), "B took the ended session's token for 5 s");
    let hal = log_in_again(&b, "hal@example.com", &hal).await;
    assert_eq!(keno(&b, &hal).await, Err("play_suspended".into()));
    let deposit = b.deposit(&hal.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "excluded_by_list", "{}", deposit.body);
    let list = b.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    let id = list.body[0]["id"].as_str().unwrap();
    let removed = b.call("DELETE", &format!("/v1/exclusion-list/{id}"), Some(&operator.token), None).await;
    assert_eq!(removed.body["players_released"], 1, "{}", removed.body);
    assert_eq!(keno(&a, &hal).await, Ok(()));

    // Closed through B: A refuses the deposit and the stake; the withdrawal goes on.
    let closed = b.call("POST", "/v1/me/closure", Some(&hal.token), None).await;
    assert_eq!(closed.status, 200, "{}", closed.body);
    let hal = log_in_again(&a, "hal@example.com", &hal).await;
    let deposit = a.deposit(&hal.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
    assert_eq!(deposit.body["code"], "account_closed", "{}", deposit.body);
    assert_eq!(keno(&a, &hal).await, Err("play_suspended".into()));
    let withdrawal = play(&a, &hal, "/v1/me/withdrawals", json!({"amount": 500, "currency": "USD"})).await;
    assert_eq!(withdrawal.status, 202, "{}", withdrawal.body);
    a.assert_ledger_balanced().await;
}

/// Issue 47 §3: the five ways the outside check re-registered a self-excluded or listed person
/// (a `+tag`, a dot, a zero-width space, a full-width letter, a Cyrillic look-alike) no longer
/// open an account. The invisible, full-width and mixed-script addresses are refused as such;
/// the sub-address and the dot are the same address as a person reads it, and with the same
/// date of birth the same person: refused with the standing of the account they already have.
/// A list entry matches a player and a registration the same way.
#[tokio::test]
async fn look_alike_addresses_do_not_walk_around_an_exclusion_or_a_list() {
    let gw = TestGateway::new().await;
    let register = |email: &str, born: &str| {
        let body = json!({"email": email, "password": common::PASSWORD, "date_of_birth": born});
        gw.call("POST", "/v1/players", None, Some(body))
    };
    let ann = gw.player("ann.lee@example.com").await;
    let excluded =
        gw.call("POST", "/v1/me/self-exclusion", Some(&ann.token), Some(json!({"period": "6_months"}))).await;
    assert_eq!(excluded.status, 200, "{}", excluded.body);
    let tricks = [
        ("ann.lee+again@example.com", 403, "self_excluded"),
        ("annlee@example.com", 403, "self_excluded"),
        ("ANN.LEE+x@Example.com", 403, "self_excluded"),
        ("ann.l\u{200B}ee@example.com", 422, "invalid_email_characters"),
        ("\u{FF41}nn.lee@example.com", 422, "invalid_email_characters"),
        ("\u{0430}nn.lee@example.com", 422, "invalid_email_characters"),
    ];
    for (email, status, code) in tricks {
        let refused = register(email, "1990-05-17").await;
        assert_eq!(
            (refused.status.as_u16(), refused.body["code"].as_str()),
            (status, Some(code)),
            "{email:?}: {}",
            refused.body
        );
    }
    // Another person (born another day) with an address written alike registers.
    let other = register("ann.lee+work@example.com", "1985-01-02").await;
    assert_eq!(other.status, 202, "{}", other.body);
    // An address wholly in another script is someone's real address.
    let ivan = register("\u{0438}\u{0432}\u{0430}\u{043D}@example.com", "1979-03-04").await;
    assert_eq!(ivan.status, 202, "{}", ivan.body);

    // A list entry matches a player registered before it under the address written another
    // way, and refuses a registration with it.
    let operator = gw.staff("operator", platform::auth::Role::Operator).await;
    let bo = gw.player("b.o.ray+games@example.com").await;
    let entry = json!({"source": "state", "reference": "KS-47", "email": "bo.ray@example.com", "date_of_birth": "1990-05-17"});
    let listed = gw.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(entry)).await;
    assert_eq!(listed.body["players_excluded"], 1, "{}", listed.body);
    let bo = log_in_again(&gw, "b.o.ray+games@example.com", &bo).await;
    assert_eq!(keno(&gw, &bo).await, Err("play_suspended".into()));
    for email in ["boray@example.com", "bo.ray+new@example.com"] {
        let refused = register(email, "1990-05-17").await;
        assert_eq!(refused.body["code"], "excluded_by_list", "{email}: {}", refused.body);
    }
}

/// The player's wallet account.
async fn wallet(gw: &TestGateway, player: &Login) -> String {
    let me = gw.call("GET", "/v1/me", Some(&player.token), None).await;
    me.body["player"]["wallet_account_id"].as_str().unwrap().to_owned()
}

/// Issue 47 §4: an operator's cash deposit into the wallet of a player on a break, excluded or
/// closed is refused with the code the player's own deposit gets; an active player's is taken.
#[tokio::test]
async fn an_operators_cash_deposit_meets_the_players_standing() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("operator", platform::auth::Role::Operator).await;
    let cash = |wallet: String| {
        let body = json!({"id": new_id(), "account_id": wallet, "amount": 500, "currency": "USD"});
        gw.call("POST", "/v1/deposits", Some(&operator.token), Some(body))
    };
    for (email, step, body, code) in [
        ("rest@example.com", "/v1/me/time-out", json!({"period": "24_hours"}), "on_break"),
        ("away@example.com", "/v1/me/self-exclusion", json!({"period": "6_months"}), "self_excluded"),
        ("gone@example.com", "/v1/me/closure", Value::Null, "account_closed"),
    ] {
        let player = gw.player(email).await;
        let account = wallet(&gw, &player).await;
        let own = gw.deposit(&player.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
        assert_eq!(own.status, 202, "{}", own.body);
        let taken = gw.call("POST", step, Some(&player.token), (!body.is_null()).then_some(body)).await;
        assert_eq!(taken.status, 200, "{}", taken.body);
        let player = log_in_again(&gw, email, &player).await;
        let own = gw.deposit(&player.token, &new_id(), json!({"amount": 100, "currency": "USD"})).await;
        let refused = cash(account).await;
        assert_eq!(
            (refused.status.as_u16(), refused.body["code"].as_str()),
            (403, own.body["code"].as_str()),
            "{email}: {}",
            refused.body
        );
        assert_eq!(refused.body["code"], code, "{}", refused.body);
    }
    let active = gw.player("here@example.com").await;
    let taken = cash(wallet(&gw, &active).await).await;
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert_eq!(balance(&gw, &active).await, 500);
    gw.assert_ledger_balanced().await;
}

/// Issue 47 §5: the list import takes a CSV file (`text/csv`, UTF-8) or its rows as JSON, and
/// answers anything else with a problem: a file that is not UTF-8 (was axum's plain-text 400),
/// another content type or none (was taken as text).
#[tokio::test]
async fn the_list_import_takes_csv_or_json_rows_and_refuses_anything_else_with_a_problem() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    let send = |content_type: Option<&str>, body: Vec<u8>| {
        let mut request = Request::post("/v1/exclusion-list/import")
            .header("authorization", format!("Bearer {}", operator.token));
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        gw.send(request.body(Body::from(body)).unwrap())
    };
    let file = b"source,reference,email,date_of_birth,ends_on\nstate,KS-1,fay@example.com,,\n".to_vec();
    let mut latin1 = file.clone();
    latin1.extend_from_slice(b"state,KS-2,g\xfcs@example.com,,\n");
    for (content_type, body, status, code) in [
        (Some("text/csv"), latin1, 400, "unreadable_body"),
        (Some("application/xml"), file.clone(), 415, "unsupported_media_type"),
        (Some("text/plain"), file.clone(), 415, "unsupported_media_type"),
        (None, file.clone(), 415, "unsupported_media_type"),
    ] {
        let refused = send(content_type, body).await;
        assert_eq!(
            (refused.status.as_u16(), refused.body["code"].as_str()),
            (status, Some(code)),
            "{content_type:?}: {}",
            refused.body
        );
        assert_eq!(refused.headers["content-type"], "application/problem+json");
    }
    let taken = send(Some("text/csv; charset=utf-8"), file).await;
    assert_eq!((taken.status.as_u16(), taken.body["added"].as_u64()), (201, Some(1)), "{}", taken.body);

    // The same rows as JSON, checked as a file's lines are (the first row is line 1).
    let rows = |second: &str| {
        json!({"entries": [
            {"source": "state", "reference": "KS-3", "email": "hal@example.com", "date_of_birth": "1970-01-02"},
            {"source": "operator", "reference": "OP-1", "email": second},
        ]})
        .to_string()
        .into_bytes()
    };
    let refused = send(Some("application/json"), rows("not an email")).await;
    assert_eq!(
        (refused.status.as_u16(), refused.body["code"].as_str(), refused.body["context"]["line"].as_u64()),
        (422, Some("invalid_exclusion_list"), Some(2)),
        "{}",
        refused.body
    );
    let taken = send(Some("application/json"), rows("ivy@example.com")).await;
    assert_eq!((taken.status.as_u16(), taken.body["added"].as_u64()), (201, Some(2)), "{}", taken.body);
    let list = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    assert_eq!(list.body.as_array().map(Vec::len), Some(3), "{}", list.body);
}

/// Issue 47 §5: the dormant accounts page like every other list (`after`, `limit`; bad values
/// 400), longest dormant first.
#[tokio::test]
async fn dormant_accounts_are_read_a_page_at_a_time() {
    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    for (i, email) in ["a@example.com", "b@example.com", "c@example.com"].into_iter().enumerate() {
        let player = gw.player(email).await;
        let days = 1_100 + 10 * (3 - i);
        sqlx::query(&format!(
            "UPDATE players SET last_login_at = now() - interval '{days} days' WHERE id = $1::uuid"
        ))
        .bind(&player.subject)
        .execute(&gw.state.pool)
        .await
        .unwrap();
    }
    let token = operator.token.clone();
    let page = |query: String| {
        let (gw, token) = (&gw, token.clone());
        async move { gw.call("GET", &format!("/v1/dormant-accounts{query}"), Some(&token), None).await }
    };
    let first = page("?limit=2".to_owned()).await;
    let emails = |body: &Value| {
        body["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["email"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(emails(&first.body), ["a@example.com", "b@example.com"], "{}", first.body);
    let next = first.body["next"].as_str().unwrap().to_owned();
    let second = page(format!("?limit=2&after={next}")).await;
    assert_eq!(emails(&second.body), ["c@example.com"], "{}", second.body);
    assert!(second.body["next"].is_null(), "{}", second.body);
    for (query, code) in [
        ("?limit=0", "invalid_limit"),
        ("?limit=501", "invalid_limit"),
        ("?after=yesterday", "invalid_cursor"),
    ] {
        let refused = page(query.to_owned()).await;
        assert_eq!((refused.status.as_u16(), refused.body["code"].as_str()), (400, Some(code)), "{query}");
    }
}
