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
    // Which rules the seed's paragraphs give, and which the multi-state prize chart (issue 32 §6).
    let sources = math.body["sources"].as_array().unwrap();
    let from = |words: &str| {
        sources.iter().find(|s| s["rule"].as_str().unwrap().contains(words)).unwrap()["source"]
            .as_str()
            .unwrap()
    };
    assert_eq!(from("69"), "kansas_regulations");
    assert_eq!(from("$2; Power Play"), "kansas_regulations");
    for chart in ["nine prize tiers", "drum", "$150 million", "$2,000,000"] {
        assert_eq!(from(chart), "multi_state_prize_chart", "{chart}");
    }
    assert!(
        sources
            .iter()
            .filter(|s| s["source"] == "kansas_regulations")
            .all(|s| s["citation"].as_str().unwrap().starts_with("K.A.R. 111-5-"))
    );
}

/// The next drawing follows the clock through a draw day in central time; an operator sets a
/// drawing's grand prize until its sales close; the drum follows the grand prize.
#[tokio::test]
async fn the_next_drawing_and_its_grand_prize_follow_the_clock() {
    use chrono::{DateTime, Utc};
    use platform::auth::Role;
    use platform::clock::Clock;
    use serde_json::json;

    let mut game = common::Game::new().await;
    let at = |text: &str| text.parse::<DateTime<Utc>>().unwrap();
    // Monday March 9, 2026, 8:00 p.m. CDT, the day after the change to daylight time.
    game.state.clock = Clock::manual(at("2026-03-10T01:00:00Z"));
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    let next = game.get("/v1/powerball/draws/next", None).await;
    assert_eq!(next.status, StatusCode::OK, "{}", next.body);
    assert_eq!(
        (next.body["draw_date"].as_str(), next.body["sales_open"].as_bool()),
        (Some("2026-03-09"), Some(true))
    );
    assert_eq!(next.body["draw_at"], "2026-03-10T02:58:00Z", "9:58 p.m. CDT");
    assert!(next.body["advertised_cents"].is_null());

    let operator = game.token("olga", Role::Operator);
    let set = |date: &str, advertised: i64, cash: i64| {
        let request = axum::http::Request::put(format!("/v1/powerball/draws/{date}/grand-prize"))
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {operator}"))
            .body(axum::body::Body::from(
                json!({"advertised_cents": advertised, "cash_value_cents": cash}).to_string(),
            ))
            .unwrap();
        platform::testing::send(&game.router, request)
    };
    let monday = set("2026-03-09", 15_000_000_000, 7_000_000_000).await;
    assert_eq!(monday.status, StatusCode::OK, "{}", monday.body);
    assert_eq!(monday.body["power_play_balls"], "with_ten_x", "$150 million exactly keeps the 10x");
    assert_eq!(set("2026-03-10", 1, 1).await.code(), "not_a_draw_day", "a Tuesday");
    assert_eq!(set("2026-03-11", 100, 101).await.code(), "invalid_grand_prize");
    assert_eq!(set("2026-03-11", 0, 0).await.code(), "invalid_grand_prize");
    let wednesday = set("2026-03-11", 15_000_000_100, 7_000_000_000).await;
    assert_eq!(wednesday.body["power_play_balls"], "without_ten_x");

    // 8:59 p.m.: sales closed until 9:05; the answer names Wednesday's drawing and the resume.
    game.state.clock.set(at("2026-03-10T01:59:00Z"));
    let closed = game.get("/v1/powerball/draws/next", None).await;
    assert_eq!(
        (closed.body["sales_open"].as_bool(), closed.body["resumes_at"].as_str()),
        (Some(false), Some("2026-03-10T02:05:00Z"))
    );
    assert_eq!(closed.body["draw_date"], "2026-03-11");
    assert_eq!(set("2026-03-09", 20_000_000_000, 9_000_000_000).await.code(), "sales_closed");
    let still = game.get("/v1/powerball/draws/next", None).await;
    assert_eq!(still.body["advertised_cents"], 15_000_000_100u64, "Wednesday's, as set");
    // 9:05 p.m.: open again, for Wednesday.
    game.state.clock.set(at("2026-03-10T02:05:00Z"));
    let open = game.get("/v1/powerball/draws/next", None).await;
    assert_eq!(
        (open.body["sales_open"].as_bool(), open.body["draw_date"].as_str()),
        (Some(true), Some("2026-03-11"))
    );
}
