//! A player's tickets for future draws voided and refunded when their play is suspended (a
//! break, an exclusion or a closure; issue 35, ADR 0014 §4). The gateway asks once it has
//! suspended the wallet's stakes in the ledger, so no purchase can start after it.
//!
//! 1. purchases still `open` are finished first (their stake was taken or will be refused, and
//!    a taken one joins its draws), so none joins a draw after the void;
//! 2. each ticket's entries in draws not yet closed are taken out and the stake owed recorded,
//!    in one transaction per ticket ([`store::voids`]);
//! 3. ledger: the stake for those draws from the game's escrow back to the wallet
//!    (`<ticket>/refund`, once per ticket however often it is asked), then marked refunded.
//!
//! Asking again voids what is left (nothing, once done) and finishes refunds; [`recover`]
//! finishes refunds a crash left between 2 and 3.

use std::time::Duration;

use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use uuid::Uuid;

use crate::store::voids::{self as store, Voided};
use crate::views::{VoidReason, VoidReport, VoidedTicketView};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// Voids every ticket of `player` for a draw not yet closed and refunds each to the wallet.
pub async fn void_future_tickets(state: &DrawsState, player: &str, reason: VoidReason) -> Result<VoidReport, AppError> {
    let (keno_open, powerball_open) = store::open_purchases(&state.pool, player).await?;
    for id in keno_open {
        super::keno::scheduled::drive(state, id).await?;
    }
    for id in powerball_open {
        super::powerball::sales::drive(state, id).await?;
    }
    let mut voided = Vec::new();
    for id in store::keno_with_future_draws(&state.pool, player).await? {
        voided.extend(store::void_keno(&state.pool, id, reason.as_str(), state.clock.now()).await?);
    }
    for (id, first, draws) in store::powerball_with_future_drawings(&state.pool, player).await? {
        let dates: Vec<_> = state
            .powerball
            .drawings_from(&state.powerball.drawing_on(first), usize::try_from(draws).unwrap_or(1))
            .iter()
            .map(|d| d.date)
            .collect();
        voided.extend(store::void_powerball(&state.pool, id, &dates, reason.as_str(), state.clock.now()).await?);
    }
    let mut report = VoidReport { voided: Vec::with_capacity(voided.len()), refunded_cents: 0 };
    for ticket in voided {
        let view = refund(state, ticket).await?;
        report.refunded_cents = report.refunded_cents.saturating_add(view.refund_cents);
        report.voided.push(view);
    }
    Ok(report)
}

/// Returns a voided ticket's stake to its wallet (once: the transfer's id is the ticket's) and
/// marks it refunded.
async fn refund(state: &DrawsState, mut ticket: Voided) -> Result<VoidedTicketView, AppError> {
    let (prefix, escrow) = match ticket.game.as_str() {
        "powerball" => ("powerball-ticket", state.powerball_accounts.escrow),
        _ => ("keno-draw-ticket", state.escrow_account),
    };
    let transfer = NewTransfer::new(
        Uuid::new_v5(&DRAWS_NAMESPACE, format!("{prefix}/{}/refund", ticket.ticket_id).as_bytes()),
        escrow,
        ticket.wallet_account_id,
        ticket.refund_cents,
        voided_purpose(&ticket)?,
    );
    state.ledger.transfer(&transfer).await?;
    ticket.refunded_at = Some(store::mark_refunded(&state.pool, ticket.ticket_id, state.clock.now()).await?);
    Ok(VoidedTicketView::from(ticket))
}


/// Finishes refunds of voids older than `older_than` a crash left unpaid; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    let mut finished = 0;
    let before = state.clock.now() - chrono::Duration::from_std(older_than).unwrap_or(chrono::Duration::zero());
    for ticket in store::unrefunded(&state.pool, before).await? {
        let id = ticket.ticket_id;
        match refund(state, ticket).await {
            Ok(_) => finished += 1,
            Err(e) => tracing::warn!(ticket = %id, error = %e, "refunding a voided ticket failed; will retry"),
        }
    }
    Ok(finished)
}

/// A void's refund as the journal keeps it: the game, the ticket, why and the drawings given up.
fn voided_purpose(ticket: &Voided) -> Result<Purpose, AppError> {
    let game = Game::named(&ticket.game).ok_or_else(|| AppError::internal("a voided ticket of no game"))?;
    let purpose = Purpose::of(game, Money::Refund).ticket(ticket.ticket_id);
    Ok(purpose.void(ticket.reason.clone(), ticket.draws.clone()))
}
