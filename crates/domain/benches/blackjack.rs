//! Blackjack rounds per second on one core with basic strategy (issue 5's target: at least 2
//! million), beside a reference measured in the same run: dealing the same number of cards from
//! shoes shuffled at the same cut, without any game, so the figure can be read against the
//! machine's speed at that moment. Then the house edge of the rules for six and two decks, from
//! a long seeded simulation, with its 95% confidence interval.
//!
//! Run: `cargo bench -p domain --bench blackjack` (env `BENCH_ROUNDS`, default 2,000,000;
//! `BENCH_EDGE_ROUNDS`, default 20,000,000 per shoe size).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::hint::black_box;
use std::time::Instant;

use domain::blackjack::strategy::simulate_house_edge;
use domain::cards::{Decks, Shoe};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let rounds: u64 = std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let edge_rounds: u64 =
        std::env::var("BENCH_EDGE_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000_000);

    // Reference: about 5.4 cards a round (player 2.7, dealer 2.7) from reshuffled shoes.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let started = Instant::now();
    let mut shoe = Shoe::shuffled(Decks::Six, 260, &mut rng).unwrap();
    let mut sink = 0usize;
    for i in 0..rounds * 27 / 5 {
        if shoe.cut_card_reached() {
            shoe = Shoe::shuffled(Decks::Six, 260, &mut rng).unwrap();
        }
        sink = sink.wrapping_add(shoe.draw().unwrap().index() ^ usize::try_from(i).unwrap_or(0));
    }
    black_box(sink);
    let reference = rounds as f64 / started.elapsed().as_secs_f64();

    let started = Instant::now();
    let measured = simulate_house_edge(Decks::Six, rounds, 2, &mut ChaCha8Rng::seed_from_u64(2));
    let rate = rounds as f64 / started.elapsed().as_secs_f64();
    black_box(measured);

    println!("blackjack on one core, {rounds} rounds (one spot, basic strategy):");
    println!("  dealing the cards alone (reference)        {reference:>12.0} rounds/s");
    println!(
        "  rounds played and settled                  {rate:>12.0} rounds/s  {:.2}x reference",
        rate / reference
    );
    println!(
        "  target: at least 2,000,000 rounds/s        {}",
        if rate >= 2_000_000.0 { "met" } else { "MISSED" }
    );

    println!();
    println!("house edge under basic strategy, {edge_rounds} rounds each (seeded):");
    for (decks, seed) in [(Decks::Six, 6u64), (Decks::Two, 2u64)] {
        let edge = simulate_house_edge(decks, edge_rounds, seed, &mut ChaCha8Rng::seed_from_u64(seed));
        println!(
            "  {} decks: {:.3}% ± {:.3}% (95%), seed {}",
            edge.decks,
            edge.house_edge * 100.0,
            edge.confidence_95 * 100.0,
            edge.seed
        );
    }
}
