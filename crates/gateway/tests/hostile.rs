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
    let run = gw
        .call("POST", "/v1/instant/games/283/print-runs", Some(&operator.token), Some(serde_json::json!({})))
        .await;
    assert_eq!(run.status.as_u16(), 201, "{}", run.body);
    let shop = gw
        .call("POST", "/v1/retailers", Some(&operator.token), Some(serde_json::json!({"name": "Corner"})))
        .await;
    let shop = shop.body["id"].as_str().unwrap().to_owned();
    let assign = |retailer: String| {
        gw.call(
            "POST",
            "/v1/instant/packs/283/0/assign",
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
