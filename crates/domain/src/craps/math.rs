//! Craps' math, exactly: every wager's chances, return, house edge per unit wagered and per roll,
//! computed from the same pay tables and rules the session engine pays by ([`super`]'s odds
//! functions, [`super::unit_odds`], [`super::bonus_totals`], [`super::hot_shooter_multiple`],
//! [`super::commission`]), never typed in. Fractions are exact rationals of any size (the hot
//! shooter's run over 50 rolls needs denominators of 36^50).
//!
//! Arbitrary-precision rationals cannot overflow, and every division here is by a chance that
//! is not zero, so the arithmetic is written plainly; the seven-out chain indexes its six points by position.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

mod readings;

pub use readings::{Ambiguity, Reading, ambiguities};

use std::collections::HashMap;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use serde::Serialize;

use super::{
    Bet, Odds, POINTS, PowerTable, Proposition, Roll, bonus_odds, bonus_totals, commission, hardway_odds,
    hardway_win_odds, hot_shooter_multiple, lay_odds, place_odds, true_odds, unit_odds, ways,
};

type Q = BigRational;

fn q(n: i64, d: i64) -> Q {
    Q::new(BigInt::from(n), BigInt::from(d))
}

fn qodds(o: Odds) -> Q {
    q(i64::from(o.to_win), i64::from(o.to))
}

/// An exact fraction as it is published: numerator and denominator in decimal digits (they can
/// be longer than any integer type), and the value as a decimal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BigFraction))]
pub struct Exact {
    pub numerator: String,
    pub denominator: String,
    pub decimal: f64,
}

impl From<&Q> for Exact {
    fn from(x: &Q) -> Exact {
        Exact {
            numerator: x.numer().to_string(),
            denominator: x.denom().to_string(),
            decimal: x.to_f64().unwrap_or(f64::NAN),
        }
    }
}

/// One wager's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WagerMath {
    /// The wager as the API names it, with its number where it has one.
    pub wager: String,
    /// The paragraph of K.A.R. 111-501-44(c) or -45 it comes from.
    pub rule: String,
    /// "n to d" as paid (or the pay table in words).
    pub pays: String,
    pub win: Exact,
    pub lose: Exact,
    pub push: Exact,
    /// What one unit wagered returns on average, stake and commission counted.
    pub return_per_unit: Exact,
    /// Per unit wagered: negative means the player has the edge.
    pub house_edge: Exact,
    /// Rolls the wager stays on the layout on average, from when it may be made.
    pub expected_rolls: Exact,
    pub house_edge_per_roll: Exact,
    /// For a buy or a lay, whose commission is paid beside the bet: the house edge per unit of
    /// the bet and its commission together (`house_edge` is per unit of the bet alone).
    pub house_edge_per_total_wagered: Option<Exact>,
}

/// The raw figures before they are published.
#[derive(Debug, Clone)]
pub struct Figures {
    pub win: Q,
    pub lose: Q,
    pub push: Q,
    /// Expected amount back per unit wagered (stake included).
    pub back: Q,
    pub rolls: Q,
}

impl Figures {
    pub fn edge(&self) -> Q {
        Q::one() - &self.back
    }

    fn publish(&self, wager: impl Into<String>, rule: &str, pays: impl Into<String>) -> WagerMath {
        let edge = self.edge();
        WagerMath {
            wager: wager.into(),
            rule: rule.to_owned(),
            pays: pays.into(),
            win: (&self.win).into(),
            lose: (&self.lose).into(),
            push: (&self.push).into(),
            return_per_unit: (&self.back).into(),
            house_edge: (&edge).into(),
            expected_rolls: (&self.rolls).into(),
            house_edge_per_roll: (&(&edge / &self.rolls)).into(),
            house_edge_per_total_wagered: None,
        }
    }

    /// [`Figures::publish`] for a wager whose `commission` (a share of the bet) is paid beside it.
    fn publish_with_commission(&self, wager: String, rule: &str, pays: String, commission: &Q) -> WagerMath {
        let per_total = self.edge() / (Q::one() + commission);
        WagerMath {
            house_edge_per_total_wagered: Some((&per_total).into()),
            ..self.publish(wager, rule, pays)
        }
    }
}

/// P(a total) on one roll.
fn p(total: u8) -> Q {
    q(i64::from(ways(total)), 36)
}

/// A bet decided by `number` before a 7 (place, buy, put, come point, big 6 and 8, odds), paying
/// `odds`, from a roll where it works; `lay` for the other way round. `cost` is a commission per
/// unit wagered, paid whatever happens.
pub fn number_or_seven(number: u8, odds: Odds, lay: bool, cost: &Q) -> Figures {
    let w = i64::from(ways(number));
    let (first, seven) = (q(w, w + 6), q(6, w + 6));
    let (win, lose) = if lay { (seven, first) } else { (first, seven) };
    let back = &win * (Q::one() + qodds(odds)) - cost;
    Figures { win, lose, push: Q::zero(), back, rolls: q(36, w + 6) }
}

/// Pass (come) or don't pass (don't come), from the come-out (the bet's first roll).
pub fn line(dont: bool) -> Figures {
    let (mut win, mut lose, mut push, mut rolls) = (Q::zero(), Q::zero(), Q::zero(), Q::one());
    for total in 2..=12u8 {
        let pt = p(total);
        match (dont, total) {
            (false, 7 | 11) | (true, 2 | 3) => win += pt,
            (false, 2 | 3 | 12) | (true, 7 | 11) => lose += pt,
            (true, 12) => push += pt,
            (_, n) => {
                let w = i64::from(ways(n));
                let made = q(w, w + 6);
                let out = q(6, w + 6);
                rolls += &pt * q(36, w + 6);
                if dont {
                    win += &pt * out;
                    lose += &pt * made;
                } else {
                    win += &pt * made;
                    lose += &pt * out;
                }
            }
        }
    }
    let back = &win * q(2, 1) + &push;
    Figures { win, lose, push, back, rolls }
}

/// A hardway from a roll where it works: the hard number before its easy way or a 7.
pub fn hardway(number: u8, power: Option<&(PowerTable, Q)>) -> Figures {
    let w = i64::from(ways(number));
    let win = q(1, w + 6);
    let lose = q(w + 5, w + 6);
    let base = qodds(hardway_odds(number));
    // Power odds light each roll apart, whatever the dice: a win is paid them with that chance.
    let paid = match power {
        Some((table, chance)) => {
            &base * (Q::one() - chance) + qodds(hardway_win_odds(number, Some(*table))) * chance
        }
        None => base,
    };
    let back = &win * (Q::one() + paid);
    Figures { win, lose, push: Q::zero(), back, rolls: q(36, w + 6) }
}

/// A one-roll wager over the 36 throws, paid unit by unit as the session pays it; `power` lit.
pub fn one_roll(bet: Bet, power: Option<PowerTable>) -> Figures {
    let units = bet.units();
    let count: i64 = units.iter().map(|(n, _)| i64::from(*n)).sum();
    let (mut back, mut win, mut lose) = (Q::zero(), Q::zero(), Q::zero());
    for roll in Roll::all() {
        let returned: Q = units
            .iter()
            .filter_map(|&(n, unit)| {
                let odds = unit_odds(bet, unit, roll, power)?;
                Some(q(i64::from(n), count) * (Q::one() + qodds(odds)))
            })
            .fold(Q::zero(), |a, b| a + b);
        if returned.is_zero() {
            lose += q(1, 36);
        } else {
            win += q(1, 36);
        }
        back += returned * q(1, 36);
    }
    Figures { win, lose, push: Q::zero(), back, rolls: Q::one() }
}

/// All small, all tall, make 'em all (44(c)(43)-(45), 45(v)): every needed total before a 7,
/// counted over the sets of totals still needed.
pub fn bonus(bet: Bet) -> Figures {
    let needed = bonus_totals(bet);
    let mut win_from: HashMap<u16, (Q, Q)> = HashMap::new();
    // (chance to win, expected rolls) from each set still needed, smallest sets first.
    // Every subset of the needed totals.
    let mut sets = vec![0u16];
    let mut sub = needed;
    while sub != 0 {
        sets.push(sub);
        sub = sub.wrapping_sub(1) & needed;
    }
    sets.sort_by_key(|s| s.count_ones());
    for set in sets {
        if set == 0 {
            win_from.insert(0, (Q::one(), Q::zero()));
            continue;
        }
        // Each roll: a 7 ends it, a needed total moves on, anything else throws again.
        let totals: Vec<u8> = (2..=12u8).filter(|t| set & (1 << t) != 0).collect();
        let deciding: Q = totals.iter().map(|&t| p(t)).fold(p(7), |a, b| a + b);
        let (mut win, mut rolls) = (Q::zero(), Q::one());
        for &t in &totals {
            let (w, r) = win_from.get(&(set & !(1 << t))).cloned().unwrap_or_default();
            win += p(t) * w;
            rolls += p(t) * r;
        }
        win_from.insert(set, (win / &deciding, rolls / &deciding));
    }
    let (win, rolls) = win_from.remove(&needed).unwrap_or_default();
    let back = &win * (Q::one() + qodds(bonus_odds(bet)));
    Figures { lose: Q::one() - &win, win, push: Q::zero(), back, rolls }
}

/// How the hot shooter's rolls are counted (44(c)(46)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum HotShooterCount {
    /// "The number of rolls made prior to a seven out": the seven-out's own roll not counted, so
    /// the wager wins when eight rolls pass without one ("the next roll and ... at least seven
    /// more rolls thereafter"). Implemented.
    BeforeTheSevenOut,
    /// The seven-out's roll counted too, so a seven-out on the eighth roll pays (A): read from
    /// "lose if ... a seven out is rolled in seven or fewer rolls".
    WithTheSevenOut,
}

/// The chance the shooter sevens out on exactly roll k = 1..=limit, from a come-out.
pub fn seven_out_on_roll(limit: usize) -> Vec<Q> {
    // State: come-out, or the point (by its index in POINTS).
    let mut come_out = Q::one();
    let mut on_point: Vec<Q> = vec![Q::zero(); POINTS.len()];
    let mut by_roll = Vec::with_capacity(limit);
    for _ in 0..limit {
        let mut next_come_out = Q::zero();
        let mut next_point = vec![Q::zero(); POINTS.len()];
        let mut seven_out = Q::zero();
        // From the come-out: a point sets it; anything else is another come-out.
        for total in 2..=12u8 {
            match POINTS.iter().position(|&n| n == total) {
                Some(i) => next_point[i] += &come_out * p(total),
                None => next_come_out += &come_out * p(total),
            }
        }
        for (i, &n) in POINTS.iter().enumerate() {
            let here = &on_point[i];
            seven_out += here * p(7);
            next_come_out += here * p(n);
            next_point[i] += here * (Q::one() - p(7) - p(n));
        }
        by_roll.push(seven_out);
        come_out = next_come_out;
        on_point = next_point;
    }
    by_roll
}

/// The hot shooter jackpot under a reading of the count and of "pays n times the wager"
/// (`for_one`: n for 1, what the wager returns in all, as implemented; otherwise n to 1). The
/// session settles it as soon as the top prize is certain.
pub fn hot_shooter(count: HotShooterCount, for_one: bool) -> Figures {
    let by_roll = seven_out_on_roll(60);
    let settle_at: usize = if count == HotShooterCount::BeforeTheSevenOut { 50 } else { 49 };
    let (mut win, mut back, mut rolls) = (Q::zero(), Q::zero(), Q::zero());
    let mut seen = Q::zero();
    for (i, chance) in by_roll.iter().enumerate().take(settle_at) {
        let k = u32::try_from(i).unwrap_or(0).saturating_add(1);
        let counted = if count == HotShooterCount::WithTheSevenOut { k } else { k.saturating_sub(1) };
        if let Some(n) = hot_shooter_multiple(counted) {
            win += chance;
            back += chance * q(i64::from(n) + i64::from(!for_one), 1);
        }
        rolls += chance * q(i64::from(k), 1);
        seen += chance;
    }
    // No seven-out by then: the top prize either way.
    let rest = Q::one() - &seen;
    win += &rest;
    back += &rest * q(100 + i64::from(!for_one), 1);
    rolls += &rest * q(i64::try_from(settle_at).unwrap_or(50), 1);
    Figures { lose: Q::one() - &win, win, push: Q::zero(), back, rolls }
}

/// A buy bet of `amount_cents` on `number`: true odds for the commission paid up front.
pub fn buy(number: u8, amount_cents: i64, commission_cents: i64) -> Figures {
    number_or_seven(number, true_odds(number), false, &q(commission_cents, amount_cents.max(1)))
}

/// A lay bet of `amount_cents` against `number`: true odds for a commission on the win.
pub fn lay(number: u8, amount_cents: i64, commission_cents: i64) -> Figures {
    number_or_seven(number, lay_odds(number), true, &q(commission_cents, amount_cents.max(1)))
}

/// The commission under the other reading of 45(m): only a charge under a dollar is dropped; a
/// charge of a dollar or more is taken to the cent.
pub fn commission_other_reading(cents: i64) -> i64 {
    let five_percent = cents.saturating_mul(5).checked_div(100).unwrap_or(0);
    if five_percent < 100 { 0 } else { five_percent }
}

/// The pass line with odds of `multiple` times behind it whenever a point is set: the edge per
/// unit wagered in all (odds pay true and take no edge).
pub fn pass_with_odds(multiple: u32) -> Q {
    let pass = line(false);
    let point_set: Q = POINTS.iter().map(|&n| p(n)).fold(Q::zero(), |a, b| a + b);
    pass.edge() / (Q::one() + point_set * q(i64::from(multiple), 1))
}

/// The edge a one-roll wager has with power odds lit on a share `chance` of rolls, and the share
/// at which it reaches zero (none when it never does).
pub fn power_blend(base: &Figures, lit: &Figures, chance: &Q) -> (Q, Option<Q>) {
    let (e0, e1) = (base.edge(), lit.edge());
    let blended = &e0 * (Q::one() - chance) + &e1 * chance;
    let denominator = &e0 - &e1;
    let break_even =
        (!denominator.is_zero()).then(|| &e0 / &denominator).filter(|b| b.is_positive() && *b < Q::one());
    (blended, break_even)
}

// Long by design (issue 33 §5): one line per wager of the rules' bet list, the table the
// published math is read from.
/// Every wager of the layout at one table's settings, in the layout's order.
pub fn every_wager(power: Option<(PowerTable, u32)>) -> Vec<WagerMath> {
    let zero = Q::zero();
    let mut all = Vec::new();
    let show = |o: Odds| format!("{} to {}", o.to_win, o.to);
    all.push(line(false).publish("pass", "111-501-44(c)(1)-(3)", "1 to 1"));
    all.push(line(true).publish("dont_pass", "111-501-44(c)(4)-(7)", "1 to 1, 12 bars"));
    all.push(line(false).publish("come", "111-501-44(c)(8)-(10)", "1 to 1"));
    all.push(line(true).publish("dont_come", "111-501-44(c)(11)-(14)", "1 to 1, 12 bars"));
    let chance = power.map(|(table, per_thousand)| (table, q(i64::from(per_thousand), 1000)));
    for n in POINTS {
        let odds = number_or_seven(n, true_odds(n), false, &zero);
        all.push(odds.publish(format!("odds_{n}"), "111-501-45(s)", show(true_odds(n))));
        let laid = number_or_seven(n, lay_odds(n), true, &zero);
        all.push(laid.publish(format!("lay_odds_{n}"), "111-501-45(u)", show(lay_odds(n))));
        let put = number_or_seven(n, Odds { to_win: 1, to: 1 }, false, &zero);
        all.push(put.publish(format!("put_{n}"), "111-501-44(c)(42)", "1 to 1"));
        let place = number_or_seven(n, place_odds(n), false, &zero);
        all.push(place.publish(format!("place_{n}"), "111-501-44(c)(15), 45(k)", show(place_odds(n))));
        // Buy and lay at their smallest amount that pays a commission ($20, or to win $20).
        let buy_amount = 2_000;
        let b = buy(n, buy_amount, commission(buy_amount));
        all.push(b.publish_with_commission(
            format!("buy_{n}_at_20_dollars"),
            "111-501-44(c)(16), 45(m)",
            show(true_odds(n)),
            &q(commission(buy_amount), buy_amount),
        ));
        let lay_amount = 2_000i64
            .saturating_mul(i64::from(lay_odds(n).to))
            .checked_div(i64::from(lay_odds(n).to_win))
            .unwrap_or(0);
        let lay_commission = commission(lay_odds(n).winnings(lay_amount));
        let l = lay(n, lay_amount, lay_commission);
        all.push(l.publish_with_commission(
            format!("lay_{n}_to_win_20_dollars"),
            "111-501-44(c)(17), 45(n)-(r)",
            show(lay_odds(n)),
            &q(lay_commission, lay_amount.max(1)),
        ));
    }
    for n in [4u8, 6, 8, 10] {
        let h = hardway(n, chance.as_ref());
        all.push(h.publish(format!("hardway_{n}"), "111-501-44(c)(18)-(21)", show(hardway_odds(n))));
    }
    for (name, n) in [("big_6", 6u8), ("big_8", 8)] {
        let big = number_or_seven(n, Odds { to_win: 1, to: 1 }, false, &zero);
        all.push(big.publish(name, "111-501-44(c)(36), (37)", "1 to 1"));
    }
    let props: [(&str, Bet, &str); 16] = [
        ("field", Bet::Field, "111-501-44(c)(22)"),
        ("any_seven", Bet::AnySeven, "111-501-44(c)(23)"),
        ("any_craps", Bet::AnyCraps, "111-501-44(c)(24)"),
        ("two", Bet::Two, "111-501-44(c)(25)"),
        ("three", Bet::Three, "111-501-44(c)(26)"),
        ("twelve", Bet::Twelve, "111-501-44(c)(27)"),
        ("eleven", Bet::Eleven, "111-501-44(c)(28)"),
        ("horn", Bet::Horn, "111-501-44(c)(29), 45(l)"),
        ("horn_high_2", Bet::HornHigh { number: 2 }, "111-501-44(c)(30)"),
        ("horn_high_3", Bet::HornHigh { number: 3 }, "111-501-44(c)(30)"),
        ("world", Bet::World, "111-501-44(c)(31)"),
        ("three_way_craps", Bet::ThreeWayCraps, "111-501-44(c)(32)"),
        ("c_and_e", Bet::CAndE, "111-501-44(c)(39)"),
        ("high_low", Bet::HighLow, "111-501-44(c)(40)"),
        ("ace_deuce_any_craps", Bet::AceDeuceAnyCraps, "111-501-44(c)(41)"),
        (
            "split_seven_eleven",
            Bet::Split { halves: [Proposition::AnySeven, Proposition::Eleven] },
            "111-501-44(c)(38)",
        ),
    ];
    for (name, bet, rule) in props {
        all.push(one_roll(bet, None).publish(name, rule, "45(k), paid unit by unit"));
    }
    for (name, dice, rule) in
        [("hop_pair", [2u8, 2], "111-501-44(c)(35)"), ("hop_other", [1, 3], "111-501-44(c)(34)")]
    {
        all.push(one_roll(Bet::Hop { dice }, None).publish(
            name,
            rule,
            if dice[0] == dice[1] { "30 to 1" } else { "15 to 1" },
        ));
    }
    for (name, bet, rule) in [
        ("all_small", Bet::AllSmall, "111-501-44(c)(43), 45(v)"),
        ("all_tall", Bet::AllTall, "111-501-44(c)(44), 45(v)"),
        ("make_em_all", Bet::MakeEmAll, "111-501-44(c)(45), 45(v)"),
    ] {
        all.push(bonus(bet).publish(name, rule, show(bonus_odds(bet))));
    }
    all.push(hot_shooter(HotShooterCount::BeforeTheSevenOut, true).publish(
        "hot_shooter",
        "111-501-44(c)(46)",
        "(A)-(G): 1, 3, 5, 7, 12, 30, 100 for 1",
    ));
    all
}

/// Power odds for one named wager and table: its edge when lit, at the house's rate, and the rate
/// above which the player has the edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PowerOddsFigures {
    pub wager: String,
    pub table: PowerTable,
    pub house_edge_when_lit: Exact,
    pub house_edge_at_house_rate: Exact,
    /// Lit on more than this share of rolls, the wager gives the player the edge.
    pub break_even_share_of_rolls: Option<Exact>,
}

/// Both pay tables of (47) for the one-roll wagers they name, at `per_thousand` lit rolls.
pub fn power_odds_figures(per_thousand: u32) -> Vec<PowerOddsFigures> {
    let chance = q(i64::from(per_thousand), 1_000);
    let mut all = Vec::new();
    for table in [PowerTable::One, PowerTable::Two] {
        for (name, bet) in [
            ("any_seven", Bet::AnySeven),
            ("any_craps", Bet::AnyCraps),
            ("eleven", Bet::Eleven),
            ("horn", Bet::Horn),
            ("hop_pair", Bet::Hop { dice: [2, 2] }),
            ("hop_other", Bet::Hop { dice: [1, 3] }),
        ] {
            let (base, lit) = (one_roll(bet, None), one_roll(bet, Some(table)));
            let (blended, break_even) = power_blend(&base, &lit, &chance);
            all.push(PowerOddsFigures {
                wager: name.to_owned(),
                table,
                house_edge_when_lit: (&lit.edge()).into(),
                house_edge_at_house_rate: (&blended).into(),
                break_even_share_of_rolls: break_even.as_ref().map(Exact::from),
            });
        }
        // The hardways stay up over several rolls, each lit apart: "when lit" is lit on every
        // roll (the most the table could pay); the edge is linear in the share of lit rolls.
        for n in [4u8, 6, 8, 10] {
            let (base, lit) = (hardway(n, None).edge(), hardway(n, Some(&(table, Q::one()))).edge());
            let at_rate = hardway(n, Some(&(table, chance.clone()))).edge();
            let break_even = (lit.is_negative()).then(|| &base / (&base - &lit));
            all.push(PowerOddsFigures {
                wager: format!("hardway_{n}"),
                table,
                house_edge_when_lit: (&lit).into(),
                house_edge_at_house_rate: (&at_rate).into(),
                break_even_share_of_rolls: break_even.as_ref().map(Exact::from),
            });
        }
    }
    all
}
