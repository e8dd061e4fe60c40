//! The ledger benchmark: a program, not a timed test (architecture §10).
//!
//! In one run on one machine it measures, over HTTP against a real ledger on a real Postgres:
//! single-transfer throughput and p50/p99 latency with concurrent clients, batch throughput,
//! and the hot-account scenario (every transfer credits one house account) beside the same load
//! spread over many accounts. As the reference it runs `pgbench` (TPC-B) against the same
//! Postgres with the same number of clients, and prints every figure with its ratio; beside the
//! stakes, the same stakes sent by `pgbench` straight to the stored function (the SQL's share),
//! and for each the CPU a transfer took in this process and in Postgres (issue 52).
//!
//! Run: `cargo bench -p ledger` (env: `BENCH_SECONDS`, default 10, 3 under `BENCH_QUICK=1`;
//! `BENCH_CLIENTS`, default 32;
//! `BENCH_SERVER_URL`, default `postgres://postgres@127.0.0.1:5432`). Figures are also written
//! to `target/bench-results/ledger.json`.
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

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use platform::auth::TokenKeys;
use platform::client::{Retry, ServiceClient};
use platform::config::{Config, env_or};
use platform::testing::{bench_knob, closed_loop};
use serde_json::{Value, json};
use uuid::Uuid;

#[path = "ledger/reference.rs"]
mod reference;
#[path = "ledger/shards.rs"]
mod shards;

const WALLETS: usize = 10_000;
const HOUSES: usize = 1_000;
const BATCH_SIZE: usize = 1_000;

struct Figure {
    name: &'static str,
    per_second: f64,
    unit: &'static str,
    p50_ms: Option<f64>,
    p99_ms: Option<f64>,
    /// CPU milliseconds a unit: this process's (load and ledger) and Postgres'.
    cpu_ms: Option<(f64, f64)>,
}

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 10u64, 3).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 32usize).unwrap();
    let server: String = env_or("BENCH_SERVER_URL", "postgres://postgres@127.0.0.1:5432".to_owned()).unwrap();
    let duration = Duration::from_secs(seconds);
    println!("ledger benchmark: {clients} clients, {seconds} s per scenario, Postgres at {server}");

    let reference = reference::pgbench_tps(&server, clients, seconds);
    let tokens = TokenKeys::random();
    let base = start_ledger(&server, "lotto_bench", clients, tokens.clone()).await;
    let client = ServiceClient::with_timeout(base, Duration::from_secs(30))
        .unwrap()
        .as_service(tokens.clone(), "bench");
    let (wallets, houses) = fund_wallets(&client, WALLETS, HOUSES).await;
    let wallets = Arc::new(wallets);
    let houses = Arc::new(houses);

    let single = {
        let wallets = Arc::clone(&wallets);
        run_load("single transfers (wallet to wallet)", &client, clients, duration, move |i, n| {
            let from = wallets[(i * 7919 + n) % WALLETS];
            let to = wallets[(i * 104_729 + n * 31 + 1) % WALLETS];
            ("/v1/transfers", transfer(from, if from == to { wallets[(n + 1) % WALLETS] } else { to }), 1)
        })
        .await
    };
    let batch = {
        let wallets = Arc::clone(&wallets);
        let batch_clients = clients.min(4);
        run_load("batches of 1000 transfers", &client, batch_clients, duration, move |i, n| {
            let transfers: Vec<Value> = (0..BATCH_SIZE)
                .map(|k| {
                    let from = wallets[(i * 7_001 + n * 1_009 + k * 13) % WALLETS];
                    let to = wallets[(i * 3_001 + n * 2_003 + k * 17 + 5) % WALLETS];
                    transfer(from, if from == to { wallets[(k + 1) % WALLETS] } else { to })
                })
                .collect();
            ("/v1/transfers/batch", json!({ "transfers": transfers }), BATCH_SIZE)
        })
        .await
    };
    let hot = {
        let (wallets, houses) = (Arc::clone(&wallets), Arc::clone(&houses));
        run_load("hot: every wager credits one house", &client, clients, duration, move |i, n| {
            ("/v1/transfers", transfer(wallets[(i * 7919 + n) % WALLETS], houses[0]), 1)
        })
        .await
    };
    let spread = {
        let (wallets, houses) = (Arc::clone(&wallets), Arc::clone(&houses));
        run_load("spread: wagers credit 1000 houses", &client, clients, duration, move |i, n| {
            ("/v1/transfers", transfer(wallets[(i * 7919 + n) % WALLETS], houses[(i * 31 + n) % HOUSES]), 1)
        })
        .await
    };

    let stored = reference::stored_function_stakes(&server, clients, seconds, &wallets, &houses).await;
    let sharded = shards::two_ledgers(&server, clients, duration, &tokens).await;
    let bare = reference::bare_batches(&server, clients.min(4), duration, &wallets).await;

    let trial: Value = client.get("/v1/reports/trial-balance").await.unwrap();
    assert_eq!(trial["balanced"], json!(true), "the benchmark left the books unbalanced: {trial}");

    let figures = [
        Figure {
            name: "pgbench TPC-B (reference)",
            per_second: reference,
            unit: "tx/s",
            p50_ms: None,
            p99_ms: None,
            cpu_ms: None,
        },
        single,
        batch,
        hot,
        spread,
        stored,
        bare,
        sharded,
    ];
    println!();
    println!(
        "{:<40} {:>14} {:>10} {:>10} {:>12} {:>12} {:>12}",
        "scenario", "rate", "p50 ms", "p99 ms", "vs pgbench", "bench+ledger", "Postgres"
    );
    let cpu = |ms: Option<f64>| ms.map_or("-".to_owned(), |v| format!("{v:.3} ms"));
    for f in &figures {
        println!(
            "{:<40} {:>9.0} {:<4} {:>10} {:>10} {:>11.2}x {:>12} {:>12}",
            f.name,
            f.per_second,
            f.unit,
            f.p50_ms.map_or("-".to_owned(), |v| format!("{v:.2}")),
            f.p99_ms.map_or("-".to_owned(), |v| format!("{v:.2}")),
            f.per_second / reference,
            cpu(f.cpu_ms.map(|(own, _)| own)),
            cpu(f.cpu_ms.map(|(_, postgres)| postgres)),
        );
    }
    println!("(CPU a transfer: this process, the load and the ledger in one, and every Postgres process)");
    let [_, single, batch, hot, spread, stored, bare, sharded] = &figures;
    println!();
    println!("targets (issue 52):");
    verdict("a stake, hot, >= 0.85x pgbench TPC-B", hot.per_second / reference, 0.85);
    verdict("a stake, spread, >= 0.85x pgbench TPC-B", spread.per_second / reference, 0.85);
    verdict("wallet to wallet >= 0.9x pgbench TPC-B", single.per_second / reference, 0.9);
    // The 80,000 batch transfers/s is past what the bare batch itself runs here, and its
    // rules' reads bound a batch near 0.6x the bare one: the bound proposed (docs/benchmarks.md).
    verdict("batches >= 0.5x the bare batch (proposed)", batch.per_second / bare.per_second, 0.5);
    verdict("hot >= 0.8x spread", hot.per_second / spread.per_second, 0.8);
    verdict("two ledgers on this one machine >= 0.9x one", sharded.per_second / spread.per_second, 0.9);
    verdict("the service >= 0.9x its stored function alone", spread.per_second / stored.per_second, 0.9);

    let report = json!({
        "clients": clients, "seconds": seconds,
        "figures": figures.iter().map(|f| json!({
            "name": f.name, "per_second": f.per_second, "unit": f.unit, "p50_ms": f.p50_ms, "p99_ms": f.p99_ms,
            "ratio_to_pgbench": f.per_second / reference, "cpu_ms": f.cpu_ms,
        })).collect::<Vec<_>>(),
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-results");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ledger.json"), serde_json::to_string_pretty(&report).unwrap()).unwrap();
    println!("\nwritten to target/bench-results/ledger.json");
}

fn verdict(what: &str, ratio: f64, needed: f64) {
    let mark = if ratio >= needed { "met" } else { "MISSED" };
    println!("  {what:<42} {ratio:>6.2} (needs {needed:.2}) {mark}");
}

fn transfer(from: Uuid, to: Uuid) -> Value {
    json!({"id": Uuid::now_v7(), "debit_account_id": from, "credit_account_id": to, "amount": 1, "currency": "USD"})
}

/// Starts the ledger on a fresh database and a real socket; returns its base URL.
async fn start_ledger(server: &str, database: &str, clients: usize, tokens: TokenKeys) -> String {
    let admin = format!("{server}/postgres");
    for sql in
        [format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"), format!("CREATE DATABASE {database}")]
    {
        let ok = Command::new("psql").args([&admin, "-qc", &sql]).status().is_ok_and(|s| s.success());
        assert!(ok, "psql failed: {sql}");
    }
    let config = Config { db_max_connections: u32::try_from(clients).unwrap_or(32), ..Config::default() };
    let pool = ledger::connect(&format!("{server}/{database}"), &config).await.expect("connect ledger");
    let app = ledger::router(ledger::LedgerState::new(pool, tokens), (&config).into());
    platform::testing::serve_on_loopback(app).await.unwrap()
}

/// Creates `wallets` funded wallets and `houses` house accounts.
async fn fund_wallets(client: &ServiceClient, wallets: usize, houses: usize) -> (Vec<Uuid>, Vec<Uuid>) {
    println!("creating {wallets} funded wallets and {houses} house accounts ...");
    let wallets = create_accounts(client, "player_wallet", wallets).await;
    let houses = create_accounts(client, "house_revenue", houses).await;
    // The first deposit creates the cash-clearing account; the rest fund wallets in batches.
    let _: Value = client
        .post(
            "/v1/deposits",
            &json!({"id": Uuid::now_v7(), "account_id": wallets[0], "amount": 1, "currency": "USD"}),
            Retry::Safe,
        )
        .await
        .unwrap();
    let clearing = Uuid::new_v5(&ledger::store::LEDGER_NAMESPACE, b"cash_clearing/USD");
    for chunk in wallets.chunks(BATCH_SIZE) {
        let transfers: Vec<Value> = chunk
            .iter()
            .map(|w| json!({"id": Uuid::now_v7(), "debit_account_id": clearing, "credit_account_id": w, "amount": 100_000_000, "currency": "USD"}))
            .collect();
        let _: Value = client
            .post("/v1/transfers/batch", &json!({ "transfers": transfers }), Retry::Safe)
            .await
            .unwrap();
    }
    (wallets, houses)
}

/// Creates `count` accounts of `kind`, 16 requests at a time.
async fn create_accounts(client: &ServiceClient, kind: &'static str, count: usize) -> Vec<Uuid> {
    let per_task = count.div_ceil(16);
    let tasks: Vec<_> = (0..16)
        .map(|t| {
            let client = client.clone();
            tokio::spawn(async move {
                let mut ids: Vec<Uuid> = Vec::new();
                for i in t * per_task..((t + 1) * per_task).min(count) {
                    let body = json!({"kind": kind, "owner": format!("bench-{kind}-{i}"), "currency": "USD"});
                    let a: Value = client.post("/v1/accounts", &body, Retry::Safe).await.unwrap();
                    ids.push(a["id"].as_str().unwrap().parse().unwrap());
                }
                ids
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(count);
    for task in tasks {
        ids.extend(task.await.unwrap());
    }
    ids
}

/// Runs `clients` loops for `duration`, each sending what `request(client, n)` builds, and
/// counts `weight` transfers per successful request.
async fn run_load<F>(
    name: &'static str,
    client: &ServiceClient,
    clients: usize,
    duration: Duration,
    request: F,
) -> Figure
where
    F: Fn(usize, usize) -> (&'static str, Value, usize) + Send + Sync + 'static,
{
    println!("running {name} for {} s ...", duration.as_secs());
    let client = client.clone();
    let sent = Arc::new(AtomicUsize::new(0));
    let run = closed_loop(clients, duration, move |i| {
        let (path, body, weight) = request(i, sent.fetch_add(1, Ordering::Relaxed));
        let client = client.clone();
        async move {
            // The answer is checked for success only; parsing it into a tree would load the machine.
            let reply: Result<serde::de::IgnoredAny, _> = client.post(path, &body, Retry::Never).await;
            if let Err(e) = reply {
                panic!("{name}: request failed: {e}");
            }
            weight as u64
        }
    })
    .await;
    Figure {
        name,
        per_second: run.per_second(),
        unit: "tr/s",
        p50_ms: Some(run.percentile_ms(0.5)),
        p99_ms: Some(run.percentile_ms(0.99)),
        cpu_ms: Some(run.own_and_postgres_cpu_ms_per_unit()),
    }
}
