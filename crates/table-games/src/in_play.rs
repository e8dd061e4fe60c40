//! What a player has in play at the tables, every game together: the page a player comes back
//! to (after a logout, an idle timeout, a closed tab) shows each unfinished round or session
//! where it stands (issue 32 §2). Each game's store reads its own; this only puts them together.

use axum::extract::State;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::Serialize;
use uuid::Uuid;

use crate::TablesState;
use crate::{blackjack, craps, i_luv_suits};

/// A blackjack round in play, with what the page needs to go on dealing at its table.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BlackjackInPlay {
    pub table_id: Uuid,
    /// The table's decks (6 or 2).
    pub decks: u8,
    pub round: blackjack::views::RoundView,
}

/// `GET /v1/tables/in-play`: every unfinished round and session of the caller, oldest first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct InPlayView {
    /// Blackjack rounds open, playing or settling.
    pub blackjack: Vec<BlackjackInPlay>,
    /// I Luv Suits rounds open, deciding or settling.
    pub i_luv_suits: Vec<i_luv_suits::views::RoundView>,
    /// Craps sessions with bets on the layout (or a roll under way).
    pub craps: Vec<craps::views::SessionView>,
}

#[utoipa::path(
    get, path = "/v1/tables/in-play", tag = "tables",
    responses((status = 200, description = "the caller's unfinished rounds and sessions, every table game", body = InPlayView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/tables/in-play`: players, their own.
pub async fn in_play(State(state): State<TablesState>, caller: Caller) -> Result<Json<InPlayView>, AppError> {
    caller.require(&[Role::Player])?;
    let player = caller.subject();
    let mut blackjack = Vec::new();
    for round in blackjack::store::rounds_in_play(&state.pool, player).await? {
        let rules = state.blackjack.repository.table_rules(round.table_id, Some(player)).await?;
        blackjack.push(BlackjackInPlay {
            table_id: round.table_id,
            decks: u8::try_from(rules.decks.count()).unwrap_or(0),
            round: blackjack::views::round_view(&round)?,
        });
    }
    let i_luv_suits = i_luv_suits::store::rounds_in_play(&state.pool, player)
        .await?
        .iter()
        .map(i_luv_suits::views::round_view)
        .collect();
    let craps = craps::store::sessions_in_play(&state.pool, player)
        .await?
        .iter()
        .map(craps::views::session_view)
        .collect();
    Ok(Json(InPlayView { blackjack, i_luv_suits, craps }))
}
