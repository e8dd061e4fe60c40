//! A prize paid to its payee, exactly once: a retailer's settlement account at the counter, or
//! the office (net to its payout account, tax withheld to the tax account).
//!
//! The saga is every game's ([`ledger_api::payout`]): the ticket is reserved for its payee and
//! committed (`pending`), the ledger moves the money under ids derived from the ticket (`done`),
//! and exactly one request of that payee is answered "paid" (`confirmed`). If the ledger does
//! not answer, the payment stays pending: the recovery pass ([`finish_pending_payments`]) moves
//! the money, the payee claiming again is answered "paid", and nobody else can claim the ticket
//! meanwhile. If the ledger refuses, the ticket is released.
//!
//! The payee is a value ([`Payee`]), so this saga knows nothing of the routes that pay: the
//! counter and the office both call [`pay_ticket`].

use ledger_api::payout::{self, Reservation};
use ledger_api::{AccountKind, Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::InstantState;
use crate::saga::scan::{Checked, ticket_key};
use crate::store::office_claims::{self, OfficeClaimRecord};
use crate::store::receipts::{self, CounterClaim};
use crate::store::tickets::{self, PaidTo};

/// Who receives a prize.
#[derive(Debug, Clone)]
pub enum Payee {
    /// A retailer's counter, to the retailer's settlement account, with the receipt it prints.
    Retailer(CounterClaim),
    /// The lottery office, with the record it keeps of the claim.
    Office(OfficeClaimRecord),
}

/// How the office is recorded as a ticket's payee (`paid_to`); a retailer is recorded by its id.
pub const OFFICE: &str = "office";

impl Payee {
    /// The ticket's `paid_to`: by this a payee claiming again is recognised.
    pub fn recorded_as(&self) -> &str {
        match self {
            Payee::Retailer(claim) => &claim.retailer_id,
            Payee::Office(_) => OFFICE,
        }
    }
}

/// Reserves `checked` for `payee`, recording what it pays (`paid_cents`), moves the money and
/// confirms the payment (see the module). An office claim's record, or the counter's receipt, is
/// written in the reserving transaction. Of concurrent claims the ticket's row lock lets one payee reserve it, and of that
/// payee's requests exactly one confirms it; every other is `already_paid`. A payment of the same
/// payee left unconfirmed is resumed. Returns the payment's id.
pub async fn pay_ticket(
    state: &InstantState,
    checked: &Checked,
    payee: &Payee,
    paid_cents: i64,
) -> Result<Uuid, AppError> {
    let id = ticket_key(checked.place, "payment");
    let paid_to = payee.recorded_as();
    let reserve = async {
        let mut tx = state.pool.begin().await?;
        if tickets::reserve(&mut tx, checked.place, checked.prize_row, id, paid_to, paid_cents).await? {
            // Reserved now: refused (and the reservation undone) once the game's prizes have
            // expired; an expiry beginning waits for this transaction (saga::sales).
            crate::saga::sales::check_claimable(&mut tx, state, checked.place.game).await?;
            match payee {
                Payee::Office(record) => office_claims::insert(&mut tx, id, checked.place, record).await?,
                Payee::Retailer(claim) => {
                    let prize = checked.prize_cents;
                    let written = receipts::insert(
                        &mut tx,
                        id,
                        checked.place,
                        claim,
                        prize,
                        paid_cents,
                        checked.free_ticket,
                    )
                    .await?;
                    if !written {
                        return Err(key_used_for_another_claim());
                    }
                }
            }
            tx.commit().await?;
            return Ok(Reservation::Reserved);
        }
        let pending = tickets::unconfirmed_payee(&mut tx, checked.place).await?;
        tx.rollback().await?;
        Ok(if pending.as_deref() == Some(paid_to) { Reservation::Resumed } else { Reservation::Taken })
    };
    payout::pay_once(reserve, |_| move_payment_money(state, id), tickets::confirm(&state.pool, id)).await?;
    Ok(id)
}

/// The refusal of a claim whose idempotency key the retailer used for another ticket.
pub fn key_used_for_another_claim() -> AppError {
    AppError::conflict(
        codes::IDEMPOTENCY_CONFLICT,
        "this Idempotency-Key was used for a claim of another ticket",
    )
}

/// Moves the money of pending payment `id` to its payee as its reservation recorded it and marks
/// it done; nothing to do when it is not pending. A ledger that does not answer leaves it pending (503: the recovery pass or the same
/// payee's retry finishes it); a ledger refusal releases the ticket, as if never claimed.
pub async fn move_payment_money(state: &InstantState, id: Uuid) -> Result<(), AppError> {
    let Some(payment) = tickets::pending_payment(&state.pool, id).await? else {
        return Ok(());
    };
    let place = payment.place;
    let game = crate::game_number(place.game)?;
    let liability = crate::liability_account(game);
    let key = |what: &str| ticket_key(place, what);
    let purpose =
        Purpose::of(Game::Instant(game), Money::Prize).book(i64::from(place.book)).ticket(place.ticket).paid_by(id);
    let accounts = &state.accounts;
    let transfers = match payment.paid_to {
        PaidTo::Office { net_cents, withheld_cents } => vec![
            NewTransfer::new(key("office-net"), liability, accounts.office_payouts, net_cents, purpose.clone()),
            NewTransfer::new(key("office-withheld"), liability, accounts.withholding, withheld_cents, purpose),
        ],
        PaidTo::Retailer(retailer) => {
            let account = ledger_api::retailer_account(&retailer);
            state
                .ledger
                .open_accounts(&retailer, &[(account, AccountKind::RetailerSettlement)])
                .await
                .map_err(|e| payout::waits_for_ledger(&e))?;
            vec![NewTransfer::new(key("paid"), liability, account, payment.paid_cents, purpose)]
        }
    };
    // (A transfer of nothing, such as no tax withheld, is left out of the batch.)
    payout::move_pending(
        &state.ledger,
        &transfers,
        tickets::mark_done(&state.pool, id),
        tickets::release(&state.pool, id),
    )
    .await
}

/// Moves the money of payments left pending for longer than `older_than` (a crash, or a ledger
/// that did not answer); returns how many were finished. Their payees are answered "paid" when
/// they claim again.
pub async fn finish_pending_payments(
    state: &InstantState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    let stuck = tickets::stuck_payments(&state.pool, older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "instant prize payments", |id| move_payment_money(state, id))
        .await)
}
