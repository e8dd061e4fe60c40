//! I Luv Suits' rules (K.A.R. 111-301-74 to -76) and the exact counts of its pay tables, checked
//! against the card-level rules on seeded random hands.

// Tests stop at the first surprise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_precision_loss
)]

use std::cmp::Ordering;

use domain::cards::Card;
use domain::i_luv_suits::math::{all_hands, seven_card_counts};
use domain::i_luv_suits::{
    PROGRESSIVE_POT_PERCENT, PROGRESSIVE_SEED_CENTS, StraightFlush, best_flush, dealer_qualifies,
    longest_run, max_play_multiple, straight_flush,
};
use domain::math::choose;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

fn hand(text: &str) -> Vec<Card> {
    text.split_whitespace().map(|c| c.parse().unwrap()).collect()
}

#[test]
fn flushes_rank_by_length_then_card_by_card_with_the_ace_only_high() {
    // 74(d): more cards of a suit win, whatever their ranks.
    let four_low = best_flush(&hand("2H 3H 4H 6H KS QC 9D"));
    let three_high = best_flush(&hand("AS KS QS 2H 3C 9D 5D"));
    assert_eq!((four_low.len(), three_high.len()), (4, 3));
    assert_eq!(four_low.compare(&three_high), Ordering::Greater);
    // As many cards: the highest card, then the next.
    let a = best_flush(&hand("AH 9H 2H 3S 4C 5D 7S"));
    let b = best_flush(&hand("KD QD JD 3S 4C 5H 7C"));
    assert_eq!(a.compare(&b), Ordering::Greater, "the ace is high in a flush (74(a))");
    let c = best_flush(&hand("AS 9S 3S 2H 4C 5D 7C"));
    assert_eq!(a.compare(&c), Ordering::Less, "A-9-3 beats A-9-2");
    let d = best_flush(&hand("AD 9D 2D 3S 4C 5H 7C"));
    assert_eq!(a.compare(&d), Ordering::Equal, "a tie returns both wagers (74(d))");
    // Of two suits with as many cards, the higher one is the hand.
    let two_suits = best_flush(&hand("2H 3H 4H AS 5S 6S 9C"));
    assert_eq!(two_suits.ranks, vec![14, 6, 5]);
}

#[test]
fn straight_flushes_take_the_ace_high_or_low_never_around_the_corner() {
    let bits = |ranks: &[u8]| ranks.iter().fold(0u16, |s, &r| s | 1 << (r - 1));
    assert_eq!(longest_run(bits(&[1, 2, 3])), StraightFlush { len: 3, with_ace: true });
    assert_eq!(longest_run(bits(&[12, 13, 1])), StraightFlush { len: 3, with_ace: true });
    assert_eq!(longest_run(bits(&[13, 1, 2])).len, 2, "K-A-2 is not a straight (74(a), (b))");
    assert_eq!(longest_run(bits(&[2, 3, 4, 5, 6, 7])), StraightFlush { len: 6, with_ace: false });
    assert_eq!(longest_run(bits(&[9, 10, 11, 12, 13, 1, 2])), StraightFlush { len: 6, with_ace: true });
    assert_eq!(longest_run(bits(&[1, 2, 3, 4, 5, 6, 7])).len, 7);
    // A run is within one suit.
    assert_eq!(straight_flush(&hand("5H 6H 7S 8H 9H 2C 3D")).len, 2);
    assert_eq!(straight_flush(&hand("5H 6H 7H 8H 9H 2C 3D")).len, 5);
}

#[test]
fn the_dealer_qualifies_with_three_of_a_suit_holding_a_nine_or_better() {
    assert!(dealer_qualifies(&best_flush(&hand("9H 3H 2H 4S 5C 6D 7S"))));
    assert!(dealer_qualifies(&best_flush(&hand("AH 3H 2H 4S 5C 6D 7S"))), "the ace is high");
    assert!(!dealer_qualifies(&best_flush(&hand("8H 3H 2H 4S 5C 6D 7S"))));
    assert!(!dealer_qualifies(&best_flush(&hand("KH 3H 4S 5S 6C 7C 9D"))), "two-card flushes do not");
    // "At least" a three-card 9-high flush, as a rank: every four-card flush is above it, low
    // cards or not, while a three-card king-high flush qualifies too (issue 32).
    assert!(dealer_qualifies(&best_flush(&hand("8H 6H 4H 2H 5C 7D 3S"))), "a low four-card flush");
    assert!(dealer_qualifies(&best_flush(&hand("7S 6S 5S 4S 3S 2C 2D"))), "a low five-card flush");
    assert!(dealer_qualifies(&best_flush(&hand("KH 3H 2H 4S 5C 6D 7S"))));
    // The play wager's limits by the player's flush (75(a)(2)).
    assert_eq!([4, 5, 6, 7].map(max_play_multiple), [1, 2, 3, 3]);
}

#[test]
fn every_seven_card_hand_is_counted_once_and_the_returns_are_exact() {
    let counts = seven_card_counts();
    assert_eq!(counts.total, all_hands());
    assert_eq!(counts.total, 133_784_560);
    // Seven of one suit: 4 · C(13, 7).
    assert_eq!(counts.count(|f, _| f == 7), 4 * choose(13, 7));
    // Seven-card straight flushes: 4 suits × 8 runs (A-7 up to 8-A).
    assert_eq!(counts.count(|_, sf| sf.len == 7), 32);
    let flush_rush = counts.flush_rush_return();
    let super_rush = counts.super_flush_rush_return();
    let at_seed = counts.progressive_return_at(PROGRESSIVE_SEED_CENTS, 500);
    let long_run_reseeded = counts.progressive_long_run(500, PROGRESSIVE_POT_PERCENT, PROGRESSIVE_SEED_CENTS);
    let long_run_once = counts.progressive_long_run(500, PROGRESSIVE_POT_PERCENT, 0);
    println!(
        "Flush Rush {:.6}, Super Flush Rush {:.6}; progressive ($5) at the $1,000 seed {:.6}, long run {:.6} re-seeded, {:.6} funded once",
        flush_rush.to_f64(),
        super_rush.to_f64(),
        at_seed.to_f64(),
        long_run_reseeded.to_f64(),
        long_run_once.to_f64()
    );
    for rtp in [flush_rush, super_rush, at_seed, long_run_reseeded, long_run_once] {
        assert!(rtp.to_f64() > 0.5 && rtp.to_f64() < 1.0, "{rtp}: the house keeps an edge");
    }
    assert!(long_run_reseeded.to_f64() > long_run_once.to_f64());
}

#[test]
fn the_counts_agree_with_the_card_level_rules_on_seeded_random_hands() {
    let counts = seven_card_counts();
    let mut deck: Vec<Card> = Card::deck().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(74);
    let deals = 300_000u32;
    let mut flushes = [0u32; 8];
    let mut runs = [0u32; 8];
    for _ in 0..deals {
        deck.shuffle(&mut rng);
        let seven = &deck[..7];
        flushes[best_flush(seven).len()] += 1;
        runs[usize::from(straight_flush(seven).len)] += 1;
    }
    for len in 2..=7u8 {
        for (observed, exact) in [
            (flushes[usize::from(len)], counts.count(|f, _| f == len)),
            (runs[usize::from(len)], counts.count(|_, sf| sf.len == len)),
        ] {
            let p = exact as f64 / counts.total as f64;
            let expected = p * f64::from(deals);
            let sd = (f64::from(deals) * p * (1.0 - p)).sqrt().max(1.0);
            assert!(
                (f64::from(observed) - expected).abs() < 5.0 * sd,
                "length {len}: {observed} seen, {expected:.1} expected"
            );
        }
    }
}

/// Four suits' flush bits (bit 0 the 2 ... bit 12 the ace) of some cards.
fn flush_bits_of(cards: &[Card]) -> [u16; 4] {
    let mut suits = [0u16; 4];
    for card in cards {
        let suit = domain::cards::Suit::ALL.iter().position(|&s| s == card.suit).unwrap();
        let rank = if card.rank.number() == 1 { 14 } else { card.rank.number() };
        suits[suit] |= 1 << (rank - 2);
    }
    suits
}

#[test]
fn the_dealers_hands_counted_by_suit_agree_with_dealing_every_one() {
    use domain::i_luv_suits::base_game::{DealerOutcomes, Qualifier, dealer_outcomes};
    let deck: Vec<Card> = Card::deck().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(76);
    // Smaller dealer hands than seven, so every one can be dealt; the count is the same code.
    for (round, dealer_cards) in [4usize; 10].into_iter().chain([5usize; 2]).enumerate() {
        let mut cards = deck.clone();
        cards.shuffle(&mut rng);
        let (player, rest) = cards.split_at(7);
        let ours = best_flush(player);
        let mut counted = [DealerOutcomes::default(); 3];
        let mut dealer = Vec::with_capacity(dealer_cards);
        each_subset(rest, dealer_cards, &mut dealer, &mut |dealer| {
            let theirs = best_flush(dealer);
            // 76(i)(1), read three ways, from the cards themselves: at least 9-3-2 as a rank
            // (`dealer_qualifies`), a best flush of three or more holding a 9 or higher, any
            // three of a suit with a 9 or higher.
            let best_holds_nine = theirs.len() >= 3 && theirs.ranks.iter().any(|&r| r >= 9);
            let any_three = domain::cards::Suit::ALL.iter().any(|&suit| {
                let of_suit: Vec<&Card> = dealer.iter().filter(|c| c.suit == suit).collect();
                of_suit.len() >= 3 && of_suit.iter().any(|c| c.rank.number() == 1 || c.rank.number() >= 9)
            });
            for (tally, qualifies) in
                counted.iter_mut().zip([dealer_qualifies(&theirs), best_holds_nine, any_three])
            {
                match (qualifies, ours.compare(&theirs)) {
                    (false, _) => tally.not_qualifying += 1,
                    (true, Ordering::Greater) => tally.player_wins += 1,
                    (true, Ordering::Equal) => tally.ties += 1,
                    (true, Ordering::Less) => tally.dealer_wins += 1,
                }
            }
        });
        for (reading, dealt) in Qualifier::ALL.into_iter().zip(counted) {
            let by_suit =
                dealer_outcomes(&flush_bits_of(player), u32::try_from(dealer_cards).unwrap(), reading);
            assert_eq!(by_suit, dealt, "round {round}, {reading:?}, player {player:?}");
        }
    }
}

/// Calls `visit` with every `k`-card subset of `cards`.
fn each_subset(cards: &[Card], k: usize, chosen: &mut Vec<Card>, visit: &mut impl FnMut(&[Card])) {
    if chosen.len() == k {
        visit(chosen);
        return;
    }
    let need = k - chosen.len();
    for i in 0..=cards.len().saturating_sub(need) {
        chosen.push(cards[i]);
        each_subset(&cards[i + 1..], k, chosen, visit);
        chosen.pop();
    }
}
