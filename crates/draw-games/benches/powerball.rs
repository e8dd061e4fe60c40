//! Powerball at scale, in one run:
//!
//! 1. **sales**: `BENCH_CLIENTS` terminals (default 64) selling 5-board quick-pick slips through
//!    the gateway on a real socket, all services in one process as `lotto` runs them: plays per
//!    second at saturation (each terminal sells again as soon as it is answered), and the p99
//!    at the target's 2,000 plays/s offered at a steady pace. References, in the same run: the
//!    ledger account read through the same gateway that the instant validations benchmark uses,
//!    and Keno play-now tickets bought by as many players (a slip against a ticket: issue 52).
//! 2. **a drawing of `BENCH_PLAYS` plays** (default 10,000,000 quick picks on 2,000 retailers'
//!    tickets of five boards, one ticket in ten sold online): the close (counts, and the
//!    canonical export written and hashed), the results, the set-based settlement, the
//!    independent recount `lotto verify-draw` makes from the export, the certification, and the
//!    online prizes paid; with the peak memory of this process (the service's side; Postgres is
//!    its own process). References, in the same run: one set-based statement that reads every play
//!    of the drawing and counts its matches (what finding the winners must read); the sorted
//!    export's `COPY` alone (what the close must stream); and the online prizes sent again as the
//!    same ledger batches, alone (what paying them must take: issue 52).
//!
//! Run: `cargo bench -p draw-games --bench powerball` (env: `BENCH_SECONDS`, default 10;
//! `BENCH_CLIENTS`; `BENCH_PLAYS`; `BENCH_POOL`, the pool per service, default as `lotto`).
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing
)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use domain::powerball::Board;
use domain::serial::TicketSerial;
use draw_games::saga::powerball::draws as powerball_draws;
use platform::auth::Role;
use platform::client::ServiceClient;
use platform::clock::Clock;
use platform::config::{Config, env_or};
use platform::http::{Limits, Readiness};
use platform::testing::{LoadRun, bench_knob, closed_loop};
use platform::upstream::Upstream;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;
use uuid::Uuid;

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 10u64, 3).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 64usize).unwrap();
    let plays: u64 = bench_knob("BENCH_PLAYS", 10_000_000u64, 500_000).unwrap();
    let url = platform::testing::bench_database("powerball").await.unwrap();
    let config = Config {
        db_max_connections: env_or("BENCH_POOL", Config::default().db_max_connections).unwrap(),
        ..Config::default()
    };
    let mut options = assembly::Options::for_tests().unwrap();
    options.config = config;
    let platform = assembly::Assembly::start(&url, options).await.unwrap();
    // The service's clock stands on a Tuesday noon, central time, so sales are open whenever
    // this runs (a real 8:59 p.m. close would refuse them).
    let mut draws = platform.draws.clone();
    draws.clock = Clock::manual("2026-12-01T18:00:00Z".parse::<DateTime<Utc>>().unwrap());
    let gateway = platform
        .gateway
        .clone()
        .without_rate_limits()
        .with_draws(Upstream::local("draw-games", draw_games::api_routes(draws.clone())));
    let app = platform::http::app(platform.gateway_routes(gateway), Readiness::default(), Limits::default());
    let base = platform::testing::serve_on_loopback(app).await.unwrap();

    sales(&platform, &base, clients, Duration::from_secs(seconds)).await;
    settle_a_drawing(&draws, plays).await;
    // The 10-million-play export is hundreds of megabytes: not left behind.
    let _ = std::fs::remove_dir_all(&draws.settings.powerball.export_dir);
}

/// Part 1: terminals selling 5-board slips beside the ledger-read reference.
async fn sales(platform: &assembly::Assembly, base: &str, clients: usize, duration: Duration) {
    let tokens = &platform.tokens;
    let terminals: Arc<Vec<String>> = Arc::new(
        (0..clients)
            .map(|i| {
                let shop = format!("shop-{}", i % 64);
                tokens
                    .issue_for(
                        &format!("till-{i}"),
                        Role::Retailer,
                        None,
                        Some(&shop),
                        Duration::from_secs(3600),
                    )
                    .unwrap()
            })
            .collect(),
    );
    let service = tokens.service_token("bench").unwrap();
    let account = platform.draws.powerball_accounts.escrow;
    let http = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap();
    // The issue's reference for a slip: a Keno play-now ticket, by as many players.
    let setup = ServiceClient::new(base).unwrap().as_service(tokens.clone(), "bench");
    let players = Arc::new(common::funded_players(&setup, tokens, clients).await);
    let half = duration / 2;
    let (mut sold, mut reference, mut keno) = (LoadRun::default(), LoadRun::default(), LoadRun::default());
    for _round in 0..2 {
        keno.absorb(common::keno_play_now(&http, base, &players, half).await);
        let (http_r, url_r, token_r) =
            (http.clone(), format!("{base}/v1/accounts/{account}"), service.clone());
        reference.absorb(
            closed_loop(clients, half, move |_| {
                let get = http_r.get(&url_r).bearer_auth(&token_r);
                async move {
                    let response = get.send().await.unwrap();
                    assert!(response.status().is_success(), "{}", response.status());
                    response.bytes().await.unwrap();
                    1
                }
            })
            .await,
        );
        let (http_s, url_s, terminals_s) =
            (http.clone(), format!("{base}/v1/powerball/retail/tickets"), Arc::clone(&terminals));
        sold.absorb(
            closed_loop(clients, half, move |terminal| sell_slip(&http_s, &url_s, &terminals_s[terminal]))
                .await,
        );
    }
    let (s_rate, s_p50, s_p99) = (sold.per_second(), sold.percentile_ms(0.5), sold.percentile_ms(0.99));
    let (r_rate, r_p50, r_p99) =
        (reference.per_second(), reference.percentile_ms(0.5), reference.percentile_ms(0.99));
    println!();
    println!(
        "{clients} terminals selling 5-board quick-pick slips, {} s in all (alternating halves)",
        duration.as_secs()
    );
    println!("{:<44} {:>10} {:>9} {:>9}", "through the gateway", "per s", "p50 ms", "p99 ms");
    println!("{:<44} {:>10.0} {:>9.2} {:>9.2}", "ledger account read (reference)", r_rate, r_p50, r_p99);
    println!(
        "{:<44} {:>10.0} {:>9.2} {:>9.2}  {:.2}x reference",
        "Powerball plays sold",
        s_rate,
        s_p50,
        s_p99,
        s_rate / r_rate
    );
    let (k_rate, k_p50, k_p99) = (keno.per_second(), keno.percentile_ms(0.5), keno.percentile_ms(0.99));
    println!("{:<44} {:>10.0} {:>9.2} {:>9.2}", "Keno play-now tickets (reference)", k_rate, k_p50, k_p99);
    println!(
        "{:<44} {:>10.0} {:>9.2} {:>9.2}  {:.2}x Keno play-now",
        "Powerball slips sold (5 plays each)",
        s_rate / 5.0,
        s_p50,
        s_p99,
        s_rate / 5.0 / k_rate
    );
    println!("{}", sold.cpu_note("play"));
    println!("{}", keno.cpu_note("Keno ticket"));
    // The target's rate offered at a steady pace: each terminal sells a slip every
    // 64 / 400 s, so 2,000 plays/s in all, and the latency is the counter's at that rate.
    let every = Duration::from_secs_f64(clients as f64 / 400.0);
    let (http_p, url_p, terminals_p) =
        (http.clone(), format!("{base}/v1/powerball/retail/tickets"), Arc::clone(&terminals));
    let paced = platform::testing::open_loop(clients, every, duration, move |terminal| {
        sell_slip(&http_p, &url_p, &terminals_p[terminal])
    })
    .await;
    let (p_rate, p_p50, p_p99) = (paced.per_second(), paced.percentile_ms(0.5), paced.percentile_ms(0.99));
    println!(
        "{:<44} {:>10.0} {:>9.2} {:>9.2}  offered 2,000/s",
        "Powerball plays sold, paced (open loop)", p_rate, p_p50, p_p99
    );
    let met = s_rate >= 2_000.0 && p_rate >= 1_900.0 && p_p99 < 50.0;
    println!(
        "target: at least 2,000 plays/s (saturated), and p99 under 50 ms at 2,000 plays/s  {}",
        if met { "met" } else { "MISSED" }
    );
}

/// One 5-board quick-pick slip sold by the terminal logged in as `token`; its plays.
fn sell_slip(http: &reqwest::Client, url: &str, token: &str) -> impl Future<Output = u64> + use<> {
    let post = http
        .post(url)
        .bearer_auth(token)
        .header("idempotency-key", Uuid::now_v7().to_string())
        .json(&json!({"quick_picks": 5}));
    async move { common::succeeds(post).await * 5 }
}

/// The peak resident memory of this process so far, in MiB (Linux's VmHWM).
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Part 2: one drawing of `plays` plays, from the close to the paid online prizes.
async fn settle_a_drawing(draws: &draw_games::DrawsState, plays: u64) {
    let pool = &draws.pool;
    // Saturday's drawing, whose sales the service's clock (Tuesday) has not reached.
    let drawing = draws.powerball.drawing_on("2026-12-05".parse().unwrap());
    draw_games::saga::powerball::sales::ensure_drawings(draws, &[drawing]).await.unwrap();
    let operator_set = draw_games::store::powerball::drawings::set_grand_prize(
        pool,
        drawing.date,
        20_000_000_000,
        9_000_000_000,
    );
    operator_set.await.unwrap().unwrap();

    // The plays, written straight into the drawing's partition (the sales path is part 1), and
    // their tickets: five boards each, on 2,000 retailers, one ticket in ten online.
    let loading = Instant::now();
    let tickets = plays.div_ceil(5);
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let mut serials = Vec::with_capacity(tickets as usize);
    let mut conn = pool.acquire().await.unwrap();
    let mut copy = conn
        .copy_in_raw("COPY pb_plays (draw_date, serial, board, w1, w2, w3, w4, w5, powerball, power_play, online) FROM STDIN")
        .await
        .unwrap();
    let mut chunk = String::with_capacity(8 << 20);
    let mut written = 0u64;
    for t in 0..tickets {
        let serial = TicketSerial::random(&mut rng).body();
        let online = t % 10 == 0;
        let power_play = t % 3 == 0;
        serials.push((serial, online, power_play));
        for board in 1..=5u64 {
            if written == plays {
                break;
            }
            let b = Board::quick_pick(&mut rng);
            let [w1, w2, w3, w4, w5] = b.whites;
            chunk.push_str(&format!(
                "{}\t{serial}\t{board}\t{w1}\t{w2}\t{w3}\t{w4}\t{w5}\t{}\t{}\t{}\n",
                drawing.date, b.powerball, power_play, online
            ));
            written += 1;
        }
        if chunk.len() > (8 << 20) - 256 {
            copy.send(chunk.as_bytes()).await.unwrap();
            chunk.clear();
        }
    }
    copy.send(chunk.as_bytes()).await.unwrap();
    copy.finish().await.unwrap();
    let mut copy = conn
        .copy_in_raw(
            "COPY pb_tickets (id, serial, channel, seller, sold_by, debit_account, whites, powerballs, quick_picks,
                              power_play, draws, cost_cents, first_draw, state, created_at) FROM STDIN",
        )
        .await
        .unwrap();
    let online_wallet = draws.powerball_accounts.house;
    let mut chunk = String::with_capacity(8 << 20);
    for (i, &(serial, online, power_play)) in serials.iter().enumerate() {
        // The boards themselves live in the plays; the ticket row carries placeholders of the
        // right shape (the settlement reads only its wallet).
        let (channel, seller, account) = if online {
            ("online", format!("player-{i}"), online_wallet)
        } else {
            let shop = format!("shop-{}", i % 2_000);
            let account = ledger_api::retailer_account(&shop);
            ("terminal", shop, account)
        };
        let cost = domain::powerball::slip_cents(5, power_play);
        chunk.push_str(&format!(
            "{}\t{serial}\t{channel}\t{seller}\t{seller}\t{account}\t{{1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5,1,2,3,4,5}}\t{{1,1,1,1,1}}\t5\t{power_play}\t1\t{cost}\t{}\tsold\t2026-12-01 18:00:00+00\n",
            Uuid::new_v4(),
            drawing.date
        ));
        if chunk.len() > (8 << 20) - 512 {
            copy.send(chunk.as_bytes()).await.unwrap();
            chunk.clear();
        }
    }
    copy.send(chunk.as_bytes()).await.unwrap();
    copy.finish().await.unwrap();
    drop(conn);
    sqlx::query("ANALYZE pb_plays").execute(pool).await.unwrap();
    println!();
    println!(
        "loaded {plays} plays on {tickets} tickets in {:.1} s (setup, not measured)",
        loading.elapsed().as_secs_f64()
    );
    // The escrow holds what these sales paid (as the sales path would have moved it).
    let wagers: i64 = sqlx::query_scalar("SELECT (count(*) * 200 + count(*) FILTER (WHERE power_play) * 100)::bigint FROM pb_plays WHERE draw_date = $1")
        .bind(drawing.date)
        .fetch_one(pool)
        .await
        .unwrap();
    let funding = ledger_api::NewTransfer::new(
        Uuid::new_v4(),
        ledger_api::retailer_account("shop-0"),
        draws.powerball_accounts.escrow,
        wagers,
        ledger_api::Purpose::of(ledger_api::Game::Powerball, ledger_api::Money::Stake),
    );
    draws
        .ledger
        .open_accounts(
            "shop-0",
            &[(ledger_api::retailer_account("shop-0"), ledger_api::AccountKind::RetailerSettlement)],
        )
        .await
        .unwrap();
    draws.ledger.transfer(&funding).await.unwrap();

    // The sorted export's COPY alone, drained: what the close cannot do without. Timed before
    // the drawing, on the table as the close finds it (after, autovacuum may be reading it).
    let export_started = Instant::now();
    let mut conn = pool.acquire().await.unwrap();
    let mut copy =
        conn.copy_out_raw(&draw_games::store::powerball::wager_set::export_copy(drawing.date)).await.unwrap();
    while let Some(chunk) = futures_util::StreamExt::next(&mut copy).await {
        chunk.unwrap();
    }
    drop(copy);
    drop(conn);
    let export_copy = export_started.elapsed();
    drop(serials);
    let rss_before = peak_rss_mib();
    // Linux resets the peak (VmHWM) to the current size on "5": what follows is the drawing's.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    draws.clock.set(drawing.sales_close);
    let started = Instant::now();
    powerball_draws::close_drawing(draws, drawing.date).await.unwrap();
    let closed = started.elapsed();
    let results = json!({"whites": [3, 17, 29, 44, 61], "powerball": 9, "multiplier": 2});
    for operator in ["olga", "oscar"] {
        let whites: Vec<u8> = serde_json::from_value(results["whites"].clone()).unwrap();
        powerball_draws::enter_results(draws, drawing.date, operator, &whites, 9, 2).await.unwrap();
    }
    let entered = started.elapsed();
    powerball_draws::settle_drawing(draws, drawing.date).await.unwrap();
    let settled = started.elapsed();
    let stored = draw_games::store::powerball::drawings::get(pool, drawing.date).await.unwrap().unwrap();
    let path = std::path::PathBuf::from(stored.export_file.clone().unwrap());
    let (stored_results, pool_cents) = (stored.results.unwrap(), stored.advertised_cents.unwrap());
    let recount_started = Instant::now();
    let recount =
        tokio::task::spawn_blocking(move || draw_games::export::recount(&path, &stored_results, pool_cents))
            .await
            .unwrap()
            .unwrap();
    let recounted = recount_started.elapsed();
    let verification = powerball_draws::certify(
        pool,
        drawing.date,
        recount.sha256,
        recount.plays,
        &recount.prize_table,
        Utc::now(),
    )
    .await
    .unwrap();
    assert_eq!(verification.state, "certified", "{verification:?}");
    let certified = started.elapsed();
    let stored = draw_games::store::powerball::drawings::get(pool, drawing.date).await.unwrap().unwrap();
    powerball_draws::pay_certified(draws, &stored).await.unwrap();
    let paid = started.elapsed();
    let rss_after = peak_rss_mib();

    let reference_started = Instant::now();
    let _: (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE powerball = $2 OR
                (w1 = ANY($3))::int + (w2 = ANY($3))::int + (w3 = ANY($3))::int + (w4 = ANY($3))::int + (w5 = ANY($3))::int >= 3)
           FROM pb_plays WHERE draw_date = $1",
    )
    .bind(drawing.date)
    .bind(9i16)
    .bind(vec![3i16, 17, 29, 44, 61])
    .fetch_one(pool)
    .await
    .unwrap();
    let reference = reference_started.elapsed();

    // The second reference: the online prizes sent again, from the same account to the same
    // wallets, as ledger batches shaped as the payment's, alone.
    let online_prizes: Vec<(Uuid, i64)> = sqlx::query_as(
        "SELECT t.debit_account, sum(w.prize_cents)::bigint FROM pb_winners w JOIN pb_tickets t ON t.serial = w.serial
          WHERE w.draw_date = $1 AND w.online AND w.paid_at IS NOT NULL GROUP BY w.serial, t.debit_account ORDER BY w.serial",
    )
    .bind(drawing.date)
    .fetch_all(pool)
    .await
    .unwrap();
    let purpose = ledger_api::Purpose::of(ledger_api::Game::Powerball, ledger_api::Money::Prize);
    let slices = online_prizes.len().div_ceil(usize::try_from(powerball_draws::PAY_CHUNK).unwrap());
    let batches = common::prizes_as_batches(
        &draws.ledger,
        draws.powerball_accounts.prizes,
        &online_prizes,
        slices,
        powerball_draws::PAY_IN_FLIGHT,
        &purpose,
    )
    .await;

    let winners: i64 = sqlx::query_scalar("SELECT count(*) FROM pb_winners WHERE draw_date = $1")
        .bind(drawing.date)
        .fetch_one(pool)
        .await
        .unwrap();
    let online_paid: i64 =
        sqlx::query_scalar("SELECT count(DISTINCT serial) FROM pb_winners WHERE draw_date = $1 AND online AND paid_at IS NOT NULL")
            .bind(drawing.date)
            .fetch_one(pool)
            .await
            .unwrap();
    let size_mib =
        std::fs::metadata(stored.export_file.as_ref().unwrap()).unwrap().len() as f64 / 1_048_576.0;
    println!(
        "one drawing of {plays} plays: {winners} winning plays, {online_paid} online tickets paid to wallets"
    );
    println!("{:<52} {:>10}", "step", "seconds");
    println!(
        "{:<52} {:>10.2}",
        format!("close (counts; export of {size_mib:.0} MiB written, hashed)"),
        closed.as_secs_f64()
    );
    println!("{:<52} {:>10.2}", "results (two operators' entries)", (entered - closed).as_secs_f64());
    println!("{:<52} {:>10.2}", "settle (set-based winners, prize table)", (settled - entered).as_secs_f64());
    println!("{:<52} {:>10.2}", "verify-draw's recount of the export", recounted.as_secs_f64());
    println!("{:<52} {:>10.2}", "certify (compare, chain)", (certified - settled - recounted).as_secs_f64());
    let paying = (paid - certified).as_secs_f64();
    let rate = online_paid as f64 / paying;
    println!("{:<52} {:>10.2}  {rate:.0} tickets/s", "online prizes paid", paying);
    println!(
        "{:<52} {:>10.2}  {:.1}x reference",
        "close to paid, in all",
        paid.as_secs_f64(),
        paid.as_secs_f64() / reference.as_secs_f64()
    );
    println!("{:<52} {:>10.2}", "reference: one statement reading every play", reference.as_secs_f64());
    println!(
        "{:<52} {:>10.2}  {:.0} transfers/s",
        "reference: the online prizes as ledger batches alone",
        batches.as_secs_f64(),
        online_prizes.len() as f64 / batches.as_secs_f64()
    );
    println!(
        "peak RSS of this process: {rss_before:.0} MiB through the setup; {rss_after:.0} MiB through the drawing{}",
        if reset {
            " (peak reset before it)"
        } else {
            " (the peak could not be reset: it includes the setup)"
        }
    );
    println!("{:<52} {:>10.2}", "reference: the sorted export's COPY alone", export_copy.as_secs_f64());
    let floors = reference + batches + export_copy;
    let ratio = paid.as_secs_f64() / floors.as_secs_f64();
    println!(
        "target (issue 52, proposed): close to paid <= 3x the three references' sum ({:.2} s)  {ratio:.2}x {}",
        floors.as_secs_f64(),
        if ratio <= 3.0 { "met" } else { "MISSED" }
    );
    println!(
        "target (issue 52): online prizes at least 20,000 tickets/s  {rate:.0} {}",
        if rate >= 20_000.0 { "met" } else { "MISSED" }
    );
    let met = paid.as_secs_f64() < 60.0 && recounted.as_secs_f64() < 60.0;
    println!(
        "target: the drawing settled under 60 s and verify-draw under 60 s  {}",
        if met { "met" } else { "MISSED" }
    );
}
