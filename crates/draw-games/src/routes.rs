//! The draw games' handlers: each authorises its caller, extracts the request, makes one call
//! into [`crate::saga`] or [`crate::store`], and answers a view.

use axum::extract::State;
use axum::http::StatusCode;
use domain::keno::Ticket;
use domain::keno::math::{ParRow, par_sheet};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use uuid::Uuid;

use crate::DrawsState;
use crate::rules::rule_error;
use crate::saga::{play_now, scheduled};
use crate::store::tickets::{self, DrawTicket, PlayNowTicket, StoredTicket};
use crate::views::*;

fn limit_of(query: &ListQuery) -> Result<i64, AppError> {
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(AppError::bad_request("invalid_limit", "limit must be 1 to 100"));
    }
    Ok(limit)
}

/// Ticket `id` of either kind, if `caller` may see it: a player sees only their own; operators,
/// auditors and services see any.
async fn visible<T: StoredTicket>(state: &DrawsState, caller: &Caller, id: Uuid) -> Result<T, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match tickets::load::<T>(&state.pool, id).await? {
        Some(ticket) if caller.role() != Role::Player || ticket.player() == caller.subject() => Ok(ticket),
        _ => Err(AppError::not_found("ticket_not_found", format!("ticket {id} does not exist"))),
    }
}

/// A refused stake as the buyer hears it.
fn stake_refused(refusal: Option<String>) -> AppError {
    AppError::unprocessable(
        refusal.unwrap_or_else(|| "stake_refused".to_owned()),
        "the stake could not be taken from your wallet",
    )
}

fn created_or_replayed(created: bool) -> StatusCode {
    if created { StatusCode::CREATED } else { StatusCode::OK }
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
) -> Result<(StatusCode, Json<TicketView>), AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let ticket =
        Ticket::new(request.option, &request.spots, request.tickets.unwrap_or(1), state.settings.max_tickets)
            .map_err(|e| rule_error(&e))?;
    let (view, created) = play_now::play(&state, caller.subject(), key, &ticket).await?;
    if view.state == "refused" {
        return Err(stake_refused(view.refusal));
    }
    Ok((created_or_replayed(created), Json(view)))
}

#[utoipa::path(
    get, path = "/v1/keno/tickets", tag = "keno", params(ListQuery),
    responses(
        (status = 200, description = "the player's newest tickets", body = Vec<TicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/tickets`: the caller's own newest tickets.
pub async fn my_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<TicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let mine =
        tickets::list_for_player::<PlayNowTicket>(&state.pool, caller.subject(), limit_of(&query)?).await?;
    Ok(Json(mine.iter().map(play_now::view).collect::<Result<_, _>>()?))
}

#[utoipa::path(
    get, path = "/v1/keno/tickets/{id}", tag = "keno", params(("id" = Uuid, Path, description = "ticket id")),
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
) -> Result<(StatusCode, Json<DrawTicketView>), AppError> {
    caller.require(&[Role::Player])?;
    let key = key.required()?;
    let ticket =
        Ticket::new(request.option, &request.spots, request.tickets.unwrap_or(1), state.settings.max_tickets)
            .map_err(|e| rule_error(&e))?;
    let draws = request.draws.unwrap_or(1);
    if !(1..=state.settings.max_draws).contains(&draws) {
        return Err(AppError::unprocessable(
            "draws_out_of_range",
            format!("a ticket joins 1 to {} consecutive draws", state.settings.max_draws),
        ));
    }
    let (view, created) = scheduled::buy(&state, caller.subject(), key, &ticket, draws).await?;
    if view.state == "refused" {
        return Err(stake_refused(view.refusal));
    }
    Ok((created_or_replayed(created), Json(view)))
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets", tag = "keno", params(ListQuery), operation_id = "my_tickets",
    responses(
        (status = 200, description = "the player's newest tickets for scheduled draws", body = Vec<DrawTicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/draw-tickets`: the caller's own newest tickets for scheduled draws.
pub async fn my_draw_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<DrawTicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let mine =
        tickets::list_for_player::<DrawTicket>(&state.pool, caller.subject(), limit_of(&query)?).await?;
    let mut views = Vec::with_capacity(mine.len());
    for ticket in &mine {
        views.push(scheduled::view(&state, ticket).await?);
    }
    Ok(Json(views))
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets/{id}", tag = "keno", params(("id" = Uuid, Path, description = "ticket id")),
    operation_id = "get_ticket",
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
    get, path = "/v1/keno/draws", tag = "keno", params(ListQuery),
    responses((status = 200, description = "the newest draws, from the one open for sales back (public)", body = Vec<DrawView>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/draws`: public.
pub async fn list_draws(
    State(state): State<DrawsState>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<DrawView>>, AppError> {
    let next = state.schedule.next_after(state.clock.now());
    Ok(Json(crate::store::draws::list(&state.pool, next, limit_of(&query)?).await?))
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
    crate::store::draws::get(&state.pool, number)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::not_found("draw_not_found", format!("draw {number} does not exist")))
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
    get, path = "/v1/keno/math", tag = "keno",
    responses((status = 200, description = "the PAR sheet: exact return to player and hit frequency per option and spot count (public)", body = Vec<Object>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/math`: public.
pub async fn math() -> Json<Vec<ParRow>> {
    Json(par_sheet())
}

#[utoipa::path(
    get, path = "/v1/powerball/math", tag = "powerball", operation_id = "powerball_math",
    responses((status = 200, description = "Powerball's exact math: each tier's probability as a fraction, the any-prize odds, the fixed prizes' return with and without Power Play for both multiplier drums, and the break-even grand prize (public)", body = Object),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/powerball/math`: public.
pub async fn powerball_math() -> Json<domain::powerball::math::PowerballMath> {
    Json(domain::powerball::math::powerball_math())
}

fn powerball_view(
    stored: &crate::store::powerball::StoredDrawing,
    resumes_at: Option<chrono::DateTime<chrono::Utc>>,
) -> PowerballDrawView {
    PowerballDrawView {
        draw_date: stored.date,
        sales_close_at: stored.sales_close_at,
        sales_resume_at: stored.sales_resume_at,
        draw_at: stored.draw_at,
        sales_open: resumes_at.is_none(),
        resumes_at,
        advertised_cents: stored.advertised_cents,
        cash_value_cents: stored.cash_value_cents,
        power_play_balls: stored.advertised_cents.map(|cents| {
            match domain::powerball::PowerPlayBalls::for_grand_prize(cents) {
                domain::powerball::PowerPlayBalls::WithTenX => "with_ten_x",
                domain::powerball::PowerPlayBalls::WithoutTenX => "without_ten_x",
            }
            .to_owned()
        }),
        state: stored.state.clone(),
    }
}

#[utoipa::path(
    get, path = "/v1/powerball/draws/next", tag = "powerball",
    responses((status = 200, description = "the drawing plays are sold for now (or, while sales are closed, the one they resume for), its times and its advertised grand prize (public)", body = PowerballDrawView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/powerball/draws/next`: public.
pub async fn next_powerball_draw(
    State(state): State<DrawsState>,
) -> Result<Json<PowerballDrawView>, AppError> {
    use domain::powerball::schedule::SaleWindow;
    let (drawing, resumes_at) = match state.powerball.sale_window(state.clock.now()) {
        SaleWindow::Open(drawing) => (drawing, None),
        SaleWindow::Closed { resumes_at, .. } => (state.powerball.next_open(resumes_at), Some(resumes_at)),
    };
    let stored = crate::store::powerball::ensure(&state.pool, &drawing).await?;
    Ok(Json(powerball_view(&stored, resumes_at)))
}

#[utoipa::path(
    put, path = "/v1/powerball/draws/{date}/grand-prize", tag = "powerball", request_body = GrandPrizeRequest,
    params(("date" = String, Path, description = "the draw day, central time (YYYY-MM-DD)")),
    responses((status = 200, description = "the drawing's advertised grand prize and its cash value set", body = PowerballDrawView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/powerball/draws/{date}/grand-prize`: operators set a drawing's advertised grand prize
/// and its cash value until its sales close (111-5-24(a)).
pub async fn set_powerball_grand_prize(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(date): Path<chrono::NaiveDate>,
    Json(request): Json<GrandPrizeRequest>,
) -> Result<Json<PowerballDrawView>, AppError> {
    caller.require(&[Role::Operator])?;
    if !domain::powerball::schedule::is_draw_day(date) {
        return Err(AppError::unprocessable(
            "not_a_draw_day",
            format!("{date} has no Powerball drawing (Monday, Wednesday and Saturday do)"),
        ));
    }
    let (advertised, cash) = (request.advertised_cents, request.cash_value_cents);
    if !(1..=domain::Amount::MAX_CENTS).contains(&advertised) || !(1..=advertised).contains(&cash) {
        return Err(AppError::unprocessable(
            "invalid_grand_prize",
            "the advertised grand prize is positive, and its cash value positive and at most it",
        ));
    }
    let drawing = state.powerball.drawing_on(date);
    let closed = || {
        AppError::conflict(
            "sales_closed",
            format!(
                "sales for {date} closed at {}: its grand prize stands",
                drawing.sales_close.to_rfc3339()
            ),
        )
    };
    if state.clock.now() >= drawing.sales_close {
        return Err(closed());
    }
    crate::store::powerball::ensure(&state.pool, &drawing).await?;
    let stored = crate::store::powerball::set_grand_prize(&state.pool, date, advertised, cash)
        .await?
        .ok_or_else(closed)?;
    Ok(Json(powerball_view(&stored, None)))
}

#[utoipa::path(
    get, path = "/v1/draws/audit/verify", tag = "keno",
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
