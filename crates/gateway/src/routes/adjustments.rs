//! Manual balance adjustments under maker-checker control ([`crate::saga::adjustments`]):
//! operators propose, approve and reject; auditors read.

use axum::extract::State;
use axum::response::Response;
use platform::auth::Role;
use platform::openapi::Refused;
use platform::page::PageParams;
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::saga::adjustments as saga;
use crate::views::adjustments::{AdjustmentProposal, AdjustmentView, AdjustmentsQuery};
use crate::views::players::StaffReason;
use ledger_api::wire::Page;

const READERS: &[Role] = &[Role::Operator, Role::Auditor];
const WRITERS: &[Role] = &[Role::Operator];

/// `POST /v1/players/{id}/adjustments` (Idempotency-Key required): an operator proposes a
/// goodwill credit or a correction, with the reason; nothing moves until another operator
/// approves it.
#[utoipa::path(
    post, path = "/v1/players/{id}/adjustments", operation_id = "propose_adjustment", tag = "administration",
    params(("id" = Uuid, Path, description = "player id"),
           ("Idempotency-Key" = String, Header, description = "required: a retry with the same key is the same proposal")),
    request_body = AdjustmentProposal,
    responses((status = 201, description = "proposed: it waits for a second operator", body = AdjustmentView),
              (status = 200, description = "a replay: the proposal as it stands", body = AdjustmentView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn propose(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    key: IdempotencyKey,
    Json(request): Json<AdjustmentProposal>,
) -> Result<Response, AppError> {
    caller.require(WRITERS)?;
    let (made, view) = saga::propose(&state, &caller.0.sub, id, key, &request).await?;
    let location = format!("/v1/adjustments/{}", view.id);
    Ok(platform::http::created_or_replayed(view, made, Some(&location)))
}

/// `GET /v1/adjustments?state=&player=&after=&limit=`: adjustments, oldest first (`state=proposed`:
/// the queue waiting for a second operator).
#[utoipa::path(
    get, path = "/v1/adjustments", operation_id = "list_adjustments", tag = "administration", params(AdjustmentsQuery),
    responses((status = 200, description = "a page of adjustments, oldest first", body = Page<AdjustmentView>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn list(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<AdjustmentsQuery>,
) -> Result<Json<Page<AdjustmentView>>, AppError> {
    caller.require(READERS)?;
    let page = PageParams::<Uuid>::new(query.after, query.limit);
    let (after, limit) = (page.after()?, page.limit()?);
    let items = saga::page(&state, query.state, query.player, after, limit).await?;
    let next = page.next_cursor(items.len(), items.last().map(|a| a.id));
    Ok(Json(Page { items, next }))
}

/// `GET /v1/adjustments/{id}`: one adjustment and where it stands.
#[utoipa::path(
    get, path = "/v1/adjustments/{id}", operation_id = "get_adjustment", tag = "administration", params(("id" = Uuid, Path, description = "adjustment id")),
    responses((status = 200, description = "the adjustment", body = AdjustmentView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn get_one(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<AdjustmentView>, AppError> {
    caller.require(READERS)?;
    Ok(Json(saga::get(&state, id).await?))
}

/// `POST /v1/adjustments/{id}/approval`: a second operator approves; the money moves through
/// the ledger once, however often this is sent.
#[utoipa::path(
    post, path = "/v1/adjustments/{id}/approval", operation_id = "approve_adjustment", tag = "administration", params(("id" = Uuid, Path, description = "adjustment id")),
    responses((status = 200, description = "approved and moved", body = AdjustmentView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn approve(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<Json<AdjustmentView>, AppError> {
    caller.require(WRITERS)?;
    Ok(Json(saga::approve(&state, &caller.0.sub, id).await?))
}

/// `POST /v1/adjustments/{id}/rejection`: an operator (the proposer too) rejects, saying why.
#[utoipa::path(
    post, path = "/v1/adjustments/{id}/rejection", operation_id = "reject_adjustment", tag = "administration", params(("id" = Uuid, Path, description = "adjustment id")),
    request_body = StaffReason,
    responses((status = 200, description = "rejected: nothing moved", body = AdjustmentView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn reject(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(request): Json<StaffReason>,
) -> Result<Json<AdjustmentView>, AppError> {
    caller.require(WRITERS)?;
    Ok(Json(saga::reject(&state, &caller.0.sub, id, &request.reason).await?))
}
