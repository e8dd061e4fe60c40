//! Print runs: a game's whole order generated (`domain::instant::print_run`) and stored in one
//! transaction, tickets written with COPY a pool at a time, packs created `printed`, and the
//! run's prizes funded as the game's liability in the ledger before the transaction commits.
//!
//! An operator's request makes a **job** (a full run takes longer than a request may): the run is
//! printed in the background, the job's progress recorded after each pool (which also renews its
//! lease and reads a cancel). A cancel, a failure or a crash leaves no partial run: the run's one
//! transaction rolls back (or dies with its connection), and a crashed job is taken up again from
//! nothing when its lease runs out ([`spawn_print_jobs`]).

use std::time::Instant;

use domain::instant::GameDefinition;
use domain::instant::print_run::{pool_counts, print_pool};
use ledger_api::NewTransfer;
use platform::AppError;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use crate::store::print_jobs;
use crate::store::print_runs::{self, RunRecord};
use crate::views::{PrintJobView, PrintRunView};
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
pub const CANCELLED: &str = "print_run_cancelled";

/// The run, reporting each pool's progress to job `job` (and stopping when it is cancelled).
async fn print(
    state: &InstantState,
    game: &GameDefinition,
    created_by: &str,
    mut rng: ChaCha20Rng,
    job: Option<Uuid>,
) -> Result<PrintRunView, AppError> {
    let started = Instant::now();
    let mut progress = match job {
        Some(job) => Some((job, print_jobs::ProgressLine::open(&state.pool).await?)),
        None => None,
    };
    let counts = pool_counts(game);
    let books_per_pool =
        u32::try_from(game.pool_size.checked_div(game.ticket_numbers.tickets_per_book()).unwrap_or(0))
            .map_err(AppError::internal)?;
    let pools = u32::try_from(counts.len()).map_err(AppError::internal)?;
    let number = i32::try_from(game.number).map_err(AppError::internal)?;
    // A run abandoned mid-COPY (a timeout, a client gone) leaves its connection in the middle of
    // the copy protocol: it is closed, never handed to the next request.
    let mut conn = state.pool.acquire().await?;
    conn.close_on_drop();
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let first_book =
        u32::try_from(print_runs::lock_next_book(&mut tx, number).await?).map_err(AppError::internal)?;
    let last_book = first_book.saturating_add(books_per_pool.saturating_mul(pools)).saturating_sub(1);
    let run = RunRecord {
        id: Uuid::now_v7(),
        game: number,
        tickets: i64::try_from(game.tickets_ordered).map_err(AppError::internal)?,
        pools: i32::try_from(pools).map_err(AppError::internal)?,
        first_book: i32::try_from(first_book).map_err(AppError::internal)?,
        last_book: i32::try_from(last_book).map_err(AppError::internal)?,
        created_by,
    };
    print_runs::insert_run(&mut tx, &run).await?;
    // The printer's file is written as the pools are generated, encrypted as it goes.
    let settings = &state.settings;
    let (dir, recipient) = (settings.printer_file_dir.clone(), settings.printer.recipient.clone());
    let run_id = run.id;
    let game_for_file = game.clone();
    let writer = tokio::task::spawn_blocking(move || {
        printer_file::Writer::create(&dir, run_id, &recipient, &game_for_file, first_book, last_book)
    })
    .await
    .map_err(AppError::internal)?
    .map_err(AppError::internal)?;
    let mut file = Some(writer);
    let stored = async {
        let mut generated = 0i64;
        for (p, pool_count) in counts.iter().enumerate() {
            let pool = u32::try_from(p).map_err(AppError::internal)?;
            let tickets =
                print_pool(game, first_book, pool, pool_count, &mut rng).map_err(AppError::internal)?;
            generated = generated.saturating_add(pool_tickets(&tickets));
            if let Some((job, line)) = progress.as_mut() {
                // Generated, not yet written: an operator watching sees both steps of each pool.
                line.report(*job, generated, generated.saturating_sub(pool_tickets(&tickets))).await?;
            }
            print_runs::copy_tickets(&mut tx, game, &tickets, &settings.virn_key).await?;
            let mut writer = file.take().ok_or_else(|| AppError::internal("the printer's file is gone"))?;
            let (writer, written) = tokio::task::spawn_blocking(move || {
                let written = writer.write_pool(&tickets);
                (writer, written)
            })
            .await
            .map_err(AppError::internal)?;
            file = Some(writer);
            written.map_err(AppError::internal)?;
            if let Some((job, line)) = progress.as_mut()
                && line.report(*job, generated, generated).await?
            {
                // Returning drops the transaction: nothing of the run stays.
                return Err(AppError::conflict(CANCELLED, "the print run was cancelled"));
            }
        }
        print_runs::insert_packs_and_counts(&mut tx, game, &run).await?;
        state.ledger.transfer(&liability_funding(state, game, run.id)).await?;
        let writer = file.take().ok_or_else(|| AppError::internal("the printer's file is gone"))?;
        let (signing, tickets) = (settings.printer.signing.clone(), game.tickets_ordered);
        let (path, sha256, signature) = tokio::task::spawn_blocking(move || writer.finish(tickets, &signing))
            .await
            .map_err(AppError::internal)?
            .map_err(AppError::internal)?;
        let recorded =
            print_runs::record_printer_file(&mut tx, run.id, &path.to_string_lossy(), &sha256, &signature)
                .await;
        match match recorded {
            Ok(()) => tx.commit().await.map_err(AppError::from),
            Err(e) => Err(e),
        } {
            Ok(()) => Ok(()),
            Err(e) => {
                // The run did not commit: neither does its file.
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }
    .await;
    if let Err(e) = stored {
        if let Some(writer) = file.take() {
            writer.abandon();
        }
        return Err(e);
    }
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

fn pool_tickets<T>(tickets: &[T]) -> i64 {
    i64::try_from(tickets.len()).unwrap_or(i64::MAX)
}

/// The run's prizes become the game's liability: free tickets at the ticket's price.
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
        serde_json::json!({"game": game.number, "print_run": run}),
    )
}

/// Queues a print run of `game` for `created_by` and starts it in the background at once; the
/// job is answered before the run is printed.
pub async fn start_print_job(
    state: &InstantState,
    game: &GameDefinition,
    created_by: &str,
) -> Result<PrintJobView, AppError> {
    let number = i32::try_from(game.number).map_err(AppError::internal)?;
    let tickets = i64::try_from(game.tickets_ordered).map_err(AppError::internal)?;
    let job = print_jobs::insert(&state.pool, Uuid::now_v7(), number, tickets, created_by, None).await?;
    let (state, id) = (state.clone(), job.id);
    tokio::spawn(async move {
        if let Err(e) = run_waiting_job(&state, Some(id)).await {
            tracing::warn!(job = %id, error = %e, "a print job could not start; the job worker retries it");
        }
    });
    Ok(job)
}

/// Takes job `id` (or the oldest waiting one) and prints it; false when there was none to take.
pub async fn run_waiting_job(state: &InstantState, id: Option<Uuid>) -> Result<bool, AppError> {
    let Some(job) = print_jobs::take(&state.pool, id).await? else { return Ok(false) };
    run_job(state, &job).await?;
    Ok(true)
}

/// Prints job `job` (taken, `running`), or imports its vendor's file, and records how it ended: succeeded with its run,
/// cancelled, or failed with its error (nothing of the run kept either way).
pub async fn run_job(state: &InstantState, job: &PrintJobView) -> Result<(), AppError> {
    let outcome = match state.game(job.game) {
        Ok(game) if job.source == "vendor_file" => {
            let game = game.clone();
            super::vendor_run::import(state, &game, job).await
        }
        Ok(game) => {
            let game = game.clone();
            print(state, &game, &job.created_by, ChaCha20Rng::from_os_rng(), Some(job.id)).await
        }
        Err(e) => Err(e),
    };
    match outcome {
        Ok(run) => print_jobs::finish(&state.pool, job.id, "succeeded", Some(run.id), None).await,
        Err(e) if e.code() == CANCELLED => {
            print_jobs::finish(&state.pool, job.id, "cancelled", None, None).await
        }
        Err(e) => {
            tracing::warn!(job = %job.id, error = %e, "a print job failed; nothing of its run was kept");
            print_jobs::finish(&state.pool, job.id, "failed", None, Some(e.detail())).await
        }
    }
}

/// Runs waiting print jobs (queued, or taken by a worker that died) every `interval`, one at a
/// time in this process.
pub fn spawn_print_jobs(state: InstantState, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            loop {
                match run_waiting_job(&state, None).await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "the print job worker will retry");
                        break;
                    }
                }
            }
        }
    })
}
