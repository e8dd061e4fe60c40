//! Powerball drawings as stored: the timetable's instants and the advertised grand prize.

use chrono::{DateTime, NaiveDate, Utc};
use domain::powerball::schedule::Drawing;
use platform::AppError;
use sqlx::{PgPool, Row};

/// A drawing's row.
#[derive(Debug, Clone)]
pub struct StoredDrawing {
    pub date: NaiveDate,
    pub sales_close_at: DateTime<Utc>,
    pub sales_resume_at: DateTime<Utc>,
    pub draw_at: DateTime<Utc>,
    pub advertised_cents: Option<i64>,
    pub cash_value_cents: Option<i64>,
    pub state: String,
}

/// The drawing's row, made from the timetable when it is not there yet (a read of a row that
/// exists writes nothing: the public read of the next drawing is a plain read).
pub async fn ensure(pool: &PgPool, drawing: &Drawing) -> Result<StoredDrawing, AppError> {
    let select = "SELECT draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents, state
                    FROM pb_draws WHERE draw_date = $1";
    let found = sqlx::query(select).bind(drawing.date).fetch_optional(pool).await?;
    let row = match found {
        Some(row) => row,
        None => {
            sqlx::query(
                "INSERT INTO pb_draws (draw_date, sales_close_at, sales_resume_at, draw_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (draw_date) DO NOTHING",
            )
            .bind(drawing.date)
            .bind(drawing.sales_close)
            .bind(drawing.sales_resume)
            .bind(drawing.drawing)
            .execute(pool)
            .await?;
            sqlx::query(select).bind(drawing.date).fetch_one(pool).await?
        }
    };
    drawing_of(&row)
}

fn drawing_of(row: &sqlx::postgres::PgRow) -> Result<StoredDrawing, AppError> {
    Ok(StoredDrawing {
        date: row.try_get("draw_date")?,
        sales_close_at: row.try_get("sales_close_at")?,
        sales_resume_at: row.try_get("sales_resume_at")?,
        draw_at: row.try_get("draw_at")?,
        advertised_cents: row.try_get("advertised_cents")?,
        cash_value_cents: row.try_get("cash_value_cents")?,
        state: row.try_get("state")?,
    })
}

/// Sets the drawing's advertised grand prize and its cash value while it is still `scheduled`,
/// and returns it; none when it is not (closed or later).
pub async fn set_grand_prize(
    pool: &PgPool,
    date: NaiveDate,
    advertised: i64,
    cash: i64,
) -> Result<Option<StoredDrawing>, AppError> {
    sqlx::query(
        "UPDATE pb_draws SET advertised_cents = $2, cash_value_cents = $3, updated_at = now()
          WHERE draw_date = $1 AND state = 'scheduled'
          RETURNING draw_date, sales_close_at, sales_resume_at, draw_at, advertised_cents, cash_value_cents, state",
    )
    .bind(date)
    .bind(advertised)
    .bind(cash)
    .fetch_optional(pool)
    .await?
    .as_ref()
    .map(drawing_of)
    .transpose()
}
