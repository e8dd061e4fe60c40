//! The games this service runs: their definitions, carried in the binary from `games/instant/`,
//! checked at start, and public with what the check found and the prizes still to be won.

use axum::extract::State;
use domain::instant::{DefinitionError, GameDefinition, Mismatch, Report};
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::Serialize;
use sqlx::Row;

use crate::InstantState;

/// The definitions, as transcribed from their rules.
const DEFINITIONS: [&str; 5] = [
    include_str!("../../../games/instant/283-hit-10.json"),
    include_str!("../../../games/instant/284-hit-20.json"),
    include_str!("../../../games/instant/282-liquid-gold.json"),
    include_str!("../../../games/instant/228-electric-8s.json"),
    include_str!("../../../games/instant/286-super-red-hot-crossword.json"),
];

/// Every carried definition, checked; a malformed one stops the service from starting.
pub fn carried() -> Result<Vec<(GameDefinition, Report)>, DefinitionError> {
    DEFINITIONS.iter().map(|text| GameDefinition::load(text)).collect()
}

/// Every carried game at a smaller scale (see `GameDefinition::scaled`), checked: for tests and
/// demonstrations, where a full run of millions of tickets would only take time.
pub fn carried_scaled(
    pool_size: u64,
    divisor: u64,
) -> Result<Vec<(GameDefinition, Report)>, DefinitionError> {
    carried()?
        .into_iter()
        .map(|(game, _)| {
            let scaled = game.scaled(pool_size, divisor);
            let report = scaled.check()?;
            Ok((scaled, report))
        })
        .collect()
}

/// A prize row with what is left of it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PrizeView {
    pub composition_cents: Vec<i64>,
    pub value_cents: i64,
    /// Winners per the game's tickets ordered.
    pub count: u64,
    /// Printed so far and not yet paid.
    pub remaining: i64,
}

/// A game as anyone may see it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct GameView {
    pub number: u32,
    pub name: String,
    pub rule: String,
    pub price_cents: i64,
    pub tickets_per_book: u64,
    pub tickets_ordered: u64,
    pub odds_one_in: f64,
    pub payout_percent: f64,
    pub prizes: Vec<PrizeView>,
    /// Where the rule's printed figures disagree with its rows, and what is assumed.
    #[schema(value_type = Vec<Object>)]
    pub mismatches: Vec<Mismatch>,
    pub source_notes: Vec<String>,
}

#[utoipa::path(
    get, path = "/v1/instant/games", tag = "instant",
    responses((status = 200, description = "every game, its prize structure and the prizes remaining (public)", body = Vec<GameView>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/instant/games`: public.
pub async fn list_games(State(state): State<InstantState>) -> Result<Json<Vec<GameView>>, AppError> {
    let rows = sqlx::query("SELECT game, prize_row, printed - paid AS remaining FROM prize_counts")
        .fetch_all(&state.pool)
        .await?;
    let mut views = Vec::new();
    for (game, report) in state.games.iter() {
        let remaining = |row: usize| -> Result<i64, AppError> {
            for r in &rows {
                let (g, p): (i32, i16) = (r.try_get("game")?, r.try_get("prize_row")?);
                if i64::from(g) == i64::from(game.number) && usize::try_from(p).ok() == Some(row) {
                    return Ok(r.try_get("remaining")?);
                }
            }
            Ok(0)
        };
        let mut prizes = Vec::new();
        for (i, row) in game.prizes.iter().enumerate() {
            prizes.push(PrizeView {
                composition_cents: row.composition.clone(),
                value_cents: row.value_cents,
                count: row.count,
                remaining: remaining(i)?,
            });
        }
        views.push(GameView {
            number: game.number,
            name: game.name.clone(),
            rule: game.rule.clone(),
            price_cents: game.price_cents,
            tickets_per_book: game.ticket_numbers.tickets_per_book(),
            tickets_ordered: game.tickets_ordered,
            odds_one_in: report.odds_one_in,
            payout_percent: report.payout_percent,
            prizes,
            mismatches: report.mismatches.clone(),
            source_notes: report.source_notes.clone(),
        });
    }
    Ok(Json(views))
}
