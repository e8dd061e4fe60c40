//! The login flood benchmark (issue 47 §1): logins per second and the process's peak memory
//! when far more clients log in at once than the password checks run at once.
//!
//! It starts the release `lotto` binary on a fresh database, as a user would, and sends
//! `BENCH_CLIENTS` (default 200) closed-loop clients logging in with emails nobody registered
//! (each an argon2id check of 19 MiB, as an unknown login costs what a known one does) for
//! `BENCH_SECONDS` (default 10). Beside it, the reference in the same run: bare argon2id checks
//! of the same parameters on as many threads as `lotto` runs checks, with no HTTP, database or
//! queue. It prints the logins checked per second against that reference, the refusals (503
//! after `LOTTO_PASSWORD_WAIT_MS`), and the process's resident memory before, at its peak, and
//! after.
//!
//! Run: `cargo bench -p lotto --bench login_flood`.
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
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use common::{Lotto, status_kb};
use platform::config::env_or;
use platform::testing::bench_knob;

/// Bare argon2id checks per second on `threads` threads for `seconds`.
fn bare_checks_per_second(threads: usize, seconds: u64) -> f64 {
    let hash = Argon2::default()
        .hash_password(b"the reference", &SaltString::generate(&mut OsRng))
        .unwrap()
        .to_string();
    let done = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (hash, done) = (hash.clone(), Arc::clone(&done));
            scope.spawn(move || {
                let parsed = PasswordHash::new(&hash).unwrap();
                while Instant::now() < until {
                    assert!(Argon2::default().verify_password(b"a wrong guess", &parsed).is_err());
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let seconds: u64 = bench_knob("BENCH_SECONDS", 10u64, 3).unwrap();
    let clients: usize = env_or("BENCH_CLIENTS", 200usize).unwrap();
    let checks = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let url = platform::testing::bench_database("login_flood").await.unwrap();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url),
            ("LOTTO_PASSWORD_CHECKS", checks.to_string()),
            // The load comes from one address.
            ("LOTTO_RATE_PER_ADDRESS", "10000000".to_owned()),
        ],
        Duration::from_secs(120),
    );
    let pid = lotto.pid();
    let base = lotto.base_url.clone();
    let before_kb = status_kb(pid, "VmRSS");

    let reference = bare_checks_per_second(checks, seconds);

    let http = reqwest::Client::new();
    let (checked, refused) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (c, r) = (Arc::clone(&checked), Arc::clone(&refused));
    let run = platform::testing::closed_loop(clients, Duration::from_secs(seconds), move |client| {
        let (http, base, checked, refused) = (http.clone(), base.clone(), Arc::clone(&c), Arc::clone(&r));
        async move {
            let body = serde_json::json!({"email": format!("nobody-{client}@example.com"), "password": "not a password at all"});
            let answer = http.post(format!("{base}/v1/sessions")).json(&body).send().await.unwrap();
            match answer.status().as_u16() {
                401 => checked.fetch_add(1, Ordering::Relaxed),
                503 => refused.fetch_add(1, Ordering::Relaxed),
                other => panic!("a login answered {other}: {}", answer.text().await.unwrap_or_default()),
            };
            1
        }
    })
    .await;
    let peak_kb = status_kb(pid, "VmHWM");
    let after_kb = status_kb(pid, "VmRSS");
    let checked_per_second = checked.load(Ordering::Relaxed) as f64 / run.seconds;
    let refused_per_second = refused.load(Ordering::Relaxed) as f64 / run.seconds;

    println!("login flood: {clients} clients for {seconds} s, {checks} password checks at once\n");
    println!("{:<44}{:>10}{:>10}{:>10}{:>12}", "", "per s", "p50 ms", "p99 ms", "vs bare");
    println!(
        "{:<44}{:>10.0}{:>10}{:>10}{:>11.2}x",
        format!("bare argon2id checks, {checks} threads (reference)"),
        reference,
        "-",
        "-",
        1.0
    );
    println!(
        "{:<44}{:>10.0}{:>10.1}{:>10.1}{:>11.2}x",
        "logins checked through lotto (401)",
        checked_per_second,
        run.percentile_ms(0.5),
        run.percentile_ms(0.99),
        checked_per_second / reference
    );
    println!("{:<44}{:>10.0}", "logins refused 503 after the wait", refused_per_second);
    println!(
        "\nlotto resident memory: {} MB before, {} MB at its peak, {} MB after",
        before_kb / 1024,
        peak_kb / 1024,
        after_kb / 1024
    );
    lotto.kill();
}
