//! What staff may override, and how it is recorded (issue 49 §Staff): five failed deposits in
//! 10 minutes stop a player's deposits until an operator clears it, with a reason.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::{TestGateway, balance, new_id};
use platform::auth::Role;
use platform::testing::Reply;
use serde_json::json;

/// A deposit the sandbox declines, settled.
async fn declined(gw: &TestGateway, token: &str) {
    let body = json!({"amount": 2_500, "currency": "USD", "payment_method": "sandbox_decline"});
    let intent = gw.deposit(token, &new_id(), body).await;
    assert_eq!(intent.status, StatusCode::ACCEPTED, "{}", intent.body);
    let payment = gw.settled_payment(token, intent.body["id"].as_str().unwrap()).await;
    assert_eq!(payment["state"], "failed", "{payment}");
}

#[tokio::test]
async fn five_failed_deposits_in_ten_minutes_stop_deposits_until_an_operator_clears_it() {
    let gw = TestGateway::new().await;
    let eve = gw.player("eve@example.com").await;
    gw.fund(&eve.token, 10_000).await;
    for _ in 0..4 {
        declined(&gw, &eve.token).await;
    }
    // Four failures do not stop anything; failures older than 10 minutes do not count.
    sqlx::query("UPDATE payments SET updated_at = now() - interval '11 minutes' WHERE outcome = 'failed'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    for _ in 0..4 {
        declined(&gw, &eve.token).await;
    }
    let me = gw.call("GET", "/v1/me", Some(&eve.token), None).await;
    assert_eq!(me.body["player"]["deposits_blocked_at"], json!(null), "{}", me.body);
    declined(&gw, &eve.token).await;

    let me = gw.call("GET", "/v1/me", Some(&eve.token), None).await;
    assert!(me.body["player"]["deposits_blocked_at"].is_string(), "{}", me.body);
    let refused = gw.deposit(&eve.token, &new_id(), json!({"amount": 1_000, "currency": "USD"})).await;
    assert_eq!((refused.status, refused.code()), (StatusCode::FORBIDDEN, "deposits_blocked"));
    // Money already there still goes out.
    let out = gw.call("GET", "/v1/me/wallet", Some(&eve.token), None).await;
    assert_eq!(out.body["balance"]["available"], 10_000, "{}", out.body);
    let request = axum::http::Request::post("/v1/me/withdrawals")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", eve.token))
        .header("idempotency-key", new_id())
        .body(axum::body::Body::from(json!({"amount": 1_000, "currency": "USD"}).to_string()))
        .unwrap();
    assert_eq!(gw.send(request).await.status, StatusCode::ACCEPTED);

    let operator = gw.staff("olga", Role::Operator).await;
    let auditor = gw.staff("audra", Role::Auditor).await;
    let path = format!("/v1/players/{}/deposit-block/clear", eve.subject);
    let no_reason = gw.call("POST", &path, Some(&operator.token), Some(json!({"reason": "  "}))).await;
    assert_eq!((no_reason.status, no_reason.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_reason"));
    let why = json!({"reason": "the player called: a new card, the old one expired"});
    let by_auditor = gw.call("POST", &path, Some(&auditor.token), Some(why.clone())).await;
    assert_eq!(by_auditor.status, StatusCode::FORBIDDEN);
    let cleared = gw.call("POST", &path, Some(&operator.token), Some(why.clone())).await;
    assert_eq!(cleared.status, StatusCode::NO_CONTENT, "{}", cleared.body);
    let again = gw.call("POST", &path, Some(&operator.token), Some(why)).await;
    assert_eq!((again.status, again.code()), (StatusCode::CONFLICT, "not_blocked"));
    let (staff, action, reason, before): (String, String, String, serde_json::Value) = sqlx::query_as(
        "SELECT staff_id, action, reason, before FROM staff_actions WHERE subject = 'player:' || $1",
    )
    .bind(&eve.subject)
    .fetch_one(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!((staff.as_str(), action.as_str()), (operator.subject.as_str(), "deposit_block.clear"));
    assert!(reason.starts_with("the player called") && before["deposits_blocked_at"].is_string(), "{before}");
    gw.fund(&eve.token, 1_000).await;
    gw.assert_ledger_balanced().await;
}

/// `POST /v1/players/{player}/adjustments` as `token`, with `key` as its Idempotency-Key.
async fn propose(
    gw: &TestGateway,
    token: &str,
    player: &str,
    key: Option<&str>,
    body: serde_json::Value,
) -> Reply {
    let mut request = axum::http::Request::post(format!("/v1/players/{player}/adjustments"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"));
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    gw.send(request.body(axum::body::Body::from(body.to_string())).unwrap()).await
}

#[tokio::test]
async fn an_adjustment_moves_money_once_a_second_operator_approves_it() {
    let gw = TestGateway::new().await;
    let eve = gw.player("eve@example.com").await;
    gw.fund(&eve.token, 10_000).await;
    let olga = gw.staff("olga", Role::Operator).await;
    let oscar = gw.staff("oscar", Role::Operator).await;
    let audra = gw.staff("audra", Role::Auditor).await;
    let goodwill =
        json!({"direction": "credit", "amount_cents": 2_500, "reason": "goodwill: the draw screen froze"});

    // Refused as sent: no key, an auditor, no amount, no reason, no such player.
    let no_key = propose(&gw, &olga.token, &eve.subject, None, goodwill.clone()).await;
    assert_eq!((no_key.status, no_key.code()), (StatusCode::BAD_REQUEST, "missing_idempotency_key"));
    let by_auditor = propose(&gw, &audra.token, &eve.subject, Some("k1"), goodwill.clone()).await;
    assert_eq!(by_auditor.status, StatusCode::FORBIDDEN);
    let nothing = json!({"direction": "credit", "amount_cents": 0, "reason": "nothing"});
    let nothing = propose(&gw, &olga.token, &eve.subject, Some("k0"), nothing).await;
    assert_eq!((nothing.status, nothing.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_amount"));
    let no_reason = json!({"direction": "credit", "amount_cents": 100, "reason": " "});
    let no_reason = propose(&gw, &olga.token, &eve.subject, Some("k0"), no_reason).await;
    assert_eq!((no_reason.status, no_reason.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_reason"));
    let nobody = propose(&gw, &olga.token, &new_id(), Some("k0"), goodwill.clone()).await;
    assert_eq!((nobody.status, nobody.code()), (StatusCode::NOT_FOUND, "player_not_found"));

    // Proposed once per key; the same key for something else is a conflict.
    let proposed = propose(&gw, &olga.token, &eve.subject, Some("k1"), goodwill.clone()).await;
    assert_eq!(proposed.status, StatusCode::CREATED, "{}", proposed.body);
    assert_eq!(
        (proposed.body["state"].as_str(), proposed.body["proposed_by_name"].as_str()),
        (Some("proposed"), Some("olga"))
    );
    let id = proposed.body["id"].as_str().unwrap().to_owned();
    let replay = propose(&gw, &olga.token, &eve.subject, Some("k1"), goodwill.clone()).await;
    assert_eq!((replay.status, replay.body["id"].as_str()), (StatusCode::OK, Some(id.as_str())));
    let other =
        json!({"direction": "credit", "amount_cents": 9_999, "reason": "goodwill: the draw screen froze"});
    let other = propose(&gw, &olga.token, &eve.subject, Some("k1"), other).await;
    assert_eq!((other.status, other.code()), (StatusCode::CONFLICT, "idempotency_conflict"));
    assert_eq!(balance(&gw, &eve).await, 10_000, "nothing moves on a proposal");

    // The queue, read by an auditor too.
    let queue = gw.call("GET", "/v1/adjustments?state=proposed", Some(&audra.token), None).await;
    assert_eq!(queue.status, StatusCode::OK, "{}", queue.body);
    assert_eq!(queue.body["items"].as_array().unwrap().len(), 1, "{}", queue.body);
    let bad_state = gw.call("GET", "/v1/adjustments?state=maybe", Some(&audra.token), None).await;
    assert_eq!((bad_state.status, bad_state.code()), (StatusCode::BAD_REQUEST, "invalid_query"));

    // Not by the one who proposed it, nor by an auditor; once by another operator.
    let approval = format!("/v1/adjustments/{id}/approval");
    let own = gw.call("POST", &approval, Some(&olga.token), None).await;
    assert_eq!((own.status, own.code()), (StatusCode::CONFLICT, "second_operator_required"));
    let audited = gw.call("POST", &approval, Some(&audra.token), None).await;
    assert_eq!(audited.status, StatusCode::FORBIDDEN);
    assert_eq!(balance(&gw, &eve).await, 10_000);
    let approved = gw.call("POST", &approval, Some(&oscar.token), None).await;
    assert_eq!(approved.status, StatusCode::OK, "{}", approved.body);
    assert_eq!(
        (approved.body["state"].as_str(), approved.body["decided_by_name"].as_str()),
        (Some("approved"), Some("oscar"))
    );
    assert_eq!(balance(&gw, &eve).await, 12_500);
    let again = gw.call("POST", &approval, Some(&oscar.token), None).await;
    assert_eq!((again.status, again.body["state"].as_str()), (StatusCode::OK, Some("approved")));
    assert_eq!(balance(&gw, &eve).await, 12_500, "approved twice, moved once");
    let late_reject = gw
        .call(
            "POST",
            &format!("/v1/adjustments/{id}/rejection"),
            Some(&olga.token),
            Some(json!({"reason": "no"})),
        )
        .await;
    assert_eq!((late_reject.status, late_reject.code()), (StatusCode::CONFLICT, "adjustment_decided"));
    let entries = gw.call("GET", "/v1/me/wallet/entries", Some(&eve.token), None).await;
    let line = &entries.body["items"][0];
    assert_eq!(
        (line["metadata"]["money"].as_str(), line["metadata"]["adjustment"].as_str()),
        (Some("adjustment"), Some(id.as_str())),
        "{line}"
    );

    // A correction the wallet does not cover is refused and waits again; then rejected.
    let too_much =
        json!({"direction": "debit", "amount_cents": 1_000_000, "reason": "correction: a prize paid twice"});
    let debit = propose(&gw, &oscar.token, &eve.subject, Some("k2"), too_much).await;
    assert_eq!(debit.status, StatusCode::CREATED, "{}", debit.body);
    let debit_id = debit.body["id"].as_str().unwrap().to_owned();
    let uncovered =
        gw.call("POST", &format!("/v1/adjustments/{debit_id}/approval"), Some(&olga.token), None).await;
    assert_eq!(
        (uncovered.status, uncovered.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_funds")
    );
    let waiting = gw.call("GET", &format!("/v1/adjustments/{debit_id}"), Some(&olga.token), None).await;
    assert_eq!(
        (waiting.body["state"].as_str(), waiting.body["decided_by"].as_str()),
        (Some("proposed"), None)
    );
    let rejection = format!("/v1/adjustments/{debit_id}/rejection");
    let no_why = gw.call("POST", &rejection, Some(&olga.token), Some(json!({"reason": ""}))).await;
    assert_eq!((no_why.status, no_why.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_reason"));
    let rejected =
        gw.call("POST", &rejection, Some(&olga.token), Some(json!({"reason": "paid once after all"}))).await;
    assert_eq!(
        (rejected.status, rejected.body["state"].as_str()),
        (StatusCode::OK, Some("rejected")),
        "{}",
        rejected.body
    );
    let after =
        gw.call("POST", &format!("/v1/adjustments/{debit_id}/approval"), Some(&olga.token), None).await;
    assert_eq!((after.status, after.code()), (StatusCode::CONFLICT, "adjustment_decided"));
    let missing =
        gw.call("POST", &format!("/v1/adjustments/{}/approval", new_id()), Some(&olga.token), None).await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "adjustment_not_found"));

    // An approval whose process died before the money moved is finished by recovery, once.
    let small =
        json!({"direction": "debit", "amount_cents": 500, "reason": "correction: a duplicate credit"});
    let small = propose(&gw, &olga.token, &eve.subject, Some("k3"), small).await;
    let small_id = small.body["id"].as_str().unwrap().to_owned();
    sqlx::query(
        "UPDATE balance_adjustments SET state = 'approving', decided_by = $2, decided_at = now() - interval '1 minute'
          WHERE id = $1::uuid",
    )
    .bind(&small_id)
    .bind(&oscar.subject)
    .execute(&gw.state.pool)
    .await
    .unwrap();
    assert_eq!(gw.state.finish_approved_adjustments(std::time::Duration::from_secs(10)).await.unwrap(), 1);
    assert_eq!(gw.state.finish_approved_adjustments(std::time::Duration::from_secs(10)).await.unwrap(), 0);
    assert_eq!(balance(&gw, &eve).await, 12_000);

    // Every decision is a staff action with who and why.
    let actions: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT staff_id, action, reason FROM staff_actions WHERE action LIKE 'adjustment.%' ORDER BY id",
    )
    .fetch_all(&gw.state.pool)
    .await
    .unwrap();
    let kinds: Vec<&str> = actions.iter().map(|(_, a, _)| a.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "adjustment.propose",
            "adjustment.approve",
            "adjustment.propose",
            "adjustment.approve",
            "adjustment.refused",
            "adjustment.reject",
            "adjustment.propose"
        ]
    );
    assert_eq!(
        (actions[1].0.as_str(), actions[5].2.as_str()),
        (oscar.subject.as_str(), "paid once after all")
    );
    assert_eq!(actions[4].2, "the ledger refused it: insufficient_funds");
    gw.assert_ledger_balanced().await;
}
