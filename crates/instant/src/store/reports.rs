//! The reads behind the operators' reports and the public game list; checked against the schema
//! at build time.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::PgPool;

/// One prize row of one game: printed so far, and paid.
#[derive(Debug)]
pub struct PrizeCount {
    pub game: i32,
    pub prize_row: i16,
    pub printed: i64,
    pub paid: i64,
}

/// Every game's prize rows, printed and paid.
pub async fn prize_counts(pool: &PgPool) -> Result<Vec<PrizeCount>, AppError> {
    Ok(sqlx::query_as!(PrizeCount, "SELECT game, prize_row, printed, paid FROM prize_counts")
        .fetch_all(pool)
        .await?)
}

/// Per game: payments pending, and done but unconfirmed.
pub async fn open_payments(pool: &PgPool) -> Result<Vec<(i32, i64, i64)>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT game, count(*) FILTER (WHERE payment = 'pending') AS "pending!",
                  count(*) FILTER (WHERE payment = 'done') AS "done!"
             FROM tickets WHERE payment IN ('pending', 'done') GROUP BY game"#
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.game, r.pending, r.done))
    .collect())
}

/// Scans in `[since, until)` by retailer and result: (retailer, result, count, prize cents),
/// ordered by retailer.
pub async fn validations_by_retailer(
    pool: &PgPool,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    retailer: Option<&str>,
) -> Result<Vec<ScanCounts>, AppError> {
    Ok(sqlx::query_as!(
        ScanCounts,
        r#"WITH per_ticket AS (
               SELECT retailer_id, result, barcode, count(*) AS scans, max(prize_cents) AS prize_cents
                 FROM validations
                WHERE retailer_id IS NOT NULL AND at >= $1 AND at < $2 AND ($3::text IS NULL OR retailer_id = $3)
                GROUP BY retailer_id, result, barcode)
           SELECT retailer_id AS "retailer_id!", result AS "result!", sum(scans)::bigint AS "scans!",
                  count(*) AS "tickets!", coalesce(sum(prize_cents), 0)::bigint AS "cents!"
             FROM per_ticket GROUP BY retailer_id, result ORDER BY retailer_id, result"#,
        since,
        until,
        retailer
    )
    .fetch_all(pool)
    .await?)
}

/// One retailer's scans of one result in a window: every scan, the distinct tickets, and their
/// prizes counted once per ticket (a ticket validated and then paid is one winner).
#[derive(Debug, Clone)]
pub struct ScanCounts {
    pub retailer_id: String,
    pub result: String,
    pub scans: i64,
    pub tickets: i64,
    pub cents: i64,
}

/// Distinct winning tickets validated in `[since, until)`, by retailer, game and prize:
/// (retailer, game, prize cents, tickets), ordered by retailer.
pub async fn winners_by_retailer(
    pool: &PgPool,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<(String, i32, i64, i64)>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT retailer_id AS "retailer_id!", substr(barcode, 1, 3)::int AS "game!", prize_cents,
                  count(DISTINCT barcode) AS "n!"
             FROM validations
            WHERE retailer_id IS NOT NULL AND result = 'winner' AND at >= $1 AND at < $2
            GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"#,
        since,
        until
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.retailer_id, r.game, r.prize_cents, r.n))
    .collect())
}
