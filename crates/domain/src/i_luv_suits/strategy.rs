//! The decisions the tables' players are advised, and the simulations take: the best one for
//! every hand, read from the generated figures' bounds with the exact count in between
//! ([`optimal_decision`]), and the simple one-threshold rule ([`simple_decision`]). Apart from
//! [`super::base_game`] because they read the figures generated from it.

use super::base_game::{
    ALL_RANKS_BITS, BASE_GAME_FIGURES_IMPLEMENTED, Decision, PlayFloor, Qualifier, best_decision, best_key,
    dealer_outcomes,
};

const RANKS: u32 = 13;

/// The best decision for a player hand (four suits' flush bits) under the implemented readings,
/// in multiples of the ante: fold two-card flushes; play every flush of four or more cards at
/// the most allowed; a three-card flush plays from J-3-2 up and folds from 9-8-4 down, and
/// between them (9-8-5 to T-9-8) the other four cards decide, as the dealer's hands counted
/// against them say ([`dealer_outcomes`]). The generated figures hold the bounds; a test checks
/// this rule takes the decisions the whole count took.
pub fn optimal_decision(player: &[u16; 4]) -> Decision {
    let figures = &super::base_game_value::BASE_GAME_FIGURES[BASE_GAME_FIGURES_IMPLEMENTED];
    let ours = best_key(player);
    let ranks = u16::try_from(ours & u32::from(ALL_RANKS_BITS)).unwrap_or(0);
    match ours >> RANKS {
        0..=2 => Decision::Fold,
        3 if ranks <= figures.three_card_always_folds_to => Decision::Fold,
        3 if ranks >= figures.three_card_always_plays_from => Decision::Play(1),
        3 => best_decision(&dealer_outcomes(player, 7, Qualifier::IMPLEMENTED), 3, PlayFloor::Ante).0,
        len => Decision::Play(u32::from(super::max_play_multiple(len as usize))),
    }
}

/// The simple rule: as [`optimal_decision`], but a three-card flush plays from the generated
/// figures' best single threshold up (T-7-6) whatever the other cards.
pub fn simple_decision(player: &[u16; 4]) -> Decision {
    let figures = &super::base_game_value::BASE_GAME_FIGURES[BASE_GAME_FIGURES_IMPLEMENTED];
    let ours = best_key(player);
    let ranks = u16::try_from(ours & u32::from(ALL_RANKS_BITS)).unwrap_or(0);
    match ours >> RANKS {
        0..=2 => Decision::Fold,
        3 if ranks >= figures.simple_threshold => Decision::Play(1),
        3 => Decision::Fold,
        len => Decision::Play(u32::from(super::max_play_multiple(len as usize))),
    }
}
