//! A print run's rows, in the transaction the run is stored in: the run, its tickets (COPY, a
//! pool at a time, each VIRN only as its keyed hash), its packs and its prize counts. Checked
//! against the schema at build time, but COPY, which sqlx's macros do not take.

use std::fmt::Write as _;

use domain::instant::GameDefinition;
use domain::instant::print_run::PrintedTicket;
use platform::AppError;
use sqlx::PgConnection;
use sqlx::postgres::PgCopyIn;
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
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtext('instant.print_run'), $1)", game)
        .fetch_one(&mut *conn)
        .await?;
    Ok(sqlx::query_scalar!(
        r#"SELECT coalesce(max(book) + 1, 0) AS "next!" FROM packs WHERE game = $1"#,
        game
    )
    .fetch_one(&mut *conn)
    .await?)
}

/// Records the run.
pub async fn insert_run(conn: &mut PgConnection, run: &RunRecord<'_>) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO print_runs (id, game, tickets, pools, first_book, last_book, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        run.id,
        run.game,
        run.tickets,
        run.pools,
        run.first_book,
        run.last_book,
        run.created_by
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A chunk of a run's tickets as rows of the tickets' COPY ([`TicketCopy`]).
#[derive(Debug)]
pub struct TicketRows {
    pub tickets: i64,
    pub rows: Vec<u8>,
}

/// `tickets` as rows of the tickets' COPY, each VIRN only as its keyed hash: built off the async
/// threads, while the COPY stores the rows before them.
pub fn ticket_rows(game: &GameDefinition, tickets: &[PrintedTicket], key: &VirnKey) -> TicketRows {
    let number = game.number;
    let mut rows = String::with_capacity(tickets.len().saturating_mul(160));
    for t in tickets {
        // COPY's text format: tab-separated, \N for NULL, \\x for bytea in hex.
        let _ = write!(rows, "{number}\t{}\t{}\t", t.book, t.ticket);
        match t.prize_row {
            Some(r) => {
                let cents = game.prizes.get(r).map_or(0, |p| p.value_cents);
                let _ = write!(rows, "{r}\t{cents}\t\\\\x");
            }
            None => rows.push_str("\\N\t0\t\\\\x"),
        }
        let mut hex = [0u8; 64];
        if hex::encode_to_slice(key.hash(&t.virn), &mut hex).is_ok() {
            rows.push_str(std::str::from_utf8(&hex).unwrap_or_default());
        }
        rows.push('\t');
        t.face.write_text(&mut rows);
        rows.push('\n');
    }
    TicketRows { tickets: i64::try_from(tickets.len()).unwrap_or(i64::MAX), rows: rows.into_bytes() }
}

/// A run's tickets going in with one COPY, a pool's rows ([`ticket_rows`]) at a time.
pub struct TicketCopy<'c>(PgCopyIn<&'c mut PgConnection>);

impl std::fmt::Debug for TicketCopy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TicketCopy(..)")
    }
}

impl<'c> TicketCopy<'c> {
    pub async fn begin(conn: &'c mut PgConnection) -> Result<TicketCopy<'c>, AppError> {
        Ok(TicketCopy(
            conn.copy_in_raw("COPY tickets (game, book, ticket, prize_row, prize_cents, virn_hash, face) FROM STDIN")
                .await?,
        ))
    }

    pub async fn send(&mut self, rows: Vec<u8>) -> Result<(), AppError> {
        self.0.send(rows).await?;
        Ok(())
    }

    /// Ends the COPY; the rows it stored.
    pub async fn finish(self) -> Result<u64, AppError> {
        Ok(self.0.finish().await?)
    }

    /// Ends the COPY without storing a row (the connection stays usable for the rollback).
    pub async fn abort(self, why: &str) -> Result<(), AppError> {
        Ok(self.0.abort(why).await?)
    }
}

/// Creates the run's packs, `printed`, and adds its winners to the game's prize counts.
pub async fn insert_packs_and_counts(
    conn: &mut PgConnection,
    game: &GameDefinition,
    run: &RunRecord<'_>,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO packs (game, book, print_run, state) SELECT $1, b, $2, 'printed' FROM generate_series($3::int, $4::int) b",
        run.game,
        run.id,
        run.first_book,
        run.last_book
    )
    .execute(&mut *conn)
    .await?;
    let rows: Vec<i16> = (0..game.prizes.len()).filter_map(|r| i16::try_from(r).ok()).collect();
    let printed: Vec<i64> = game.prizes.iter().map(|p| i64::try_from(p.count).unwrap_or(i64::MAX)).collect();
    sqlx::query!(
        "INSERT INTO prize_counts (game, prize_row, printed)
         SELECT $1, r, n FROM UNNEST($2::smallint[], $3::bigint[]) AS u(r, n)
         ON CONFLICT (game, prize_row) DO UPDATE SET printed = prize_counts.printed + EXCLUDED.printed",
        run.game,
        &rows,
        &printed
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Notes that run `run`'s prize liability has been funded in the ledger.
pub async fn mark_funded(pool: &sqlx::PgPool, run: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE print_runs SET liability_funded_at = now() WHERE id = $1 AND liability_funded_at IS NULL",
        run
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Runs whose prize liability has not been funded: (run, game), oldest first.
pub async fn unfunded(pool: &sqlx::PgPool) -> Result<Vec<(Uuid, i32)>, AppError> {
    Ok(sqlx::query!(
        "SELECT id, game FROM print_runs WHERE liability_funded_at IS NULL ORDER BY created_at LIMIT 100"
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.id, r.game))
    .collect())
}

/// Records run `run`'s printer's file (where it waits, its SHA-256 and the lottery's signature),
/// in the run's transaction.
pub async fn record_printer_file(
    conn: &mut PgConnection,
    run: Uuid,
    path: &str,
    sha256: &[u8],
    signature: &[u8],
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE print_runs SET printer_file = $2, printer_file_sha256 = $3, printer_file_signature = $4 WHERE id = $1",
        run,
        path,
        sha256,
        signature
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// What asking for a run's printer's file found.
#[derive(Debug)]
pub enum PrinterFileTaken {
    /// Taken now (by this request, once): where it waits, its hash and signature.
    Now { path: String, sha256: Vec<u8>, signature: Vec<u8> },
    /// Downloaded before.
    Gone { at: chrono::DateTime<chrono::Utc>, by: String },
    /// No such run.
    NoRun,
}

/// Takes run `run`'s printer's file for `by` (exactly once: the first request marks it), chaining
/// the download, or the refused second one, in the audit log.
pub async fn take_printer_file(
    pool: &sqlx::PgPool,
    run: Uuid,
    by: &str,
) -> Result<PrinterFileTaken, AppError> {
    let mut tx = pool.begin().await?;
    let taken = sqlx::query!(
        r#"UPDATE print_runs SET printer_file_downloaded_at = now(), printer_file_downloaded_by = $2
            WHERE id = $1 AND printer_file IS NOT NULL AND printer_file_downloaded_at IS NULL
            RETURNING printer_file AS "printer_file!", printer_file_sha256 AS "sha256!",
                      printer_file_signature AS "signature!""#,
        run,
        by
    )
    .fetch_optional(&mut *tx)
    .await?;
    let found = match taken {
        Some(row) => {
            PrinterFileTaken::Now { path: row.printer_file, sha256: row.sha256, signature: row.signature }
        }
        None => {
            let before = sqlx::query!(
                "SELECT printer_file_downloaded_at, printer_file_downloaded_by FROM print_runs WHERE id = $1",
                run
            )
            .fetch_optional(&mut *tx)
            .await?;
            match before
                .and_then(|row| row.printer_file_downloaded_at.map(|at| (at, row.printer_file_downloaded_by)))
            {
                Some((at, by)) => PrinterFileTaken::Gone { at, by: by.unwrap_or_default() },
                None => PrinterFileTaken::NoRun,
            }
        }
    };
    let (kind, record) = match &found {
        PrinterFileTaken::Now { sha256, .. } => (
            "instant.printer_file.downloaded",
            serde_json::json!({"print_run": run, "by": by, "sha256": hex::encode(sha256)}),
        ),
        PrinterFileTaken::Gone { at, by: first } => (
            "instant.printer_file.refused",
            serde_json::json!({"print_run": run, "by": by, "downloaded_at": at, "downloaded_by": first}),
        ),
        PrinterFileTaken::NoRun => return Ok(found),
    };
    platform::audit::append(&mut tx, kind, run, &record).await?;
    tx.commit().await?;
    Ok(found)
}

/// Marks run `run` as imported from a vendor's file with SHA-256 `sha256`, in its transaction.
pub async fn mark_vendor_run(conn: &mut PgConnection, run: Uuid, sha256: &[u8]) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE print_runs SET source = 'vendor_file', vendor_file_sha256 = $2 WHERE id = $1",
        run,
        sha256
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}
