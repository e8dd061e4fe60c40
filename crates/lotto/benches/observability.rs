//! What watching the platform costs (issue 51): Keno play-now tickets per second through the
//! release `lotto` with everything an operator turns on (metrics recorded and scraped every
//! second as Prometheus would, a JSON line per request at `info`, traces exported over OTLP to a
//! receiver this program serves), beside the same with everything off (`LOTTO_METRICS=off`,
//! `LOTTO_LOG=warn`, no OTLP endpoint), in the same run: two processes on databases of their
//! own, loaded in turn (off, on, off, on, ...) so that the machine's noise falls on both.
//!
//! Run: `cargo bench -p lotto --bench observability` (`BENCH_SECONDS` a round, default 8;
//! `BENCH_ROUNDS` each way, default 4; `BENCH_CLIENTS`, default 16; `BENCH_WATCH`, what is on:
//! `metrics,logs,traces` by default; `BENCH_SAMPLE`, the share of traces kept, 1 by default).
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss
)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Bytes;
use common::Lotto;
use platform::config::env_or;
use serde_json::json;

/// An OTLP/HTTP receiver that takes every batch and counts its bytes.
async fn receiver() -> (String, Arc<AtomicU64>) {
    let bytes = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&bytes);
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: Bytes| {
            counted.fetch_add(body.len() as u64, Ordering::Relaxed);
            async { ([("content-type", "application/x-protobuf")], Vec::<u8>::new()) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, bytes)
}

/// A `lotto` on a bench database of its own, with `players` players funded.
async fn platform(name: &str, env: Vec<(&'static str, String)>, players: usize) -> (Lotto, Vec<String>) {
    let url = platform::testing::bench_database(name).await.unwrap();
    let mut env = env;
    env.extend([
        ("DATABASE_URL", url),
        // One address, a few identities, at full speed: the limits are not what is measured.
        ("LOTTO_RATE_PER_ADDRESS", "10000000".to_owned()),
        ("LOTTO_RATE_PER_IDENTITY", "10000000".to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "10".to_owned()),
    ]);
    let log = std::fs::File::create(std::env::temp_dir().join(format!("lotto-bench-{name}.log"))).unwrap();
    let lotto = Lotto::start_logging(&env, Duration::from_secs(120), log);
    let http = reqwest::Client::new();
    let mut tokens = Vec::new();
    for n in 0..players {
        let email = format!("{name}-{n}-{}@example.com", uuid::Uuid::new_v4().simple());
        let token = common::player(&http, &lotto.base_url, &email, "correct horse battery staple").await;
        let deposit = json!({"amount": 10_000_000, "currency": "USD"});
        let answer = http
            .post(format!("{}/v1/me/deposits", lotto.base_url))
            .bearer_auth(&token)
            .header("idempotency-key", uuid::Uuid::new_v4().to_string())
            .json(&deposit)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 202);
        tokens.push(token);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    (lotto, tokens)
}

/// Tickets per second and the 99th percentile's milliseconds over one round at `base`.
async fn round(base: &str, players: &[String], clients: usize, seconds: u64) -> (f64, f64) {
    let http = reqwest::Client::new();
    let (base, players) = (base.to_owned(), Arc::new(players.to_vec()));
    let run = platform::testing::closed_loop(clients, Duration::from_secs(seconds), move |client| {
        let (http, base, players) = (http.clone(), base.clone(), Arc::clone(&players));
        async move {
            let answer = http
                .post(format!("{base}/v1/keno/tickets"))
                .bearer_auth(&players[client % players.len()])
                .header("idempotency-key", uuid::Uuid::new_v4().to_string())
                .json(&json!({"option": "bet", "spots": [7, 17, 27], "tickets": 1}))
                .send()
                .await
                .unwrap();
            let status = answer.status();
            assert_eq!(status, 201, "{}", answer.text().await.unwrap_or_default());
            1
        }
    })
    .await;
    (run.units as f64 / run.seconds, run.percentile_ms(0.99))
}

#[tokio::main]
async fn main() {
    let seconds: u64 = env_or("BENCH_SECONDS", 8u64).unwrap();
    let rounds: usize = env_or("BENCH_ROUNDS", 4usize).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 16usize).unwrap();
    let (endpoint, exported) = receiver().await;
    let metrics_port = common::free_port();
    let off = vec![("LOTTO_METRICS", "off".to_owned()), ("LOTTO_LOG", "warn".to_owned())];
    // What is on (`BENCH_WATCH`, default all of it): to see what each part costs.
    let watch: String = env_or("BENCH_WATCH", "metrics,logs,traces".to_owned()).unwrap();
    let mut on = vec![("LOTTO_LOG", "warn".to_owned())];
    if watch.contains("metrics") {
        on.push(("LOTTO_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}")));
    } else {
        on.push(("LOTTO_METRICS", "off".to_owned()));
    }
    if watch.contains("logs") {
        on.extend([("LOTTO_LOG", "info,sqlx=warn".to_owned()), ("LOTTO_LOG_FORMAT", "json".to_owned())]);
    }
    if watch.contains("traces") {
        on.push(("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint));
    }
    // `BENCH_SAMPLE`: the share of traces kept (the SDK's `OTEL_TRACES_SAMPLER_ARG`), 1 by default.
    let sample: String = env_or("BENCH_SAMPLE", "1".to_owned()).unwrap();
    on.extend([
        ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio".to_owned()),
        ("OTEL_TRACES_SAMPLER_ARG", sample.clone()),
    ]);
    let (quiet, quiet_players) = platform("observability_off", off, 8).await;
    let (watched, watched_players) = platform("observability_on", on, 8).await;
    // Prometheus's part: a scrape a second of the watched process.
    let scrapes = Arc::new(AtomicU64::new(0));
    let scraped = Arc::clone(&scrapes);
    tokio::spawn(async move {
        let http = reqwest::Client::new();
        loop {
            let url = format!("http://127.0.0.1:{metrics_port}/metrics");
            if http.get(url).send().await.is_ok_and(|r| r.status().is_success()) {
                scraped.fetch_add(1, Ordering::Relaxed);
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });

    let (mut off_rates, mut on_rates, mut off_p99, mut on_p99) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // Off, on, on, off, ...: a drift of the machine over the run falls on both alike.
    for n in 0..rounds * 2 {
        let watched_now = (n % 4 == 1) || (n % 4 == 2);
        let (base, players) = if watched_now {
            (&watched.base_url, &watched_players)
        } else {
            (&quiet.base_url, &quiet_players)
        };
        let (rate, p99) = round(base, players, clients, seconds).await;
        if watched_now {
            on_rates.push(rate);
            on_p99.push(p99);
        } else {
            off_rates.push(rate);
            off_p99.push(p99);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (off_rate, on_rate) = (mean(&off_rates), mean(&on_rates));
    println!(
        "Keno play-now through the release lotto: {clients} clients, {rounds} rounds of {seconds} s each way, in turn\n"
    );
    println!("{:<58}{:>12}{:>10}{:>10}", "", "tickets/s", "p99 ms", "vs off");
    println!("{:<58}{:>12.0}{:>10.1}{:>9.2}x", "everything off (reference)", off_rate, mean(&off_p99), 1.0);
    println!(
        "{:<58}{:>12.0}{:>10.1}{:>9.2}x",
        format!("on: {watch}; traces sampled {sample}"),
        on_rate,
        mean(&on_p99),
        on_rate / off_rate
    );
    println!(
        "\nper round, off: {:?}; on: {:?}\n{} scrapes; {} KB of spans exported",
        off_rates.iter().map(|r| r.round()).collect::<Vec<_>>(),
        on_rates.iter().map(|r| r.round()).collect::<Vec<_>>(),
        scrapes.load(Ordering::Relaxed),
        exported.load(Ordering::Relaxed) / 1024
    );
    quiet.kill();
    watched.kill();
}
