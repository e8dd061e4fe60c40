//! Print runs: a game's whole order generated (`domain::instant::print_run`) and stored in one
//! transaction, tickets written with COPY a pool at a time, packs created `printed`.

use std::fmt::Write as _;
use std::time::Instant;

use axum::extract::State;
use axum::http::StatusCode;
use domain::instant::GameDefinition;
use domain::instant::print_run::{pool_counts, print_pool};
use hmac::{Hmac, Mac};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Path};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use sha2::Sha256;
use uuid::Uuid;

use crate::InstantState;

/// What a print run produced.
#[derive(Debug, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct PrintRunView {
    pub id: Uuid,
    pub game: u32,
    pub tickets: u64,
    pub pools: u32,
    pub first_book: u32,
    pub last_book: u32,
    /// How long generating and storing took.
    pub seconds: f64,
}

/// HMAC-SHA256 of a VIRN under the service's key.
pub fn virn_hash(key: &[u8], virn: &str) -> Result<Vec<u8>, AppError> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).map_err(AppError::internal)?;
    mac.update(virn.as_bytes());
    Ok(mac.finalize().into_bytes().to_vec())
}

#[utoipa::path(
    post, path = "/v1/instant/games/{number}/print-runs", tag = "instant",
    params(("number" = u32, Path, description = "game number")),
    responses((status = 201, description = "the game's whole order printed and stored", body = PrintRunView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/games/{number}/print-runs`: operators.
pub async fn create_print_run(
    State(state): State<InstantState>,
    caller: Caller,
    Path(number): Path<u32>,
) -> Result<(StatusCode, Json<PrintRunView>), AppError> {
    caller.require(&[Role::Operator])?;
    let game = state.game(number)?.clone();
    let run = store_print_run(&state, &game, caller.subject()).await?;
    Ok((StatusCode::CREATED, Json(run)))
}

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
    let id = Uuid::now_v7();
    let counts = pool_counts(game);
    let per_book = game.ticket_numbers.tickets_per_book();
    let books_per_pool =
        u32::try_from(game.pool_size.checked_div(per_book).unwrap_or(0)).map_err(AppError::internal)?;
    let pools = u32::try_from(counts.len()).map_err(AppError::internal)?;
    let number = i32::try_from(game.number).map_err(AppError::internal)?;
    // A run abandoned mid-COPY (a timeout, a client gone) leaves its connection in the middle of
    // the copy protocol: it is closed, never handed to the next request.
    let mut conn = state.pool.acquire().await?;
    conn.close_on_drop();
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    // One print run of a game at a time: the books follow on from the last run's.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('instant.print_run'), $1)")
        .bind(number)
        .execute(&mut *tx)
        .await?;
    let next: i32 = sqlx::query_scalar("SELECT coalesce(max(book) + 1, 0) FROM packs WHERE game = $1")
        .bind(number)
        .fetch_one(&mut *tx)
        .await?;
    let first_book = u32::try_from(next).map_err(AppError::internal)?;
    let last_book = first_book.saturating_add(books_per_pool.saturating_mul(pools)).saturating_sub(1);
    sqlx::query(
        "INSERT INTO print_runs (id, game, tickets, pools, first_book, last_book, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id)
    .bind(number)
    .bind(i64::try_from(game.tickets_ordered).map_err(AppError::internal)?)
    .bind(i32::try_from(pools).map_err(AppError::internal)?)
    .bind(i32::try_from(first_book).map_err(AppError::internal)?)
    .bind(i32::try_from(last_book).map_err(AppError::internal)?)
    .bind(created_by)
    .execute(&mut *tx)
    .await?;
    for (p, pool_count) in counts.iter().enumerate() {
        let pool = u32::try_from(p).map_err(AppError::internal)?;
        let tickets = print_pool(game, first_book, pool, pool_count, &mut rng).map_err(AppError::internal)?;
        let mut rows = String::with_capacity(tickets.len().saturating_mul(120));
        for t in &tickets {
            let (row, cents) = match t.prize_row {
                Some(r) => (r.to_string(), game.prizes.get(r).map_or(0, |p| p.value_cents)),
                None => ("\\N".to_owned(), 0),
            };
            let hash = hex::encode(virn_hash(&state.virn_key, &t.virn)?);
            // COPY's text format: tab-separated, \N for NULL, \\x for bytea in hex.
            let _ = writeln!(
                rows,
                "{number}\t{}\t{}\t{row}\t{cents}\t\\\\x{hash}\t{}",
                t.book,
                t.ticket,
                t.face.to_text()
            );
        }
        let mut copy = tx
            .copy_in_raw(
                "COPY tickets (game, book, ticket, prize_row, prize_cents, virn_hash, face) FROM STDIN",
            )
            .await?;
        copy.send(rows.into_bytes()).await?;
        copy.finish().await?;
    }
    sqlx::query(
        "INSERT INTO packs (game, book, print_run, state) SELECT $1, b, $2, 'printed' FROM generate_series($3::int, $4::int) b",
    )
    .bind(number)
    .bind(id)
    .bind(i32::try_from(first_book).map_err(AppError::internal)?)
    .bind(i32::try_from(last_book).map_err(AppError::internal)?)
    .execute(&mut *tx)
    .await?;
    let rows: Vec<i16> = (0..game.prizes.len()).filter_map(|r| i16::try_from(r).ok()).collect();
    let printed: Vec<i64> = game.prizes.iter().map(|p| i64::try_from(p.count).unwrap_or(i64::MAX)).collect();
    sqlx::query(
        "INSERT INTO prize_counts (game, prize_row, printed)
         SELECT $1, r, n FROM UNNEST($2::smallint[], $3::bigint[]) AS u(r, n)
         ON CONFLICT (game, prize_row) DO UPDATE SET printed = prize_counts.printed + EXCLUDED.printed",
    )
    .bind(number)
    .bind(&rows)
    .bind(&printed)
    .execute(&mut *tx)
    .await?;
    if let Some(link) = &state.ledger {
        // The run's prizes become the game's liability: free tickets at the ticket's price.
        let liability: i64 = game
            .prizes
            .iter()
            .map(|p| game.cost_of_winner_cents(p).saturating_mul(i64::try_from(p.count).unwrap_or(i64::MAX)))
            .sum();
        let transfer = ledger_api::NewTransfer::new(
            Uuid::new_v5(&crate::INSTANT_NAMESPACE, format!("instant/print-run/{id}/liability").as_bytes()),
            link.house_account,
            crate::liability_account(game.number),
            liability,
            serde_json::json!({"game": game.number, "print_run": id}),
        );
        link.ledger.transfer(&transfer).await?;
    }
    tx.commit().await?;
    Ok(PrintRunView {
        id,
        game: game.number,
        tickets: game.tickets_ordered,
        pools,
        first_book,
        last_book,
        seconds: started.elapsed().as_secs_f64(),
    })
}
