//! A Powerball drawing's whole life under the scheduler, with the clock moved by hand: sales at
//! a terminal and online, the close that freezes and exports the wager set, results entered
//! under dual control (and drawn by the service), the set-based settlement, the independent
//! recount and certification, and the online prizes paid; refusals that move nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::{DateTime, NaiveDate, Utc};
use draw_games::certification;
use draw_games::saga::powerball::draws as powerball_draws;
use draw_games::saga::scheduler::DrawGame;
use platform::auth::Role;
use platform::clock::Clock;
use platform::testing::{Reply, send};
use serde_json::{Value, json};

/// One pass of the scheduler's leader over Powerball (Keno's draws, on the same clock, would
/// catch up every four minutes the tests jump over).
async fn pass(game: &common::Game) -> usize {
    DrawGame::Powerball.run_due(&game.state).await.unwrap()
}

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

/// A game whose clock reads `now`.
async fn game_at(now: &str) -> common::Game {
    let mut game = common::Game::new().await;
    game.state.clock = Clock::manual(at(now));
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    game
}

fn terminal(game: &common::Game, retailer: &str) -> String {
    game.tokens
        .issue_for(
            &format!("{retailer}-till-1"),
            Role::Retailer,
            None,
            Some(retailer),
            std::time::Duration::from_secs(600),
        )
        .unwrap()
}

async fn put(game: &common::Game, path: &str, token: &str, body: Value) -> Reply {
    let request = Request::put(path)
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(body.to_string()))
        .unwrap();
    send(&game.router, request).await
}

async fn enter(game: &common::Game, date: &str, operator: &str, results: Value) -> Reply {
    let token = game.token(operator, Role::Operator);
    game.post(&format!("/v1/powerball/draws/{date}/results"), &token, "-", results).await
}

/// The drawing's row as the public sees it.
async fn drawing(game: &common::Game, date: &str) -> Value {
    let reply = game.get(&format!("/v1/powerball/draws/{date}"), None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    reply.body
}

async fn audit_kinds(game: &common::Game) -> Vec<String> {
    sqlx::query_scalar("SELECT kind FROM audit_log ORDER BY seq").fetch_all(&game.state.pool).await.unwrap()
}

/// Recounts the drawing's export with `lotto verify-draw`'s own code (`certification`) and hands
/// it to the certification.
async fn verify(game: &common::Game, date: &str) -> certification::Verification {
    try_verify(game, date).await.unwrap()
}

/// The same, answering the certification's refusal.
async fn try_verify(
    game: &common::Game,
    date: &str,
) -> Result<certification::Verification, platform::AppError> {
    let date: NaiveDate = date.parse().unwrap();
    let drawing = certification::drawing(&game.state.pool, date, None).await?;
    let recount = certification::recount(&drawing).unwrap();
    certification::certify(&game.state.pool, &drawing, &recount, game.state.clock.now()).await
}

/// An operator advertises a $20,000,000 grand prize ($9,500,000 cash) for Monday, November 30,
/// 2026; returns the operator's token.
async fn advertise_twenty_million(game: &common::Game) -> String {
    let operator = game.token("olga", Role::Operator);
    let grand_prize = json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64});
    let set = put(game, "/v1/powerball/draws/2026-11-30/grand-prize", &operator, grand_prize).await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    operator
}

/// Two operators enter [`RESULTS`] for Monday's closed drawing, and they stand.
async fn results_stand(game: &common::Game) {
    let results: Value = serde_json::from_str(RESULTS).unwrap();
    assert_eq!(enter(game, "2026-11-30", "olga", results.clone()).await.status, StatusCode::ACCEPTED);
    assert_eq!(enter(game, "2026-11-30", "oscar", results).await.status, StatusCode::OK);
}

const RESULTS: &str = r#"{"whites": [45, 5, 15, 25, 35], "powerball": 10, "multiplier": 3}"#;

/// Monday, November 30, 2026: sales until 8:59 p.m. CST (02:59 UTC), the drawing at 9:58 p.m.
#[tokio::test]
async fn a_drawing_runs_from_the_till_to_certified_prizes() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    // What the jackpot gauge shows (issue 51): nothing before a grand prize is advertised, then it.
    let next_advertised = || draw_games::store::powerball::drawings::next_advertised_cents(&game.state.pool);
    assert_eq!(next_advertised().await.unwrap(), None);
    advertise_twenty_million(&game).await;
    assert_eq!(next_advertised().await.unwrap(), Some(2_000_000_000));

    // A terminal sells a slip with Power Play: 4 + PB and PB alone against the results below.
    let till = terminal(&game, "shop-a");
    let slip = json!({"boards": [
        {"whites": [46, 5, 15, 25, 35], "powerball": 10},
        {"whites": [1, 2, 3, 4, 6], "powerball": 10},
    ], "power_play": true});
    let sold = game.post("/v1/powerball/retail/tickets", &till, "sale-1", slip.clone()).await;
    assert_eq!(sold.status, StatusCode::CREATED, "{}", sold.body);
    assert_eq!((sold.body["state"].as_str(), sold.body["cost_cents"].as_i64()), (Some("sold"), Some(600)));
    let serial = sold.body["serial"].as_str().unwrap().to_owned();
    assert!(domain::serial::TicketSerial::parse(&serial).is_ok(), "{serial}");
    assert_eq!(sold.body["drawings"][0]["draw_date"], "2026-11-30");
    let again = game.post("/v1/powerball/retail/tickets", &till, "sale-1", slip).await;
    assert_eq!(
        (again.status, again.body["serial"].as_str()),
        (StatusCode::OK, Some(serial.as_str())),
        "a replay"
    );
    assert_eq!(
        game.balance(ledger_api::retailer_account("shop-a")).await,
        -600,
        "the retailer owes the sale, once"
    );

    // A player buys online for three drawings: a board that matches the Powerball, and two quick picks.
    let (player, wallet) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    let online =
        json!({"boards": [{"whites": [1, 2, 3, 4, 6], "powerball": 10}], "quick_picks": 2, "draws": 3});
    let bought = game.post("/v1/powerball/tickets", &token, "buy-1", online).await;
    assert_eq!(bought.status, StatusCode::CREATED, "{}", bought.body);
    assert_eq!(bought.body["cost_cents"], 1_800, "3 boards × $2 × 3 drawings");
    let dates: Vec<&str> = bought.body["drawings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["draw_date"].as_str().unwrap())
        .collect();
    assert_eq!(dates, ["2026-11-30", "2026-12-02", "2026-12-05"]);
    let picks: Vec<bool> = bought.body["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["quick_pick"].as_bool().unwrap())
        .collect();
    assert_eq!(picks, [false, true, true]);
    assert_eq!(game.balance(wallet).await, 10_000 - 1_800);

    // Results cannot be entered before the close.
    assert_eq!(
        enter(&game, "2026-11-30", "olga", serde_json::from_str(RESULTS).unwrap()).await.code(),
        "drawing_not_closed"
    );

    // 8:59 p.m. CST: the close. A sale now is refused and says when sales resume.
    game.state.clock.set(at("2026-12-01T02:59:00Z"));
    let refused = game.post("/v1/powerball/retail/tickets", &till, "sale-2", json!({"quick_picks": 1})).await;
    assert_eq!((refused.status, refused.code()), (StatusCode::CONFLICT, "sales_closed"), "{}", refused.body);
    assert!(refused.body["detail"].as_str().unwrap().contains("2026-12-01T03:05:00"), "{}", refused.body);
    let replayed = game
        .post(
            "/v1/powerball/retail/tickets",
            &till,
            "sale-1",
            json!({"boards": [
        {"whites": [46, 5, 15, 25, 35], "powerball": 10},
        {"whites": [1, 2, 3, 4, 6], "powerball": 10},
    ], "power_play": true}),
        )
        .await;
    assert_eq!(
        (replayed.status, replayed.body["serial"].as_str()),
        (StatusCode::OK, Some(serial.as_str())),
        "a replay in the closed window answers the ticket sold before it"
    );
    assert!(pass(&game).await > 0);
    let closed = drawing(&game, "2026-11-30").await;
    assert_eq!(closed["state"], "closed");
    assert_eq!((closed["tickets"].as_i64(), closed["plays"].as_i64()), (Some(2), Some(5)));
    assert_eq!(
        closed["wagers_cents"],
        600 + 600,
        "the slip's $6 and one drawing's share of the online ticket"
    );
    let stored = draw_games::store::powerball::drawings::get(&game.state.pool, "2026-11-30".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let export = std::fs::read(stored.export_file.as_ref().unwrap()).unwrap();
    use sha2::Digest;
    assert_eq!(hex::encode(sha2::Sha256::digest(&export)), closed["export_sha256"].as_str().unwrap());
    assert_eq!(String::from_utf8(export.clone()).unwrap().lines().count(), 1 + 5, "a header and five plays");
    // The export is made from binary rows (issue 52): byte for byte Postgres' own text of them.
    let mut conn = game.state.pool.acquire().await.unwrap();
    let mut text = format!("{}\n", draw_games::export::EXPORT_HEADER).into_bytes();
    let mut copy = conn
        .copy_out_raw(
            "COPY (SELECT serial, board, w1, w2, w3, w4, w5, powerball, power_play::int, online::int FROM pb_plays
                    WHERE draw_date = '2026-11-30' ORDER BY serial, board) TO STDOUT WITH (FORMAT text, DELIMITER '|')",
        )
        .await
        .unwrap();
    while let Some(chunk) = futures_util::StreamExt::next(&mut copy).await {
        text.extend_from_slice(&chunk.unwrap());
    }
    drop(copy);
    assert_eq!(String::from_utf8(export).unwrap(), String::from_utf8(text).unwrap());
    assert!(audit_kinds(&game).await.contains(&"powerball.close".to_owned()));

    // 9:05 p.m.: sales resume, for Wednesday's drawing.
    game.state.clock.set(at("2026-12-01T03:05:00Z"));
    let later = game.post("/v1/powerball/retail/tickets", &till, "sale-3", json!({"quick_picks": 1})).await;
    assert_eq!(later.body["drawings"][0]["draw_date"], "2026-12-02", "{}", later.body);

    // Dual control: the first entry waits; the same operator cannot confirm it; a second
    // operator who disagrees discards both (logged); two who agree make the results stand.
    let results: Value = serde_json::from_str(RESULTS).unwrap();
    let first = enter(&game, "2026-11-30", "olga", results.clone()).await;
    assert_eq!(
        (first.status, first.body["outcome"].as_str()),
        (StatusCode::ACCEPTED, Some("awaiting_second_entry"))
    );
    assert_eq!(enter(&game, "2026-11-30", "olga", results.clone()).await.code(), "second_operator_required");
    let wrong = json!({"whites": [5, 15, 25, 35, 44], "powerball": 10, "multiplier": 3});
    let mismatch = enter(&game, "2026-11-30", "oscar", wrong).await;
    assert_eq!((mismatch.status, mismatch.code()), (StatusCode::CONFLICT, "results_mismatch"));
    assert!(audit_kinds(&game).await.contains(&"powerball.results_mismatch".to_owned()));
    assert_eq!(drawing(&game, "2026-11-30").await["state"], "closed", "nothing stands");
    let bad = json!({"whites": [5, 15, 25, 35, 45], "powerball": 10, "multiplier": 7});
    assert_eq!(enter(&game, "2026-11-30", "oscar", bad).await.code(), "multiplier_not_in_drum");
    assert_eq!(enter(&game, "2026-11-30", "oscar", results.clone()).await.status, StatusCode::ACCEPTED);
    let stand = enter(&game, "2026-11-30", "olga", results.clone()).await;
    assert_eq!(
        (stand.status, stand.body["outcome"].as_str()),
        (StatusCode::OK, Some("results_stand")),
        "{}",
        stand.body
    );
    assert_eq!(stand.body["drawing"]["results"]["whites"], json!([5, 15, 25, 35, 45]));
    assert_eq!(enter(&game, "2026-11-30", "oscar", results).await.code(), "results_stand");

    // The leader settles: winners found set-based; prizes are not payable before certification.
    pass(&game).await;
    let settled = drawing(&game, "2026-11-30").await;
    assert_eq!(settled["state"], "settled");
    assert!(settled["prize_table"].is_null(), "public once certified");
    let ticket = game.get(&format!("/v1/powerball/tickets/{serial}"), Some(&till)).await;
    let won: Vec<(i64, &str, i64)> = ticket.body["drawings"][0]["winnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (w["board"].as_i64().unwrap(), w["tier"].as_str().unwrap(), w["prize_cents"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(won, [(1, "four_powerball", 15_000_000), (2, "powerball", 1_200)], "Power Play's 3x");
    let wallet_before = game.balance(wallet).await;
    pass(&game).await;
    assert_eq!(game.balance(wallet).await, wallet_before, "nothing paid before certification");

    // The independent recount agrees: certified, chained, and the online prizes paid.
    let verification = verify(&game, "2026-11-30").await;
    assert_eq!(
        (verification.state.as_str(), verification.disagreements.len()),
        ("certified", 0),
        "{verification:?}"
    );
    let again = verify(&game, "2026-11-30").await;
    assert_eq!(
        (again.state.as_str(), again.disagreements.len()),
        ("certified", 0),
        "a check again changes nothing"
    );
    let certified = drawing(&game, "2026-11-30").await;
    assert_eq!(certified["state"], "certified");
    let lines = certified["prize_table"].as_array().unwrap();
    assert_eq!(lines.len(), 18);
    let line = |tier: &str, pp: bool| {
        lines.iter().find(|l| l["tier"] == tier && l["power_play"] == pp).unwrap().clone()
    };
    assert_eq!(line("four_powerball", true)["winners"], 1);
    assert!(line("powerball", false)["winners"].as_u64().unwrap() >= 1);
    let online_view = game
        .get(&format!("/v1/powerball/tickets/{}", bought.body["serial"].as_str().unwrap()), Some(&token))
        .await;
    let online_prize: i64 = online_view.body["drawings"][0]["winnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["prize_cents"].as_i64().unwrap())
        .sum();
    assert!(online_prize >= 400, "{}", online_view.body);
    pass(&game).await;
    assert_eq!(
        game.balance(wallet).await,
        wallet_before + online_prize,
        "paid to the wallet at certification"
    );
    pass(&game).await;
    assert_eq!(game.balance(wallet).await, wallet_before + online_prize, "once");
    let kinds = audit_kinds(&game).await;
    for kind in ["powerball.close", "powerball.results", "powerball.settle", "powerball.certify"] {
        assert_eq!(kinds.iter().filter(|k| *k == kind).count(), 1, "{kind} once: {kinds:?}");
    }
    let chain = platform::audit::verify(&game.state.pool).await.unwrap();
    assert!(chain.intact);
    game.assert_books_balance().await;
}

/// A recount that disagrees (the control copy altered after the close) stops the drawing as
/// disputed, says what differs, and pays nothing.
#[tokio::test]
async fn a_disagreeing_recount_stops_the_drawing() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    advertise_twenty_million(&game).await;
    let (player, wallet) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    let slip = json!({"boards": [{"whites": [1, 2, 3, 4, 6], "powerball": 10}]});
    assert_eq!(game.post("/v1/powerball/tickets", &token, "k", slip).await.status, StatusCode::CREATED);
    game.state.clock.set(at("2026-12-01T03:00:00Z"));
    pass(&game).await;
    results_stand(&game).await;
    pass(&game).await;
    let before = game.balance(wallet).await;
    // Someone changes the control copy: the board now misses the Powerball.
    let stored = draw_games::store::powerball::drawings::get(&game.state.pool, "2026-11-30".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let path = stored.export_file.unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("|10|0|1\n", "|11|0|1\n")).unwrap();
    let verification = verify(&game, "2026-11-30").await;
    assert_eq!(verification.state, "disputed");
    assert!(verification.disagreements.iter().any(|d| d.contains("SHA-256")), "{verification:?}");
    assert!(
        verification.disagreements.iter().any(|d| d.starts_with("powerball without Power Play")),
        "{verification:?}"
    );
    let disputed = drawing(&game, "2026-11-30").await;
    assert_eq!(disputed["state"], "disputed");
    assert!(disputed["dispute"].as_str().unwrap().contains("SHA-256"));
    pass(&game).await;
    assert_eq!(game.balance(wallet).await, before, "a disputed drawing pays nothing");
    assert!(audit_kinds(&game).await.contains(&"powerball.dispute".to_owned()));
    let again = powerball_draws::certify(
        &game.state.pool,
        "2026-11-30".parse().unwrap(),
        [0; 32],
        0,
        &[],
        game.state.clock.now(),
    )
    .await;
    assert_eq!(again.unwrap_err().code(), "drawing_not_settled", "it stays stopped");
    game.assert_books_balance().await;
}

/// A drawing set to `drawn` gets its results from the service's generator at 9:58 p.m., not
/// before, and they are chained; operators cannot enter them.
#[tokio::test]
async fn a_drawn_drawing_is_drawn_by_the_service_at_its_time() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    advertise_twenty_million(&game).await;
    let operator = game.token("olga", Role::Operator);
    let mode = put(
        &game,
        "/v1/powerball/draws/2026-11-30/results-mode",
        &operator,
        json!({"results_mode": "drawn"}),
    )
    .await;
    assert_eq!(
        (mode.status, mode.body["results_mode"].as_str()),
        (StatusCode::OK, Some("drawn")),
        "{}",
        mode.body
    );
    game.state.clock.set(at("2026-12-01T03:00:00Z"));
    pass(&game).await;
    assert_eq!(
        drawing(&game, "2026-11-30").await["state"],
        "closed",
        "closed at 8:59, not drawn before 9:58"
    );
    assert_eq!(
        enter(&game, "2026-11-30", "olga", serde_json::from_str(RESULTS).unwrap()).await.code(),
        "results_are_drawn"
    );
    game.state.clock.set(at("2026-12-01T03:58:00Z"));
    pass(&game).await;
    let drawn = drawing(&game, "2026-11-30").await;
    assert!(matches!(drawn["state"].as_str(), Some("drawn" | "settled")), "{drawn}");
    assert_eq!(drawn["results"]["whites"].as_array().unwrap().len(), 5);
    assert!([2, 3, 4, 5, 10].contains(&drawn["results"]["multiplier"].as_u64().unwrap()));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-11-30").await["state"], "settled");
    assert!(audit_kinds(&game).await.contains(&"powerball.results".to_owned()));
    // Its times are the service's clock's, as its schedule is, not the database's (issue 32 §5).
    let times: (DateTime<Utc>, DateTime<Utc>, DateTime<Utc>) = sqlx::query_as(
        "SELECT closed_at, results_at, settled_at FROM pb_draws WHERE draw_date = '2026-11-30'",
    )
    .fetch_one(&game.state.pool)
    .await
    .unwrap();
    assert_eq!(times, (at("2026-12-01T03:00:00Z"), at("2026-12-01T03:58:00Z"), at("2026-12-01T03:58:00Z")));
}

/// Bad slips, a wallet short of funds and online sales switched off are refused with their own
/// codes, and nothing moves.
#[tokio::test]
async fn refused_sales_move_nothing() {
    let mut game = game_at("2026-11-30T18:00:00Z").await;
    let (player, wallet) = game.player(500).await;
    let token = game.token(&player, Role::Player);
    let till = terminal(&game, "shop-b");
    for (slip, code) in [
        (json!({"boards": [{"whites": [1, 2, 3, 4], "powerball": 1}]}), "white_count"),
        (json!({"boards": [{"whites": [1, 2, 3, 4, 70], "powerball": 1}]}), "white_out_of_range"),
        (json!({"boards": [{"whites": [1, 2, 3, 4, 4], "powerball": 1}]}), "duplicate_white"),
        (json!({"boards": [{"whites": [1, 2, 3, 4, 5], "powerball": 27}]}), "powerball_out_of_range"),
        (json!({"quick_picks": 0}), "invalid_board_count"),
        (json!({"quick_picks": 11}), "invalid_board_count"),
        (json!({"quick_picks": 1, "draws": 11}), "draws_out_of_range"),
        (json!({"quick_picks": 1, "draws": 0}), "draws_out_of_range"),
    ] {
        let reply = game.post("/v1/powerball/retail/tickets", &till, "bad", slip.clone()).await;
        assert_eq!((reply.status, reply.code()), (StatusCode::UNPROCESSABLE_ENTITY, code), "{slip}");
    }
    let short = game.post("/v1/powerball/tickets", &token, "short", json!({"quick_picks": 3})).await;
    assert_eq!(
        (short.status, short.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "insufficient_funds"),
        "{}",
        short.body
    );
    assert_eq!(game.balance(wallet).await, 500);
    let player_at_till =
        game.post("/v1/powerball/retail/tickets", &token, "x", json!({"quick_picks": 1})).await;
    assert_eq!(player_at_till.status, StatusCode::FORBIDDEN);
    let conflict = game.post("/v1/powerball/tickets", &token, "one", json!({"quick_picks": 1})).await;
    assert_eq!(conflict.status, StatusCode::CREATED);
    // A fresh sale is answered as it was made, without reading it back: as it reads after.
    let stored = game
        .get(&format!("/v1/powerball/tickets/{}", conflict.body["serial"].as_str().unwrap()), Some(&token))
        .await;
    assert_eq!(stored.body, conflict.body);
    assert_eq!(conflict.body["drawings"].as_array().map(Vec::len), Some(1));
    let other = game.post("/v1/powerball/tickets", &token, "one", json!({"quick_picks": 2})).await;
    assert_eq!(other.code(), "idempotency_conflict");
    assert_eq!(game.balance(wallet).await, 300);
    game.state.settings.powerball.online_sales = false;
    game.router = draw_games::router(game.state.clone(), platform::http::Limits::default());
    let off = game.post("/v1/powerball/tickets", &token, "off", json!({"quick_picks": 1})).await;
    assert_eq!((off.status, off.code()), (StatusCode::FORBIDDEN, "online_sales_off"));
    assert_eq!(game.balance(wallet).await, 300);
    let unknown = game.get("/v1/powerball/tickets/1234", Some(&token)).await;
    assert_eq!(unknown.code(), "invalid_serial");
    let others = game
        .get(&format!("/v1/powerball/tickets/{}", conflict.body["serial"].as_str().unwrap()), Some(&till))
        .await;
    assert_eq!(others.code(), "ticket_not_found", "a retailer sees only its own terminals' tickets");
    game.assert_books_balance().await;
}

/// Sales that arrive together share their writes (issue 52): forty slips from four tills at
/// once, ten of them sent twice at the same moment, are each sold once with one serial, every
/// play placed once, and each retailer owes exactly its slips.
#[tokio::test]
async fn sales_arriving_together_are_each_sold_once() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    let tills: Vec<String> = (0..4).map(|i| terminal(&game, &format!("shop-{i}"))).collect();
    let game = &game;
    let sales = (0..50).map(|n| {
        let (till, key) = (&tills[n % 4], format!("sale-{}", n % 40));
        let slip = json!({"quick_picks": 1 + n % 40 % 3});
        async move { (key.clone(), game.post("/v1/powerball/retail/tickets", till, &key, slip).await) }
    });
    let replies = futures_util::future::join_all(sales).await;
    let mut serials = std::collections::HashMap::new();
    for (key, reply) in &replies {
        assert!(reply.status.is_success(), "{key}: {} {}", reply.status, reply.body);
        assert_eq!(reply.body["state"], "sold", "{}", reply.body);
        let serial = reply.body["serial"].as_str().unwrap().to_owned();
        let first = serials.entry(key.clone()).or_insert_with(|| serial.clone());
        assert_eq!(*first, serial, "{key} answered one ticket");
    }
    assert_eq!(serials.len(), 40);
    let boards: i64 = (0..40).map(|n| 1 + n % 3).sum();
    let plays: i64 = sqlx::query_scalar("SELECT count(*) FROM pb_plays WHERE draw_date = '2026-11-30'")
        .fetch_one(&game.state.pool)
        .await
        .unwrap();
    assert_eq!(plays, boards, "every board of every slip placed once");
    for i in 0..4 {
        let owed: i64 = (0..40).filter(|n| n % 4 == i).map(|n| 200 * (1 + n % 3)).sum();
        assert_eq!(game.balance(ledger_api::retailer_account(&format!("shop-{i}"))).await, -owed);
    }
    game.assert_books_balance().await;
}

/// Across the end of daylight time (November 1, 2026) the leader closes each drawing at 8:59
/// p.m. local, once, and catches up drawings it missed while down, each exactly once.
#[tokio::test]
async fn the_leader_closes_each_drawing_once_across_the_clock_change_and_downtime() {
    let game = game_at("2026-10-31T15:00:00Z").await; // Saturday, 10 a.m. CDT
    let till = terminal(&game, "shop-c");
    let sold =
        game.post("/v1/powerball/retail/tickets", &till, "s", json!({"quick_picks": 1, "draws": 3})).await;
    let dates: Vec<&str> =
        sold.body["drawings"].as_array().unwrap().iter().map(|d| d["draw_date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-10-31", "2026-11-02", "2026-11-04"]);
    // Saturday 8:58 p.m. CDT (01:58 UTC): not yet; 8:59 p.m. CDT: closed.
    game.state.clock.set(at("2026-11-01T01:58:59Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-10-31").await["state"], "scheduled");
    let listed = game.get("/v1/powerball/draws", None).await.body;
    assert_eq!(listed["items"], json!([]), "nothing has closed yet");
    game.state.clock.set(at("2026-11-01T01:59:00Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-10-31").await["state"], "closed");
    // Closed and not yet drawn (the draw is at 9:58 p.m.), it is listed as closed (issue 47 §4:
    // the console's calendar said "not on record" until the draw).
    let listed = game.get("/v1/powerball/draws", None).await.body;
    assert_eq!(
        (listed["items"][0]["draw_date"].as_str(), listed["items"][0]["state"].as_str()),
        (Some("2026-10-31"), Some("closed")),
        "{listed}"
    );
    // Monday after the change: 8:59 p.m. CST is 02:59 UTC.
    let monday = drawing(&game, "2026-11-02").await;
    assert_eq!(monday["sales_close_at"], "2026-11-03T02:59:00Z");
    assert_eq!(monday["draw_at"], "2026-11-03T03:58:00Z");
    // The leader is down from Sunday until Thursday: both drawings are caught up, once each.
    game.state.clock.set(at("2026-11-05T18:00:00Z"));
    pass(&game).await;
    pass(&game).await;
    for date in ["2026-11-02", "2026-11-04"] {
        let d = drawing(&game, date).await;
        assert_eq!((d["state"].as_str(), d["plays"].as_i64()), (Some("closed"), Some(1)), "{date}");
    }
    let closes = audit_kinds(&game).await.iter().filter(|k| *k == "powerball.close").count();
    assert_eq!(closes, 3, "one close per drawing");
}

/// Sells a slip at `till` (key `key`) and returns its serial.
async fn sell(game: &common::Game, till: &str, key: &str, slip: Value) -> String {
    let sold = game.post("/v1/powerball/retail/tickets", till, key, slip).await;
    assert_eq!(sold.status, StatusCode::CREATED, "{}", sold.body);
    sold.body["serial"].as_str().unwrap().to_owned()
}

async fn claim_at(game: &common::Game, path: &str, token: &str, body: Value) -> Reply {
    game.post(path, token, "-", body).await
}

/// Prizes are paid once: at the counter up to $599 (of concurrent claims exactly one), at the
/// office above it with the W-2G and withholding rules, the grand prize by the winner's
/// election; online tickets' large prizes at the office; what is left unclaimed expires.
#[tokio::test]
async fn prizes_are_claimed_once_at_the_counter_and_the_office_and_then_expire() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    let operator = advertise_twenty_million(&game).await;
    let (till_a, till_b) = (terminal(&game, "shop-a"), terminal(&game, "shop-b"));
    let board = |whites: [u8; 5], pb: u8| json!({"whites": whites, "powerball": pb});
    let small =
        sell(&game, &till_a, "t1", json!({"boards": [board([1, 2, 3, 4, 6], 10)], "power_play": true})).await;
    let large =
        sell(&game, &till_a, "t2", json!({"boards": [board([5, 15, 25, 35, 46], 10)], "power_play": true}))
            .await;
    let grand = sell(&game, &till_b, "t3", json!({"boards": [board([5, 15, 25, 35, 45], 10)]})).await;
    let forgotten = sell(&game, &till_b, "t4", json!({"boards": [board([5, 15, 25, 36, 47], 11)]})).await;
    // The Powerball alone: $4, claimed by one till sending one request several times.
    let copied = sell(&game, &till_a, "t6", json!({"boards": [board([1, 2, 3, 4, 8], 10)]})).await;
    // A second grand prize winner, with a $4 board beside it.
    let annuity = sell(
        &game,
        &till_b,
        "t5",
        json!({"boards": [board([5, 15, 25, 35, 45], 10), board([1, 2, 3, 4, 7], 10)]}),
    )
    .await;
    let (player, _) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    let online = game
        .post("/v1/powerball/tickets", &token, "o1", json!({"boards": [board([5, 15, 25, 35, 45], 11)]}))
        .await;
    let online = online.body["serial"].as_str().unwrap().to_owned();
    game.state.clock.set(at("2026-11-30T18:05:00Z"));
    let second = game
        .post("/v1/powerball/tickets", &token, "o2", json!({"boards": [board([9, 19, 29, 39, 49], 9)]}))
        .await;
    let second = second.body["serial"].as_str().unwrap().to_owned();

    game.state.clock.set(at("2026-12-01T03:00:00Z"));
    pass(&game).await;
    results_stand(&game).await;
    pass(&game).await;
    let early = claim_at(&game, "/v1/powerball/retail/claims", &till_a, json!({"serial": small})).await;
    assert_eq!((early.status, early.code()), (StatusCode::CONFLICT, "drawing_not_certified"));
    assert_eq!(verify(&game, "2026-11-30").await.state, "certified");
    pass(&game).await;

    // Eight tills of two retailers claim the $12 ticket at once: exactly one is paid.
    let shop_a = ledger_api::retailer_account("shop-a");
    let shop_b = ledger_api::retailer_account("shop-b");
    let (a_before, b_before) = (game.balance(shop_a).await, game.balance(shop_b).await);
    let claims = (0..8).map(|i| {
        let till = if i % 2 == 0 { till_a.clone() } else { till_b.clone() };
        let serial = small.clone();
        let game = &game;
        let key = format!("claim-{i}");
        async move { game.post("/v1/powerball/retail/claims", &till, &key, json!({"serial": serial})).await }
    });
    let mut replies = futures_util::future::join_all(claims).await;
    // A till whose claim lost a race in the ledger with another till of its retailer paying the
    // same prize is told to claim again (503); claimed again, it is told the prize is paid.
    for (i, reply) in replies.iter_mut().enumerate() {
        if reply.status == StatusCode::SERVICE_UNAVAILABLE {
            let till = if i % 2 == 0 { &till_a } else { &till_b };
            let key = format!("claim-{i}");
            *reply = game.post("/v1/powerball/retail/claims", till, &key, json!({"serial": small})).await;
        }
    }
    let paid: Vec<&Reply> = replies.iter().filter(|r| r.status == StatusCode::CREATED).collect();
    assert_eq!(paid.len(), 1, "{:?}", replies.iter().map(|r| r.body.to_string()).collect::<Vec<_>>());
    assert!(
        replies.iter().filter(|r| r.status != StatusCode::CREATED).all(|r| r.code() == "already_paid"),
        "{:?}",
        replies.iter().map(|r| r.body.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(paid[0].body["paid_cents"], 1_200);
    let credited = (game.balance(shop_a).await - a_before) + (game.balance(shop_b).await - b_before);
    assert_eq!(credited, 1_200, "one retailer credited once");
    // The till whose claim was recorded lost the answer and sends it again, with its key: the
    // same receipt, replayed, nothing paid again (issue 32 §5); another key is told it is paid.
    // (Which of the eight recorded it is the race's: another till of its retailer may have
    // finished paying it, so the key is read from the claim.)
    let recorded: String =
        sqlx::query_scalar("SELECT request_key FROM pb_claims WHERE payee IN ('shop-a', 'shop-b')")
            .fetch_one(&game.state.pool)
            .await
            .unwrap();
    let (terminal, key) = recorded.rsplit_once('/').unwrap();
    let till = if terminal.starts_with("shop-a") { &till_a } else { &till_b };
    let again = game.post("/v1/powerball/retail/claims", till, key, json!({"serial": small})).await;
    let replayed = again.headers.get("idempotent-replayed").map(|v| v.to_str().unwrap().to_owned());
    assert_eq!((again.status, replayed.as_deref()), (StatusCode::OK, Some("true")), "{}", again.body);
    assert_eq!(again.body, paid[0].body, "the same receipt");
    let other = game.post("/v1/powerball/retail/claims", till, "another", json!({"serial": small})).await;
    assert_eq!(other.code(), "already_paid");
    let (after_a, after_b) = (game.balance(shop_a).await, game.balance(shop_b).await);
    assert_eq!((after_a - a_before) + (after_b - b_before), 1_200, "still credited once");

    // Issue 47 §4: one till sends one claim six times at once with one key (a till retrying
    // while its first send is in flight): one payment, and every copy answers the receipt as a
    // replay, where copies were answered `already_paid`. A copy that met the ledger busy with
    // its twin is told to send again (503), and sent again is answered the same.
    let a_before = game.balance(shop_a).await;
    let copies = (0..6)
        .map(|_| game.post("/v1/powerball/retail/claims", &till_a, "one-key", json!({"serial": copied})));
    let mut replies = futures_util::future::join_all(copies).await;
    for reply in &mut replies {
        if reply.status == StatusCode::SERVICE_UNAVAILABLE {
            *reply =
                game.post("/v1/powerball/retail/claims", &till_a, "one-key", json!({"serial": copied})).await;
        }
    }
    let bodies = || replies.iter().map(|r| format!("{} {}", r.status, r.body)).collect::<Vec<_>>();
    let first: Vec<&Reply> = replies.iter().filter(|r| r.status == StatusCode::CREATED).collect();
    assert_eq!(first.len(), 1, "{:?}", bodies());
    for reply in replies.iter().filter(|r| r.status != StatusCode::CREATED) {
        let replayed = reply.headers.get("idempotent-replayed").map(|v| v.to_str().unwrap().to_owned());
        assert_eq!((reply.status, replayed.as_deref()), (StatusCode::OK, Some("true")), "{:?}", bodies());
        assert_eq!(reply.body, first[0].body, "the same receipt");
    }
    assert_eq!(game.balance(shop_a).await - a_before, 400, "paid once");
    // The till's close-out reads its retailer's Powerball beside its instant figures (issue 47
    // §4): shop-a's terminal sold three slips (the $12 and the $150,000 winners with Power
    // Play at $3 each, the $4 winner at $2) and paid the $4 prize; the $12 one went to
    // whichever shop won the race.
    let day = game
        .get("/v1/powerball/retail/day?since=2026-11-30T00:00:00Z&until=2026-12-02T00:00:00Z", Some(&till_a))
        .await;
    assert_eq!(day.status, StatusCode::OK, "{}", day.body);
    let a_paid_small = paid[0].body["payee"] == "shop-a";
    let (count, cents) = if a_paid_small { (2, 1_600) } else { (1, 400) };
    assert_eq!(
        (
            &day.body["tickets_sold"],
            &day.body["sales_cents"],
            &day.body["prizes_paid"],
            &day.body["prizes_paid_cents"]
        ),
        (&json!(3), &json!(800), &json!(count), &json!(cents)),
        "{}",
        day.body
    );
    // The key sent again with another ticket (even one that is not a serial) is a conflict,
    // answered before the ticket is judged.
    for serial in [small.as_str(), "1234-5678"] {
        let reused =
            game.post("/v1/powerball/retail/claims", &till_a, "one-key", json!({"serial": serial})).await;
        assert_eq!(
            (reused.status, reused.code()),
            (StatusCode::CONFLICT, "idempotency_conflict"),
            "{}",
            reused.body
        );
    }

    // $150,000 is the office's: a W-2G needs the claimant's TIN; 24% is withheld.
    let counter = claim_at(&game, "/v1/powerball/retail/claims", &till_a, json!({"serial": large})).await;
    assert_eq!(counter.code(), "claim_at_office");
    let no_tin = json!({"serial": large, "claimant": {"name": "Pat Doe"}});
    assert_eq!(
        claim_at(&game, "/v1/powerball/office-claims", &operator, no_tin).await.code(),
        "claimant_tin_required"
    );
    let office = json!({"serial": large, "claimant": {"name": "Pat Doe", "tin_last4": "1234"}});
    let office = claim_at(&game, "/v1/powerball/office-claims", &operator, office).await;
    assert_eq!(office.status, StatusCode::CREATED, "{}", office.body);
    assert_eq!(
        (
            office.body["paid_cents"].as_i64(),
            office.body["withheld_cents"].as_i64(),
            office.body["w2g"].as_bool()
        ),
        (Some(15_000_000), Some(3_600_000), Some(true))
    );
    assert_eq!(office.body["net_cents"], 11_400_000);

    // The grand prize, shared by two winners: taken as cash, half the drawing's cash value, the
    // rest of the annuity share back to the house ...
    let cash =
        json!({"serial": grand, "claimant": {"name": "Lucky", "tin_last4": "9876"}, "election": "cash"});
    // A claim later than the one before (the office lists them newest first).
    game.state.clock.advance(chrono::Duration::seconds(1));
    let cash = claim_at(&game, "/v1/powerball/office-claims", &operator, cash).await;
    assert_eq!(cash.status, StatusCode::CREATED, "{}", cash.body);
    assert_eq!(
        (
            cash.body["prize_cents"].as_i64(),
            cash.body["paid_cents"].as_i64(),
            cash.body["released_cents"].as_i64()
        ),
        (Some(1_000_000_000), Some(475_000_000), Some(525_000_000))
    );
    assert_eq!(cash.body["withheld_cents"], 114_000_000, "24% of the cash");
    // ... or, by default, as the annuity: its first payment now with the $4 beside it, 29 owed.
    let yearly = json!({"serial": annuity, "claimant": {"name": "Patient", "tin_last4": "5555"}});
    game.state.clock.advance(chrono::Duration::seconds(1));
    let yearly = claim_at(&game, "/v1/powerball/office-claims", &operator, yearly).await;
    assert_eq!(
        (yearly.status, yearly.body["election"].as_str()),
        (StatusCode::CREATED, Some("annuity")),
        "{}",
        yearly.body
    );
    let payments: Vec<i64> =
        yearly.body["annuity_payments"].as_array().unwrap().iter().map(|p| p.as_i64().unwrap()).collect();
    assert_eq!((payments.len(), payments.iter().sum::<i64>()), (30, 1_000_000_000));
    assert_eq!(yearly.body["paid_cents"].as_i64(), Some(payments[0] + 400));

    // An online ticket's $1,000,000 is not the counter's; the office pays it, by default as is.
    let at_till = claim_at(&game, "/v1/powerball/retail/claims", &till_a, json!({"serial": online})).await;
    assert_eq!(at_till.code(), "paid_to_wallet");
    let online_claim = json!({"serial": online, "claimant": {"name": "Ann", "tin_last4": "4321"}});
    game.state.clock.advance(chrono::Duration::seconds(1));
    let online_claim = claim_at(&game, "/v1/powerball/office-claims", &operator, online_claim).await;
    assert_eq!(
        (online_claim.status, online_claim.body["paid_cents"].as_i64()),
        (StatusCode::CREATED, Some(100_000_000))
    );
    let again = json!({"serial": online, "claimant": {"name": "Ann", "tin_last4": "4321"}});
    assert_eq!(claim_at(&game, "/v1/powerball/office-claims", &operator, again).await.code(), "already_paid");

    // The player's own tickets, newest first, a page at a time, each with what it won; nobody
    // else's (issue 36).
    let page = game.get("/v1/powerball/tickets?limit=1", Some(&token)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.body["items"][0]["serial"], second.as_str());
    let next = page.body["next"].as_str().expect("a full page has a next cursor").to_owned();
    let page = game.get(&format!("/v1/powerball/tickets?limit=1&after={next}"), Some(&token)).await;
    assert_eq!(page.body["items"][0]["serial"], online.as_str(), "{}", page.body);
    assert_eq!(page.body["items"][0]["drawings"][0]["winnings"][0]["tier"], "five");
    let page = game
        .get(
            &format!("/v1/powerball/tickets?limit=1&after={}", page.body["next"].as_str().unwrap()),
            Some(&token),
        )
        .await;
    assert_eq!((page.body["items"].as_array().map(Vec::len), &page.body["next"]), (Some(0), &Value::Null));
    let (stranger, _) = game.player(0).await;
    // A whole page is read at once (its drawings, winners and voids for every ticket together):
    // each ticket on it is as its own read gives it, the winner's prize on its own ticket only.
    let whole = game.get("/v1/powerball/tickets", Some(&token)).await;
    let items = whole.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{}", whole.body);
    for item in items {
        let alone = game
            .get(&format!("/v1/powerball/tickets/{}", item["serial"].as_str().unwrap()), Some(&token))
            .await;
        assert_eq!(&alone.body, item);
    }
    assert_eq!(items[0]["drawings"][0]["winnings"], json!([]), "{}", whole.body);
    let stranger = game.token(&stranger, Role::Player);
    let none = game.get("/v1/powerball/tickets", Some(&stranger)).await;
    assert_eq!(none.body["items"].as_array().map(Vec::len), Some(0), "{}", none.body);
    // Prizes paid at the office: the operator sees all four, newest first; the player sees the
    // W-2G record of their own ticket's prize, with the claimant as the office recorded them.
    let all = game.get("/v1/powerball/office-claims", Some(&operator)).await;
    let serials: Vec<&str> =
        all.body.as_array().unwrap().iter().map(|c| c["serial"].as_str().unwrap()).collect();
    assert_eq!(serials, [online.as_str(), annuity.as_str(), grand.as_str(), large.as_str()], "{}", all.body);
    // Each was answered as the call that reserved it recorded it, without reading it back: as
    // it reads after.
    assert_eq!(
        all.body,
        json!([online_claim.body.clone(), yearly.body.clone(), cash.body.clone(), office.body.clone()])
    );
    let mine = game.get("/v1/powerball/office-claims?w2g=true", Some(&token)).await;
    assert_eq!(mine.status, StatusCode::OK, "{}", mine.body);
    let mine = mine.body.as_array().unwrap();
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(
        (
            mine[0]["serial"].as_str(),
            mine[0]["w2g"].as_bool(),
            mine[0]["claimant_name"].as_str(),
            mine[0]["tin_last4"].as_str()
        ),
        (Some(online.as_str()), Some(true), Some("Ann"), Some("4321"))
    );
    let without = game.get("/v1/powerball/office-claims?w2g=false", Some(&operator)).await;
    assert_eq!(without.body.as_array().map(Vec::len), Some(0), "every office prize here made a W-2G");
    let theirs = game.get("/v1/powerball/office-claims", Some(&stranger)).await;
    assert_eq!(theirs.body.as_array().map(Vec::len), Some(0));
    let refused = game.get("/v1/powerball/office-claims?limit=0", Some(&operator)).await;
    assert_eq!(refused.code(), "invalid_limit");
    assert_eq!(
        claim_at(&game, "/v1/powerball/retail/claims", &till_a, json!({"serial": "1234-5678"})).await.code(),
        "invalid_serial"
    );

    // A year later (the claim period is 180 days) the $7 nobody claimed expires to its own
    // account, once.
    let unclaimed = game.state.powerball_accounts.unclaimed;
    game.state.clock.set(at("2027-12-02T18:00:00Z"));
    pass(&game).await;
    pass(&game).await;
    assert_eq!(game.balance(unclaimed).await, 700);
    let late = claim_at(&game, "/v1/powerball/retail/claims", &till_b, json!({"serial": forgotten})).await;
    assert_eq!((late.status, late.code()), (StatusCode::CONFLICT, "prize_expired"));

    // The annuity (issue 50): the first payment went with the claim on 30 November 2026 (the
    // lottery's day: 03:00 UTC is 9 p.m. central), the
    // second fell due on its anniversary and the passes above paid it, once; 28 are owed.
    let annuities = game.state.powerball_accounts.annuities;
    let listed = the_annuity(&game, &operator).await;
    assert_eq!(
        (listed["serial"].as_str(), listed["claimant_name"].as_str()),
        (Some(annuity.as_str()), Some("Patient"))
    );
    let rows = listed["payments"].as_array().unwrap();
    let column = |name: &str| rows.iter().map(|p| p[name].as_i64().unwrap()).collect::<Vec<i64>>();
    assert_eq!(column("amount_cents"), payments, "the schedule is the claim's");
    assert_eq!(column("number"), (1..=30).collect::<Vec<i64>>());
    let due: Vec<&str> = rows.iter().map(|p| p["due_on"].as_str().unwrap()).collect();
    assert_eq!((due[0], due[1], due[29]), ("2026-11-30", "2027-11-30", "2055-11-30"));
    assert_eq!(column("tax_year")[1], 2027);
    for row in rows {
        let (amount, withheld, net) =
            (row["amount_cents"].as_i64(), row["withheld_cents"].as_i64(), row["net_cents"].as_i64());
        assert_eq!(amount, Some(withheld.unwrap() + net.unwrap()), "{row}");
        assert_eq!(
            (row["w2g"].as_bool(), withheld),
            (Some(true), Some((amount.unwrap() * 24 + 50) / 100)),
            "24%, to the nearest cent: {row}"
        );
    }
    let paid_count = |listed: &Value| {
        listed["payments"].as_array().unwrap().iter().filter(|p| !p["paid_at"].is_null()).count()
    };
    assert_eq!(paid_count(&listed), 2, "{listed}");
    let owed: i64 = payments[2..].iter().sum();
    assert_eq!(
        (listed["paid_cents"].as_i64(), listed["owed_cents"].as_i64()),
        (Some(payments[0] + payments[1]), Some(owed))
    );
    assert_eq!(
        (listed["total_cents"].as_i64(), listed["next_due_on"].as_str()),
        (Some(1_000_000_000), Some("2028-11-30"))
    );
    assert_eq!(game.balance(annuities).await, owed, "the annuity account owes the rest");
    // Four years with no leader running, then two replicas' passes at once: each payment that
    // fell due meanwhile paid once, its money moved once.
    let (office, withholding) =
        (game.state.powerball_accounts.office_payouts, game.state.powerball_accounts.withholding);
    let out_before = game.balance(office).await + game.balance(withholding).await;
    game.state.clock.set(at("2031-12-05T18:00:00Z"));
    let (a, b) = tokio::join!(
        draw_games::saga::powerball::annuities::pay_due(&game.state),
        draw_games::saga::powerball::annuities::pay_due(&game.state)
    );
    assert_eq!(a.unwrap() + b.unwrap(), 4, "2028 to 2031, once each");
    let four: i64 = payments[2..6].iter().sum();
    assert_eq!(game.balance(annuities).await, owed - four);
    assert_eq!(game.balance(office).await + game.balance(withholding).await - out_before, four);
    // The clock set back a year: nothing is paid again.
    game.state.clock.set(at("2030-06-01T18:00:00Z"));
    assert_eq!(draw_games::saga::powerball::annuities::pay_due(&game.state).await.unwrap(), 0);
    let listed = the_annuity(&game, &operator).await;
    assert_eq!((paid_count(&listed), listed["next_due_on"].as_str()), (6, Some("2032-11-30")));
    // Each payment paid is in the significant-events log once, the first with its claim.
    let claim_id = yearly.body["id"].as_str().unwrap().to_owned();
    let events: Vec<String> = sqlx::query_scalar(
        "SELECT details::jsonb->>'payment_number' FROM (SELECT kind, details FROM events.pending
                                                 UNION ALL SELECT kind, details FROM events.log) e
          WHERE kind = 'prize_paid' AND details::jsonb->>'claim' = $1 ORDER BY 1",
    )
    .bind(&claim_id)
    .fetch_all(&game.state.pool)
    .await
    .unwrap_or_else(|e| panic!("{e}"))
    .into_iter()
    .map(|p: Option<String>| p.unwrap_or_else(|| "claim".to_owned()))
    .collect();
    assert_eq!(events, ["2", "3", "4", "5", "6", "claim"]);
    game.assert_books_balance().await;
}

/// The one annuity claimed, as the operator lists it.
async fn the_annuity(game: &common::Game, operator: &str) -> Value {
    let listed = game.get("/v1/powerball/annuities", Some(operator)).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    assert_eq!(listed.body.as_array().map(Vec::len), Some(1), "one annuity claimed: {}", listed.body);
    listed.body[0].clone()
}

/// A crash at each step between the close and the certification (the process gone between two
/// of a step's writes), then another process's leader: every step happens once, the drawing is
/// settled once, its wagers and prizes move once.
#[tokio::test]
async fn a_crash_between_the_close_and_the_certification_settles_once() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    advertise_twenty_million(&game).await;
    let (player, wallet) = game.player(10_000).await;
    let token = game.token(&player, Role::Player);
    // Four online tickets matching the Powerball alone ($4 each) and one that wins nothing.
    for i in 0..4 {
        let slip = json!({"boards": [{"whites": [1, 2, 3, 4, 6 + i], "powerball": 10}]});
        assert_eq!(
            game.post("/v1/powerball/tickets", &token, &format!("k{i}"), slip).await.status,
            StatusCode::CREATED
        );
    }
    let losing = json!({"boards": [{"whites": [1, 2, 3, 4, 66], "powerball": 11}]});
    assert_eq!(game.post("/v1/powerball/tickets", &token, "k9", losing).await.status, StatusCode::CREATED);
    let date: NaiveDate = "2026-11-30".parse().unwrap();
    game.state.clock.set(at("2026-12-01T03:00:00Z"));

    // Crash 1: the close committed, the export never written (and a partial file left behind).
    draw_games::store::powerball::drawings::close(&game.state.pool, date, game.state.clock.now())
        .await
        .unwrap();
    std::fs::create_dir_all(&game.state.settings.powerball.export_dir).unwrap();
    std::fs::write(
        game.state.settings.powerball.export_dir.join("powerball-2026-11-30.psv.partial"),
        "half a fi",
    )
    .unwrap();
    let mut other = game.another_process().await;
    other.clock = game.state.clock.clone();
    DrawGame::Powerball.run_due(&other).await.unwrap();
    assert!(drawing(&game, "2026-11-30").await["export_sha256"].is_string());

    // Results stand; crash 2: the wagers moved to the house, the settlement never committed.
    results_stand(&game).await;
    let house = game.state.powerball_accounts.house;
    let house_before = game.balance(house).await;
    let wagers = wagers_transfer(&game, date);
    game.state.ledger.transfer(&wagers).await.unwrap();
    DrawGame::Powerball.run_due(&other).await.unwrap();
    DrawGame::Powerball.run_due(&game.state).await.unwrap();
    assert_eq!(game.balance(house).await - house_before, 1_000, "five $2 plays, moved once");
    let winners: i64 = sqlx::query_scalar("SELECT count(*) FROM pb_winners WHERE draw_date = $1")
        .bind(date)
        .fetch_one(&game.state.pool)
        .await
        .unwrap();
    assert_eq!(winners, 4, "settled once");

    // Certified; crash 3: two wallets' worth paid, the rest not, the drawing not marked paid.
    assert_eq!(verify(&game, "2026-11-30").await.state, "certified");
    let before = game.balance(wallet).await;
    let serials: Vec<i64> =
        sqlx::query_scalar("SELECT serial FROM pb_winners WHERE draw_date = $1 ORDER BY serial LIMIT 2")
            .bind(date)
            .fetch_all(&game.state.pool)
            .await
            .unwrap();
    let accounts = game.state.powerball_accounts;
    let table_total = 1_600;
    game.state
        .ledger
        .transfer(&ledger_api::NewTransfer::new(
            uuid::Uuid::new_v5(&draw_games::DRAWS_NAMESPACE, b"powerball-draw/2026-11-30/prizes"),
            accounts.house,
            accounts.prizes,
            table_total,
            ledger_api::Purpose::of(ledger_api::Game::Powerball, ledger_api::Money::Prize).draw_date(date),
        ))
        .await
        .unwrap();
    for &serial in &serials {
        let id = uuid::Uuid::new_v5(
            &draw_games::DRAWS_NAMESPACE,
            format!("powerball-draw/{date}/online-prize/{serial}").as_bytes(),
        );
        game.state
            .ledger
            .transfer(&ledger_api::NewTransfer::new(
                id,
                accounts.prizes,
                wallet,
                400,
                ledger_api::Purpose::of(ledger_api::Game::Powerball, ledger_api::Money::Prize)
                    .draw_date(date)
                    .serial(serial),
            ))
            .await
            .unwrap();
    }
    DrawGame::Powerball.run_due(&other).await.unwrap();
    DrawGame::Powerball.run_due(&game.state).await.unwrap();
    assert_eq!(game.balance(wallet).await - before, 1_600, "four $4 prizes, each paid once");
    let kinds = audit_kinds(&game).await;
    for kind in ["powerball.close", "powerball.results", "powerball.settle", "powerball.certify"] {
        assert_eq!(kinds.iter().filter(|k| *k == kind).count(), 1, "{kind}: {kinds:?}");
    }
    game.assert_books_balance().await;
}

/// The settle step's first transfer (a drawing's $10 of wagers), as the leader derives it.
fn wagers_transfer(game: &common::Game, date: NaiveDate) -> ledger_api::NewTransfer {
    ledger_api::NewTransfer::new(
        uuid::Uuid::new_v5(&draw_games::DRAWS_NAMESPACE, format!("powerball-draw/{date}/wagers").as_bytes()),
        game.state.powerball_accounts.escrow,
        game.state.powerball_accounts.house,
        1_000,
        ledger_api::Purpose::of(ledger_api::Game::Powerball, ledger_api::Money::Stake).draw_date(date),
    )
}

/// Across the start of daylight time (March 8, 2026): Saturday's drawing closes at 8:59 p.m. CST
/// (02:59 UTC), Monday's at 8:59 p.m. CDT (01:59 UTC), each by the leader, once; a sale in
/// Monday's closed window waits for 9:05 p.m. CDT.
#[tokio::test]
async fn the_leader_follows_the_start_of_daylight_time() {
    let game = game_at("2026-03-07T18:00:00Z").await; // Saturday noon CST
    let till = terminal(&game, "shop-d");
    let sold =
        game.post("/v1/powerball/retail/tickets", &till, "s", json!({"quick_picks": 2, "draws": 2})).await;
    let dates: Vec<&str> =
        sold.body["drawings"].as_array().unwrap().iter().map(|d| d["draw_date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-03-07", "2026-03-09"]);
    game.state.clock.set(at("2026-03-08T02:58:59Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-03-07").await["state"], "scheduled", "8:58:59 p.m. CST");
    game.state.clock.set(at("2026-03-08T02:59:00Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-03-07").await["state"], "closed");
    // Monday 8:59 p.m. CDT is an hour earlier in UTC than Saturday's close.
    game.state.clock.set(at("2026-03-10T01:58:59Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-03-09").await["state"], "scheduled");
    game.state.clock.set(at("2026-03-10T01:59:00Z"));
    let refused = game.post("/v1/powerball/retail/tickets", &till, "t", json!({"quick_picks": 1})).await;
    assert_eq!(refused.code(), "sales_closed");
    assert!(refused.body["detail"].as_str().unwrap().contains("2026-03-10T02:05:00"), "{}", refused.body);
    pass(&game).await;
    pass(&game).await;
    let monday = drawing(&game, "2026-03-09").await;
    assert_eq!((monday["state"].as_str(), monday["plays"].as_i64()), (Some("closed"), Some(2)));
    let closes = audit_kinds(&game).await.iter().filter(|k| *k == "powerball.close").count();
    assert_eq!(closes, 2);
}

/// A drawing whose grand prize nobody set by its close (issue 32 §6): it closes and its results
/// stand, but it does not settle (no grand prize of one cent is recorded) and so cannot be
/// certified; the grand prize may still be set, and then it settles with it. Once settled it
/// stands; an amount that takes the 10x out of the drum results came from is refused.
#[tokio::test]
async fn a_drawing_without_its_grand_prize_waits_for_it_and_then_settles_with_it() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    let till = terminal(&game, "shop-g");
    // The exact numbers of RESULTS: a grand prize winner.
    let slip = json!({"boards": [{"whites": [5, 15, 25, 35, 45], "powerball": 10}]});
    let sold = game.post("/v1/powerball/retail/tickets", &till, "sale-g", slip).await;
    assert_eq!(sold.status, StatusCode::CREATED, "{}", sold.body);
    let serial = sold.body["serial"].as_str().unwrap().to_owned();
    game.state.clock.set(at("2026-12-01T02:59:00Z"));
    pass(&game).await;
    assert_eq!(drawing(&game, "2026-11-30").await["state"], "closed");
    game.state.clock.set(at("2026-12-01T03:05:00Z"));
    results_stand(&game).await;

    // Drawn, and it waits: passes move nothing, no winner is recorded, the recount is refused.
    assert_eq!(pass(&game).await, 0, "a drawing waiting for its grand prize moves no step");
    assert_eq!(drawing(&game, "2026-11-30").await["state"], "drawn");
    let date: NaiveDate = "2026-11-30".parse().unwrap();
    let winners: i64 = sqlx::query_scalar("SELECT count(*) FROM pb_winners WHERE draw_date = $1")
        .bind(date)
        .fetch_one(&game.state.pool)
        .await
        .unwrap();
    assert_eq!(winners, 0, "no grand prize recorded before it is set");
    let refused = try_verify(&game, &date.to_string()).await;
    assert_eq!(refused.unwrap_err().code(), "drawing_not_settled");

    // Set after the close: it settles with it, and certifies.
    let operator = game.token("olga", Role::Operator);
    let grand_prize = json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64});
    let set = put(&game, "/v1/powerball/draws/2026-11-30/grand-prize", &operator, grand_prize.clone()).await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.body);
    assert!(pass(&game).await > 0);
    let ticket = game.get(&format!("/v1/powerball/tickets/{serial}"), Some(&till)).await;
    let won = &ticket.body["drawings"][0]["winnings"][0];
    assert_eq!(
        (won["tier"].as_str(), won["prize_cents"].as_i64()),
        (Some("grand_prize"), Some(2_000_000_000)),
        "{}",
        ticket.body
    );
    assert_eq!(verify(&game, "2026-11-30").await.state, "certified");
    let again = put(&game, "/v1/powerball/draws/2026-11-30/grand-prize", &operator, grand_prize).await;
    assert_eq!((again.status, again.code()), (StatusCode::CONFLICT, "drawing_settled"));
}

/// Results drawn with the 10x (the drum of a drawing without its grand prize) refuse a grand
/// prize over $150 million, which takes the 10x out of the drum.
#[tokio::test]
async fn a_grand_prize_set_late_must_agree_with_the_drum_the_results_came_from() {
    let game = game_at("2026-11-30T18:00:00Z").await;
    pass(&game).await;
    game.state.clock.set(at("2026-12-01T03:05:00Z"));
    pass(&game).await;
    let ten_x = json!({"whites": [5, 15, 25, 35, 45], "powerball": 10, "multiplier": 10});
    assert_eq!(enter(&game, "2026-11-30", "olga", ten_x.clone()).await.status, StatusCode::ACCEPTED);
    assert_eq!(enter(&game, "2026-11-30", "oscar", ten_x).await.status, StatusCode::OK);
    let operator = game.token("olga", Role::Operator);
    let big = json!({"advertised_cents": 20_000_000_000i64, "cash_value_cents": 9_000_000_000i64});
    let refused = put(&game, "/v1/powerball/draws/2026-11-30/grand-prize", &operator, big).await;
    assert_eq!(
        (refused.status, refused.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "multiplier_not_in_drum")
    );
    let small = json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64});
    assert_eq!(
        put(&game, "/v1/powerball/draws/2026-11-30/grand-prize", &operator, small).await.status,
        StatusCode::OK
    );
}
