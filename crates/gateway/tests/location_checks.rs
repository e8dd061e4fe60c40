//! Where the player is (issue 49 §Location): an online stake needs a check of its login, from
//! the address its requests come from, that placed the device in the jurisdiction, not older
//! than 20 minutes; every check kept; tills not checked.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use common::{Login, TestGateway, new_id, play};
use platform::auth::Role;
use platform::testing::Reply;
use serde_json::{Value, json};

fn keno() -> Value {
    json!({"option": "bet", "spots": [7], "tickets": 1})
}

/// A request from client address `from` (as the server's socket gives it); `None`: in-process.
async fn from(gw: &TestGateway, from: Option<&str>, token: &str, path: &str, body: Value) -> Reply {
    let mut request = Request::post(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .header("idempotency-key", new_id());
    if let Some(address) = from {
        let address: SocketAddr = format!("{address}:40000").parse().unwrap();
        request = request.extension(ConnectInfo(address));
    }
    gw.send(request.body(Body::from(body.to_string())).unwrap()).await
}

async fn check(gw: &TestGateway, player: &Login, address: Option<&str>, packet: &str) -> Value {
    let checked = from(gw, address, &player.token, "/v1/me/location-checks", json!({"packet": packet})).await;
    assert_eq!(checked.status, StatusCode::CREATED, "{}", checked.body);
    checked.body
}

fn refused(reply: &Reply, code: &str) {
    assert_eq!((reply.status, reply.code()), (StatusCode::FORBIDDEN, code), "{}", reply.body);
}

#[tokio::test]
async fn an_online_stake_needs_a_fresh_check_of_its_login_from_its_address_in_the_jurisdiction() {
    let gw = TestGateway::requiring_location().await;
    let ann = gw.player("ann@example.com").await;
    gw.fund(&ann.token, 10_000).await;
    let before = common::balance(&gw, &ann).await;

    // No check yet: refused, saying what to do; nothing to show.
    let none = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    refused(&none, "location_required");
    assert!(none.body["detail"].as_str().unwrap().contains("location check"), "{}", none.body);
    let mine = gw.call("GET", "/v1/me/location", Some(&ann.token), None).await;
    assert_eq!((mine.status, mine.code()), (StatusCode::NOT_FOUND, "location_not_checked"));

    // Outside the state, or hidden behind a VPN: refused with the provider's words.
    let outside = check(&gw, &ann, None, "sandbox_outside").await;
    assert_eq!(
        (outside["result"].as_str(), outside["jurisdiction"].as_str()),
        (Some("outside"), Some("US-KS"))
    );
    let stake = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    refused(&stake, "location_outside");
    assert!(stake.body["detail"].as_str().unwrap().contains("outside US-KS"), "{}", stake.body);
    assert_eq!(check(&gw, &ann, None, "sandbox_blocked").await["result"], "blocked");
    let stake = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    refused(&stake, "location_outside");
    assert!(stake.body["detail"].as_str().unwrap().contains("VPN"), "{}", stake.body);
    assert_eq!(common::balance(&gw, &ann).await, before, "no refused stake moved money");

    // In the state: the stake passes, for this login, until the check is 20 minutes old.
    let inside = check(&gw, &ann, None, "sandbox_inside").await;
    assert_eq!(inside["result"], "inside");
    let mine = gw.call("GET", "/v1/me/location", Some(&ann.token), None).await;
    assert_eq!(mine.body["id"], inside["id"], "{}", mine.body);
    let stake = play(&gw, &ann, "/v1/keno/tickets", keno()).await;
    assert_eq!(stake.status, StatusCode::CREATED, "{}", stake.body);

    // Another address (a new network) needs a check of its own; a check from it counts only there.
    let moved = from(&gw, Some("203.0.113.7"), &ann.token, "/v1/keno/tickets", keno()).await;
    refused(&moved, "location_required");
    assert!(moved.body["detail"].as_str().unwrap().contains("network address changed"), "{}", moved.body);
    assert_eq!(check(&gw, &ann, Some("203.0.113.7"), "sandbox_inside").await["ip"], "203.0.113.7");
    let there = from(&gw, Some("203.0.113.7"), &ann.token, "/v1/keno/tickets", keno()).await;
    assert_eq!(there.status, StatusCode::CREATED, "{}", there.body);
    refused(&play(&gw, &ann, "/v1/keno/tickets", keno()).await, "location_required");

    // Another login of hers is not located by this one's check.
    let other = gw.login(json!({"email": "ann@example.com", "password": common::PASSWORD})).await;
    let other = Login {
        token: other.body["access_token"].as_str().unwrap().to_owned(),
        subject: ann.subject.clone(),
    };
    refused(&play(&gw, &other, "/v1/keno/tickets", keno()).await, "location_required");

    // A check 21 minutes old no longer stands.
    check(&gw, &other, None, "sandbox_inside").await;
    sqlx::query("UPDATE location_checks SET checked_at = checked_at - interval '21 minutes'")
        .execute(&gw.state.pool)
        .await
        .unwrap();
    let late = play(&gw, &other, "/v1/keno/tickets", keno()).await;
    refused(&late, "location_expired");
    assert!(late.body["detail"].as_str().unwrap().contains("20 minutes"), "{}", late.body);

    // Every check is kept with its result, for staff to read.
    let auditor = gw.staff("audrey", Role::Auditor).await;
    let kept = gw
        .call("GET", &format!("/v1/players/{}/location-checks", ann.subject), Some(&auditor.token), None)
        .await;
    assert_eq!(kept.status, StatusCode::OK, "{}", kept.body);
    let results: Vec<&str> =
        kept.body.as_array().unwrap().iter().map(|c| c["result"].as_str().unwrap()).collect();
    assert_eq!(results, ["inside", "inside", "inside", "blocked", "outside"]);
    gw.assert_ledger_balanced().await;
}

#[tokio::test]
async fn a_bad_packet_or_a_staff_token_is_refused_and_a_till_is_not_checked() {
    let gw = TestGateway::requiring_location().await;
    let bob = gw.player("bob@example.com").await;
    for packet in [json!(""), json!("two words"), json!("x".repeat(4097)), json!(7)] {
        let bad = gw
            .call("POST", "/v1/me/location-checks", Some(&bob.token), Some(json!({"packet": packet})))
            .await;
        assert!(bad.status.is_client_error(), "{packet}: {}", bad.body);
        assert_ne!(bad.status, StatusCode::CREATED);
    }
    let odd =
        gw.call("POST", "/v1/me/location-checks", Some(&bob.token), Some(json!({"packet": "a b"}))).await;
    assert_eq!((odd.status, odd.code()), (StatusCode::UNPROCESSABLE_ENTITY, "invalid_location_packet"));
    let operator = gw.staff("olive", Role::Operator).await;
    let staff = gw
        .call(
            "POST",
            "/v1/me/location-checks",
            Some(&operator.token),
            Some(json!({"packet": "sandbox_inside"})),
        )
        .await;
    assert_eq!(staff.status, StatusCode::FORBIDDEN, "{}", staff.body);
    let kept = sqlx::query_scalar::<_, i64>("SELECT count(*) FROM location_checks")
        .fetch_one(&gw.state.pool)
        .await
        .unwrap();
    assert_eq!(kept, 0, "no refused check was kept");

    // The till is the location: a retailer's sale asks for no check.
    let (till, _) = gw.terminal(&operator).await;
    let slip = json!({"quick_picks": 1, "power_play": false});
    let sale = from(&gw, None, &till.token, "/v1/powerball/retail/tickets", slip).await;
    assert_eq!(sale.status, StatusCode::CREATED, "{}", sale.body);
}
