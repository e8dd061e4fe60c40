//! A prize paid exactly once, whatever the game (architecture §4): the saga that instant tickets'
//! claims and Powerball's claims both run, each with its own rows.
//!
//! 1. **reserve**: the prize is reserved for one payee and committed (`pending`); of concurrent
//!    claims a row lock lets one payee reserve it, and every other is `already_paid`. The same
//!    payee claiming again while it is unconfirmed resumes it.
//! 2. **move the money**: the ledger moves it under ids derived from the prize, so a retry is a
//!    replay (`done`). A ledger that does not answer leaves it pending (503: the payee's retry or
//!    the recovery pass finishes it); a ledger refusal releases the prize, as if never claimed.
//! 3. **confirm**: exactly one request of that payee is answered "paid": the answer that tells a
//!    cashier to hand the prize over is given once, however many tills claim at once.

use std::future::Future;

use platform::AppError;
use platform::codes;

use crate::{LedgerClient, LedgerError, NewTransfer};

/// What reserving a prize found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reservation {
    /// Reserved for this payee now.
    Reserved,
    /// Reserved for this payee before, and not yet confirmed: this claim finishes it.
    Resumed,
    /// Paid, or reserved for another payee.
    Taken,
}

/// The answer to every claim of a prize that is paid (or being paid to someone else).
pub fn already_paid() -> AppError {
    AppError::conflict(codes::ALREADY_PAID, "this ticket's prize has been paid")
}

/// Runs the saga: `reserve`, then `move_money` (told what reserving found: a payment this call
/// reserved is the one it recorded, so it need not be read again), then `confirm` (true for the
/// one request that confirms it). Each is the service's own step on its own rows. Answers what
/// reserving found (reserved now, or resumed).
pub async fn pay_once<Moved>(
    reserve: impl Future<Output = Result<Reservation, AppError>>,
    move_money: impl FnOnce(Reservation) -> Moved,
    confirm: impl Future<Output = Result<bool, AppError>>,
) -> Result<Reservation, AppError>
where
    Moved: Future<Output = Result<(), AppError>>,
{
    let reservation = reserve.await?;
    if reservation == Reservation::Taken {
        return Err(already_paid());
    }
    move_money(reservation).await?;
    if !confirm.await? {
        return Err(already_paid());
    }
    Ok(reservation)
}

/// Step 2 for a pending payment: `transfers` in one ledger batch, then `done` (pending → done);
/// on a refusal `release` (the prize unreserved) and the refusal; when the ledger does not
/// answer, a 503 that leaves it pending.
pub async fn move_pending(
    ledger: &LedgerClient,
    transfers: &[NewTransfer],
    done: impl Future<Output = Result<(), AppError>>,
    release: impl Future<Output = Result<(), AppError>>,
) -> Result<(), AppError> {
    match ledger.batch(transfers).await {
        Ok(()) => done.await,
        Err(LedgerError::Refused(e)) => {
            release.await?;
            Err(e)
        }
        Err(LedgerError::Unavailable(e)) => Err(waits_for_ledger(&e)),
    }
}

/// The answer while a payment waits for the ledger.
pub fn waits_for_ledger(e: &AppError) -> AppError {
    tracing::warn!(error = %e, "a prize payment waits for the ledger");
    AppError::unavailable(
        "the payment is recorded and completes when the ledger answers; claiming again finishes it",
    )
}
