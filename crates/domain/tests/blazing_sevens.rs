//! The Blazing 7's in the long run (issue 16): the exact return counting the pot's 24% and the
//! house's re-seeding, checked against a seeded simulation of the pot itself, and the wager
//! refused where its pot cannot be won.

// Tests stop at the first surprise.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use domain::blackjack::round::{PlayError, Round, SpotBet, TableRules};
use domain::blackjack::side_math::{self, Composition};
use domain::blackjack::side_wagers::{BLAZING_SEVENS_POT_PERCENT, BLAZING_SEVENS_SEED_CENTS, SevensPrize};
use domain::cards::{Card, Decks};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn the_long_run_return_adds_the_contribution_and_the_reseeding_to_the_fixed_prizes() {
    let shoe = Composition::full(Decks::Six);
    let at_seed = side_math::blazing_sevens(&shoe, BLAZING_SEVENS_SEED_CENTS, 100).return_to_player;
    let at_empty = side_math::blazing_sevens(&shoe, 0, 100).return_to_player;
    let long_run =
        side_math::blazing_sevens_long_run(&shoe, BLAZING_SEVENS_SEED_CENTS, 100, BLAZING_SEVENS_POT_PERCENT);
    // By hand: P(three 7's of diamonds) = 6·5·4 / (312·311·310); the seed is 10,000 wagers.
    let p_top = 120.0 / (312.0 * 311.0 * 310.0);
    let expected = at_empty.to_f64() + 0.24 + p_top * 10_000.0;
    assert!((long_run.to_f64() - expected).abs() < 1e-12, "{long_run} vs {expected}");
    println!(
        "Blazing 7's, six decks, $1: {:.6} at the $10,000 seed, {:.6} in the long run, {:.6} from the fixed prizes alone",
        at_seed.to_f64(),
        long_run.to_f64(),
        at_empty.to_f64()
    );
    assert!(long_run.to_f64() > at_seed.to_f64() && long_run.to_f64() < 1.0, "the house keeps an edge");
}

#[test]
fn a_seeded_simulation_of_the_pot_agrees_with_the_long_run_return() {
    let shoe: Vec<Card> = (0..6).flat_map(|_| Card::deck()).collect();
    let exact = side_math::blazing_sevens_long_run(
        &Composition::full(Decks::Six),
        BLAZING_SEVENS_SEED_CENTS,
        100,
        BLAZING_SEVENS_POT_PERCENT,
    )
    .to_f64();
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let wagers = 20_000_000u64;
    let (mut pot, mut paid, mut tops) = (BLAZING_SEVENS_SEED_CENTS, 0i64, 0u32);
    for _ in 0..wagers {
        // A fresh shoe each deal: the player's two cards and the dealer's up card.
        let a = rng.random_range(0..shoe.len());
        let mut b = rng.random_range(0..shoe.len() - 1);
        if b >= a {
            b += 1;
        }
        let mut c = rng.random_range(0..shoe.len() - 2);
        for taken in [a.min(b), a.max(b)] {
            if c >= taken {
                c += 1;
            }
        }
        pot += domain::blackjack::side_wagers::pot_contribution(100);
        match SevensPrize::of([shoe[a], shoe[b]], shoe[c]) {
            Some(SevensPrize::ThreeDiamondSevens) => {
                paid += pot;
                pot = BLAZING_SEVENS_SEED_CENTS;
                tops += 1;
            }
            Some(SevensPrize::ThreeSuitedSevens) => {
                let prize = pot / 10;
                paid += prize;
                pot -= prize;
            }
            Some(prize) => paid += i64::from(prize.for_one().unwrap()) * 100,
            None => {}
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let simulated = paid as f64 / (wagers as f64 * 100.0);
    println!("{wagers} wagers, {tops} top prizes: simulated {simulated:.4}, exact {exact:.4}");
    // The top prize dominates the spread (about 80 of them here, each worth some 60,000 wagers):
    // the simulation's standard error is near 0.03. Leaving out the 24% (0.24) or counting it
    // twice would fail; the seed's share (0.04) is within the noise, and checked exactly above.
    assert!((simulated - exact).abs() < 0.12, "simulated {simulated}, exact {exact}");
}

#[test]
fn the_wager_is_refused_where_its_pot_cannot_be_won() {
    let two_decks = TableRules {
        decks: Decks::Two,
        min_wager_cents: 100,
        max_wager_cents: 10_000,
        progressive_wager_cents: 100,
        max_spots: 7,
    };
    let bet = SpotBet { wager: 500, blazing_7s: true, ..SpotBet::default() };
    assert_eq!(
        Round::check_bets(&two_decks, std::slice::from_ref(&bet)),
        Err(PlayError::BlazingSevensNeedSixDecks)
    );
    let six_decks = TableRules { decks: Decks::Six, ..two_decks };
    assert_eq!(Round::check_bets(&six_decks, &[bet]), Ok(()));
    // At two decks no pot prize can be won at all: three of one card.
    let two = side_math::blazing_sevens(&Composition::full(Decks::Two), 1_000_000, 100);
    assert_eq!((two.outcomes[0].ways, two.outcomes[1].ways), (0, 0));
}
