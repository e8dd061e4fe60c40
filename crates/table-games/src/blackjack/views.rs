//! What a player (or an operator) sees of a table and a round: their rules and cards, never
//! the shoe.

use super::*;

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

pub(super) fn table_view(id: Uuid, rules: &TableRules, shoe: &Shoe, shuffles: i32) -> TableView {
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
    /// `open`, `playing`, `settled`, `refused` or `voided` (the shoe had no card left for the
    /// round: every wager returned).
    pub state: String,
    /// The step the next decision must name.
    pub step: i32,
    #[schema(value_type = Vec<Object>)]
    pub bets: Value,
    /// The cards, hands, phase and turn (see `domain::blackjack::round::Round`).
    #[schema(value_type = Object)]
    pub round: Option<Value>,
    /// Every decision applied, in order.
    #[schema(value_type = Vec<Object>)]
    pub actions: Value,
    pub staked_cents: Option<i64>,
    pub returned_cents: Option<i64>,
    pub pot_prize_cents: Option<i64>,
    pub balance_before_cents: Option<i64>,
    pub balance_after_cents: Option<i64>,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub(super) const ROUND_COLUMNS: &str = "id, table_id, player_id, wallet_account_id, bets, state, step, round, actions,
    pot_at_deal_cents, staked_cents, returned_cents, pot_prize_cents, balance_before_cents, balance_after_cents,
    refusal, created_at";

pub(super) fn round_view(row: &PgRow) -> Result<RoundView, AppError> {
    let round: Option<Value> = row.try_get("round")?;
    let round = match round {
        Some(value) => Some(json_of(&from_json::<Round>(value)?.player_view())?),
        None => None,
    };
    Ok(RoundView {
        id: row.try_get("id")?,
        table_id: row.try_get("table_id")?,
        state: row.try_get("state")?,
        step: row.try_get("step")?,
        bets: row.try_get("bets")?,
        round,
        actions: row.try_get("actions")?,
        staked_cents: row.try_get("staked_cents")?,
        returned_cents: row.try_get("returned_cents")?,
        pot_prize_cents: row.try_get("pot_prize_cents")?,
        balance_before_cents: row.try_get("balance_before_cents")?,
        balance_after_cents: row.try_get("balance_after_cents")?,
        refusal: row.try_get("refusal")?,
        created_at: row.try_get("created_at")?,
    })
}
