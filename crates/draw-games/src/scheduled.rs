//! Castle Keno tickets for scheduled draws: the next draw, or the next N consecutive draws
//! (multi-draw), and the public reads of draws.
//!
//! A purchase is a saga with deterministic keys (DESIGN §4):
//!
//! 1. record the ticket (`open`);
//! 2. ledger: the stake for every draw from the wallet to the game's escrow
//!    (`keno-draw-ticket/<id>/stake`), or `refused` when the ledger refuses it;
//! 3. join the draws (`staked`): in one transaction, the first draw whose sales close after now
//!    and the ones after it, each locked `FOR SHARE` and checked still open, so a draw's close
//!    (which waits for those locks) freezes a wager set no purchase can join afterwards.
//!
//! The draws settle the entries (see [`crate::scheduler`]); [`recover`] finishes purchases a crash
//! left `open`.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, SubsecRound, Utc};
use domain::keno::{BetOption, Ticket};
use ledger_api::{LedgerError, NewTransfer};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use crate::rules::{option_name, option_named, rule_error};
use crate::{DRAWS_NAMESPACE, DrawsState, ListQuery, limit_of};

/// The most consecutive draws one ticket may join by default (`LOTTO_KENO_MAX_DRAWS`). The rules
/// do not name a limit; 20 draws is an hour and twenty minutes at the default interval.
pub const DEFAULT_MAX_DRAWS: u32 = 20;

/// `POST /v1/keno/draw-tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DrawTicketRequest {
    /// `bet`, `bet_against`, `hit_all`, `high_roller` or `top_or_bottom`.
    #[schema(value_type = String, example = "bet")]
    pub option: BetOption,
    /// The marked numbers (1 to 80); none for `top_or_bottom`.
    #[serde(default)]
    pub spots: Vec<u8>,
    /// Whole $1 tickets staked on each draw (default 1).
    pub tickets: Option<u32>,
    /// How many consecutive draws, starting with the next (default 1).
    pub draws: Option<u32>,
}

/// One draw a ticket is in.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntryView {
    pub draw_number: i64,
    pub sales_close_at: DateTime<Utc>,
    /// The draw's state: `scheduled`, `open`, `closed`, `drawn` or `settled`.
    pub draw_state: String,
    /// The draw's numbers, once drawn.
    pub numbers: Option<Vec<i16>>,
    pub hits: Option<i32>,
    /// What this entry won, once paid.
    pub payout_cents: Option<i64>,
}

/// A ticket for scheduled draws.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DrawTicketView {
    pub id: Uuid,
    #[schema(value_type = String)]
    pub option: BetOption,
    pub spots: Vec<i16>,
    pub tickets: i32,
    /// The stake on each draw.
    pub stake_cents: i64,
    pub draws: i32,
    /// `open` (being staked), `staked` or `refused`.
    pub state: String,
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
    pub entries: Vec<EntryView>,
}

const TICKET_COLUMNS: &str = "id, player_id, wallet_account_id, option, spots, tickets, stake_cents, draws, state, refusal, created_at";

async fn load(state: &DrawsState, id: Uuid) -> Result<Option<PgRow>, AppError> {
    Ok(sqlx::query(&format!("SELECT {TICKET_COLUMNS} FROM keno_draw_tickets WHERE id = $1"))
        .bind(id)
        .fetch_optional(&state.pool)
        .await?)
}

async fn view(state: &DrawsState, row: &PgRow) -> Result<DrawTicketView, AppError> {
    let id: Uuid = row.try_get("id")?;
    let entries = sqlx::query(
        "SELECT e.draw_number, d.sales_close_at, d.state, d.numbers, e.hits, e.payout_cents, e.paid
           FROM keno_entries e JOIN keno_draws d ON d.number = e.draw_number
          WHERE e.ticket_id = $1 ORDER BY e.draw_number",
    )
    .bind(id)
    .fetch_all(&state.pool)
    .await?
    .iter()
    .map(|e| {
        let paid: bool = e.try_get("paid")?;
        Ok(EntryView {
            draw_number: e.try_get("draw_number")?,
            sales_close_at: e.try_get("sales_close_at")?,
            draw_state: e.try_get("state")?,
            numbers: e.try_get("numbers")?,
            hits: if paid { e.try_get("hits")? } else { None },
            payout_cents: if paid { e.try_get("payout_cents")? } else { None },
        })
    })
    .collect::<Result<Vec<_>, AppError>>()?;
    Ok(DrawTicketView {
        id,
        option: option_named(&row.try_get::<String, _>("option")?)?,
        spots: row.try_get("spots")?,
        tickets: row.try_get("tickets")?,
        stake_cents: row.try_get("stake_cents")?,
        draws: row.try_get("draws")?,
        state: row.try_get("state")?,
        refusal: row.try_get("refusal")?,
        created_at: row.try_get("created_at")?,
        entries,
    })
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
    let Some(key) = key.0 else {
        return Err(AppError::bad_request("missing_idempotency_key", "send an Idempotency-Key header"));
    };
    let ticket = Ticket::new(request.option, &request.spots, request.tickets.unwrap_or(1), state.max_tickets)
        .map_err(|e| rule_error(&e))?;
    let draws = request.draws.unwrap_or(1);
    if !(1..=state.max_draws).contains(&draws) {
        return Err(AppError::unprocessable(
            "draws_out_of_range",
            format!("a ticket joins 1 to {} consecutive draws", state.max_draws),
        ));
    }
    let player = caller.subject().to_owned();
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw-ticket/{player}/{key}").as_bytes());
    let spots: Vec<i16> = ticket.spots.numbers().into_iter().map(i16::from).collect();
    let option = option_name(ticket.option)?;
    let tickets = i32::try_from(ticket.tickets).map_err(AppError::internal)?;
    let draws = i32::try_from(draws).map_err(AppError::internal)?;
    let created = match load(&state, id).await? {
        Some(existing) => {
            let same = existing.try_get::<String, _>("option")? == option
                && existing.try_get::<Vec<i16>, _>("spots")? == spots
                && existing.try_get::<i32, _>("tickets")? == tickets
                && existing.try_get::<i32, _>("draws")? == draws;
            if !same {
                return Err(AppError::conflict("idempotency_conflict", "this key bought a different ticket"));
            }
            false
        }
        None => {
            let wallet = state.ledger.wallet_of(&player).await?;
            sqlx::query(
                "INSERT INTO keno_draw_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents,
                    draws, state, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9) ON CONFLICT (id) DO NOTHING",
            )
            .bind(id)
            .bind(&player)
            .bind(wallet)
            .bind(&option)
            .bind(&spots)
            .bind(tickets)
            .bind(ticket.stake_cents())
            .bind(draws)
            .bind(state.clock.now().trunc_subsecs(6))
            .execute(&state.pool)
            .await?
            .rows_affected()
                == 1
        }
    };
    let view = drive(&state, id).await?;
    if view.state == "refused" {
        let code = view.refusal.unwrap_or_else(|| "stake_refused".to_owned());
        return Err(AppError::unprocessable(code, "the stake could not be taken from your wallet"));
    }
    Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, Json(view)))
}

/// Moves a purchase forward until it is staked (in its draws) or refused; safe to run again.
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<DrawTicketView, AppError> {
    let row =
        load(state, id).await?.ok_or_else(|| AppError::not_found("ticket_not_found", "no such ticket"))?;
    if row.try_get::<String, _>("state")? == "open" {
        let stake =
            row.try_get::<i64, _>("stake_cents")?.saturating_mul(i64::from(row.try_get::<i32, _>("draws")?));
        let stake = NewTransfer::new(
            Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw-ticket/{id}/stake").as_bytes()),
            row.try_get::<Uuid, _>("wallet_account_id")?,
            state.escrow_account,
            stake,
            json!({"game": "castle_keno", "ticket": id}),
        );
        match state.ledger.transfer(&stake).await {
            Ok(()) => join_draws(state, id).await?,
            // The ledger's rules refused it: nothing moved, and nothing will.
            Err(LedgerError::Refused(e)) => {
                sqlx::query(
                    "UPDATE keno_draw_tickets SET state = 'refused', refusal = $2, updated_at = now()
                      WHERE id = $1 AND state = 'open'",
                )
                .bind(id)
                .bind(e.code())
                .execute(&state.pool)
                .await?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    let row = load(state, id).await?.ok_or_else(|| AppError::internal("ticket vanished"))?;
    view(state, &row).await
}

/// Step 3: enters a staked ticket in the next `draws` draws that are still open at this instant.
async fn join_draws(state: &DrawsState, id: Uuid) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await?;
    let ticket =
        sqlx::query(&format!("SELECT {TICKET_COLUMNS} FROM keno_draw_tickets WHERE id = $1 FOR UPDATE"))
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
    if ticket.try_get::<String, _>("state")? != "open" {
        return Ok(());
    }
    let draws = i64::from(ticket.try_get::<i32, _>("draws")?);
    let mut first = state.schedule.next_after(state.clock.now());
    loop {
        let last = first.saturating_add(draws).saturating_sub(1);
        state.schedule.ensure_draws(&mut tx, first, last).await?;
        let taken: Option<i64> = sqlx::query_scalar(
            "SELECT max(number) FROM (SELECT number, state FROM keno_draws WHERE number BETWEEN $1 AND $2
                ORDER BY number FOR SHARE) d WHERE d.state NOT IN ('scheduled', 'open')",
        )
        .bind(first)
        .bind(last)
        .fetch_one(&mut *tx)
        .await?;
        match taken {
            // A draw closed meanwhile (a leader whose clock runs ahead): start after it.
            Some(closed) => first = closed.saturating_add(1),
            None => break,
        }
    }
    sqlx::query(
        "INSERT INTO keno_entries (draw_number, ticket_id, wallet_account_id, option, spots, tickets, stake_cents)
         SELECT n, t.id, t.wallet_account_id, t.option, t.spots, t.tickets, t.stake_cents
           FROM keno_draw_tickets t, generate_series($2::bigint, $2::bigint + t.draws - 1) n WHERE t.id = $1",
    )
    .bind(id)
    .bind(first)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE keno_draw_tickets SET state = 'staked', first_draw = $2, updated_at = now() WHERE id = $1",
    )
    .bind(id)
    .bind(first)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Finishes purchases left `open` for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    platform::recovery::finish_stuck(
        &state.pool,
        "SELECT id FROM keno_draw_tickets WHERE state = 'open' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
        older_than,
        "keno draw ticket",
        |id| drive(state, id),
    )
    .await
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets", tag = "keno", params(ListQuery),
    responses(
        (status = 200, description = "the player's newest tickets for scheduled draws", body = Vec<DrawTicketView>),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/draw-tickets`: the caller's own newest tickets for scheduled draws.
pub async fn my_tickets(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<ListQuery>,
) -> Result<Json<Vec<DrawTicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let rows = sqlx::query(&format!(
        "SELECT {TICKET_COLUMNS} FROM keno_draw_tickets WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
    ))
    .bind(caller.subject())
    .bind(limit_of(&query)?)
    .fetch_all(&state.pool)
    .await?;
    let mut views = Vec::with_capacity(rows.len());
    for row in &rows {
        views.push(view(&state, row).await?);
    }
    Ok(Json(views))
}

#[utoipa::path(
    get, path = "/v1/keno/draw-tickets/{id}", tag = "keno", params(("id" = Uuid, Path, description = "ticket id")),
    responses(
        (status = 200, description = "the ticket and its draws", body = DrawTicketView),
        (status = "4XX", response = Refused),
    ),
    security(("bearer" = []))
)]
/// `GET /v1/keno/draw-tickets/{id}`: a player's own ticket; operators and auditors see any.
pub async fn get_ticket(
    State(state): State<DrawsState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<DrawTicketView>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match load(&state, id).await? {
        Some(row)
            if caller.role() != Role::Player
                || row.try_get::<String, _>("player_id")? == caller.subject() =>
        {
            Ok(Json(view(&state, &row).await?))
        }
        _ => Err(AppError::not_found("ticket_not_found", format!("ticket {id} does not exist"))),
    }
}

/// A draw as anyone may see it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DrawView {
    pub number: i64,
    pub sales_close_at: DateTime<Utc>,
    /// `scheduled`, `open`, `closed`, `drawn` or `settled`.
    pub state: String,
    /// Entries, total staked and the SHA-256 of the wager set (hex), frozen at close.
    pub entries: Option<i32>,
    pub wagers_cents: Option<i64>,
    pub wager_set_hash: Option<String>,
    /// The 20 numbers in the order drawn, once drawn.
    pub numbers: Option<Vec<i16>>,
    pub drawn_at: Option<DateTime<Utc>>,
}

const DRAW_COLUMNS: &str =
    "number, sales_close_at, state, entries, wagers_cents, wager_set_hash, numbers, drawn_at";

fn draw_view(row: &PgRow) -> Result<DrawView, AppError> {
    Ok(DrawView {
        number: row.try_get("number")?,
        sales_close_at: row.try_get("sales_close_at")?,
        state: row.try_get("state")?,
        entries: row.try_get("entries")?,
        wagers_cents: row.try_get("wagers_cents")?,
        wager_set_hash: row.try_get::<Option<Vec<u8>>, _>("wager_set_hash")?.map(hex::encode),
        numbers: row.try_get("numbers")?,
        drawn_at: row.try_get("drawn_at")?,
    })
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
    let rows = sqlx::query(&format!(
        "SELECT {DRAW_COLUMNS} FROM keno_draws WHERE number <= $1 ORDER BY number DESC LIMIT $2"
    ))
    .bind(next)
    .bind(limit_of(&query)?)
    .fetch_all(&state.pool)
    .await?;
    Ok(Json(rows.iter().map(draw_view).collect::<Result<_, _>>()?))
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
    let row = sqlx::query(&format!("SELECT {DRAW_COLUMNS} FROM keno_draws WHERE number = $1"))
        .bind(number)
        .fetch_optional(&state.pool)
        .await?
        .ok_or_else(|| AppError::not_found("draw_not_found", format!("draw {number} does not exist")))?;
    Ok(Json(draw_view(&row)?))
}
