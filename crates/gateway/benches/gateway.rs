//! The gateway benchmark: what the front door costs (architecture §10).
//!
//! In one run: an authenticated ledger read (`GET /v1/accounts/{id}` with an operator's token)
//! made through the gateway, which checks the token, the session, the role and the rate limits
//! and passes the request to the ledger over HTTP, against the same call made directly to the
//! ledger. Both servers run on real sockets in this process, the ledger on a fresh database.
//!
//! Run: `cargo bench -p gateway` (env: `BENCH_SECONDS`, default 10; `BENCH_CLIENTS`, default 16).
//! Figures are also written to `target/bench-results/gateway.json`.
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

use std::time::Duration;

use platform::auth::{Role, TokenKeys};
use platform::client::{Headers, Retry, ServiceClient};
use platform::config::{Config, env_or};
use platform::http::Limits;
use platform::testing::{LoadRun, bench_knob, closed_loop, serve_on_loopback};
use reqwest::Method;
use serde_json::{Value, json};

struct Figure {
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
}

impl Figure {
    fn of(run: &LoadRun) -> Figure {
        Figure {
            per_second: run.per_second(),
            p50_ms: run.percentile_ms(0.5),
            p99_ms: run.percentile_ms(0.99),
        }
    }
}

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 10u64, 3).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 16usize).unwrap();
    let url = platform::testing::bench_database("gateway").await.unwrap();
    let config = Config { db_max_connections: 32, ..Config::default() };
    let tokens = TokenKeys::random();

    let ledger_pool = ledger::connect(&url, &config).await.unwrap();
    let ledger_app = ledger::router(ledger::LedgerState::new(ledger_pool, tokens.clone()), Limits::default());
    let ledger_url = serve_on_loopback(ledger_app).await.unwrap();

    let gateway_pool = gateway::connect(&url, &config).await.unwrap();
    let upstream =
        platform::upstream::Upstream::remote("ledger", &ledger_url, Duration::from_secs(10)).unwrap();
    // The load comes from one address and one identity; lift the limits (they are still checked).
    let state = gateway::GatewayState::new(
        gateway_pool.clone(),
        tokens.clone(),
        upstream,
        &config,
        &gateway::GatewaySettings::default(),
    )
    .without_rate_limits();
    let gateway_url = serve_on_loopback(gateway::router(state.clone(), Limits::default())).await.unwrap();
    // The same gateway with the ledger mounted in process, as the `lotto` command runs them.
    let ledger_routes = ledger::api_routes(ledger::LedgerState::new(
        ledger::connect(&url, &config).await.unwrap(),
        tokens.clone(),
    ));
    let embedded_state = gateway::GatewayState {
        ledger: ledger_api::LedgerClient::new(
            platform::upstream::Upstream::local("ledger", ledger_routes),
            tokens.clone(),
            "gateway",
        ),
        ..state
    };
    let embedded_url = serve_on_loopback(gateway::router(embedded_state, Limits::default())).await.unwrap();

    // An operator with a real session, and an account to read.
    gateway::create_staff(
        &gateway_pool,
        &gateway::credentials::PasswordWork::new(1, Duration::from_secs(60)),
        "bench-op",
        "bench password 123".into(),
        Role::Operator,
        None,
    )
    .await
    .unwrap();
    let http = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap();
    let setup = ServiceClient::new(gateway_url.as_str()).unwrap();
    // Staff log in with a second factor (issue 49): enrolled as the console does at a first login,
    // the enrolment confirmed with the app's code, its answer the session.
    let credentials = json!({"username": "bench-op", "password": "bench password 123"});
    let shown: Value =
        setup.post("/v1/staff/second-factor/enrolment", &credentials, Retry::Never).await.unwrap();
    let secret = totp_rs::Secret::try_from_base32(shown["secret"].as_str().unwrap()).unwrap();
    let code = totp_rs::Builder::new().with_secret(secret).build().unwrap().generate_current();
    let confirm = json!({"username": "bench-op", "password": "bench password 123", "code": code.to_string()});
    let enrolled: Value =
        setup.post("/v1/staff/second-factor/enrolment/confirm", &confirm, Retry::Never).await.unwrap();
    let token = enrolled["session"]["access_token"].as_str().unwrap().to_owned();
    let as_operator = Headers { bearer: Some(&token), ..Headers::default() };
    let new_account = json!({"kind": "house_revenue", "owner": "bench", "currency": "USD"});
    let account: Value = setup
        .call(Method::POST, "/v1/accounts", Some(&new_account), Retry::Safe, &as_operator)
        .await
        .unwrap();
    let path = format!("/v1/accounts/{}", account["id"].as_str().unwrap());

    // Interleaved rounds, so drift in the machine's load falls on every scenario alike.
    let rounds = 5u32;
    let slice = Duration::from_secs(seconds) / rounds;
    let (mut direct, mut through, mut embedded) =
        (LoadRun::default(), LoadRun::default(), LoadRun::default());
    for _ in 0..rounds {
        direct.absorb(load(&http, format!("{ledger_url}{path}"), &token, clients, slice).await);
        through.absorb(load(&http, format!("{gateway_url}{path}"), &token, clients, slice).await);
        embedded.absorb(load(&http, format!("{embedded_url}{path}"), &token, clients, slice).await);
    }
    let (direct, through, embedded) = (Figure::of(&direct), Figure::of(&through), Figure::of(&embedded));

    println!();
    println!("{:<40} {:>10} {:>10} {:>10}", "authenticated ledger read", "req/s", "p50 ms", "p99 ms");
    for (name, f) in [
        ("direct to the ledger (reference)", &direct),
        ("through the gateway, ledger mounted", &embedded),
        ("through the gateway, ledger over HTTP", &through),
    ] {
        println!("{name:<40} {:>10.0} {:>10.3} {:>10.3}", f.per_second, f.p50_ms, f.p99_ms);
    }
    println!();
    println!("targets (throughput >= 0.85x direct, p50 added <= 1 ms):");
    let verdict = |name: &str, f: &Figure| {
        let (ratio, added) = (f.per_second / direct.per_second, f.p50_ms - direct.p50_ms);
        let mark = |ok: bool| if ok { "met" } else { "MISSED" };
        println!(
            "  {name:<38} {ratio:>5.2}x {}   {added:>+6.3} ms {}",
            mark(ratio >= 0.85),
            mark(added <= 1.0)
        );
        json!({"per_second": f.per_second, "p50_ms": f.p50_ms, "p99_ms": f.p99_ms, "throughput_ratio": ratio, "p50_added_ms": added})
    };
    let embedded_json = verdict("ledger mounted (the lotto process)", &embedded);
    let remote_json = verdict("ledger over HTTP (separate processes)", &through);

    let report = json!({
        "clients": clients, "seconds": seconds,
        "direct": {"per_second": direct.per_second, "p50_ms": direct.p50_ms, "p99_ms": direct.p99_ms},
        "gateway_ledger_mounted": embedded_json,
        "gateway_ledger_over_http": remote_json,
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-results");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gateway.json"), serde_json::to_string_pretty(&report).unwrap()).unwrap();
    println!("\nwritten to target/bench-results/gateway.json");
}

/// An authenticated read of `url`, by `clients` loops for `duration`.
async fn load(
    http: &reqwest::Client,
    url: String,
    token: &str,
    clients: usize,
    duration: Duration,
) -> LoadRun {
    let (http, token) = (http.clone(), token.to_owned());
    closed_loop(clients, duration, move |_| {
        let request = http.get(&url).bearer_auth(&token);
        async move {
            let response = request.send().await.unwrap();
            assert!(response.status().is_success(), "{}", response.status());
            response.bytes().await.unwrap();
            1
        }
    })
    .await
}
