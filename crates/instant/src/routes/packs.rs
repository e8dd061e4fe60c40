//! A pack's life through the API (see [`crate::saga::packs`]): operators ship and take back,
//! the retailer's terminal confirms receipt and activates, either settles or reports it stolen;
//! and the packs listed, a retailer's own or any by game, state and retailer for staff.

use axum::extract::State;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, Json, PageParams, Path, Query};

use crate::InstantState;
use crate::saga::packs::{PackMove, move_pack, settle_pack_now};
use crate::store::PackState;
use crate::store::packs::{self, PackFilter};
use crate::views::{ListedPackView, PackCursor, PackView, PacksQuery, ShipPack};

/// The retailer a terminal acts for.
fn own_retailer(caller: &Caller) -> Result<&str, AppError> {
    caller.organization().ok_or_else(platform::auth::forbidden)
}

/// Whose rows a read may see: a retailer's terminal its own retailer's only (asking for another's
/// is forbidden), staff any retailer's, or all when none is named.
pub fn readable_retailer(caller: &Caller, asked: Option<&str>) -> Result<Option<String>, AppError> {
    if caller.role() != Role::Retailer {
        return Ok(asked.map(str::to_owned));
    }
    let own = own_retailer(caller)?;
    match asked {
        Some(other) if other != own => Err(AppError::new(
            axum::http::StatusCode::FORBIDDEN,
            codes::FORBIDDEN,
            "a terminal reads its own retailer's records only",
        )),
        _ => Ok(Some(own.to_owned())),
    }
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/ship", tag = "instant", request_body = ShipPack,
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "shipped to the retailer: printed → shipped", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/ship`: operators; printed → shipped.
pub async fn ship(
    State(state): State<InstantState>,
    caller: Caller,
    Path(pack): Path<(i32, i32)>,
    Json(request): Json<ShipPack>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Operator])?;
    // Retailers are the gateway's (which checks this one exists before the request gets here);
    // an id is at most 64 visible characters, so no request can brick a pack with a junk owner.
    let id = &request.retailer_id;
    if !(1..=64).contains(&id.len()) || !id.chars().all(|c| c.is_ascii_graphic()) {
        return Err(AppError::unprocessable(
            codes::INVALID_RETAILER,
            "retailer_id is 1 to 64 visible characters",
        ));
    }
    move_pack(&state, pack, PackMove::Ship, Some(id), None, caller.subject()).await.map(Json)
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/receive", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "its arrival confirmed: shipped → received", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/receive`: the terminal of the retailer it was shipped to.
pub async fn receive(
    State(state): State<InstantState>,
    caller: Caller,
    Path(pack): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let owner = own_retailer(&caller)?;
    move_pack(&state, pack, PackMove::Receive, None, Some(owner), caller.subject()).await.map(Json)
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/activate", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "active: its tickets can be validated (a shipped pack's receipt is confirmed in the same step)", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/activate`: the terminal of the retailer it was shipped
/// to; shipped or received → active.
pub async fn activate(
    State(state): State<InstantState>,
    caller: Caller,
    Path(pack): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let owner = own_retailer(&caller)?;
    move_pack(&state, pack, PackMove::Activate, None, Some(owner), caller.subject()).await.map(Json)
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/settle", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "settled: the retailer owes its price less commission", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/settle`: the terminal of the pack's retailer, or an
/// operator; active → settled. Asking again for a settled pack answers its settlement.
pub async fn settle(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator])?;
    let owner = if caller.role() == Role::Retailer { Some(own_retailer(&caller)?) } else { None };
    settle_pack_now(&state, game, book, owner).await.map(Json)
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/return", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "back at the lottery unsold: shipped or received → returned", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/return`: operators, when a pack not yet activated comes
/// back; its tickets can never be validated.
pub async fn return_pack(
    State(state): State<InstantState>,
    caller: Caller,
    Path(pack): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Operator])?;
    move_pack(&state, pack, PackMove::Return, None, None, caller.subject()).await.map(Json)
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/stolen", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "reported stolen: its tickets are refused at every counter with `pack_stolen`", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/stolen`: operators, or the terminal of the pack's
/// retailer; shipped, received or active → stolen.
pub async fn report_stolen(
    State(state): State<InstantState>,
    caller: Caller,
    Path(pack): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator])?;
    let owner = if caller.role() == Role::Retailer { Some(own_retailer(&caller)?) } else { None };
    let stolen = move_pack(&state, pack, PackMove::ReportStolen, None, owner, caller.subject()).await?;
    // Logged once it is so: a refused report (no such pack, not this retailer's) is not a theft.
    tracing::warn!(game = pack.0, book = pack.1, by = caller.subject(), "pack reported stolen");
    Ok(Json(stolen))
}

#[utoipa::path(
    get, path = "/v1/instant/packs", tag = "instant", params(PacksQuery),
    responses((status = 200, description = "packs by game and book", body = ledger_api::wire::Page<ListedPackView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/packs`: a retailer's terminal its own packs; operators, auditors and services
/// any, by game, state and retailer.
pub async fn list_packs(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<PacksQuery>,
) -> Result<Json<ledger_api::wire::Page<ListedPackView>>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    let retailer = readable_retailer(&caller, query.retailer_id.as_deref())?;
    let pack_state = query
        .state
        .as_deref()
        .map(|s| {
            PackState::parse(s).map_err(|_| {
                AppError::bad_request(
                    codes::INVALID_QUERY,
                    "state is printed, shipped, received, active, settled, returned or stolen",
                )
            })
        })
        .transpose()?;
    let page = PageParams::<PackCursor>::new(query.after, query.limit);
    let limit = page.limit()?;
    let after = page.after()?.map(|c| (c.game, c.book));
    let filter = PackFilter { game: query.game, state: pack_state, retailer_id: retailer.as_deref(), after };
    let rows = packs::list(&state.pool, &filter, limit).await?;
    let next = page.next_cursor(rows.len(), rows.last().map(|p| PackCursor { game: p.game, book: p.book }));
    let items = rows
        .into_iter()
        .map(|p| ListedPackView {
            game: p.game,
            book: p.book,
            state: p.state,
            retailer_id: p.retailer_id,
            shipped_at: p.shipped_at,
            received_at: p.received_at,
            activated_at: p.activated_at,
            settled_at: p.settled_at,
            returned_at: p.returned_at,
            stolen_at: p.stolen_at,
            owed_cents: p.owed_cents,
        })
        .collect();
    Ok(Json(ledger_api::wire::Page { items, next }))
}
