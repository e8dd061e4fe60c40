//! Keno draws per second on one core (issue 4's target: at least 2 million), beside a reference
//! measured in the same run: the generator alone producing the same 20 bounded numbers without
//! the shuffle, so the figure can be read against the machine's speed at that moment.
//!
//! Run: `cargo bench -p domain` (env `BENCH_DRAWS`, default 5,000,000).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::hint::black_box;
use std::time::Instant;

use domain::keno::{BetOption, Draw, Ticket, settle};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn main() {
    let n: u32 = std::env::var("BENCH_DRAWS").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000_000);
    let mut rng = ChaCha20Rng::from_os_rng();

    let started = Instant::now();
    let mut sink = 0u32;
    for _ in 0..n {
        for i in 0..20usize {
            sink = sink.wrapping_add(u32::try_from(rng.random_range(i..80)).unwrap_or(0));
        }
    }
    black_box(sink);
    let reference = f64::from(n) / started.elapsed().as_secs_f64();

    let started = Instant::now();
    for _ in 0..n {
        black_box(Draw::random(&mut rng));
    }
    let draws = f64::from(n) / started.elapsed().as_secs_f64();

    let ticket = Ticket::new(BetOption::Bet, &[3, 11, 19, 27, 35, 43, 51, 59, 67, 75], 1, 1).unwrap();
    let started = Instant::now();
    let mut paid = 0i64;
    for _ in 0..n {
        paid = paid.wrapping_add(settle(&ticket, &Draw::random(&mut rng)).payout_cents);
    }
    black_box(paid);
    let settled = f64::from(n) / started.elapsed().as_secs_f64();

    println!("keno on one core, {n} iterations each:");
    println!("  generator alone, 20 bounded numbers (reference)  {reference:>12.0} /s");
    println!(
        "  draws (20 distinct of 80)                        {draws:>12.0} /s  {:.2}x reference",
        draws / reference
    );
    println!(
        "  draw and settle a 10-spot ticket                 {settled:>12.0} /s  {:.2}x reference",
        settled / reference
    );
    println!(
        "  target: at least 2,000,000 draws/s               {}",
        if draws >= 2e6 { "met" } else { "MISSED" }
    );
}
