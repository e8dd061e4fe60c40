//! Sessions renewed by rotating refresh tokens, ended by reuse, logout and idleness (issue 32 §2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use axum::http::StatusCode;
use common::{PASSWORD, TestGateway};
use platform::auth::Role;
use platform::http::Limits;
use serde_json::{Value, json};

async fn renew(gw: &TestGateway, refresh_token: &Value) -> platform::testing::Reply {
    gw.call("POST", "/v1/sessions/refresh", None, Some(json!({"refresh_token": refresh_token}))).await
}

/// The same gateway and database with sessions ending after `idle` without a request.
fn with_idle_timeout(gw: &TestGateway, idle: Duration) -> TestGateway {
    let mut state = gw.state.clone();
    state.sessions.idle_timeout = idle;
    TestGateway {
        router: gateway::router(state.clone(), Limits::default()),
        state,
        ledger_pool: gw.ledger_pool.clone(),
        tokens: gw.tokens.clone(),
        url: gw.url.clone(),
        sandbox: gw.sandbox.clone(),
        enrolments: gw.enrolments.clone(),
    }
}

#[tokio::test]
async fn a_refresh_token_renews_once_and_its_second_use_ends_the_whole_session() {
    let gw = TestGateway::new().await;
    gw.register("rita@example.com").await;
    let login = gw.login(json!({"email": "rita@example.com", "password": PASSWORD})).await;
    assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
    assert!(login.body["refresh_token"].as_str().unwrap().starts_with("rt_"));
    assert_eq!(login.body["idle_timeout_seconds"], 900);
    assert!(login.body["session_expires_at"].is_string());
    let stored: Vec<u8> = sqlx::query_scalar("SELECT token_hash FROM gateway.refresh_tokens")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(stored.len(), 32, "only the token's SHA-256 is stored");
    assert_ne!(stored, login.body["refresh_token"].as_str().unwrap().as_bytes());

    // Renewed: a new access token of the same session, and the next refresh token.
    let renewed = renew(&gw, &login.body["refresh_token"]).await;
    assert_eq!(renewed.status, StatusCode::CREATED, "{}", renewed.body);
    assert_eq!(renewed.headers["cache-control"], "no-store");
    assert_ne!(renewed.body["refresh_token"], login.body["refresh_token"]);
    let new_access = renewed.body["access_token"].as_str().unwrap().to_owned();
    let (before, after) = (
        gw.tokens.verify(login.body["access_token"].as_str().unwrap()).unwrap(),
        gw.tokens.verify(&new_access).unwrap(),
    );
    assert_eq!((before.sid, before.sub.clone(), after.role), (after.sid, after.sub, Role::Player));
    assert_eq!(gw.call("GET", "/v1/me", Some(&new_access), None).await.status, StatusCode::OK);

    // The first refresh token again (a thief's copy, or the owner's after a thief's): the
    // session ends, every token of it with it, the next refresh token too.
    let reused = renew(&gw, &login.body["refresh_token"]).await;
    assert_eq!((reused.status, reused.code()), (StatusCode::UNAUTHORIZED, "refresh_token_reused"));
    let me = gw.call("GET", "/v1/me", Some(&new_access), None).await;
    assert_eq!((me.status, me.code()), (StatusCode::UNAUTHORIZED, "session_ended"));
    let next = renew(&gw, &renewed.body["refresh_token"]).await;
    assert_eq!((next.status, next.code()), (StatusCode::UNAUTHORIZED, "session_ended"));
    let reason: String = sqlx::query_scalar("SELECT end_reason FROM gateway.sessions")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(reason, "refresh_token_reused");

    // Tokens never issued, and bad bodies.
    let unknown = renew(&gw, &json!("rt_0123")).await;
    assert_eq!((unknown.status, unknown.code()), (StatusCode::UNAUTHORIZED, "invalid_refresh_token"));
    let long = renew(&gw, &json!("x".repeat(300))).await;
    assert_eq!(long.status.as_u16() / 100, 4, "{}", long.body);
    let bad = gw.call("POST", "/v1/sessions/refresh", None, Some(json!({"token": "x"}))).await;
    assert_eq!((bad.status, bad.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_body"));
}

#[tokio::test]
async fn concurrent_renewals_with_one_token_renew_once_and_end_the_session() {
    let gw = TestGateway::new().await;
    gw.register("sam@example.com").await;
    let login = gw.login(json!({"email": "sam@example.com", "password": PASSWORD})).await;
    let token = login.body["refresh_token"].clone();
    let answers = futures_util::future::join_all((0..8).map(|_| renew(&gw, &token))).await;
    let renewed = answers.iter().filter(|a| a.status == StatusCode::CREATED).count();
    let reused = answers.iter().filter(|a| a.code() == "refresh_token_reused").count();
    assert_eq!((renewed, reused), (1, 7), "{:?}", answers.iter().map(|a| a.code()).collect::<Vec<_>>());
}

#[tokio::test]
async fn logout_ends_the_refresh_token_and_a_terminal_is_not_idle_limited() {
    let gw = TestGateway::new().await;
    gw.register("tom@example.com").await;
    let login = gw.login(json!({"email": "tom@example.com", "password": PASSWORD})).await;
    let access = login.body["access_token"].as_str().unwrap();
    assert_eq!(
        gw.call("DELETE", "/v1/sessions/current", Some(access), None).await.status,
        StatusCode::NO_CONTENT
    );
    let after = renew(&gw, &login.body["refresh_token"]).await;
    assert_eq!((after.status, after.code()), (StatusCode::UNAUTHORIZED, "session_ended"));

    let operator = gw.staff("olga", Role::Operator).await;
    let (_, key) = gw.terminal(&operator).await;
    let till = gw.login(json!({"api_key": key})).await;
    assert_eq!(till.body["idle_timeout_seconds"], Value::Null, "{}", till.body);
    let renewed = renew(&gw, &till.body["refresh_token"]).await;
    assert_eq!(renewed.status, StatusCode::CREATED, "{}", renewed.body);
    // The renewed token still names the terminal's retailer.
    let (first, second) = (
        gw.tokens.verify(till.body["access_token"].as_str().unwrap()).unwrap(),
        gw.tokens.verify(renewed.body["access_token"].as_str().unwrap()).unwrap(),
    );
    assert!(first.org.is_some());
    assert_eq!(first.org, second.org);
    // Both name the shop and the till, and the login says so for the till's header (issue 32 §7).
    let place = platform::auth::Place {
        shop: "Corner Store".to_owned(),
        address: Some("12 Main St, Topeka KS".to_owned()),
        terminal: "till 1".to_owned(),
    };
    assert_eq!((first.place.as_ref(), second.place.as_ref()), (Some(&place), Some(&place)));
    assert_eq!(
        till.body["place"],
        json!({"shop": "Corner Store", "address": "12 Main St, Topeka KS", "terminal": "till 1"})
    );
    assert_eq!(renewed.body["place"], till.body["place"]);
    // A player's has none; an address out of bounds is refused.
    assert_eq!(login.body["place"], Value::Null);
    let bad = gw
        .call("POST", "/v1/retailers", Some(&operator.token), Some(json!({"name": "X", "address": " "})))
        .await;
    assert_eq!((bad.status, bad.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_address"));
    // The shop renamed and moved: the till's next renewal names it so; a null takes the address away.
    let shop = first.org.clone().unwrap();
    let path = format!("/v1/retailers/{shop}");
    let moved = gw
        .call(
            "PATCH",
            &path,
            Some(&operator.token),
            Some(json!({"name": "Corner Market", "address": "9 Elm St"})),
        )
        .await;
    assert_eq!(
        (moved.status, moved.body["name"].as_str()),
        (StatusCode::OK, Some("Corner Market")),
        "{}",
        moved.body
    );
    let after = renew(&gw, &renewed.body["refresh_token"]).await;
    assert_eq!(
        after.body["place"],
        json!({"shop": "Corner Market", "address": "9 Elm St", "terminal": "till 1"})
    );
    let cleared = gw.call("PATCH", &path, Some(&operator.token), Some(json!({"address": null}))).await;
    assert_eq!(
        (cleared.body["name"].as_str(), &cleared.body["address"]),
        (Some("Corner Market"), &Value::Null)
    );
    let nowhere = gw
        .call(
            "PATCH",
            &format!("/v1/retailers/{}", uuid::Uuid::now_v7()),
            Some(&operator.token),
            Some(json!({"name": "Y"})),
        )
        .await;
    assert_eq!(nowhere.code(), "retailer_not_found");
    let empty = gw.call("PATCH", &path, Some(&operator.token), Some(json!({"name": ""}))).await;
    assert_eq!(empty.code(), "invalid_name");
}

#[tokio::test]
async fn an_idle_session_ends_while_one_in_use_renews_and_renewing_is_not_use() {
    let gw = TestGateway::new().await;
    let gw = with_idle_timeout(&gw, Duration::from_secs(3));
    gw.register("uma@example.com").await;
    gw.register("vic@example.com").await;
    let idle = gw.login(json!({"email": "uma@example.com", "password": PASSWORD})).await;
    let busy = gw.login(json!({"email": "vic@example.com", "password": PASSWORD})).await;
    // An access token never outlives the idle window.
    assert!(idle.body["expires_in"].as_u64().unwrap() <= 3, "{}", idle.body);

    // One player makes a request every second (the renewals in between, as the page makes
    // them); the other only renews.
    let mut busy_access = busy.body["access_token"].as_str().unwrap().to_owned();
    let (mut busy_refresh, mut idle_refresh) =
        (busy.body["refresh_token"].clone(), idle.body["refresh_token"].clone());
    let mut idle_ended = None;
    for second in 0..5 {
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        let me = gw.call("GET", "/v1/me", Some(&busy_access), None).await;
        assert_eq!(me.status, StatusCode::OK, "second {second}: {}", me.body);
        let renewed = renew(&gw, &busy_refresh).await;
        assert_eq!(renewed.status, StatusCode::CREATED, "second {second}: {}", renewed.body);
        busy_access = renewed.body["access_token"].as_str().unwrap().to_owned();
        busy_refresh = renewed.body["refresh_token"].clone();
        if idle_ended.is_none() {
            let kept_alive = renew(&gw, &idle_refresh).await;
            if kept_alive.status == StatusCode::CREATED {
                idle_refresh = kept_alive.body["refresh_token"].clone();
            } else {
                idle_ended = Some((second, kept_alive));
            }
        }
    }
    let (second, ended) = idle_ended.expect("renewing alone does not keep a session alive");
    assert!(second >= 2, "not before its idle timeout: second {second}");
    assert_eq!((ended.status, ended.code()), (StatusCode::UNAUTHORIZED, "session_idle"));
    assert!(ended.body["detail"].as_str().unwrap().contains("without activity"), "{}", ended.body);
    let reason: String =
        sqlx::query_scalar("SELECT end_reason FROM gateway.sessions WHERE ended_at IS NOT NULL")
            .fetch_one(&gw.state.pool)
            .await
            .unwrap();
    assert_eq!(reason, "idle");
}
