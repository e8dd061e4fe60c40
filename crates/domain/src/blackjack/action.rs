//! A player's decision on a blackjack round (K.A.R. 111-301-6), and which of them stake more.

use serde::{Deserialize, Serialize};

/// A player's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    Hit,
    Stand,
    /// Up to the original wager (111-301-6(g)(3)); the whole wager when no amount is given.
    Double {
        amount: Option<i64>,
    },
    Split,
    /// Up to half the spot's wager (111-301-6(g)(2)).
    Insurance {
        spot: usize,
        amount: i64,
    },
    DeclineInsurance {
        spot: usize,
    },
    EvenMoney {
        spot: usize,
    },
}

impl Action {
    /// Whether the decision stakes more money: a double (111-301-6(g)(3)), a split and insurance
    /// (6(g)(2)) are stakes of their own, met by the player-protection checks as any stake is
    /// (ADR 0014); a hit, a stand, declining insurance and even money (the hand settled at 1:1,
    /// no new money) never are, so a round can always be finished.
    pub fn stakes_more(&self) -> bool {
        matches!(self, Action::Double { .. } | Action::Split | Action::Insurance { .. })
    }
}

/// The wire names (`action`) of the decisions that stake more ([`Action::stakes_more`]), for
/// whoever must tell them from a request's body before it reaches the game.
pub const STAKING_ACTIONS: [&str; 3] = ["double", "split", "insurance"];
