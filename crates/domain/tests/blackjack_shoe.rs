//! A round never runs out of cards (issue 11, defect 1): at the most spots a table allows, with
//! every pair split and every hand drawn to its last card, from shoes stacked against the house
//! and from thousands of shoes played through their cut card with the reserve of discards.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use domain::blackjack::round::{Action, Phase, PlayError, Round, SpotBet, TableRules};
use domain::blackjack::{SPOTS_AT_A_TABLE, max_spots_served};
use domain::cards::{Card, Decks, Rank, Shoe, ShoeError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn rules(decks: Decks) -> TableRules {
    TableRules {
        decks,
        min_wager_cents: 100,
        max_wager_cents: 100_000,
        progressive_wager_cents: 100,
        max_spots: SPOTS_AT_A_TABLE,
    }
}

fn bets(spots: usize) -> Vec<SpotBet> {
    vec![SpotBet { wager: 100, ..SpotBet::default() }; spots]
}

/// The player who takes the most cards: insurance declined, every pair split, every hand hit
/// until the rules stop it.
fn play_to_exhaustion(round: &mut Round, shoe: &mut Shoe) -> Result<usize, PlayError> {
    let mut decisions = 0;
    while round.phase != Phase::Settled {
        decisions += 1;
        assert!(decisions < 1_000, "a round that never ends");
        if round.phase == Phase::Insurance {
            let spot = round.spots.iter().position(|s| s.insurance.is_none()).unwrap();
            round.act(Action::DeclineInsurance { spot }, shoe)?;
            continue;
        }
        match round.act(Action::Split, shoe) {
            Err(PlayError::NotAllowed(_)) => round.act(Action::Hit, shoe)?,
            other => other?,
        }
    }
    Ok(round.spots.iter().flat_map(|s| &s.hands).map(|h| h.cards.len()).sum::<usize>() + round.dealer.len())
}

/// Every card of `decks`, lowest points first and aces last (split aces take one card each):
/// an order that puts the most cards on the table.
fn ascending(decks: Decks) -> Vec<Card> {
    let mut cards: Vec<Card> = (0..decks.count()).flat_map(|_| Card::deck()).collect();
    cards.sort_by_key(|c| (c.rank == Rank::ACE, c.rank.points(), c.index()));
    cards
}

/// Pairs first, to split as often as the rules allow, then the lowest cards.
fn pairs_then_ascending(decks: Decks) -> Vec<Card> {
    let mut cards = ascending(decks);
    // Eights and nines up front: every first two cards a pair, split into four hands, then hit
    // with the low cards behind them.
    let mut pairs: Vec<Card> = cards.iter().copied().filter(|c| c.rank == Rank::new(8).unwrap()).collect();
    pairs.extend(cards.iter().copied().filter(|c| c.rank == Rank::new(9).unwrap()));
    cards.retain(|c| !pairs.contains(c));
    pairs.extend(cards);
    pairs
}

#[test]
fn the_shoes_serve_seven_spots_of_six_decks_and_five_of_two() {
    assert_eq!(Decks::Six.total_points(), 2_040);
    assert_eq!(Decks::Two.total_points(), 680);
    assert_eq!(max_spots_served(Decks::Six), 7);
    assert_eq!(max_spots_served(Decks::Two), 5);
    assert_eq!(rules(Decks::Two).spots_allowed(), 5, "a table setting above what the shoe serves is capped");
}

#[test]
fn more_spots_than_the_table_allows_are_refused_before_a_card_is_dealt() {
    for decks in [Decks::Six, Decks::Two] {
        let allowed = max_spots_served(decks);
        let mut shoe = Shoe::shuffled_default(decks, &mut ChaCha20Rng::seed_from_u64(1));
        let before = shoe.clone();
        assert_eq!(
            Round::deal(rules(decks), bets(allowed + 1), &mut shoe),
            Err(PlayError::TooManySpots { max: allowed })
        );
        assert_eq!(shoe, before, "nothing dealt");
        let three = TableRules { max_spots: 3, ..rules(decks) };
        assert_eq!(Round::check_bets(&three, &bets(4)), Err(PlayError::TooManySpots { max: 3 }));
        assert_eq!(Round::check_bets(&three, &bets(3)), Ok(()));
    }
}

#[test]
fn stacked_shoes_never_run_dry_at_the_most_spots() {
    for decks in [Decks::Six, Decks::Two] {
        let spots = max_spots_served(decks);
        let min = decks.min_cards_beside_cut();
        for (name, cards) in [("ascending", ascending(decks)), ("pairs first", pairs_then_ascending(decks))] {
            // From a fresh shoe: every card available to the round.
            let mut shoe = Shoe::stacked(decks, cards.clone(), min).unwrap();
            let mut round = Round::deal(rules(decks), bets(spots), &mut shoe).unwrap();
            let on_table =
                play_to_exhaustion(&mut round, &mut shoe).unwrap_or_else(|e| panic!("{decks:?} {name}: {e}"));
            assert!(on_table > decks.min_cards_beside_cut(), "{decks:?} {name}: only {on_table} cards");

            // Just before the cut card, with the fewest cards left behind it: the same low cards
            // come first and the round goes on into the reserve of discards.
            let mut order = cards.clone();
            order.rotate_left(min + 1);
            let mut shoe = Shoe::stacked(decks, order, cards.len() - min).unwrap();
            for _ in 0..cards.len() - min - 1 {
                shoe.draw().unwrap();
            }
            shoe.reserve_discards(&mut ChaCha20Rng::seed_from_u64(7));
            let mut round = Round::deal(rules(decks), bets(spots), &mut shoe).unwrap();
            let on_table = play_to_exhaustion(&mut round, &mut shoe)
                .unwrap_or_else(|e| panic!("{decks:?} {name} at the cut: {e}"));
            assert!(on_table > min + 1, "{decks:?} {name}: the reserve was not reached ({on_table} cards)");
            assert!(shoe.cut_card_reached());
        }
    }
}

#[test]
fn thousands_of_shoes_played_through_their_cut_card_never_run_dry() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for decks in [Decks::Six, Decks::Two] {
        let spots = max_spots_served(decks);
        // The cut card as deep as a player may place it: the fewest cards behind it.
        let deepest = decks.count() * 52 - decks.min_cards_beside_cut();
        let mut shoe = Shoe::shuffled(decks, deepest, &mut rng).unwrap();
        let mut from_reserve = 0;
        for _ in 0..20_000 {
            // What the service does before each round.
            if shoe.cut_card_reached() {
                shoe = Shoe::shuffled(decks, deepest, &mut rng).unwrap();
            } else {
                shoe.reserve_discards(&mut rng);
            }
            let left = shoe.remaining();
            let mut round = Round::deal(rules(decks), bets(rng.random_range(1..=spots)), &mut shoe).unwrap();
            let on_table = play_to_exhaustion(&mut round, &mut shoe).unwrap();
            from_reserve += usize::from(on_table > left);
            // No card is on the table twice.
            let mut seen = std::collections::HashMap::new();
            for card in round.spots.iter().flat_map(|s| &s.hands).flat_map(|h| &h.cards).chain(&round.dealer)
            {
                *seen.entry(*card).or_insert(0) += 1;
            }
            assert!(
                seen.values().all(|&n| n <= decks.count()),
                "a card dealt more often than the shoe holds it"
            );
        }
        assert!(from_reserve > 0, "{decks:?}: no round needed the reserve, so it went untested");
    }
}

#[test]
fn a_shoe_deals_its_discards_once_and_then_is_empty() {
    let mut shoe = Shoe::stacked(Decks::Two, ascending(Decks::Two), 26).unwrap();
    for _ in 0..104 {
        shoe.draw().unwrap();
    }
    shoe.reserve_discards(&mut ChaCha20Rng::seed_from_u64(3));
    for _ in 0..104 {
        shoe.draw().unwrap();
    }
    assert_eq!(shoe.draw(), Err(ShoeError::Empty));
}

/// A stored shoe keeps its cards as one string (a table's shoe is written with every deal and
/// decision), its reserve too, and reads back the same shoe; a shoe stored before, with its cards
/// as a list of strings, still reads.
#[test]
fn a_shoe_is_stored_with_its_cards_as_one_string_and_reads_either_form() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let mut shoe = Shoe::shuffled_default(Decks::Six, &mut rng);
    for _ in 0..20 {
        shoe.draw().unwrap();
    }
    shoe.reserve_discards(&mut rng);
    let stored = serde_json::to_value(&shoe).unwrap();
    let cards = stored["cards"].as_str().expect("the cards as one string").to_owned();
    assert_eq!(cards.split(' ').count(), 312);
    assert_eq!(stored["reserve"].as_str().unwrap().split(' ').count(), 20);
    assert_eq!(serde_json::from_value::<Shoe>(stored.clone()).unwrap(), shoe);

    let mut listed = stored;
    listed["cards"] = serde_json::json!(cards.split(' ').collect::<Vec<_>>());
    assert_eq!(serde_json::from_value::<Shoe>(listed.clone()).unwrap(), shoe, "the list form reads too");
    listed["cards"] = serde_json::json!("AS 1X");
    let refused = serde_json::from_value::<Shoe>(listed).unwrap_err().to_string();
    assert!(refused.contains("not a card"), "{refused}");
}
