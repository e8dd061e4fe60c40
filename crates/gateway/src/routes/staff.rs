//! Operators' work: staff accounts, retailers and their terminals' API keys
//! ([`crate::saga::staff`]).

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use ledger_api::wire::Page;
use platform::auth::Role;
use platform::openapi::Refused;
use platform::{AppError, Json, PageParams, Path, Query, codes};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::saga::staff as saga;
use crate::views::players::StaffReason;
use crate::views::staff::{
    MailQuery, MailView, NewRetailer, NewStaff, NewStaffView, NewTerminal, NewTerminalView, Retailer,
    RetailerChange, StaffMember, TerminalView,
};

const READERS: &[Role] = &[Role::Operator, Role::Auditor];
const WRITERS: &[Role] = &[Role::Operator];

#[utoipa::path(
    post, path = "/v1/staff", tag = "administration", request_body = NewStaff,
    responses((status = 201, description = "created", body = NewStaffView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `POST /v1/staff`: operators add a staff member (operator or auditor).
pub async fn add_staff(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Json(request): Json<NewStaff>,
) -> Result<(StatusCode, Json<NewStaffView>), AppError> {
    caller.require(WRITERS)?;
    let created_by = Some(caller.subject_id()?);
    let id = saga::create_staff(
        &state.pool,
        &state.passwords,
        &request.username,
        request.password,
        request.role,
        created_by,
    )
    .await?;
    let username = request.username.trim().to_lowercase();
    Ok((StatusCode::CREATED, Json(NewStaffView { id, username, role: request.role })))
}

#[utoipa::path(
    get, path = "/v1/staff", tag = "administration",
    responses((status = 200, description = "operators and auditors, every one on one page", body = Page<StaffMember>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `GET /v1/staff`: operators list the staff.
pub async fn list_staff(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Page<StaffMember>>, AppError> {
    caller.require(READERS)?;
    let items =
        crate::store::staff::list_staff(&state.pool).await?.into_iter().map(StaffMember::from).collect();
    Ok(Json(Page { items, next: None }))
}

#[utoipa::path(
    post, path = "/v1/retailers", tag = "administration", request_body = NewRetailer,
    responses((status = 201, description = "created", body = Retailer), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `POST /v1/retailers`: operators add a retailer.
pub async fn add_retailer(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Json(request): Json<NewRetailer>,
) -> Result<(StatusCode, Json<Retailer>), AppError> {
    caller.require(WRITERS)?;
    let retailer = saga::add_retailer(&state.pool, &request.name, request.address.as_deref()).await?;
    Ok((StatusCode::CREATED, Json(retailer)))
}

#[utoipa::path(
    get, path = "/v1/retailers", tag = "administration",
    responses((status = 200, description = "retailers, every one on one page", body = Page<Retailer>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
/// `GET /v1/retailers`: operators list the retailers.
pub async fn list_retailers(
    State(state): State<GatewayState>,
    caller: Authenticated,
) -> Result<Json<Page<Retailer>>, AppError> {
    caller.require(READERS)?;
    let items =
        crate::store::staff::list_retailers(&state.pool).await?.into_iter().map(Retailer::from).collect();
    Ok(Json(Page { items, next: None }))
}

#[utoipa::path(
    patch, path = "/v1/retailers/{id}", tag = "administration", request_body = RetailerChange,
    params(("id" = Uuid, Path, description = "retailer id")),
    responses((status = 200, description = "the retailer as it now stands; its tills' tokens name it so from their next renewal", body = Retailer),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PATCH /v1/retailers/{id}`: operators rename a shop or change its address (receipts printed
/// before keep the names they printed).
pub async fn change_retailer(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(change): Json<RetailerChange>,
) -> Result<Json<Retailer>, AppError> {
    caller.require(WRITERS)?;
    Ok(Json(saga::change_retailer(&state.pool, id, &change).await?))
}

/// `POST /v1/retailers/{id}/terminals`: the API key is in this answer and nowhere else, ever.
#[utoipa::path(
    post, path = "/v1/retailers/{id}/terminals", tag = "administration", params(("id" = Uuid, Path, description = "retailer id")),
    request_body = NewTerminal,
    responses((status = 201, description = "created; `api_key` is shown here once and never again", body = NewTerminalView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn add_terminal(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(retailer): Path<Uuid>,
    Json(request): Json<NewTerminal>,
) -> Result<(StatusCode, [(HeaderName, HeaderValue); 2], Json<NewTerminalView>), AppError> {
    caller.require(WRITERS)?;
    let terminal = saga::add_terminal(&state.pool, retailer, &request.label).await?;
    Ok((StatusCode::CREATED, platform::http::no_store(), Json(terminal)))
}

/// `GET /v1/retailers/{id}/terminals`: operators and auditors list a retailer's terminals.
#[utoipa::path(
    get, path = "/v1/retailers/{id}/terminals", tag = "administration", params(("id" = Uuid, Path, description = "retailer id")),
    responses((status = 200, description = "the retailer's terminals, oldest first, revoked ones included; never a key, only its first characters", body = Page<TerminalView>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn list_terminals(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(retailer): Path<Uuid>,
) -> Result<Json<Page<TerminalView>>, AppError> {
    caller.require(READERS)?;
    if !crate::store::staff::retailer_exists(&state.pool, retailer).await? {
        return Err(AppError::not_found(codes::RETAILER_NOT_FOUND, format!("no retailer {retailer}")));
    }
    let items = crate::store::staff::list_terminals(&state.pool, retailer)
        .await?
        .into_iter()
        .map(TerminalView::from)
        .collect();
    Ok(Json(Page { items, next: None }))
}

/// `DELETE /v1/terminals/{id}`: the key stops working and the terminal's sessions end now.
#[utoipa::path(
    delete, path = "/v1/terminals/{id}", tag = "administration", params(("id" = Uuid, Path, description = "terminal id")),
    responses((status = 204, description = "revoked: the key and the terminal's sessions stop working now"), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn revoke_terminal(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, AppError> {
    caller.require(WRITERS)?;
    saga::revoke_terminal(&state, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /v1/mail?recipient=&after=&limit=`: the messages written to players, newest first
/// (with no relay configured, this is where they are delivered).
#[utoipa::path(
    get, path = "/v1/mail", tag = "administration", params(MailQuery),
    responses((status = 200, description = "a page of messages, newest first", body = Page<MailView>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn mail_outbox(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<MailQuery>,
) -> Result<Json<Page<MailView>>, AppError> {
    caller.require(READERS)?;
    let page = PageParams::<Uuid>::new(query.after, query.limit);
    let (after, limit) = (page.after()?, page.limit()?);
    let recipient = query.recipient.map(|r| r.trim().to_lowercase());
    let rows = crate::store::mail::page(&state.pool, recipient.as_deref(), after, limit).await?;
    let next = page.next_cursor(rows.len(), rows.last().map(|r| r.id));
    let items = rows.into_iter().map(MailView::try_from).collect::<Result<Vec<_>, _>>()?;
    Ok(Json(Page { items, next }))
}

/// `POST /v1/players/{id}/deposit-block/clear`: an operator lifts the stop five failed deposits
/// put on a player's deposits, saying why (recorded with who and when).
#[utoipa::path(
    post, path = "/v1/players/{id}/deposit-block/clear", tag = "administration",
    params(("id" = Uuid, Path, description = "player id")), request_body = StaffReason,
    responses((status = 204, description = "deposits are taken again; the action is recorded"), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn clear_deposit_block(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Path(id): Path<Uuid>,
    Json(request): Json<StaffReason>,
) -> Result<StatusCode, AppError> {
    caller.require(WRITERS)?;
    saga::clear_deposit_block(&state, &caller.0.sub, id, &request.reason).await?;
    Ok(StatusCode::NO_CONTENT)
}
