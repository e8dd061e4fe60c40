//! What the tables' reading of a dealer blackjack found after the decisions is worth to the
//! player (issue 32 §6; ADR 0004, reading 2).
//!
//! K.A.R. 111-301-6(g)(3) says a player who doubled loses only the original wager to a dealer
//! blackjack shown at the end; it is silent on split hands. The tables read it alike for splits
//! (the spot loses its original wager; the wagers split off are returned). The other reading
//! loses every split hand. The two part only in one case: the dealer shows a ten-value card
//! (with an ace up the dealer looks after insurance, before any decision), has the ace beneath,
//! and the spot split. Basic strategy ([`super::strategy::decide`]) splits against a ten only
//! aces (one card each, never again) and eights (again up to four hands, [`super::MAX_HANDS_AFTER_SPLITS`]).
//!
//! So the other reading costs the player, per round of one spot, exactly
//! `P(ten up, ace beneath, A-A) × 1 + P(ten up, ace beneath, 8-8) × (E[hands] − 1)`, counted here
//! over the shoe's cards with each removal (the first four cards, then every card a split hand
//! draws). Doubles after a split are returned under both readings (6(g)(3) says so of doubling),
//! so they do not enter.
//!
//! Counting code, not money: its counts are a shoe's cards (at most 416) and hands (at most
//! four), checked before each step, and its chances floating point.
#![allow(clippy::arithmetic_side_effects)]

use std::collections::HashMap;

/// Cards of each kind in a full shoe of `decks`: (all, ten-values, aces, eights).
fn shoe(decks: u8) -> (f64, f64, f64, f64) {
    let d = f64::from(decks);
    (52.0 * d, 16.0 * d, 4.0 * d, 4.0 * d)
}

/// The expected number of hands a pair of eights ends in, resplitting every eight drawn while
/// fewer than four hands: `pending` hands wait for their second card, `hands` in all, `eights`
/// of `cards` left in the shoe.
fn hands_from_eights(
    hands: u32,
    pending: u32,
    eights: u32,
    cards: u32,
    memo: &mut HashMap<(u32, u32, u32, u32), f64>,
) -> f64 {
    if pending == 0 || cards == 0 {
        return f64::from(hands);
    }
    if let Some(&known) = memo.get(&(hands, pending, eights, cards)) {
        return known;
    }
    let (e, c) = (f64::from(eights), f64::from(cards));
    let most = u32::try_from(super::MAX_HANDS_AFTER_SPLITS).unwrap_or(4);
    // The card a waiting hand draws: an eight splits again while fewer than `most` hands (one
    // more hand, both halves waiting); anything else, or an eight with `most` hands, ends it.
    let eight = if eights == 0 {
        0.0
    } else if hands < most {
        hands_from_eights(hands + 1, pending + 1, eights - 1, cards - 1, memo)
    } else {
        hands_from_eights(hands, pending - 1, eights - 1, cards - 1, memo)
    };
    let other = hands_from_eights(hands, pending - 1, eights, cards - 1, memo);
    let value = e / c * eight + (c - e) / c * other;
    memo.insert((hands, pending, eights, cards), value);
    value
}

/// What losing every split hand to a dealer blackjack found at the end would add to the house
/// edge, in units of the original wager per round of one spot, for a full shoe of `decks`.
pub fn split_protection_worth(decks: u8) -> f64 {
    let (n, tens, aces, eights) = shoe(decks);
    // The four cards in any order of dealing: the player's pair, the dealer's ten and ace.
    let aces_pair = aces / n * (aces - 1.0) / (n - 1.0) * tens / (n - 2.0) * (aces - 2.0) / (n - 3.0);
    let eights_pair = eights / n * (eights - 1.0) / (n - 1.0) * tens / (n - 2.0) * aces / (n - 3.0);
    let left = (52 * u32::from(decks)).saturating_sub(4);
    let eights_left = (4 * u32::from(decks)).saturating_sub(2);
    let hands = hands_from_eights(2, 2, eights_left, left, &mut HashMap::new());
    aces_pair + eights_pair * (hands - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_other_reading_costs_about_what_an_infinite_shoe_says() {
        // Infinite shoe: P(ten up) 4/13, P(ace beneath) 1/13, P(A-A) = P(8-8) = 1/169; eights
        // resplit about 1/13 of the time per card: about 0.0285% of a wager.
        let infinite = 4.0 / 13.0 * (1.0 / 13.0) * (1.0 / 169.0) * (1.0 + 1.17);
        for decks in [6u8, 2] {
            let worth = split_protection_worth(decks);
            assert!(
                worth > 0.0 && (worth - infinite).abs() < infinite * 0.25,
                "{decks}: {worth} vs {infinite}"
            );
        }
        // Fewer decks: the player's own pair and the dealer's ace take more of their kind.
        assert!(split_protection_worth(2) < split_protection_worth(6));
    }

    #[test]
    fn eights_end_in_two_to_four_hands() {
        let two = hands_from_eights(2, 2, 0, 100, &mut HashMap::new());
        assert!((two - 2.0).abs() < 1e-12, "no eights left: two hands");
        let all = hands_from_eights(2, 2, 1_000, 1_000, &mut HashMap::new());
        assert!((all - 4.0).abs() < 1e-12, "only eights left: four hands");
        let six = hands_from_eights(2, 2, 22, 308, &mut HashMap::new());
        assert!(six > 2.0 && six < 2.4, "{six}");
    }
}
