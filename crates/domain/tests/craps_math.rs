//! Craps' exact math (K.A.R. 111-501-44, -45) against figures known independently of this code:
//! the classic fractions every craps text derives by hand.

// Tests stop at the first surprise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::indexing_slicing
)]

use domain::craps::math::{
    HotShooterCount, bonus, buy, commission_other_reading, every_wager, hardway, hot_shooter, line,
    number_or_seven, one_roll, pass_with_odds, seven_out_on_roll,
};
use domain::craps::{Bet, PowerTable, commission, place_odds, true_odds};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

#[test]
fn the_line_bets_are_the_classic_fractions() {
    let pass = line(false);
    assert_eq!(pass.win, q(244, 495));
    assert_eq!(pass.edge(), q(7, 495), "1.414%");
    assert_eq!(pass.rolls, q(557, 165), "3.376 rolls a decision");
    let dont = line(true);
    assert_eq!(dont.push, q(1, 36), "the bar 12");
    assert_eq!(dont.edge(), q(3, 220), "1.364%");
    // Odds pay true: no edge; behind the line they thin it.
    let odds = number_or_seven(4, true_odds(4), false, &BigRational::zero());
    assert!(odds.edge().is_zero());
    assert_eq!(pass_with_odds(0), q(7, 495));
    assert_eq!(pass_with_odds(1), q(7, 495) / q(5, 3), "1x odds: 0.848%");
}

#[test]
fn place_buy_hardways_and_props_are_the_classic_fractions() {
    let zero = BigRational::zero();
    assert_eq!(number_or_seven(6, place_odds(6), false, &zero).edge(), q(1, 66));
    assert_eq!(number_or_seven(5, place_odds(5), false, &zero).edge(), q(1, 25));
    assert_eq!(number_or_seven(4, place_odds(4), false, &zero).edge(), q(1, 15));
    // A $20 buy on the 4 pays a $1 commission: 5% of the wager.
    assert_eq!(commission(2_000), 100);
    assert_eq!(buy(4, 2_000, 100).edge(), q(1, 20));
    // 45(m): a charge under a dollar is nothing; a $25 buy's $1.25 is $1 (or $1.25 read the other way).
    assert_eq!((commission(1_900), commission(2_500)), (0, 100));
    assert_eq!(commission_other_reading(2_500), 125);
    assert!(buy(4, 1_900, 0).edge().is_zero(), "a commission-free buy is a fair bet");
    assert_eq!(hardway(6, None).edge(), q(1, 11));
    assert_eq!(hardway(4, None).edge(), q(1, 9));
    let edge = |bet| one_roll(bet, None).edge();
    assert_eq!(edge(Bet::Field), q(1, 18), "2 to 1 on the 2 and the 12: 5.56%");
    assert_eq!(edge(Bet::AnySeven), q(1, 6));
    assert_eq!(edge(Bet::AnyCraps), q(1, 9));
    assert_eq!(edge(Bet::Two), q(5, 36));
    assert_eq!(edge(Bet::Eleven), q(1, 9));
    assert_eq!(edge(Bet::Horn), q(1, 8), "12.5%");
    assert_eq!(edge(Bet::World), q(2, 15), "13.33%");
    assert_eq!(edge(Bet::Hop { dice: [2, 2] }), q(5, 36));
    assert_eq!(edge(Bet::Hop { dice: [1, 3] }), q(1, 9));
    // A split is its two halves' average.
    assert_eq!(edge(Bet::CAndE), (q(1, 9) + q(1, 9)) / q(2, 1));
}

#[test]
fn the_bonus_wagers_and_the_seven_out_distribution_add_up() {
    // All small: 34 to 1 on a chance of about 2.63%: an edge of about 7.8%.
    let small = bonus(Bet::AllSmall);
    let tall = bonus(Bet::AllTall);
    assert_eq!(small.win, tall.win, "the two halves of the dice are mirror images");
    let edge = small.edge().to_f64().unwrap();
    assert!((0.077..0.079).contains(&edge), "{edge}");
    let all = bonus(Bet::MakeEmAll).edge().to_f64().unwrap();
    assert!((0.074..0.075).contains(&all), "{all}");
    // The seven-out's roll: its chances over a long run add to 1, and the mean is the classic
    // 1,671/196 = 8.5255 rolls a shooter.
    let by_roll = seven_out_on_roll(200);
    let total: BigRational = by_roll.iter().fold(BigRational::zero(), |a, b| a + b);
    assert!((BigRational::one() - total).to_f64().unwrap() < 1e-8);
    let mean: f64 = by_roll.iter().enumerate().map(|(i, p)| (i as f64 + 1.0) * p.to_f64().unwrap()).sum();
    assert!((mean - 1_671.0 / 196.0).abs() < 1e-5, "{mean}");
    assert!(by_roll[0].is_zero(), "a come-out cannot seven out");
}

#[test]
fn every_reading_of_the_hot_shooter_is_computed_and_flagged() {
    for count in [HotShooterCount::BeforeTheSevenOut, HotShooterCount::WithTheSevenOut] {
        for for_one in [true, false] {
            let f = hot_shooter(count, for_one);
            let edge = f.edge().to_f64().unwrap();
            let pays = if for_one { "n for 1" } else { "n to 1" };
            println!(
                "hot shooter, {count:?}, \"n times the wager\" as {pays}: house edge {:.4}%",
                edge * 100.0
            );
            assert!((f.win.clone() + f.lose.clone() - BigRational::one()).is_zero());
            // Read as n to 1 the wager gives the player the edge, however the rolls are counted.
            assert_eq!(edge > 0.0, for_one, "{count:?} {pays}: {edge}");
        }
    }
    // Counting the seven-out's roll wins more often than not counting it.
    assert!(
        hot_shooter(HotShooterCount::WithTheSevenOut, true).win
            > hot_shooter(HotShooterCount::BeforeTheSevenOut, true).win
    );
}

#[test]
fn power_odds_raise_the_named_wagers_only_and_never_lower_one() {
    let lit = |bet, table| one_roll(bet, Some(table)).edge();
    // Any seven at 13 to 2 (table one) and 18 to 2 (table two): the player has the edge while lit.
    assert_eq!(lit(Bet::AnySeven, PowerTable::One), q(1, 1) - q(1, 6) * q(15, 2));
    assert!(lit(Bet::AnySeven, PowerTable::Two) < BigRational::zero());
    // The 2 keeps its 30 to 1 (ten to one would lower it); the field is not named.
    assert_eq!(lit(Bet::Two, PowerTable::One), q(5, 36));
    assert_eq!(lit(Bet::Field, PowerTable::Two), q(1, 18));
    let all = every_wager(Some((PowerTable::One, 50)));
    assert!(all.len() > 60);
    let names: Vec<&str> = all.iter().map(|w| w.wager.as_str()).collect();
    for needed in [
        "pass",
        "dont_pass",
        "come",
        "dont_come",
        "put_4",
        "buy_10_at_20_dollars",
        "hardway_8",
        "horn_high_3",
        "hot_shooter",
        "make_em_all",
    ] {
        assert!(names.contains(&needed), "{needed} missing from the math");
    }
}
