//! Blackjack as K.A.R. 111-301-3, -5 and -6 define it: hand values, payouts, and the side wagers
//! (21+3 / TriLux, TriLux Super 3, Royal Match 21, the Blazing 7's progressive).
//!
//! Source: `kansas-lottery-regulations-2021.txt`. Wagers are in cents and whole dollars (chips),
//! so every payout below (3 to 2, 2.5 to 1) is a whole number of cents.
//!
//! - [`side_wagers`]: what each side wager's cards make and what it pays;
//! - [`round`]: one round as a state machine: deal, insurance, decisions, the dealer, settlement;
//! - [`decisions`]: which decisions a round takes now, and why a double or a split is refused;
//! - [`side_math`]: each side wager's exact return from the composition of the shoe;
//! - [`strategy`]: basic strategy for these rules and the simulated house edge.

pub mod action;
pub mod decisions;
pub mod main_game_edges;
pub mod round;
pub mod side_math;
pub mod side_wagers;
pub mod split_protection;
pub mod strategy;

use serde::{Deserialize, Serialize};

use crate::cards::{Card, Rank};

/// Payout odds "a to b": a win returns the stake plus `a/b` of it. (The Blazing 7's table's
/// "for 1" odds include the stake; see [`side_wagers::SevensPrize`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Odds {
    pub to: u32,
    pub per: u32,
}

impl Odds {
    pub const EVEN: Odds = Odds { to: 1, per: 1 };
    /// K.A.R. 111-301-5(e): "a blackjack which shall be paid at odds of three to two".
    pub const BLACKJACK: Odds = Odds { to: 3, per: 2 };
    /// K.A.R. 111-301-6(g)(2): insurance "at odds of 2 to 1".
    pub const INSURANCE: Odds = Odds { to: 2, per: 1 };

    pub const fn new(to: u32, per: u32) -> Odds {
        Odds { to, per }
    }

    /// What a winning `stake` wins (the stake itself not included), rounded down to the cent; exact
    /// whenever `stake` is a multiple of `per` cents, as whole-dollar wagers are.
    pub fn winnings(self, stake_cents: i64) -> i64 {
        stake_cents.saturating_mul(i64::from(self.to)).checked_div(i64::from(self.per.max(1))).unwrap_or(0)
    }
}

/// A hand's point count (K.A.R. 111-301-3(g), (j)): the best total not over 21 if there is one,
/// counting one ace as 11 where that does not bust; `soft` when an ace is so counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Total {
    pub points: u8,
    pub soft: bool,
}

impl Total {
    pub fn of(cards: &[Card]) -> Total {
        let hard: u8 = cards.iter().fold(0u8, |sum, c| sum.saturating_add(c.rank.points()));
        let has_ace = cards.iter().any(|c| c.rank == Rank::ACE);
        if has_ace && hard <= 11 {
            Total { points: hard.saturating_add(10), soft: true }
        } else {
            Total { points: hard, soft: false }
        }
    }

    pub fn is_bust(self) -> bool {
        self.points > 21
    }
}

/// K.A.R. 111-301-3(a): "an ace and any card having a point value of 10 dealt as the initial two
/// cards", but not to a hand formed by splitting pairs.
pub fn is_blackjack(cards: &[Card], from_split: bool) -> bool {
    !from_split && cards.len() == 2 && Total::of(cards).points == 21
}

/// K.A.R. 111-301-6(j): the dealer draws until a hard 17-21 or a soft 18-21, so draws to soft 17.
pub fn dealer_must_draw(cards: &[Card]) -> bool {
    let total = Total::of(cards);
    total.points < 17 || (total.points == 17 && total.soft)
}

/// K.A.R. 111-301-6(h): "If the initial two cards dealt to a player are identical in value":
/// equal point values, so any two ten-value cards may be split.
pub fn is_pair(cards: &[Card]) -> bool {
    matches!(cards, [a, b] if a.rank.points() == b.rank.points())
}

/// K.A.R. 111-301-6(h)(1): "a maximum of three times to make a total of four hands".
pub const MAX_HANDS_AFTER_SPLITS: usize = 4;

/// Why a hand of `cards` may not be doubled (111-301-6(g)(3): its first two cards only; split
/// aces take one card and no more), if it may not.
pub fn double_refusal(cards: &[Card], split_aces: bool) -> Option<&'static str> {
    (cards.len() != 2 || split_aces).then_some("double down only on a hand's first two cards")
}

/// Why a hand of `cards`, one of its spot's `hands`, may not be split (111-301-6(h)), if it may
/// not.
pub fn split_refusal(cards: &[Card], split_aces: bool, hands: usize) -> Option<&'static str> {
    if !is_pair(cards) {
        Some("only two cards of identical value may be split")
    } else if hands >= MAX_HANDS_AFTER_SPLITS {
        Some("a spot may split at most three times, into four hands")
    } else if split_aces {
        Some("split aces take one card each and no more")
    } else {
        None
    }
}

/// The spots of a real blackjack layout, and the house's default maximum of spots in a round.
pub const SPOTS_AT_A_TABLE: usize = 7;

/// The most points one hand can hold, aces counted as one: a player draws only below 21
/// (111-301-6(i)), so at most a hard 20 plus a ten.
pub const MOST_POINTS_IN_A_HAND: usize = 30;

/// The most points the dealer's hand can hold: the dealer draws only to a hard 16 or less or a
/// soft 17 (111-301-6(j)), so at most 16 plus a ten.
pub const MOST_POINTS_FOR_THE_DEALER: usize = 26;

/// The most spots a shoe of `decks` always serves, up to [`SPOTS_AT_A_TABLE`]: with every spot
/// split into four hands and every hand drawn to its last card, the points on the table stay
/// below the shoe's whole count, so the cards on the table are never the whole shoe and, with
/// the reserve of discards ([`crate::cards::Shoe`]), a round never runs out of cards.
/// Six decks (2,040 points): seven spots (at most 866 points on the table). Two decks (680
/// points): five spots (626 points; six spots could reach 746).
pub fn max_spots_served(decks: crate::cards::Decks) -> usize {
    let most_on_table = |spots: usize| {
        spots
            .saturating_mul(MAX_HANDS_AFTER_SPLITS)
            .saturating_mul(MOST_POINTS_IN_A_HAND)
            .saturating_add(MOST_POINTS_FOR_THE_DEALER)
    };
    (1..=SPOTS_AT_A_TABLE).rev().find(|&spots| most_on_table(spots) < decks.total_points()).unwrap_or(1)
}
