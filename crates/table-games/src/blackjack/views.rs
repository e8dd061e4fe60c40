//! What blackjack's requests carry and its answers show: a table's rules and a round's cards,
//! never the shoe; the meter and the math.

use chrono::{DateTime, Utc};
use domain::blackjack::round::{Action, Round, SpotBet, TableRules};
use domain::blackjack::side_math::SideWagerMath;
use domain::cards::Shoe;
use platform::AppError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::store::{RoundState, StoredRound};

/// `POST /v1/blackjack/tables`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenTable {
    /// 6 or 2 (default 6).
    #[schema(schema_with = deck_counts)]
    pub decks: Option<u8>,
    /// Where the player places the cut card (K.A.R. 111-301-6(a)); a random allowed place when
    /// absent.
    pub cut: Option<usize>,
    /// The table's limits, within the house's (`LOTTO_BJ_MIN_WAGER_CENTS`..`LOTTO_BJ_MAX_WAGER_CENTS`);
    /// the house's when absent.
    pub min_wager_cents: Option<i64>,
    pub max_wager_cents: Option<i64>,
    /// The most spots a round at this table may play: 1 to the house's maximum
    /// (`LOTTO_BJ_MAX_SPOTS`, 7), and at most 5 at a two-deck table (what its shoe always
    /// serves); the most allowed when absent.
    pub max_spots: Option<usize>,
}

/// `POST /v1/blackjack/tables/{id}/rounds`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealRequest {
    /// One entry per spot played, left to right: `wager` (cents, whole dollars), and optionally
    /// `trilux`, `super_3`, `royal_match` (cents) and `blazing_7s` (true/false).
    pub spots: Vec<SpotBet>,
}

/// `POST /v1/blackjack/rounds/{id}/actions`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ActionRequest {
    /// The round's `step` this decision is made on.
    pub step: i32,
    /// `hit`, `stand`, `double` (optional `amount`), `split`, `insurance` (`spot`, `amount`),
    /// `decline_insurance` (`spot`) or `even_money` (`spot`).
    #[serde(flatten)]
    pub action: Action,
}

/// A table as its player sees it: its rules, never its cards.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TableView {
    pub id: Uuid,
    pub decks: u8,
    pub min_wager_cents: i64,
    pub max_wager_cents: i64,
    pub progressive_wager_cents: i64,
    /// The most spots a round at this table may play.
    pub max_spots: usize,
    pub cards_remaining: usize,
    pub shuffles: i32,
}

pub fn table_view(id: Uuid, rules: &TableRules, shoe: &Shoe, shuffles: i32) -> TableView {
    TableView {
        id,
        decks: u8::try_from(rules.decks.count()).unwrap_or(0),
        min_wager_cents: rules.min_wager_cents,
        max_wager_cents: rules.max_wager_cents,
        progressive_wager_cents: rules.progressive_wager_cents,
        max_spots: rules.spots_allowed(),
        cards_remaining: shoe.remaining(),
        shuffles,
    }
}

/// A round as its player sees it (the hole card once shown, never the shoe).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RoundView {
    pub id: Uuid,
    pub table_id: Uuid,
    /// `open`, `playing`, `settling` (its settlement waits for the ledger), `settled`, `refused`
    /// or `voided` (the shoe had no card left for the round: every wager returned).
    #[schema(schema_with = RoundState::schema)]
    pub state: String,
    /// The step the next decision must name.
    pub step: i32,
    /// What each spot staked at the deal.
    #[schema(value_type = Vec<SpotBet>)]
    pub bets: Value,
    /// The cards, hands, phase and turn (the hole card only once shown).
    pub round: Option<Round>,
    /// Every decision applied, in order.
    #[schema(value_type = Vec<RecordedAction>)]
    pub actions: Value,
    pub staked_cents: Option<i64>,
    pub returned_cents: Option<i64>,
    pub pot_prize_cents: Option<i64>,
    pub balance_before_cents: Option<i64>,
    pub balance_after_cents: Option<i64>,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The decisions the player may send now (with this round's `step`); empty when none is
    /// awaited (the round is settled, or a decision waits for its wager).
    pub allowed_actions: Vec<AllowedAction>,
}

/// A decision as the round records it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecordedAction {
    /// The step it was made on.
    pub step: i32,
    pub decision: Action,
    /// `player`, or `house` when the house stood an abandoned round's hands.
    #[schema(schema_with = deciders)]
    pub by: String,
}

/// A decision the player may make now.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AllowedAction {
    pub action: AllowedActionKind,
    /// The spot an insurance decision is for (insurance, decline_insurance, even_money).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot: Option<usize>,
}

/// The decisions of `POST /v1/blackjack/rounds/{id}/actions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AllowedActionKind {
    Hit,
    Stand,
    Double,
    Split,
    Insurance,
    DeclineInsurance,
    EvenMoney,
}

impl AllowedActionKind {
    fn of(name: &str) -> Option<AllowedActionKind> {
        Some(match name {
            "hit" => AllowedActionKind::Hit,
            "stand" => AllowedActionKind::Stand,
            "double" => AllowedActionKind::Double,
            "split" => AllowedActionKind::Split,
            "insurance" => AllowedActionKind::Insurance,
            "decline_insurance" => AllowedActionKind::DeclineInsurance,
            "even_money" => AllowedActionKind::EvenMoney,
            _ => return None,
        })
    }
}

pub fn round_view(stored: &StoredRound) -> Result<RoundView, AppError> {
    Ok(RoundView {
        id: stored.id,
        table_id: stored.table_id,
        state: stored.state.as_str().to_owned(),
        step: stored.step,
        bets: stored.bets.clone(),
        round: stored.round.as_ref().map(Round::player_view),
        actions: stored.actions.clone(),
        staked_cents: stored.staked_cents,
        returned_cents: stored.returned_cents,
        pot_prize_cents: stored.pot_prize_cents,
        balance_before_cents: stored.balance_before_cents,
        balance_after_cents: stored.balance_after_cents,
        refusal: stored.refusal.clone(),
        created_at: stored.created_at,
        allowed_actions: match (&stored.round, stored.state, &stored.pending) {
            (Some(round), RoundState::Playing, None) => round
                .allowed_actions()
                .into_iter()
                .filter_map(|(name, spot)| Some(AllowedAction { action: AllowedActionKind::of(name)?, spot }))
                .collect(),
            _ => Vec::new(),
        },
    })
}

/// The Blazing 7's meter.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ProgressiveView {
    pub pot_cents: i64,
    pub seed_cents: i64,
    pub contribution_percent: i64,
    pub wager_cents: i64,
}

/// The house edge of the main game under basic strategy, measured by playing seeded rounds
/// through the tables' own engine (`cargo run --release -p domain --example main_game_edges`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MainGameEdge {
    pub decks: u8,
    pub rounds: u64,
    pub seed: u64,
    pub house_edge_percent: f64,
    pub confidence_95_percent: f64,
}

/// Generated by `domain`'s `main_game_edges` example from a long seeded run of the tables' own
/// engine (the run's size is in each row); `domain`'s tests re-run a short simulation on every
/// build and check it lies within the published interval.
pub use domain::blackjack::main_game_edges::MAIN_GAME_EDGES;

/// A reading of the rules' text that changes the main game's edge, with the figure of each.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MainGameReading {
    pub decks: u8,
    pub rule: String,
    pub question: String,
    pub implemented: String,
    /// The main game's house edge as the tables play (simulated: `main_game`).
    pub house_edge_percent: f64,
    /// What the other reading adds, counted exactly over the shoe
    /// (`domain::blackjack::split_protection`).
    pub other_reading_adds_percent: f64,
    /// The main game's house edge under the other reading.
    pub house_edge_other_reading_percent: f64,
}

/// `GET /v1/blackjack/math`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct MathView {
    pub main_game: Vec<MainGameEdge>,
    /// The readings of the text the main game's edge depends on.
    pub readings: Vec<MainGameReading>,
    /// Each side wager's exact outcomes and return, for a full six-deck and two-deck shoe.
    pub side_wagers: Vec<SideWagerView>,
}

/// One side wager's PAR sheet for one shoe.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SideWagerView {
    /// The shoe it was computed for: 6 or 2 decks.
    pub decks: u8,
    /// `trilux`, `trilux_super_3`, `royal_match_21` or `blazing_7s`.
    #[schema(schema_with = side_wager_names)]
    pub wager: String,
    pub total_ways: u128,
    pub outcomes: Vec<domain::blackjack::side_math::OutcomeLine>,
    /// The expected return per unit wagered, the stake included, exactly (for the Blazing 7's,
    /// with the pot at its seed).
    pub return_to_player: domain::math::Fraction,
    pub return_to_player_decimal: f64,
    /// The Blazing 7's only: the return in the long run, exactly, counting what every wager adds
    /// to the pot and the house's re-seeding after each top prize (whatever the meter reads now).
    pub long_run_return_to_player: Option<domain::math::Fraction>,
    pub long_run_return_to_player_decimal: Option<f64>,
}

impl SideWagerView {
    pub fn new(decks: u8, math: SideWagerMath) -> Self {
        SideWagerView {
            decks,
            wager: math.wager.to_owned(),
            total_ways: math.total_ways,
            outcomes: math.outcomes,
            return_to_player: math.return_to_player,
            return_to_player_decimal: math.return_to_player_decimal,
            long_run_return_to_player: None,
            long_run_return_to_player_decimal: None,
        }
    }

    /// With the long-run return beside the one at the seed.
    pub fn with_long_run(mut self, long_run: domain::math::Fraction) -> Self {
        self.long_run_return_to_player_decimal = Some(long_run.to_f64());
        self.long_run_return_to_player = Some(long_run);
        self
    }
}

/// Who made a recorded decision.
fn deciders() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["player", "house"])
}

/// The side wagers' names.
fn side_wager_names() -> platform::openapi::SchemaObject {
    platform::openapi::one_of_texts(&["trilux", "trilux_super_3", "royal_match_21", "blazing_7s"])
}

/// The shoes a table may deal from: six decks or two (none named: six).
fn deck_counts() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new().schema_type(Type::Integer).enum_values(Some([2, 6])).build()
}
