//! The retailer's counter: a terminal scans a ticket (barcode and VIRN) and learns whether it
//! wins and where it is paid.
//!
//! The checks of a scan, in order, each refusal with its own code and logged: the terminal is not
//! locked; the barcode is well formed with its check digit; the game is one this service runs; the
//! ticket was printed; its pack was not reported stolen (`pack_stolen`); its pack has been activated (an `active` or, once sold and settled,
//! `settled` pack: players keep the tickets of a settled pack and may still claim them); the VIRN
//! matches its keyed hash; the ticket is not paid. A wrong VIRN counts against the terminal and
//! against its retailer, in a window of [`FAILURE_WINDOW_MINUTES`] that a right VIRN does not
//! reset: [`MAX_WRONG_VIRNS`] lock the terminal, [`MAX_WRONG_VIRNS_PER_RETAILER`] lock every
//! terminal of the retailer, for [`LOCK_MINUTES`] minutes.
//!
//! A scan is one statement (`store::tickets::scan`): the terminal's and the retailer's guards
//! locked, the ticket with its pack read, the VIRN's keyed hash compared and a failure counted,
//! all under the guards' locks, so concurrent guesses are checked one at a time and never get
//! past the limit. Every attempt is logged through a group commit (see
//! [`crate::store::validation_log`]) and answered only once its log row is written.

use axum::http::{HeaderValue, StatusCode, header};
use chrono::{DateTime, Utc};
use domain::instant::print_run::{barcode, barcode_is_valid, virn_digits};
use platform::AppError;
use platform::auth::Caller;
use platform::codes::{self, CodeName};

use crate::InstantState;
use crate::store::tickets::{ScanLimits, Scanned};
use crate::store::validation_log::LoggedScan;
use crate::store::{PackState, PaymentState, TicketPlace};
use crate::views::ValidationRequest;

/// Wrong VIRNs within the window that lock a terminal.
pub const MAX_WRONG_VIRNS: i32 = 5;
/// Wrong VIRNs within the window, from all of a retailer's terminals, that lock all of them.
pub const MAX_WRONG_VIRNS_PER_RETAILER: i32 = 20;
/// The window failures are counted in; a right VIRN does not reset it.
pub const FAILURE_WINDOW_MINUTES: i32 = 60;
/// How long a locked terminal (or retailer) waits.
pub const LOCK_MINUTES: i32 = 15;

/// The lockout's limits as the scan applies them.
const SCAN_LIMITS: ScanLimits = ScanLimits {
    per_terminal: MAX_WRONG_VIRNS,
    per_retailer: MAX_WRONG_VIRNS_PER_RETAILER,
    window_minutes: FAILURE_WINDOW_MINUTES,
    lock_minutes: LOCK_MINUTES,
};

/// A scanned ticket that passed every check.
#[derive(Debug, Clone)]
pub struct Checked {
    pub place: TicketPlace,
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
}

/// An id derived from a ticket and `what` (its payment, a ledger transfer), so a retry or the
/// recovery pass arrives at the same one.
pub fn ticket_key(place: TicketPlace, what: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/ticket/{}-{}-{}/{what}", place.game, place.book, place.ticket).as_bytes(),
    )
}

fn locked(until: DateTime<Utc>) -> AppError {
    let seconds = (until - Utc::now()).num_seconds().max(1);
    AppError::new(
        StatusCode::FORBIDDEN,
        codes::TERMINAL_LOCKED,
        format!("too many wrong VIRNs; try again after {}", domain::text::lottery_time(until)),
    )
    .with_header(header::RETRY_AFTER, HeaderValue::from(seconds))
}

/// The scan itself: the VIRN checked for its form and hashed, then the ticket at `at` read
/// under the terminal's and retailer's lock (refused while it holds).
async fn scan(
    state: &InstantState,
    caller: &Caller,
    at: TicketPlace,
    virn: &str,
) -> Result<Scanned, AppError> {
    // A VIRN that is not twelve digits is a misread, not a guess: refused before the scan, so it
    // neither reads a ticket nor counts toward the terminal's lock.
    let Some(virn) = virn_digits(virn) else {
        return Err(AppError::unprocessable(
            codes::INVALID_VIRN,
            "a VIRN is twelve digits (spaces or dashes between them are ignored)",
        ));
    };
    // Hashed here: the key never reaches the database. A barcode that is not well formed reads
    // no ticket, but still meets the terminal's lock first.
    let candidate = state.settings.virn_key.hash(&virn);
    let scanned = crate::store::tickets::scan(
        &state.pool,
        caller.subject(),
        caller.organization(),
        at,
        &candidate,
        SCAN_LIMITS,
    )
    .await?;
    match scanned.locked_until {
        Some(until) => Err(locked(until)),
        None => Ok(scanned),
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
    let place = barcode_is_valid(&request.barcode);
    let definition = place.and_then(|(game, _, _)| state.game(game).ok());
    let (game, book, ticket) = place.unwrap_or_default();
    let at = TicketPlace {
        game: i32::try_from(game).unwrap_or(-1),
        book: i32::try_from(book).unwrap_or(-1),
        ticket: i32::try_from(ticket).unwrap_or(-1),
    };
    let scanned = scan(state, caller, at, &request.virn).await?;
    let log = |result: &'static str, prize_cents: i64| {
        state.validation_log.submit(LoggedScan {
            terminal_id: caller.subject().to_owned(),
            retailer_id: caller.organization().map(str::to_owned),
            // The printed form, however it was scanned (raw digits or dashed).
            barcode: place.map_or_else(|| request.barcode.clone(), |(g, b, t)| barcode(g, b, t)),
            result,
            prize_cents,
        })
    };
    let refusal = match (place, definition) {
        (None, _) => Some(refuse(
            codes::INVALID_BARCODE,
            AppError::unprocessable,
            "the barcode is not well formed or its check digit is wrong".to_owned(),
        )),
        (Some(_), None) => {
            Some(refuse(codes::UNKNOWN_GAME, AppError::not_found, format!("no instant game {game}")))
        }
        (Some(_), Some(_)) => refusal_of(&scanned, resuming),
    };
    if let Some((code, refused)) = refusal {
        log(code.as_str(), 0).await?;
        return Err(refused);
    }
    let definition = definition.ok_or_else(|| AppError::internal("a checked ticket without its game"))?;
    // A prize not yet paid, of a game whose claim period has ended.
    if scanned.prize_row.is_some()
        && scanned.paid_at.is_none()
        && let Err(expired) = crate::saga::sales::check_scanned(state, scanned.sales_end.as_ref())
    {
        log(codes::PRIZE_EXPIRED.as_str(), 0).await?;
        return Err(expired);
    }
    let prize_cents = scanned.prize_cents.unwrap_or(0);
    let free_ticket = scanned
        .prize_row
        .and_then(|r| definition.prizes.get(usize::try_from(r).ok()?))
        .is_some_and(|p| p.composition.contains(&0));
    log(if scanned.prize_row.is_some() { "winner" } else { "not_a_winner" }, prize_cents).await?;
    Ok(Checked {
        place: at,
        prize_row: scanned.prize_row,
        prize_cents,
        free_ticket,
        price_cents: definition.price_cents,
    })
}

/// A refusal as logged (its code) and as answered.
type Refusal = (CodeName, AppError);

fn refuse(code: CodeName, status: fn(CodeName, String) -> AppError, detail: String) -> Refusal {
    (code, status(code, detail))
}

/// The ticket's own checks, after the barcode and the game: printed, pack active, VIRN right,
/// not paid to anyone but a `resuming` payee.
fn refusal_of(scanned: &Scanned, resuming: Option<&str>) -> Option<Refusal> {
    if !scanned.printed {
        return Some(refuse(
            codes::TICKET_NOT_FOUND,
            AppError::not_found,
            "no such ticket was printed".to_owned(),
        ));
    }
    if scanned.pack_state == Some(PackState::Stolen) {
        return Some(refuse(
            codes::PACK_STOLEN,
            AppError::conflict,
            "this ticket's pack was reported stolen: do not pay it; keep the ticket and call the lottery"
                .to_owned(),
        ));
    }
    if !matches!(scanned.pack_state, Some(PackState::Active | PackState::Settled)) {
        return Some(refuse(
            codes::PACK_NOT_ACTIVE,
            AppError::conflict,
            "this ticket's pack has not been activated".to_owned(),
        ));
    }
    if !scanned.virn_ok {
        let (code, refused) = refuse(
            codes::WRONG_VIRN,
            AppError::unprocessable,
            "the validation number does not match this ticket".to_owned(),
        );
        return Some((
            code,
            refused.with_context(serde_json::json!({"attempts_left": scanned.attempts_left})),
        ));
    }
    let resumable = matches!(scanned.payment, Some(PaymentState::Pending | PaymentState::Done))
        && resuming.is_some()
        && scanned.paid_to.as_deref() == resuming;
    if scanned.paid_at.is_some() && !resumable {
        return Some((codes::ALREADY_PAID, ledger_api::payout::already_paid()));
    }
    None
}
