//! Castle Keno played at once: a ticket is bought, drawn with its own 20 numbers and settled.
//!
//! A ticket is a saga of idempotent steps with deterministic keys (DESIGN §4):
//!
//! 1. record the ticket (`open`);
//! 2. ledger: stake from the wallet to the game's escrow (`<ticket>/stake`), or `refused` when
//!    the ledger refuses it;
//! 3. draw with a fresh OS-seeded ChaCha20, store the numbers and the outcome and append them to
//!    the audit chain (`drawn`);
//! 4. ledger, as one batch: the stake from escrow to the house and the prize from the house to the
//!    wallet (`<ticket>/settle-*`), then `settled`.
//!
//! [`recover`] drives any ticket a crash left between steps from where it stopped: the numbers,
//! once stored, are never drawn again, and a ledger step repeated is a replay, never a second
//! payment.

use std::time::Duration;

use axum::extract::State;
use axum::http::{Method, StatusCode};
use chrono::{DateTime, Utc};
use domain::keno::math::{ParRow, par_sheet};
use domain::keno::{BetOption, Draw, MAX_SPOTS, Ticket, pay_cents, settle};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, Path, Query};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::Row;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use crate::{DRAWS_NAMESPACE, DrawsState};

/// `POST /v1/keno/tickets`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    /// `bet`, `bet_against`, `hit_all`, `high_roller` or `top_or_bottom`.
    #[schema(value_type = String, example = "bet")]
    pub option: BetOption,
    /// The marked numbers (1 to 80); none for `top_or_bottom`.
    #[serde(default)]
    pub spots: Vec<u8>,
    /// Whole $1 tickets staked (default 1); the payout is that multiple of the table.
    pub tickets: Option<u32>,
}

/// A ticket as its player (or an operator) sees it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TicketView {
    pub id: Uuid,
    #[schema(value_type = String)]
    pub option: BetOption,
    pub spots: Vec<i16>,
    pub tickets: i32,
    pub stake_cents: i64,
    /// `open`, `staked`, `drawn`, `settled` or `refused`.
    pub state: String,
    /// The 20 numbers, in the order drawn.
    pub draw_numbers: Option<Vec<i16>>,
    pub hits: Option<i32>,
    pub payout_cents: Option<i64>,
    /// Why the stake was refused (a ledger problem code).
    pub refusal: Option<String>,
    pub created_at: DateTime<Utc>,
}

fn rule_error(e: &domain::keno::RuleError) -> AppError {
    let code = match e {
        domain::keno::RuleError::SpotOutOfRange { .. } => "spot_out_of_range",
        domain::keno::RuleError::DuplicateSpot { .. } => "duplicate_spot",
        domain::keno::RuleError::SpotsNotAllowed { .. } => "spots_not_allowed",
        domain::keno::RuleError::StakeOutOfRange { .. } => "stake_out_of_range",
    };
    AppError::unprocessable(code, e.to_string())
}

fn option_name(option: BetOption) -> Result<String, AppError> {
    serde_json::to_value(option)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .ok_or_else(|| AppError::internal("option"))
}

fn ticket_view(row: &PgRow) -> Result<TicketView, AppError> {
    let option: String = row.try_get("option")?;
    Ok(TicketView {
        id: row.try_get("id")?,
        option: serde_json::from_value(Value::String(option)).map_err(AppError::internal)?,
        spots: row.try_get("spots")?,
        tickets: row.try_get("tickets")?,
        stake_cents: row.try_get("stake_cents")?,
        state: row.try_get("state")?,
        draw_numbers: row.try_get("draw_numbers")?,
        hits: row.try_get("hits")?,
        payout_cents: row.try_get("payout_cents")?,
        refusal: row.try_get("refusal")?,
        created_at: row.try_get("created_at")?,
    })
}

const TICKET_COLUMNS: &str = "id, player_id, wallet_account_id, option, spots, tickets, stake_cents, state,
    draw_numbers, hits, payout_cents, refusal, created_at";

async fn load(state: &DrawsState, id: Uuid) -> Result<Option<PgRow>, AppError> {
    Ok(sqlx::query(&format!("SELECT {TICKET_COLUMNS} FROM keno_tickets WHERE id = $1"))
        .bind(id)
        .fetch_optional(&state.pool)
        .await?)
}

/// The player's USD wallet, as the ledger knows it.
async fn wallet_of(state: &DrawsState, player: &str) -> Result<Uuid, AppError> {
    let page: Value = state
        .ledger
        .call::<(), Value>(
            Method::GET,
            &format!("/v1/accounts?owner={player}&limit=50"),
            &state.service_token()?,
            None,
            None,
        )
        .await?;
    page["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["kind"] == "player_wallet" && a["currency"] == "USD")
        .and_then(|a| a["id"].as_str()?.parse().ok())
        .ok_or_else(|| AppError::unprocessable("wallet_not_found", "this player has no USD wallet"))
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
    let Some(key) = key.0 else {
        return Err(AppError::bad_request("missing_idempotency_key", "send an Idempotency-Key header"));
    };
    let tickets = request.tickets.unwrap_or(1);
    let ticket = Ticket::new(request.option, &request.spots, tickets, state.max_tickets)
        .map_err(|e| rule_error(&e))?;
    let player = caller.subject().to_owned();
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{player}/{key}").as_bytes());
    let spots: Vec<i16> = ticket.spots.numbers().into_iter().map(i16::from).collect();
    let option = option_name(ticket.option)?;

    let created = match load(&state, id).await? {
        Some(existing) => {
            let same = existing.try_get::<String, _>("option")? == option
                && existing.try_get::<Vec<i16>, _>("spots")? == spots
                && existing.try_get::<i32, _>("tickets")? == i32::try_from(tickets).unwrap_or(-1);
            if !same {
                return Err(AppError::conflict("idempotency_conflict", "this key bought a different ticket"));
            }
            false
        }
        None => {
            let wallet = wallet_of(&state, &player).await?;
            sqlx::query(
                "INSERT INTO keno_tickets (id, player_id, wallet_account_id, option, spots, tickets, stake_cents, state)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, 'open') ON CONFLICT (id) DO NOTHING",
            )
            .bind(id)
            .bind(&player)
            .bind(wallet)
            .bind(&option)
            .bind(&spots)
            .bind(i32::try_from(tickets).unwrap_or(i32::MAX))
            .bind(ticket.stake_cents())
            .execute(&state.pool)
            .await?;
            true
        }
    };
    let view = drive(&state, id).await?;
    if view.state == "refused" {
        let code = view.refusal.unwrap_or_else(|| "stake_refused".to_owned());
        return Err(AppError::unprocessable(code, "the stake could not be taken from your wallet"));
    }
    Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, Json(view)))
}

/// Moves a ticket forward until it is settled or refused; safe to run again at any point.
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<TicketView, AppError> {
    loop {
        let row = load(state, id)
            .await?
            .ok_or_else(|| AppError::not_found("ticket_not_found", "no such ticket"))?;
        let view = ticket_view(&row)?;
        let wallet: Uuid = row.try_get("wallet_account_id")?;
        match view.state.as_str() {
            "open" => take_stake(state, &view, wallet).await?,
            "staked" => draw_ticket(state, &view, &row).await?,
            "drawn" => pay(state, &view, wallet).await?,
            _ => return Ok(view),
        }
    }
}

fn step_id(ticket: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{ticket}/{step}").as_bytes())
}

async fn set_state(
    state: &DrawsState,
    id: Uuid,
    from: &str,
    to: &str,
    refusal: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE keno_tickets SET state = $3, refusal = $4, updated_at = now() WHERE id = $1 AND state = $2",
    )
    .bind(id)
    .bind(from)
    .bind(to)
    .bind(refusal)
    .execute(&state.pool)
    .await?;
    Ok(())
}

async fn take_stake(state: &DrawsState, ticket: &TicketView, wallet: Uuid) -> Result<(), AppError> {
    let body = json!({"id": step_id(ticket.id, "stake"), "debit_account_id": wallet, "credit_account_id": state.escrow_account,
                      "amount": ticket.stake_cents, "currency": "USD", "metadata": {"game": "castle_keno", "ticket": ticket.id}});
    match state
        .ledger
        .call::<Value, Value>(Method::POST, "/v1/transfers", &state.service_token()?, Some(&body), None)
        .await
    {
        Ok(_) => set_state(state, ticket.id, "open", "staked", None).await,
        // The ledger's rules refused it: nothing moved, and nothing will.
        Err(e) if e.status().is_client_error() && e.code() != "rate_limited" => {
            set_state(state, ticket.id, "open", "refused", Some(e.code())).await
        }
        Err(e) => Err(e),
    }
}

/// The outcome stored and chained, once: a concurrent or repeated call finds it already drawn.
#[derive(Debug, Serialize)]
struct OutcomeRecord<'a> {
    game: &'static str,
    ticket: Uuid,
    player: &'a str,
    option: BetOption,
    spots: &'a [i16],
    tickets: i32,
    numbers: Vec<u8>,
    hits: usize,
    payout_cents: i64,
}

async fn draw_ticket(state: &DrawsState, ticket: &TicketView, row: &PgRow) -> Result<(), AppError> {
    let numbers: Vec<u8> = ticket.spots.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
    let rules = Ticket::new(ticket.option, &numbers, u32::try_from(ticket.tickets).unwrap_or(0), u32::MAX)
        .map_err(|e| AppError::internal(e.to_string()))?;
    // A fresh generator seeded by the operating system for every draw; the seed is never kept.
    let draw = Draw::random(&mut ChaCha20Rng::from_os_rng());
    let outcome = settle(&rules, &draw);
    let drawn: Vec<i16> = draw.numbers.iter().map(|&n| i16::from(n)).collect();
    let mut tx = state.pool.begin().await?;
    let updated = sqlx::query(
        "UPDATE keno_tickets SET state = 'drawn', draw_numbers = $2, hits = $3, payout_cents = $4, updated_at = now()
          WHERE id = $1 AND state = 'staked'",
    )
    .bind(ticket.id)
    .bind(&drawn)
    .bind(i32::try_from(outcome.hits).unwrap_or(0))
    .bind(outcome.payout_cents)
    .execute(&mut *tx)
    .await?;
    if updated.rows_affected() == 1 {
        let player: String = row.try_get("player_id")?;
        let record = OutcomeRecord {
            game: "castle_keno",
            ticket: ticket.id,
            player: &player,
            option: ticket.option,
            spots: &ticket.spots,
            tickets: ticket.tickets,
            numbers: draw.numbers.to_vec(),
            hits: outcome.hits,
            payout_cents: outcome.payout_cents,
        };
        platform::audit::append(&mut tx, "keno.play_now", ticket.id, &record).await?;
    }
    tx.commit().await?;
    Ok(())
}

async fn pay(state: &DrawsState, ticket: &TicketView, wallet: Uuid) -> Result<(), AppError> {
    let mut transfers =
        vec![json!({"id": step_id(ticket.id, "settle-stake"), "debit_account_id": state.escrow_account,
        "credit_account_id": state.house_account, "amount": ticket.stake_cents, "currency": "USD",
        "metadata": {"game": "castle_keno", "ticket": ticket.id}})];
    let payout = ticket.payout_cents.unwrap_or(0);
    if payout > 0 {
        transfers.push(
            json!({"id": step_id(ticket.id, "settle-payout"), "debit_account_id": state.house_account,
            "credit_account_id": wallet, "amount": payout, "currency": "USD",
            "metadata": {"game": "castle_keno", "ticket": ticket.id}}),
        );
    }
    let body = json!({ "transfers": transfers });
    let _: Value = state
        .ledger
        .call(Method::POST, "/v1/transfers/batch", &state.service_token()?, Some(&body), None)
        .await?;
    set_state(state, ticket.id, "drawn", "settled", None).await
}

/// Finishes tickets left between steps for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    let ids: Vec<Uuid> = sqlx::query_scalar(
        "SELECT id FROM keno_tickets WHERE state IN ('open', 'staked', 'drawn')
            AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 500",
    )
    .bind(older_than.as_secs_f64())
    .fetch_all(&state.pool)
    .await?;
    let mut finished = 0usize;
    for id in ids {
        match drive(state, id).await {
            Ok(_) => finished = finished.saturating_add(1),
            Err(e) => tracing::warn!(ticket = %id, error = %e, "could not finish ticket yet"),
        }
    }
    Ok(finished)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TicketListQuery {
    /// How many of the newest tickets (1 to 100, default 20).
    pub limit: Option<i64>,
}

#[utoipa::path(
    get, path = "/v1/keno/tickets", tag = "keno", params(TicketListQuery),
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
    Query(query): Query<TicketListQuery>,
) -> Result<Json<Vec<TicketView>>, AppError> {
    caller.require(&[Role::Player])?;
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(AppError::bad_request("invalid_limit", "limit must be 1 to 100"));
    }
    let rows = sqlx::query(&format!(
        "SELECT {TICKET_COLUMNS} FROM keno_tickets WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
    ))
    .bind(caller.subject())
    .bind(limit)
    .fetch_all(&state.pool)
    .await?;
    Ok(Json(rows.iter().map(ticket_view).collect::<Result<_, _>>()?))
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
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    match load(&state, id).await? {
        Some(row)
            if caller.role() != Role::Player
                || row.try_get::<String, _>("player_id")? == caller.subject() =>
        {
            Ok(Json(ticket_view(&row)?))
        }
        _ => Err(AppError::not_found("ticket_not_found", format!("ticket {id} does not exist"))),
    }
}

/// One option's pay table for the $1 ticket.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PayTable {
    #[schema(value_type = String)]
    pub option: BetOption,
    pub min_spots: usize,
    pub max_spots: usize,
    /// (spots, hits, cents) for every paying cell; TOP OR BOTTOM lists the smaller half's hits.
    pub cells: Vec<[i64; 3]>,
}

#[utoipa::path(
    get, path = "/v1/keno/paytables", tag = "keno",
    responses((status = 200, description = "every option's pay table (public)", body = Vec<PayTable>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/paytables`: public.
pub async fn paytables() -> Json<Vec<PayTable>> {
    let tables = BetOption::ALL
        .iter()
        .map(|&option| {
            let range = option.spot_range();
            let mut cells = Vec::new();
            for spots in range.clone() {
                let outcomes = if option == BetOption::TopOrBottom { 10 } else { spots.min(MAX_SPOTS) };
                for hits in 0..=outcomes {
                    let cents = pay_cents(option, spots, hits);
                    if cents > 0 {
                        cells.push([
                            i64::try_from(spots).unwrap_or(0),
                            i64::try_from(hits).unwrap_or(0),
                            cents,
                        ]);
                    }
                }
            }
            PayTable { option, min_spots: *range.start(), max_spots: *range.end(), cells }
        })
        .collect();
    Json(tables)
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
