//! The operators' entries of a drawing's official results (dual control): each kept until a
//! different operator enters the same, and forgotten after a mismatch. Checked against the schema
//! at build time.

use chrono::NaiveDate;
use domain::powerball::Board;
use domain::powerball::drawing::Results;
use platform::AppError;
use sqlx::PgConnection;

use super::drawings::{StoredDrawing, lock, results_columns};

/// An operator's entry of a drawing's official results.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ResultEntry {
    pub entered_by: String,
    pub results: Results,
}

/// Locks the drawing for a results entry and returns it with the entries made so far.
pub async fn lock_for_entry(
    conn: &mut PgConnection,
    date: NaiveDate,
) -> Result<Option<(StoredDrawing, Vec<ResultEntry>)>, AppError> {
    let Some(drawing) = lock(conn, date).await? else {
        return Ok(None);
    };
    let entries = sqlx::query!(
        "SELECT entered_by, whites, powerball, multiplier FROM pb_result_entries WHERE draw_date = $1",
        date
    )
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|row| {
        let whites: Vec<u8> = row.whites.iter().filter_map(|&n| u8::try_from(n).ok()).collect();
        let numbers = Board::new(&whites, u8::try_from(row.powerball).unwrap_or(0))
            .map_err(|e| AppError::internal(e.to_string()))?;
        Ok(ResultEntry {
            entered_by: row.entered_by,
            results: Results { numbers, multiplier: u8::try_from(row.multiplier).unwrap_or(0) },
        })
    })
    .collect::<Result<Vec<_>, AppError>>()?;
    Ok(Some((drawing, entries)))
}

/// Keeps `entry` as the drawing's first entry.
pub async fn add_entry(
    conn: &mut PgConnection,
    date: NaiveDate,
    entry: &ResultEntry,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    let (whites, powerball, multiplier) = results_columns(&entry.results);
    sqlx::query!(
        "INSERT INTO pb_result_entries (draw_date, entered_by, whites, powerball, multiplier, entered_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
        date,
        &entry.entered_by,
        &whites,
        powerball,
        multiplier,
        at
    )
    .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Forgets the drawing's entries (after a mismatch, both are entered again).
pub async fn clear_entries(conn: &mut PgConnection, date: NaiveDate) -> Result<(), AppError> {
    sqlx::query!("DELETE FROM pb_result_entries WHERE draw_date = $1", date).execute(&mut *conn).await?;
    Ok(())
}
