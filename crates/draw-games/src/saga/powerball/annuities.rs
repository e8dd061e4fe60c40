//! The annuity's later payments (issue 50, ADR 0019): a grand prize taken as an annuity records
//! its 30 payments with its claim ([`super::claims`]); the first is paid with the claim and the
//! rest wait in the annuity account. The scheduler's leader pays each one whose date has come,
//! net to the office's payouts (paid out by check or bank transfer) and its withholding to the
//! tax account, through the ledger under keys of the payment's own, so that two replicas paying
//! it at once, or a pass after a crash, move it once; then marks it paid with its event. After
//! downtime the next pass pays every payment whose date passed meanwhile.

use ledger_api::{Game, LedgerError, Money, NewTransfer, Purpose};
use platform::AppError;
use uuid::Uuid;

use crate::store::powerball::annuities::{self, Payment};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// How many payments one pass pays at most (the rest on the next).
const PAYMENTS_PER_PASS: i64 = 100;

/// Pays every annuity payment due by the lottery's today; returns how many this call marked paid.
pub async fn pay_due(state: &DrawsState) -> Result<usize, AppError> {
    let today = state.clock.now().with_timezone(&domain::text::LOTTERY_ZONE).date_naive();
    let mut paid = 0;
    for payment in annuities::due(&state.pool, today, PAYMENTS_PER_PASS).await? {
        match state.ledger.batch(&transfers(state, &payment)).await {
            Ok(()) => {}
            // Nothing moved: the payment stays due and is tried on every pass, each saying why.
            Err(LedgerError::Refused(e)) => {
                tracing::error!(claim = %payment.claim_id, payment = payment.number, error = %e,
                    "the ledger refused an annuity payment");
                continue;
            }
            Err(LedgerError::Unavailable(e)) => return Err(e),
        }
        if annuities::mark_paid(&state.pool, &payment, state.clock.now()).await? {
            paid += 1;
        }
    }
    Ok(paid)
}

/// The payment's net and withholding out of the annuity account, each under a key of its own.
fn transfers(state: &DrawsState, payment: &Payment) -> Vec<NewTransfer> {
    let accounts = state.powerball_accounts;
    let (claim, number) = (payment.claim_id, payment.number);
    let key = |what: &str| Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-annuity/{claim}/{number}/{what}").as_bytes());
    let purpose = Purpose::of(Game::Powerball, Money::Prize).claim(claim);
    let mut transfers = vec![
        NewTransfer::new(key("net"), accounts.annuities, accounts.office_payouts, payment.net_cents, purpose.clone()),
        NewTransfer::new(key("withheld"), accounts.annuities, accounts.withholding, payment.withheld_cents, purpose),
    ];
    transfers.retain(|t| t.amount > 0);
    transfers
}
