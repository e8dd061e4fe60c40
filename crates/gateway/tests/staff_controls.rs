//! What staff may override, and how it is recorded (issue 49 §Staff): five failed deposits in
//! 10 minutes stop a player's deposits until an operator clears it, with a reason.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;
use common::{TestGateway, new_id};
use platform::auth::Role;
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
