//! What the instant service's tests share: the service on a fresh database with a real ledger
//! mounted beside it, requests, and a seeded print run whose VIRNs the test knows.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::body::Body;
use axum::http::Request;
use domain::instant::GameDefinition;
use domain::instant::print_run::{PrintedTicket, print_run_pools};
use platform::auth::TokenKeys;
use platform::http::Limits;
use platform::testing::send;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The platform assembled on a fresh database (`assembly::Options::for_tests`: the instant games
/// scaled to pools of 3,000 tickets, a hundredth of the winners), and the instant service's own
/// router in front of its state.
pub async fn service() -> (axum::Router, instant::InstantState, TokenKeys) {
    let platform = assembly::Assembly::for_tests(assembly::Options::for_tests().unwrap()).await.unwrap();
    let state = platform.instant;
    (instant::router(state.clone(), Limits::default()), state, platform.tokens)
}

/// A POST with a token and a JSON body.
pub async fn post(
    router: &axum::Router,
    path: &str,
    token: &str,
    body: serde_json::Value,
) -> platform::testing::Reply {
    send(
        router,
        Request::post(path)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            // Each call a request of its own, as a till sends a new key for each new claim.
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .body(Body::from(body.to_string()))
            .unwrap(),
    )
    .await
}

/// A GET with a token.
pub async fn get(router: &axum::Router, path: &str, token: &str) -> platform::testing::Reply {
    send(
        router,
        Request::get(path).header("authorization", format!("Bearer {token}")).body(Body::empty()).unwrap(),
    )
    .await
}

/// A game the service runs.
/// An operator's print run of game `number` through the route: 202 with its job, followed until
/// it has succeeded; the finished job.
pub async fn print_run(router: &axum::Router, operator: &str, number: u32) -> serde_json::Value {
    let started =
        post(router, &format!("/v1/instant/games/{number}/print-runs"), operator, serde_json::json!({}))
            .await;
    assert_eq!(started.status, axum::http::StatusCode::ACCEPTED, "{}", started.body);
    let job = started.body["id"].as_str().unwrap().to_owned();
    assert_eq!(started.headers["location"], format!("/v1/instant/print-jobs/{job}"));
    for _ in 0..1_200 {
        let now = get(router, &format!("/v1/instant/print-jobs/{job}"), operator).await;
        match now.body["state"].as_str() {
            Some("succeeded") => return now.body,
            Some("queued" | "running") => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            _ => panic!("the print job did not succeed: {}", now.body),
        }
    }
    panic!("the print job did not finish in a minute");
}

/// The first and last book of print run `run`.
pub async fn books_of(state: &instant::InstantState, run: &serde_json::Value) -> (i32, i32) {
    let run: uuid::Uuid = run.as_str().unwrap().parse().unwrap();
    sqlx::query_as("SELECT min(book), max(book) FROM packs WHERE print_run = $1")
        .bind(run)
        .fetch_one(&state.pool)
        .await
        .unwrap()
}

pub fn game(state: &instant::InstantState, number: u32) -> GameDefinition {
    state.game(number).unwrap().clone()
}

/// Prints `number` from a generator seeded with `seed` and returns what the printer would have
/// printed (the same generator replayed), VIRNs included.
pub async fn printed(state: &instant::InstantState, number: u32, seed: u64) -> Vec<PrintedTicket> {
    let game = game(state, number);
    let run = instant::saga::print_run::store_print_run_with(
        state,
        &game,
        "olga",
        ChaCha20Rng::seed_from_u64(seed),
    )
    .await
    .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut tickets = Vec::new();
    for pool in print_run_pools(&game, run.first_book, &mut rng) {
        tickets.extend(pool.unwrap());
    }
    tickets
}

/// A GET of the ledger, as the instant service.
pub async fn ledger_get(state: &instant::InstantState, path: &str) -> serde_json::Value {
    state
        .ledger
        .upstream()
        .call::<(), serde_json::Value>(
            axum::http::Method::GET,
            path,
            &state.service_token().unwrap(),
            None,
            None,
        )
        .await
        .unwrap()
}

/// A staff member's access token.
pub fn staff(tokens: &TokenKeys, name: &str, role: platform::auth::Role) -> String {
    tokens.issue(name, role, None, std::time::Duration::from_secs(300)).unwrap()
}

/// A terminal's access token, for shop `shop`.
pub fn till(tokens: &TokenKeys, terminal: &str, shop: &str) -> String {
    tokens
        .issue_for(
            terminal,
            platform::auth::Role::Retailer,
            None,
            Some(shop),
            std::time::Duration::from_secs(300),
        )
        .unwrap()
}

/// A terminal's access token, for shop `shop`, naming the shop and the till as the gateway's
/// tokens do.
pub fn named_till(tokens: &TokenKeys, terminal: &str, shop: &str, place: &platform::auth::Place) -> String {
    tokens
        .issue_at(
            terminal,
            platform::auth::Role::Retailer,
            None,
            Some(shop),
            Some(place),
            std::time::Duration::from_secs(300),
        )
        .unwrap()
}

/// What a terminal sends for a printed ticket: its barcode and VIRN.
pub fn scan(t: &PrintedTicket) -> serde_json::Value {
    serde_json::json!({"barcode": t.barcode, "virn": t.virn})
}

/// A scan of the ticket at (game, book, ticket) with a VIRN nobody printed.
pub fn scan_of(game: u32, book: u32, ticket: u32) -> serde_json::Value {
    serde_json::json!({"barcode": domain::instant::print_run::barcode(game, book, ticket), "virn": "000000000000"})
}
