//! An I Luv Suits round as the tables play it (K.A.R. 111-301-75, -76): the wagers' and the play's
//! limits, the settlement of every wager, and seeded rounds through the same engine agreeing with
//! the exact figures (the base game under the best decisions, the side wagers, the progressive).

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

use domain::cards::Card;
use domain::i_luv_suits::base_game::Decision;
use domain::i_luv_suits::base_game_value::BASE_GAME_FIGURES;
use domain::i_luv_suits::math::seven_card_counts;
use domain::i_luv_suits::round::{
    Choice, Deal, Hands, Showdown, TableRules, WagerError, Wagers, check_play, pot_contribution, settle,
};
use domain::i_luv_suits::strategy::{optimal_decision, simple_decision};
use domain::i_luv_suits::{PROGRESSIVE_SEED_CENTS, max_play_multiple};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const RULES: TableRules = TableRules {
    min_ante_cents: 500,
    max_ante_cents: 50_000,
    min_side_cents: 100,
    max_side_cents: 10_000,
    progressive_wager_cents: 500,
};

fn deal(player: &str, dealer: &str) -> Deal {
    let cards = |text: &str| -> [Card; 7] {
        let v: Vec<Card> = text.split_whitespace().map(|c| c.parse().unwrap()).collect();
        v.try_into().unwrap()
    };
    Deal { player: cards(player), dealer: cards(dealer) }
}

fn wagers(ante: i64, flush_rush: i64, super_rush: i64, progressive: bool) -> Wagers {
    Wagers { ante_cents: ante, flush_rush_cents: flush_rush, super_flush_rush_cents: super_rush, progressive }
}

#[test]
fn wagers_and_the_play_keep_to_the_posted_limits_and_the_flush_multiples() {
    assert!(wagers(500, 0, 0, false).check(&RULES).is_ok());
    assert_eq!(
        wagers(400, 0, 0, false).check(&RULES),
        Err(WagerError::AnteOutOfRange { min: 500, max: 50_000 })
    );
    assert_eq!(
        wagers(500, 50, 0, false).check(&RULES),
        Err(WagerError::SideOutOfRange { min: 100, max: 10_000 })
    );
    assert_eq!(wagers(500, 100, 200, true).staked_at_deal(&RULES), 1_300);
    // 75(a)(2): the ante's amount below five of a suit, up to 2x with five, 3x with six or seven.
    let four = Hands::of(&deal("2H 5H 9H KH 3S 4C 6D", "2S 3S 4S 5C 6C 7C 8D"));
    assert_eq!(check_play(&four, 500, 500), Ok(()));
    assert_eq!(check_play(&four, 500, 1_000), Err(WagerError::PlayOverMultiple { max: 500 }));
    assert_eq!(check_play(&four, 500, 400), Err(WagerError::PlayUnderAnte { ante: 500 }));
    let five = Hands::of(&deal("2H 5H 9H KH AH 4C 6D", "2S 3S 4S 5C 6C 7C 8D"));
    assert_eq!(check_play(&five, 500, 1_000), Ok(()));
    assert_eq!(check_play(&five, 500, 1_500), Err(WagerError::PlayOverMultiple { max: 1_000 }));
    let six = Hands::of(&deal("2H 5H 9H KH AH 3H 6D", "2S 3S 4S 5C 6C 7C 8D"));
    assert_eq!(check_play(&six, 500, 1_500), Ok(()));
    assert_eq!(max_play_multiple(six.player_flush_len()), 3);
    // 76(i)(5): 22% of a progressive wager goes to the pot.
    assert_eq!(pot_contribution(500), 110);
}

#[test]
fn the_showdown_pays_one_to_one_and_a_dealer_without_a_nine_high_three_flush_pushes_the_play() {
    let w = wagers(500, 0, 0, false);
    let play = Choice::Play { play_cents: 500 };
    // Dealer 8-high flushes only: the ante wins, the play is a tie.
    let (showdown, r) =
        settle(&RULES, &w, &deal("2H 3H 4H 6S 7C 9D JD", "8S 7S 6S 2C 3C 5D 4D"), play, PROVISIONAL_POT);
    assert_eq!((showdown, r.ante_cents, r.play_cents), (Showdown::DealerDoesNotQualify, 1_000, 500));
    // A qualifying dealer, a longer player flush: both win.
    let (showdown, r) =
        settle(&RULES, &w, &deal("2H 3H 4H 6H 7C 9D JD", "KS 7S 6S 2C 3C 5D 4D"), play, PROVISIONAL_POT);
    assert_eq!((showdown, r.ante_cents, r.play_cents), (Showdown::PlayerWins, 1_000, 1_000));
    // As long, card by card: the dealer's K-7-6 beats the player's K-7-5.
    let (showdown, r) =
        settle(&RULES, &w, &deal("KH 7H 5H 2S 3C 9D JD", "KS 7S 6S 2C 3C 5D 4D"), play, PROVISIONAL_POT);
    assert_eq!((showdown, r.total()), (Showdown::DealerWins, 0));
    // The same ranks: both wagers returned (74(d)).
    let (showdown, r) =
        settle(&RULES, &w, &deal("KH 7H 6H 2S 3C 9D JD", "KS 7S 6S 2C 4C 5D 4H"), play, PROVISIONAL_POT);
    assert_eq!((showdown, r.ante_cents, r.play_cents), (Showdown::Tie, 500, 500));
    // Folding forfeits the ante (75(a)(2)) and nothing else.
    let (showdown, r) =
        settle(&RULES, &w, &deal("KH 7H 6H 2S 3C 9D JD", "KS 7S 6S 2C 4C 5D 4H"), Choice::Fold, 0);
    assert_eq!((showdown, r.total()), (Showdown::Folded, 0));
}

/// The meter used where it does not matter.
const PROVISIONAL_POT: i64 = PROGRESSIVE_SEED_CENTS;

#[test]
fn the_side_wagers_and_the_progressive_pay_by_their_tables_even_after_a_fold() {
    let w = wagers(500, 100, 100, true);
    // A five-card flush holding a four-card straight flush: Flush Rush 10 to 1, Super Flush Rush
    // 75 to 1, the progressive 50 for 1; after a fold too ("qualifying cards for bonus wagers
    // remain in play", 76(e)).
    let (_, r) = settle(&RULES, &w, &deal("5H 6H 7H 8H KH 2C 3D", "KS 7S 6S 2S 3C 5D 4D"), Choice::Fold, 0);
    assert_eq!((r.flush_rush_cents, r.super_flush_rush_cents, r.progressive_cents), (1_100, 7_600, 25_000));
    assert_eq!(r.ante_cents, 0);
    // Six in a row without an ace: 10% of the meter, rounded up to the cent; with an ace: all of
    // it, and the house funds the pot again.
    let (_, r) =
        settle(&RULES, &w, &deal("4H 5H 6H 7H 8H 9H 2C", "KS 7S 6S 2S 3C 5D 4D"), Choice::Fold, 123_457);
    assert_eq!((r.pot_prize_cents, r.top_prize), (12_346, false));
    let (_, r) =
        settle(&RULES, &w, &deal("AH 2H 3H 4H 5H 6H 9C", "KS 7S 6S 2S 3C 5D 4D"), Choice::Fold, 123_457);
    assert_eq!((r.pot_prize_cents, r.top_prize, r.progressive_cents), (123_457, true, 0));
    // 76(i)(4): a seven-card straight flush with both at the posted maximum would win
    // 300 + 500 times the wager; the hand's aggregate is held to 500 times the maximum wager.
    let max = wagers(500, 10_000, 10_000, false);
    let (_, r) =
        settle(&RULES, &max, &deal("8H 9H 10H JH QH KH AH", "KS 7S 6S 2S 3C 5D 4D"), Choice::Fold, 0);
    assert!(r.capped);
    assert_eq!(r.flush_rush_cents + r.super_flush_rush_cents, 10_000 + 10_000 + 500 * 10_000);
}

#[test]
fn the_stated_decisions_are_the_ones_the_whole_count_took() {
    let figures = &BASE_GAME_FIGURES[0];
    for &(len, decision, _) in figures.decisions {
        match len {
            0..=2 => assert_eq!(decision, Decision::Fold),
            3 => {}
            _ => assert_eq!(decision, Decision::Play(u32::from(max_play_multiple(len as usize)))),
        }
    }
    let hands: u128 = figures.decisions.iter().map(|d| d.2).sum();
    assert_eq!(hands, figures.hands);
    // The three-card band, both ends (9-8-4 folds, J-3-2 plays), whatever the other cards.
    for player in ["9H 8H 4H 2S 3C 5D 7D", "9H 8H 4H AS KC QD JS"] {
        assert_eq!(
            optimal_decision(&Hands::of(&deal(player, "2S 3S 4S 5C 6C 7C 8D")).player),
            Decision::Fold
        );
    }
    for player in ["JH 3H 2H 2S 3C 5D 7D", "JH 3H 2H AS KC QD JS"] {
        assert_eq!(
            optimal_decision(&Hands::of(&deal(player, "2S 3S 4S 5C 6C 7C 8D")).player),
            Decision::Play(1)
        );
    }
    let per_ante = figures.edge_per_ante().to_f64();
    let simple = figures.simple_edge_per_ante().to_f64();
    println!(
        "base game: {:.6}% per ante, {:.6}% per unit wagered; simple rule {:.6}% per ante",
        per_ante * 100.0,
        figures.edge_per_wager().to_f64() * 100.0,
        simple * 100.0
    );
    assert!(per_ante > 0.0 && per_ante < simple, "the best decisions lose least");
}

#[test]
fn seeded_rounds_through_the_engine_agree_with_the_exact_figures() {
    let rounds = 1_000_000u32;
    let mut rng = ChaCha8Rng::seed_from_u64(11_130_176);
    let w = wagers(100, 100, 100, true);
    let rules = TableRules { progressive_wager_cents: 100, ..RULES };
    // Per round, in antes: the base game (best decisions and the simple rule), and each side
    // wager's return and the progressive's fixed prizes, with their squares for the spread.
    let mut sums = [[0f64; 2]; 5];
    for _ in 0..rounds {
        let deal = Deal::shuffled(&mut rng);
        let hands = Hands::of(&deal);
        let mut results = [0f64; 5];
        for (i, decision) in
            [optimal_decision(&hands.player), simple_decision(&hands.player)].into_iter().enumerate()
        {
            let choice = match decision {
                Decision::Fold => Choice::Fold,
                Decision::Play(m) => Choice::Play { play_cents: 100 * i64::from(m) },
            };
            let (_, r) = settle(&rules, &w, &deal, choice, 0);
            let staked = match choice {
                Choice::Fold => 100,
                Choice::Play { play_cents } => 100 + play_cents,
            };
            results[i] = (r.ante_cents + r.play_cents - staked) as f64 / 100.0;
            results[2] = r.flush_rush_cents as f64 / 100.0;
            results[3] = r.super_flush_rush_cents as f64 / 100.0;
            results[4] = r.progressive_cents as f64 / 100.0;
        }
        for (sum, x) in sums.iter_mut().zip(results) {
            sum[0] += x;
            sum[1] += x * x;
        }
    }
    let figures = &BASE_GAME_FIGURES[0];
    let counts = seven_card_counts();
    let exact = [
        -figures.edge_per_ante().to_f64(),
        -figures.simple_edge_per_ante().to_f64(),
        counts.flush_rush_return().to_f64(),
        counts.super_flush_rush_return().to_f64(),
        counts.progressive_return_at(0, 100).to_f64(),
    ];
    let n = f64::from(rounds);
    for (name, (sum, exact)) in
        ["base game, best", "base game, simple", "Flush Rush", "Super Flush Rush", "progressive (fixed)"]
            .iter()
            .zip(sums.iter().zip(exact))
    {
        let mean = sum[0] / n;
        let sd = ((sum[1] / n - mean * mean) / n).sqrt();
        println!("{name}: simulated {mean:.5} ± {:.5} (95%), exact {exact:.5}", 1.96 * sd);
        assert!((mean - exact).abs() < 4.0 * sd, "{name}: {mean} against {exact} (sd {sd})");
    }
}
