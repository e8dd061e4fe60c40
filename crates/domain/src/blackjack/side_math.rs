//! The side wagers' exact math (architecture §5): for a shoe of a given composition, how many deals make
//! each outcome and what each wager returns, counted over card types with their multiplicities,
//! as exact fractions.
//!
//! The three-card wagers and Royal Match use unordered cards (which card is the dealer's does not
//! matter to them); the Blazing 7's counts ordered deals, since only the player's two cards can
//! make "one 7" or "two 7's".

use serde::Serialize;

use super::Odds;
use super::side_wagers::{RoyalMatch, SevensPrize, ThreeCardHand};
use crate::cards::{Card, Decks};
use crate::math::{Fraction, choose};

/// How many cards of each of the 52 kinds are in the shoe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composition([u32; 52]);

impl Composition {
    /// A full shoe.
    pub fn full(decks: Decks) -> Composition {
        Composition([u32::try_from(decks.count()).unwrap_or(0); 52])
    }

    /// A full shoe less `dealt`.
    pub fn without(decks: Decks, dealt: &[Card]) -> Composition {
        let mut shoe = Composition::full(decks);
        for card in dealt {
            if let Some(n) = shoe.0.get_mut(card.index()) {
                *n = n.saturating_sub(1);
            }
        }
        shoe
    }

    pub fn cards(&self) -> u32 {
        self.0.iter().sum()
    }

    fn kinds(&self) -> impl Iterator<Item = (usize, Card, u32)> + '_ {
        Card::deck().map(|card| (card.index(), card, self.0.get(card.index()).copied().unwrap_or(0)))
    }
}

/// One outcome of a side wager: how many deals make it, and what it pays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OutcomeLine {
    pub outcome: String,
    pub ways: u128,
    pub probability: Fraction,
    /// As printed: "9 to 1", "500 for 1", "100% of the pot".
    pub pays: String,
}

/// A side wager's PAR sheet for one shoe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideWagerMath {
    pub wager: &'static str,
    pub total_ways: u128,
    pub outcomes: Vec<OutcomeLine>,
    /// The expected return per unit wagered, the stake included, exactly (for the Blazing 7's,
    /// with the pot at its $10,000 seed and a $1 wager).
    pub return_to_player: Fraction,
    pub return_to_player_decimal: f64,
}

fn line(outcome: &str, ways: u128, total: u128, pays: String) -> OutcomeLine {
    OutcomeLine { outcome: outcome.to_owned(), ways, probability: Fraction::new(ways, total), pays }
}

fn to_one(odds: Odds) -> String {
    if odds.per == 1 { format!("{} to 1", odds.to) } else { format!("{} to {}", odds.to, odds.per) }
}

/// Return per unit (stake included) of fixed-odds outcomes: Σ ways·(to+per)/per over total.
fn fixed_return(lines: &[(u128, Odds)], total: u128) -> Fraction {
    // Every `per` here divides 2.
    let numerator: u128 = lines
        .iter()
        .map(|(ways, odds)| {
            ways.saturating_mul(u128::from(odds.to.saturating_add(odds.per)))
                .saturating_mul(2)
                .checked_div(u128::from(odds.per.max(1)))
                .unwrap_or(0)
        })
        .sum();
    Fraction::new(numerator, total.saturating_mul(2))
}

/// Unordered three-card deals from `shoe`, by what they make.
pub fn three_card_counts(shoe: &Composition) -> Vec<(ThreeCardHand, u128)> {
    let kinds: Vec<(usize, Card, u32)> = shoe.kinds().collect();
    let mut counts: Vec<(ThreeCardHand, u128)> = Vec::new();
    for (i, &(_, a, na)) in kinds.iter().enumerate() {
        for (j, &(_, b, nb)) in kinds.iter().enumerate().skip(i) {
            for &(_, c, nc) in kinds.iter().skip(j) {
                // Cards of one kind are alike: choose how many of each kind the deal holds.
                let ways = if a == b && b == c {
                    choose(na, 3)
                } else if a == b {
                    choose(na, 2).saturating_mul(u128::from(nc))
                } else if b == c {
                    u128::from(na).saturating_mul(choose(nb, 2))
                } else {
                    u128::from(na).saturating_mul(u128::from(nb)).saturating_mul(u128::from(nc))
                };
                if ways == 0 {
                    continue;
                }
                let hand = ThreeCardHand::of([a, b, c]);
                match counts.iter_mut().find(|(h, _)| *h == hand) {
                    Some((_, n)) => *n = n.saturating_add(ways),
                    None => counts.push((hand, ways)),
                }
            }
        }
    }
    counts
}

fn count_of(counts: &[(ThreeCardHand, u128)], hand: ThreeCardHand) -> u128 {
    counts.iter().find(|(h, _)| *h == hand).map_or(0, |(_, n)| *n)
}

/// 21+3 / TriLux: 9 to 1 on any flush, straight, three-of-a-kind or straight flush.
pub fn trilux(shoe: &Composition) -> SideWagerMath {
    let counts = three_card_counts(shoe);
    let total = choose(shoe.cards(), 3);
    let nine = Odds::new(9, 1);
    let named = [
        ("suited three of a kind", ThreeCardHand::SuitedTrips),
        ("straight flush", ThreeCardHand::StraightFlush),
        ("three of a kind", ThreeCardHand::Trips),
        ("straight", ThreeCardHand::Straight),
        ("flush", ThreeCardHand::Flush),
    ];
    let outcomes: Vec<OutcomeLine> =
        named.iter().map(|&(name, hand)| line(name, count_of(&counts, hand), total, to_one(nine))).collect();
    let winning: Vec<(u128, Odds)> = outcomes.iter().map(|o| (o.ways, nine)).collect();
    let rtp = fixed_return(&winning, total);
    SideWagerMath {
        wager: "trilux",
        total_ways: total,
        outcomes,
        return_to_player: rtp,
        return_to_player_decimal: rtp.to_f64(),
    }
}

/// TriLux Super 3: 270 / 180 / 90 to 1.
pub fn trilux_super_3(shoe: &Composition) -> SideWagerMath {
    let counts = three_card_counts(shoe);
    let total = choose(shoe.cards(), 3);
    let paying = [
        ("suited three of a kind", ThreeCardHand::SuitedTrips, Odds::new(270, 1)),
        ("straight flush", ThreeCardHand::StraightFlush, Odds::new(180, 1)),
        ("three of a kind, not all one suit", ThreeCardHand::Trips, Odds::new(90, 1)),
    ];
    let outcomes: Vec<OutcomeLine> = paying
        .iter()
        .map(|&(name, hand, odds)| line(name, count_of(&counts, hand), total, to_one(odds)))
        .collect();
    let winning: Vec<(u128, Odds)> =
        paying.iter().map(|&(_, hand, odds)| (count_of(&counts, hand), odds)).collect();
    let rtp = fixed_return(&winning, total);
    SideWagerMath {
        wager: "trilux_super_3",
        total_ways: total,
        outcomes,
        return_to_player: rtp,
        return_to_player_decimal: rtp.to_f64(),
    }
}

/// Royal Match 21 (six decks): 25 to 1 suited K-Q, 5 to 1 suited blackjack, 2.5 to 1 suited.
pub fn royal_match(shoe: &Composition) -> SideWagerMath {
    let kinds: Vec<(usize, Card, u32)> = shoe.kinds().collect();
    let mut ways = [0u128; 3];
    for (i, &(_, a, na)) in kinds.iter().enumerate() {
        for &(_, b, nb) in kinds.iter().skip(i) {
            let n = if a == b { choose(na, 2) } else { u128::from(na).saturating_mul(u128::from(nb)) };
            let slot = match RoyalMatch::of([a, b]) {
                RoyalMatch::SuitedKingQueen => 0,
                RoyalMatch::SuitedBlackjack => 1,
                RoyalMatch::Suited => 2,
                RoyalMatch::Nothing => continue,
            };
            if let Some(w) = ways.get_mut(slot) {
                *w = w.saturating_add(n);
            }
        }
    }
    let total = choose(shoe.cards(), 2);
    let paying = [
        ("suited king and queen", RoyalMatch::SuitedKingQueen),
        ("suited blackjack", RoyalMatch::SuitedBlackjack),
        ("suited", RoyalMatch::Suited),
    ];
    let mut outcomes = Vec::new();
    let mut winning = Vec::new();
    for (&(name, hand), &n) in paying.iter().zip(ways.iter()) {
        let odds = hand.odds().unwrap_or(Odds::EVEN);
        outcomes.push(line(name, n, total, to_one(odds)));
        winning.push((n, odds));
    }
    let rtp = fixed_return(&winning, total);
    SideWagerMath {
        wager: "royal_match_21",
        total_ways: total,
        outcomes,
        return_to_player: rtp,
        return_to_player_decimal: rtp.to_f64(),
    }
}

/// Ordered deals (player's first card, second card, dealer's up card), by Blazing 7's prize.
pub fn sevens_counts(shoe: &Composition) -> Vec<(SevensPrize, u128)> {
    let kinds: Vec<(usize, Card, u32)> = shoe.kinds().collect();
    let mut counts: Vec<(SevensPrize, u128)> = Vec::new();
    for &(_, a, na) in &kinds {
        for &(_, b, nb) in &kinds {
            let nb = nb.saturating_sub(u32::from(a == b));
            for &(_, c, nc) in &kinds {
                let nc = nc.saturating_sub(u32::from(c == a)).saturating_sub(u32::from(c == b));
                let ways = u128::from(na).saturating_mul(u128::from(nb)).saturating_mul(u128::from(nc));
                if ways == 0 {
                    continue;
                }
                if let Some(prize) = SevensPrize::of([a, b], c) {
                    match counts.iter_mut().find(|(p, _)| *p == prize) {
                        Some((_, n)) => *n = n.saturating_add(ways),
                        None => counts.push((prize, ways)),
                    }
                }
            }
        }
    }
    counts
}

/// The Blazing 7's return per unit wagered in the long run, exactly (issue 16): the fixed
/// prizes, plus the share of every wager added to the pot (`contribution_percent`, 24% by
/// K.A.R. 111-301-5(j)(6)), plus the house's re-seeding of `seed_cents` after every top prize
/// ((j)(7)). Everything put into the pot leaves it as prizes over its life, so in the long run
/// the pot prizes pay, per wager, exactly what flows in: the contribution, and the seed times the
/// chance of a top prize. What the meter reads today does not enter; the return at a given
/// meter is [`blazing_sevens`]. (Rounding a split pot up, (j)(5), adds a fraction of a cent now
/// and then, left out.)
pub fn blazing_sevens_long_run(
    shoe: &Composition,
    seed_cents: i64,
    wager_cents: i64,
    contribution_percent: i64,
) -> Fraction {
    let counts = sevens_counts(shoe);
    let n = u128::from(shoe.cards());
    let total = n.saturating_mul(n.saturating_sub(1)).saturating_mul(n.saturating_sub(2));
    let (seed, wager) =
        (u128::try_from(seed_cents).unwrap_or(0), u128::try_from(wager_cents).unwrap_or(1).max(1));
    // Over a common denominator of total·100·wager, as in `blazing_sevens`.
    let mut numerator = 0u128;
    for (prize, ways) in &counts {
        if let Some(x) = prize.for_one() {
            numerator = numerator
                .saturating_add(ways.saturating_mul(u128::from(x)).saturating_mul(100).saturating_mul(wager));
        }
        if *prize == SevensPrize::ThreeDiamondSevens {
            numerator = numerator.saturating_add(ways.saturating_mul(seed).saturating_mul(100));
        }
    }
    let contribution = u128::try_from(contribution_percent).unwrap_or(0);
    numerator = numerator.saturating_add(contribution.saturating_mul(total).saturating_mul(wager));
    Fraction::new(numerator, total.saturating_mul(100).saturating_mul(wager))
}

/// The Blazing 7's with the pot at `pot_cents` and a wager of `wager_cents`.
pub fn blazing_sevens(shoe: &Composition, pot_cents: i64, wager_cents: i64) -> SideWagerMath {
    let counts = sevens_counts(shoe);
    let n = u128::from(shoe.cards());
    let total = n.saturating_mul(n.saturating_sub(1)).saturating_mul(n.saturating_sub(2));
    let prizes = [
        ("three 7's of diamonds", SevensPrize::ThreeDiamondSevens),
        ("three 7's of one suit, not diamonds", SevensPrize::ThreeSuitedSevens),
        ("three 7's of one color, different suits", SevensPrize::ThreeSameColorSevens),
        ("three 7's of mixed colors", SevensPrize::ThreeMixedSevens),
        ("two 7's in the player's hand", SevensPrize::TwoSevens),
        ("one 7 in the player's hand", SevensPrize::OneSeven),
    ];
    let (pot, wager) =
        (u128::try_from(pot_cents).unwrap_or(0), u128::try_from(wager_cents).unwrap_or(1).max(1));
    // Return per unit wagered, over a common denominator of total·100·wager.
    let mut numerator = 0u128;
    let mut outcomes = Vec::new();
    for (name, prize) in prizes {
        let ways = counts.iter().find(|(p, _)| *p == prize).map_or(0, |(_, n)| *n);
        let (pays, per_deal) = match (prize.pot_percent(), prize.for_one()) {
            (Some(pct), _) => (format!("{pct}% of the pot"), pot.saturating_mul(u128::from(pct))),
            (_, Some(x)) => (format!("{x} for 1"), u128::from(x).saturating_mul(100).saturating_mul(wager)),
            (None, None) => (String::new(), 0),
        };
        numerator = numerator.saturating_add(ways.saturating_mul(per_deal));
        outcomes.push(line(name, ways, total, pays));
    }
    let rtp = Fraction::new(numerator, total.saturating_mul(100).saturating_mul(wager));
    SideWagerMath {
        wager: "blazing_7s",
        total_ways: total,
        outcomes,
        return_to_player: rtp,
        return_to_player_decimal: rtp.to_f64(),
    }
}
