//! Packs and validation at the counter: an operator assigns a printed pack to a retailer, the
//! retailer's terminal activates it, and terminals validate scanned tickets (barcode and VIRN).
//!
//! Packs move only forward: printed → assigned → active → settled. A ticket of a pack that is not
//! active cannot be validated. A wrong VIRN is counted against the terminal; after
//! [`MAX_WRONG_VIRNS`] in a row the terminal is locked for [`LOCK_MINUTES`] minutes. Paying a
//! prize is the next step of issue 6.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use domain::instant::print_run::barcode_is_valid;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::InstantState;
use crate::print_runs::virn_hash;

/// Wrong VIRNs in a row that lock a terminal.
pub const MAX_WRONG_VIRNS: i32 = 5;
/// How long a locked terminal waits.
pub const LOCK_MINUTES: i64 = 15;

/// `POST /v1/instant/packs/{game}/{book}/assign`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AssignPack {
    pub retailer_id: String,
}

/// A pack's state.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PackView {
    pub game: i32,
    pub book: i32,
    /// `printed`, `assigned`, `active` or `settled`.
    pub state: String,
    pub retailer_id: Option<String>,
}

fn pack_not_found(game: i32, book: i32) -> AppError {
    AppError::not_found("pack_not_found", format!("no pack {game:03}-{book:06}"))
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/assign", tag = "instant", request_body = AssignPack,
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "assigned to the retailer", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/assign`: operators; printed → assigned.
pub async fn assign(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
    Json(request): Json<AssignPack>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Operator])?;
    move_pack(&state, game, book, "printed", "assigned", Some(&request.retailer_id), None).await
}

#[utoipa::path(
    post, path = "/v1/instant/packs/{game}/{book}/activate", tag = "instant",
    params(("game" = i32, Path, description = "game number"), ("book" = i32, Path, description = "book number")),
    responses((status = 200, description = "active: its tickets can be validated", body = PackView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/packs/{game}/{book}/activate`: the terminal of the retailer it was assigned to.
pub async fn activate(
    State(state): State<InstantState>,
    caller: Caller,
    Path((game, book)): Path<(i32, i32)>,
) -> Result<Json<PackView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?;
    move_pack(&state, game, book, "assigned", "active", None, Some(retailer)).await
}

/// Moves a pack `from` → `to`; a pack of another retailer is not found, one in another state is a
/// conflict, and nothing changes.
async fn move_pack(
    state: &InstantState,
    game: i32,
    book: i32,
    from: &str,
    to: &str,
    assign_to: Option<&str>,
    owner: Option<&str>,
) -> Result<Json<PackView>, AppError> {
    let mut tx = state.pool.begin().await?;
    let row = sqlx::query("SELECT state, retailer_id FROM packs WHERE game = $1 AND book = $2 FOR UPDATE")
        .bind(game)
        .bind(book)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| pack_not_found(game, book))?;
    let current: String = row.try_get("state")?;
    let retailer: Option<String> = row.try_get("retailer_id")?;
    if owner.is_some() && retailer.as_deref() != owner {
        return Err(pack_not_found(game, book));
    }
    if current != from {
        return Err(AppError::conflict(
            format!("pack_not_{from}"),
            format!("the pack is {current}; packs move only forward (printed, assigned, active, settled)"),
        ));
    }
    let row = sqlx::query(
        "UPDATE packs SET state = $3, retailer_id = coalesce($4, retailer_id),
                assigned_at = CASE WHEN $3 = 'assigned' THEN now() ELSE assigned_at END,
                activated_at = CASE WHEN $3 = 'active' THEN now() ELSE activated_at END
          WHERE game = $1 AND book = $2 RETURNING state, retailer_id",
    )
    .bind(game)
    .bind(book)
    .bind(to)
    .bind(assign_to)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Json(PackView { game, book, state: row.try_get("state")?, retailer_id: row.try_get("retailer_id")? }))
}

/// `POST /v1/instant/validations`: what a terminal scanned.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationRequest {
    /// As printed: `GGG-BBBBBB-TTT-C`.
    pub barcode: String,
    /// The twelve digits under the coating.
    pub virn: String,
}

/// What the terminal shows.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ValidationView {
    pub winner: bool,
    pub prize_cents: i64,
    /// A prize of a free ticket of the same game.
    pub free_ticket: bool,
    /// Where the prize is paid: `retailer` (up to the retailer limit) or `lottery_office`.
    pub paid_at: Option<String>,
}

fn locked(until: DateTime<Utc>) -> AppError {
    let seconds = (until - Utc::now()).num_seconds().max(1);
    AppError::new(
        StatusCode::FORBIDDEN,
        "terminal_locked",
        format!("too many wrong VIRNs; try again after {}", until.to_rfc3339()),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
}

/// A scanned ticket that passed every check.
struct Checked {
    game: i32,
    book: i32,
    ticket: i32,
    prize_row: Option<i16>,
    prize_cents: i64,
    free_ticket: bool,
    price_cents: i64,
}

/// The checks of a scan, in order (see the module): each refusal logged with its own code.
async fn check_ticket(
    state: &InstantState,
    caller: &Caller,
    request: &ValidationRequest,
) -> Result<Checked, AppError> {
    let terminal = caller.subject().to_owned();
    let retailer = caller.organization().map(str::to_owned);
    let until: Option<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT locked_until FROM terminal_failures WHERE terminal_id = $1 AND locked_until > now()",
    )
    .bind(&terminal)
    .fetch_optional(&state.pool)
    .await?
    .flatten();
    if let Some(until) = until {
        return Err(locked(until));
    }
    let log = |result: &'static str, prize: i64| {
        sqlx::query("INSERT INTO validations (terminal_id, retailer_id, barcode, result, prize_cents) VALUES ($1, $2, $3, $4, $5)")
            .bind(terminal.clone())
            .bind(retailer.clone())
            .bind(request.barcode.clone())
            .bind(result)
            .bind(prize)
            .execute(&state.pool)
    };
    let Some((game, book, ticket)) = barcode_is_valid(&request.barcode) else {
        log("invalid_barcode", 0).await?;
        return Err(AppError::unprocessable(
            "invalid_barcode",
            "the barcode is not well formed or its check digit is wrong",
        ));
    };
    let Ok(definition) = state.game(game) else {
        log("unknown_game", 0).await?;
        return Err(AppError::not_found("unknown_game", format!("no instant game {game}")));
    };
    let (game_i, book_i, ticket_i) = (
        i32::try_from(game).map_err(AppError::internal)?,
        i32::try_from(book).map_err(AppError::internal)?,
        i32::try_from(ticket).map_err(AppError::internal)?,
    );
    let row = sqlx::query(
        "SELECT t.prize_row, t.prize_cents, t.virn_hash, t.paid_at, p.state
           FROM tickets t JOIN packs p ON p.game = t.game AND p.book = t.book
          WHERE t.game = $1 AND t.book = $2 AND t.ticket = $3",
    )
    .bind(game_i)
    .bind(book_i)
    .bind(ticket_i)
    .fetch_optional(&state.pool)
    .await?;
    let Some(row) = row else {
        log("ticket_not_found", 0).await?;
        return Err(AppError::not_found("ticket_not_found", "no such ticket was printed"));
    };
    if row.try_get::<String, _>("state")? != "active" {
        log("pack_not_active", 0).await?;
        return Err(AppError::conflict("pack_not_active", "this ticket's pack is not active"));
    }
    let stored: Vec<u8> = row.try_get("virn_hash")?;
    if virn_hash(&state.virn_key, request.virn.trim())? != stored {
        log("wrong_virn", 0).await?;
        let failures: i32 = sqlx::query_scalar(
            "INSERT INTO terminal_failures (terminal_id, failures) VALUES ($1, 1)
             ON CONFLICT (terminal_id) DO UPDATE SET failures = terminal_failures.failures + 1,
                 locked_until = CASE WHEN terminal_failures.failures + 1 >= $2 THEN now() + make_interval(mins => $3) END
             RETURNING failures",
        )
        .bind(&terminal)
        .bind(MAX_WRONG_VIRNS)
        .bind(i32::try_from(LOCK_MINUTES).unwrap_or(15))
        .fetch_one(&state.pool)
        .await?;
        return Err(AppError::unprocessable(
            "wrong_virn",
            "the validation number does not match this ticket",
        )
        .with_context(serde_json::json!({"attempts_left": (MAX_WRONG_VIRNS - failures).max(0)})));
    }
    sqlx::query("UPDATE terminal_failures SET failures = 0, locked_until = NULL WHERE terminal_id = $1")
        .bind(&terminal)
        .execute(&state.pool)
        .await?;
    if row.try_get::<Option<DateTime<Utc>>, _>("paid_at")?.is_some() {
        log("already_paid", 0).await?;
        return Err(AppError::conflict("already_paid", "this ticket's prize has been paid"));
    }
    let prize_row: Option<i16> = row.try_get("prize_row")?;
    let prize_cents: i64 = row.try_get("prize_cents")?;
    let free_ticket = prize_row
        .and_then(|r| definition.prizes.get(usize::try_from(r).ok()?))
        .is_some_and(|p| p.composition.contains(&0));
    log(if prize_row.is_some() { "winner" } else { "not_a_winner" }, prize_cents).await?;
    Ok(Checked {
        game: game_i,
        book: book_i,
        ticket: ticket_i,
        prize_row,
        prize_cents,
        free_ticket,
        price_cents: definition.price_cents,
    })
}

#[utoipa::path(
    post, path = "/v1/instant/validations", tag = "instant", request_body = ValidationRequest,
    responses((status = 200, description = "a winner or not, and where it is paid", body = ValidationView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/validations`: retailers' terminals.
pub async fn validate(
    State(state): State<InstantState>,
    caller: Caller,
    Json(request): Json<ValidationRequest>,
) -> Result<Json<ValidationView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let checked = check_ticket(&state, &caller, &request).await?;
    let winner = checked.prize_row.is_some();
    let paid_at = winner.then(|| {
        if checked.prize_cents <= state.retailer_limit_cents {
            "retailer".to_owned()
        } else {
            "lottery_office".to_owned()
        }
    });
    Ok(Json(ValidationView {
        winner,
        prize_cents: checked.prize_cents,
        free_ticket: checked.free_ticket,
        paid_at,
    }))
}

/// What a paid claim moved.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ClaimView {
    /// Credited to the retailer's settlement account: the prize, or for a free ticket the
    /// price of the ticket the retailer hands over.
    pub paid_cents: i64,
    pub free_ticket: bool,
}

#[utoipa::path(
    post, path = "/v1/instant/claims", tag = "instant", request_body = ValidationRequest,
    responses((status = 200, description = "paid at the counter, once", body = ClaimView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/claims`: a retailer's terminal pays a prize up to the retailer limit; the
/// prize moves from the game's prize liability to the retailer's settlement account, exactly
/// once however many terminals claim the ticket at the same moment.
pub async fn claim(
    State(state): State<InstantState>,
    caller: Caller,
    Json(request): Json<ValidationRequest>,
) -> Result<Json<ClaimView>, AppError> {
    caller.require(&[Role::Retailer])?;
    let link =
        state.ledger.clone().ok_or_else(|| AppError::unavailable("the ledger is not connected here"))?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    let checked = check_ticket(&state, &caller, &request).await?;
    let Some(prize_row) = checked.prize_row else {
        return Err(AppError::unprocessable("not_a_winner", "this ticket wins nothing"));
    };
    if checked.prize_cents > state.retailer_limit_cents {
        return Err(AppError::conflict("claim_at_office", "this prize is claimed at the lottery office"));
    }
    let amount = if checked.free_ticket { checked.price_cents } else { checked.prize_cents };
    let mut tx = state.pool.begin().await?;
    // The row lock decides concurrent claims: the second finds it paid.
    let paid = sqlx::query(
        "UPDATE tickets SET paid_at = now() WHERE game = $1 AND book = $2 AND ticket = $3 AND paid_at IS NULL",
    )
    .bind(checked.game)
    .bind(checked.book)
    .bind(checked.ticket)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if paid != 1 {
        return Err(AppError::conflict("already_paid", "this ticket's prize has been paid"));
    }
    sqlx::query("UPDATE prize_counts SET paid = paid + 1 WHERE game = $1 AND prize_row = $2")
        .bind(checked.game)
        .bind(prize_row)
        .execute(&mut *tx)
        .await?;
    let account = crate::retailer_account(&retailer);
    link.wallets.open_accounts(&retailer, &[(account, "retailer_settlement")]).await?;
    let game = u32::try_from(checked.game).map_err(AppError::internal)?;
    let id = uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/ticket/{}-{}-{}/paid", checked.game, checked.book, checked.ticket).as_bytes(),
    );
    let transfer = serde_json::json!({"id": id, "debit_account_id": crate::liability_account(game),
        "credit_account_id": account, "amount": amount, "currency": "USD",
        "metadata": {"game": checked.game, "book": checked.book, "ticket": checked.ticket}});
    // Moved before the commit: a failure leaves the ticket unpaid; a retry after a lost commit
    // replays the same transfer.
    let _: serde_json::Value = link
        .ledger
        .call(axum::http::Method::POST, "/v1/transfers", &state.service_token()?, Some(&transfer), None)
        .await?;
    tx.commit().await?;
    Ok(Json(ClaimView { paid_cents: amount, free_ticket: checked.free_ticket }))
}
