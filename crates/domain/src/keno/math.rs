//! The exact math of Castle Keno (architecture §5): for every option and spot count, the return to
//! player and the hit frequency as exact fractions, from the hypergeometric distribution.
//!
//! With `n` spots marked, the draws that hit exactly `k` of them number C(n,k)·C(80−n,20−k) out
//! of C(80,20) = 3,535,316,142,212,174,320 equally likely draws. For TOP OR BOTTOM, the draws with
//! `t` numbers on the top half number C(40,t)·C(40,20−t). Everything fits in `u128`.

use serde::Serialize;

use super::{BetOption, NUMBERS, TICKET_PRICE_CENTS, pay_cents};
pub use crate::math::{Fraction, choose};

/// Numbers drawn, as the counting functions take it.
const DRAWN: u32 = 20;

/// Every possible draw: C(80, 20).
pub fn all_draws() -> u128 {
    choose(u32::from(NUMBERS), DRAWN)
}

/// Draws hitting exactly `hits` of `spots` marked numbers.
pub fn draws_with_hits(spots: u32, hits: u32) -> u128 {
    if hits > spots {
        return 0;
    }
    choose(spots, hits)
        .saturating_mul(choose(u32::from(NUMBERS).saturating_sub(spots), (DRAWN).saturating_sub(hits)))
}

/// Draws with `top` numbers on the top half (1-40).
pub fn draws_with_top(top: u32) -> u128 {
    choose(40, top).saturating_mul(choose(40, (DRAWN).saturating_sub(top)))
}

/// One line of the PAR sheet.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ParRow {
    pub option: BetOption,
    pub spots: usize,
    /// Expected payout per unit staked, exactly.
    pub return_to_player: Fraction,
    pub return_to_player_decimal: f64,
    /// The chance that a ticket pays anything.
    pub hit_frequency: Fraction,
    pub hit_frequency_decimal: f64,
    /// 1 − return to player.
    pub house_edge_decimal: f64,
}

/// (outcome count, draws with that outcome) for an option: hits for the spot options, the smaller
/// half's hits for TOP OR BOTTOM.
fn distribution(option: BetOption, spots: usize) -> Vec<(usize, u128)> {
    let n = u32::try_from(spots).unwrap_or(u32::MAX);
    match option {
        BetOption::TopOrBottom => (0..=DRAWN)
            .map(|top| {
                let smaller = top.min((DRAWN).saturating_sub(top));
                (smaller as usize, draws_with_top(top))
            })
            .collect(),
        _ => (0..=n.min(DRAWN)).map(|k| (k as usize, draws_with_hits(n, k))).collect(),
    }
}

/// The exact return to player and hit frequency of `option` played with `spots` spots.
pub fn par_row(option: BetOption, spots: usize) -> ParRow {
    let total = all_draws();
    let mut paid_cents: u128 = 0;
    let mut paying_draws: u128 = 0;
    for (hits, draws) in distribution(option, spots) {
        let pay = u128::try_from(pay_cents(option, spots, hits)).unwrap_or(0);
        paid_cents = paid_cents.saturating_add(pay.saturating_mul(draws));
        if pay > 0 {
            paying_draws = paying_draws.saturating_add(draws);
        }
    }
    let stake = u128::try_from(TICKET_PRICE_CENTS).unwrap_or(100);
    let rtp = Fraction::new(paid_cents, total.saturating_mul(stake));
    let hit = Fraction::new(paying_draws, total);
    ParRow {
        option,
        spots,
        return_to_player: rtp,
        return_to_player_decimal: rtp.to_f64(),
        hit_frequency: hit,
        hit_frequency_decimal: hit.to_f64(),
        house_edge_decimal: 1.0 - rtp.to_f64(),
    }
}

/// The whole PAR sheet: every option with every spot count it allows.
pub fn par_sheet() -> Vec<ParRow> {
    BetOption::ALL
        .iter()
        .flat_map(|&option| option.spot_range().map(move |spots| par_row(option, spots)))
        .collect()
}
