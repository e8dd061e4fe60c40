//! Print runs: a game's whole order generated (`domain::instant::print_run`) and stored in one
//! transaction, tickets written with one COPY a pool's rows at a time, packs created `printed`;
//! the run's prizes funded as the game's liability in the ledger once it has committed.
//!
//! A run is printed by a job ([`super::jobs`]): its progress recorded after each pool (which also
//! renews its lease and reads a cancel). A cancel, a failure or a crash leaves no partial run: the
//! run's one transaction rolls back (or dies with its connection), and a crashed job is taken up
//! again from nothing when its lease runs out.

use std::time::Instant;

use domain::instant::GameDefinition;
use domain::instant::print_run::{PrintedTicket, pool_counts, pool_generators, print_pool};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::events::{self, Event, Kind};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use crate::store::print_jobs;
use crate::config::VirnKey;
use crate::store::print_runs::{self, RunRecord, TicketRows};
use crate::views::PrintRunView;
use crate::{InstantState, printer_file};

/// Generates `game`'s print run with a fresh OS-seeded ChaCha20 and stores it in one transaction.
pub async fn store_print_run(
    state: &InstantState,
    game: &GameDefinition,
    created_by: &str,
) -> Result<PrintRunView, AppError> {
    store_print_run_with(state, game, created_by, ChaCha20Rng::from_os_rng()).await
}

/// The same with the generator given: tests replay a seeded run to know the VIRNs a printer
/// would have printed.
pub async fn store_print_run_with(
    state: &InstantState,
    game: &GameDefinition,
    created_by: &str,
    rng: ChaCha20Rng,
) -> Result<PrintRunView, AppError> {
    print(state, game, created_by, rng, None).await
}

/// The code a cancelled run ends with.
pub const CANCELLED: platform::codes::CodeName = platform::codes::PRINT_RUN_CANCELLED;

/// Where a run reports its progress: its job and the job's line (None for a run printed directly).
pub(super) type Progress = Option<(Uuid, print_jobs::ProgressLine)>;

/// The run, reporting each pool's progress to job `job` (and stopping when it is cancelled).
///
/// Three things run at once ([`make_pools`]): threads generate the pools and make their COPY
/// rows, one writes the printer's file, and this task streams the rows into one COPY.
pub(super) async fn print(
    state: &InstantState,
    game: &GameDefinition,
    created_by: &str,
    rng: ChaCha20Rng,
    job: Option<Uuid>,
) -> Result<PrintRunView, AppError> {
    let started = Instant::now();
    let mut progress = match job {
        Some(job) => Some((job, print_jobs::ProgressLine::open(&state.pool).await?)),
        None => None,
    };
    let pools = u32::try_from(pool_counts(game).len()).map_err(AppError::internal)?;
    let number = i32::try_from(game.number).map_err(AppError::internal)?;
    // A run abandoned mid-COPY (a timeout, a client gone) leaves its connection in the middle of
    // the copy protocol: it is closed, never handed to the next request.
    let mut conn = state.pool.acquire().await?;
    conn.close_on_drop();
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let first_book =
        u32::try_from(print_runs::lock_next_book(&mut tx, number).await?).map_err(AppError::internal)?;
    let (run, last_book) = run_of(game, first_book, pools, created_by)?;
    print_runs::insert_run(&mut tx, &run).await?;
    let file = open_printer_file(state, game, run.id, (first_book, last_book)).await?;
    let (made, mut pools_made) = tokio::sync::mpsc::channel(2);
    let (key, for_making) = (state.settings.virn_key.clone(), game.clone());
    let making =
        tokio::task::spawn_blocking(move || make_pools(&for_making, first_book, rng, &key, file, &made));
    let copied = copy_chunks(&mut tx, &mut pools_made, &mut progress, "the print run was cancelled").await;
    // A COPY that failed or was cancelled stops the generation at its next pool.
    drop(pools_made);
    let made = making.await.map_err(AppError::internal)?;
    let writer = match (copied, made) {
        (Ok(_), Ok(writer)) => writer,
        (Ok(_), Err(e)) => return Err(e),
        (Err(e), made) => {
            if let Ok(writer) = made {
                writer.abandon();
            }
            // The COPY's error: a generation stopped by it only says it stopped.
            return Err(e);
        }
    };
    print_runs::insert_packs_and_counts(&mut tx, game, &run).await?;
    finish_and_commit(state, game, run.id, writer, tx).await?;
    fund_once_stored(state, game, run.id).await;
    Ok(PrintRunView {
        id: run.id,
        game: game.number,
        tickets: game.tickets_ordered,
        pools,
        first_book,
        last_book,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The record of a run of `pools` pools from `first_book`, and its last book.
fn run_of<'a>(
    game: &GameDefinition,
    first_book: u32,
    pools: u32,
    created_by: &'a str,
) -> Result<(RunRecord<'a>, u32), AppError> {
    let books_per_pool =
        u32::try_from(game.pool_size.checked_div(game.ticket_numbers.tickets_per_book()).unwrap_or(0))
            .map_err(AppError::internal)?;
    let last_book = first_book.saturating_add(books_per_pool.saturating_mul(pools)).saturating_sub(1);
    let run = RunRecord {
        id: Uuid::now_v7(),
        game: i32::try_from(game.number).map_err(AppError::internal)?,
        tickets: i64::try_from(game.tickets_ordered).map_err(AppError::internal)?,
        pools: i32::try_from(pools).map_err(AppError::internal)?,
        first_book: i32::try_from(first_book).map_err(AppError::internal)?,
        last_book: i32::try_from(last_book).map_err(AppError::internal)?,
        created_by,
    };
    Ok((run, last_book))
}

/// The run's pools made on as many threads as the machine has cores (at most [`MAKERS`]), each
/// pool from its own generator ([`pool_generators`]) and made into COPY rows; this thread takes
/// them in order, sends the rows on `made` and writes the tickets to `file`. Returns the file to
/// finish, or abandons it on an error (a closed `made`: the COPY stopped).
fn make_pools(
    game: &GameDefinition,
    first_book: u32,
    mut rng: ChaCha20Rng,
    key: &VirnKey,
    mut file: printer_file::Writer,
    made: &tokio::sync::mpsc::Sender<TicketRows>,
) -> Result<printer_file::Writer, AppError> {
    let counts = pool_counts(game);
    let makers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, MAKERS);
    // Maker m makes pools m, m + makers, ...; each hands its pools over one at a time.
    let mut pools_of: Vec<Vec<(usize, ChaCha20Rng)>> = vec![Vec::new(); makers];
    for (p, generator) in pool_generators(&mut rng, counts.len()).into_iter().enumerate() {
        if let Some(pools) = pools_of.get_mut(p % makers) {
            pools.push((p, generator));
        }
    }
    let written = std::thread::scope(|scope| {
        let mut from_makers = Vec::with_capacity(makers);
        for pools in pools_of {
            let (to_writer, from_maker) = std::sync::mpsc::sync_channel(0);
            let counts = &counts;
            scope.spawn(move || {
                for (p, mut generator) in pools {
                    let pool_counts = counts.get(p).map_or(&[][..], Vec::as_slice);
                    let made = make_pool(game, first_book, p, pool_counts, &mut generator, key);
                    if to_writer.send(made).is_err() {
                        return;
                    }
                }
            });
            from_makers.push(from_maker);
        }
        for p in 0..counts.len() {
            let maker = from_makers.get(p % makers).ok_or_else(|| AppError::internal("no pool maker"))?;
            let (tickets, rows) = maker.recv().map_err(AppError::internal)??;
            made.blocking_send(rows).map_err(|_| AppError::internal("the print run's COPY stopped"))?;
            file.write_pool(&tickets).map_err(AppError::internal)?;
        }
        // Dropping the receivers stops makers still at work after an error.
        Ok(())
    });
    match written {
        Ok(()) => Ok(file),
        Err(e) => {
            file.abandon();
            Err(e)
        }
    }
}

/// The most threads a run generates its pools on.
const MAKERS: usize = 4;

/// Pool `p` of the run generated and made into COPY rows.
fn make_pool(
    game: &GameDefinition,
    first_book: u32,
    p: usize,
    counts: &[u64],
    rng: &mut ChaCha20Rng,
    key: &VirnKey,
) -> Result<(Vec<PrintedTicket>, TicketRows), AppError> {
    let pool = u32::try_from(p).map_err(AppError::internal)?;
    let tickets = print_pool(game, first_book, pool, counts, rng).map_err(AppError::internal)?;
    let rows = print_runs::ticket_rows(game, &tickets, key);
    Ok((tickets, rows))
}

/// Stores the chunks of rows `chunks` brings with one COPY, each as it comes (made while the
/// one before is stored), reporting progress before and after each (an operator watching sees
/// both steps) and stopping with `cancelled` when the job is cancelled; the tickets stored.
pub(super) async fn copy_chunks(
    conn: &mut sqlx::PgConnection,
    chunks: &mut tokio::sync::mpsc::Receiver<TicketRows>,
    progress: &mut Progress,
    cancelled: &str,
) -> Result<i64, AppError> {
    let mut copy = print_runs::TicketCopy::begin(conn).await?;
    let mut stored = 0i64;
    while let Some(chunk) = chunks.recv().await {
        let generated = stored.saturating_add(chunk.tickets);
        if let Some((job, line)) = progress.as_mut() {
            line.report(*job, generated, stored).await?;
        }
        copy.send(chunk.rows).await?;
        stored = generated;
        if let Some((job, line)) = progress.as_mut()
            && line.report(*job, generated, stored).await?
        {
            // The COPY ended without a row; returning drops the transaction: nothing stays.
            copy.abort(cancelled).await?;
            return Err(AppError::conflict(CANCELLED, cancelled));
        }
    }
    copy.finish().await?;
    Ok(stored)
}

/// The run's printer's file, opened to be written as the pools are generated, encrypted as it
/// goes.
async fn open_printer_file(
    state: &InstantState,
    game: &GameDefinition,
    run: Uuid,
    (first_book, last_book): (u32, u32),
) -> Result<printer_file::Writer, AppError> {
    let settings = &state.settings;
    let (dir, recipient) = (settings.printer_file_dir.clone(), settings.printer.recipient.clone());
    let game = game.clone();
    tokio::task::spawn_blocking(move || {
        printer_file::Writer::create(&dir, run, &recipient, &game, first_book, last_book)
    })
    .await
    .map_err(AppError::internal)?
    .map_err(AppError::internal)
}

/// A print run made or imported, as the significant-events log records it.
#[derive(Debug, serde::Serialize)]
pub(crate) struct RunMade {
    pub print_run: Uuid,
    pub game: u32,
    /// `printed` (made here, with the printer's file) or `vendor` (a vendor's file imported).
    pub source: &'static str,
    /// The SHA-256 of the printer's file, or of the vendor's.
    pub file_sha256: String,
}

/// The printer's file finished and signed, recorded with the run, and the run committed; a run
/// that does not commit removes its file.
async fn finish_and_commit(
    state: &InstantState,
    game: &GameDefinition,
    run: Uuid,
    writer: printer_file::Writer,
    mut tx: sqlx::Transaction<'_, sqlx::Postgres>,
) -> Result<(), AppError> {
    let (signing, tickets) = (state.settings.printer.signing.clone(), game.tickets_ordered);
    let (path, sha256, signature) = tokio::task::spawn_blocking(move || writer.finish(tickets, &signing))
        .await
        .map_err(AppError::internal)?
        .map_err(AppError::internal)?;
    let recorded = async {
        print_runs::record_printer_file(&mut tx, run, &path.to_string_lossy(), &sha256, &signature).await?;
        let made = RunMade {
            print_run: run,
            game: game.number,
            source: "printed",
            file_sha256: hex::encode(sha256),
        };
        events::record(&mut tx, crate::SCHEMA, &Event::new(Kind::PrintRun, &made)?).await
    }
    .await;
    let committed = match recorded {
        Ok(()) => tx.commit().await.map_err(AppError::from),
        Err(e) => Err(e),
    };
    if committed.is_err() {
        // The run did not commit: neither does its file.
        let _ = std::fs::remove_file(&path);
    }
    committed
}

/// Funds run `run`'s prize liability now that the run is stored (never inside its transaction:
/// no transaction is open across a ledger call); a ledger that does not answer leaves it to
/// [`fund_unfunded`], the transfer's id being the run's.
pub(super) async fn fund_once_stored(state: &InstantState, game: &GameDefinition, run: Uuid) {
    if let Err(e) = fund(state, game, run).await {
        tracing::warn!(%run, error = %e, "a print run's liability waits for the next funding pass");
    }
}

async fn fund(state: &InstantState, game: &GameDefinition, run: Uuid) -> Result<(), AppError> {
    state.ledger.transfer(&liability_funding(state, game, run)).await?;
    print_runs::mark_funded(&state.pool, run).await
}

/// Funds every stored run whose liability has not been (the ledger was away, the process died
/// after the commit); returns how many.
pub async fn fund_unfunded(state: &InstantState) -> Result<usize, AppError> {
    let mut funded = 0usize;
    for (run, number) in print_runs::unfunded(&state.pool).await? {
        let game = state.game(u32::try_from(number).map_err(AppError::internal)?)?.clone();
        match fund(state, &game, run).await {
            Ok(()) => funded = funded.saturating_add(1),
            Err(e) => tracing::warn!(%run, error = %e, "funding a print run's liability failed; retried"),
        }
    }
    Ok(funded)
}

/// The transfer that funds run `run`'s prize liability, from the house (keyed by the run).
pub fn liability_funding(state: &InstantState, game: &GameDefinition, run: Uuid) -> NewTransfer {
    let liability: i64 = game
        .prizes
        .iter()
        .map(|p| game.cost_of_winner_cents(p).saturating_mul(i64::try_from(p.count).unwrap_or(i64::MAX)))
        .sum();
    NewTransfer::new(
        Uuid::new_v5(&crate::INSTANT_NAMESPACE, format!("instant/print-run/{run}/liability").as_bytes()),
        state.accounts.house,
        crate::liability_account(game.number),
        liability,
        Purpose::of(Game::Instant(game.number), Money::PrizeFund).print_run(run),
    )
}
