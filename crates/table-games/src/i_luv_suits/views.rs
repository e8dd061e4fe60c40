//! What I Luv Suits' requests carry and its answers show: the player's seven cards at once, the
//! dealer's only when the round is settled; the table's limits and meter; the math.

use chrono::{DateTime, Utc};
use domain::cards::Card;
use domain::i_luv_suits::round::{Choice, Hands, Returns, Showdown, TableRules, Wagers};
use domain::i_luv_suits::{best_flush, max_play_multiple, straight_flush};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::store::{Decided, RoundState, StoredRound};

/// `POST /v1/i-luv-suits/rounds`: the wagers before the deal (K.A.R. 111-301-75(a)).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceWagers {
    /// Cents, within the table's ante limits.
    pub ante_cents: i64,
    /// Cents within the side wagers' limits, or absent (or 0) for none.
    pub flush_rush_cents: Option<i64>,
    pub super_flush_rush_cents: Option<i64>,
    /// The progressive wager at its posted amount.
    pub progressive: Option<bool>,
}

impl PlaceWagers {
    pub fn wagers(&self) -> Wagers {
        Wagers {
            ante_cents: self.ante_cents,
            flush_rush_cents: self.flush_rush_cents.unwrap_or(0),
            super_flush_rush_cents: self.super_flush_rush_cents.unwrap_or(0),
            progressive: self.progressive.unwrap_or(false),
        }
    }
}

/// `POST /v1/i-luv-suits/rounds/{id}/decision` (111-301-75(a)(2)).
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionRequest {
    pub decision: DecisionKind,
    /// The play wager in cents: the ante's amount below five cards of a suit; from the ante up
    /// to twice it with five, three times with six or seven. The ante's amount when absent.
    pub play_cents: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    Fold,
    Play,
}

impl DecisionRequest {
    pub fn choice(&self, ante_cents: i64) -> Choice {
        match self.decision {
            DecisionKind::Fold => Choice::Fold,
            DecisionKind::Play => Choice::Play { play_cents: self.play_cents.unwrap_or(ante_cents) },
        }
    }
}

/// A hand as the rules read it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct HandView {
    pub cards: Vec<String>,
    /// The best flush (111-301-74(c), (d)): its cards, highest first.
    pub flush: Vec<String>,
    pub flush_length: usize,
    /// The longest straight flush (74(b)), for the Super Flush Rush and the progressive.
    pub straight_flush_length: u8,
}

fn hand_view(cards: &[Card]) -> HandView {
    let flush = best_flush(cards);
    let mut in_flush: Vec<Card> = cards.iter().copied().filter(|c| c.suit == flush.suit).collect();
    in_flush.sort_by_key(|c| std::cmp::Reverse(if c.rank.number() == 1 { 14 } else { c.rank.number() }));
    HandView {
        cards: cards.iter().map(ToString::to_string).collect(),
        flush: in_flush.iter().map(ToString::to_string).collect(),
        flush_length: flush.len(),
        straight_flush_length: straight_flush(cards).len,
    }
}

/// The play wagers allowed with the player's hand, in cents.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayRange {
    pub min_cents: i64,
    pub max_cents: i64,
}

/// A decision as recorded.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DecisionView {
    pub decision: DecisionKind,
    pub play_cents: Option<i64>,
    /// `player`, or `house` when the player left the round undecided (the house folds).
    #[schema(schema_with = deciders)]
    pub by: String,
}

fn decision_view(decided: &Decided) -> DecisionView {
    let (decision, play_cents) = match decided.choice {
        Choice::Fold => (DecisionKind::Fold, None),
        Choice::Play { play_cents } => (DecisionKind::Play, Some(play_cents)),
    };
    let by = match decided.by {
        super::store::DecidedBy::Player => "player",
        super::store::DecidedBy::House => "house",
    };
    DecisionView { decision, play_cents, by: by.to_owned() }
}

/// A round as its player sees it: the dealer's hand only once settled.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ILuvSuitsRound)]
pub struct RoundView {
    pub id: Uuid,
    /// `open`, `deciding` (dealt: fold or play), `settling` (its settlement waits for the
    /// ledger), `settled` or `refused`.
    #[schema(schema_with = RoundState::schema)]
    pub state: String,
    pub wagers: Wagers,
    pub player: Option<HandView>,
    /// Shown once the round is settled.
    pub dealer: Option<HandView>,
    /// The play wagers allowed now (while `deciding`).
    pub play: Option<PlayRange>,
    pub decision: Option<DecisionView>,
    pub showdown: Option<Showdown>,
    /// What each wager returned, stakes included.
    pub returns: Option<Returns>,
    /// The progressive meter when the cards were dealt (its prizes are paid on it).
    pub pot_at_deal_cents: Option<i64>,
    pub staked_cents: Option<i64>,
    pub returned_cents: Option<i64>,
    pub balance_before_cents: Option<i64>,
    pub balance_after_cents: Option<i64>,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub fn round_view(stored: &StoredRound) -> RoundView {
    let settled = stored.state == RoundState::Settled;
    let deciding = stored.state == RoundState::Deciding && stored.pending.is_none();
    let ante = stored.wagers.ante_cents;
    RoundView {
        id: stored.id,
        state: stored.state.as_str().to_owned(),
        wagers: stored.wagers,
        player: stored.deal.as_ref().map(|d| hand_view(&d.player)),
        dealer: stored.deal.as_ref().filter(|_| settled).map(|d| hand_view(&d.dealer)),
        play: stored.deal.as_ref().filter(|_| deciding).map(|d| PlayRange {
            min_cents: ante,
            max_cents: ante.saturating_mul(i64::from(max_play_multiple(Hands::of(d).player_flush_len()))),
        }),
        decision: stored.decision.as_ref().or(stored.pending.as_ref()).map(decision_view),
        showdown: stored.settlement.map(|s| s.showdown),
        returns: stored.settlement.map(|s| s.returns),
        pot_at_deal_cents: stored.pot_at_deal_cents,
        staked_cents: stored.staked_cents,
        returned_cents: stored.returned_cents,
        balance_before_cents: stored.balance_before_cents,
        balance_after_cents: stored.balance_after_cents,
        refusal: stored.refusal.clone(),
        created_at: stored.created_at,
    }
}

/// `GET /v1/i-luv-suits/table`: the posted limits, the pay tables' odds and the meter.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = ILuvSuitsTable)]
pub struct TableView {
    pub rules: TableRules,
    /// The progressive pot, a ledger balance: its prizes are paid on it (76(i)(5)).
    pub pot_cents: i64,
    pub seed_cents: i64,
    pub contribution_percent: i64,
}

/// Who made a recorded decision.
fn deciders() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["player", "house"])
}

/// An exact figure and its decimal.
#[derive(Debug, Clone, Copy, Serialize, utoipa::ToSchema)]
pub struct Exact {
    pub exact: domain::math::Fraction,
    pub decimal: f64,
}

impl From<domain::math::Fraction> for Exact {
    fn from(exact: domain::math::Fraction) -> Exact {
        Exact { exact, decimal: exact.to_f64() }
    }
}

/// The base game (ante and play) under one reading of the rules, counted over every player hand
/// against every dealer hand.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BaseGameView {
    pub qualifier: domain::i_luv_suits::base_game::Qualifier,
    pub play_floor: domain::i_luv_suits::base_game::PlayFloor,
    /// The reading these tables play.
    pub implemented: bool,
    /// The share of all C(52, 7) dealer hands that qualify under this reading.
    pub dealer_qualifies: Exact,
    /// Player hands (C(52, 7)) × dealer hands (C(45, 7)) counted.
    pub deals_counted: u128,
    pub house_edge_per_ante: Exact,
    /// Per unit wagered (ante and play together): the element of risk.
    pub house_edge_per_wager: Exact,
    /// The play wager made on average, in antes.
    pub average_play_antes: f64,
    /// How many of the C(52, 7) player hands take each decision, by their flush's length.
    pub decisions: Vec<DecisionCount>,
    /// The strategy that takes these decisions.
    pub strategy: String,
    /// The simple rule (three-card flushes from one threshold up, whatever the other cards).
    pub simple_rule: String,
    pub simple_rule_house_edge_per_ante: Exact,
}

/// How many hands with a flush of `flush_length` cards take one decision: `fold`, or `play` with
/// `play_multiple` times the ante (0 stands for "as little as the table takes"). One flat object,
/// not a union, so that every generator reads it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct DecisionCount {
    pub flush_length: u32,
    pub decision: DecisionKind,
    /// With `play`: the play wager in antes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub play_multiple: Option<u32>,
    pub hands: u128,
}

impl DecisionCount {
    fn of(flush_length: u32, decision: domain::i_luv_suits::base_game::Decision, hands: u128) -> Self {
        use domain::i_luv_suits::base_game::Decision;
        let (decision, play_multiple) = match decision {
            Decision::Fold => (DecisionKind::Fold, None),
            Decision::Play(multiple) => (DecisionKind::Play, Some(multiple)),
        };
        DecisionCount { flush_length, decision, play_multiple, hands }
    }
}

/// A side wager's pay table with its exact return.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PayTableView {
    /// `flush_rush`, `super_flush_rush` or `progressive`.
    pub wager: String,
    pub lines: Vec<PayLine>,
    /// Per unit wagered, the stake included (for the progressive, at the seed).
    pub return_to_player: Exact,
}

/// One line of a pay table: the hand, how many of the C(52, 7) hands make it, what it pays.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PayLine {
    pub hand: String,
    pub hands: u128,
    /// "n to 1", "n for 1" or "n% of the pot", as 111-301-76(i) writes it.
    pub pays: String,
}

/// The progressive's return per unit wagered as a function of the meter: `at_empty_meter +
/// per_meter_dollar × dollars on the meter`, for the posted wager.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ProgressiveMath {
    pub wager_cents: i64,
    pub at_empty_meter: Exact,
    pub per_meter_dollar: Exact,
    pub at_seed: Exact,
    /// The meter at which the wager returns what it takes (return 1).
    pub break_even_meter_cents: i64,
    /// In the long run, every share put in the pot paid out: re-seeded after each top prize (as
    /// these tables do) and funded once (the other reading of 76(i)(5)).
    pub long_run_reseeded: Exact,
    pub long_run_funded_once: Exact,
}

/// One place where the rules' text reads two ways: the reading implemented and why, and what
/// each reading does to the math.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Ambiguity {
    pub rule: String,
    pub question: String,
    pub implemented: String,
    pub effect: String,
}

/// `GET /v1/i-luv-suits/math`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ILuvSuitsMath)]
pub struct MathView {
    pub base_game: Vec<BaseGameView>,
    pub side_wagers: Vec<PayTableView>,
    pub progressive: ProgressiveMath,
    pub ambiguities: Vec<Ambiguity>,
}

// Long by design (issue 33 §5): the published math, one field per figure, read against the
// rules it computes.
/// The math page, counted from the rules' own pay tables (the base game generated by `domain`'s
/// `i_luv_suits_base_game` example, the pay tables counted here in milliseconds).
pub fn math_view(progressive_wager_cents: i64) -> MathView {
    use domain::i_luv_suits::base_game::{BASE_GAME_FIGURES_IMPLEMENTED, ranks_text};
    use domain::i_luv_suits::base_game_value::BASE_GAME_FIGURES;
    use domain::i_luv_suits::math::seven_card_counts;
    use domain::i_luv_suits::{
        PROGRESSIVE_POT_PERCENT, PROGRESSIVE_SEED_CENTS, ProgressivePrize, progressive_prize,
    };
    use domain::math::Fraction;

    let base_game = BASE_GAME_FIGURES
        .iter()
        .enumerate()
        .map(|(i, f)| BaseGameView {
            qualifier: f.qualifier,
            play_floor: f.play_floor,
            implemented: i == BASE_GAME_FIGURES_IMPLEMENTED,
            dealer_qualifies: f.qualifier.share_of_dealer_hands_qualifying().into(),
            deals_counted: f.hands.saturating_mul(f.dealer_hands),
            house_edge_per_ante: f.edge_per_ante().into(),
            house_edge_per_wager: f.edge_per_wager().into(),
            average_play_antes: Fraction::new(f.play_wagered, f.hands).to_f64(),
            decisions: f
                .decisions
                .iter()
                .map(|&(flush_length, decision, hands)| DecisionCount::of(flush_length, decision, hands))
                .collect(),
            strategy: format!(
                "Fold two-card flushes. Play every flush of four cards or more at the most allowed (1x the ante \
                 with four, 2x with five, 3x with six or seven). Three-card flushes: play from {} up, fold from \
                 {} down; between them play when the dealer's hands counted against your seven cards make \
                 playing worth more than folding (the cards in your other suits decide).",
                ranks_text(f.three_card_always_plays_from),
                ranks_text(f.three_card_always_folds_to)
            ),
            simple_rule: format!(
                "As the strategy, but play every three-card flush from {} up and fold the rest.",
                ranks_text(f.simple_threshold)
            ),
            simple_rule_house_edge_per_ante: f.simple_edge_per_ante().into(),
        })
        .collect();

    let counts = seven_card_counts();
    let line = |hand: String, hands: u128, pays: String| PayLine { hand, hands, pays };
    let flush_rush = PayTableView {
        wager: "flush_rush".to_owned(),
        lines: (4..=7u8)
            .filter_map(|len| {
                let odds = domain::i_luv_suits::flush_rush_odds(usize::from(len))?;
                Some(line(format!("{len}-card flush"), counts.count(|f, _| f == len), format!("{odds} to 1")))
            })
            .collect(),
        return_to_player: counts.flush_rush_return().into(),
    };
    let super_flush_rush = PayTableView {
        wager: "super_flush_rush".to_owned(),
        lines: (3..=7u8)
            .filter_map(|len| {
                let sf = domain::i_luv_suits::StraightFlush { len, with_ace: false };
                let odds = domain::i_luv_suits::super_flush_rush_odds(sf)?;
                let hands = counts.count(|_, run| run.len == len);
                Some(line(format!("{len}-card straight flush"), hands, format!("{odds} to 1")))
            })
            .collect(),
        return_to_player: counts.super_flush_rush_return().into(),
    };
    let wager = progressive_wager_cents;
    let classes = [(3u8, None), (4, None), (5, None), (6, Some(false)), (6, Some(true)), (7, None)];
    let progressive_table = PayTableView {
        wager: "progressive".to_owned(),
        lines: classes
            .iter()
            .filter_map(|&(len, ace)| {
                let sf = domain::i_luv_suits::StraightFlush { len, with_ace: ace.unwrap_or(false) };
                let pays = match progressive_prize(sf)? {
                    ProgressivePrize::ForOne(n) => format!("{n} for 1"),
                    ProgressivePrize::PotPercent(p) => format!("{p}% of the pot"),
                };
                let hand = match ace {
                    None => format!("{len}-card straight flush"),
                    Some(true) => format!("{len}-card straight flush containing an ace"),
                    Some(false) => format!("{len}-card straight flush not containing an ace"),
                };
                let hands = counts.count(|_, run| run.len == len && ace.is_none_or(|a| run.with_ace == a));
                Some(line(hand, hands, pays))
            })
            .collect(),
        return_to_player: counts.progressive_return_at(PROGRESSIVE_SEED_CENTS, wager).into(),
    };
    // Each meter dollar adds the pot-percent prizes' chance times their share, per unit wagered.
    let pot_weight: u128 = counts
        .by_class
        .iter()
        .filter_map(|((_, run), n)| match progressive_prize(*run)? {
            ProgressivePrize::PotPercent(p) => Some(n.saturating_mul(u128::from(p))),
            ProgressivePrize::ForOne(_) => None,
        })
        .sum();
    let wager_u = u128::try_from(wager).unwrap_or(1).max(1);
    let per_meter_dollar = Fraction::new(pot_weight, counts.total.saturating_mul(wager_u));
    let at_empty_meter = counts.progressive_return_at(0, wager);
    let break_even = (1.0 - at_empty_meter.to_f64()) / per_meter_dollar.to_f64() * 100.0;
    #[allow(clippy::cast_possible_truncation)] // a meter in cents, far below i64::MAX
    let break_even_meter_cents = break_even.ceil() as i64;
    let progressive = ProgressiveMath {
        wager_cents: wager,
        at_empty_meter: at_empty_meter.into(),
        per_meter_dollar: per_meter_dollar.into(),
        at_seed: counts.progressive_return_at(PROGRESSIVE_SEED_CENTS, wager).into(),
        break_even_meter_cents,
        long_run_reseeded: counts
            .progressive_long_run(wager, PROGRESSIVE_POT_PERCENT, PROGRESSIVE_SEED_CENTS)
            .into(),
        long_run_funded_once: counts.progressive_long_run(wager, PROGRESSIVE_POT_PERCENT, 0).into(),
    };
    MathView {
        base_game,
        side_wagers: vec![flush_rush, super_flush_rush, progressive_table],
        progressive,
        ambiguities: ambiguities(),
    }
}

/// Each reading's rule, its question and the reading implemented; its effect on the math is
/// computed beside it ([`ambiguities`]).
const READINGS: [(&str, &str, &str); 5] = [
    (
        "K.A.R. 111-301-76(i)(1)",
        "\"At least a three card flush containing a 9 or higher ranking card\": at least that hand as a rank \
             (so every four-card flush qualifies), a best flush of three or more cards holding a 9 or higher \
             (so a four-card flush of low cards does not), or any three cards of a suit the dealer holds with a \
             9 or higher?",
        "As a rank (the reading of the game's published rules and its usual analyses): the dealer's best \
             hand must rank at or above a three-card 9-high flush; every flush of four or more cards qualifies, \
             and a three-card flush when its highest card is a 9 or higher.",
    ),
    (
        "K.A.R. 111-301-75(a)(2)(B), (C)",
        "\"Any amount up to two (three) times the ante\": may a play wager with five or more cards of a \
             suit be smaller than the ante?",
        "No: from the ante's amount up to the multiple ((A) sets the ante's amount as the one play below \
             five cards; \"up to\" raises the ceiling).",
    ),
    (
        "K.A.R. 111-301-76(i)(5)",
        "The pot is funded \"initially\" with $1,000: is it funded again after a top prize empties it?",
        "Yes: the house funds it again with $1,000 after each 100% prize, so the meter never shows less \
             than the seed (a top prize from an empty pot would pay less than a five-card straight flush).",
    ),
    (
        "K.A.R. 111-301-76(i)(4)",
        "The maximum aggregate payout \"for any flush rush or super flush rush hand\": the two wagers' \
             winnings together, or each wager alone?",
        "Together: a hand's Flush Rush and Super Flush Rush winnings are held to the posted maximum side \
             wager times 500 (the highest posted odds), stakes returned beside.",
    ),
    (
        "K.A.R. 111-301-76(i)(5)",
        "Two or more hands qualifying for the pot \"during a round of play\" share it evenly.",
        "Every online round is its own round of play with one hand: a share is never divided; a percentage \
             of the meter is rounded up to the cent.",
    ),
];

fn ambiguities() -> Vec<Ambiguity> {
    use domain::i_luv_suits::base_game_value::BASE_GAME_FIGURES;
    let edge = |i: usize| BASE_GAME_FIGURES.get(i).map_or(0.0, |f| f.edge_per_ante().to_f64() * 100.0);
    let share = |i: usize| {
        BASE_GAME_FIGURES
            .get(i)
            .map_or(0.0, |f| f.qualifier.share_of_dealer_hands_qualifying().to_f64() * 100.0)
    };
    let effects: [String; 5] = [
        format!(
                "House edge per ante {:.6}% as implemented ({:.4}% of dealer hands qualify); {:.6}% on the best \
                 flush holding a 9 ({:.4}% qualify); {:.6}% on any three of a suit with a 9 ({:.4}% qualify). \
                 The player has the edge under none.",
                edge(0),
                share(0),
                edge(2),
                share(2),
                edge(4),
                share(4)
            ),
        format!(
                "None: with five or more cards of a suit the best play is always the most allowed, so both \
                 readings give {:.6}% per ante.",
                edge(1)
            ),
        "The progressive's long-run return is published under both readings (progressive.long_run_*).".to_owned(),
        "Each wager alone never exceeds it. Together it binds only on a seven-card straight flush (32 of \
             133,784,560 hands), when 300 times the Flush Rush wager and 500 times the Super Flush Rush wager \
             exceed 500 times the posted maximum; with both at the maximum it keeps 300 maximum wagers, \
             0.0000718 of a maximum wager a hand on average."
                .to_owned(),
        "None on the return.".to_owned(),
    ];
    READINGS
        .iter()
        .zip(effects)
        .map(|(&(rule, question, implemented), effect)| Ambiguity {
            rule: rule.to_owned(),
            question: question.to_owned(),
            implemented: implemented.to_owned(),
            effect,
        })
        .collect()
}
