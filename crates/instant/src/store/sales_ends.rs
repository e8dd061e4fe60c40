//! Games' announced ends of sales and the expiry of their unclaimed prizes (issue 50).

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};

/// A game's end of sales, as announced, and how far its expiry has gone.
#[derive(Debug, Clone)]
pub struct SalesEnd {
    pub game: i32,
    pub ends_on: NaiveDate,
    pub announced_at: DateTime<Utc>,
    pub announced_by: String,
    pub expiring_at: Option<DateTime<Utc>>,
    pub expired_cents: Option<i64>,
    pub expired_at: Option<DateTime<Utc>>,
}

/// Announces (or moves, while its prizes have not begun to expire) `game`'s end of sales.
/// None when its expiry has begun: the date stands.
pub async fn announce(pool: &PgPool, game: i32, ends_on: NaiveDate, by: &str) -> Result<Option<SalesEnd>, AppError> {
    Ok(sqlx::query_as!(
        SalesEnd,
        "INSERT INTO sales_ends (game, ends_on, announced_by) VALUES ($1, $2, $3)
         ON CONFLICT (game) DO UPDATE SET ends_on = EXCLUDED.ends_on, announced_at = now(),
                                          announced_by = EXCLUDED.announced_by
          WHERE sales_ends.expiring_at IS NULL
         RETURNING game, ends_on, announced_at, announced_by, expiring_at, expired_cents, expired_at",
        game,
        ends_on,
        by
    )
    .fetch_optional(pool)
    .await?)
}

/// Every game's end of sales.
pub async fn all(pool: &PgPool) -> Result<Vec<SalesEnd>, AppError> {
    Ok(sqlx::query_as!(
        SalesEnd,
        "SELECT game, ends_on, announced_at, announced_by, expiring_at, expired_cents, expired_at
           FROM sales_ends ORDER BY game"
    )
    .fetch_all(pool)
    .await?)
}

/// `game`'s end of sales, read for a claim: its row shared-locked until the claim's reserving
/// transaction ends, so an expiry beginning waits for the claim (or the claim sees it begun).
pub async fn for_claim(conn: &mut PgConnection, game: i32) -> Result<Option<SalesEnd>, AppError> {
    Ok(sqlx::query_as!(
        SalesEnd,
        "SELECT game, ends_on, announced_at, announced_by, expiring_at, expired_cents, expired_at
           FROM sales_ends WHERE game = $1 FOR SHARE",
        game
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// Begins `game`'s expiry: no claim is taken after. False while a payment of the game is
/// reserved and its money not moved (the expiry waits for it); true when it has begun (now, or
/// before: a crash or another replica left it to finish).
pub async fn begin_expiry(pool: &PgPool, game: i32) -> Result<bool, AppError> {
    let mut tx = pool.begin().await?;
    let row = sqlx::query!("SELECT expiring_at FROM sales_ends WHERE game = $1 FOR UPDATE", game)
        .fetch_optional(&mut *tx)
        .await?;
    let Some(row) = row else { return Ok(false) };
    if row.expiring_at.is_some() {
        return Ok(true);
    }
    let in_flight = sqlx::query_scalar!(
        r#"SELECT count(*) AS "n!" FROM tickets WHERE game = $1 AND payment = 'pending'"#,
        game
    )
    .fetch_one(&mut *tx)
    .await?;
    if in_flight > 0 {
        return Ok(false);
    }
    sqlx::query!("UPDATE sales_ends SET expiring_at = now() WHERE game = $1", game).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(true)
}

/// Records what expires (once: the first amount recorded stands, and is answered).
pub async fn record_amount(pool: &PgPool, game: i32, cents: i64) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE sales_ends SET expired_cents = coalesce(expired_cents, $2) WHERE game = $1
           RETURNING expired_cents AS "cents!""#,
        game,
        cents
    )
    .fetch_one(pool)
    .await?)
}

/// Marks `game`'s expiry finished (its money moved); false when it was already.
pub async fn mark_expired(pool: &PgPool, game: i32) -> Result<bool, AppError> {
    let marked = sqlx::query!("UPDATE sales_ends SET expired_at = now() WHERE game = $1 AND expired_at IS NULL", game)
        .execute(pool)
        .await?;
    Ok(marked.rows_affected() == 1)
}
