//! Powerball as the draw-games service publishes it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::http::StatusCode;

#[tokio::test]
async fn the_math_is_public_and_exact() {
    let game = common::Game::new().await;
    let math = game.get("/v1/powerball/math", None).await;
    assert_eq!(math.status, StatusCode::OK, "{}", math.body);
    assert_eq!(math.body["outcomes"], 292_201_338u64);
    let grand = &math.body["tiers"][0];
    assert_eq!((grand["tier"].as_str(), grand["prize_cents"].is_null()), (Some("grand_prize"), true));
    assert_eq!(grand["probability"]["numerator"], 1);
    assert_eq!(grand["probability"]["denominator"], 292_201_338u64);
    assert_eq!(math.body["break_even_grand_prize_cents"]["numerator"], 49_093_662_800u64);
    let drums: Vec<&str> =
        math.body["power_play"].as_array().unwrap().iter().map(|d| d["balls"].as_str().unwrap()).collect();
    assert_eq!(drums, ["with_ten_x", "without_ten_x"]);
    assert_eq!(math.body["power_play"][0]["expected_multiplier"]["numerator"], 119);
}
