//! Craps' handlers: each authorises its caller, extracts the request, makes one call into the
//! [`super::saga`] or [`super::store`], and answers a view.

use std::sync::OnceLock;

use axum::extract::State;
use axum::http::StatusCode;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path};
use uuid::Uuid;

use super::saga;
use super::steps::Request;
use super::store;
use super::views::*;
use crate::TablesState;

#[utoipa::path(
    post, path = "/v1/craps/sessions", tag = "craps", request_body = OpenSession,
    responses((status = 201, description = "a session at the house's table, the puck off", body = SessionView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/craps/sessions`: a player sits down at a table.
pub async fn open_session(
    State(state): State<TablesState>,
    caller: Caller,
    Json(request): Json<OpenSession>,
) -> Result<(StatusCode, Json<SessionView>), AppError> {
    caller.require(&[Role::Player])?;
    let session = saga::open(&state, caller.subject(), request.odds_multiple).await?;
    Ok((StatusCode::CREATED, Json(session_view(&session))))
}

#[utoipa::path(
    get, path = "/v1/craps/sessions/{id}", tag = "craps", params(("id" = Uuid, Path, description = "session id")),
    responses((status = 200, description = "the layout and the puck", body = SessionView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/craps/sessions/{id}`: the player's own session; operators and auditors see any.
pub async fn get_session(
    State(state): State<TablesState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<SessionView>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match store::load_session(&state.pool, id).await? {
        Some(s) if caller.role() != Role::Player || s.player_id == caller.subject() => {
            Ok(Json(session_view(&s)))
        }
        _ => Err(AppError::not_found(codes::SESSION_NOT_FOUND, format!("craps session {id} does not exist"))),
    }
}

async fn play(
    state: &TablesState,
    caller: &Caller,
    key: IdempotencyKey,
    id: Uuid,
    request: PlayRequest,
    roll: bool,
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let request =
        Request { changes: request.changes, roll, expected_rolls: request.expected_rolls, by_house: false };
    let (record, session, created) = saga::play(state, id, caller.subject(), key, &request).await?;
    if created && roll {
        platform::metrics::count_play(ledger_api::Game::Craps.label(), "online");
    }
    let view = PlayView { result: roll_view(&record), session: session_view(&session) };
    Ok(platform::http::created_or_replayed(view, created, None))
}

#[utoipa::path(
    post, path = "/v1/craps/sessions/{id}/rolls", tag = "craps", request_body = PlayRequest,
    params(("id" = Uuid, Path, description = "session id"),
           ("Idempotency-Key" = String, Header, description = "required: a retry with the same key answers the same roll")),
    responses(
        (status = 201, description = "the changes made, the dice thrown, every bet the roll decided settled in one ledger batch", body = PlayView),
        (status = 200, description = "a replay: this key's roll", body = PlayView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/craps/sessions/{id}/rolls`: changes to the layout, then one roll.
pub async fn roll(
    State(state): State<TablesState>,
    caller: Caller,
    key: IdempotencyKey,
    Path(id): Path<Uuid>,
    Json(request): Json<PlayRequest>,
) -> Result<axum::response::Response, AppError> {
    play(&state, &caller, key, id, request, true).await
}

#[utoipa::path(
    post, path = "/v1/craps/sessions/{id}/bets", tag = "craps", request_body = PlayRequest,
    params(("id" = Uuid, Path, description = "session id"),
           ("Idempotency-Key" = String, Header, description = "required: a retry with the same key answers the same change")),
    responses(
        (status = 201, description = "the changes made (bets made, reduced, taken down, called on or off), no roll", body = PlayView),
        (status = 200, description = "a replay: this key's changes", body = PlayView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/craps/sessions/{id}/bets`: changes to the layout without a roll.
pub async fn change_bets(
    State(state): State<TablesState>,
    caller: Caller,
    key: IdempotencyKey,
    Path(id): Path<Uuid>,
    Json(request): Json<PlayRequest>,
) -> Result<axum::response::Response, AppError> {
    play(&state, &caller, key, id, request, false).await
}

#[utoipa::path(
    get, path = "/v1/craps/recall", tag = "craps", operation_id = "craps_recall",
    responses((status = 200, description = "the player's last 10 rolls: the dice, every bet decided, the changes, the money and the balance before and after", body = Vec<RollView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/craps/recall`: game recall, the last 10 rolls.
pub async fn recall(
    State(state): State<TablesState>,
    caller: Caller,
) -> Result<Json<Vec<RollView>>, AppError> {
    caller.require(&[Role::Player])?;
    let rolls = store::recent_rolls(&state.pool, caller.subject(), 10).await?;
    Ok(Json(rolls.iter().map(roll_view).collect()))
}

#[utoipa::path(
    get, path = "/v1/craps/math", tag = "craps", operation_id = "craps_math",
    responses((status = 200, description = "every wager's house edge per unit and per roll as exact fractions, power odds, and the text's ambiguities with every reading (public)", body = MathView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/craps/math`: public; counted once per process.
pub async fn math(State(state): State<TablesState>) -> axum::response::Response {
    static MATH: OnceLock<serde_json::Value> = OnceLock::new();
    let rules = state.craps.limits.rules;
    let view = MATH.get_or_init(|| serde_json::to_value(math_view(rules)).unwrap_or_default());
    axum::response::IntoResponse::into_response(axum::Json(view.clone()))
}
