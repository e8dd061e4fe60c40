//! One round of I Luv Suits as the tables play it: the wagers checked against the posted limits
//! (111-301-75), seven cards each for the player and the dealer from one freshly shuffled deck
//! (76(a), (b)), the player's decision checked (75(a)(2)), and every wager settled (76(i)).
//! The service deals with [`Deal::shuffled`] from its CSPRNG and settles with [`settle`]; the
//! simulations and the benchmark play the same functions.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::base_game::{self, Qualifier};
use super::{
    PROGRESSIVE_POT_PERCENT, ProgressivePrize, flush_rush_odds, longest_run, max_play_multiple,
    progressive_prize, super_flush_rush_odds,
};
use crate::cards::{Card, Rank, Suit};
use crate::money::dollars;

/// The limits posted at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ILuvSuitsTableRules))]
pub struct TableRules {
    pub min_ante_cents: i64,
    pub max_ante_cents: i64,
    /// Flush Rush and Super Flush Rush, each (75(a)(3)).
    pub min_side_cents: i64,
    pub max_side_cents: i64,
    /// The progressive wager's one posted amount (75(a)(4)).
    pub progressive_wager_cents: i64,
}

/// The wagers a player places before the deal (75(a)(1), (3), (4)); a side wager of 0 is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Wagers {
    pub ante_cents: i64,
    #[serde(default)]
    pub flush_rush_cents: i64,
    #[serde(default)]
    pub super_flush_rush_cents: i64,
    /// The progressive wager, at the posted amount.
    #[serde(default)]
    pub progressive: bool,
}

/// A wager or decision the rules refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WagerError {
    #[error("the ante must be {} to {} (111-301-75(a)(1))", dollars(*.min), dollars(*.max))]
    AnteOutOfRange { min: i64, max: i64 },
    #[error(
        "a Flush Rush or Super Flush Rush wager must be {} to {}, or none (111-301-75(a)(3))",
        dollars(*.min),
        dollars(*.max)
    )]
    SideOutOfRange { min: i64, max: i64 },
    #[error("the play wager may be at most {} with this hand (111-301-75(a)(2))", dollars(*.max))]
    PlayOverMultiple { max: i64 },
    #[error("the play wager is at least the ante, {} (111-301-75(a)(2))", dollars(*.ante))]
    PlayUnderAnte { ante: i64 },
}

impl Wagers {
    /// 75(a)(1), (3): the ante within the posted limits, each side wager within its own or none.
    pub fn check(&self, rules: &TableRules) -> Result<(), WagerError> {
        if !(rules.min_ante_cents..=rules.max_ante_cents).contains(&self.ante_cents) {
            return Err(WagerError::AnteOutOfRange { min: rules.min_ante_cents, max: rules.max_ante_cents });
        }
        for side in [self.flush_rush_cents, self.super_flush_rush_cents] {
            if side != 0 && !(rules.min_side_cents..=rules.max_side_cents).contains(&side) {
                return Err(WagerError::SideOutOfRange {
                    min: rules.min_side_cents,
                    max: rules.max_side_cents,
                });
            }
        }
        Ok(())
    }

    /// Everything staked before the deal.
    pub fn staked_at_deal(&self, rules: &TableRules) -> i64 {
        let progressive = if self.progressive { rules.progressive_wager_cents } else { 0 };
        [self.ante_cents, self.flush_rush_cents, self.super_flush_rush_cents, progressive]
            .into_iter()
            .fold(0i64, i64::saturating_add)
    }
}

/// The share of one progressive wager added to the pot (76(i)(5): 22%), in whole cents, rounded
/// down (the house keeps the fraction of a cent).
pub fn pot_contribution(wager_cents: i64) -> i64 {
    wager_cents.saturating_mul(PROGRESSIVE_POT_PERCENT).checked_div(100).unwrap_or(0)
}

/// The seven cards of the player and of the dealer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    pub player: [Card; 7],
    pub dealer: [Card; 7],
}

/// The card at `index` of a fresh deck (the order of [`Card::index`]).
fn card_of(index: u8) -> Card {
    let (suit, rank) = (index.checked_div(13).unwrap_or(0), index.checked_rem(13).unwrap_or(0));
    let suit = Suit::ALL.get(usize::from(suit)).copied().unwrap_or(Suit::Spades);
    Card::new(Rank::new(rank.saturating_add(1)).unwrap_or(Rank::ACE), suit)
}

/// Four suits' flush bits (bit 0 the 2 ... bit 12 the ace).
pub fn suit_bits(cards: &[Card]) -> [u16; 4] {
    let mut suits = [0u16; 4];
    for card in cards {
        let rank = card.rank.number();
        let bit = if rank == 1 { 12 } else { rank.saturating_sub(2) };
        if let Some(suit) = suits.get_mut(card.index().checked_div(13).unwrap_or(0)) {
            *suit |= 1 << bit;
        }
    }
    suits
}

impl Deal {
    /// 76(a), (b): one 52-card deck shuffled, seven cards to the player, then seven to the dealer
    /// (a partial Fisher-Yates shuffle: only the fourteen cards dealt are drawn).
    pub fn shuffled(rng: &mut impl Rng) -> Deal {
        let mut deck: [u8; 52] = std::array::from_fn(|i| u8::try_from(i).unwrap_or(0));
        for i in 0..14 {
            let j = rng.random_range(i..52);
            deck.swap(i, j);
        }
        let card = |i: usize| card_of(deck.get(i).copied().unwrap_or(0));
        Deal { player: std::array::from_fn(card), dealer: std::array::from_fn(|i| card(i.saturating_add(7))) }
    }
}

/// The player's decision after looking at the cards (75(a)(2)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "decision")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Choice {
    /// Forfeit the ante (side wagers still settle: 76(e), "qualifying cards for bonus wagers remain
    /// in play").
    Fold,
    /// Play against the dealer with this play wager.
    Play { play_cents: i64 },
}

/// The wire names (`decision`) of the choices that stake more: the play wager (111-301-75(a)(2)).
/// Folding never does, so a round can always be finished.
pub const STAKING_DECISIONS: [&str; 1] = ["play"];

/// The hands as the rules see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hands {
    pub player: [u16; 4],
    pub dealer: [u16; 4],
}

impl Hands {
    pub fn of(deal: &Deal) -> Hands {
        Hands { player: suit_bits(&deal.player), dealer: suit_bits(&deal.dealer) }
    }

    /// The player's best flush's length.
    pub fn player_flush_len(&self) -> usize {
        (base_game::best_key(&self.player) >> 13) as usize
    }
}

/// 75(a)(2): a play wager is the ante's amount below five cards of a suit; up to two times the
/// ante with five, three times with six or seven ("any amount up to": from the ante's amount,
/// [`base_game::PlayFloor::Ante`]).
pub fn check_play(hands: &Hands, ante_cents: i64, play_cents: i64) -> Result<(), WagerError> {
    let max = ante_cents.saturating_mul(i64::from(max_play_multiple(hands.player_flush_len())));
    if play_cents > max {
        return Err(WagerError::PlayOverMultiple { max });
    }
    if play_cents < ante_cents {
        return Err(WagerError::PlayUnderAnte { ante: ante_cents });
    }
    Ok(())
}

/// What each wager returned, stakes included (0 for a lost wager).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Returns {
    pub ante_cents: i64,
    pub play_cents: i64,
    pub flush_rush_cents: i64,
    pub super_flush_rush_cents: i64,
    /// The progressive's fixed prizes ("n for 1"); shares of the pot are in `pot_prize_cents`.
    pub progressive_cents: i64,
    /// Paid from the progressive pot (76(i)(6)).
    pub pot_prize_cents: i64,
    /// The pot paid in full: the house funds it again ([`crate::i_luv_suits::PROGRESSIVE_SEED_CENTS`]).
    pub top_prize: bool,
    /// The Flush Rush and Super Flush Rush winnings cut to 76(i)(4)'s maximum aggregate payout.
    pub capped: bool,
}

impl Returns {
    /// Everything paid back to the player.
    pub fn total(&self) -> i64 {
        [
            self.ante_cents,
            self.play_cents,
            self.flush_rush_cents,
            self.super_flush_rush_cents,
            self.progressive_cents,
            self.pot_prize_cents,
        ]
        .into_iter()
        .fold(0i64, i64::saturating_add)
    }
}

/// How the player's hand ended against the dealer's (76(i)(1)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Showdown {
    Folded,
    DealerDoesNotQualify,
    PlayerWins,
    Tie,
    DealerWins,
}

/// The showdown of a decided round, and what the ante and play wagers return (76(i)(1): both win
/// 1 to 1 against a qualifying dealer with a lower hand; against a dealer who does not qualify
/// the ante wins and the play wager ties; a fold returns nothing).
fn showdown(hands: &Hands, ante: i64, choice: Choice) -> (Showdown, i64, i64) {
    let doubled = |cents: i64| cents.saturating_mul(2);
    match choice {
        Choice::Fold => (Showdown::Folded, 0, 0),
        Choice::Play { play_cents } => {
            if !Qualifier::IMPLEMENTED.qualifies(&hands.dealer) {
                return (Showdown::DealerDoesNotQualify, doubled(ante), play_cents);
            }
            match base_game::best_key(&hands.player).cmp(&base_game::best_key(&hands.dealer)) {
                std::cmp::Ordering::Greater => (Showdown::PlayerWins, doubled(ante), doubled(play_cents)),
                std::cmp::Ordering::Equal => (Showdown::Tie, ante, play_cents),
                std::cmp::Ordering::Less => (Showdown::DealerWins, 0, 0),
            }
        }
    }
}

/// Settles every wager of a dealt round (76(i)); `pot_cents` is the meter at the deal.
pub fn settle(
    rules: &TableRules,
    wagers: &Wagers,
    deal: &Deal,
    choice: Choice,
    pot_cents: i64,
) -> (Showdown, Returns) {
    let hands = Hands::of(deal);
    let mut returns = Returns::default();
    let (showdown, ante_back, play_back) = showdown(&hands, wagers.ante_cents, choice);
    (returns.ante_cents, returns.play_cents) = (ante_back, play_back);
    // The side wagers stand against their pay tables whatever the player decided.
    let flush_len = hands.player_flush_len();
    let run = hands.player.iter().map(|&s| longest_run(ace_low(s))).max().unwrap_or_default();
    let flush_rush_win =
        flush_rush_odds(flush_len).map_or(0, |odds| wagers.flush_rush_cents.saturating_mul(i64::from(odds)));
    let super_win = super_flush_rush_odds(run)
        .map_or(0, |odds| wagers.super_flush_rush_cents.saturating_mul(i64::from(odds)));
    // 76(i)(4): the most a hand's Flush Rush and Super Flush Rush may win together is the posted
    // maximum wager times the highest posted odds (500 to 1).
    let cap = rules.max_side_cents.saturating_mul(500);
    let (flush_rush_win, super_win) = if flush_rush_win.saturating_add(super_win) > cap {
        returns.capped = true;
        let flush_rush_part = flush_rush_win.min(cap);
        (flush_rush_part, cap.saturating_sub(flush_rush_part))
    } else {
        (flush_rush_win, super_win)
    };
    let paid = |stake: i64, win: i64| if win > 0 { stake.saturating_add(win) } else { 0 };
    returns.flush_rush_cents = paid(wagers.flush_rush_cents, flush_rush_win);
    returns.super_flush_rush_cents = paid(wagers.super_flush_rush_cents, super_win);
    if wagers.progressive {
        match progressive_prize(run) {
            Some(ProgressivePrize::ForOne(n)) => {
                returns.progressive_cents = rules.progressive_wager_cents.saturating_mul(i64::from(n));
            }
            Some(ProgressivePrize::PotPercent(percent)) => {
                // 76(i)(5): paid on the meter at the time; a share rounded up to the cent.
                returns.pot_prize_cents = pot_cents
                    .saturating_mul(i64::from(percent))
                    .saturating_add(99)
                    .checked_div(100)
                    .unwrap_or(0);
                returns.top_prize = percent == 100;
            }
            None => {}
        }
    }
    (showdown, returns)
}

/// Flush bits back to the ace-low bits [`longest_run`] reads.
fn ace_low(flush_bits: u16) -> u16 {
    ((flush_bits << 1) & 0x1FFE) | ((flush_bits >> 12) & 1)
}
