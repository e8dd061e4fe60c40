//! One round of blackjack, K.A.R. 111-301-5 and -6, as a state machine the table-games service
//! keeps between calls: the deal, the side wagers, insurance and even money, each hand's decisions,
//! the dealer's hand, and the settlement of every wager in cents.
//!
//! The regulation's dealer takes a hole card but looks at it only when it says so
//! (111-301-6(g)): after insurance when the ace is up, or when the ten is up and a player has a
//! blackjack. Otherwise players decide first and a dealer blackjack shows at the end; then a
//! player who doubled loses only the original wager (111-301-6(g)(3)). The text is silent on split
//! hands in that case; here they are treated alike: **against a dealer blackjack found after the
//! players' decisions, a spot loses only its original wager**, and the wagers added by splitting
//! and doubling are returned. (The same "original bets only" rule the regulation writes for
//! doubling; the alternative, losing every split hand, would punish a decision the dealer's
//! closed hole card induced.)
//!
//! The shoe is not part of the round: the service keeps it, and passes it in to deal and draw.

use serde::{Deserialize, Serialize};

pub use super::action::{Action, STAKING_ACTIONS};
use super::side_wagers::{self, SevensPrize};
use super::{Odds, Total, dealer_must_draw, is_blackjack};
use crate::cards::{Card, Decks, Rank, Shoe, ShoeError};

/// What a player stakes on one spot before the first card (K.A.R. 111-301-5(a), (c)).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SpotBet {
    /// The wager against the dealer, in cents.
    pub wager: i64,
    /// 21+3 / TriLux (111-301-5(k)), 0 for none.
    #[serde(default)]
    pub trilux: i64,
    /// TriLux Super 3 (111-301-5(l)), 0 for none.
    #[serde(default)]
    pub super_3: i64,
    /// Royal Match 21 (111-301-5(m)), six decks only; 0 for none.
    #[serde(default)]
    pub royal_match: i64,
    /// The Blazing 7's progressive (111-301-5(j)) at the table's posted amount.
    #[serde(default)]
    pub blazing_7s: bool,
}

/// A table's limits, posted at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TableRules {
    pub decks: Decks,
    pub min_wager_cents: i64,
    pub max_wager_cents: i64,
    /// 111-301-5(j)(2): "The dollar amount required for the Blazing 7's Progressive side wager
    /// shall be posted at the gaming table."
    pub progressive_wager_cents: i64,
    /// The most spots one round may play; never more than the shoe always serves
    /// ([`super::max_spots_served`]). Tables opened before the setting existed have seven.
    #[serde(default = "seven_spots")]
    pub max_spots: usize,
}

fn seven_spots() -> usize {
    super::SPOTS_AT_A_TABLE
}

impl TableRules {
    /// The spots a round at this table may play.
    pub fn spots_allowed(&self) -> usize {
        self.max_spots.min(super::max_spots_served(self.decks))
    }
}

/// A move the rules refuse, with the paragraph that refuses it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("wagers are whole dollars from {} to {}", crate::money::dollars(*.min), crate::money::dollars(*.max))]
    WagerOutOfRange { min: i64, max: i64 },
    #[error("Royal Match 21 is offered only at six-deck tables (K.A.R. 111-301-5(m))")]
    RoyalMatchNeedsSixDecks,
    #[error("the Blazing 7's is offered only at six-deck tables, where its pot can be won")]
    BlazingSevensNeedSixDecks,
    #[error("a round needs at least one spot with a wager")]
    NoSpots,
    #[error("this table plays at most {max} spots a round")]
    TooManySpots { max: usize },
    #[error("it is not the time for that: {0}")]
    OutOfTurn(&'static str),
    #[error("no such spot")]
    NoSuchSpot,
    #[error("{0}")]
    NotAllowed(&'static str),
    #[error(transparent)]
    Shoe(#[from] ShoeError),
}

/// One hand of a spot (a spot holds more than one after splits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Hand {
    /// Each card as rank and suit: `10S`, `AH`, `QD`.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub cards: Vec<Card>,
    /// The wager on this hand: the spot's wager, for the first hand and each split hand alike.
    pub wager: i64,
    /// What doubling down added.
    pub doubled: i64,
    pub from_split: bool,
    pub split_aces: bool,
    /// No more decisions on this hand.
    pub finished: bool,
}

impl Hand {
    pub fn total(&self) -> Total {
        Total::of(&self.cards)
    }

    pub fn is_blackjack(&self) -> bool {
        is_blackjack(&self.cards, self.from_split)
    }
}

/// What each side wager on a spot came to, in cents returned (stake included; 0 when lost).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SideResults {
    pub trilux: i64,
    pub super_3: i64,
    pub royal_match: i64,
    /// The Blazing 7's prize won, if any; its amount is settled by the service against the pot.
    pub sevens: Option<SevensPrize>,
    /// The fixed-odds part of a Blazing 7's prize ("n for 1"), in cents.
    pub sevens_fixed: i64,
}

/// A spot: its bets, its hands and what it decided about insurance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Spot {
    pub bet: SpotBet,
    pub hands: Vec<Hand>,
    /// Insurance staked (111-301-6(g)(2)); `None` until decided or when not offered.
    pub insurance: Option<i64>,
    /// Took even money on a blackjack against an ace: paid 1 to 1 at once, hand removed.
    pub even_money: bool,
    pub sides: SideResults,
    /// What the spot gets back when the round is settled, in cents (stakes included).
    pub returned: Option<i64>,
}

impl Spot {
    /// Everything staked on this spot so far, in cents.
    pub fn staked(&self, rules: &TableRules) -> i64 {
        let hands: i64 = self.hands.iter().map(|h| h.wager.saturating_add(h.doubled)).sum();
        let progressive = if self.bet.blazing_7s { rules.progressive_wager_cents } else { 0 };
        hands
            .saturating_add(self.bet.trilux)
            .saturating_add(self.bet.super_3)
            .saturating_add(self.bet.royal_match)
            .saturating_add(progressive)
            .saturating_add(self.insurance.unwrap_or(0))
    }
}

/// Where the round stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The dealer shows an ace: each spot takes insurance (or even money) or declines.
    Insurance,
    /// A player decides on the hand `turn` names.
    PlayerTurn,
    /// Every wager is settled.
    Settled,
}

/// A round in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Round {
    pub rules: TableRules,
    /// The dealer's cards: the up card first, then the hole card, then any drawn (`9H`).
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub dealer: Vec<Card>,
    pub spots: Vec<Spot>,
    pub phase: Phase,
    /// (spot, hand) whose decision is awaited, as `[spot, hand]`.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<usize>>))]
    pub turn: Option<(usize, usize)>,
    /// True once the hole card is shown.
    pub hole_shown: bool,
}

fn whole_dollars(cents: i64) -> bool {
    cents % 100 == 0
}

impl Round {
    /// Checks the bets and deals (111-301-6(b)): a card up to each spot, one to the dealer, a
    /// second to each spot, the dealer's second; the dealer's first card is the up card. Then the
    /// side wagers are resolved (111-301-6(c)) and the round moves to insurance or to the first
    /// decision, settling at once when the dealer's blackjack ends it.
    pub fn deal(rules: TableRules, bets: Vec<SpotBet>, shoe: &mut Shoe) -> Result<Round, PlayError> {
        Round::check_bets(&rules, &bets)?;
        let mut first = Vec::with_capacity(bets.len());
        for _ in &bets {
            first.push(shoe.draw()?);
        }
        let dealer_first = shoe.draw()?;
        let mut spots = Vec::with_capacity(bets.len());
        for (bet, card) in bets.into_iter().zip(first) {
            let hand = Hand {
                cards: vec![card, shoe.draw()?],
                wager: bet.wager,
                doubled: 0,
                from_split: false,
                split_aces: false,
                finished: false,
            };
            spots.push(Spot {
                bet,
                hands: vec![hand],
                insurance: None,
                even_money: false,
                sides: SideResults::default(),
                returned: None,
            });
        }
        let dealer = vec![dealer_first, shoe.draw()?];
        let mut round =
            Round { rules, dealer, spots, phase: Phase::PlayerTurn, turn: None, hole_shown: false };
        round.resolve_side_wagers();
        let up = round.up_card();
        if up.rank == Rank::ACE {
            round.phase = Phase::Insurance;
        } else if up.rank.points() == 10 && round.spots.iter().any(|s| s.hands.iter().any(Hand::is_blackjack))
        {
            // 111-301-6(g)(1): with a ten up and a player's blackjack, the dealer checks.
            if round.dealer_has_blackjack() {
                round.hole_shown = true;
                round.settle();
                return Ok(round);
            }
            round.start_play(shoe)?;
        } else {
            round.start_play(shoe)?;
        }
        Ok(round)
    }

    /// The bets' limits (whole dollars within the table's range; side wagers optional; Royal
    /// Match 21 and the Blazing 7's at six decks only), checked before any money or card moves.
    pub fn check_bets(rules: &TableRules, bets: &[SpotBet]) -> Result<(), PlayError> {
        if bets.is_empty() {
            return Err(PlayError::NoSpots);
        }
        if bets.len() > rules.spots_allowed() {
            return Err(PlayError::TooManySpots { max: rules.spots_allowed() });
        }
        let range = WagerRange { min: rules.min_wager_cents, max: rules.max_wager_cents };
        for bet in bets {
            range.check(bet.wager, true)?;
            for side in [bet.trilux, bet.super_3, bet.royal_match] {
                range.check(side, false)?;
            }
            if bet.royal_match > 0 && rules.decks != Decks::Six {
                return Err(PlayError::RoyalMatchNeedsSixDecks);
            }
            // Two decks cannot make its pot prizes (5(j)(5)), yet it would feed the pot: ADR 0004.
            if bet.blazing_7s && rules.decks != Decks::Six {
                return Err(PlayError::BlazingSevensNeedSixDecks);
            }
        }
        Ok(())
    }

    /// What the spots stake at the deal, in cents: wagers, side wagers and progressive wagers.
    pub fn stake_at_deal(rules: &TableRules, bets: &[SpotBet]) -> i64 {
        bets.iter()
            .map(|b| {
                let progressive = if b.blazing_7s { rules.progressive_wager_cents } else { 0 };
                b.wager
                    .saturating_add(b.trilux)
                    .saturating_add(b.super_3)
                    .saturating_add(b.royal_match)
                    .saturating_add(progressive)
            })
            .sum()
    }

    pub fn up_card(&self) -> Card {
        self.dealer.first().copied().unwrap_or(Card::new(Rank::ACE, crate::cards::Suit::Spades))
    }

    fn dealer_has_blackjack(&self) -> bool {
        is_blackjack(self.dealer.get(..2).unwrap_or(&[]), false)
    }

    /// The side wagers, from each spot's first two cards and the up card.
    fn resolve_side_wagers(&mut self) {
        let up = self.up_card();
        let progressive = self.rules.progressive_wager_cents;
        for spot in &mut self.spots {
            let Some(hand) = spot.hands.first() else { continue };
            let Ok(player): Result<[Card; 2], _> = hand.cards.clone().try_into() else { continue };
            let pays = |stake: i64, odds: Option<Odds>| match odds {
                Some(odds) if stake > 0 => stake.saturating_add(odds.winnings(stake)),
                _ => 0,
            };
            spot.sides.trilux = pays(spot.bet.trilux, side_wagers::trilux(player, up));
            spot.sides.super_3 = pays(spot.bet.super_3, side_wagers::trilux_super_3(player, up));
            spot.sides.royal_match = pays(spot.bet.royal_match, side_wagers::royal_match(player));
            if spot.bet.blazing_7s {
                spot.sides.sevens = SevensPrize::of(player, up);
                spot.sides.sevens_fixed = spot
                    .sides
                    .sevens
                    .and_then(SevensPrize::for_one)
                    .map_or(0, |x| progressive.saturating_mul(i64::from(x)));
            }
        }
    }

    /// Applies a decision. Insurance decisions name their spot; the others act on `turn`.
    pub fn act(&mut self, action: Action, shoe: &mut Shoe) -> Result<(), PlayError> {
        match action {
            Action::Insurance { spot, amount } => self.decide_insurance(spot, Some(amount), false, shoe),
            Action::DeclineInsurance { spot } => self.decide_insurance(spot, None, false, shoe),
            Action::EvenMoney { spot } => self.decide_insurance(spot, None, true, shoe),
            Action::Hit | Action::Stand | Action::Double { .. } | Action::Split => {
                self.decide_hand(action, shoe)
            }
        }
    }

    fn decide_insurance(
        &mut self,
        index: usize,
        amount: Option<i64>,
        even_money: bool,
        shoe: &mut Shoe,
    ) -> Result<(), PlayError> {
        if self.phase != Phase::Insurance {
            return Err(PlayError::OutOfTurn("insurance is offered only when the dealer shows an ace"));
        }
        let spot = self.spots.get_mut(index).ok_or(PlayError::NoSuchSpot)?;
        if spot.insurance.is_some() || spot.even_money {
            return Err(PlayError::NotAllowed("this spot has already decided about insurance"));
        }
        let has_blackjack = spot.hands.first().is_some_and(Hand::is_blackjack);
        if even_money {
            // 111-301-6(g)(2): offered to a player with a blackjack instead of insurance.
            if !has_blackjack {
                return Err(PlayError::NotAllowed("even money is offered only on a blackjack"));
            }
            spot.even_money = true;
            spot.insurance = Some(0);
        } else {
            let amount = amount.unwrap_or(0);
            // "not more than half the amount staked on the player's initial wager".
            let half = spot.bet.wager.saturating_add(1) / 2;
            if amount < 0 || amount > half {
                return Err(PlayError::NotAllowed("insurance is at most half the wager"));
            }
            spot.insurance = Some(amount);
        }
        if self.spots.iter().all(|s| s.insurance.is_some()) {
            // "After all insurance wagers have been placed, the dealer will check the dealer's
            // hole card for blackjack."
            if self.dealer_has_blackjack() {
                self.hole_shown = true;
                self.settle();
            } else {
                self.start_play(shoe)?;
            }
        }
        Ok(())
    }

    /// Moves to the first hand awaiting a decision (blackjacks and even money need none).
    fn start_play(&mut self, shoe: &mut Shoe) -> Result<(), PlayError> {
        self.phase = Phase::PlayerTurn;
        for spot in &mut self.spots {
            for hand in &mut spot.hands {
                if spot.even_money || hand.is_blackjack() {
                    hand.finished = true;
                }
            }
        }
        self.advance(shoe)
    }

    /// Finds the next unfinished hand, dealing the second card of a split hand when it is
    /// reached (111-301-6(h)); plays the dealer's hand and settles when none is left.
    fn advance(&mut self, shoe: &mut Shoe) -> Result<(), PlayError> {
        for (s, spot) in self.spots.iter_mut().enumerate() {
            for (h, hand) in spot.hands.iter_mut().enumerate() {
                if hand.finished {
                    continue;
                }
                if hand.cards.len() == 1 {
                    hand.cards.push(shoe.draw()?);
                }
                // Split aces take one card each and no more (111-301-6(h)(2)); 21 needs nothing.
                if hand.split_aces || hand.total().points >= 21 {
                    hand.finished = true;
                    continue;
                }
                self.turn = Some((s, h));
                return Ok(());
            }
        }
        self.turn = None;
        self.play_dealer(shoe)?;
        self.settle();
        Ok(())
    }

    fn decide_hand(&mut self, action: Action, shoe: &mut Shoe) -> Result<(), PlayError> {
        if self.phase != Phase::PlayerTurn {
            return Err(PlayError::OutOfTurn("no hand is waiting for a decision"));
        }
        let (s, h) = self.turn.ok_or(PlayError::OutOfTurn("no hand is waiting for a decision"))?;
        let spot = self.spots.get_mut(s).ok_or(PlayError::NoSuchSpot)?;
        let hands = spot.hands.len();
        let original = spot.bet.wager;
        let hand = spot.hands.get_mut(h).ok_or(PlayError::NoSuchSpot)?;
        match action {
            Action::Stand => hand.finished = true,
            Action::Hit => {
                // 111-301-6(i): "whenever the player's point count total is less than 21".
                hand.cards.push(shoe.draw()?);
                if hand.total().points >= 21 {
                    hand.finished = true;
                }
            }
            Action::Double { amount } => {
                // 111-301-6(g)(3): on the first two cards, not on a blackjack, up to the original
                // wager, and one card only; 111-301-5(h): also after splitting.
                if let Some(why) = super::double_refusal(&hand.cards, hand.split_aces) {
                    return Err(PlayError::NotAllowed(why));
                }
                let amount = amount.unwrap_or(hand.wager);
                if amount <= 0 || amount > hand.wager || !whole_dollars(amount) {
                    return Err(PlayError::NotAllowed(
                        "a double down is whole dollars up to the hand's wager",
                    ));
                }
                hand.doubled = amount;
                hand.cards.push(shoe.draw()?);
                hand.finished = true;
            }
            Action::Split => {
                if let Some(why) = super::split_refusal(&hand.cards, hand.split_aces, hands) {
                    return Err(PlayError::NotAllowed(why));
                }
                let aces = hand.cards.first().is_some_and(|c| c.rank == Rank::ACE);
                let moved = hand.cards.pop().ok_or(PlayError::NotAllowed("nothing to split"))?;
                hand.from_split = true;
                hand.split_aces = aces;
                hand.cards.push(shoe.draw()?);
                if aces || hand.total().points >= 21 {
                    hand.finished = true;
                }
                let new = Hand {
                    cards: vec![moved],
                    wager: original,
                    doubled: 0,
                    from_split: true,
                    split_aces: aces,
                    finished: false,
                };
                spot.hands.insert(h.saturating_add(1), new);
            }
            Action::Insurance { .. } | Action::DeclineInsurance { .. } | Action::EvenMoney { .. } => {
                return Err(PlayError::OutOfTurn("insurance was decided before the hands"));
            }
        }
        self.advance(shoe)
    }

    /// 111-301-6(e), (j): the hole card is shown and the dealer draws to hard 17 or soft 18,
    /// unless no hand still waits on the dealer's total.
    fn play_dealer(&mut self, shoe: &mut Shoe) -> Result<(), PlayError> {
        self.hole_shown = true;
        let waiting = self
            .spots
            .iter()
            .any(|s| !s.even_money && s.hands.iter().any(|h| !h.total().is_bust() && !h.is_blackjack()));
        if waiting && !self.dealer_has_blackjack() {
            while dealer_must_draw(&self.dealer) {
                self.dealer.push(shoe.draw()?);
            }
        }
        Ok(())
    }

    /// Every wager's result, in cents returned to each spot (stakes included).
    fn settle(&mut self) {
        self.phase = Phase::Settled;
        self.turn = None;
        let dealer_blackjack = self.dealer_has_blackjack();
        let dealer = Total::of(&self.dealer);
        for spot in &mut self.spots {
            let sides = spot
                .sides
                .trilux
                .saturating_add(spot.sides.super_3)
                .saturating_add(spot.sides.royal_match)
                .saturating_add(spot.sides.sevens_fixed);
            // 111-301-6(g)(2): insurance wins 2 to 1 when the dealer has a blackjack.
            let insurance = match spot.insurance {
                Some(stake) if dealer_blackjack => stake.saturating_add(Odds::INSURANCE.winnings(stake)),
                _ => 0,
            };
            let main = if spot.even_money {
                // Paid 1 to 1 before the hole card was checked.
                spot.bet.wager.saturating_mul(2)
            } else if dealer_blackjack {
                let all: i64 = spot.hands.iter().map(|h| h.wager.saturating_add(h.doubled)).sum();
                match spot.hands.as_slice() {
                    // A player's blackjack against the dealer's is void (111-301-6(g)(1)).
                    [hand] if hand.is_blackjack() => hand.wager,
                    // Only the original wager is lost (see the module's note).
                    _ => all.saturating_sub(spot.bet.wager),
                }
            } else {
                spot.hands.iter().map(|hand| hand_return(hand, dealer)).sum()
            };
            spot.returned = Some(main.saturating_add(insurance).saturating_add(sides));
        }
    }

    /// The round as the player may see it: the hole card only once shown, never the shoe.
    pub fn player_view(&self) -> Round {
        let mut view = self.clone();
        if !self.hole_shown {
            view.dealer.truncate(1);
        }
        view
    }
}

/// A hand's return against a dealer without blackjack (111-301-5(a), (b), (e), (h), (i)).
fn hand_return(hand: &Hand, dealer: Total) -> i64 {
    let stake = hand.wager.saturating_add(hand.doubled);
    let player = hand.total();
    if player.is_bust() {
        0
    } else if hand.is_blackjack() {
        stake.saturating_add(Odds::BLACKJACK.winnings(stake))
    } else if dealer.is_bust() || player.points > dealer.points {
        stake.saturating_mul(2)
    } else if player.points == dealer.points {
        stake
    } else {
        0
    }
}

struct WagerRange {
    min: i64,
    max: i64,
}

impl WagerRange {
    /// Whole dollars within the table's limits; side wagers may be 0 (not made).
    fn check(&self, cents: i64, required: bool) -> Result<(), PlayError> {
        if (!required && cents == 0) || (cents >= self.min && cents <= self.max && whole_dollars(cents)) {
            Ok(())
        } else {
            Err(PlayError::WagerOutOfRange { min: self.min, max: self.max })
        }
    }
}
