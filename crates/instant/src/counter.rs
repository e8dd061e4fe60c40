//! The retailer's counter: a terminal scans a ticket (barcode and VIRN) and learns whether it wins
//! and where it is paid, and pays prizes up to the retailer limit from the game's prize liability
//! to the retailer's settlement account, exactly once.
//!
//! Paying a prize, here or at the office, is a saga ([`pay_ticket`]): the ticket is reserved for
//! its payee and committed (`pending`), the ledger moves the money under ids derived from the
//! ticket (`done`), and exactly one request of that payee is answered "paid" (`confirmed`): the
//! answer that tells a cashier to hand the prize over is given once, however many tills claim at
//! once. If the ledger does not answer, the payment stays pending: the recovery pass
//! ([`finish_pending_payments`]) moves the money, the payee claiming again is answered "paid",
//! and nobody else can claim the ticket meanwhile. If the ledger refuses, the ticket is released.
//!
//! The checks of a scan, in order, each refusal with its own code and logged: the terminal is not
//! locked; the barcode is well formed with its check digit; the game is one this service runs; the
//! ticket was printed; its pack has been activated (an `active` or, once sold and settled,
//! `settled` pack: players keep the tickets of a settled pack and may still claim them); the VIRN
//! matches its keyed hash; the ticket is not paid. A wrong VIRN counts against the terminal and
//! against its retailer, in a window of [`FAILURE_WINDOW_MINUTES`] that a right VIRN does not
//! reset: [`MAX_WRONG_VIRNS`] lock the terminal, [`MAX_WRONG_VIRNS_PER_RETAILER`] lock every
//! terminal of the retailer, for [`LOCK_MINUTES`] minutes.
//!
//! A scan is one statement (`scan_ticket`, see the migration): the terminal's and the retailer's
//! guards locked, the ticket with its pack read, the VIRN's keyed hash compared and a failure
//! counted, all under the guards' row locks, so concurrent guesses are checked one at a time and
//! never get past the limit. Every attempt is logged through a group commit (one transaction for the attempts that
//! arrive together, committed asynchronously: see [`ValidationLog`]), and answered only once its
//! log row is written.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use domain::instant::print_run::barcode_is_valid;
use ledger_api::{AccountKind, LedgerError, NewTransfer};
use platform::auth::{Caller, Role};
use platform::group_commit::BatchWrite;
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, Row};

use crate::InstantState;
use crate::print_runs::virn_hash;

/// Wrong VIRNs within the window that lock a terminal.
pub const MAX_WRONG_VIRNS: i32 = 5;
/// Wrong VIRNs within the window, from all of a retailer's terminals, that lock all of them.
pub const MAX_WRONG_VIRNS_PER_RETAILER: i32 = 20;
/// The window failures are counted in; a right VIRN does not reset it.
pub const FAILURE_WINDOW_MINUTES: i32 = 60;
/// How long a locked terminal (or retailer) waits.
pub const LOCK_MINUTES: i64 = 15;

/// `POST /v1/instant/validations`, `/claims` and `/office-claims`: what was scanned.
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
#[derive(Debug, Clone)]
pub struct Checked {
    pub game: i32,
    pub book: i32,
    pub ticket: i32,
    pub prize_row: Option<i16>,
    pub prize_cents: i64,
    pub free_ticket: bool,
    pub price_cents: i64,
}

impl Checked {
    /// What paying it moves: the prize, or for a free ticket the price of the ticket handed over.
    pub fn amount_cents(&self) -> i64 {
        if self.free_ticket { self.price_cents } else { self.prize_cents }
    }

    /// An id derived from the ticket and `what` (see [`ticket_key`]).
    pub fn key(&self, what: &str) -> uuid::Uuid {
        ticket_key(self.game, self.book, self.ticket, what)
    }
}

/// An id derived from a ticket and `what` (its payment, a ledger transfer), so a retry or the
/// recovery pass arrives at the same one.
pub fn ticket_key(game: i32, book: i32, ticket: i32, what: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/ticket/{game}-{book}-{ticket}/{what}").as_bytes(),
    )
}

/// One logged attempt.
#[derive(Debug)]
pub struct LoggedScan {
    terminal_id: String,
    retailer_id: Option<String>,
    barcode: String,
    result: &'static str,
    prize_cents: i64,
}

/// Writes logged attempts, many to a statement.
#[derive(Debug)]
pub struct ValidationLog;

impl BatchWrite for ValidationLog {
    type Job = LoggedScan;
    type Output = ();

    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[LoggedScan]) -> Result<Vec<()>, AppError> {
        let terminals: Vec<&str> = jobs.iter().map(|j| j.terminal_id.as_str()).collect();
        let retailers: Vec<Option<&str>> = jobs.iter().map(|j| j.retailer_id.as_deref()).collect();
        let barcodes: Vec<&str> = jobs.iter().map(|j| j.barcode.as_str()).collect();
        let results: Vec<&str> = jobs.iter().map(|j| j.result).collect();
        let prizes: Vec<i64> = jobs.iter().map(|j| j.prize_cents).collect();
        // The scan log commits asynchronously (ADR 0005): nothing a scan answers depends on it, and
        // only a crash of Postgres itself, not of this service, can lose its last fraction of a
        // second. Payments, lockouts and pack moves commit synchronously as everything else does.
        sqlx::query("SET LOCAL synchronous_commit = off").execute(&mut *conn).await?;
        sqlx::query(
            "INSERT INTO validations (terminal_id, retailer_id, barcode, result, prize_cents)
             SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])",
        )
        .bind(&terminals)
        .bind(&retailers)
        .bind(&barcodes)
        .bind(&results)
        .bind(&prizes)
        .execute(&mut *conn)
        .await?;
        Ok(vec![(); jobs.len()])
    }
}

/// The checks of a scan, in order (see the module): each refusal logged with its own code.
///
/// A ticket whose payment to `resuming` is not yet confirmed passes, so that payee's claim can
/// finish it; to anyone else it is already paid.
pub async fn check_ticket(
    state: &InstantState,
    caller: &Caller,
    request: &ValidationRequest,
    resuming: Option<&str>,
) -> Result<Checked, AppError> {
    let terminal = caller.subject();
    let log = |result: &'static str, prize_cents: i64| {
        state.validation_log.submit(LoggedScan {
            terminal_id: terminal.to_owned(),
            retailer_id: caller.organization().map(str::to_owned),
            barcode: request.barcode.clone(),
            result,
            prize_cents,
        })
    };
    let place = barcode_is_valid(&request.barcode);
    let definition = place.and_then(|(game, _, _)| state.game(game).ok());
    let (game, book, ticket) = place.unwrap_or_default();
    let (game, book, ticket) = (
        i32::try_from(game).unwrap_or(-1),
        i32::try_from(book).unwrap_or(-1),
        i32::try_from(ticket).unwrap_or(-1),
    );
    // Hashed here: the key never reaches the database. A barcode that is not well formed reads
    // no ticket, but still meets the terminal's lock first.
    let candidate = virn_hash(&state.virn_key, request.virn.trim())?;
    let row = sqlx::query(
        "SELECT locked_until, printed AS found, pack_state, virn_ok, attempts_left, prize_row, prize_cents, paid_at,
                payment, paid_to
           FROM scan_ticket($1, $2, $3, $4, $5, $6, $7, $8, make_interval(mins => $9), make_interval(mins => $10))",
    )
    .bind(terminal)
    .bind(caller.organization())
    .bind(game)
    .bind(book)
    .bind(ticket)
    .bind(&candidate)
    .bind(MAX_WRONG_VIRNS)
    .bind(MAX_WRONG_VIRNS_PER_RETAILER)
    .bind(FAILURE_WINDOW_MINUTES)
    .bind(i32::try_from(LOCK_MINUTES).unwrap_or(15))
    .fetch_one(&state.pool)
    .await?;
    if let Some(until) = row.try_get::<Option<DateTime<Utc>>, _>("locked_until")? {
        return Err(locked(until));
    }
    if place.is_none() {
        log("invalid_barcode", 0).await?;
        return Err(AppError::unprocessable(
            "invalid_barcode",
            "the barcode is not well formed or its check digit is wrong",
        ));
    }
    let Some(definition) = definition else {
        log("unknown_game", 0).await?;
        return Err(AppError::not_found("unknown_game", format!("no instant game {game}")));
    };
    if !row.try_get::<bool, _>("found")? {
        log("ticket_not_found", 0).await?;
        return Err(AppError::not_found("ticket_not_found", "no such ticket was printed"));
    }
    if !matches!(row.try_get::<Option<String>, _>("pack_state")?.as_deref(), Some("active" | "settled")) {
        log("pack_not_active", 0).await?;
        return Err(AppError::conflict("pack_not_active", "this ticket's pack has not been activated"));
    }
    if !row.try_get::<bool, _>("virn_ok")? {
        log("wrong_virn", 0).await?;
        let left: i32 = row.try_get("attempts_left")?;
        return Err(AppError::unprocessable(
            "wrong_virn",
            "the validation number does not match this ticket",
        )
        .with_context(serde_json::json!({"attempts_left": left})));
    }
    let resumable =
        matches!(row.try_get::<Option<String>, _>("payment")?.as_deref(), Some("pending" | "done"))
            && resuming.is_some()
            && row.try_get::<Option<String>, _>("paid_to")?.as_deref() == resuming;
    if row.try_get::<Option<DateTime<Utc>>, _>("paid_at")?.is_some() && !resumable {
        log("already_paid", 0).await?;
        return Err(already_paid());
    }
    let prize_row: Option<i16> = row.try_get("prize_row")?;
    let prize_cents: i64 = row.try_get::<Option<i64>, _>("prize_cents")?.unwrap_or(0);
    let free_ticket = prize_row
        .and_then(|r| definition.prizes.get(usize::try_from(r).ok()?))
        .is_some_and(|p| p.composition.contains(&0));
    log(if prize_row.is_some() { "winner" } else { "not_a_winner" }, prize_cents).await?;
    Ok(Checked {
        game,
        book,
        ticket,
        prize_row,
        prize_cents,
        free_ticket,
        price_cents: definition.price_cents,
    })
}

fn already_paid() -> AppError {
    AppError::conflict("already_paid", "this ticket's prize has been paid")
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
    let checked = check_ticket(&state, &caller, &request, None).await?;
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

/// Who receives a prize: a retailer's settlement account, or the office (see [`crate::office`]).
pub const OFFICE: &str = "office";

/// Reserves `checked` for `paid_to` and records what it pays (`paid_cents`), moves the money and
/// confirms the payment (see the module). An office claim's row is written in the reserving
/// transaction. Of concurrent claims the ticket's row lock lets one payee reserve it, and of that
/// payee's requests exactly one confirms it; every other is `already_paid`. A payment of the same
/// payee left unconfirmed is resumed. Returns the payment's id.
pub async fn pay_ticket(
    state: &InstantState,
    checked: &Checked,
    paid_to: &str,
    paid_cents: i64,
    office_claim: Option<&crate::office::OfficeClaimRecord>,
) -> Result<uuid::Uuid, AppError> {
    let id = checked.key("payment");
    let mut tx = state.pool.begin().await?;
    let reserved = sqlx::query(
        "UPDATE tickets SET paid_at = now(), payment_id = $4, paid_to = $5, paid_cents = $6, payment = 'pending'
          WHERE game = $1 AND book = $2 AND ticket = $3 AND paid_at IS NULL",
    )
    .bind(checked.game)
    .bind(checked.book)
    .bind(checked.ticket)
    .bind(id)
    .bind(paid_to)
    .bind(paid_cents)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if reserved == 1 {
        sqlx::query("UPDATE prize_counts SET paid = paid + 1 WHERE game = $1 AND prize_row = $2")
            .bind(checked.game)
            .bind(checked.prize_row)
            .execute(&mut *tx)
            .await?;
        if let Some(claim) = office_claim {
            crate::office::insert_claim(&mut tx, id, checked, claim).await?;
        }
        tx.commit().await?;
    } else {
        let pending: Option<String> = sqlx::query_scalar(
            "SELECT paid_to FROM tickets
              WHERE game = $1 AND book = $2 AND ticket = $3 AND payment IN ('pending', 'done')",
        )
        .bind(checked.game)
        .bind(checked.book)
        .bind(checked.ticket)
        .fetch_optional(&mut *tx)
        .await?;
        tx.rollback().await?;
        if pending.as_deref() != Some(paid_to) {
            return Err(already_paid());
        }
    }
    move_payment_money(state, id).await?;
    let confirmed =
        sqlx::query("UPDATE tickets SET payment = 'confirmed' WHERE payment_id = $1 AND payment = 'done'")
            .bind(id)
            .execute(&state.pool)
            .await?
            .rows_affected();
    if confirmed != 1 {
        return Err(already_paid());
    }
    Ok(id)
}

/// Moves the money of pending payment `id` and marks it done; nothing to do when it is not
/// pending. A ledger that does not answer leaves it pending (503: the recovery pass or the same
/// payee's retry finishes it); a ledger refusal releases the ticket, as if never claimed.
pub async fn move_payment_money(state: &InstantState, id: uuid::Uuid) -> Result<(), AppError> {
    let Some(row) = sqlx::query(
        "SELECT game, book, ticket, paid_to, paid_cents FROM tickets WHERE payment_id = $1 AND payment = 'pending'",
    )
    .bind(id)
    .fetch_optional(&state.pool)
    .await?
    else {
        return Ok(());
    };
    let (game, book, ticket): (i32, i32, i32) =
        (row.try_get("game")?, row.try_get("book")?, row.try_get("ticket")?);
    let paid_to: String = row.try_get("paid_to")?;
    let paid_cents: i64 = row.try_get("paid_cents")?;
    let link = state.ledger_link()?;
    let liability = crate::liability_account(u32::try_from(game).map_err(AppError::internal)?);
    let key = |what: &str| ticket_key(game, book, ticket, what);
    let metadata = serde_json::json!({"game": game, "book": book, "ticket": ticket, "payment": id});
    let transfers = if paid_to == OFFICE {
        let claim = sqlx::query("SELECT net_cents, withheld_cents FROM office_claims WHERE id = $1")
            .bind(id)
            .fetch_one(&state.pool)
            .await?;
        let (net, withheld): (i64, i64) = (claim.try_get("net_cents")?, claim.try_get("withheld_cents")?);
        vec![
            NewTransfer::new(
                key("office-net"),
                liability,
                link.office_payouts_account,
                net,
                metadata.clone(),
            ),
            NewTransfer::new(key("office-withheld"), liability, link.withholding_account, withheld, metadata),
        ]
    } else {
        let account = crate::retailer_account(&paid_to);
        link.ledger
            .open_accounts(&paid_to, &[(account, AccountKind::RetailerSettlement)])
            .await
            .map_err(|e| pending(&e))?;
        vec![NewTransfer::new(key("paid"), liability, account, paid_cents, metadata)]
    };
    // (A transfer of nothing, such as no tax withheld, is left out of the batch.)
    match link.ledger.batch(&transfers).await {
        Ok(()) => {
            sqlx::query("UPDATE tickets SET payment = 'done' WHERE payment_id = $1 AND payment = 'pending'")
                .bind(id)
                .execute(&state.pool)
                .await?;
            Ok(())
        }
        Err(LedgerError::Refused(e)) => {
            release_payment(state, id).await?;
            Err(e)
        }
        Err(LedgerError::Unavailable(e)) => Err(pending(&e)),
    }
}

/// The answer while a payment waits for the ledger.
fn pending(e: &AppError) -> AppError {
    tracing::warn!(error = %e, "a prize payment waits for the ledger");
    AppError::unavailable(
        "the payment is recorded and completes when the ledger answers; claiming again finishes it",
    )
}

/// Undoes a reservation the ledger refused: the ticket unpaid, its prize row's count and any
/// office claim row as before.
async fn release_payment(state: &InstantState, id: uuid::Uuid) -> Result<(), AppError> {
    let mut tx = state.pool.begin().await?;
    let released: Option<(i32, Option<i16>)> = sqlx::query_as(
        "UPDATE tickets SET paid_at = NULL, payment_id = NULL, paid_to = NULL, paid_cents = NULL, payment = NULL
          WHERE payment_id = $1 AND payment = 'pending' RETURNING game, prize_row",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((game, prize_row)) = released {
        sqlx::query("UPDATE prize_counts SET paid = paid - 1 WHERE game = $1 AND prize_row = $2")
            .bind(game)
            .bind(prize_row)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM office_claims WHERE id = $1").bind(id).execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Moves the money of payments left pending for longer than `older_than` (a crash, or a ledger
/// that did not answer); returns how many were finished. Their payees are answered "paid" when
/// they claim again.
pub async fn finish_pending_payments(
    state: &InstantState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    platform::recovery::finish_stuck(
        &state.pool,
        "SELECT payment_id FROM tickets WHERE payment = 'pending' AND paid_at < now() - make_interval(secs => $1)
          ORDER BY paid_at LIMIT 500",
        older_than,
        "instant prize payments",
        |id| move_payment_money(state, id),
    )
    .await
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
    state.ledger_link()?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    let checked = check_ticket(&state, &caller, &request, Some(&retailer)).await?;
    if checked.prize_row.is_none() {
        return Err(AppError::unprocessable("not_a_winner", "this ticket wins nothing"));
    }
    if checked.prize_cents > state.retailer_limit_cents {
        return Err(AppError::conflict("claim_at_office", "this prize is claimed at the lottery office"));
    }
    let amount = checked.amount_cents();
    pay_ticket(&state, &checked, &retailer, amount, None).await?;
    Ok(Json(ClaimView { paid_cents: amount, free_ticket: checked.free_ticket }))
}
