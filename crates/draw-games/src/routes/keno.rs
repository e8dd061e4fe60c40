//! Castle Keno's handlers: tickets played now and for scheduled draws, the draws, the pay
//! tables and the game's math.

use axum::extract::State;
use axum::response::Response;
use domain::keno::Ticket;
use domain::keno::math::{ParRow, par_sheet};
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, PageParams, Path, Query};
use uuid::Uuid;

use crate::DrawsState;
use crate::rules::rule_error;
use crate::saga::keno::{play_now, scheduled};
use crate::store::keno::tickets::{self, DrawTicket, PlayNowTicket, StoredTicket};
use crate::store::{DrawTicketState, PlayNowState};
use crate::views::*;

use super::{Page, created_or_replayed};

/// The cursor of the next page of tickets: the last one's time and id, when the page is full.
fn ticket_cursor(
    page: &PageParams<platform::TimeIdCursor>,
    returned: usize,
    last: Option<(chrono::DateTime<chrono::Utc>, Uuid)>,
) -> Option<String> {
    page.next_cursor(returned, last.map(|(at, id)| platform::TimeIdCursor { at, id }))
}

/// Ticket `id` of either kind, if `caller` may see it: a player sees only their own; operators,
/// auditors and services see any.
async fn visible<T: StoredTicket>(state: &DrawsState, caller: &Caller, id: Uuid) -> Result<T, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match tickets::load::<T>(&state.pool, id).await? {
        Some(ticket) if caller.role() != Role::Player || ticket.player() == caller.subject() => Ok(ticket),
        _ => Err(AppError::not_found(codes::TICKET_NOT_FOUND, format!("ticket {id} does not exist"))),
    }
}

/// A refused stake as the buyer hears it.
fn stake_refused(refusal: Option<String>) -> AppError {
    AppError::relayed(
        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
        refusal.unwrap_or_else(|| codes::STAKE_REFUSED.as_str().to_owned()),
        "the stake could not be taken from your wallet",
    )
}

#[utoipa::path(
    post, path = "/v1/keno/tickets", tag = "keno", request_body = PlayRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key buys the ticket once")),
    responses(
        (status = 201, description = "bought, drawn and settled", body = TicketView),
        (status = 200, description = "a replay: this key's ticket as it stands", body = TicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/keno/tickets`: a player buys a ticket that is drawn at once.
pub async fn play_now(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PlayRequest>,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let ticket = Ticket::new(
        request.option,
        &request.spots,
        request.tickets.unwrap_or(1),
        state.settings.keno.max_tickets,
    )
    .map_err(|e| rule_error(&e))?;
    let (view, created) = play_now::play(&state, caller.subject(), key, &ticket).await?;
    if view.state == PlayNowState::Refused {
        return Err(stake_refused(view.refusal));
    }
    if created {
        platform::metrics::count_play(ledger_api::Game::CastleKeno.label(), "online");
    }
    let location = format!("/v1/keno/tickets/{}", view.id);
    Ok(created_or_replayed(view, created, &location))
}

#[utoipa::path(
    get, path = "/v1/keno/tickets", tag = "keno", params(PageParams<platform::TimeIdCursor>), operation_id = "my_keno_tickets",
    responses(
        (status = 200, description = "a page of the player's tickets, newest first", body = Page<TicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/tickets`: the caller's own newest tickets.
pub async fn my_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(page): Query<PageParams<platform::TimeIdCursor>>,
) -> Result<Json<Page<TicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let mine = tickets::list_for_player::<PlayNowTicket>(
        &state.pool,
        caller.subject(),
        page.after()?,
        page.limit()?,
    )
    .await?;
    let items: Vec<TicketView> = mine.iter().map(play_now::view).collect::<Result<_, _>>()?;
    let next = ticket_cursor(&page, items.len(), items.last().map(|t| (t.created_at, t.id)));
    Ok(Json(Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/keno/tickets/{id}", tag = "keno", operation_id = "get_keno_ticket", params(("id" = Uuid, Path, description = "ticket id")),
    responses(
        (status = 200, description = "the ticket", body = TicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/tickets/{id}`: a player's own ticket; operators and auditors see any.
pub async fn get_ticket(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<TicketView>, AppError> {
    let ticket = visible::<PlayNowTicket>(&state, &caller, id).await?;
    Ok(Json(play_now::view(&ticket)?))
}

#[utoipa::path(
    post, path = "/v1/keno/draw-tickets", tag = "keno", request_body = DrawTicketRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key buys the ticket once")),
    responses(
        (status = 201, description = "staked and entered in its draws", body = DrawTicketView),
        (status = 200, description = "a replay: this key's ticket as it stands", body = DrawTicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `POST /v1/keno/draw-tickets`: a player buys a ticket for the next draw or the next N draws.
pub async fn buy(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<DrawTicketRequest>,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let ticket = Ticket::new(
        request.option,
        &request.spots,
        request.tickets.unwrap_or(1),
        state.settings.keno.max_tickets,
    )
    .map_err(|e| rule_error(&e))?;
    let draws = request.draws.unwrap_or(1);
    if !(1..=state.settings.keno.max_draws).contains(&draws) {
        return Err(AppError::unprocessable(
            codes::DRAWS_OUT_OF_RANGE,
            format!("a ticket joins 1 to {} consecutive draws", state.settings.keno.max_draws),
        ));
    }
    let (view, created) = scheduled::buy(&state, caller.subject(), key, &ticket, draws).await?;
    if view.state == DrawTicketState::Refused {
        return Err(stake_refused(view.refusal));
    }
    if created {
        platform::metrics::count_play(ledger_api::Game::CastleKeno.label(), "online");
    }
    let location = format!("/v1/keno/draw-tickets/{}", view.id);
    Ok(created_or_replayed(view, created, &location))
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets", tag = "keno", params(PageParams<platform::TimeIdCursor>), operation_id = "my_keno_draw_tickets",
    responses(
        (status = 200, description = "a page of the player's tickets for scheduled draws, newest first", body = Page<DrawTicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/draw-tickets`: the caller's own newest tickets for scheduled draws.
pub async fn my_draw_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(page): Query<PageParams<platform::TimeIdCursor>>,
) -> Result<Json<Page<DrawTicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let mine =
        tickets::list_for_player::<DrawTicket>(&state.pool, caller.subject(), page.after()?, page.limit()?)
            .await?;
    let mut items = Vec::with_capacity(mine.len());
    for ticket in &mine {
        items.push(scheduled::view(&state, ticket).await?);
    }
    let next = ticket_cursor(&page, items.len(), items.last().map(|t: &DrawTicketView| (t.created_at, t.id)));
    Ok(Json(Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets/{id}", tag = "keno", operation_id = "get_keno_draw_ticket", params(("id" = Uuid, Path, description = "ticket id")),
    responses(
        (status = 200, description = "the ticket and its draws", body = DrawTicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/draw-tickets/{id}`: a player's own ticket; operators and auditors see any.
pub async fn get_draw_ticket(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<DrawTicketView>, AppError> {
    let ticket = visible::<DrawTicket>(&state, &caller, id).await?;
    Ok(Json(scheduled::view(&state, &ticket).await?))
}

#[utoipa::path(
    get, path = "/v1/keno/draws", tag = "keno", params(PageParams<i64>),
    responses((status = 200, description = "a page of draws, newest first, from the one on sale back (public); the cursor is a draw number", body = Page<DrawView>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/draws`: public.
pub async fn list_draws(
    State(state): State<DrawsState>,
    Query(page): Query<PageParams<i64>>,
) -> Result<Json<Page<DrawView>>, AppError> {
    let on_sale = state.schedule.next_after(state.clock.now());
    // The cursor is the last draw number shown; the next page starts below it.
    let up_to = page.after()?.map_or(on_sale, |last| last.saturating_sub(1).min(on_sale));
    let items: Vec<DrawView> = crate::store::keno::draws::list(&state.pool, up_to, page.limit()?)
        .await?
        .into_iter()
        .map(DrawView::from)
        .collect();
    let next = page.next_cursor(items.len(), items.last().map(|d| d.number));
    Ok(Json(Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/keno/draws/{number}", tag = "keno", params(("number" = i64, Path, description = "draw number")),
    responses((status = 200, description = "one draw (public)", body = DrawView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/draws/{number}`: public.
pub async fn get_draw(
    State(state): State<DrawsState>,
    Path(number): Path<i64>,
) -> Result<Json<DrawView>, AppError> {
    crate::store::keno::draws::get(&state.pool, number)
        .await?
        .map(|row| Json(DrawView::from(row)))
        .ok_or_else(|| AppError::not_found(codes::DRAW_NOT_FOUND, format!("draw {number} does not exist")))
}

#[utoipa::path(
    get, path = "/v1/keno/paytables", tag = "keno",
    responses((status = 200, description = "every option's pay table (public)", body = Vec<PayTable>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/paytables`: public.
pub async fn paytables() -> Json<Vec<PayTable>> {
    Json(crate::rules::pay_tables())
}

#[utoipa::path(
    get, path = "/v1/keno/math", tag = "keno", operation_id = "keno_math",
    responses((status = 200, description = "the PAR sheet: exact return to player and hit frequency per option and spot count (public)", body = Vec<ParRow>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/math`: public.
pub async fn math() -> Json<Vec<ParRow>> {
    Json(par_sheet())
}
