//! A print run's rows, in the transaction the run is stored in: the run, its tickets (COPY, a
//! pool at a time, each VIRN only as its keyed hash), its packs and its prize counts.

use std::fmt::Write as _;

use domain::instant::GameDefinition;
use domain::instant::print_run::PrintedTicket;
use platform::AppError;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::config::VirnKey;

/// A run as recorded.
#[derive(Debug)]
pub struct RunRecord<'a> {
    pub id: Uuid,
    pub game: i32,
    pub tickets: i64,
    pub pools: i32,
    pub first_book: i32,
    pub last_book: i32,
    pub created_by: &'a str,
}

/// Takes the game's print-run lock for the transaction (one run of a game at a time: the books
/// follow on from the last run's) and returns the next book number.
pub async fn lock_next_book(conn: &mut PgConnection, game: i32) -> Result<i32, AppError> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('instant.print_run'), $1)")
        .bind(game)
        .execute(&mut *conn)
        .await?;
    Ok(sqlx::query_scalar("SELECT coalesce(max(book) + 1, 0) FROM packs WHERE game = $1")
        .bind(game)
        .fetch_one(&mut *conn)
        .await?)
}

pub async fn insert_run(conn: &mut PgConnection, run: &RunRecord<'_>) -> Result<(), AppError> {
    sqlx::query(
        "INSERT INTO print_runs (id, game, tickets, pools, first_book, last_book, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(run.id)
    .bind(run.game)
    .bind(run.tickets)
    .bind(run.pools)
    .bind(run.first_book)
    .bind(run.last_book)
    .bind(run.created_by)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes one pool's tickets with COPY.
pub async fn copy_tickets(
    conn: &mut PgConnection,
    game: &GameDefinition,
    tickets: &[PrintedTicket],
    key: &VirnKey,
) -> Result<(), AppError> {
    let number = game.number;
    let mut rows = String::with_capacity(tickets.len().saturating_mul(120));
    for t in tickets {
        let (row, cents) = match t.prize_row {
            Some(r) => (r.to_string(), game.prizes.get(r).map_or(0, |p| p.value_cents)),
            None => ("\\N".to_owned(), 0),
        };
        let hash = hex::encode(key.hash(&t.virn));
        // COPY's text format: tab-separated, \N for NULL, \\x for bytea in hex.
        let _ = writeln!(
            rows,
            "{number}\t{}\t{}\t{row}\t{cents}\t\\\\x{hash}\t{}",
            t.book,
            t.ticket,
            t.face.to_text()
        );
    }
    let mut copy = conn
        .copy_in_raw("COPY tickets (game, book, ticket, prize_row, prize_cents, virn_hash, face) FROM STDIN")
        .await?;
    copy.send(rows.into_bytes()).await?;
    copy.finish().await?;
    Ok(())
}

/// Creates the run's packs, `printed`, and adds its winners to the game's prize counts.
pub async fn insert_packs_and_counts(
    conn: &mut PgConnection,
    game: &GameDefinition,
    run: &RunRecord<'_>,
) -> Result<(), AppError> {
    sqlx::query(
        "INSERT INTO packs (game, book, print_run, state) SELECT $1, b, $2, 'printed' FROM generate_series($3::int, $4::int) b",
    )
    .bind(run.game)
    .bind(run.id)
    .bind(run.first_book)
    .bind(run.last_book)
    .execute(&mut *conn)
    .await?;
    let rows: Vec<i16> = (0..game.prizes.len()).filter_map(|r| i16::try_from(r).ok()).collect();
    let printed: Vec<i64> = game.prizes.iter().map(|p| i64::try_from(p.count).unwrap_or(i64::MAX)).collect();
    sqlx::query(
        "INSERT INTO prize_counts (game, prize_row, printed)
         SELECT $1, r, n FROM UNNEST($2::smallint[], $3::bigint[]) AS u(r, n)
         ON CONFLICT (game, prize_row) DO UPDATE SET printed = prize_counts.printed + EXCLUDED.printed",
    )
    .bind(run.game)
    .bind(&rows)
    .bind(&printed)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
