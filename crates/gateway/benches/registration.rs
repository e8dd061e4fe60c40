//! Registration, a verification link asked again and a password reset asked for, timed for an
//! address that has an account beside one that has none (issue 49 §Email: each answers the
//! same, in the same time, whichever it is, so nobody learns who plays from the clock).
//!
//! The gateway runs on a real socket with the ledger mounted in process (as `lotto` runs them),
//! on a fresh database. Each request is sent alone (one client), the two kinds alternating so
//! that drift in the machine's load falls on both alike; the figures are each kind's latency
//! percentiles and the ratio of the known address's to the unknown's (the reference).
//!
//! Run: `cargo bench -p gateway --bench registration` (env: `BENCH_REQUESTS`, default 60 of
//! each). Figures are also written to `target/bench-results/registration.json`.
// A benchmark program stops loudly on any failure, and reports in floating point.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cast_precision_loss
)]

use std::time::Instant;

use platform::auth::TokenKeys;
use platform::config::Config;
use platform::http::Limits;
use platform::testing::{bench_knob, serve_on_loopback};
use serde_json::{Value, json};

const PASSWORD: &str = "a long and unguessable benchmark passphrase";

/// A request timed: its name, its path, and the address without an account its `n`th sends.
type Scenario = (&'static str, &'static str, fn(usize) -> String);

/// Latencies, in milliseconds.
struct Timings(Vec<f64>);

impl Timings {
    fn percentile(&self, p: f64) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let index = ((sorted.len().saturating_sub(1)) as f64 * p).round() as usize;
        sorted.get(index).copied().unwrap_or(0.0)
    }
}

#[tokio::main]
async fn main() {
    let requests: usize = bench_knob("BENCH_REQUESTS", 60usize, 20).unwrap();
    let url = platform::testing::bench_database("registration").await.unwrap();
    let config = Config { db_max_connections: 16, ..Config::default() };
    let tokens = TokenKeys::random();
    let ledger_pool = ledger::connect(&url, &config).await.unwrap();
    let ledger_routes = ledger::api_routes(ledger::LedgerState::new(ledger_pool, tokens.clone()));
    let gateway_pool = gateway::connect(&url, &config).await.unwrap();
    let state = gateway::GatewayState::new(
        gateway_pool,
        tokens.clone(),
        platform::upstream::Upstream::local("ledger", ledger_routes),
        &config,
        &gateway::GatewaySettings::default(),
    )
    .without_rate_limits();
    let base = serve_on_loopback(gateway::router(state, Limits::default())).await.unwrap();
    let http = reqwest::Client::new();
    let post = |path: &'static str, body: Value| {
        let (http, url) = (http.clone(), format!("{base}{path}"));
        async move {
            let started = Instant::now();
            let response = http.post(url).json(&body).send().await.unwrap();
            let status = response.status().as_u16();
            let answer: Value = response.json().await.unwrap();
            (started.elapsed().as_secs_f64() * 1000.0, status, answer)
        }
    };
    let register =
        |email: String| json!({"email": email, "password": PASSWORD, "date_of_birth": "1980-01-01"});
    let (first, ..) = post("/v1/players", register("taken@example.com".into())).await;
    assert!(first > 0.0);

    let scenarios: [Scenario; 3] = [
        ("registration", "/v1/players", |n| format!("new-{n}@example.com")),
        ("verification link asked again", "/v1/email-verifications/resend", |n| {
            format!("nobody-{n}@example.com")
        }),
        ("password reset asked for", "/v1/password-resets", |n| format!("nobody-{n}@example.com")),
    ];
    let mut report = serde_json::Map::new();
    println!();
    println!("{:<32} {:<12} {:>9} {:>9} {:>9}", "request", "address", "p50 ms", "p90 ms", "ratio p50");
    for (name, path, unknown) in scenarios {
        let (mut known, mut fresh) = (Timings(Vec::new()), Timings(Vec::new()));
        let (mut known_answer, mut fresh_answer) = (Value::Null, Value::Null);
        for n in 0..requests {
            let body =
                |email: String| if path == "/v1/players" { register(email) } else { json!({"email": email}) };
            // Each answer with its own address taken out: what is left must not differ.
            let without = |answer: &Value, email: &str| answer.to_string().replace(email, "<address>");
            let (ms, status, answer) = post(path, body(unknown(n))).await;
            assert_eq!(status, 202, "{answer}");
            fresh.0.push(ms);
            fresh_answer = Value::String(without(&answer, &unknown(n)));
            let (ms, status, answer) = post(path, body("taken@example.com".into())).await;
            assert_eq!(status, 202, "{answer}");
            known.0.push(ms);
            known_answer = Value::String(without(&answer, "taken@example.com"));
        }
        // The same words either way, but for the address each names.
        assert_eq!(known_answer, fresh_answer, "{name}: the answers tell the addresses apart");
        let ratio = known.percentile(0.5) / fresh.percentile(0.5);
        for (who, t) in [("none (ref.)", &fresh), ("has one", &known)] {
            let shown = if who == "has one" { format!("{ratio:.2}x") } else { String::new() };
            println!("{name:<32} {who:<12} {:>9.1} {:>9.1} {shown:>9}", t.percentile(0.5), t.percentile(0.9));
        }
        report.insert(
            name.to_owned(),
            json!({"requests": requests, "unknown_p50_ms": fresh.percentile(0.5), "unknown_p90_ms": fresh.percentile(0.9),
                   "known_p50_ms": known.percentile(0.5), "known_p90_ms": known.percentile(0.9), "ratio_p50": ratio}),
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-results");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("registration.json"),
        serde_json::to_string_pretty(&Value::Object(report)).unwrap(),
    )
    .unwrap();
    println!("\nwritten to target/bench-results/registration.json");
}
