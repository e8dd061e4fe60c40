//! The side wagers of K.A.R. 111-301-5(j)-(m), resolved from the player's first two cards and the
//! dealer's up card before play continues (111-301-6(c)).

use serde::{Deserialize, Serialize};

use super::Odds;
use crate::cards::{Card, Rank, Suit};

/// What three cards make, for the three-card wagers (K.A.R. 111-301-3(f), (k), (l)).
///
/// The definitions say "three cards in consecutive rank order" and are silent on the ace; here an
/// ace is high or low (A-2-3 and Q-K-A are straights) but a straight does not wrap (K-A-2 is
/// not), as I Luv Suits' rule 111-301-74(a) lets an ace rank low in a straight flush.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreeCardHand {
    /// Three of a kind, all one suit (possible with more than one deck).
    SuitedTrips,
    StraightFlush,
    /// Three of a kind, not all one suit.
    Trips,
    Straight,
    Flush,
    Nothing,
}

impl ThreeCardHand {
    pub fn of(cards: [Card; 3]) -> ThreeCardHand {
        let [a, b, c] = cards;
        let flush = a.suit == b.suit && b.suit == c.suit;
        let trips = a.rank == b.rank && b.rank == c.rank;
        let mut ranks = [a.rank.number(), b.rank.number(), c.rank.number()];
        ranks.sort_unstable();
        let straight = match ranks {
            [1, 12, 13] => true,
            [x, y, z] => y == x.saturating_add(1) && z == y.saturating_add(1),
        };
        match (trips, straight, flush) {
            (true, _, true) => ThreeCardHand::SuitedTrips,
            (true, _, false) => ThreeCardHand::Trips,
            (false, true, true) => ThreeCardHand::StraightFlush,
            (false, true, false) => ThreeCardHand::Straight,
            (false, false, true) => ThreeCardHand::Flush,
            (false, false, false) => ThreeCardHand::Nothing,
        }
    }
}

/// The three cards the three-card wagers use: the player's original two and the dealer's up card.
fn three(player: [Card; 2], up: Card) -> [Card; 3] {
    let [p1, p2] = player;
    [p1, p2, up]
}

/// "21 + 3" / TriLux, K.A.R. 111-301-5(k)(1)-(2): a flush, straight, three-of-a-kind or straight
/// flush "will be paid at the rate of 9 to 1".
pub fn trilux(player: [Card; 2], up: Card) -> Option<Odds> {
    match ThreeCardHand::of(three(player, up)) {
        ThreeCardHand::Nothing => None,
        _ => Some(Odds::new(9, 1)),
    }
}

/// TriLux Super 3, K.A.R. 111-301-5(l)(2)-(3): suited three-of-a-kind 270 to 1, straight flush
/// 180 to 1, three-of-a-kind not all one suit 90 to 1.
pub fn trilux_super_3(player: [Card; 2], up: Card) -> Option<Odds> {
    match ThreeCardHand::of(three(player, up)) {
        ThreeCardHand::SuitedTrips => Some(Odds::new(270, 1)),
        ThreeCardHand::StraightFlush => Some(Odds::new(180, 1)),
        ThreeCardHand::Trips => Some(Odds::new(90, 1)),
        _ => None,
    }
}

/// What the player's two cards make for Royal Match 21.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoyalMatch {
    /// The same suit, a king and a queen: 25 to 1.
    SuitedKingQueen,
    /// The same suit, a blackjack: 5 to 1.
    SuitedBlackjack,
    /// The same suit otherwise: 2.5 to 1.
    Suited,
    Nothing,
}

impl RoyalMatch {
    /// K.A.R. 111-301-5(m)(3)-(4).
    pub fn of(player: [Card; 2]) -> RoyalMatch {
        let [a, b] = player;
        if a.suit != b.suit {
            return RoyalMatch::Nothing;
        }
        let ranks = (a.rank.min(b.rank), a.rank.max(b.rank));
        if ranks == (Rank::QUEEN, Rank::KING) {
            RoyalMatch::SuitedKingQueen
        } else if super::is_blackjack(&player, false) {
            RoyalMatch::SuitedBlackjack
        } else {
            RoyalMatch::Suited
        }
    }

    pub fn odds(self) -> Option<Odds> {
        match self {
            RoyalMatch::SuitedKingQueen => Some(Odds::new(25, 1)),
            RoyalMatch::SuitedBlackjack => Some(Odds::new(5, 1)),
            RoyalMatch::Suited => Some(Odds::new(5, 2)),
            RoyalMatch::Nothing => None,
        }
    }
}

/// Royal Match 21: only at a six-deck table (K.A.R. 111-301-5(m)).
pub fn royal_match(player: [Card; 2]) -> Option<Odds> {
    RoyalMatch::of(player).odds()
}

/// The Blazing 7's progressive prizes, K.A.R. 111-301-5(j)(5), highest first; only the highest
/// a hand qualifies for is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SevensPrize {
    /// "Three 7's of diamonds": 100% of the pot.
    ThreeDiamondSevens,
    /// "Three 7's all in the same suit other than diamonds": 10% of the pot.
    ThreeSuitedSevens,
    /// "Three 7's of the same color but in different suits": 500 for 1.
    ThreeSameColorSevens,
    /// "Three 7's in mixed suits and colors": 200 for 1.
    ThreeMixedSevens,
    /// "Two 7's in the player's hand": 25 for 1.
    TwoSevens,
    /// "One 7 in the player's hand": 2 for 1.
    OneSeven,
}

impl SevensPrize {
    /// K.A.R. 111-301-5(j)(4): the player's first two cards and the dealer's up card.
    pub fn of(player: [Card; 2], up: Card) -> Option<SevensPrize> {
        let sevens = player.iter().filter(|c| c.rank == Rank::SEVEN).count();
        match sevens {
            0 => None,
            1 => Some(SevensPrize::OneSeven),
            _ if up.rank != Rank::SEVEN => Some(SevensPrize::TwoSevens),
            _ => {
                let [a, b] = player;
                let suits = [a.suit, b.suit, up.suit];
                if suits.iter().all(|&s| s == Suit::Diamonds) {
                    Some(SevensPrize::ThreeDiamondSevens)
                } else if suits.iter().all(|&s| s == a.suit) {
                    Some(SevensPrize::ThreeSuitedSevens)
                } else if suits.iter().all(|s| s.is_red() == a.suit.is_red()) {
                    Some(SevensPrize::ThreeSameColorSevens)
                } else {
                    Some(SevensPrize::ThreeMixedSevens)
                }
            }
        }
    }

    /// The share of the pot this prize takes, in percent, for the pot prizes.
    pub fn pot_percent(self) -> Option<u32> {
        match self {
            SevensPrize::ThreeDiamondSevens => Some(100),
            SevensPrize::ThreeSuitedSevens => Some(10),
            _ => None,
        }
    }

    /// "Odds of n for 1": what the wager returns in all, the wager included, for the fixed prizes.
    pub fn for_one(self) -> Option<u32> {
        match self {
            SevensPrize::ThreeSameColorSevens => Some(500),
            SevensPrize::ThreeMixedSevens => Some(200),
            SevensPrize::TwoSevens => Some(25),
            SevensPrize::OneSeven => Some(2),
            _ => None,
        }
    }
}

/// K.A.R. 111-301-5(j)(6): "initially funded ... in the amount of $10,000".
pub const BLAZING_SEVENS_SEED_CENTS: i64 = 1_000_000;
/// K.A.R. 111-301-5(j)(6): "Twenty-four percent (24%) of each progressive wager ... shall be added
/// to the progressive prize pot".
pub const BLAZING_SEVENS_POT_PERCENT: i64 = 24;

/// The pot's part of a progressive wager, in cents, rounded down (the rest is the house's).
pub fn pot_contribution(wager_cents: i64) -> i64 {
    wager_cents.saturating_mul(BLAZING_SEVENS_POT_PERCENT).checked_div(100).unwrap_or(0)
}

/// K.A.R. 111-301-5(j)(5): a pot prize won by `winners` hands in one round is "evenly divided
/// between all qualifying hands and if necessary rounded up ... so that all qualifying hands are
/// paid equal amounts". Returns each hand's share in cents.
pub fn pot_share(pot_cents: i64, percent: u32, winners: u32) -> i64 {
    let prize = pot_cents.saturating_mul(i64::from(percent));
    let per_hand = i64::from(winners.max(1)).saturating_mul(100);
    // Ceiling division: whole cents, rounded up.
    prize.saturating_add(per_hand.saturating_sub(1)).checked_div(per_hand).unwrap_or(0)
}
