//! A craps table session (K.A.R. 111-501-44, -45): what each roll does to each bet, the making,
//! working and removal rules, and a seeded simulation of the same engine with a full layout whose
//! every wager's return agrees with the exact math; the dice pass a chi-square test.

// Tests stop at the first surprise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::cast_precision_loss
)]

use std::collections::BTreeMap;

use domain::craps::math::{self, Figures, HotShooterCount};
use domain::craps::session::{Change, PowerOdds, Result as Decided, RuleError, Session, TableRules};
use domain::craps::{Bet, PowerTable, Proposition, Roll, lay_odds, place_odds};
use num_traits::{ToPrimitive, Zero};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const RULES: TableRules =
    TableRules { min_bet_cents: 100, max_bet_cents: 500_000, odds_multiple: 3, power_odds: None };

fn roll(a: u8, b: u8) -> Roll {
    Roll { die1: a, die2: b }
}

fn place(s: &mut Session, bet: Bet, cents: i64) {
    s.change(Change::Place { bet, amount_cents: cents }).unwrap_or_else(|e| panic!("{bet:?}: {e}"));
}

fn result_of(report: &domain::craps::session::RollReport, bet: Bet) -> Option<(Decided, i64)> {
    report.outcomes.iter().find(|o| o.bet == bet).map(|o| (o.result, o.returned_cents))
}

#[test]
fn the_line_and_the_puck_follow_44_c_1_to_14() {
    let mut s = Session::new(RULES);
    assert_eq!(s.check_roll(), Err(RuleError::ShooterNeedsLineBet), "44(a)(8)");
    place(&mut s, Bet::Pass, 1_000);
    place(&mut s, Bet::DontPass, 1_000);
    // A come-out 12: pass loses, don't pass is barred (returned).
    let r = s.roll(roll(6, 6), false);
    assert_eq!(result_of(&r, Bet::Pass), Some((Decided::Lost, 0)));
    assert_eq!(result_of(&r, Bet::DontPass), Some((Decided::Push, 1_000)));
    place(&mut s, Bet::Pass, 1_000);
    let r = s.roll(roll(2, 2), false);
    assert_eq!((r.point_after, s.point), (Some(4), Some(4)));
    assert_eq!(s.change(Change::Remove { bet: Bet::Pass }), Err(RuleError::ContractBet), "45(d)");
    assert!(matches!(
        s.change(Change::Place { bet: Bet::Pass, amount_cents: 500 }),
        Err(RuleError::NotNow(_))
    ));
    // Odds up to 3x behind the pass, paid 2 to 1 on the 4.
    assert!(matches!(
        s.change(Change::Place { bet: Bet::PassOdds, amount_cents: 3_100 }),
        Err(RuleError::OddsOverMultiple { max_cents: 3_000, multiple: 3 })
    ));
    place(&mut s, Bet::PassOdds, 3_000);
    place(&mut s, Bet::Come, 500);
    let r = s.roll(roll(5, 1), false);
    assert_eq!(result_of(&r, Bet::Come), Some((Decided::Moved, 0)));
    assert!(s.bets.iter().any(|p| p.bet == Bet::ComePoint { number: 6 } && p.amount_cents == 500));
    let r = s.roll(roll(1, 3), false);
    assert_eq!(result_of(&r, Bet::Pass), Some((Decided::Won, 2_000)));
    assert_eq!(result_of(&r, Bet::PassOdds), Some((Decided::Won, 9_000)), "true odds 2 to 1");
    assert_eq!(s.point, None, "the point made: a come-out next");
    // The come bet on the 6 works on the come-out (45(d)); a 7 there loses it, not a seven-out.
    let r = s.roll(roll(3, 4), false);
    assert_eq!(result_of(&r, Bet::ComePoint { number: 6 }), Some((Decided::Lost, 0)));
    assert!(!r.seven_out);
}

#[test]
fn place_bets_come_odds_and_hardways_are_off_on_the_come_out_unless_called_on() {
    let mut s = Session::new(RULES);
    place(&mut s, Bet::Pass, 1_000);
    place(&mut s, Bet::Place { number: 6 }, 1_200);
    place(&mut s, Bet::Place { number: 8 }, 1_200);
    place(&mut s, Bet::Hardway { number: 6 }, 500);
    s.change(Change::Working { bet: Bet::Place { number: 8 }, working: true }).unwrap();
    let r = s.roll(roll(4, 3), false);
    assert_eq!(result_of(&r, Bet::Place { number: 6 }), None, "off: not decided");
    assert_eq!(result_of(&r, Bet::Hardway { number: 6 }), None);
    assert_eq!(result_of(&r, Bet::Place { number: 8 }), Some((Decided::Lost, 0)), "called on");
    // With a point: the place 6 pays 7 to 6; the hard 6 loses the easy way.
    place(&mut s, Bet::Pass, 1_000);
    s.roll(roll(5, 5), false);
    let r = s.roll(roll(4, 2), false);
    assert_eq!(result_of(&r, Bet::Place { number: 6 }), Some((Decided::Won, 1_200 + 1_400)));
    assert_eq!(result_of(&r, Bet::Hardway { number: 6 }), Some((Decided::Lost, 0)));
    // Units: a place 6 pays whole cents only in sixes.
    assert_eq!(
        s.change(Change::Place { bet: Bet::Place { number: 6 }, amount_cents: 1_000 }),
        Err(RuleError::NotInUnits { unit: 6 })
    );
}

#[test]
fn dont_bets_come_down_but_stay_down_until_the_next_come_out_and_lays_return_their_commission() {
    let mut s = Session::new(RULES);
    place(&mut s, Bet::DontPass, 1_000);
    s.roll(roll(3, 3), false);
    place(&mut s, Bet::DontCome, 1_000);
    s.roll(roll(4, 4), false);
    let moved = s.change(Change::Remove { bet: Bet::DontComePoint { number: 8 } }).unwrap();
    assert_eq!(moved.stake_cents, -1_000);
    assert_eq!(
        s.change(Change::Place { bet: Bet::DontCome, amount_cents: 1_000 }),
        Err(RuleError::DontLocked),
        "45(e)"
    );
    // A lay against the 4 of $40 wins $20: 5% of it is $1, returned if the bet comes down (45(q)).
    let laid = s.change(Change::Place { bet: Bet::Lay { number: 4 }, amount_cents: 4_000 }).unwrap();
    assert_eq!((laid.stake_cents, laid.commission_cents), (4_000, 100));
    let back = s.change(Change::Remove { bet: Bet::Lay { number: 4 } }).unwrap();
    assert_eq!((back.stake_cents, back.commission_cents), (-4_000, -100));
    // 45(m): a $19 buy's 95 cents of commission is rounded down to nothing.
    let bought = s.change(Change::Place { bet: Bet::Buy { number: 10 }, amount_cents: 1_900 }).unwrap();
    assert_eq!(bought.commission_cents, 0);
    // The seven-out: don't pass wins; the next come-out unlocks the don't bets.
    let r = s.roll(roll(6, 1), false);
    assert!(r.seven_out);
    assert_eq!(result_of(&r, Bet::DontPass), Some((Decided::Won, 2_000)));
    assert!(!s.dont_locked);
}

#[test]
fn one_roll_wagers_pay_unit_by_unit_and_power_odds_pay_the_named_ones_more() {
    let mut s = Session::new(TableRules {
        power_odds: Some(PowerOdds { table: PowerTable::One, per_thousand_rolls: 100 }),
        ..RULES
    });
    place(&mut s, Bet::Pass, 1_000);
    place(&mut s, Bet::Horn, 400);
    place(&mut s, Bet::World, 500);
    place(&mut s, Bet::CAndE, 200);
    place(&mut s, Bet::Field, 100);
    place(&mut s, Bet::AnySeven, 200);
    let r = s.roll(roll(5, 6), false);
    // The horn's 11 unit: 100 + 15 to 1; the world's 11 unit likewise; C and E's eleven half.
    assert_eq!(result_of(&r, Bet::Horn), Some((Decided::Won, 1_600)));
    assert_eq!(result_of(&r, Bet::World), Some((Decided::Won, 1_600)));
    assert_eq!(result_of(&r, Bet::CAndE), Some((Decided::Won, 1_600)));
    assert_eq!(result_of(&r, Bet::Field), Some((Decided::Won, 200)));
    assert_eq!(result_of(&r, Bet::AnySeven), Some((Decided::Lost, 0)));
    assert!(s.bets.iter().all(|p| !p.bet.is_one_roll()), "decided one-roll bets come down");
    // Lit power odds: any seven 13 to 2; the horn's 11 unit 22 to 1.
    place(&mut s, Bet::Pass, 1_000);
    place(&mut s, Bet::AnySeven, 200);
    place(&mut s, Bet::Split { halves: [Proposition::AnySeven, Proposition::Eleven] }, 200);
    let r = s.roll(roll(3, 4), true);
    assert!(r.power_odds);
    assert_eq!(result_of(&r, Bet::AnySeven), Some((Decided::Won, 200 + 1_300)));
    // A split is not named by (47): its seven half is paid 4 to 1.
    assert_eq!(
        result_of(&r, Bet::Split { halves: [Proposition::AnySeven, Proposition::Eleven] }),
        Some((Decided::Won, 500))
    );
}

#[test]
fn the_bonus_wagers_and_the_hot_shooter_are_made_for_a_new_shooter_and_counted_by_the_rules() {
    let mut s = Session::new(RULES);
    place(&mut s, Bet::Pass, 1_000);
    place(&mut s, Bet::AllSmall, 100);
    place(&mut s, Bet::HotShooter, 100);
    for (a, b) in [(1, 1), (1, 2), (2, 2)] {
        s.roll(roll(a, b), false);
        if s.point.is_none() && s.bets.iter().all(|p| p.bet != Bet::Pass) {
            place(&mut s, Bet::Pass, 1_000);
        }
    }
    assert!(matches!(
        s.change(Change::Place { bet: Bet::AllTall, amount_cents: 100 }),
        Err(RuleError::NotNow(_))
    ));
    assert!(matches!(
        s.change(Change::Place { bet: Bet::HotShooter, amount_cents: 100 }),
        Err(RuleError::NotNow(_))
    ));
    let small = s.bets.iter().find(|p| p.bet == Bet::AllSmall).unwrap();
    assert_eq!(small.progress, (1 << 2) | (1 << 3) | (1 << 4));
    for (a, b) in [(2, 3), (3, 3)] {
        let r = s.roll(roll(a, b), false);
        if a == 3 {
            assert_eq!(result_of(&r, Bet::AllSmall), Some((Decided::Won, 3_500)), "34 to 1");
        }
    }
    // Five rolls so far; the seven-out on the sixth: five rolls before it, under eight: lost.
    let r = s.roll(roll(3, 4), false);
    assert!(r.seven_out);
    assert_eq!(result_of(&r, Bet::HotShooter), Some((Decided::Lost, 0)));
    assert_eq!(s.shooter_rolls, 0, "a new shooter");
}

/// Every wager the simulation keeps on the layout, with its exact figures.
fn layout() -> Vec<(Bet, i64, Figures)> {
    let zero = num_rational::BigRational::zero();
    let mut bets = vec![
        (Bet::Pass, 6_000, math::line(false)),
        (Bet::DontPass, 6_000, math::line(true)),
        (Bet::Come, 6_000, math::line(false)),
        (Bet::DontCome, 6_000, math::line(true)),
        (Bet::Big6, 6_000, math::number_or_seven(6, domain::craps::Odds { to_win: 1, to: 1 }, false, &zero)),
        (Bet::AllSmall, 6_000, math::bonus(Bet::AllSmall)),
        (Bet::AllTall, 6_000, math::bonus(Bet::AllTall)),
        (Bet::MakeEmAll, 6_000, math::bonus(Bet::MakeEmAll)),
        (Bet::HotShooter, 6_000, math::hot_shooter(HotShooterCount::BeforeTheSevenOut, true)),
    ];
    for n in [4u8, 5, 6, 8, 9, 10] {
        bets.push((Bet::Place { number: n }, 6_000, math::number_or_seven(n, place_odds(n), false, &zero)));
        bets.push((Bet::Buy { number: n }, 6_000, math::buy(n, 6_000, 300)));
        let lay = 6_000i64;
        let commission = domain::craps::commission(lay_odds(n).winnings(lay));
        bets.push((Bet::Lay { number: n }, lay, math::lay(n, lay, commission)));
    }
    for n in [4u8, 6, 8, 10] {
        bets.push((Bet::Hardway { number: n }, 6_000, math::hardway(n, None)));
    }
    for bet in [
        Bet::Field,
        Bet::AnySeven,
        Bet::AnyCraps,
        Bet::Two,
        Bet::Three,
        Bet::Twelve,
        Bet::Eleven,
        Bet::Horn,
        Bet::HornHigh { number: 12 },
        Bet::World,
        Bet::ThreeWayCraps,
        Bet::Hop { dice: [3, 3] },
        Bet::Hop { dice: [2, 5] },
        Bet::CAndE,
        Bet::HighLow,
        Bet::AceDeuceAnyCraps,
    ] {
        bets.push((bet, 6_000, math::one_roll(bet, None)));
    }
    bets
}

#[test]
fn a_seeded_full_layout_agrees_with_every_exact_figure_and_the_dice_are_fair() {
    let rolls = 300_000u32;
    let rules = TableRules { odds_multiple: 100, max_bet_cents: 10_000_000, ..RULES };
    let mut s = Session::new(rules);
    let mut rng = ChaCha20Rng::seed_from_u64(11_150_144);
    let bets = layout();
    // Per wager: decisions, and the sums of (back per unit) and its square.
    let mut seen: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    let mut faces = [0u32; 36];
    for _ in 0..rolls {
        for &(bet, amount, _) in &bets {
            if s.bets.iter().all(|p| p.bet != bet) {
                let _ = s.change(Change::Place { bet, amount_cents: amount });
            }
        }
        for p in s.bets.clone() {
            if matches!(p.bet, Bet::Place { .. } | Bet::Hardway { .. }) && p.working.is_none() {
                s.change(Change::Working { bet: p.bet, working: true }).unwrap();
            }
        }
        let r = Roll::random(&mut rng);
        faces[usize::from((r.die1 - 1) * 6 + r.die2 - 1)] += 1;
        let report = s.roll(r, false);
        for o in &report.outcomes {
            // Come points are the come bet's second life; count the come bet when it is decided.
            let name = match o.bet {
                Bet::ComePoint { .. } => format!("{:?}", Bet::Come),
                Bet::DontComePoint { .. } => format!("{:?}", Bet::DontCome),
                Bet::Come | Bet::DontCome if o.result == Decided::Moved => continue,
                other => format!("{other:?}"),
            };
            let cost = match o.bet {
                Bet::Buy { .. } | Bet::Lay { .. } => Session::commission_on(o.bet, o.amount_cents),
                _ => 0,
            };
            let x = (o.returned_cents - cost) as f64 / o.amount_cents as f64;
            let e = seen.entry(name).or_insert((0.0, 0.0, 0.0));
            *e = (e.0 + 1.0, e.1 + x, e.2 + x * x);
        }
    }
    let mut checked = 0;
    for (bet, _, figures) in &bets {
        let name = format!("{bet:?}");
        let Some(&(n, sum, squares)) = seen.get(&name) else { panic!("{name} was never decided") };
        let mean = sum / n;
        let sd = ((squares / n - mean * mean) / n).sqrt();
        let exact = figures.back.to_f64().unwrap();
        println!("{name:<24} {n:>8} decided  simulated {mean:.5} ± {:.5}  exact {exact:.5}", 1.96 * sd);
        assert!((mean - exact).abs() <= 4.0 * sd + 1e-9, "{name}: {mean} against {exact} (sd {sd})");
        checked += 1;
    }
    assert!(checked >= 40);
    // The dice: 36 faces equally likely, chi-square with 35 degrees of freedom under 66.62 (p =
    // 0.001).
    let expected = f64::from(rolls) / 36.0;
    let chi: f64 = faces.iter().map(|&o| (f64::from(o) - expected).powi(2) / expected).sum();
    println!("dice: chi-square {chi:.2} over 36 faces, {rolls} rolls");
    assert!(chi < 66.62, "{chi}");
}
