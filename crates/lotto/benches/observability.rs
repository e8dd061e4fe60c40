//! What watching the platform costs (issue 51): Keno play-now tickets per second through the
//! release `lotto` with everything an operator turns on (metrics recorded and scraped every
//! second as Prometheus would, a JSON line per request at `info`, traces exported over OTLP to a
//! receiver this program serves), beside the same with everything off (`LOTTO_METRICS=off`,
//! `LOTTO_LOG=warn`, no OTLP endpoint), in the same run: two processes on databases of their
//! own, loaded in turn (off, on, on, off, ...) so that the machine's noise falls on both. Beside
//! the rates it prints the CPU time a ticket took, of `lotto` and of the whole machine: the
//! steadier figure on two shared cores, where one round's rate moves by 10% from the next.
//!
//! Run: `cargo bench -p lotto --bench observability` (`BENCH_SECONDS` a round, default 8;
//! `BENCH_ROUNDS` each way, default 8; `BENCH_CLIENTS`, default 16; `BENCH_WATCH`, what is on:
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
use platform::testing::bench_knob;
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

/// What one round measured.
struct Round {
    tickets_per_second: f64,
    p99_ms: f64,
    /// The `lotto` process's CPU time a ticket, in milliseconds: what watching costs, apart
    /// from how the machine's two cores happened to be shared out in the round.
    lotto_cpu_ms: f64,
    /// The whole machine's (`lotto`, Postgres, the load) busy CPU time a ticket.
    machine_cpu_ms: f64,
}

/// One round at `lotto`.
async fn round(lotto: &Lotto, players: &[String], clients: usize, seconds: u64) -> Round {
    let cpu_before = platform::testing::process_cpu_seconds(lotto.pid()).unwrap_or(0.0);
    let http = reqwest::Client::new();
    let base = &lotto.base_url;
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
    let cpu = platform::testing::process_cpu_seconds(lotto.pid()).unwrap_or(0.0) - cpu_before;
    Round {
        tickets_per_second: run.per_second(),
        p99_ms: run.percentile_ms(0.99),
        lotto_cpu_ms: cpu * 1000.0 / (run.units.max(1) as f64),
        machine_cpu_ms: run.cpu_ms_per_unit(),
    }
}

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 8u64, 3).unwrap();
    let rounds: usize = bench_knob("BENCH_ROUNDS", 8usize, 2).unwrap();
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

    let (mut off_rounds, mut on_rounds) = (Vec::new(), Vec::new());
    // Off, on, on, off, ...: a drift of the machine over the run falls on both alike.
    for n in 0..rounds * 2 {
        let watched_now = (n % 4 == 1) || (n % 4 == 2);
        if watched_now {
            on_rounds.push(round(&watched, &watched_players, clients, seconds).await);
        } else {
            off_rounds.push(round(&quiet, &quiet_players, clients, seconds).await);
        }
    }
    let mean = |v: &[Round], f: fn(&Round) -> f64| v.iter().map(f).sum::<f64>() / v.len() as f64;
    let (off_rate, on_rate) =
        (mean(&off_rounds, |r| r.tickets_per_second), mean(&on_rounds, |r| r.tickets_per_second));
    println!(
        "Keno play-now through the release lotto: {clients} clients, {rounds} rounds of {seconds} s each way, in turn\n"
    );
    println!(
        "{:<48}{:>10}{:>8}{:>8}{:>14}{:>16}",
        "", "tickets/s", "vs off", "p99 ms", "lotto CPU ms", "machine CPU ms"
    );
    for (name, rounds, rate) in [
        ("everything off (reference)".to_owned(), &off_rounds, off_rate),
        (format!("on: {watch}; traces sampled {sample}"), &on_rounds, on_rate),
    ] {
        println!(
            "{:<48}{:>10.0}{:>7.2}x{:>8.1}{:>14.3}{:>16.3}",
            name,
            rate,
            rate / off_rate,
            mean(rounds, |r| r.p99_ms),
            mean(rounds, |r| r.lotto_cpu_ms),
            mean(rounds, |r| r.machine_cpu_ms)
        );
    }
    let each = |v: &[Round]| v.iter().map(|r| r.tickets_per_second.round()).collect::<Vec<_>>();
    println!(
        "\nper round, off: {:?}; on: {:?}\n{} scrapes; {} KB of spans exported",
        each(&off_rounds),
        each(&on_rounds),
        scrapes.load(Ordering::Relaxed),
        exported.load(Ordering::Relaxed) / 1024
    );
    quiet.kill();
    watched.kill();
}
