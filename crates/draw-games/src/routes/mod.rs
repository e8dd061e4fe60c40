//! The draw games' handlers: each authorises its caller, extracts the request, makes one call
//! into [`crate::saga`] or [`crate::store`], and answers a view. By game: [`keno`], [`powerball`] (sales and drawings) and [`powerball_claims`] (prizes paid);
//! [`live`] streams both games' draws; here, what serves both (the audit chain, voids).

use axum::extract::State;
use axum::response::Response;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use uuid::Uuid;

use crate::DrawsState;
use crate::views::{VoidReport, VoidRequest};

mod keno;
mod live;
mod powerball;
mod powerball_claims;
pub use keno::*;
pub use live::*;
pub use powerball::*;
pub use powerball_claims::*;

/// One page of a listing: `items`, and `next` to pass as `after` for the following page.
pub(crate) type Page<T> = ledger_api::wire::Page<T>;

/// 201 with the ticket's `Location` when bought now, 200 when the key bought it before
/// (`Idempotent-Replayed` says which).
pub(crate) fn created_or_replayed<T: serde::Serialize>(view: T, created: bool, location: &str) -> Response {
    platform::http::created_or_replayed(view, created, Some(location))
}

#[utoipa::path(
    get, path = "/v1/draws/audit/verify", tag = "keno", operation_id = "verify_draws_audit",
    responses((status = 200, description = "the audit chain walked end to end", body = platform::audit::ChainReport),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/draws/audit/verify`: operators and auditors check every outcome's chain.
pub async fn verify_audit(
    State(state): State<DrawsState>,
    caller: Caller,
) -> Result<Json<platform::audit::ChainReport>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(Json(platform::audit::verify(&state.pool).await?))
}

#[utoipa::path(
    post, path = "/v1/draws/players/{player}/void-future-tickets", tag = "responsible gaming",
    params(("player" = Uuid, Path, description = "the player's id")), request_body = VoidRequest,
    responses((status = 200, description = "every ticket taken out of its draws not yet closed, each refunded", body = VoidReport),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/draws/players/{player}/void-future-tickets`: the gateway (or an operator), once a
/// player's play is suspended, voids their Keno and online Powerball tickets for draws not yet
/// closed and returns each one's stake to the wallet; asking again finishes what is left.
pub async fn void_future_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(player): Path<Uuid>,
    Json(request): Json<VoidRequest>,
) -> Result<Json<VoidReport>, AppError> {
    caller.require(&[Role::Operator, Role::Service])?;
    Ok(Json(crate::saga::voids::void_future_tickets(&state, &player.to_string(), request.reason).await?))
}
