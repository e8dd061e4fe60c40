//! Generating full print runs in memory on one core (issue 6 asks for a full run of any
//! game generated and stored in under 60 s; storing comes with the instant service). Reference,
//! measured in the same run: shuffling the same number of ticket slots alone.
//!
//! Run: `cargo bench -p domain --bench instant`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::hint::black_box;
use std::time::Instant;

use domain::instant::GameDefinition;
use domain::instant::print_run::{pool_counts, print_pool};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn main() {
    println!("print runs, generated in memory on one core:");
    println!("{:<28} {:>10} {:>12} {:>14} {:>12}", "game", "tickets", "seconds", "tickets/s", "vs shuffle");
    for file in [
        "283-hit-10.json",
        "284-hit-20.json",
        "282-liquid-gold.json",
        "228-electric-8s.json",
        "286-super-red-hot-crossword.json",
    ] {
        let path = format!("{}/../../games/instant/{file}", env!("CARGO_MANIFEST_DIR"));
        let (game, _) = GameDefinition::load(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut rng = ChaCha20Rng::from_os_rng();

        let started = Instant::now();
        let mut slots: Vec<u32> = (0..u32::try_from(game.pool_size).unwrap()).collect();
        for _ in 0..game.tickets_ordered / game.pool_size {
            for i in (1..slots.len()).rev() {
                slots.swap(i, rng.random_range(0..=i));
            }
            black_box(&slots);
        }
        let reference = started.elapsed().as_secs_f64();

        let started = Instant::now();
        let mut printed = 0usize;
        for (pool, counts) in pool_counts(&game).iter().enumerate() {
            printed +=
                black_box(print_pool(&game, 0, u32::try_from(pool).unwrap(), counts, &mut rng).unwrap())
                    .len();
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{:<28} {:>10} {:>12.2} {:>14.0} {:>11.1}x",
            format!("{} {}", game.number, game.name),
            printed,
            seconds,
            printed as f64 / seconds,
            seconds / reference
        );
    }
}
