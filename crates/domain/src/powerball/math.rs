//! Powerball's exact math: how many of the game's equally likely outcomes fall in each tier,
//! each tier's probability as a fraction in lowest terms, the overall odds, and the returns.
//!
//! A drawing is 5 of the 69 whites and 1 of the 26 Powerballs: C(69, 5) × 26 = 292,201,338
//! outcomes for a board. A board matching `k` whites is chosen in C(5, k) × C(64, 5 − k) ways;
//! matching the Powerball in 1 way of 26, missing it in 25.
//!
//! Readings (stated, since the rules set no formula):
//! - the **return** of a play counts the fixed prizes only (the grand prize is pari-mutuel: what
//!   it pays depends on sales and sharing), per dollar staked: $2 a play, $3 with Power Play;
//! - the **expected multiplier** is the mean of the drum's balls, each equally likely;
//! - the **break-even grand prize** is the grand prize at which a play's expected payout equals
//!   its price, read as one winner taking the whole prize at its advertised (annuity) value
//!   before tax. Sharing, the cash option and tax all raise it; they depend on facts a table
//!   cannot know.

use serde::Serialize;

use super::{PLAY_CENTS, POWER_PLAY_CENTS, POWERBALLS, PowerPlayBalls, Tier, WHITE_BALLS};
use crate::math::{Fraction, choose};

/// Outcomes of one board in a game of `whites` white balls (five drawn) and `powerballs`.
pub fn outcomes_of(whites: u32, powerballs: u32) -> u128 {
    choose(whites, 5).saturating_mul(u128::from(powerballs))
}

/// How many outcomes give `tier`, in that game.
pub fn tier_count_of(tier: Tier, whites: u32, powerballs: u32) -> u128 {
    let (matched, powerball) = tier.matches();
    let matched = u32::try_from(matched).unwrap_or(0);
    let white_ways =
        choose(5, matched).saturating_mul(choose(whites.saturating_sub(5), 5u32.saturating_sub(matched)));
    let powerball_ways = if powerball { 1 } else { u128::from(powerballs.saturating_sub(1)) };
    white_ways.saturating_mul(powerball_ways)
}

/// Powerball's outcomes for one board: 292,201,338.
pub fn outcomes() -> u128 {
    outcomes_of(u32::from(WHITE_BALLS), u32::from(POWERBALLS))
}

/// Powerball's outcomes giving `tier`.
pub fn tier_count(tier: Tier) -> u128 {
    tier_count_of(tier, u32::from(WHITE_BALLS), u32::from(POWERBALLS))
}

/// One tier as published.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TierOdds {
    pub tier: Tier,
    pub white_matches: usize,
    pub powerball: bool,
    pub outcomes: u128,
    /// Exact, in lowest terms.
    pub probability: Fraction,
    pub one_in: f64,
    /// The fixed prize without Power Play; none for the grand prize.
    pub prize_cents: Option<i64>,
}

/// Power Play with one drum.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PowerPlayMath {
    pub balls: PowerPlayBalls,
    /// The mean multiplier, exactly.
    pub expected_multiplier: Fraction,
    /// The fixed prizes' expected payout per $3 staked (a $2 play with Power Play).
    pub return_without_grand_prize: Fraction,
    /// The grand prize at which a play with Power Play pays back its $3, in cents.
    pub break_even_grand_prize_cents: Fraction,
}

/// The whole game's math.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PowerballMath {
    pub outcomes: u128,
    pub tiers: Vec<TierOdds>,
    /// The odds of winning any prize.
    pub any_prize: Fraction,
    pub any_prize_one_in: f64,
    /// The fixed prizes' expected payout per $2 staked.
    pub return_without_grand_prize: Fraction,
    /// The grand prize at which a $2 play pays back its price, in cents.
    pub break_even_grand_prize_cents: Fraction,
    pub power_play: Vec<PowerPlayMath>,
    /// Where each rule these figures rest on comes from: the Kansas regulations of the seed
    /// (111-5-22, -24), or the multi-state game's prize chart, which the seed does not carry.
    pub sources: Vec<FigureSource>,
}

/// One rule the math rests on, and where it is written.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FigureSource {
    pub rule: &'static str,
    /// `kansas_regulations` (the seed, cited) or `multi_state_prize_chart`.
    pub source: &'static str,
    pub citation: &'static str,
}

/// The rules behind [`PowerballMath`], by source.
pub fn figure_sources() -> Vec<FigureSource> {
    let kansas = |rule, citation| FigureSource { rule, source: "kansas_regulations", citation };
    let chart = |rule| FigureSource {
        rule,
        source: "multi_state_prize_chart",
        citation: "the Powerball game rules' prize chart (multi-state; not in the Kansas regulations)",
    };
    vec![
        kansas("five white balls of 69 and one Powerball of 26", "K.A.R. 111-5-24(a)"),
        kansas("a play costs $2; Power Play $1 more on each board of the slip", "K.A.R. 111-5-24(b), (d)"),
        kansas("the grand prize is pari-mutuel, paid as an annuity or as cash", "K.A.R. 111-5-24(a)"),
        kansas(
            "drawings on Mondays, Wednesdays and Saturdays at about 9:58 p.m. CT; sales close at about 8:59 and resume at about 9:05",
            "K.A.R. 111-5-22, 111-5-24(g), (h)",
        ),
        kansas("the Power Play multiplier is drawn at the drawing", "K.A.R. 111-5-24(a)"),
        chart("the nine prize tiers and their fixed prizes ($1,000,000 down to $4)"),
        chart("Power Play's drum: 2x 24 balls, 3x 13, 4x 3, 5x 2, and 10x 1"),
        chart("the 10x ball is in the drum only while the advertised grand prize is $150 million or less"),
        chart("match 5 with Power Play pays $2,000,000, whatever the multiplier"),
    ]
}

/// Σ over the fixed tiers of outcomes × prize, in cents (without Power Play).
fn fixed_payout_cents() -> u128 {
    Tier::ALL
        .iter()
        .filter_map(|&t| Some(tier_count(t).saturating_mul(u128::try_from(t.base_cents()?).ok()?)))
        .sum()
}

/// The same with Power Play's drum: (numerator, denominator) of the expected payout over all
/// outcomes, in cents; match 5 pays its fixed $2,000,000 whatever the ball.
fn power_play_payout(balls: PowerPlayBalls) -> (u128, u128) {
    let drum: u128 = balls.balls().iter().map(|&(_, n)| u128::from(n)).sum();
    let weighted: u128 =
        balls.balls().iter().map(|&(m, n)| u128::from(m).saturating_mul(u128::from(n))).sum();
    let mut numerator = 0u128;
    for tier in Tier::ALL {
        let Some(base) = tier.base_cents().and_then(|c| u128::try_from(c).ok()) else { continue };
        let count = tier_count(tier);
        numerator = numerator.saturating_add(match tier {
            Tier::Five => count
                .saturating_mul(u128::try_from(super::MATCH_FIVE_WITH_POWER_PLAY_CENTS).unwrap_or(0))
                .saturating_mul(drum),
            _ => count.saturating_mul(base).saturating_mul(weighted),
        });
    }
    (numerator, drum)
}

/// Every figure of the game, exactly.
pub fn powerball_math() -> PowerballMath {
    let total = outcomes();
    let tiers: Vec<TierOdds> = Tier::ALL
        .iter()
        .map(|&tier| {
            let count = tier_count(tier);
            let (white_matches, powerball) = tier.matches();
            let probability = Fraction::new(count, total);
            TierOdds {
                tier,
                white_matches,
                powerball,
                outcomes: count,
                probability,
                one_in: 1.0 / probability.to_f64(),
                prize_cents: tier.base_cents(),
            }
        })
        .collect();
    let winning: u128 = tiers.iter().map(|t| t.outcomes).sum();
    let any_prize = Fraction::new(winning, total);
    let fixed = fixed_payout_cents();
    let price = u128::try_from(PLAY_CENTS).unwrap_or(0);
    let power_price = price.saturating_add(u128::try_from(POWER_PLAY_CENTS).unwrap_or(0));
    let power_play = [PowerPlayBalls::WithTenX, PowerPlayBalls::WithoutTenX]
        .into_iter()
        .map(|balls| {
            let drum: u128 = balls.balls().iter().map(|&(_, n)| u128::from(n)).sum();
            let weighted: u128 =
                balls.balls().iter().map(|&(m, n)| u128::from(m).saturating_mul(u128::from(n))).sum();
            let (payout, per) = power_play_payout(balls);
            PowerPlayMath {
                balls,
                expected_multiplier: Fraction::new(weighted, drum),
                return_without_grand_prize: Fraction::new(
                    payout,
                    total.saturating_mul(per).saturating_mul(power_price),
                ),
                // J/total + payout/(total·per) = price  ⇒  J = (price·total·per − payout) / per
                break_even_grand_prize_cents: Fraction::new(
                    power_price.saturating_mul(total).saturating_mul(per).saturating_sub(payout),
                    per,
                ),
            }
        })
        .collect();
    PowerballMath {
        outcomes: total,
        any_prize_one_in: 1.0 / any_prize.to_f64(),
        any_prize,
        return_without_grand_prize: Fraction::new(fixed, total.saturating_mul(price)),
        // J/total + fixed/total = price  ⇒  J = price·total − fixed
        break_even_grand_prize_cents: Fraction::new(price.saturating_mul(total).saturating_sub(fixed), 1),
        tiers,
        power_play,
        sources: figure_sources(),
    }
}
