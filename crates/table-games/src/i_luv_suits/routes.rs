//! I Luv Suits' handlers: each authorises its caller, extracts the request, makes one call into
//! the [`super::saga`] or [`super::store`], and answers a view.

use std::sync::OnceLock;

use axum::extract::State;
use domain::i_luv_suits::{PROGRESSIVE_POT_PERCENT, PROGRESSIVE_SEED_CENTS};
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path};
use uuid::Uuid;

use super::saga;
use super::store::{self, RoundState};
use super::views::*;
use crate::TablesState;

#[utoipa::path(
    post, path = "/v1/i-luv-suits/rounds", tag = "i-luv-suits", request_body = PlaceWagers,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key plays the round once")),
    responses(
        (status = 201, description = "wagers taken, seven cards dealt to the player (the dealer's stay hidden)", body = RoundView),
        (status = 200, description = "a replay: this key's round as it stands", body = RoundView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/i-luv-suits/rounds`: wagers placed, cards dealt.
pub async fn place_wagers(
    State(state): State<TablesState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PlaceWagers>,
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let (round, created) = saga::place_wagers(&state, caller.subject(), key, &request.wagers()).await?;
    if round.state == RoundState::Refused {
        // The ledger's own refusal, kept with the round.
        let code = round.refusal.unwrap_or_else(|| codes::STAKE_REFUSED.as_str().to_owned());
        let detail = "the wagers could not be taken from your wallet";
        return Err(AppError::relayed(axum::http::StatusCode::UNPROCESSABLE_ENTITY, code, detail));
    }
    if created {
        platform::metrics::count_play(ledger_api::Game::ILuvSuits.label(), "online");
    }
    let location = format!("/v1/i-luv-suits/rounds/{}", round.id);
    Ok(platform::http::created_or_replayed(round_view(&round), created, Some(&location)))
}

#[utoipa::path(
    post, path = "/v1/i-luv-suits/rounds/{id}/decision", tag = "i-luv-suits", request_body = DecisionRequest,
    params(("id" = Uuid, Path, description = "round id")),
    responses((status = 200, description = "the decision made and the round settled: the dealer's hand shown", body = RoundView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/i-luv-suits/rounds/{id}/decision`: fold, or play (111-301-75(a)(2)).
pub async fn decide(
    State(state): State<TablesState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Json(request): Json<DecisionRequest>,
) -> Result<Json<RoundView>, AppError> {
    caller.require(&[Role::Player])?;
    let choice = |ante_cents| request.choice(ante_cents);
    let round = saga::decide(&state, id, Some(caller.subject()), Some(&choice)).await?;
    Ok(Json(round_view(&round)))
}

#[utoipa::path(
    get, path = "/v1/i-luv-suits/rounds/{id}", tag = "i-luv-suits", operation_id = "get_i_luv_suits_round",
    params(("id" = Uuid, Path, description = "round id")),
    responses((status = 200, description = "the round", body = RoundView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/i-luv-suits/rounds/{id}`: the player's own round; operators and auditors see any.
pub async fn get_round(
    State(state): State<TablesState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<RoundView>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match store::load_round(&state.pool, id).await? {
        Some(round) if caller.role() != Role::Player || round.player_id == caller.subject() => {
            Ok(Json(round_view(&round)))
        }
        _ => Err(AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist"))),
    }
}

#[utoipa::path(
    get, path = "/v1/i-luv-suits/recall", tag = "i-luv-suits", operation_id = "i_luv_suits_recall",
    responses((status = 200, description = "the player's last 10 rounds: every card, decision, wager, and the balance before and after", body = Vec<RoundView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/i-luv-suits/recall`: game recall, the last 10 rounds.
pub async fn recall(
    State(state): State<TablesState>,
    caller: Caller,
) -> Result<Json<Vec<RoundView>>, AppError> {
    caller.require(&[Role::Player])?;
    let rounds = store::recent_rounds(&state.pool, caller.subject(), 10).await?;
    Ok(Json(rounds.iter().map(round_view).collect()))
}

#[utoipa::path(
    get, path = "/v1/i-luv-suits/table", tag = "i-luv-suits",
    responses((status = 200, description = "the posted limits and the progressive meter, a ledger balance (public)", body = TableView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/i-luv-suits/table`: public.
pub async fn table(State(state): State<TablesState>) -> Result<Json<TableView>, AppError> {
    let game = &state.i_luv_suits;
    Ok(Json(TableView {
        rules: game.limits.rules,
        pot_cents: state.ledger.balance(game.pot_account).await?,
        seed_cents: PROGRESSIVE_SEED_CENTS,
        contribution_percent: PROGRESSIVE_POT_PERCENT,
    }))
}

#[utoipa::path(
    get, path = "/v1/i-luv-suits/math", tag = "i-luv-suits", operation_id = "i_luv_suits_math",
    responses((status = 200, description = "the base game's house edge under the best decisions (every reading), the side wagers' and the progressive's exact returns, and the ambiguities of the text (public)", body = MathView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/i-luv-suits/math`: public; counted once per process.
pub async fn math(State(state): State<TablesState>) -> axum::response::Response {
    static MATH: OnceLock<serde_json::Value> = OnceLock::new();
    let wager = state.i_luv_suits.limits.rules.progressive_wager_cents;
    let view = MATH.get_or_init(|| serde_json::to_value(math_view(wager)).unwrap_or_default());
    axum::response::IntoResponse::into_response(axum::Json(view.clone()))
}
