//! A pack's row: locked and read, moved along its life, settled; and the packs listed. Checked
//! against the schema at build time.

use chrono::{DateTime, Utc};
use domain::instant::payout::PackSettlement;
use platform::AppError;
use sqlx::{PgConnection, PgPool};

use super::PackState;
use crate::views::SettlementView;

/// A pack as stored.
#[derive(Debug)]
pub struct Pack {
    pub state: PackState,
    pub retailer_id: Option<String>,
    /// Once settled.
    pub settlement: Option<SettlementView>,
    /// Whether a settled pack's money has moved in the ledger.
    pub settlement_posted: bool,
}

/// Locks pack `game`-`book` in the caller's transaction and reads it.
pub async fn lock(conn: &mut PgConnection, game: i32, book: i32) -> Result<Option<Pack>, AppError> {
    let row = sqlx::query!(
        r#"SELECT state AS "state: PackState", retailer_id, sales_cents, commission_cents, owed_cents, settled_at,
                  settlement_posted_at
             FROM packs WHERE game = $1 AND book = $2 FOR UPDATE"#,
        game,
        book
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.map(|row| {
        let settlement = (row.state == PackState::Settled).then(|| SettlementView {
            sales_cents: row.sales_cents.unwrap_or(0),
            commission_cents: row.commission_cents.unwrap_or(0),
            owed_cents: row.owed_cents.unwrap_or(0),
            settled_at: row.settled_at.unwrap_or_else(Utc::now),
        });
        Pack {
            state: row.state,
            retailer_id: row.retailer_id,
            settlement,
            settlement_posted: row.settlement_posted_at.is_some(),
        }
    }))
}

/// Moves the locked pack to `to` (shipping it to `ship_to` when given), stamping the move; `by`
/// is who reported it stolen. Activation stamps its receipt too when the terminal did not
/// confirm it first.
pub async fn set_state(
    conn: &mut PgConnection,
    game: i32,
    book: i32,
    to: PackState,
    ship_to: Option<&str>,
    by: &str,
) -> Result<Pack, AppError> {
    let row = sqlx::query!(
        r#"UPDATE packs SET state = $3, retailer_id = coalesce($4, retailer_id),
                  shipped_at = CASE WHEN $3 = 'shipped' THEN now() ELSE shipped_at END,
                  received_at = CASE WHEN $3 IN ('received', 'active') THEN coalesce(received_at, now()) ELSE received_at END,
                  activated_at = CASE WHEN $3 = 'active' THEN now() ELSE activated_at END,
                  returned_at = CASE WHEN $3 = 'returned' THEN now() ELSE returned_at END,
                  stolen_at = CASE WHEN $3 = 'stolen' THEN now() ELSE stolen_at END,
                  stolen_reported_by = CASE WHEN $3 = 'stolen' THEN $5 ELSE stolen_reported_by END
            WHERE game = $1 AND book = $2 RETURNING state AS "state: PackState", retailer_id"#,
        game,
        book,
        to as PackState,
        ship_to,
        by
    )
    .fetch_one(&mut *conn)
    .await?;
    Ok(Pack { state: row.state, retailer_id: row.retailer_id, settlement: None, settlement_posted: false })
}

/// Marks the locked pack settled with what its retailer owes; returns when.
pub async fn mark_settled(
    conn: &mut PgConnection,
    game: i32,
    book: i32,
    owed: &PackSettlement,
) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE packs SET state = 'settled', settled_at = now(), sales_cents = $3, commission_cents = $4, owed_cents = $5
            WHERE game = $1 AND book = $2 RETURNING settled_at AS "settled_at!""#,
        game,
        book,
        owed.sales_cents,
        owed.commission_cents,
        owed.owed_cents
    )
    .fetch_one(&mut *conn)
    .await?)
}

/// Notes that settled pack `game`-`book`'s money has moved in the ledger.
pub async fn mark_settlement_posted(pool: &PgPool, game: i32, book: i32) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE packs SET settlement_posted_at = now()
          WHERE game = $1 AND book = $2 AND settlement_posted_at IS NULL",
        game,
        book
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Packs to settle, oldest first (at most 1,000): those active for longer than `after`, and
/// those settled whose money has not moved (the ledger was away, or the process died between
/// the two; one a request is posting now is posted twice under one id, which is once).
pub async fn due_for_settlement(
    pool: &PgPool,
    after: std::time::Duration,
) -> Result<Vec<(i32, i32)>, AppError> {
    Ok(sqlx::query!(
        "SELECT game, book FROM packs
          WHERE (state = 'active' AND activated_at < now() - make_interval(secs => $1))
             OR (state = 'settled' AND settlement_posted_at IS NULL)
          ORDER BY coalesce(settled_at, activated_at) LIMIT 1000",
        after.as_secs_f64()
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.game, r.book))
    .collect())
}

/// Which packs a listing asks for; every filter is optional.
#[derive(Debug, Default)]
pub struct PackFilter<'a> {
    pub game: Option<i32>,
    pub state: Option<PackState>,
    pub retailer_id: Option<&'a str>,
    /// Packs after this (game, book), for the next page.
    pub after: Option<(i32, i32)>,
}

/// A pack as listed.
#[derive(Debug)]
pub struct ListedPack {
    pub game: i32,
    pub book: i32,
    pub state: PackState,
    pub retailer_id: Option<String>,
    pub shipped_at: Option<DateTime<Utc>>,
    pub received_at: Option<DateTime<Utc>>,
    pub activated_at: Option<DateTime<Utc>>,
    pub settled_at: Option<DateTime<Utc>>,
    pub returned_at: Option<DateTime<Utc>>,
    pub stolen_at: Option<DateTime<Utc>>,
    pub owed_cents: Option<i64>,
}

/// Packs matching `filter`, by game and book, at most `limit`.
pub async fn list(pool: &PgPool, filter: &PackFilter<'_>, limit: i64) -> Result<Vec<ListedPack>, AppError> {
    let (after_game, after_book) = filter.after.unwrap_or((-1, -1));
    Ok(sqlx::query_as!(
        ListedPack,
        r#"SELECT game, book, state AS "state: PackState", retailer_id, shipped_at, received_at, activated_at,
                  settled_at, returned_at, stolen_at, owed_cents
             FROM packs
            WHERE ($1::int IS NULL OR game = $1) AND ($2::text IS NULL OR state = $2)
              AND ($3::text IS NULL OR retailer_id = $3) AND (game, book) > ($4, $5)
            ORDER BY game, book LIMIT $6"#,
        filter.game,
        filter.state.map(PackState::as_str),
        filter.retailer_id,
        after_game,
        after_book,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// A retailer's packs settled in `[since, until)`: (game, book, sales, commission, owed, when).
pub async fn settled_for(
    pool: &PgPool,
    retailer: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<(i32, i32, i64, i64, i64, DateTime<Utc>)>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT game, book, sales_cents AS "sales!", commission_cents AS "commission!", owed_cents AS "owed!",
                  settled_at AS "settled_at!"
             FROM packs
            WHERE state = 'settled' AND retailer_id = $1 AND settled_at >= $2 AND settled_at < $3
            ORDER BY settled_at, game, book"#,
        retailer,
        since,
        until
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.game, r.book, r.sales, r.commission, r.owed, r.settled_at))
    .collect())
}

/// A retailer's packs by state, now.
pub async fn count_by_state(pool: &PgPool, retailer: &str) -> Result<Vec<(PackState, i64)>, AppError> {
    Ok(sqlx::query!(
        r#"SELECT state AS "state: PackState", count(*) AS "n!" FROM packs
            WHERE retailer_id = $1 GROUP BY state ORDER BY state"#,
        retailer
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| (r.state, r.n))
    .collect())
}
