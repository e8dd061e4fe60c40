//! I Luv Suits' pay tables counted exactly: every seven-card hand from one deck (C(52, 7) =
//! 133,784,560 of them) by its best flush's length and its longest straight flush, counted suit by
//! suit (a hand is four rank sets, one per suit, of sizes adding up to seven; the 2^13 rank sets
//! of a suit are classified once), so the count takes milliseconds and needs no sampling.

use std::collections::HashMap;

use super::{
    ProgressivePrize, StraightFlush, flush_rush_odds, longest_run, progressive_prize, super_flush_rush_odds,
};
use crate::math::{Fraction, choose};

/// How many seven-card hands have each (best flush length, longest straight flush).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandCounts {
    pub total: u128,
    pub by_class: HashMap<(u8, StraightFlush), u128>,
}

/// Counts every seven-card hand of one 52-card deck by (flush length, straight flush).
pub fn seven_card_counts() -> HandCounts {
    // For each size k, how many rank sets of one suit have each longest run.
    let mut per_suit: Vec<HashMap<StraightFlush, u128>> = vec![HashMap::new(); 8];
    for set in 0u16..(1 << 13) {
        let k = set.count_ones() as usize;
        if let Some(by_run) = per_suit.get_mut(k) {
            let n = by_run.entry(longest_run(set)).or_insert(0);
            *n = n.saturating_add(1);
        }
    }
    let mut by_class: HashMap<(u8, StraightFlush), u128> = HashMap::new();
    let mut total = 0u128;
    // Every way to split seven cards among the four suits.
    let splits =
        (0..=7usize).flat_map(|a| (0..=7usize).flat_map(move |b| (0..=7usize).map(move |c| [a, b, c])));
    for [a, b, c] in splits {
        let Some(d) = 7usize.checked_sub(a).and_then(|r| r.checked_sub(b)).and_then(|r| r.checked_sub(c))
        else {
            continue;
        };
        let sizes = [a, b, c, d];
        let longest = sizes.iter().copied().max().unwrap_or(0);
        // Combine the four suits' run classes: the hand's is the best of them.
        let mut combined: HashMap<StraightFlush, u128> = HashMap::new();
        combined.insert(StraightFlush { len: 0, with_ace: false }, 1);
        for &k in &sizes {
            let mut next: HashMap<StraightFlush, u128> = HashMap::new();
            for (&so_far, &ways) in &combined {
                for (&run, &n) in per_suit.get(k).into_iter().flatten() {
                    let slot = next.entry(so_far.max(run)).or_insert(0);
                    *slot = slot.saturating_add(ways.saturating_mul(n));
                }
            }
            combined = next;
        }
        for (run, ways) in combined {
            let flush = u8::try_from(longest).unwrap_or(7);
            let slot = by_class.entry((flush, run)).or_insert(0);
            *slot = slot.saturating_add(ways);
            total = total.saturating_add(ways);
        }
    }
    HandCounts { total, by_class }
}

impl HandCounts {
    /// The hands whose class satisfies `pick`.
    pub fn count(&self, pick: impl Fn(u8, StraightFlush) -> bool) -> u128 {
        self.by_class.iter().filter(|((f, sf), _)| pick(*f, *sf)).map(|(_, n)| *n).sum()
    }

    /// Flush Rush's return per unit wagered, the stake included ("n to 1" returns n + 1).
    pub fn flush_rush_return(&self) -> Fraction {
        let won: u128 = self
            .by_class
            .iter()
            .filter_map(|((f, _), n)| {
                flush_rush_odds(usize::from(*f)).map(|odds| n.saturating_mul(u128::from(odds) + 1))
            })
            .sum();
        Fraction::new(won, self.total)
    }

    /// Super Flush Rush's return per unit wagered, the stake included.
    pub fn super_flush_rush_return(&self) -> Fraction {
        let won: u128 = self
            .by_class
            .iter()
            .filter_map(|((_, sf), n)| {
                super_flush_rush_odds(*sf).map(|odds| n.saturating_mul(u128::from(odds) + 1))
            })
            .sum();
        Fraction::new(won, self.total)
    }

    /// The progressive's return per unit wagered with `pot_cents` on the meter and a wager of
    /// `wager_cents` (a lone winner takes the whole share).
    pub fn progressive_return_at(&self, pot_cents: i64, wager_cents: i64) -> Fraction {
        let (pot, wager) =
            (u128::try_from(pot_cents).unwrap_or(0), u128::try_from(wager_cents).unwrap_or(1).max(1));
        // Over total·100·wager.
        let won: u128 = self
            .by_class
            .iter()
            .filter_map(|((_, sf), n)| {
                progressive_prize(*sf).map(|prize| match prize {
                    ProgressivePrize::ForOne(x) => {
                        n.saturating_mul(u128::from(x)).saturating_mul(100).saturating_mul(wager)
                    }
                    ProgressivePrize::PotPercent(pct) => {
                        n.saturating_mul(pot).saturating_mul(u128::from(pct))
                    }
                })
            })
            .sum();
        Fraction::new(won, self.total.saturating_mul(100).saturating_mul(wager))
    }

    /// The progressive's return in the long run: the fixed prizes, plus the share of every wager
    /// added to the pot, plus, when the house funds the pot again after each top prize,
    /// `reseed_cents` times the chance of a top prize (everything put into the pot leaves it as
    /// prizes). 76(i)(5) says the pot is funded "initially"; unlike the Blazing 7's (111-301-5(j)(7))
    /// it does not say it is funded again: both readings are published.
    pub fn progressive_long_run(
        &self,
        wager_cents: i64,
        contribution_percent: i64,
        reseed_cents: i64,
    ) -> Fraction {
        let at_empty = self.progressive_return_at(0, wager_cents);
        let wager = u128::try_from(wager_cents).unwrap_or(1).max(1);
        let top = self.count(|_, sf| progressive_prize(sf) == Some(ProgressivePrize::PotPercent(100)));
        let denominator = self.total.saturating_mul(100).saturating_mul(wager);
        let fixed =
            at_empty.numerator.saturating_mul(denominator.checked_div(at_empty.denominator).unwrap_or(0));
        let contribution = u128::try_from(contribution_percent)
            .unwrap_or(0)
            .saturating_mul(self.total)
            .saturating_mul(wager);
        let reseeding = top.saturating_mul(u128::try_from(reseed_cents).unwrap_or(0)).saturating_mul(100);
        Fraction::new(fixed.saturating_add(contribution).saturating_add(reseeding), denominator)
    }
}

/// C(52, 7), for the counts to add up to.
pub fn all_hands() -> u128 {
    choose(52, 7)
}
