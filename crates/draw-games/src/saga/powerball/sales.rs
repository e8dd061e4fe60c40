//! Powerball sales (111-5-24(d), (f)): a slip of boards (the player's numbers or the server's
//! quick picks) for the next drawing still on sale or the next N, sold at a retailer's terminal
//! or, where the operator enables it, online from a player's wallet.
//!
//! A sale is a saga with deterministic keys (architecture §4), like a Keno ticket for scheduled
//! draws, its steps group-committed with the other sales' that arrive together, as Keno play-now's
//! are (the ticket's writes by `store::powerball::sale_writes`, its cost in a ledger batch):
//!
//! 1. record the ticket (`open`) with its serial and every board, quick picks drawn here from a
//!    fresh OS-seeded ChaCha20 (never from the terminal), so a replay answers the same numbers;
//! 2. ledger: the cost for every drawing from the retailer's settlement account (what the
//!    retailer owes) or the player's wallet to Powerball's escrow (`powerball-ticket/<id>/cost`),
//!    or `refused` when the ledger refuses it (a wallet short of funds);
//! 3. place the plays (`sold`): in one statement, into the first drawing still on sale and the
//!    ones after it, each locked `FOR SHARE` and checked still on sale.
//!
//! A sold ticket is never voided or cancelled (111-5-24(f)): there is no route that does it.

use std::time::Duration;

use chrono::SubsecRound;
use domain::powerball::schedule::{Drawing, SaleWindow};
use domain::powerball::{Board, slip_cents};
use domain::serial::TicketSerial;
use ledger_api::{AccountKind, Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use crate::store::{PowerballDrawState, PowerballTicketState};
use crate::store::powerball::drawings;
use crate::store::powerball::sale_writes::{Placed, SaleWrite, SaleWritten};
use crate::store::powerball::tickets::{self, Channel, PowerballTicket, TicketDrawing};
use crate::views::{BoardView, PowerballTicketView, TicketDrawingView, VoidedTicketView, WinningBoardView};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// Who sells.
#[derive(Debug, Clone)]
pub enum Seller {
    /// A retailer's terminal: `retailer` owes the sale; `terminal` is the login that asked.
    Terminal { retailer: String, terminal: String },
    /// A player buying online from their wallet.
    Online { player: String },
}

/// What a slip asks for, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slip {
    pub chosen: Vec<Board>,
    pub quick_picks: u32,
    pub power_play: bool,
    pub draws: u32,
}

/// Whether `existing` is the ticket `slip` sells (the chosen boards, as many quick picks, the
/// same Power Play and drawings): a replayed key must send the same slip.
fn sold_from(existing: &PowerballTicket, slip: &Slip) -> bool {
    let chosen = existing.boards.len().saturating_sub(usize::try_from(existing.quick_picks).unwrap_or(0));
    existing.boards.get(..chosen) == Some(slip.chosen.as_slice())
        && u32::try_from(existing.quick_picks).ok() == Some(slip.quick_picks)
        && existing.power_play == slip.power_play
        && u32::try_from(existing.draws).ok() == Some(slip.draws)
}

/// Refuses a sale in the window between a drawing's close and the sales' resumption.
fn on_sale(state: &DrawsState, now: chrono::DateTime<chrono::Utc>) -> Result<(), AppError> {
    if let SaleWindow::Closed { closing, resumes_at } = state.powerball.sale_window(now) {
        return Err(AppError::conflict(
            codes::SALES_CLOSED,
            format!(
                "Powerball sales closed at {} for the {} drawing; they resume at {}",
                closing.sales_close.to_rfc3339(),
                closing.date,
                resumes_at.to_rfc3339()
            ),
        ));
    }
    Ok(())
}

/// Sells `slip` for `seller` under idempotency key `key`; a replay of the same key finishes and
/// answers the same ticket. Returns the ticket and whether this call made it.
pub async fn sell(
    state: &DrawsState,
    seller: &Seller,
    key: &str,
    slip: &Slip,
) -> Result<(PowerballTicketView, bool), AppError> {
    let (channel, seller_name, sold_by) = match seller {
        Seller::Terminal { retailer, terminal } => (Channel::Terminal, retailer.as_str(), terminal.as_str()),
        Seller::Online { player } => (Channel::Online, player.as_str(), player.as_str()),
    };
    let id = Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-ticket/{sold_by}/{key}").as_bytes());
    // A new sale in the closed window is refused; a replay finishes whatever it began. (Outside
    // that window a replay is found by the insert below: one round trip fewer a sale.)
    let now = state.clock.now();
    if let Err(closed) = on_sale(state, now) {
        return match tickets::load(&state.pool, id).await? {
            Some(existing) => replay(state, &existing, slip).await,
            None => Err(closed),
        };
    }
    let debit_account = match seller {
        Seller::Terminal { retailer, .. } => {
            let account = ledger_api::retailer_account(retailer);
            state.ledger.open_accounts(retailer, &[(account, AccountKind::RetailerSettlement)]).await?;
            account
        }
        Seller::Online { player } => state.ledger.wallet_of(player).await?,
    };
    let mut rng = ChaCha20Rng::from_os_rng();
    let mut boards = slip.chosen.clone();
    boards.extend((0..slip.quick_picks).map(|_| Board::quick_pick(&mut rng)));
    let per_drawing = slip_cents(boards.len(), slip.power_play);
    let mut ticket = PowerballTicket {
        id,
        serial: TicketSerial::random(&mut rng),
        channel,
        seller: seller_name.to_owned(),
        sold_by: sold_by.to_owned(),
        debit_account,
        boards,
        quick_picks: i16::try_from(slip.quick_picks).map_err(AppError::internal)?,
        power_play: slip.power_play,
        draws: i16::try_from(slip.draws).map_err(AppError::internal)?,
        cost_cents: per_drawing.saturating_mul(i64::from(slip.draws)),
        first_draw: None,
        state: PowerballTicketState::Open,
        refusal: None,
        created_at: now.trunc_subsecs(6),
    };
    // Recorded with the other sales that arrive together (one statement, one commit).
    while state.sale_writes.submit(SaleWrite::Record(ticket.clone())).await? != SaleWritten::Recorded(true) {
        match tickets::load(&state.pool, id).await? {
            // The key sold before (a replay), or a concurrent replay recorded it first.
            Some(existing) => return replay(state, &existing, slip).await,
            // Its serial belongs to another ticket (one in 9 × 10^17 a sale): draw another.
            None => ticket.serial = TicketSerial::random(&mut rng),
        }
    }
    match finish(state, ticket).await? {
        (_, Some(refused)) => Err(refused),
        (view, None) => Ok((view, true)),
    }
}

/// A key sold before: the same slip finishes and answers its ticket, another is refused.
async fn replay(
    state: &DrawsState,
    existing: &PowerballTicket,
    slip: &Slip,
) -> Result<(PowerballTicketView, bool), AppError> {
    if !sold_from(existing, slip) {
        return Err(AppError::conflict(codes::IDEMPOTENCY_CONFLICT, "this key sold a different slip"));
    }
    // A replay answers the ticket as it stands, a refused one with its stored code.
    Ok((finish(state, existing.clone()).await?.0, false))
}

/// Moves a sale forward until it is sold (its plays in their drawings) or refused; safe to run
/// again.
pub async fn drive(state: &DrawsState, id: Uuid) -> Result<PowerballTicketView, AppError> {
    drive_answering_refusal(state, id).await.map(|(view, _)| view)
}

/// [`drive`], answering too the ledger's refusal as it came when this call refused the ticket
/// (with its context: a limit's amount left and when it resets), for the buyer's first answer
/// (a replay answers the stored code). A sale this call finishes is answered as it finished it,
/// without reading it again: its drawings were all on sale when its plays joined them, and a new
/// ticket has nothing voided and has won nothing yet.
async fn drive_answering_refusal(state: &DrawsState, id: Uuid) -> Result<(PowerballTicketView, Option<AppError>), AppError> {
    let ticket = tickets::load(&state.pool, id)
        .await?
        .ok_or_else(|| AppError::not_found(codes::TICKET_NOT_FOUND, "no such ticket"))?;
    finish(state, ticket).await
}

/// [`drive_answering_refusal`] from `ticket` as last read or written.
async fn finish(
    state: &DrawsState,
    mut ticket: PowerballTicket,
) -> Result<(PowerballTicketView, Option<AppError>), AppError> {
    let id = ticket.id;
    if ticket.state == PowerballTicketState::Open {
        let cost = NewTransfer::new(
            Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball-ticket/{id}/cost").as_bytes()),
            ticket.debit_account,
            state.powerball_accounts.escrow,
            ticket.cost_cents,
            Purpose::of(Game::Powerball, Money::Stake).ticket(id).channel(ticket.channel.as_str()),
        );
        // Group-committed with other tickets' (Keno's play-now among them): one ledger call for
        // many sales.
        match state.ledger_batches.submit(vec![cost]).await {
            Ok(()) => {
                if let Some(first) = place(state, &ticket).await? {
                    ticket.state = PowerballTicketState::Sold;
                    ticket.first_draw = Some(first);
                    return Ok((as_finished(state, &ticket), None));
                }
            }
            // The ledger's rules refused it: nothing moved, and nothing will.
            Err(e) if ledger_api::is_refusal(&e) => {
                if tickets::refuse_open(&state.pool, id, e.code()).await? {
                    ticket.state = PowerballTicketState::Refused;
                    ticket.refusal = Some(e.code().to_owned());
                    return Ok((as_finished(state, &ticket), Some(e)));
                }
            }
            Err(e) => return Err(e),
        }
        // Another call moved it on meanwhile: as it stands.
        ticket = tickets::load(&state.pool, id).await?.ok_or_else(|| AppError::internal("ticket vanished"))?;
    }
    Ok((view(state, &ticket).await?, None))
}

/// A ticket this call sold or refused, as it finished it: each of its drawings on sale when its
/// plays joined it, nothing voided, nothing won.
fn as_finished(state: &DrawsState, ticket: &PowerballTicket) -> PowerballTicketView {
    let drawings = drawing_dates(state, ticket)
        .into_iter()
        .map(|date| TicketDrawing { date, state: PowerballDrawState::Scheduled, winning_boards: Vec::new() })
        .collect();
    ticket_view(ticket, drawings, None)
}

/// Places a paid ticket's plays from the first drawing still on sale; answers the first drawing
/// when this call placed them (none when the ticket was no longer open).
async fn place(state: &DrawsState, ticket: &PowerballTicket) -> Result<Option<chrono::NaiveDate>, AppError> {
    let count = usize::try_from(ticket.draws).unwrap_or(1);
    let mut first = state.powerball.next_open(state.clock.now());
    loop {
        let drawings = state.powerball.drawings_from(&first, count);
        let dates: Vec<_> = drawings.iter().map(|d| d.date).collect();
        // Placed with the other sales that arrive together (one statement, one commit).
        let placed = state.sale_writes.submit(SaleWrite::Place { id: ticket.id, dates }).await?;
        match placed {
            SaleWritten::Recorded(_) => return Err(AppError::internal("a placement answered as a record")),
            SaleWritten::Placed(Placed::Sold(first)) => return Ok(Some(first)),
            SaleWritten::Placed(Placed::Done) => return Ok(None),
            // A drawing closed meanwhile: start after it.
            SaleWritten::Placed(Placed::Closed(date)) => {
                first = state.powerball.next_open(state.powerball.drawing_on(date).sales_close);
            }
            // The first sale for a drawing makes its row (a few times a week).
            SaleWritten::Placed(Placed::Missing) => ensure_drawings(state, &drawings).await?,
        }
    }
}

/// The rows (and partitions) of `drawings`, made when missing.
pub async fn ensure_drawings(state: &DrawsState, drawings: &[Drawing]) -> Result<(), AppError> {
    drawings::ensure_all(&state.pool, drawings, state.settings.powerball.results).await
}

/// The ticket as printed and as it stands: serial, boards, drawings and what it won.
pub async fn view(state: &DrawsState, ticket: &PowerballTicket) -> Result<PowerballTicketView, AppError> {
    views(state, std::slice::from_ref(ticket))
        .await?
        .pop()
        .ok_or_else(|| AppError::internal("a ticket's view was not made"))
}

/// [`view`] of each of `tickets`, in their order, in three statements whatever their number
/// (their drawings, their winners, their voids).
pub async fn views(state: &DrawsState, tickets: &[PowerballTicket]) -> Result<Vec<PowerballTicketView>, AppError> {
    let wanted: Vec<_> = tickets.iter().map(|t| (t.serial, drawing_dates(state, t))).collect();
    let drawings = tickets::drawings_of_each(&state.pool, &wanted).await?;
    let ids: Vec<Uuid> = tickets.iter().map(|t| t.id).collect();
    let mut voids = crate::store::voids::of_tickets(&state.pool, &ids).await?;
    Ok(tickets
        .iter()
        .zip(drawings)
        .map(|(ticket, drawings)| {
            let voided = voids.remove(&ticket.id).map(Into::into);
            ticket_view(ticket, drawings, voided)
        })
        .collect())
}

/// A ticket as printed and as it stands, from its drawings and its void.
fn ticket_view(
    ticket: &PowerballTicket,
    drawings: Vec<TicketDrawing>,
    voided: Option<VoidedTicketView>,
) -> PowerballTicketView {
    let quick_from = ticket.boards.len().saturating_sub(usize::try_from(ticket.quick_picks).unwrap_or(0));
    let boards = ticket
        .boards
        .iter()
        .enumerate()
        .map(|(i, b)| BoardView {
            board: i16::try_from(i).unwrap_or(0).saturating_add(1),
            whites: b.whites.to_vec(),
            powerball: b.powerball,
            quick_pick: i >= quick_from,
        })
        .collect();
    let drawings = drawings
        .into_iter()
        .map(|d| TicketDrawingView {
            draw_date: d.date,
            state: d.state,
            winnings: d
                .winning_boards
                .into_iter()
                .map(|(board, tier, prize_cents)| WinningBoardView { board, tier, prize_cents })
                .collect(),
        })
        .collect();
    PowerballTicketView {
        serial: ticket.serial.to_string(),
        state: ticket.state,
        channel: ticket.channel.as_str().to_owned(),
        boards,
        power_play: ticket.power_play,
        draws: ticket.draws,
        cost_cents: ticket.cost_cents,
        drawings,
        refusal: ticket.refusal.clone(),
        created_at: ticket.created_at,
        voided,
    }
}

/// The dates of the drawings ticket `ticket` plays in (none before it is sold).
fn drawing_dates(state: &DrawsState, ticket: &PowerballTicket) -> Vec<chrono::NaiveDate> {
    match ticket.first_draw {
        Some(first) => state
            .powerball
            .drawings_from(&state.powerball.drawing_on(first), usize::try_from(ticket.draws).unwrap_or(1))
            .iter()
            .map(|d| d.date)
            .collect(),
        None => Vec::new(),
    }
}

/// Finishes sales left `open` for longer than `older_than`; returns how many.
pub async fn recover(state: &DrawsState, older_than: Duration) -> Result<usize, AppError> {
    let stuck = tickets::stuck(&state.pool, older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "powerball tickets", |id| drive(state, id)).await)
}
