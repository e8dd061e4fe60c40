//! Where the player is ([`crate::saga::location`]): the player's device checked by the
//! geolocation provider, the last check of the login, and a player's checks for staff.

use axum::extract::State;
use axum::http::StatusCode;
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::rate_limit::ClientAddress;
use crate::saga::location as saga;
use crate::views::location::{LocationCheckRequest, LocationCheckView};

/// `POST /v1/me/location-checks`: the player's device checked by the geolocation provider, from
/// the address this request comes from. Answered with the check whatever it found (an online
/// stake passes only on one `inside`, in this login, from this address, for 20 minutes).
#[utoipa::path(
    post, path = "/v1/me/location-checks", operation_id = "check_location", tag = "players", request_body = LocationCheckRequest,
    responses((status = 201, description = "the check, as kept", body = LocationCheckView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn check(
    State(state): State<GatewayState>,
    ClientAddress(ip): ClientAddress,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<LocationCheckRequest>,
) -> Result<(StatusCode, Json<LocationCheckView>), AppError> {
    Ok((StatusCode::CREATED, Json(saga::check(&state, &caller, ip, request).await?)))
}

/// `GET /v1/me/location`: the last location check of this login.
#[utoipa::path(
    get, path = "/v1/me/location", operation_id = "my_location", tag = "players",
    responses((status = 200, description = "the login's last check", body = LocationCheckView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn mine(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<LocationCheckView>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(saga::mine(&state, &caller).await?))
}

/// `GET /v1/players/{id}/location-checks`: a player's last 100 location checks, newest first,
/// for operators and auditors.
#[utoipa::path(
    get, path = "/v1/players/{id}/location-checks", operation_id = "player_location_checks", tag = "administration", params(("id" = Uuid, Path, description = "player id")),
    responses((status = 200, description = "the checks, newest first", body = Vec<LocationCheckView>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn of_player(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<Vec<LocationCheckView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::of_player(&state, id).await?))
}
