//! Castle Keno played at once: a ticket is bought, drawn with its own 20 numbers and settled.
//!
//! A ticket is a saga of idempotent steps with deterministic keys (architecture §4), arranged so that a
//! ticket costs one ledger transaction and a share of two group-committed local ones:
//!
//! 1. draw with a fresh OS-seeded ChaCha20 and record the ticket with its numbers and outcome
//!    (`drawn`): the numbers are fixed before any money moves, so nothing is ever drawn twice;
//! 2. ledger, as one atomic batch: the stake from the wallet to the house (`<ticket>/stake`) and
//!    the prize from the house to the wallet (`<ticket>/prize`); a batch the ledger refuses
//!    (say, too little in the wallet) ends the ticket `refused` with nothing moved;
//! 3. `settled`, with the outcome appended to the audit chain in the same transaction.
//!
//! The numbers of a ticket are shown only once it is settled: a player who could see a losing
//! outcome before the stake is taken could empty the wallet to have it refused.
//! [`recover`] drives any ticket a crash left `drawn`: the batch repeated is a replay in the
//! ledger, never a second payment.

use std::time::Duration;

use chrono::SubsecRound;
use domain::keno::{Draw, Ticket, settle};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use uuid::Uuid;

use crate::rules::{option_name, option_named};
use crate::store::PlayNowState;
use crate::store::keno::tickets::{self, PlayNowTicket, TicketWrite};
use crate::views::TicketView;
use crate::{DRAWS_NAMESPACE, DrawsState};

/// The ticket as its player sees it: the numbers only once settled.
pub fn view(ticket: &PlayNowTicket) -> Result<TicketView, AppError> {
    let settled = ticket.state == PlayNowState::Settled;
    Ok(TicketView {
        id: ticket.id,
        option: option_named(&ticket.option)?,
        spots: ticket.spots.clone(),
        tickets: ticket.tickets,
        stake_cents: ticket.stake_cents,
        state: ticket.state,
        draw_numbers: settled.then(|| ticket.numbers.clone()),
        hits: settled.then_some(ticket.hits),
        payout_cents: settled.then_some(ticket.payout_cents),
        refusal: ticket.refusal.clone(),
        created_at: ticket.created_at,
    })
}

/// Buys `ticket` for `player` under idempotency key `key` (steps 1 to 3); a replay of the same
/// key finishes and answers the same ticket. Returns the ticket and whether this call made it.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_play_now.buy", skip_all)]
pub async fn play(
    state: &DrawsState,
    player: &str,
    key: &str,
    ticket: &Ticket,
) -> Result<(TicketView, bool), AppError> {
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{player}/{key}").as_bytes());
    // A fresh generator seeded by the operating system for every draw; the seed is never kept.
    let draw = Draw::random(&mut ChaCha20Rng::from_os_rng());
    let outcome = settle(ticket, &draw);
    let recorded = PlayNowTicket {
        id,
        wallet: state.ledger.wallet_of(player).await?,
        player: player.to_owned(),
        option: option_name(ticket.option)?,
        spots: ticket.spots.numbers().into_iter().map(i16::from).collect(),
        tickets: i32::try_from(ticket.tickets).map_err(AppError::internal)?,
        stake_cents: ticket.stake_cents(),
        state: PlayNowState::Drawn,
        numbers: draw.numbers.iter().map(|&n| i16::from(n)).collect(),
        hits: i32::try_from(outcome.hits).map_err(AppError::internal)?,
        payout_cents: outcome.payout_cents,
        refusal: None,
        // Postgres keeps microseconds: the answer now and on a replay must be the same.
        created_at: state.clock.now().trunc_subsecs(6),
    };
    let created = state.ticket_writes.submit(TicketWrite::Record(recorded.clone())).await?;
    if created {
        let (view, refusal) = settle_recorded(state, recorded).await?;
        return match refusal {
            Some(refused) => Err(refused),
            None => Ok((view, true)),
        };
    }
    let existing = tickets::load::<PlayNowTicket>(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::internal("recorded ticket vanished"))?;
    if (&existing.option, &existing.spots, existing.tickets)
        != (&recorded.option, &recorded.spots, recorded.tickets)
    {
        return Err(AppError::conflict(codes::IDEMPOTENCY_CONFLICT, "this key bought a different ticket"));
    }
    Ok((settle_recorded(state, existing).await?.0, false))
}

/// The outcome as chained in the audit log.
#[derive(Debug, Serialize)]
struct OutcomeRecord<'a> {
    game: &'static str,
    ticket: Uuid,
    player: &'a str,
    option: &'a str,
    spots: &'a [i16],
    tickets: i32,
    numbers: &'a [i16],
    hits: i32,
    payout_cents: i64,
}

/// Settles a recorded ticket (or finds it settled or refused); safe to run again at any point.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_play_now.drive", skip_all, fields(%id))]
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<TicketView, AppError> {
    let ticket = tickets::load::<PlayNowTicket>(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(codes::TICKET_NOT_FOUND, "no such ticket"))?;
    settle_recorded(state, ticket).await.map(|(view, _)| view)
}

/// Finishes tickets left `drawn` for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    crate::saga::recover::<PlayNowTicket, _, _, _>(state, older_than, |id| drive(state, id)).await
}

/// Settles a drawn ticket; answers its view and, when this call ended it refused, the ledger's
/// refusal as it came (with its context: a limit's amount left and when it resets), which the
/// buyer's first answer carries (a replay answers the stored code).
async fn settle_recorded(
    state: &DrawsState,
    mut ticket: PlayNowTicket,
) -> Result<(TicketView, Option<AppError>), AppError> {
    if ticket.state != PlayNowState::Drawn {
        return Ok((view(&ticket)?, None));
    }
    let id = ticket.id;
    let purpose = |money| Purpose::of(Game::CastleKeno, money).ticket(id);
    let mut transfers = vec![NewTransfer::new(
        step_id(id, "stake"),
        ticket.wallet,
        state.house_account,
        ticket.stake_cents,
        purpose(Money::Stake),
    )];
    if ticket.payout_cents > 0 {
        transfers.push(NewTransfer::new(
            step_id(id, "prize"),
            state.house_account,
            ticket.wallet,
            ticket.payout_cents,
            purpose(Money::Prize),
        ));
    }
    let mut refusal = None;
    let write = match state.ledger_batches.submit(transfers).await {
        Ok(_) => {
            let record = OutcomeRecord {
                game: "castle_keno",
                ticket: id,
                player: &ticket.player,
                option: &ticket.option,
                spots: &ticket.spots,
                tickets: ticket.tickets,
                numbers: &ticket.numbers,
                hits: ticket.hits,
                payout_cents: ticket.payout_cents,
            };
            let audit = platform::audit::Entry::new("keno.play_now", id, &record)?;
            ticket.state = PlayNowState::Settled;
            TicketWrite::Settle { id, audit }
        }
        // The ledger's rules refused it: nothing moved, and nothing will.
        Err(e) if ledger_api::is_refusal(&e) => {
            ticket.state = PlayNowState::Refused;
            ticket.refusal = Some(e.code().to_owned());
            let code = e.code().to_owned();
            refusal = Some(e);
            TicketWrite::Refuse { id, code }
        }
        Err(e) => return Err(e),
    };
    if state.ticket_writes.submit(write).await? {
        Ok((view(&ticket)?, refusal))
    } else {
        // Someone else (a retry, the recovery worker) finished it first: show what they wrote.
        let written = tickets::load::<PlayNowTicket>(&state.pool, id)
            .await?
            .ok_or_else(|| AppError::internal("settled ticket vanished"))?;
        Ok((view(&written)?, None))
    }
}

fn step_id(ticket: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-ticket/{ticket}/{step}").as_bytes())
}
