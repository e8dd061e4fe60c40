//! Which decisions a round takes now (K.A.R. 111-301-6(g), (h)): the list a player is shown of
//! what it may send, by the same refusals (`super::double_refusal`, `super::split_refusal`) that
//! `Round::act` applies.

use super::round::{Hand, Phase, Round};
use super::{double_refusal, split_refusal};

impl Round {
    /// The decisions the player may make now, each as `act` would take it (a double or an
    /// insurance also needs the money, which the ledger decides): in the insurance phase, each
    /// undecided spot's insurance, decline and (on a blackjack) even money; in the player's turn,
    /// the hand in turn's hit and stand, and its double and split where 111-301-6(g)(3), (h)
    /// allow them; nothing once the round is settled.
    pub fn allowed_actions(&self) -> Vec<(&'static str, Option<usize>)> {
        let mut allowed = Vec::new();
        match self.phase {
            Phase::Insurance => {
                for (i, spot) in self.spots.iter().enumerate() {
                    if spot.insurance.is_some() || spot.even_money {
                        continue;
                    }
                    allowed.push(("insurance", Some(i)));
                    allowed.push(("decline_insurance", Some(i)));
                    if spot.hands.first().is_some_and(Hand::is_blackjack) {
                        allowed.push(("even_money", Some(i)));
                    }
                }
            }
            Phase::PlayerTurn => {
                let in_turn = self.turn.and_then(|(s, h)| {
                    let spot = self.spots.get(s)?;
                    Some((spot.hands.get(h)?, spot.hands.len()))
                });
                if let Some((hand, hands)) = in_turn {
                    allowed.push(("hit", None));
                    allowed.push(("stand", None));
                    if double_refusal(&hand.cards, hand.split_aces).is_none() {
                        allowed.push(("double", None));
                    }
                    if split_refusal(&hand.cards, hand.split_aces, hands).is_none() {
                        allowed.push(("split", None));
                    }
                }
            }
            Phase::Settled => {}
        }
        allowed
    }
}
