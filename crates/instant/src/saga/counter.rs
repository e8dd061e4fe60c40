//! A prize claimed at a retailer's till, once per Idempotency-Key: a key claimed before answers
//! its receipt (its payment finished first when the ledger had not answered then); a new key's
//! ticket is checked, must win no more than the retailer limit, and is paid to the retailer's
//! settlement account with its receipt ([`pay_ticket`]).

use domain::instant::print_run::barcode_is_valid;
use platform::auth::Caller;
use platform::{AppError, codes};

use crate::InstantState;
use crate::saga::payment::{Payee, key_used_for_another_claim, move_payment_money, pay_ticket};
use crate::saga::scan::check_ticket;
use crate::store::receipts::{self, CounterClaim, Receipt};
use crate::store::{PaymentState, tickets};
use crate::views::ValidationRequest;

/// A claim's receipt, and whether the key had claimed it before.
#[derive(Debug)]
pub struct Claimed {
    pub receipt: Receipt,
    pub replayed: bool,
}

/// Claims the ticket of `request` at the counter of `claim` (see the module).
pub async fn claim_at_counter(
    state: &InstantState,
    caller: &Caller,
    claim: CounterClaim,
    request: &ValidationRequest,
) -> Result<Claimed, AppError> {
    if let Some(receipt) = receipts::by_key(&state.pool, &claim.retailer_id, &claim.idempotency_key).await? {
        return claimed_before(state, receipt, request).await;
    }
    let checked = check_ticket(state, caller, request, Some(&claim.retailer_id)).await?;
    if checked.prize_row.is_none() {
        return Err(AppError::unprocessable(codes::NOT_A_WINNER, "this ticket wins nothing"));
    }
    if checked.prize_cents > state.settings.prizes.retailer_limit_cents {
        return Err(AppError::conflict(codes::CLAIM_AT_OFFICE, "this prize is claimed at the lottery office"));
    }
    let id = pay_ticket(state, &checked, &Payee::Retailer(claim), checked.amount_cents()).await?;
    let receipt =
        receipts::get(&state.pool, id).await?.ok_or_else(|| AppError::internal("a paid claim without its receipt"))?;
    Ok(Claimed { receipt, replayed: false })
}

/// The key's earlier claim: the same ticket's receipt, its payment finished if it was left
/// pending; a refusal if the key claimed another ticket or the ledger refused its payment.
async fn claimed_before(
    state: &InstantState,
    receipt: Receipt,
    request: &ValidationRequest,
) -> Result<Claimed, AppError> {
    let place = receipt.place();
    let same_ticket = barcode_is_valid(&request.barcode).is_some_and(|(g, b, t)| {
        (i64::from(g), i64::from(b), i64::from(t))
            == (i64::from(place.game), i64::from(place.book), i64::from(place.ticket))
    });
    if !same_ticket {
        return Err(key_used_for_another_claim());
    }
    // A payment the ledger had not made yet when the first answer was lost: made now.
    if receipt.payment == Some(PaymentState::Pending) {
        move_payment_money(state, receipt.id).await?;
        tickets::confirm(&state.pool, receipt.id).await?;
    }
    let receipt = receipts::get(&state.pool, receipt.id).await?.ok_or_else(|| {
        AppError::conflict(codes::CLAIM_RELEASED, "the ledger refused this payment; claim the ticket again")
    })?;
    Ok(Claimed { receipt, replayed: true })
}
