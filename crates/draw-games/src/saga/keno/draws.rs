//! Castle Keno draws on a schedule (architecture §6): the steps the scheduler's leader
//! ([`crate::saga::scheduler`]) runs to close, draw and settle every draw whose sales have closed, in
//! order and exactly once.
//!
//! Each step is a guarded state change, so running one twice (two processes, a restart halfway)
//! changes nothing the second time:
//!
//! - **close** (`scheduled`/`open` → `closed`) waits for every purchase still holding the draw
//!   (purchases lock it `FOR SHARE`), then freezes the wager set: count, total and a SHA-256 of the
//!   entries; a purchase that comes later finds the draw closed and takes the next one;
//! - **draw** (`closed` → `drawn`), only after the close committed: 20 numbers from a fresh
//!   OS-seeded ChaCha20, stored with their audit record in one transaction;
//! - **settle** (`drawn` → `settled`): the draw's stakes move from escrow to the house in one
//!   transfer, then the prizes, a few thousand entries at a time, each with a key derived from the
//!   draw and the ticket, so a repeated step is a replay in the ledger.
//!
//! After downtime the leader runs every missed draw, oldest first.

use chrono::{DateTime, Utc};
use futures_util::{TryStreamExt, stream};
use domain::keno::{Draw, Ticket, settle};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use platform::events::{self, Event, Kind};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use uuid::Uuid;

use crate::rules::option_named;
use crate::store::DrawState;
use crate::store::keno::draws::{self as draws, Entry, GAME};
use crate::{DRAWS_NAMESPACE, DrawsState};

/// Entries settled per round trip (and prizes per ledger call, at most).
pub const SETTLE_CHUNK: i64 = 5_000;

/// Chunks of a draw paid at once: while one chunk's prizes are applied by the ledger, the next
/// one's are and the one before is marked (issue 52: a 100,000-ticket draw's settlement used one
/// connection at a time).
pub const SETTLE_IN_FLIGHT: usize = 3;

/// One pass of the leader: opens the next draw, and closes, draws and settles every draw whose
/// sales have closed, oldest first. Returns how many draws it settled.
pub async fn run_due_draws(state: &DrawsState) -> Result<usize, AppError> {
    let now = state.clock.now();
    let next = state.schedule.next_after(now);
    let due = draws::open_and_find_due(&state.pool, &state.schedule, next, now).await?;
    for &number in &due {
        close_draw(state, number).await?;
        draw_numbers(state, number).await?;
        settle_draw(state, number).await?;
    }
    Ok(due.len())
}

/// `scheduled`/`open` → `closed`, with the wager set frozen; a no-op on any later state.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_draw.close", skip(state))]
pub async fn close_draw(state: &DrawsState, number: i64) -> Result<(), AppError> {
    draws::close(&state.pool, number, state.clock.now()).await
}

/// A draw as chained in the audit log.
#[derive(Debug, Serialize)]
struct DrawRecord {
    game: &'static str,
    draw: i64,
    sales_close_at: DateTime<Utc>,
    entries: i32,
    wagers_cents: i64,
    wager_set_hash: String,
    numbers: Vec<i16>,
}

/// `closed` → `drawn`: the only place scheduled numbers are drawn, once per draw.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_draw.draw", skip(state))]
pub async fn draw_numbers(state: &DrawsState, number: i64) -> Result<(), AppError> {
    // A fresh generator seeded by the operating system; the seed is never kept.
    let draw = Draw::random(&mut ChaCha20Rng::from_os_rng());
    let numbers: Vec<i16> = draw.numbers.iter().map(|&n| i16::from(n)).collect();
    let mut tx = state.pool.begin().await?;
    let drawn = draws::mark_drawn(&mut tx, number, &numbers, state.clock.now()).await?;
    if let Some(closed) = &drawn {
        let record = DrawRecord {
            game: GAME,
            draw: number,
            sales_close_at: closed.sales_close_at,
            entries: closed.entries,
            wagers_cents: closed.wagers_cents,
            wager_set_hash: hex::encode(&closed.wager_set_hash),
            numbers,
        };
        platform::audit::append(
            &mut tx,
            "keno.draw",
            Uuid::new_v5(&DRAWS_NAMESPACE, &number.to_be_bytes()),
            &record,
        )
        .await?;
        let drawn = Event::new(Kind::DrawResults, &record)?.drawing(GAME, number);
        events::record(&mut tx, crate::SCHEMA, &drawn).await?;
    }
    tx.commit().await?;
    if let Some(closed) = drawn {
        report_lateness(GAME, number, closed.sales_close_at, state.clock.now());
    }
    Ok(())
}

/// How long after its close a draw may be drawn before it is reported as late: a few of the
/// scheduler's ticks.
const LATE_AFTER: chrono::Duration = chrono::Duration::seconds(5);

/// Reports a draw drawn past [`LATE_AFTER`] (the scheduler was down, or had no leader, or the
/// database was failing over when it was due): a warning and the `draws_late_total` and
/// `draw_last_lateness_seconds` metrics, so the operator sees it and can say so to players. The
/// drawn draw's close is `draw_last_drawn_close_timestamp_seconds`: an alert compares it with
/// the time, so a draw never drawn pages too.
pub(crate) fn report_lateness(game: &'static str, number: i64, due: DateTime<Utc>, drawn: DateTime<Utc>) {
    let late = drawn - due;
    #[allow(clippy::cast_precision_loss)]
    let seconds = late.num_milliseconds() as f64 / 1000.0;
    metrics::gauge!(platform::metrics::DRAW_LATENESS, "game" => game).set(seconds.max(0.0));
    #[allow(clippy::cast_precision_loss)] // seconds since 1970, far below 2^53
    metrics::gauge!(platform::metrics::DRAW_LAST_CLOSE, "game" => game).set(due.timestamp() as f64);
    if late > LATE_AFTER {
        metrics::counter!(platform::metrics::DRAWS_LATE, "game" => game).increment(1);
        tracing::warn!(game, draw = number, late_seconds = seconds, "a draw was drawn late");
    }
}

fn draw_step_id(number: i64, step: &str) -> Uuid {
    Uuid::new_v5(&DRAWS_NAMESPACE, format!("keno-draw/{number}/{step}").as_bytes())
}

/// `drawn` → `settled`: the stakes to the house, every prize paid once. Safe to run again.
#[tracing::instrument(target = "lotto::trace", name = "saga.keno_draw.settle", skip(state))]
pub async fn settle_draw(state: &DrawsState, number: i64) -> Result<(), AppError> {
    let outcome = draws::outcome(&state.pool, number)
        .await?
        .ok_or_else(|| AppError::not_found(codes::DRAW_NOT_FOUND, format!("no draw {number}")))?;
    if outcome.state != DrawState::Drawn {
        return Ok(());
    }
    let numbers: [u8; 20] = outcome
        .numbers
        .iter()
        .filter_map(|&n| u8::try_from(n).ok())
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| AppError::internal("a drawn draw without 20 numbers"))?;
    let drawn = Draw { numbers };
    if outcome.wagers_cents > 0 {
        let stakes = NewTransfer::new(
            draw_step_id(number, "stakes"),
            state.escrow_account,
            state.house_account,
            outcome.wagers_cents,
            Purpose::of(Game::CastleKeno, Money::Stake).draw(number),
        );
        state.ledger.transfer(&stakes).await?;
    }
    // Chunks are read one after the other (by ticket id), and up to SETTLE_IN_FLIGHT of them are
    // paid and marked at once: a chunk is marked paid only after its prizes are, so a restart
    // finds every entry not yet marked and pays it again as a replay.
    // (Each step owns what it uses: futures borrowing the state are not `Send` for the scheduler.)
    let pool = state.pool.clone();
    let chunks = stream::try_unfold(Uuid::nil(), move |after| {
        let pool = pool.clone();
        async move {
            let entries = draws::unpaid_entries(&pool, number, after, SETTLE_CHUNK).await?;
            Ok::<_, AppError>(entries.last().map(|last| last.ticket_id).map(|next| (entries, next)))
        }
    });
    chunks
        .map_ok(|entries| pay_chunk(state.clone(), number, drawn, entries))
        .try_buffer_unordered(SETTLE_IN_FLIGHT)
        .try_collect::<()>()
        .await?;
    draws::mark_settled(&state.pool, number, state.clock.now()).await
}

/// Pays one chunk of a draw's entries their prizes (one ledger batch), then marks them paid.
async fn pay_chunk(state: DrawsState, number: i64, drawn: Draw, entries: Vec<Entry>) -> Result<(), AppError> {
    let mut paid = Vec::with_capacity(entries.len());
    let mut prizes = Vec::new();
    for entry in &entries {
        let (hits, payout) = entry_outcome(entry, &drawn)?;
        if payout > 0 {
            prizes.push(NewTransfer::new(
                draw_step_id(number, &format!("prize/{}", entry.ticket_id)),
                state.house_account,
                entry.wallet,
                payout,
                Purpose::of(Game::CastleKeno, Money::Prize).draw(number).ticket(entry.ticket_id),
            ));
        }
        paid.push((entry.ticket_id, hits, payout));
    }
    state.ledger.batch(&prizes).await?;
    draws::mark_paid(&state.pool, number, &paid).await
}

/// What `entry` won in `drawn`: (hits, cents).
fn entry_outcome(entry: &Entry, drawn: &Draw) -> Result<(i32, i64), AppError> {
    let spots: Vec<u8> = entry.spots.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
    let tickets = u32::try_from(entry.tickets).map_err(AppError::internal)?;
    let rules = Ticket::new(option_named(&entry.option)?, &spots, tickets, u32::MAX)
        .map_err(|e| AppError::internal(e.to_string()))?;
    let outcome = settle(&rules, drawn);
    Ok((i32::try_from(outcome.hits).unwrap_or(0), outcome.payout_cents))
}
