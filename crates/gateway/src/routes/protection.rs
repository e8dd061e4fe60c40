//! Player protection: the limits a player sets on their own play, and those an operator
//! imposes ([`crate::saga::protection`]).

use axum::extract::State;
use ledger_api::wire::LimitSource;
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::saga::protection as saga;
use crate::views::protection::{Limits, MoneyLimitRequest};

/// `GET /v1/me/limits`: the player's deposit and money limits, with what each has left.
#[utoipa::path(
    get, path = "/v1/me/limits", tag = "responsible gaming",
    responses((status = 200, description = "deposit limits, and loss, wager and single-stake limits with what their windows have used", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn my_limits(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(saga::limits(&state, caller.subject_id()?).await?))
}

/// `PUT /v1/me/limits`: sets a loss, wager or single-stake limit; lowering applies at once,
/// raising or removing after 24 hours.
#[utoipa::path(
    put, path = "/v1/me/limits", tag = "responsible gaming", request_body = MoneyLimitRequest,
    responses((status = 200, description = "every limit after the change", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn set_my_limit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<MoneyLimitRequest>,
) -> Result<Json<Limits>, AppError> {
    let player = caller.subject_id()?;
    saga::set_money_limit(&state, player, request, LimitSource::Player).await?;
    Ok(Json(saga::limits(&state, player).await?))
}

/// `GET /v1/players/{id}/limits`: operators and auditors read a player's limits.
#[utoipa::path(
    get, path = "/v1/players/{id}/limits", tag = "responsible gaming", params(("id" = Uuid, Path, description = "player id")),
    responses((status = 200, description = "the player's limits, their own and the operator's", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn player_limits(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::limits(&state, id).await?))
}

/// `PUT /v1/players/{id}/limits`: an operator imposes (or lifts) a limit on a player, at once;
/// the player's own limits stay, and the lower binds.
#[utoipa::path(
    put, path = "/v1/players/{id}/limits", tag = "responsible gaming", params(("id" = Uuid, Path, description = "player id")),
    request_body = MoneyLimitRequest,
    responses((status = 200, description = "the player's limits after the change", body = Limits), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn impose_limit(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(request): Json<MoneyLimitRequest>,
) -> Result<Json<Limits>, AppError> {
    caller.require(&[Role::Operator])?;
    saga::set_money_limit(&state, id, request, LimitSource::Operator).await?;
    Ok(Json(saga::limits(&state, id).await?))
}
