//! The player file and its check ([`crate::saga::identity`]): the player submits it, the
//! provider's webhook decides it, operators decide what the provider sent to review.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, PlayerSession};
use crate::saga::identity as saga;
use crate::views::identity::{IdentityDecision, IdentityEvent, IdentitySubmission, IdentityView};

/// `PUT /v1/me/identity`: the player's file sent to the identity provider (the address
/// confirmed first). Answers it `pending`, with the page where the player finishes the check.
#[utoipa::path(
    put, path = "/v1/me/identity", operation_id = "submit_identity", tag = "players", request_body = IdentitySubmission,
    responses((status = 202, description = "sent to the provider: open `verification_url` to finish", body = IdentityView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn submit(
    State(state): State<GatewayState>,
    PlayerSession(caller): PlayerSession,
    Json(request): Json<IdentitySubmission>,
) -> Result<(StatusCode, Json<IdentityView>), AppError> {
    Ok((StatusCode::ACCEPTED, Json(saga::submit(&state, &caller, request).await?)))
}

/// `GET /v1/me/identity`: the player's file and where its check stands.
#[utoipa::path(
    get, path = "/v1/me/identity", operation_id = "my_identity", tag = "players",
    responses((status = 200, description = "the player file (the SSN's digits are never shown)", body = IdentityView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn mine(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<IdentityView>, AppError> {
    caller.require(&[Role::Player])?;
    Ok(Json(saga::mine(&state, caller.subject_id()?).await?))
}

/// The provider's answer to a delivery.
#[derive(Debug, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct IdentityReceipt {
    /// Whether this delivery was taken before (nothing more was done).
    pub replayed: bool,
}

/// `POST /v1/identity/webhook`: the identity provider's signed notice that a session was decided
/// (the decision itself is fetched from the provider). Authenticated by its signature.
#[utoipa::path(
    post, path = "/v1/identity/webhook", tag = "players", operation_id = "identity_webhook", request_body = IdentityEvent,
    params(("Lotto-Signature" = String, Header, description = "t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">")),
    responses((status = 200, description = "taken, or a replay of a delivery taken before", body = IdentityReceipt), (status = "4XX", response = Refused)),
    security(())
)]
pub async fn webhook(
    State(state): State<GatewayState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<IdentityReceipt>, AppError> {
    let taken = saga::take_webhook(&state, &headers, &body).await;
    platform::metrics::count_webhook("identity", taken.as_ref().copied());
    Ok(Json(IdentityReceipt { replayed: taken? }))
}

/// `GET /v1/identity/reviews`: the player files the provider sent to an operator, oldest first.
#[utoipa::path(
    get, path = "/v1/identity/reviews", operation_id = "identity_reviews", tag = "administration",
    responses((status = 200, description = "the files in review", body = Vec<IdentityView>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn reviews(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Vec<IdentityView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::reviews(&state).await?))
}

/// `GET /v1/players/{id}/identity`: a player's file, for operators and auditors.
#[utoipa::path(
    get, path = "/v1/players/{id}/identity", operation_id = "player_identity", tag = "administration", params(("id" = Uuid, Path, description = "player id")),
    responses((status = 200, description = "the player file", body = IdentityView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn of_player(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<IdentityView>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor])?;
    Ok(Json(saga::mine(&state, id).await?))
}

/// `POST /v1/players/{id}/identity/decision`: an operator decides a file in review, saying why
/// (recorded as a manual decision, with who and when).
#[utoipa::path(
    post, path = "/v1/players/{id}/identity/decision", operation_id = "decide_identity", tag = "administration", params(("id" = Uuid, Path, description = "player id")),
    request_body = IdentityDecision,
    responses((status = 200, description = "the file as decided", body = IdentityView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn decide(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(request): Json<IdentityDecision>,
) -> Result<Json<IdentityView>, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(Json(saga::decide_by_hand(&state, &caller.0.sub, id, request).await?))
}
