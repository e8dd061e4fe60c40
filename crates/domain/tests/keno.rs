//! Castle Keno against its rules text: every pay-table cell, every availability rule, the exact
//! math against an independent count, and the draw's uniformity.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use domain::keno::math::{all_draws, draws_with_hits, par_row, par_sheet};
use domain::keno::{BetOption, Draw, RuleError, Ticket, pay_cents, settle};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The BET and HIGH ROLLER tables as the rules print them ("Mark n Hit Payout ($) h p h p ...").
const BET_TEXT: &str = "Mark 1 Hit Payout ($) 1 3	Mark 2 Hit Payout ($) 2 6 1 1	Mark 3 Hit Payout ($) 3 30 2 3
Mark 4 Hit Payout ($) 4 90 3 8 2 1	Mark 5 Hit Payout ($) 5 300 4 11 3 3 2 1	Mark 6 Hit Payout ($) 6 500 5 60 4 5 3 1 2 1
Mark 7 Hit Payout ($) 7 2,000 6 250 5 20 4 5	Mark 8 Hit Payout ($) 8 3,000 7 350 6 50 5 6 4 4 3 1	Mark 9 Hit Payout ($) 9 5,000 8 1,000 7 80 6 15 5 6 4 2 3 1
Mark 10 Hit Payout ($) 10 8,000 9 1,000 8 300 7 50 6 12 5 3 4 1 3 1	Mark 11 Hit Payout ($) 11 10,000 10 3,000 9 800 8 80 7 20 6 8 5 5 4 1	Mark 12 Hit Payout ($) 12 12,000 11 5,000 10 2,500 9 250 8 90 7 30 6 3 5 2 4 1
Mark 13 Hit Payout ($) 13 15,000 12 8,000 11 2,500 10 1,000 9 200 8 40 7 5 6 3 5 2 4 1	Mark 14 Hit Payout ($) 14 18,000 13 8,000 12 4,000 11 1,500 10 800 9 150 8 20 7 10 6 4 5 1	Mark 15 Hit Payout ($) 15 20,000 14 10,000 13 5,000 12 2,000 11 1,000 10 300 9 100 8 20 7 5 6 2 5 1";

const HIGH_ROLLER_TEXT: &str = "Mark 1 Hit Payout ($) 1 2.80	Mark 2 Hit Payout ($) 2 11.20	Mark 3 Hit Payout ($) 3 40 2 0.80
Mark 4 Hit Payout ($) 4 160 3 4	Mark 5 Hit Payout ($) 5 680 4 10 3 1	Mark 6 Hit Payout ($) 6 2,000 5 72 4 6.40
Mark 7 Hit Payout ($) 7 6,000 6 280 5 24 4 1.60	Mark 8 Hit Payout ($) 8 12,000 7 720 6 80 5 12 4 1	Mark 9 Hit Payout ($) 9 20,000 8 3,200 7 240 6 32 5 7.20
Mark 10 Hit Payout ($) 10 24,000 9 3,200 8 600 7 104 6 32 5 0.80	Mark 11 Hit Payout ($) 11 24,000 10 12,000 9 1,000 8 100 7 60 6 17.60	Mark 12 Hit Payout ($) 12 28,000 11 16,000 10 4,000 9 800 8 120 7 32 6 6.40 5 0 4 1
Mark 13 Hit Payout ($) 13 28,000 12 20,000 11 12,000 10 2,000 9 600 8 80 7 16 6 1.60	Mark 14 Hit Payout ($) 14 28,000 13 20,000 12 12,000 11 3,200 10 960 9 400 8 40 7 9.60	Mark 15 Hit Payout ($) 15 32,000 14 28,000 13 24,000 12 20,000 11 2,400 10 440 9 120 8 28 7 7.20";

/// Parses the printed tables into (spots, hits) -> cents.
fn parse_marks(text: &str) -> std::collections::HashMap<(usize, usize), i64> {
    let mut cells = std::collections::HashMap::new();
    for block in text.split("Mark ").filter(|b| !b.trim().is_empty()) {
        let (spots, rest) = block.split_once(" Hit Payout ($) ").unwrap();
        let words: Vec<&str> = rest.split_whitespace().collect();
        for pair in words.chunks(2) {
            let hits: usize = pair[0].parse().unwrap();
            let dollars = pair[1].replace(',', "");
            let cents = match dollars.split_once('.') {
                Some((d, c)) => d.parse::<i64>().unwrap() * 100 + c.parse::<i64>().unwrap(),
                None => dollars.parse::<i64>().unwrap() * 100,
            };
            cells.insert((spots.trim().parse().unwrap(), hits), cents);
        }
    }
    cells
}

#[test]
fn every_cell_of_bet_and_high_roller_is_as_printed() {
    for (option, text) in [(BetOption::Bet, BET_TEXT), (BetOption::HighRoller, HIGH_ROLLER_TEXT)] {
        let printed = parse_marks(text);
        assert_eq!(printed.keys().map(|(s, _)| *s).max(), Some(15));
        for spots in 1..=15 {
            for hits in 0..=spots {
                let expected = printed.get(&(spots, hits)).copied().unwrap_or(0);
                assert_eq!(pay_cents(option, spots, hits), expected, "{option:?} mark {spots} hit {hits}");
            }
        }
    }
}

#[test]
fn every_cell_of_bet_against_hit_all_and_top_or_bottom_is_as_printed() {
    let bet_against = [(15, 80), (14, 56), (13, 39), (12, 27), (11, 20), (10, 14), (9, 10), (8, 6)];
    for (spots, dollars) in bet_against {
        assert_eq!(pay_cents(BetOption::BetAgainst, spots, 0), dollars * 100);
        for hits in 1..=spots {
            assert_eq!(pay_cents(BetOption::BetAgainst, spots, hits), 0, "paid only when none is hit");
        }
    }
    let hit_all = [(7, 28_000), (6, 5_600), (5, 1_150), (4, 240), (3, 48), (2, 12)];
    for (spots, dollars) in hit_all {
        assert_eq!(pay_cents(BetOption::HitAll, spots, spots), dollars * 100);
        for hits in 0..spots {
            assert_eq!(pay_cents(BetOption::HitAll, spots, hits), 0, "paid only when all are hit");
        }
    }
    // (hits on the half with fewer, hits on the other, difference, dollars)
    let top_or_bottom = [
        (7, 13, 6, 1),
        (6, 14, 8, 4),
        (5, 15, 10, 10),
        (4, 16, 12, 40),
        (3, 17, 14, 200),
        (2, 18, 16, 600),
        (1, 19, 18, 4_000),
        (0, 20, 20, 10_000),
    ];
    for (fewer, other, difference, dollars) in top_or_bottom {
        assert_eq!(fewer + other, 20);
        assert_eq!(other - fewer, difference);
        assert_eq!(pay_cents(BetOption::TopOrBottom, 0, fewer), dollars * 100);
    }
    for fewer in 8..=10 {
        assert_eq!(pay_cents(BetOption::TopOrBottom, 0, fewer), 0, "a difference under 6 pays nothing");
    }
}

#[test]
fn each_option_is_available_exactly_when_the_rules_say() {
    let numbers: Vec<u8> = (1..=16).collect();
    let allowed = |option: BetOption, n: usize| Ticket::new(option, &numbers[..n], 1, 10).is_ok();
    for n in 0..=16 {
        assert_eq!(allowed(BetOption::Bet, n), (1..=15).contains(&n), "BET with {n}");
        assert_eq!(allowed(BetOption::HighRoller, n), (1..=15).contains(&n), "HIGH ROLLER with {n}");
        assert_eq!(allowed(BetOption::BetAgainst, n), (8..=15).contains(&n), "BET AGAINST with {n}");
        assert_eq!(allowed(BetOption::HitAll, n), (2..=7).contains(&n), "HIT ALL with {n}");
        assert_eq!(allowed(BetOption::TopOrBottom, n), n == 0, "TOP OR BOTTOM with {n}");
    }
    assert_eq!(
        Ticket::new(BetOption::BetAgainst, &numbers[..5], 1, 10),
        Err(RuleError::SpotsNotAllowed { option: BetOption::BetAgainst, spots: 5, min: 8, max: 15 })
    );
    assert_eq!(Ticket::new(BetOption::Bet, &[0], 1, 10), Err(RuleError::SpotOutOfRange { spot: 0 }));
    assert_eq!(Ticket::new(BetOption::Bet, &[81], 1, 10), Err(RuleError::SpotOutOfRange { spot: 81 }));
    assert_eq!(Ticket::new(BetOption::Bet, &[5, 5], 1, 10), Err(RuleError::DuplicateSpot { spot: 5 }));
    assert_eq!(
        Ticket::new(BetOption::Bet, &[5], 0, 10),
        Err(RuleError::StakeOutOfRange { tickets: 0, max: 10 })
    );
    assert_eq!(
        Ticket::new(BetOption::Bet, &[5], 11, 10),
        Err(RuleError::StakeOutOfRange { tickets: 11, max: 10 })
    );
}

#[test]
fn payouts_scale_exactly_with_the_stake() {
    let draw = Draw { numbers: std::array::from_fn(|i| u8::try_from(i + 1).unwrap()) }; // 1..=20
    let one = Ticket::new(BetOption::HighRoller, &[1], 1, 100).unwrap();
    let seven = Ticket::new(BetOption::HighRoller, &[1], 7, 100).unwrap();
    assert_eq!(settle(&one, &draw).payout_cents, 280);
    assert_eq!(settle(&seven, &draw).payout_cents, 7 * 280);
    assert_eq!(seven.stake_cents(), 700);
    // All twenty on top: the bottom half has 0 hits, the top 20 — the $10,000 cell.
    let tob = Ticket::new(BetOption::TopOrBottom, &[], 2, 100).unwrap();
    assert_eq!(settle(&tob, &draw), domain::keno::Outcome { hits: 0, payout_cents: 2 * 1_000_000 });
    let against = Ticket::new(BetOption::BetAgainst, &(61..=68).collect::<Vec<u8>>(), 1, 100).unwrap();
    assert_eq!(settle(&against, &draw).payout_cents, 600);
}

/// Counts, by dynamic programming over the 80 numbers one at a time, the 20-number draws that
/// hit exactly k of n marked numbers: an independent check of the closed form.
fn counted_draws(n: usize) -> Vec<u128> {
    // ways[size][hits]
    let mut ways = vec![vec![0u128; 21]; 21];
    ways[0][0] = 1;
    for number in 0..80 {
        let marked = number < n;
        for size in (0..20).rev() {
            for hits in 0..=20 {
                let w = ways[size][hits];
                if w == 0 {
                    continue;
                }
                let h = if marked { hits + 1 } else { hits };
                if h <= 20 {
                    ways[size + 1][h] += w;
                }
            }
        }
    }
    ways[20].clone()
}

#[test]
fn the_hypergeometric_counts_match_an_independent_count() {
    assert_eq!(all_draws(), 3_535_316_142_212_174_320);
    for n in 0..=15 {
        let counted = counted_draws(n);
        let mut sum = 0u128;
        for (k, &count) in counted.iter().enumerate() {
            let closed = draws_with_hits(u32::try_from(n).unwrap(), u32::try_from(k).unwrap());
            assert_eq!(closed, count, "n={n} k={k}");
            sum += closed;
        }
        assert_eq!(sum, all_draws());
    }
}

#[test]
fn the_math_is_exact() {
    // One spot is hit with probability 20/80, and pays $3: a return of exactly 3/4.
    let one = par_row(BetOption::Bet, 1);
    assert_eq!((one.return_to_player.numerator, one.return_to_player.denominator), (3, 4));
    assert_eq!((one.hit_frequency.numerator, one.hit_frequency.denominator), (1, 4));
    // HIGH ROLLER one spot: $2.80 × 1/4 = 0.70.
    let hr = par_row(BetOption::HighRoller, 1);
    assert_eq!((hr.return_to_player.numerator, hr.return_to_player.denominator), (7, 10));
    let sheet = par_sheet();
    assert_eq!(sheet.len(), 15 + 8 + 6 + 15 + 1);
    for row in &sheet {
        assert!(row.return_to_player_decimal > 0.0 && row.return_to_player_decimal < 1.0, "{row:?}");
        assert!(row.hit_frequency_decimal > 0.0 && row.hit_frequency_decimal <= 1.0, "{row:?}");
    }
}

#[test]
fn a_seeded_simulation_agrees_with_the_exact_math() {
    let mut rng = ChaCha20Rng::seed_from_u64(20_261_129);
    let cases = [
        (BetOption::Bet, 4),
        (BetOption::Bet, 10),
        (BetOption::BetAgainst, 8),
        (BetOption::HitAll, 3),
        (BetOption::HighRoller, 6),
        (BetOption::TopOrBottom, 0),
    ];
    let tickets: Vec<Ticket> = cases
        .iter()
        .map(|&(option, n)| {
            Ticket::new(option, &(1..=u8::try_from(n).unwrap()).collect::<Vec<u8>>(), 1, 1).unwrap()
        })
        .collect();
    let draws = 200_000u32;
    let mut paid = vec![0f64; cases.len()];
    let mut paid_sq = vec![0f64; cases.len()];
    let mut hits = vec![0u32; cases.len()];
    for _ in 0..draws {
        let draw = Draw::random(&mut rng);
        for (i, ticket) in tickets.iter().enumerate() {
            let p = settle(ticket, &draw).payout_cents as f64 / 100.0;
            paid[i] += p;
            paid_sq[i] += p * p;
            hits[i] += u32::from(p > 0.0);
        }
    }
    let n = f64::from(draws);
    for (i, &(option, spots)) in cases.iter().enumerate() {
        let exact = par_row(option, spots);
        let mean = paid[i] / n;
        let sd = (paid_sq[i] / n - mean * mean).sqrt();
        let se = sd / n.sqrt();
        assert!(
            (mean - exact.return_to_player_decimal).abs() <= 5.0 * se + 1e-9,
            "{option:?}/{spots}: simulated {mean}, exact {} (se {se})",
            exact.return_to_player_decimal
        );
        let freq = f64::from(hits[i]) / n;
        let freq_se = (exact.hit_frequency_decimal * (1.0 - exact.hit_frequency_decimal) / n).sqrt();
        assert!(
            (freq - exact.hit_frequency_decimal).abs() <= 5.0 * freq_se,
            "{option:?}/{spots} hit frequency"
        );
    }
}

#[test]
fn every_number_is_drawn_equally_often() {
    let mut rng = ChaCha20Rng::seed_from_u64(80);
    let draws = 50_000;
    let mut seen = [0u32; 81];
    for _ in 0..draws {
        let draw = Draw::random(&mut rng);
        let mut numbers = draw.numbers.to_vec();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), 20, "20 distinct numbers");
        assert!(numbers.iter().all(|n| (1..=80).contains(n)));
        for n in draw.numbers {
            seen[usize::from(n)] += 1;
        }
    }
    let expected = f64::from(draws) * 20.0 / 80.0;
    let chi_square: f64 = seen[1..].iter().map(|&o| (f64::from(o) - expected).powi(2) / expected).sum();
    // 79 degrees of freedom: the 0.999 quantile is 124.84.
    assert!(chi_square < 124.84, "chi-square {chi_square} says the draw is not uniform");
}
