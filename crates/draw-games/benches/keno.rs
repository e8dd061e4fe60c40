//! Castle Keno end to end, in one run:
//!
//! 1. play-now tickets per second: concurrent players buying tickets through the gateway on a
//!    real socket, each drawn, staked, paid and chained through the ledger (all services mounted in
//!    one process, as `lotto` runs them, on a fresh database). Reference, measured in the same
//!    run: the ledger's own single-transfer rate over the same gateway.
//! 2. the time to close, draw and settle one scheduled draw holding `BENCH_DRAW_TICKETS` tickets
//!    (default 100,000). References, in the same run: one set-based UPDATE of the same entry rows,
//!    the least any settlement that records every entry's outcome must write; and the same prizes
//!    sent again as the settlement's ledger batches, alone, the least paying them must take.
//!
//! Run: `cargo bench -p draw-games` (env: `BENCH_SECONDS`, default 10; `BENCH_CLIENTS`, default 32;
//! `BENCH_POOL`, the pool per service, default as `lotto`). Draws per second in `domain`:
//! `cargo bench -p domain`.
// A benchmark program stops loudly on any failure, and reports in floating point.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use draw_games::saga::keno::draws as keno_draws;
use platform::client::{Retry, ServiceClient};
use platform::config::{Config, env_or};
use platform::http::{Limits, Readiness};
use platform::testing::{LoadRun, bench_knob, closed_loop};
use serde_json::{Value, json};
use uuid::Uuid;

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 10u64, 3).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 32usize).unwrap();
    let url = platform::testing::bench_database("keno").await.unwrap();
    // Each service gets the pool `lotto` gives it (LOTTO_DB_MAX_CONNECTIONS, or BENCH_POOL here).
    let config = Config {
        db_max_connections: env_or("BENCH_POOL", Config::default().db_max_connections).unwrap(),
        ..Config::default()
    };
    let mut options = assembly::Options::for_tests().unwrap();
    options.config = config;
    let platform = assembly::Assembly::start(&url, options).await.unwrap();
    let (draws, tokens) = (platform.draws.clone(), platform.tokens.clone());
    let app = platform::http::app(
        platform.gateway_routes(platform.gateway.clone().without_rate_limits()),
        Readiness::default(),
        Limits::default(),
    );
    let base = platform::testing::serve_on_loopback(app).await.unwrap();

    // One funded player per client.
    let http = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap();
    let service = tokens.service_token("bench").unwrap();
    let setup = ServiceClient::new(base.as_str()).unwrap().as_service(tokens.clone(), "bench");
    let players = common::funded_players(&setup, &tokens, clients).await;
    let new_house = json!({"kind": "house_revenue", "owner": "bench", "currency": "USD"});
    let house: Value = setup.post("/v1/accounts", &new_house, Retry::Safe).await.unwrap();
    let house = house["id"].as_str().unwrap().to_owned();

    let duration = Duration::from_secs(seconds) / 2;
    let players = Arc::new(players);
    let (mut tickets, mut transfers) = (LoadRun::default(), LoadRun::default());
    for _round in 0..2 {
        let (players_t, base_t, service_t, house_t) =
            (Arc::clone(&players), base.clone(), service.clone(), house.clone());
        transfers.absorb(
            load(&http, clients, duration, move |i| {
                let (_, wallet) = &players_t[i];
                let body = json!({"id": Uuid::now_v7(), "debit_account_id": wallet, "credit_account_id": house_t, "amount": 1, "currency": "USD"});
                (format!("{base_t}/v1/transfers"), service_t.clone(), body)
            })
            .await,
        );
        tickets.absorb(common::keno_play_now(&http, &base, &players, duration).await);
    }
    let (t_rate, t_p50, t_p99) =
        (tickets.per_second(), tickets.percentile_ms(0.5), tickets.percentile_ms(0.99));
    let (r_rate, r_p50, r_p99) =
        (transfers.per_second(), transfers.percentile_ms(0.5), transfers.percentile_ms(0.99));
    let chain = platform::audit::verify(&draws.pool).await.unwrap();
    assert!(chain.intact);
    println!();
    println!("{clients} concurrent players, {seconds} s in all (alternating halves)");
    println!("{:<46} {:>10} {:>9} {:>9}", "through the gateway", "per s", "p50 ms", "p99 ms");
    println!("{:<46} {:>10.0} {:>9.2} {:>9.2}", "ledger single transfers (reference)", r_rate, r_p50, r_p99);
    println!(
        "{:<46} {:>10.0} {:>9.2} {:>9.2}  {:.2}x reference",
        "keno play-now tickets",
        t_rate,
        t_p50,
        t_p99,
        t_rate / r_rate
    );
    println!("{}", transfers.cpu_note("ledger transfer"));
    println!("{}", tickets.cpu_note("ticket"));
    println!("audit chain: {} records, intact", chain.records);
    println!("target: at least 1,000 tickets/s  {}", if t_rate >= 1000.0 { "met" } else { "MISSED" });

    let size: i64 = bench_knob("BENCH_DRAW_TICKETS", 100_000i64, 20_000).unwrap();
    settle_one_draw(&draws, &setup, size).await;
}

/// Fills the next scheduled draw with `size` tickets (written directly: buying them is what part
/// 1 measures), lets its sales close, and times close, draw and settle.
async fn settle_one_draw(draws: &draw_games::DrawsState, setup: &ServiceClient, size: i64) {
    use rand::{Rng, SeedableRng};
    let mut state = draws.clone();
    let schedule = state.schedule;
    let number = schedule.next_after(chrono::Utc::now());
    state.clock =
        platform::clock::Clock::manual(schedule.sales_close_at(number) - chrono::Duration::seconds(1));
    let mut conn = state.pool.acquire().await.unwrap();
    schedule.ensure_draws(&mut conn, number, number).await.unwrap();
    drop(conn);

    // 1,000 players' wallets; the stakes are already in escrow (one transfer from a funded account).
    let mut wallets = Vec::new();
    for _ in 0..1000 {
        let owner = Uuid::now_v7().to_string();
        let wallet: Value = setup
            .post(
                "/v1/accounts",
                &json!({"kind": "player_wallet", "owner": owner, "currency": "USD"}),
                Retry::Safe,
            )
            .await
            .unwrap();
        wallets.push(wallet["id"].as_str().unwrap().parse::<Uuid>().unwrap());
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let (mut ids, mut owners, mut spots, mut counts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..size {
        ids.push(Uuid::now_v7());
        owners.push(wallets[usize::try_from(i).unwrap() % wallets.len()]);
        let marks: usize = rng.random_range(1..=10);
        let mut picked: Vec<i16> = Vec::new();
        while picked.len() < marks {
            let n: i16 = rng.random_range(1..=80);
            if !picked.contains(&n) {
                picked.push(n);
            }
        }
        spots.push(format!("{{{}}}", picked.iter().map(i16::to_string).collect::<Vec<_>>().join(",")));
        counts.push(rng.random_range(1..=5i32));
    }
    let stakes: i64 = counts.iter().map(|&c| i64::from(c) * 100).sum();
    let funder: Value = setup
        .post(
            "/v1/accounts",
            &json!({"kind": "player_wallet", "owner": "bench-funder", "currency": "USD"}),
            Retry::Safe,
        )
        .await
        .unwrap();
    let deposit =
        json!({"id": Uuid::now_v7(), "account_id": funder["id"], "amount": stakes, "currency": "USD"});
    let _: Value = setup.post("/v1/deposits", &deposit, Retry::Safe).await.unwrap();
    let to_escrow = json!({"id": Uuid::now_v7(), "debit_account_id": funder["id"], "credit_account_id": state.escrow_account,
                           "amount": stakes, "currency": "USD"});
    let _: Value = setup.post("/v1/transfers", &to_escrow, Retry::Safe).await.unwrap();
    sqlx::query(
        "INSERT INTO keno_draw_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents, draws, first_draw, state)
         SELECT u.id, 'bench', u.wallet, 'bet', u.spots::smallint[], u.tickets, u.tickets * 100, 1, $5, 'staked'
           FROM UNNEST($1::uuid[], $2::uuid[], $3::text[], $4::int[]) AS u(id, wallet, spots, tickets)",
    )
    .bind(&ids)
    .bind(&owners)
    .bind(&spots)
    .bind(&counts)
    .bind(number)
    .execute(&state.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO keno_entries (draw_number, ticket_id, wallet_account_id, option, spots, tickets, stake_cents)
         SELECT $1, id, wallet_account_id, option, spots, tickets, stake_cents FROM keno_draw_tickets WHERE first_draw = $1",
    )
    .bind(number)
    .execute(&state.pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE keno_entries").execute(&state.pool).await.unwrap();

    state.clock.advance(chrono::Duration::seconds(2));
    let started = std::time::Instant::now();
    keno_draws::close_draw(&state, number).await.unwrap();
    let closed = started.elapsed();
    keno_draws::draw_numbers(&state, number).await.unwrap();
    let drawn = started.elapsed();
    keno_draws::settle_draw(&state, number).await.unwrap();
    let settled = started.elapsed();

    let reference = std::time::Instant::now();
    sqlx::query("UPDATE keno_entries SET hits = hits WHERE draw_number = $1")
        .bind(number)
        .execute(&state.pool)
        .await
        .unwrap();
    let reference = reference.elapsed();

    let (entries, paid, winners, prizes): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE paid), count(*) FILTER (WHERE payout_cents > 0),
                coalesce(sum(payout_cents), 0)::bigint FROM keno_entries WHERE draw_number = $1",
    )
    .bind(number)
    .fetch_one(&state.pool)
    .await
    .unwrap();
    assert_eq!((entries, paid), (size, size), "every entry settled");
    let escrow: Value = setup.get(&format!("/v1/accounts/{}", state.escrow_account)).await.unwrap();
    assert_eq!(escrow["balance"]["posted"], 0, "every stake left escrow");
    let trial: Value = setup.get("/v1/reports/trial-balance").await.unwrap();
    assert_eq!(trial["balanced"], true);
    // The second reference: the same prizes sent again as the settlement's ledger batches, alone.
    let won: Vec<(Uuid, i64)> = sqlx::query_as(
        "SELECT wallet_account_id, payout_cents FROM keno_entries WHERE draw_number = $1 AND payout_cents > 0 ORDER BY ticket_id",
    )
    .bind(number)
    .fetch_all(&state.pool)
    .await
    .unwrap();
    let chunks = usize::try_from(size).unwrap().div_ceil(usize::try_from(keno_draws::SETTLE_CHUNK).unwrap());
    let purpose = ledger_api::Purpose::of(ledger_api::Game::CastleKeno, ledger_api::Money::Prize);
    let batches = common::prizes_as_batches(
        &state.ledger,
        state.house_account,
        &won,
        chunks,
        keno_draws::SETTLE_IN_FLIGHT,
        &purpose,
    )
    .await;
    let floors = reference + batches;
    println!();
    println!("one scheduled draw holding {size} tickets ({winners} winners, ${} in prizes)", prizes / 100);
    println!("{:<46} {:>10}", "step", "seconds");
    println!("{:<46} {:>10.2}", "close (freeze and hash the wager set)", closed.as_secs_f64());
    println!("{:<46} {:>10.2}", "draw (numbers + audit record)", (drawn - closed).as_secs_f64());
    println!(
        "{:<46} {:>10.2}",
        "settle (stakes, prizes through the ledger)",
        (settled - drawn).as_secs_f64()
    );
    println!(
        "{:<46} {:>10.2}  {:.1}x reference",
        "close + draw + settle",
        settled.as_secs_f64(),
        settled.as_secs_f64() / reference.as_secs_f64()
    );
    println!("{:<46} {:>10.2}", "reference: one UPDATE of the same entries", reference.as_secs_f64());
    println!(
        "{:<46} {:>10.2}  ({} batches, {} at once)",
        "reference: the same prizes as ledger batches",
        batches.as_secs_f64(),
        chunks,
        keno_draws::SETTLE_IN_FLIGHT
    );
    let ratio = settled.as_secs_f64() / floors.as_secs_f64();
    println!(
        "target (issue 52, proposed): close + draw + settle <= 1.5x the two references' sum  {ratio:.2}x {}",
        if ratio <= 1.5 { "met" } else { "MISSED" }
    );
}

/// `clients` loops each POSTing what `request(client)` builds (a fresh id every time).
async fn load<F>(http: &reqwest::Client, clients: usize, duration: Duration, request: F) -> LoadRun
where
    F: Fn(usize) -> (String, String, Value) + Send + Sync + 'static,
{
    let http = http.clone();
    closed_loop(clients, duration, move |client| {
        let (url, token, mut body) = request(client);
        if body.get("id").is_some() {
            body["id"] = json!(Uuid::now_v7());
        }
        common::succeeds(http.post(url).bearer_auth(token).json(&body))
    })
    .await
}
