//! I Luv Suits rounds per second on one core (issue 16's target: at least 2 million), beside a
//! reference measured in the same run: dealing the same fourteen cards from a fresh deck without
//! any game, so the figure can be read against the machine's speed at that moment. Each round
//! carries every wager (ante, play, Flush Rush, Super Flush Rush, the progressive) and is
//! decided by the simple rule (fold two-card flushes and three-card flushes below T-7-6, play
//! the rest at the most allowed) and settled by the tables' own engine.
//!
//! Run: `cargo bench -p domain --bench i_luv_suits` (env `BENCH_ROUNDS`, default 5,000,000).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::hint::black_box;
use std::time::Instant;

use domain::i_luv_suits::base_game::Decision;
use domain::i_luv_suits::round::{Choice, Deal, Hands, TableRules, Wagers, settle};
use domain::i_luv_suits::strategy::simple_decision;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let rounds: u64 = std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000_000);
    let rules = TableRules {
        min_ante_cents: 500,
        max_ante_cents: 50_000,
        min_side_cents: 100,
        max_side_cents: 10_000,
        progressive_wager_cents: 500,
    };
    let wagers =
        Wagers { ante_cents: 500, flush_rush_cents: 500, super_flush_rush_cents: 500, progressive: true };

    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let started = Instant::now();
    let mut sink = 0usize;
    for _ in 0..rounds {
        let deal = Deal::shuffled(&mut rng);
        sink = sink.wrapping_add(deal.player[0].index() ^ deal.dealer[6].index());
    }
    black_box(sink);
    let reference = rounds as f64 / started.elapsed().as_secs_f64();

    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let started = Instant::now();
    let mut returned = 0i64;
    for _ in 0..rounds {
        let deal = Deal::shuffled(&mut rng);
        let choice = match simple_decision(&Hands::of(&deal).player) {
            Decision::Fold => Choice::Fold,
            Decision::Play(m) => Choice::Play { play_cents: 500 * i64::from(m) },
        };
        let (_, r) = settle(&rules, &wagers, &deal, choice, 100_000);
        returned = returned.wrapping_add(r.total());
    }
    black_box(returned);
    let rate = rounds as f64 / started.elapsed().as_secs_f64();

    println!("I Luv Suits on one core, {rounds} rounds (every wager, the simple rule):");
    println!("  dealing the fourteen cards alone (reference) {reference:>12.0} rounds/s");
    println!(
        "  rounds decided and settled                   {rate:>12.0} rounds/s  {:.2}x reference",
        rate / reference
    );
    println!(
        "  target: at least 2,000,000 rounds/s          {}",
        if rate >= 2_000_000.0 { "met" } else { "MISSED" }
    );
}
