//! Castle Keno tickets for scheduled draws: the next draw, or the next N consecutive draws
//! (multi-draw).
//!
//! A purchase is a saga with deterministic keys (architecture §4):
//!
//! 1. record the ticket (`open`);
//! 2. ledger: the stake for every draw from the wallet to the game's escrow
//!    (`keno-draw-ticket/<id>/stake`), or `refused` when the ledger refuses it;
//! 3. join the draws (`staked`): in one transaction, the first draw whose sales close after now
//!    and the ones after it, each locked `FOR SHARE` and checked still open, so a draw's close
//!    (which waits for those locks) freezes a wager set no purchase can join afterwards.
//!
//! The draws settle the entries (see [`crate::saga::keno::draws`]); [`recover`] finishes purchases a
//! crash left `open`.

use std::time::Duration;

use chrono::SubsecRound;
use domain::keno::Ticket;
use ledger_api::{Game, LedgerError, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::rules::{option_name, option_named};
use crate::store::DrawTicketState;
use crate::store::keno::tickets::{self, DrawTicket};
use crate::views::DrawTicketView;
use crate::{DRAWS_NAMESPACE, DrawsState};

/// The ticket with its draws, as its player sees it.
pub async fn view(state: &DrawsState, ticket: &DrawTicket) -> Result<DrawTicketView, AppError> {
    Ok(DrawTicketView {
        id: ticket.id,
        option: option_named(&ticket.option)?,
        spots: ticket.spots.clone(),
        tickets: ticket.tickets,
        stake_cents: ticket.stake_cents,
        draws: ticket.draws,
        state: ticket.state,
        refusal: ticket.refusal.clone(),
        created_at: ticket.created_at,
        entries: tickets::entries_of(&state.pool, ticket.id).await?,
        voided: crate::store::voids::of_ticket(&state.pool, ticket.id).await?.map(Into::into),
    })
}

/// Buys `ticket` for `draws` consecutive draws for `player` under idempotency key `key`; a
/// replay of the same key finishes and answers the same ticket. Returns the ticket and whether
/// this call made it.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_ticket.buy", skip_all)]
pub async fn buy(
    state: &DrawsState,
    player: &str,
    key: &str,
    ticket: &Ticket,
    draws: u32,
) -> Result<(DrawTicketView, bool), AppError> {
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw-ticket/{player}/{key}").as_bytes());
    let option = option_name(ticket.option)?;
    let spots: Vec<i16> = ticket.spots.numbers().into_iter().map(i16::from).collect();
    let count = i32::try_from(ticket.tickets).map_err(AppError::internal)?;
    let draws = i32::try_from(draws).map_err(AppError::internal)?;
    let created = match tickets::load::<DrawTicket>(&state.pool, id).await? {
        Some(existing) => {
            if (&existing.option, &existing.spots, existing.tickets, existing.draws)
                != (&option, &spots, count, draws)
            {
                return Err(AppError::conflict(
                    codes::IDEMPOTENCY_CONFLICT,
                    "this key bought a different ticket",
                ));
            }
            false
        }
        None => {
            let open = DrawTicket {
                id,
                player: player.to_owned(),
                wallet: state.ledger.wallet_of(player).await?,
                option,
                spots,
                tickets: count,
                stake_cents: ticket.stake_cents(),
                draws,
                state: DrawTicketState::Open,
                refusal: None,
                created_at: state.clock.now().trunc_subsecs(6),
            };
            tickets::insert_open(&state.pool, &open).await?
        }
    };
    match drive_answering_refusal(state, id).await? {
        (_, Some(refused)) => Err(refused),
        (view, None) => Ok((view, created)),
    }
}

/// Moves a purchase forward until it is staked (in its draws) or refused; safe to run again.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_ticket.drive", skip_all, fields(%id))]
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<DrawTicketView, AppError> {
    drive_answering_refusal(state, id).await.map(|(view, _)| view)
}

/// [`drive`], answering too the ledger's refusal as it came when this call refused the ticket
/// (with its context: a limit's amount left and when it resets), for the buyer's first answer
/// (a replay answers the stored code).
async fn drive_answering_refusal(state: &DrawsState, id: Uuid) -> Result<(DrawTicketView, Option<AppError>), AppError> {
    let mut refusal = None;
    let ticket = tickets::load::<DrawTicket>(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(codes::TICKET_NOT_FOUND, "no such ticket"))?;
    if ticket.state == DrawTicketState::Open {
        let stake = NewTransfer::new(
            Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw-ticket/{id}/stake").as_bytes()),
            ticket.wallet,
            state.escrow_account,
            ticket.stake_cents.saturating_mul(i64::from(ticket.draws)),
            Purpose::of(Game::CastleKeno, Money::Stake).ticket(id),
        );
        match state.ledger.transfer(&stake).await {
            Ok(()) => tickets::join_draws(&state.pool, &state.schedule, state.clock.now(), id).await?,
            // The ledger's rules refused it: nothing moved, and nothing will.
            Err(LedgerError::Refused(e)) => {
                if tickets::refuse_open(&state.pool, id, e.code()).await? {
                    refusal = Some(e);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    let ticket = tickets::load::<DrawTicket>(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::internal("ticket vanished"))?;
    Ok((view(state, &ticket).await?, refusal))
}

/// Finishes purchases left `open` for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    crate::saga::recover::<DrawTicket, _, _, _>(state, older_than, |id| drive(state, id)).await
}
