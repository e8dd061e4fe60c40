//! Basic strategy for these rules, and the seeded simulation that measures the game's house edge
//! with it (architecture §5).
//!
//! The rules: the dealer draws to soft 17 (K.A.R. 111-301-6(j)), double on any first two cards
//! and after splitting (111-301-5(h)), split to four hands, split aces one card each, no
//! surrender, blackjack 3 to 2; a dealer blackjack takes only original wagers (111-301-6(g)), so
//! decisions are those of a game where the dealer checks first. The table is the standard
//! multi-deck basic strategy for "dealer hits soft 17, double after split"; the same table is
//! used for two decks (the two-deck table differs in a few marginal cells, worth a few
//! hundredths of a percent). Insurance and even money are always declined.

use rand::Rng;
use serde::Serialize;

use super::round::{Action, Phase, Round, SpotBet, TableRules};
use super::{Total, is_pair};
use crate::cards::{Card, Decks, Shoe};

/// The decision basic strategy takes on `hand` (the player's cards) against `up`.
pub fn decide(hand: &[Card], up: Card, can_split: bool) -> Action {
    let dealer = up.rank.points(); // ace = 1
    let total = Total::of(hand);
    let two_cards = hand.len() == 2;
    let double = Action::Double { amount: None };
    if can_split && is_pair(hand) {
        let pair = hand.first().map_or(0, |c| c.rank.points());
        let split = match pair {
            1 | 8 => true,
            9 => !matches!(dealer, 7 | 10 | 1),
            7 | 2 | 3 => (2..=7).contains(&dealer),
            6 => (2..=6).contains(&dealer),
            4 => (5..=6).contains(&dealer),
            _ => false,
        };
        if split {
            return Action::Split;
        }
    }
    if total.soft {
        let action = match total.points {
            13 | 14 if (5..=6).contains(&dealer) => double,
            15 | 16 if (4..=6).contains(&dealer) => double,
            17 if (3..=6).contains(&dealer) => double,
            18 if (2..=6).contains(&dealer) => {
                if two_cards {
                    double
                } else {
                    Action::Stand
                }
            }
            18 if (7..=8).contains(&dealer) => Action::Stand,
            19 if dealer == 6 && two_cards => double,
            19..=21 => Action::Stand,
            18 => Action::Hit,
            _ => Action::Hit,
        };
        return if action == double && !two_cards { Action::Hit } else { action };
    }
    let action = match total.points {
        0..=8 => Action::Hit,
        9 if (3..=6).contains(&dealer) => double,
        10 if (2..=9).contains(&dealer) => double,
        11 => double,
        9..=11 => Action::Hit,
        12 if (4..=6).contains(&dealer) => Action::Stand,
        12 => Action::Hit,
        13..=16 if (2..=6).contains(&dealer) => Action::Stand,
        13..=16 => Action::Hit,
        _ => Action::Stand,
    };
    if action == double && !two_cards { Action::Hit } else { action }
}

/// The house edge measured by simulation, per unit of initial wager.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HouseEdge {
    pub decks: usize,
    pub rounds: u64,
    /// The player's mean loss per unit wagered (positive: the house wins).
    pub house_edge: f64,
    /// Half-width of the 95% confidence interval.
    pub confidence_95: f64,
    pub seed: u64,
}

/// Plays `rounds` one-spot rounds of basic strategy from shoes shuffled by `rng` and cut as
/// deep as 111-301-6(a) lets the cut card go (`Decks::min_cards_beside_cut` from the end: at
/// card 260 of 312 with six decks, 78 of 104 with two; the round in play finishes past the cut
/// card, and the shoe is shuffled anew before the next round), and returns the mean result per
/// unit wagered.
pub fn simulate_house_edge(decks: Decks, rounds: u64, seed: u64, rng: &mut impl Rng) -> HouseEdge {
    let rules = TableRules {
        decks,
        min_wager_cents: 100,
        max_wager_cents: 100,
        progressive_wager_cents: 100,
        max_spots: super::SPOTS_AT_A_TABLE,
    };
    let size = decks.count().saturating_mul(52);
    let cut = size.saturating_sub(decks.min_cards_beside_cut());
    let mut shoe = fresh(decks, cut, rng);
    let (mut sum, mut sum_sq) = (0f64, 0f64);
    let mut played = 0u64;
    while played < rounds {
        if shoe.cut_card_reached() || shoe.remaining() < 30 {
            shoe = fresh(decks, cut, rng);
        }
        let Some(net) = play_one(rules, &mut shoe) else {
            shoe = fresh(decks, cut, rng);
            continue;
        };
        sum += net;
        sum_sq += net * net;
        played = played.saturating_add(1);
    }
    #[allow(clippy::cast_precision_loss)] // a count of rounds, far below 2^52
    let n = played.max(1) as f64;
    let mean = sum / n;
    let variance = (sum_sq / n - mean * mean).max(0.0);
    HouseEdge {
        decks: decks.count(),
        rounds: played,
        house_edge: -mean,
        confidence_95: 1.96 * (variance / n).sqrt(),
        seed,
    }
}

fn fresh(decks: Decks, cut: usize, rng: &mut impl Rng) -> Shoe {
    Shoe::shuffled(decks, cut, rng).unwrap_or_else(|_| Shoe::shuffled_default(decks, rng))
}

/// One round with basic strategy; the net result in units of the wager (None: the shoe ran out).
fn play_one(rules: TableRules, shoe: &mut Shoe) -> Option<f64> {
    let mut round = Round::deal(rules, vec![SpotBet { wager: 100, ..SpotBet::default() }], shoe).ok()?;
    while round.phase != Phase::Settled {
        let action = match round.phase {
            Phase::Insurance => Action::DeclineInsurance { spot: 0 },
            _ => {
                let (s, h) = round.turn?;
                let spot = round.spots.get(s)?;
                let hand = spot.hands.get(h)?;
                // Split aces take no decisions, so a hand asked about is never one.
                let can_split = spot.hands.len() < super::MAX_HANDS_AFTER_SPLITS;
                decide(&hand.cards, round.up_card(), can_split)
            }
        };
        round.act(action, shoe).ok()?;
    }
    let spot = round.spots.first()?;
    let staked = spot.staked(&rules);
    let returned = spot.returned?;
    #[allow(clippy::cast_precision_loss)] // cents of one round
    Some((returned.saturating_sub(staked)) as f64 / 100.0)
}
