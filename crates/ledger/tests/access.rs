//! The ledger verifies every caller itself: no token, a forged or expired one, or a role that may
//! not do a thing is refused, whoever forwarded the request.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestApp, transfer};
use platform::auth::{Role, TokenKeys};
use serde_json::json;

fn with_token(request: axum::http::request::Builder, token: &str) -> axum::http::request::Builder {
    request.header("authorization", format!("Bearer {token}"))
}

async fn status_of(
    app: &TestApp,
    method: &str,
    path: &str,
    token: &str,
    body: Option<serde_json::Value>,
) -> (StatusCode, String) {
    let builder = with_token(Request::builder().method(method).uri(path), token)
        .header("content-type", "application/json");
    let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
    let reply = app.send(builder.body(body).unwrap()).await;
    (reply.status, reply.code().to_owned())
}

#[tokio::test]
async fn requests_without_a_valid_token_are_unauthenticated() {
    let app = TestApp::new().await;
    let wallet = app.funded_wallet("p1", 100).await;
    let path = format!("/v1/accounts/{wallet}");

    let bare = Request::get(&path).header("authorization", "").body(Body::empty()).unwrap();
    let reply = app.send(bare).await;
    assert_eq!((reply.status, reply.code()), (StatusCode::UNAUTHORIZED, "unauthenticated"));
    assert_eq!(reply.headers["www-authenticate"], "Bearer");

    let foreign = TokenKeys::random().service_token("impostor").unwrap();
    assert_eq!(
        status_of(&app, "GET", &path, &foreign, None).await,
        (StatusCode::UNAUTHORIZED, "invalid_token".into())
    );
    assert_eq!(
        status_of(&app, "GET", &path, "garbage", None).await,
        (StatusCode::UNAUTHORIZED, "invalid_token".into())
    );
    // Health and metrics stay open for probes.
    let probe =
        app.send(Request::get("/healthz").header("authorization", "").body(Body::empty()).unwrap()).await;
    assert_eq!(probe.status, StatusCode::OK);
}

#[tokio::test]
async fn each_role_may_do_only_its_part() {
    let app = TestApp::new().await;
    let mine = app.funded_wallet("player-1", 1_000).await;
    let theirs = app.funded_wallet("player-2", 1_000).await;
    let player = app.token("player-1", Role::Player);
    let auditor = app.token("audit-1", Role::Auditor);
    let operator = app.token("ops-1", Role::Operator);
    let retailer = app.token("term-1", Role::Retailer);

    // A player reads their own wallet and history, and nothing of anyone else's.
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{mine}"), &player, None).await.0,
        StatusCode::OK
    );
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{mine}/transfers"), &player, None).await.0,
        StatusCode::OK
    );
    assert_eq!(status_of(&app, "GET", "/v1/accounts?owner=player-1", &player, None).await.0, StatusCode::OK);
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{theirs}"), &player, None).await,
        (StatusCode::NOT_FOUND, "account_not_found".into())
    );
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{theirs}/transfers"), &player, None).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        status_of(&app, "GET", "/v1/accounts?owner=player-2", &player, None).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        status_of(&app, "GET", "/v1/reports/trial-balance", &player, None).await.0,
        StatusCode::FORBIDDEN
    );
    let steal = transfer(theirs, mine, 500);
    assert_eq!(
        status_of(&app, "POST", "/v1/transfers", &player, Some(steal.clone())).await.0,
        StatusCode::FORBIDDEN
    );

    // An auditor reads everything and writes nothing.
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{theirs}"), &auditor, None).await.0,
        StatusCode::OK
    );
    assert_eq!(status_of(&app, "GET", "/v1/reports/trial-balance", &auditor, None).await.0, StatusCode::OK);
    assert_eq!(
        status_of(&app, "POST", "/v1/transfers", &auditor, Some(steal.clone())).await.0,
        StatusCode::FORBIDDEN
    );
    let deposit = json!({"id": uuid::Uuid::now_v7(), "account_id": mine, "amount": 5, "currency": "USD"});
    assert_eq!(
        status_of(&app, "POST", "/v1/deposits", &auditor, Some(deposit.clone())).await.0,
        StatusCode::FORBIDDEN
    );

    // A retailer terminal has nothing to do at the ledger.
    assert_eq!(
        status_of(&app, "GET", &format!("/v1/accounts/{mine}"), &retailer, None).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        status_of(&app, "POST", "/v1/deposits", &retailer, Some(deposit.clone())).await.0,
        StatusCode::FORBIDDEN
    );

    // An operator may move money.
    assert_eq!(
        status_of(&app, "POST", "/v1/deposits", &operator, Some(deposit)).await.0,
        StatusCode::CREATED
    );
    assert_eq!((app.posted(mine).await, app.posted(theirs).await), (1_005, 1_000));
    app.assert_ledger_consistent().await;
}
