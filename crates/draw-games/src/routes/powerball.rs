//! Powerball's handlers: the math, the drawings (next, past, one, the operator's grand prize,
//! results mode and results entries), tickets (sold online and at terminals, read by serial, a
//! player's own listed) and claims (paid at terminals and at the office, the office's listed).

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::schedule::SaleWindow;
use domain::powerball::{Board, PowerPlayBalls};
use domain::serial::TicketSerial;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, PageParams, Path, Query};

use super::{Page, created_or_replayed};
use crate::DrawsState;
use crate::rules::powerball_rule_error;
use crate::saga::powerball::draws::Entry;
use crate::saga::powerball::sales::{Seller, Slip};
use crate::saga::powerball::{draws as powerball_draws, sales as powerball_sales};
use crate::store::{PowerballDrawState, PowerballTicketState};
use crate::store::powerball::drawings::{self, StoredDrawing};
use crate::store::powerball::settlement;
use crate::store::powerball::tickets;
use crate::views::*;

#[utoipa::path(
    get, path = "/v1/powerball/math", tag = "powerball", operation_id = "powerball_math",
    responses((status = 200, description = "Powerball's exact math: each tier's probability as a fraction, the any-prize odds, the fixed prizes' return with and without Power Play for both multiplier drums, and the break-even grand prize (public)", body = domain::powerball::math::PowerballMath),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/powerball/math`: public.
pub async fn powerball_math() -> Json<domain::powerball::math::PowerballMath> {
    Json(domain::powerball::math::powerball_math())
}

/// A drawing as shown: its results once they stand, its prize table once certified.
pub(super) async fn drawing_view(
    state: &DrawsState,
    stored: &StoredDrawing,
    resumes_at: Option<DateTime<Utc>>,
) -> Result<PowerballDrawView, AppError> {
    let prize_table = if stored.state == PowerballDrawState::Certified {
        let table = settlement::prize_table(&state.pool, stored.date).await?;
        Some(
            table
                .iter()
                .map(|l| PrizeLineView {
                    tier: settlement::tier_name(l.tier),
                    power_play: l.power_play,
                    winners: l.winners,
                    prize_cents: l.prize_cents,
                    total_cents: l.total_cents,
                })
                .collect(),
        )
    } else {
        None
    };
    Ok(PowerballDrawView {
        draw_date: stored.date,
        sales_close_at: stored.sales_close_at,
        sales_resume_at: stored.sales_resume_at,
        draw_at: stored.draw_at,
        sales_open: resumes_at.is_none() && stored.state == PowerballDrawState::Scheduled,
        resumes_at,
        advertised_cents: stored.advertised_cents,
        cash_value_cents: stored.cash_value_cents,
        power_play_balls: stored.advertised_cents.map(|cents| {
            match PowerPlayBalls::for_grand_prize(cents) {
                PowerPlayBalls::WithTenX => "with_ten_x",
                PowerPlayBalls::WithoutTenX => "without_ten_x",
            }
            .to_owned()
        }),
        state: stored.state,
        results_mode: stored.results_mode,
        tickets: stored.tickets,
        plays: stored.plays,
        wagers_cents: stored.wagers_cents,
        export_sha256: stored.export_sha256.as_deref().map(hex::encode),
        results: stored.results.map(|r| PowerballResultsView {
            whites: r.numbers.whites.to_vec(),
            powerball: r.numbers.powerball,
            multiplier: r.multiplier,
        }),
        prize_table,
        dispute: stored.dispute.clone(),
    })
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
    let (drawing, resumes_at) = match state.powerball.sale_window(state.clock.now()) {
        SaleWindow::Open(drawing) => (drawing, None),
        SaleWindow::Closed { resumes_at, .. } => (state.powerball.next_open(resumes_at), Some(resumes_at)),
    };
    let stored = drawings::ensure(&state.pool, &drawing, state.settings.powerball.results).await?;
    Ok(Json(drawing_view(&state, &stored, resumes_at).await?))
}

#[utoipa::path(
    get, path = "/v1/powerball/draws", tag = "powerball", params(PageParams<NaiveDate>),
    responses((status = 200, description = "a page of the drawings whose sales have closed (those waiting for their results too), newest first, with their results and (once certified) winners and prize per tier (public); the cursor is a draw date", body = Page<PowerballDrawView>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/powerball/draws`: public.
pub async fn list_powerball_draws(
    State(state): State<DrawsState>,
    Query(page): Query<PageParams<NaiveDate>>,
) -> Result<Json<Page<PowerballDrawView>>, AppError> {
    let mut items = Vec::new();
    for stored in drawings::list_past(&state.pool, state.clock.now(), page.after()?, page.limit()?).await? {
        items.push(drawing_view(&state, &stored, None).await?);
    }
    let next = page.next_cursor(items.len(), items.last().map(|d: &PowerballDrawView| d.draw_date));
    Ok(Json(Page { items, next }))
}

/// A draw day from the path, or a 422 that says which days have drawings.
fn draw_day(date: NaiveDate) -> Result<NaiveDate, AppError> {
    if domain::powerball::schedule::is_draw_day(date) {
        Ok(date)
    } else {
        Err(AppError::unprocessable(
            codes::NOT_A_DRAW_DAY,
            format!("{date} has no Powerball drawing (Monday, Wednesday and Saturday do)"),
        ))
    }
}

#[utoipa::path(
    get, path = "/v1/powerball/draws/{date}", tag = "powerball",
    params(("date" = NaiveDate, Path, description = "the draw day, central time (YYYY-MM-DD)")),
    responses((status = 200, description = "one drawing: times, grand prize, state, frozen wager set, results, prize table once certified (public)", body = PowerballDrawView),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/powerball/draws/{date}`: public.
pub async fn get_powerball_draw(
    State(state): State<DrawsState>,
    Path(date): Path<NaiveDate>,
) -> Result<Json<PowerballDrawView>, AppError> {
    let date = draw_day(date)?;
    let stored = drawings::get(&state.pool, date).await?.ok_or_else(|| {
        AppError::not_found(codes::DRAWING_NOT_FOUND, format!("no Powerball drawing on {date} is on record"))
    })?;
    Ok(Json(drawing_view(&state, &stored, None).await?))
}

#[utoipa::path(
    put, path = "/v1/powerball/draws/{date}/grand-prize", tag = "powerball", request_body = GrandPrizeRequest,
    params(("date" = NaiveDate, Path, description = "the draw day, central time (YYYY-MM-DD)")),
    responses((status = 200, description = "the drawing's advertised grand prize and its cash value set", body = PowerballDrawView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/powerball/draws/{date}/grand-prize`: operators set a drawing's advertised grand prize
/// and its cash value (111-5-24(a)), before its close or, when it was not set by then, until the
/// drawing is settled: a drawing without one waits for it (no draw, no settlement, no
/// certification). An amount that would take the 10x out of a drum results already came from is
/// refused.
pub async fn set_powerball_grand_prize(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(date): Path<NaiveDate>,
    Json(request): Json<GrandPrizeRequest>,
) -> Result<Json<PowerballDrawView>, AppError> {
    caller.require(&[Role::Operator])?;
    let date = draw_day(date)?;
    let (advertised, cash) = (request.advertised_cents, request.cash_value_cents);
    if !(1..=domain::Amount::MAX_CENTS).contains(&advertised) || !(1..=advertised).contains(&cash) {
        return Err(AppError::unprocessable(
            codes::INVALID_GRAND_PRIZE,
            "the advertised grand prize is positive, and its cash value positive and at most it",
        ));
    }
    let drawing = state.powerball.drawing_on(date);
    let settled = || {
        AppError::conflict(
            codes::DRAWING_SETTLED,
            format!("the {date} drawing is settled: its grand prize stands"),
        )
    };
    drawings::ensure(&state.pool, &drawing, state.settings.powerball.results).await?;
    let now = drawings::get(&state.pool, date).await?.ok_or_else(settled)?;
    if !matches!(
        now.state,
        PowerballDrawState::Scheduled | PowerballDrawState::Closed | PowerballDrawState::Drawn
    ) {
        return Err(settled());
    }
    if now.advertised_cents.is_some() && state.clock.now() >= drawing.sales_close {
        return Err(sales_closed_for(date, drawing.sales_close, "its grand prize stands"));
    }
    let drum = PowerPlayBalls::for_grand_prize(advertised);
    if now.results.as_ref().is_some_and(|r| !drum.balls().iter().any(|&(m, _)| m == r.multiplier)) {
        return Err(AppError::unprocessable(
            codes::MULTIPLIER_NOT_IN_DRUM,
            "the results stand with the 10x, which a grand prize over $150 million takes out of the drum",
        ));
    }
    let stored = drawings::set_grand_prize(&state.pool, date, advertised, cash).await?.ok_or_else(settled)?;
    Ok(Json(drawing_view(&state, &stored, None).await?))
}

fn sales_closed_for(date: NaiveDate, closed_at: DateTime<Utc>, what: &str) -> AppError {
    AppError::conflict(
        codes::SALES_CLOSED,
        format!("sales for {date} closed at {}: {what}", domain::text::lottery_time(closed_at)),
    )
}

#[utoipa::path(
    put, path = "/v1/powerball/draws/{date}/results-mode", tag = "powerball", request_body = ResultsModeRequest,
    params(("date" = NaiveDate, Path, description = "the draw day, central time (YYYY-MM-DD)")),
    responses((status = 200, description = "how the drawing's results come to stand: entered by two operators, or drawn by the service", body = PowerballDrawView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `PUT /v1/powerball/draws/{date}/results-mode`: operators, until the drawing's sales close.
pub async fn set_powerball_results_mode(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(date): Path<NaiveDate>,
    Json(request): Json<ResultsModeRequest>,
) -> Result<Json<PowerballDrawView>, AppError> {
    caller.require(&[Role::Operator])?;
    let date = draw_day(date)?;
    let drawing = state.powerball.drawing_on(date);
    let closed = || sales_closed_for(date, drawing.sales_close, "how its results stand is fixed");
    if state.clock.now() >= drawing.sales_close {
        return Err(closed());
    }
    drawings::ensure(&state.pool, &drawing, state.settings.powerball.results).await?;
    let stored =
        drawings::set_results_mode(&state.pool, date, request.results_mode).await?.ok_or_else(closed)?;
    Ok(Json(drawing_view(&state, &stored, None).await?))
}

#[utoipa::path(
    post, path = "/v1/powerball/draws/{date}/results", tag = "powerball", request_body = ResultsRequest,
    params(("date" = NaiveDate, Path, description = "the draw day, central time (YYYY-MM-DD)")),
    responses((status = 202, description = "the first entry: it waits for a different operator's", body = ResultsEntryView),
              (status = 200, description = "the second entry agreed: the results stand", body = ResultsEntryView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/powerball/draws/{date}/results`: operators enter the official results of a closed
/// drawing, two different operators agreeing (dual control).
pub async fn enter_powerball_results(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(date): Path<NaiveDate>,
    Json(request): Json<ResultsRequest>,
) -> Result<(StatusCode, Json<ResultsEntryView>), AppError> {
    caller.require(&[Role::Operator])?;
    let date = draw_day(date)?;
    let entry = powerball_draws::enter_results(
        &state,
        date,
        caller.subject(),
        &request.whites,
        request.powerball,
        request.multiplier,
    )
    .await?;
    let (status, outcome) = match &entry {
        Entry::AwaitingSecond => (StatusCode::ACCEPTED, "awaiting_second_entry"),
        Entry::Stand(_) => (StatusCode::OK, "results_stand"),
    };
    let stored = match entry {
        Entry::Stand(stored) => *stored,
        Entry::AwaitingSecond => {
            drawings::get(&state.pool, date).await?.ok_or_else(|| AppError::internal("a drawing vanished"))?
        }
    };
    Ok((
        status,
        Json(ResultsEntryView {
            outcome: outcome.to_owned(),
            drawing: drawing_view(&state, &stored, None).await?,
        }),
    ))
}

/// The slip of a sale request, checked against the rules and the settings.
fn slip_of(state: &DrawsState, request: &PowerballSaleRequest) -> Result<Slip, AppError> {
    let settings = &state.settings.powerball;
    let chosen = request
        .boards
        .iter()
        .map(|b| Board::new(&b.whites, b.powerball))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| powerball_rule_error(&e))?;
    let boards = u32::try_from(chosen.len()).unwrap_or(u32::MAX).saturating_add(request.quick_picks);
    if !(1..=settings.max_boards).contains(&boards) {
        return Err(AppError::unprocessable(
            codes::INVALID_BOARD_COUNT,
            format!("a slip has 1 to {} boards, marked or quick picks", settings.max_boards),
        ));
    }
    let draws = request.draws.unwrap_or(1);
    if !(1..=settings.max_draws).contains(&draws) {
        return Err(AppError::unprocessable(
            codes::DRAWS_OUT_OF_RANGE,
            format!("a ticket enters 1 to {} consecutive drawings", settings.max_draws),
        ));
    }
    Ok(Slip { chosen, quick_picks: request.quick_picks, power_play: request.power_play, draws })
}

#[utoipa::path(
    post, path = "/v1/powerball/tickets", tag = "powerball", request_body = PowerballSaleRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key buys the ticket once")),
    responses((status = 201, description = "bought from the wallet: the ticket with its serial", body = PowerballTicketView),
              (status = 200, description = "a replay: this key's ticket as it stands", body = PowerballTicketView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/powerball/tickets`: a player buys online from their wallet, where the operator
/// enables it (`LOTTO_POWERBALL_ONLINE`).
pub async fn buy_powerball_online(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PowerballSaleRequest>,
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Player])?;
    if !state.settings.powerball.online_sales {
        return Err(AppError::new(
            StatusCode::FORBIDDEN,
            codes::ONLINE_SALES_OFF,
            "this lottery sells Powerball at retailers' terminals only",
        ));
    }
    let key = key.required()?;
    let slip = slip_of(&state, &request)?;
    let seller = Seller::Online { player: caller.subject().to_owned() };
    let (view, created) = powerball_sales::sell(&state, &seller, key, &slip).await?;
    if view.state == PowerballTicketState::Refused {
        return Err(AppError::relayed(
            StatusCode::UNPROCESSABLE_ENTITY,
            view.refusal.unwrap_or_else(|| codes::STAKE_REFUSED.as_str().to_owned()),
            "the ticket's cost could not be taken from your wallet",
        ));
    }
    if created {
        platform::metrics::count_play(ledger_api::Game::Powerball.label(), "online");
    }
    let location = format!("/v1/powerball/tickets/{}", view.serial);
    Ok(created_or_replayed(view, created, &location))
}

#[utoipa::path(
    post, path = "/v1/powerball/retail/tickets", tag = "powerball", request_body = PowerballSaleRequest,
    params(("Idempotency-Key" = String, Header, description = "required: a retry with the same key sells the ticket once")),
    responses((status = 201, description = "sold: the ticket to print, with its serial; the retailer owes its cost", body = PowerballTicketView),
              (status = 200, description = "a replay: this key's ticket as it stands", body = PowerballTicketView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/powerball/retail/tickets`: a retailer's terminal sells a slip (111-5-24(d)).
pub async fn sell_powerball_at_terminal(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PowerballSaleRequest>,
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Retailer])?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    let key = key.required()?;
    let slip = slip_of(&state, &request)?;
    let seller = Seller::Terminal { retailer, terminal: caller.subject().to_owned() };
    let (view, created) = powerball_sales::sell(&state, &seller, key, &slip).await?;
    if created && view.state != PowerballTicketState::Refused {
        platform::metrics::count_play(ledger_api::Game::Powerball.label(), "retail");
    }
    let location = format!("/v1/powerball/tickets/{}", view.serial);
    Ok(created_or_replayed(view, created, &location))
}

#[utoipa::path(
    get, path = "/v1/powerball/tickets", tag = "powerball", params(PageParams<platform::TimeIdCursor>),
    operation_id = "my_powerball_tickets",
    responses((status = 200, description = "a page of the player's online tickets, newest first", body = Page<PowerballTicketView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/powerball/tickets`: the tickets a player bought online, newest first, each with its
/// drawings and what it won.
pub async fn my_powerball_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(page): Query<PageParams<platform::TimeIdCursor>>,
) -> Result<Json<Page<PowerballTicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let mine = tickets::list_online(&state.pool, caller.subject(), page.after()?, page.limit()?).await?;
    let items = powerball_sales::views(&state, &mine).await?;
    let next = page.next_cursor(
        mine.len(),
        mine.last().map(|t| platform::TimeIdCursor { at: t.created_at, id: t.id }),
    );
    Ok(Json(Page { items, next }))
}

#[utoipa::path(
    get, path = "/v1/powerball/tickets/{serial}", tag = "powerball",
    params(("serial" = String, Path, pattern = "^[- ]*[1-9]([- ]*[0-9]){18}[- ]*$", description = "the ticket's serial: 19 digits, dashes or spaces between them allowed")),
    responses((status = 200, description = "the ticket: boards, drawings and what it won", body = PowerballTicketView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/powerball/tickets/{serial}`: the player who bought it online, the retailer whose
/// terminal sold it, operators and auditors.
pub async fn get_powerball_ticket(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(serial): Path<String>,
) -> Result<Json<PowerballTicketView>, AppError> {
    caller.require(&[Role::Player, Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    let serial = TicketSerial::parse(&serial)
        .map_err(|e| AppError::unprocessable(codes::INVALID_SERIAL, e.to_string()))?;
    let not_found = || AppError::not_found(codes::TICKET_NOT_FOUND, "no ticket has this serial");
    let ticket = tickets::load_by_serial(&state.pool, serial).await?.ok_or_else(not_found)?;
    let visible = match caller.role() {
        Role::Player => ticket.channel == tickets::Channel::Online && ticket.seller == caller.subject(),
        Role::Retailer => {
            ticket.channel == tickets::Channel::Terminal
                && caller.organization() == Some(ticket.seller.as_str())
        }
        _ => true,
    };
    if !visible {
        return Err(not_found());
    }
    Ok(Json(powerball_sales::view(&state, &ticket).await?))
}
