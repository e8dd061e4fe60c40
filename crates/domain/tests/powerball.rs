//! Powerball's rules and exact math (K.A.R. 111-5-24, the multi-state prize chart).
#![allow(
    clippy::unwrap_used,
    clippy::cast_precision_loss,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::HashMap;

use domain::math::Fraction;
use domain::powerball::math::{outcomes, outcomes_of, powerball_math, tier_count, tier_count_of};
use domain::powerball::{Board, PowerPlayBalls, RuleError, Tier};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

#[test]
fn a_board_is_five_different_whites_of_69_and_a_powerball_of_26() {
    let board = Board::new(&[69, 3, 40, 1, 22], 26).unwrap();
    assert_eq!(board.whites, [1, 3, 22, 40, 69], "kept in order");
    assert!(Board::new(&[1, 2, 3, 4, 5], 5).is_ok(), "the Powerball may equal a white (111-5-24(a))");
    assert_eq!(Board::new(&[1, 2, 3, 4], 5), Err(RuleError::WhiteCount(4)));
    assert_eq!(Board::new(&[1, 2, 3, 4, 5, 6], 5), Err(RuleError::WhiteCount(6)));
    assert_eq!(Board::new(&[0, 2, 3, 4, 5], 5), Err(RuleError::WhiteOutOfRange(0)));
    assert_eq!(Board::new(&[70, 2, 3, 4, 5], 5), Err(RuleError::WhiteOutOfRange(70)));
    assert_eq!(Board::new(&[7, 2, 7, 4, 5], 5), Err(RuleError::DuplicateWhite(7)));
    assert_eq!(Board::new(&[1, 2, 3, 4, 5], 0), Err(RuleError::PowerballOutOfRange(0)));
    assert_eq!(Board::new(&[1, 2, 3, 4, 5], 27), Err(RuleError::PowerballOutOfRange(27)));
}

/// The prize chart, typed from the facts: every number of white matches, with and
/// without the Powerball, without Power Play and with every ball of both drums.
#[test]
fn every_match_pays_the_chart_with_and_without_power_play() {
    let chart: [(usize, bool, Option<i64>); 9] = [
        (5, true, None),
        (5, false, Some(100_000_000)),
        (4, true, Some(5_000_000)),
        (4, false, Some(10_000)),
        (3, true, Some(10_000)),
        (3, false, Some(700)),
        (2, true, Some(700)),
        (1, true, Some(400)),
        (0, true, Some(400)),
    ];
    for whites in 0..=5 {
        for powerball in [false, true] {
            let listed = chart.iter().find(|&&(w, p, _)| (w, p) == (whites, powerball));
            let tier = Tier::of(whites, powerball);
            assert_eq!(tier.is_some(), listed.is_some(), "{whites} + {powerball}");
            let (Some(tier), Some(&(_, _, base))) = (tier, listed) else { continue };
            assert_eq!(tier.prize_cents(None), base);
            for drum in [PowerPlayBalls::WithTenX, PowerPlayBalls::WithoutTenX] {
                for &(m, _) in drum.balls() {
                    let expected = match (whites, powerball) {
                        (5, true) => None,
                        (5, false) => Some(200_000_000),
                        _ => base.map(|b| b * i64::from(m)),
                    };
                    assert_eq!(tier.prize_cents(Some(m)), expected, "{whites} + {powerball} at {m}x");
                }
            }
        }
    }
    assert_eq!(Tier::FourPowerball.prize_cents(Some(10)), Some(50_000_000), "$50,000 at 10x: $500,000");
}

#[test]
fn the_ten_x_ball_is_in_the_drum_up_to_a_150_million_grand_prize() {
    assert_eq!(PowerPlayBalls::for_grand_prize(15_000_000_000), PowerPlayBalls::WithTenX);
    assert_eq!(PowerPlayBalls::for_grand_prize(15_000_000_001), PowerPlayBalls::WithoutTenX);
    let count = |d: PowerPlayBalls| d.balls().iter().map(|&(_, n)| n).sum::<u32>();
    assert_eq!((count(PowerPlayBalls::WithTenX), count(PowerPlayBalls::WithoutTenX)), (43, 42));
}

/// The counting formula against every board of a small game (5 of 10 whites, 3 Powerballs).
#[test]
fn the_tier_counts_agree_with_every_board_of_a_small_game() {
    let (whites, powerballs) = (10u8, 3u8);
    let drawn = Board { whites: [1, 2, 3, 4, 5], powerball: 1 };
    let mut tally: HashMap<Option<Tier>, u128> = HashMap::new();
    let mut boards = 0u128;
    for a in 1..=whites {
        for b in a + 1..=whites {
            for c in b + 1..=whites {
                for d in c + 1..=whites {
                    for e in d + 1..=whites {
                        for pb in 1..=powerballs {
                            let board = Board { whites: [a, b, c, d, e], powerball: pb };
                            let (w, p) = board.matches(&drawn);
                            *tally.entry(Tier::of(w, p)).or_default() += 1;
                            boards += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(boards, outcomes_of(u32::from(whites), u32::from(powerballs)));
    for tier in Tier::ALL {
        let counted = tally.get(&Some(tier)).copied().unwrap_or(0);
        assert_eq!(counted, tier_count_of(tier, u32::from(whites), u32::from(powerballs)), "{tier:?}");
    }
}

#[test]
fn the_published_math_is_exact() {
    assert_eq!(outcomes(), 292_201_338);
    assert_eq!(tier_count(Tier::GrandPrize), 1, "1 in 292,201,338");
    let counts: Vec<u128> = Tier::ALL.iter().map(|&t| tier_count(t)).collect();
    assert_eq!(counts, vec![1, 25, 320, 8_000, 20_160, 504_000, 416_640, 3_176_880, 7_624_512]);
    let math = powerball_math();
    assert_eq!(math.any_prize, Fraction::new(11_750_538, 292_201_338));
    assert!((math.any_prize_one_in - 24.87).abs() < 0.005, "{}", math.any_prize_one_in);
    // Σ outcomes × prize over the fixed tiers, by hand: 9,346,604,800 cents over all outcomes.
    assert_eq!(math.return_without_grand_prize, Fraction::new(9_346_604_800, 292_201_338 * 200));
    assert!((math.return_without_grand_prize.to_f64() - 0.15994).abs() < 0.00001);
    // $2 × 292,201,338 − $93,466,048.00: the grand prize at which a play pays its price.
    assert_eq!(math.break_even_grand_prize_cents, Fraction::new(49_093_662_800, 1));
    let with = &math.power_play[0];
    let without = &math.power_play[1];
    assert_eq!(with.expected_multiplier, Fraction::new(119, 43));
    assert_eq!(without.expected_multiplier, Fraction::new(109, 42));
    // With Power Play every fixed prize but match 5 is multiplied: Σ (non-match-5) = 6,846,604,800
    // cents, times 119/43, plus 25 × $2,000,000, over all outcomes and $3.
    let expected = Fraction::new(6_846_604_800 * 119 + 25 * 200_000_000 * 43, 292_201_338 * 43 * 300);
    assert_eq!(with.return_without_grand_prize, expected);
    let expected = Fraction::new(6_846_604_800 * 109 + 25 * 200_000_000 * 42, 292_201_338 * 42 * 300);
    assert_eq!(without.return_without_grand_prize, expected);
}

/// Computer picks and the Power Play drum, from a seeded generator: every number as likely as
/// the others (chi-square at p = 0.001).
#[test]
fn quick_picks_and_multipliers_are_uniform() {
    let mut rng = ChaCha20Rng::seed_from_u64(22);
    let picks = 40_000;
    let (mut whites, mut powerballs) = ([0u32; 70], [0u32; 27]);
    for _ in 0..picks {
        let board = Board::quick_pick(&mut rng);
        assert!(Board::new(&board.whites, board.powerball).is_ok());
        for &n in &board.whites {
            whites[usize::from(n)] += 1;
        }
        powerballs[usize::from(board.powerball)] += 1;
    }
    let chi = |observed: &[u32], expected: f64| -> f64 {
        observed.iter().map(|&o| (f64::from(o) - expected).powi(2) / expected).sum()
    };
    let white = chi(&whites[1..], f64::from(picks) * 5.0 / 69.0);
    assert!(white < 111.0, "whites: chi-square {white:.1} over 68 degrees of freedom");
    let pb = chi(&powerballs[1..], f64::from(picks) / 26.0);
    assert!(pb < 52.6, "Powerballs: chi-square {pb:.1} over 25 degrees of freedom");
    let draws = 43_000u32;
    let mut drawn: HashMap<u8, u32> = HashMap::new();
    for _ in 0..draws {
        *drawn.entry(PowerPlayBalls::WithTenX.draw(&mut rng)).or_default() += 1;
    }
    let stat: f64 = PowerPlayBalls::WithTenX
        .balls()
        .iter()
        .map(|&(m, n)| {
            let expected = f64::from(draws) * f64::from(n) / 43.0;
            (f64::from(drawn.get(&m).copied().unwrap_or(0)) - expected).powi(2) / expected
        })
        .sum();
    assert!(stat < 18.47, "multipliers: chi-square {stat:.2} over 4 degrees of freedom");
}

/// The annuity: 30 payments, each 5% larger than the one before (to the cent), summing exactly to
/// the grand prize; equal shares between winners.
#[test]
fn the_annuity_grows_five_percent_a_year_and_sums_to_the_prize() {
    use domain::powerball::grand_prize::{DEFAULT_ELECTION, Election, annuity_payments, share_cents};
    for total in [2_000_000_000i64, 15_000_000_000, 12_345_678_901, 100_000_000_000] {
        let payments = annuity_payments(total);
        assert_eq!(payments.iter().sum::<i64>(), total, "{total}");
        for pair in payments[..29].windows(2) {
            let grown = pair[0] as f64 * 1.05;
            assert!((pair[1] as f64 - grown).abs() <= 1.05 + 1.0, "{} then {}", pair[0], pair[1]);
        }
        // $20 million's first and last, exactly: 20,000,000 / Σ 1.05^i = $301,028.70160..., and
        // × 1.05^29 = $1,239,074.95391...
        if total == 2_000_000_000 {
            assert_eq!((payments[0], payments[29]), (30_102_870, 123_907_495));
        }
    }
    assert_eq!(DEFAULT_ELECTION, Election::Annuity);
    // Due on the claim and each anniversary after it; a leap day's claim on 28 February after.
    let date = |text: &str| text.parse::<chrono::NaiveDate>().unwrap();
    let due = domain::powerball::grand_prize::annuity_due_dates(date("2028-02-29"));
    assert_eq!(
        (due[0], due[1], due[4], due[29]),
        (date("2028-02-29"), date("2029-02-28"), date("2032-02-29"), date("2057-02-28"))
    );
    assert_eq!(share_cents(10_000_000_001, 3), 3_333_333_333, "a cent left in the pool");
    assert_eq!(share_cents(5, 0), 0);
}

/// Entered results are checked like a board, and the multiplier against the drawing's drum.
#[test]
fn entered_results_are_checked_against_the_drum() {
    use domain::powerball::drawing::Results;
    let ok = Results::new(&[69, 1, 20, 33, 40], 26, 10, PowerPlayBalls::WithTenX).unwrap();
    assert_eq!(ok.numbers.whites, [1, 20, 33, 40, 69]);
    assert_eq!(
        Results::new(&[69, 1, 20, 33, 40], 26, 10, PowerPlayBalls::WithoutTenX),
        Err(RuleError::MultiplierNotInDrum(10))
    );
    assert_eq!(
        Results::new(&[1, 2, 3, 4, 5], 26, 6, PowerPlayBalls::WithTenX),
        Err(RuleError::MultiplierNotInDrum(6))
    );
    assert_eq!(
        Results::new(&[1, 2, 3, 4, 4], 26, 2, PowerPlayBalls::WithTenX),
        Err(RuleError::DuplicateWhite(4))
    );
}

/// A tally of hand-made plays gives the prize table the chart says: every tier with and without
/// Power Play, match 5 at $2,000,000 with it, the grand prize shared and never multiplied.
#[test]
fn a_tally_pays_every_tier_of_the_chart() {
    use domain::powerball::drawing::{Results, Tally};
    let results = Results::new(&[5, 15, 25, 35, 45], 10, 3, PowerPlayBalls::WithTenX).unwrap();
    let board = |whites: &[u8], pb: u8| Board::new(whites, pb).unwrap();
    let mut tally = Tally::default();
    let plays = [
        (board(&[5, 15, 25, 35, 45], 10), false), // grand prize
        (board(&[5, 15, 25, 35, 45], 10), true),  // grand prize, Power Play does not touch it
        (board(&[5, 15, 25, 35, 45], 11), true),  // match 5 with Power Play: $2M
        (board(&[5, 15, 25, 35, 46], 10), true),  // 4 + PB: $50,000 × 3
        (board(&[5, 15, 25, 36, 46], 11), false), // 3: $7
        (board(&[1, 2, 3, 4, 6], 10), true),      // PB only: $4 × 3
        (board(&[1, 2, 3, 4, 6], 11), true),      // nothing
    ];
    for (b, pp) in &plays {
        tally.add(b, *pp, &results);
    }
    assert_eq!(tally.plays(), 7);
    assert_eq!(tally.grand_prize_winners(), 2);
    let table = tally.prize_table(&results, 10_000_000_001);
    let line =
        |tier: Tier, pp: bool| table.iter().find(|l| l.tier == tier && l.power_play == pp).copied().unwrap();
    assert_eq!(line(Tier::GrandPrize, false).prize_cents, 5_000_000_000);
    assert_eq!(line(Tier::GrandPrize, true).prize_cents, 5_000_000_000);
    assert_eq!((line(Tier::Five, true).winners, line(Tier::Five, true).prize_cents), (1, 200_000_000));
    assert_eq!(line(Tier::Five, false).prize_cents, 100_000_000);
    assert_eq!(line(Tier::FourPowerball, true).total_cents, 15_000_000);
    assert_eq!(line(Tier::Three, false).total_cents, 700);
    assert_eq!(line(Tier::Powerball, true).total_cents, 1_200);
    assert_eq!(table.len(), 18);
    let winners: u64 = table.iter().map(|l| l.winners).sum();
    assert_eq!(winners, 6);
}

/// Drawn results: whites, Powerball and multiplier each uniform over their balls (chi-square).
#[test]
fn drawn_results_are_uniform() {
    use domain::powerball::drawing::Results;
    let mut rng = ChaCha20Rng::seed_from_u64(2026);
    let draws = 30_000u32;
    let (mut whites, mut powerballs, mut multipliers) = ([0u32; 70], [0u32; 27], [0u32; 11]);
    for _ in 0..draws {
        let r = Results::draw(&mut rng, PowerPlayBalls::WithoutTenX);
        for &n in &r.numbers.whites {
            whites[usize::from(n)] += 1;
        }
        powerballs[usize::from(r.numbers.powerball)] += 1;
        multipliers[usize::from(r.multiplier)] += 1;
    }
    let chi = |observed: &[u32], expected: f64| -> f64 {
        observed.iter().map(|&o| (f64::from(o) - expected).powi(2) / expected).sum()
    };
    // Critical values at the 0.1% level.
    let white = chi(&whites[1..], f64::from(draws) * 5.0 / 69.0);
    assert!(white < 111.0, "whites: {white:.1} over 68 degrees of freedom");
    let pb = chi(&powerballs[1..], f64::from(draws) / 26.0);
    assert!(pb < 52.6, "Powerballs: {pb:.1} over 25 degrees of freedom");
    assert_eq!(multipliers[10], 0, "no 10x above $150 million");
    let stat: f64 = PowerPlayBalls::WithoutTenX
        .balls()
        .iter()
        .map(|&(m, n)| {
            let expected = f64::from(draws) * f64::from(n) / 42.0;
            (f64::from(multipliers[usize::from(m)]) - expected).powi(2) / expected
        })
        .sum();
    assert!(stat < 16.27, "multipliers: {stat:.2} over 3 degrees of freedom");
}
