//! Craps rolls per second on one core with a full layout (issue 16's target: at least 2 million),
//! beside a reference measured in the same run: throwing the same dice without any game, so the
//! figure can be read against the machine's speed at that moment. Every roll the layout carries
//! the line bets, all six place bets, the hardways, the field, the propositions and horn, and the
//! bonus wagers, each made again by the player once a roll decides it, through the tables' own
//! session engine.
//!
//! Run: `cargo bench -p domain --bench craps` (env `BENCH_ROLLS`, default 3,000,000).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::cast_precision_loss)]

use std::hint::black_box;
use std::time::Instant;

use domain::craps::session::{Change, Session, TableRules};
use domain::craps::{Bet, Roll};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let rolls: u64 = std::env::var("BENCH_ROLLS").ok().and_then(|v| v.parse().ok()).unwrap_or(3_000_000);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let started = Instant::now();
    let mut sink = 0u64;
    for _ in 0..rolls {
        let r = Roll::random(&mut rng);
        sink = sink.wrapping_add(u64::from(r.total()));
    }
    black_box(sink);
    let reference = rolls as f64 / started.elapsed().as_secs_f64();

    let layout: Vec<Bet> = [
        Bet::Pass,
        Bet::DontPass,
        Bet::Come,
        Bet::Place { number: 4 },
        Bet::Place { number: 5 },
        Bet::Place { number: 6 },
        Bet::Place { number: 8 },
        Bet::Place { number: 9 },
        Bet::Place { number: 10 },
        Bet::Hardway { number: 6 },
        Bet::Hardway { number: 8 },
        Bet::Field,
        Bet::AnySeven,
        Bet::AnyCraps,
        Bet::Horn,
        Bet::Eleven,
        Bet::AllSmall,
        Bet::AllTall,
    ]
    .to_vec();
    let rules =
        TableRules { min_bet_cents: 100, max_bet_cents: 1_000_000, odds_multiple: 10, power_odds: None };
    let mut session = Session::new(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let started = Instant::now();
    let mut returned = 0i64;
    // The player makes every bet, then after each roll makes again the ones it took down.
    let mut down: Vec<Bet> = layout;
    for _ in 0..rolls {
        for &bet in &down {
            let _ = session.change(Change::Place { bet, amount_cents: 600 });
        }
        let report = session.roll(Roll::random(&mut rng), false);
        returned = returned.wrapping_add(report.stakes_returned()).wrapping_add(report.winnings());
        down.clear();
        // Every bet a roll takes down is one of the layout's (a come bet's second life is the
        // come bet), except a come bet moving to its number.
        down.extend(report.outcomes.iter().filter_map(|o| match (o.bet, o.result) {
            (Bet::ComePoint { .. }, _) => Some(Bet::Come),
            (_, domain::craps::session::Result::Moved) => None,
            (bet, _) => Some(bet),
        }));
        if session.point.is_none()
            && session.bets.iter().all(|p| p.bet != Bet::Pass)
            && !down.contains(&Bet::Pass)
        {
            down.push(Bet::Pass);
        }
        if session.point.is_none()
            && session.bets.iter().all(|p| p.bet != Bet::DontPass)
            && !down.contains(&Bet::DontPass)
        {
            down.push(Bet::DontPass);
        }
    }
    black_box(returned);
    let rate = rolls as f64 / started.elapsed().as_secs_f64();

    println!("craps on one core, {rolls} rolls (a full layout, re-made as decided):");
    println!("  throwing the dice alone (reference)        {reference:>12.0} rolls/s");
    println!(
        "  rolls deciding the layout                  {rate:>12.0} rolls/s  {:.2}x reference",
        rate / reference
    );
    println!(
        "  target: at least 2,000,000 rolls/s         {}",
        if rate >= 2_000_000.0 { "met" } else { "MISSED" }
    );
}
