//! I Luv Suits (K.A.R. 111-301-74 to -76): seven cards each from one 52-card deck, hands made only
//! of flushes and straight flushes; the player's flush against the dealer's, and three wagers
//! against pay tables (Flush Rush, Super Flush Rush, the progressive).
//!
//! This module holds the rules a round is judged by: the best flush of a hand and how two compare
//! (74(c), (d)), the longest straight flush (74(b)), the dealer's qualifying hand (76(i)(1)), the
//! play wager's limits (75(a)(2)) and the pay tables (76(i)(2), (3), (6)). [`math`] counts the
//! pay tables' exact returns.

pub mod base_game;
pub mod base_game_value;
pub mod math;
pub mod round;
pub mod strategy;

use std::cmp::Ordering;

use crate::cards::{Card, Suit};

/// A card's rank in a flush: the ace only high (74(a): "an ace may only be used as the highest
/// ranking card in a flush"), so 2 to 14.
fn flush_rank(card: Card) -> u8 {
    match card.rank.number() {
        1 => 14,
        n => n,
    }
}

/// A hand's best flush (74(c)): the most cards of one suit, and, between suits of as many cards,
/// the one whose cards rank higher, card by card (74(d)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flush {
    pub suit: Suit,
    /// Its cards' ranks, highest first, the ace as 14.
    pub ranks: Vec<u8>,
}

impl Flush {
    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// 74(d): more cards win; as many cards, the highest card, then the next, and so on; the same
    /// all through is a tie. Whether it is also a straight flush does not matter here.
    pub fn compare(&self, other: &Flush) -> Ordering {
        self.len().cmp(&other.len()).then_with(|| self.ranks.cmp(&other.ranks))
    }
}

/// The best flush in `cards` (seven cards hold at least two of one suit).
pub fn best_flush(cards: &[Card]) -> Flush {
    Suit::ALL
        .into_iter()
        .map(|suit| {
            let mut ranks: Vec<u8> =
                cards.iter().filter(|c| c.suit == suit).map(|&c| flush_rank(c)).collect();
            ranks.sort_unstable_by(|a, b| b.cmp(a));
            Flush { suit, ranks }
        })
        .max_by(|a, b| a.compare(b))
        .unwrap_or(Flush { suit: Suit::Spades, ranks: Vec::new() })
}

/// 76(i)(1): the dealer plays for both wagers only with "at least a three card flush containing a
/// 9 or higher ranking card". "At least" is read as a rank (74(c), (d)): the dealer's best hand
/// must rank at or above a three-card 9-high flush, so any flush of four cards or more qualifies,
/// and a three-card flush qualifies when its highest card is a 9 or higher (the ace high). The
/// other readings (a best flush holding a 9 or higher, whatever its length; any three cards of a
/// suit with a 9 or higher) are counted in [`math`] beside this one
/// ([`base_game::Qualifier`]).
pub fn dealer_qualifies(best: &Flush) -> bool {
    best.len() >= 4 || (best.len() == 3 && best.ranks.first().is_some_and(|&high| high >= 9))
}

/// The longest straight flush in a hand (74(b)): consecutive ranks of one suit, the ace high
/// (after the king) or low (before the 2), never both in one run ("K-A-2" is not a straight).
/// Whether the run of that length holds an ace matters to the progressive (76(i)(6)).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StraightFlush {
    pub len: u8,
    /// Some run of this length holds an ace.
    pub with_ace: bool,
}

/// The longest run within one suit's ranks (given as a 13-bit set, bit 0 the ace ... bit 12 the
/// king), and whether a run of that length holds the ace.
pub fn longest_run(ranks: u16) -> StraightFlush {
    // Fourteen places: the ace low, 2 to king, the ace high.
    let ace = ranks & 1 != 0;
    let mut best = StraightFlush { len: 0, with_ace: false };
    let mut run = 0u8;
    let mut run_has_ace = false;
    for place in 0..14u8 {
        let present = match place {
            0 | 13 => ace,
            n => ranks & (1 << n) != 0,
        };
        if present {
            run = run.saturating_add(1);
            run_has_ace |= place == 0 || place == 13;
            let candidate = StraightFlush { len: run, with_ace: run_has_ace };
            if candidate.len > best.len || (candidate.len == best.len && candidate.with_ace) {
                best = candidate;
            }
        } else {
            run = 0;
            run_has_ace = false;
        }
    }
    best
}

/// The longest straight flush among `cards`.
pub fn straight_flush(cards: &[Card]) -> StraightFlush {
    Suit::ALL
        .into_iter()
        .map(|suit| {
            let set = cards
                .iter()
                .filter(|c| c.suit == suit)
                .fold(0u16, |set, c| set | 1 << (c.rank.number().saturating_sub(1)));
            longest_run(set)
        })
        .max()
        .unwrap_or(StraightFlush { len: 0, with_ace: false })
}

/// 75(a)(2): the most a play wager may be, in multiples of the ante, by the player's flush: the
/// ante's amount below five cards of a suit, up to twice with five, up to three times with six
/// or seven (76(d) says the same).
pub fn max_play_multiple(flush_len: usize) -> u8 {
    match flush_len {
        0..=4 => 1,
        5 => 2,
        _ => 3,
    }
}

/// Flush Rush (76(i)(2)): "n to 1" by the best flush's length; none below four cards.
pub fn flush_rush_odds(flush_len: usize) -> Option<u32> {
    match flush_len {
        4 => Some(1),
        5 => Some(10),
        6 => Some(100),
        7 => Some(300),
        _ => None,
    }
}

/// Super Flush Rush (76(i)(3)): "n to 1" by the longest straight flush; none below three cards.
pub fn super_flush_rush_odds(sf: StraightFlush) -> Option<u32> {
    match sf.len {
        3 => Some(7),
        4 => Some(75),
        5 => Some(100),
        6 => Some(200),
        7 => Some(500),
        _ => None,
    }
}

/// A progressive prize (76(i)(6)), the highest the hand qualifies for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProgressivePrize {
    /// "n for 1": what the wager returns in all, the wager included.
    ForOne(u32),
    /// A share of the pot on the meter, in percent.
    PotPercent(u32),
}

/// The progressive's pay table (76(i)(6)).
pub fn progressive_prize(sf: StraightFlush) -> Option<ProgressivePrize> {
    match (sf.len, sf.with_ace) {
        (3, _) => Some(ProgressivePrize::ForOne(3)),
        (4, _) => Some(ProgressivePrize::ForOne(50)),
        (5, _) => Some(ProgressivePrize::ForOne(300)),
        (6, false) => Some(ProgressivePrize::PotPercent(10)),
        (6, true) | (7, _) => Some(ProgressivePrize::PotPercent(100)),
        _ => None,
    }
}

/// 76(i)(5): the progressive pot's first funding, in cents.
pub const PROGRESSIVE_SEED_CENTS: i64 = 100_000;
/// 76(i)(5): the share of each progressive wager added to the pot, in percent.
pub const PROGRESSIVE_POT_PERCENT: i64 = 22;
