//! Blackjack's cards, shoe, hand values and side wagers against K.A.R. 111-301-3, -5 and -6, and
//! the side wagers' exact math against a brute-force enumeration of real shoes.

// Tests stop at the first surprise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use domain::blackjack::side_math::{self, Composition};
use domain::blackjack::side_wagers::{
    self, RoyalMatch, SevensPrize, ThreeCardHand, pot_contribution, pot_share,
};
use domain::blackjack::{Odds, Total, dealer_must_draw, is_blackjack, is_pair};
use domain::cards::{Card, Decks, Shoe, ShoeError};
use domain::math::choose;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace().map(|c| c.parse().unwrap()).collect()
}

fn two(text: &str) -> [Card; 2] {
    cards(text).try_into().unwrap()
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

#[test]
fn cards_read_and_write_as_rank_and_suit() {
    let deck: Vec<Card> = Card::deck().collect();
    assert_eq!(deck.len(), 52);
    let mut indexes: Vec<usize> = deck.iter().map(|c| c.index()).collect();
    indexes.sort_unstable();
    assert_eq!(indexes, (0..52).collect::<Vec<_>>());
    for c in &deck {
        assert_eq!(c.to_string().parse::<Card>().unwrap(), *c);
        assert_eq!(serde_json::to_value(c).unwrap(), serde_json::json!(c.to_string()));
    }
    for bad in ["", "1S", "11H", "AX", "KK", "10", "S"] {
        assert!(bad.parse::<Card>().is_err(), "{bad}");
    }
}

#[test]
fn the_cut_card_leaves_a_deck_or_half_a_deck_on_either_side() {
    // K.A.R. 111-301-6(a): 52 cards either side for six decks, 26 for a double deck.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (decks, size, min) in [(Decks::Six, 312, 52), (Decks::Two, 104, 26)] {
        for (cut, ok) in
            [(min - 1, false), (min, true), (size / 2, true), (size - min, true), (size - min + 1, false)]
        {
            let shoe = Shoe::shuffled(decks, cut, &mut rng);
            assert_eq!(shoe.is_ok(), ok, "{decks:?} cut at {cut}");
            if let Err(e) = shoe {
                assert!(matches!(e, ShoeError::CutOutOfRange { min: m, .. } if m == min));
            }
        }
        let mut shoe = Shoe::shuffled(decks, min, &mut rng).unwrap();
        assert_eq!(shoe.remaining(), size);
        let mut seen = vec![0usize; 52];
        for dealt in 0..size {
            assert_eq!(shoe.cut_card_reached(), dealt >= min);
            seen[shoe.draw().unwrap().index()] += 1;
        }
        assert!(seen.iter().all(|&n| n == decks.count()), "each card {} times", decks.count());
        assert_eq!(shoe.draw(), Err(ShoeError::Empty));
    }
}

#[test]
fn the_shuffle_puts_every_card_everywhere_alike() {
    // Where the ace of spades lands in a double-deck shoe, over many seeded shuffles: uniform
    // over the 104 places (chi-square, 103 degrees of freedom; 99.9% point about 154).
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let ace = card("AS");
    let mut places = vec![0u32; 104];
    let shuffles = 52_000;
    for _ in 0..shuffles {
        let shoe = Shoe::shuffled(Decks::Two, 52, &mut rng).unwrap();
        let first = shoe.undealt().iter().position(|&c| c == ace).unwrap();
        places[first] += 1;
    }
    // The first of two aces of spades is not uniform; count both instead.
    let mut both = vec![0u32; 104];
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..shuffles {
        let shoe = Shoe::shuffled(Decks::Two, 52, &mut rng).unwrap();
        for (i, &c) in shoe.undealt().iter().enumerate() {
            if c == ace {
                both[i] += 1;
            }
        }
    }
    let expected = f64::from(2 * shuffles) / 104.0;
    let chi: f64 = both.iter().map(|&n| (f64::from(n) - expected).powi(2) / expected).sum();
    assert!(chi < 154.0, "chi-square {chi}");
    assert!(places[0] > places[103], "the first copy is more often early: {} vs {}", places[0], places[103]);
}

#[test]
fn hand_totals_are_hard_or_soft() {
    // K.A.R. 111-301-3(g), (j).
    let cases = [
        ("AS 6H", 17, true),
        ("AS 6H 10D", 17, false),
        ("AS AH", 12, true),
        ("AS AH 9C", 21, true),
        ("AS AH 9C 5D", 16, false),
        ("KS QH", 20, false),
        ("10S 7H 5D", 22, false),
    ];
    for (hand, points, soft) in cases {
        assert_eq!(Total::of(&cards(hand)), Total { points, soft }, "{hand}");
    }
    assert!(Total::of(&cards("10S 7H 5D")).is_bust());
}

#[test]
fn the_dealer_draws_to_soft_17_and_stands_on_hard_17() {
    // K.A.R. 111-301-6(j): stop at a hard 17-21 or a soft 18-21.
    for (hand, draws) in [
        ("AS 6H", true),
        ("10S 6H", true),
        ("10S 7H", false),
        ("AS 6H 10D", false),
        ("AS 7H", false),
        ("4S 2H AD", true),
        ("5S 2H AD", false),
        ("9S 9H", false),
    ] {
        assert_eq!(dealer_must_draw(&cards(hand)), draws, "{hand}");
    }
}

#[test]
fn a_blackjack_is_two_cards_and_never_after_a_split() {
    // K.A.R. 111-301-3(a).
    assert!(is_blackjack(&cards("AS KH"), false));
    assert!(is_blackjack(&cards("10D AC"), false));
    assert!(!is_blackjack(&cards("AS KH"), true), "a split ace and a ten is 21, not a blackjack");
    assert!(!is_blackjack(&cards("7S 7H 7D"), false));
    // K.A.R. 111-301-6(h): "identical in value".
    assert!(is_pair(&cards("KS 10H")));
    assert!(is_pair(&cards("8S 8D")));
    assert!(!is_pair(&cards("AS 10H")));
    assert!(!is_pair(&cards("8S 8D 8C")));
}

#[test]
fn payouts_are_exact_on_whole_dollars() {
    assert_eq!(Odds::BLACKJACK.winnings(500), 750);
    assert_eq!(Odds::EVEN.winnings(2_500), 2_500);
    assert_eq!(Odds::INSURANCE.winnings(250), 500);
    assert_eq!(RoyalMatch::Suited.odds().unwrap().winnings(1_000), 2_500);
}

#[test]
fn three_card_wagers_pay_as_written() {
    // K.A.R. 111-301-5(k): 9 to 1; (l): 270 / 180 / 90 to 1.
    let cases = [
        ("7H 7H", "7H", ThreeCardHand::SuitedTrips, Some(9), Some(270)),
        ("8S 9S", "10S", ThreeCardHand::StraightFlush, Some(9), Some(180)),
        ("7H 7D", "7S", ThreeCardHand::Trips, Some(9), Some(90)),
        ("AS 2D", "3C", ThreeCardHand::Straight, Some(9), None),
        ("QS KD", "AC", ThreeCardHand::Straight, Some(9), None),
        ("KS AD", "2C", ThreeCardHand::Nothing, None, None),
        ("2H 9H", "KH", ThreeCardHand::Flush, Some(9), None),
        ("2H 9D", "KH", ThreeCardHand::Nothing, None, None),
        ("QH KH", "AH", ThreeCardHand::StraightFlush, Some(9), Some(180)),
    ];
    for (player, up, hand, trilux, super3) in cases {
        let (p, u) = (two(player), card(up));
        let [a, b] = p;
        assert_eq!(ThreeCardHand::of([a, b, u]), hand, "{player} {up}");
        assert_eq!(side_wagers::trilux(p, u).map(|o| o.to), trilux, "{player} {up}");
        assert_eq!(side_wagers::trilux_super_3(p, u).map(|o| o.to), super3, "{player} {up}");
    }
}

#[test]
fn royal_match_pays_suited_cards() {
    // K.A.R. 111-301-5(m)(3)-(4).
    assert_eq!(RoyalMatch::of(two("KH QH")), RoyalMatch::SuitedKingQueen);
    assert_eq!(RoyalMatch::of(two("QS KS")), RoyalMatch::SuitedKingQueen);
    assert_eq!(RoyalMatch::of(two("AH KH")), RoyalMatch::SuitedBlackjack);
    assert_eq!(RoyalMatch::of(two("10C AC")), RoyalMatch::SuitedBlackjack);
    assert_eq!(RoyalMatch::of(two("2D 9D")), RoyalMatch::Suited);
    assert_eq!(RoyalMatch::of(two("KH QD")), RoyalMatch::Nothing);
    assert_eq!(side_wagers::royal_match(two("KH QH")), Some(Odds::new(25, 1)));
    assert_eq!(side_wagers::royal_match(two("AH KH")), Some(Odds::new(5, 1)));
    assert_eq!(side_wagers::royal_match(two("2D 9D")), Some(Odds::new(5, 2)));
}

#[test]
fn blazing_sevens_pays_the_highest_prize_only() {
    // K.A.R. 111-301-5(j)(4)-(5).
    let cases = [
        ("7D 7D", "7D", Some(SevensPrize::ThreeDiamondSevens)),
        ("7S 7S", "7S", Some(SevensPrize::ThreeSuitedSevens)),
        ("7H 7D", "7H", Some(SevensPrize::ThreeSameColorSevens)),
        ("7C 7S", "7C", Some(SevensPrize::ThreeSameColorSevens)),
        ("7H 7S", "7D", Some(SevensPrize::ThreeMixedSevens)),
        ("7H 7S", "KD", Some(SevensPrize::TwoSevens)),
        ("7H 2S", "7D", Some(SevensPrize::OneSeven)),
        ("2H 3S", "7D", None),
    ];
    for (player, up, prize) in cases {
        assert_eq!(SevensPrize::of(two(player), card(up)), prize, "{player} {up}");
    }
    assert_eq!(SevensPrize::ThreeDiamondSevens.pot_percent(), Some(100));
    assert_eq!(SevensPrize::ThreeSuitedSevens.pot_percent(), Some(10));
    assert_eq!(SevensPrize::ThreeSameColorSevens.for_one(), Some(500));
    assert_eq!(SevensPrize::ThreeMixedSevens.for_one(), Some(200));
    assert_eq!(SevensPrize::TwoSevens.for_one(), Some(25));
    assert_eq!(SevensPrize::OneSeven.for_one(), Some(2));
    // 24% of each wager feeds the pot; shares of one round are equal, rounded up to the cent.
    assert_eq!(pot_contribution(100), 24);
    assert_eq!(pot_contribution(500), 120);
    assert_eq!(pot_share(1_000_000, 100, 1), 1_000_000);
    assert_eq!(pot_share(1_000_000, 100, 3), 333_334);
    assert_eq!(pot_share(1_000_001, 10, 2), 50_001);
}

/// Every unordered three-card deal of a real shoe, card by card.
fn brute_three_card(decks: Decks) -> Vec<(ThreeCardHand, u128)> {
    let shoe: Vec<Card> = (0..decks.count()).flat_map(|_| Card::deck()).collect();
    let mut counts: Vec<(ThreeCardHand, u128)> = Vec::new();
    for i in 0..shoe.len() {
        for j in i + 1..shoe.len() {
            for k in j + 1..shoe.len() {
                let hand = ThreeCardHand::of([shoe[i], shoe[j], shoe[k]]);
                match counts.iter_mut().find(|(h, _)| *h == hand) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((hand, 1)),
                }
            }
        }
    }
    counts.sort_by_key(|(h, _)| format!("{h:?}"));
    counts
}

#[test]
fn three_card_counts_match_a_card_by_card_enumeration() {
    let mut counted = side_math::three_card_counts(&Composition::full(Decks::Two));
    counted.sort_by_key(|(h, _)| format!("{h:?}"));
    assert_eq!(counted, brute_three_card(Decks::Two));
    let six = side_math::three_card_counts(&Composition::full(Decks::Six));
    assert_eq!(six.iter().map(|(_, n)| n).sum::<u128>(), choose(312, 3));
}

#[test]
fn royal_match_and_sevens_counts_match_a_card_by_card_enumeration() {
    let shoe: Vec<Card> = (0..6).flat_map(|_| Card::deck()).collect();
    let mut by_hand = [0u128; 3];
    for i in 0..shoe.len() {
        for j in i + 1..shoe.len() {
            match RoyalMatch::of([shoe[i], shoe[j]]) {
                RoyalMatch::SuitedKingQueen => by_hand[0] += 1,
                RoyalMatch::SuitedBlackjack => by_hand[1] += 1,
                RoyalMatch::Suited => by_hand[2] += 1,
                RoyalMatch::Nothing => {}
            }
        }
    }
    let math = side_math::royal_match(&Composition::full(Decks::Six));
    assert_eq!(math.outcomes.iter().map(|o| o.ways).collect::<Vec<_>>(), by_hand.to_vec());

    let shoe: Vec<Card> = (0..2).flat_map(|_| Card::deck()).collect();
    let mut sevens: Vec<(SevensPrize, u128)> = Vec::new();
    for i in 0..shoe.len() {
        for j in 0..shoe.len() {
            for k in 0..shoe.len() {
                if i == j || j == k || i == k {
                    continue;
                }
                if let Some(prize) = SevensPrize::of([shoe[i], shoe[j]], shoe[k]) {
                    match sevens.iter_mut().find(|(p, _)| *p == prize) {
                        Some((_, n)) => *n += 1,
                        None => sevens.push((prize, 1)),
                    }
                }
            }
        }
    }
    let mut counted = side_math::sevens_counts(&Composition::full(Decks::Two));
    counted.sort_by_key(|(p, _)| format!("{p:?}"));
    sevens.sort_by_key(|(p, _)| format!("{p:?}"));
    assert_eq!(counted, sevens);
}

#[test]
fn side_wager_returns_are_exact_and_below_one() {
    for decks in [Decks::Six, Decks::Two] {
        let shoe = Composition::full(decks);
        for math in [
            side_math::trilux(&shoe),
            side_math::trilux_super_3(&shoe),
            side_math::royal_match(&shoe),
            side_math::blazing_sevens(&shoe, side_wagers::BLAZING_SEVENS_SEED_CENTS, 100),
        ] {
            let rtp = math.return_to_player;
            assert!(rtp.numerator < rtp.denominator, "{} {decks:?}: {rtp}", math.wager);
            // The Blazing 7's at its seed pot returns least: about half (a double-deck shoe holds
            // only two 7's of diamonds, so its top prize cannot be won there at all).
            assert!(math.return_to_player_decimal > 0.45, "{} {decks:?}: {rtp}", math.wager);
            println!("{decks:?} {:<16} {:.6}", math.wager, math.return_to_player_decimal);
        }
    }
    // The usual figure for 21+3 at 9 to 1 on six decks is a 3.24% house edge.
    let trilux = side_math::trilux(&Composition::full(Decks::Six)).return_to_player_decimal;
    assert!((trilux - 0.9676).abs() < 0.0001, "{trilux}");
    let two_deck_top = side_math::blazing_sevens(&Composition::full(Decks::Two), 1_000_000, 100);
    assert_eq!(two_deck_top.outcomes[0].ways, 0, "three 7's of diamonds need three decks");
    // Fewer cards of a kind make suited three of a kind rarer: 2 decks pay less on Super 3.
    let six = side_math::trilux_super_3(&Composition::full(Decks::Six)).return_to_player_decimal;
    let two = side_math::trilux_super_3(&Composition::full(Decks::Two)).return_to_player_decimal;
    assert!(two < six);
    // A bigger pot returns more.
    let seed = side_math::blazing_sevens(&Composition::full(Decks::Six), 1_000_000, 100).return_to_player;
    let grown = side_math::blazing_sevens(&Composition::full(Decks::Six), 5_000_000, 100).return_to_player;
    assert!(grown.to_f64() > seed.to_f64());
}

#[test]
fn the_trilux_return_agrees_with_a_seeded_simulation() {
    let exact = side_math::trilux(&Composition::full(Decks::Six)).return_to_player_decimal;
    use rand::Rng;
    let shoe: Vec<Card> = (0..6).flat_map(|_| Card::deck()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let deals = 400_000;
    let mut returned = 0u64;
    for _ in 0..deals {
        // Three different cards of the shoe, each deal from a full shoe.
        let i = rng.random_range(0..312);
        let j = (i + rng.random_range(1..312)) % 312;
        let k = loop {
            let k = rng.random_range(0..312);
            if k != i && k != j {
                break k;
            }
        };
        if side_wagers::trilux([shoe[i], shoe[j]], shoe[k]).is_some() {
            returned += 10;
        }
    }
    let simulated = returned as f64 / f64::from(deals);
    // Standard error of the mean return is about 3.0/sqrt(deals) ≈ 0.0047; allow four.
    assert!((simulated - exact).abs() < 0.019, "simulated {simulated}, exact {exact}");
}
