//! Hostile requests through the gateway, the way the outside attack run sent them (issue 11):
//! each defect it found, as a test that failed before its fix.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

/// A pack can be assigned only to a retailer that exists (issue 11, defect 7): any other id, of
/// any length, is refused before the pack moves, and the pack can still go to a real one.
#[tokio::test]
async fn a_pack_goes_only_to_a_retailer_that_exists() {
    let gw = common::TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    gw.print_run(&operator.token, 283).await;
    let shop = gw
        .call("POST", "/v1/retailers", Some(&operator.token), Some(serde_json::json!({"name": "Corner"})))
        .await;
    let shop = shop.body["id"].as_str().unwrap().to_owned();
    let assign = |retailer: String| {
        gw.call(
            "POST",
            "/v1/instant/packs/283/0/ship",
            Some(&operator.token),
            Some(serde_json::json!({"retailer_id": retailer})),
        )
    };
    for junk in [uuid::Uuid::now_v7().to_string(), "shop-that-never-was".to_owned(), "x".repeat(100_000)] {
        let refused = assign(junk).await;
        assert_eq!(
            (refused.status.as_u16(), refused.code()),
            (422, "retailer_not_found"),
            "{}",
            refused.body
        );
    }
    let assigned = assign(shop.clone()).await;
    assert_eq!((assigned.status.as_u16(), assigned.body["retailer_id"].as_str()), (200, Some(shop.as_str())));
}

/// Weak passwords, impossible birth dates, and a race of registrations for one email
/// (issue 11, defect 11): refused, and never a wallet without its player.
#[tokio::test]
async fn registration_refuses_weak_passwords_impossible_births_and_races_to_one_wallet() {
    let gw = common::TestGateway::new().await;
    let register = |email: &str, password: &str, dob: &str| {
        gw.call(
            "POST",
            "/v1/players",
            None,
            Some(serde_json::json!({"email": email, "password": password, "date_of_birth": dob})),
        )
    };
    for password in ["1234567890", "          ", "eve@example.com", "Eve@Example.com2024"] {
        let refused = register("eve@example.com", password, "1990-01-01").await;
        assert_eq!((refused.status.as_u16(), refused.code()), (422, "weak_password"), "{password:?}");
    }
    for dob in ["0000-01-01", "1800-01-01", "2999-01-01"] {
        let refused = register("eve@example.com", common::PASSWORD, dob).await;
        assert_eq!((refused.status.as_u16(), refused.code()), (422, "invalid_date_of_birth"), "{dob}");
    }

    let mut tasks = Vec::new();
    for _ in 0..20 {
        let request = axum::http::Request::post("/v1/players")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(
                serde_json::json!({"email": "race@example.com", "password": common::PASSWORD, "date_of_birth": "1990-01-01"})
                    .to_string(),
            ))
            .unwrap();
        let router = gw.router.clone();
        tasks.push(tokio::spawn(async move { platform::testing::send(&router, request).await }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap().status.as_u16());
    }
    // Every one answered alike; one player and one wallet made.
    assert!(statuses.iter().all(|s| *s == 202), "{statuses:?}");
    let wallets: i64 = sqlx::query_scalar("SELECT count(*) FROM accounts WHERE kind = 'player_wallet'")
        .fetch_one(&gw.ledger_pool)
        .await
        .unwrap();
    let players: i64 =
        sqlx::query_scalar("SELECT count(*) FROM players").fetch_one(&gw.state.pool).await.unwrap();
    assert_eq!((wallets, players), (1, 1), "one player, one wallet");
}

/// The role is checked before the body is read (issue 11, defect 12): a caller who may not use a
/// route gets 403 whatever it sends, not a 4xx about the body.
#[tokio::test]
async fn a_wrong_role_gets_403_whatever_the_body() {
    let gw = common::TestGateway::new().await;
    let operator = gw.staff("olga", platform::auth::Role::Operator).await;
    let auditor = gw.staff("audrey", platform::auth::Role::Auditor).await;
    for body in ["{", "[1,2]", "{\"period\": 7}", "{\"kind\": \"\\u0000\"}"] {
        for (who, token, path) in [
            ("operator", &operator.token, "/v1/me/self-exclusion"),
            ("operator", &operator.token, "/v1/me/deposits"),
            ("auditor", &auditor.token, "/v1/accounts"),
            ("auditor", &auditor.token, "/v1/transfers"),
        ] {
            let request = axum::http::Request::post(path)
                .header("content-type", "application/json")
                .header("authorization", format!("Bearer {token}"))
                .header("idempotency-key", "k")
                .body(axum::body::Body::from(body))
                .unwrap();
            let reply = gw.send(request).await;
            assert_eq!(
                (reply.status.as_u16(), reply.code()),
                (403, "forbidden"),
                "{who} {path} {body}: {}",
                reply.body
            );
        }
    }
}
