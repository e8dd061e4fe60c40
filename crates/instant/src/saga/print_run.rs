//! Print runs: a game's whole order generated (`domain::instant::print_run`) and stored in one
//! transaction, tickets written with COPY a pool at a time, packs created `printed`, and the
//! run's prizes funded as the game's liability in the ledger before the transaction commits.

use std::time::Instant;

use domain::instant::GameDefinition;
use domain::instant::print_run::{pool_counts, print_pool};
use ledger_api::NewTransfer;
use platform::AppError;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use crate::InstantState;
use crate::store::print_runs::{self, RunRecord};
use crate::views::PrintRunView;

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
    mut rng: ChaCha20Rng,
) -> Result<PrintRunView, AppError> {
    let started = Instant::now();
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
    for (p, pool_count) in counts.iter().enumerate() {
        let pool = u32::try_from(p).map_err(AppError::internal)?;
        let tickets = print_pool(game, first_book, pool, pool_count, &mut rng).map_err(AppError::internal)?;
        print_runs::copy_tickets(&mut tx, game, &tickets, &state.settings.virn_key).await?;
    }
    print_runs::insert_packs_and_counts(&mut tx, game, &run).await?;
    state.ledger.transfer(&liability_funding(state, game, run.id)).await?;
    tx.commit().await?;
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

/// The run's prizes become the game's liability: free tickets at the ticket's price.
fn liability_funding(state: &InstantState, game: &GameDefinition, run: Uuid) -> NewTransfer {
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
