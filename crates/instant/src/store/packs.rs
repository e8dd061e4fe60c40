//! A pack's row: locked and read, moved forward, settled.

use chrono::{DateTime, Utc};
use domain::instant::payout::PackSettlement;
use platform::AppError;
use sqlx::{PgConnection, PgPool, Row};

use super::PackState;
use crate::views::SettlementView;

/// A pack as stored.
#[derive(Debug)]
pub struct Pack {
    pub state: PackState,
    pub retailer_id: Option<String>,
    /// Once settled.
    pub settlement: Option<SettlementView>,
}

/// Locks pack `game`-`book` in the caller's transaction and reads it.
pub async fn lock(conn: &mut PgConnection, game: i32, book: i32) -> Result<Option<Pack>, AppError> {
    let Some(row) = sqlx::query("SELECT * FROM packs WHERE game = $1 AND book = $2 FOR UPDATE")
        .bind(game)
        .bind(book)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let state = PackState::parse(row.try_get("state")?)?;
    let settlement = match state {
        PackState::Settled => Some(SettlementView {
            sales_cents: row.try_get::<Option<i64>, _>("sales_cents")?.unwrap_or(0),
            commission_cents: row.try_get::<Option<i64>, _>("commission_cents")?.unwrap_or(0),
            owed_cents: row.try_get::<Option<i64>, _>("owed_cents")?.unwrap_or(0),
            settled_at: row.try_get::<Option<DateTime<Utc>>, _>("settled_at")?.unwrap_or_else(Utc::now),
        }),
        _ => None,
    };
    Ok(Some(Pack { state, retailer_id: row.try_get("retailer_id")?, settlement }))
}

/// Moves the locked pack to `to` (assigning it to `assign_to` when given), stamping the move.
pub async fn set_state(
    conn: &mut PgConnection,
    game: i32,
    book: i32,
    to: PackState,
    assign_to: Option<&str>,
) -> Result<Pack, AppError> {
    let row = sqlx::query(
        "UPDATE packs SET state = $3, retailer_id = coalesce($4, retailer_id),
                assigned_at = CASE WHEN $3 = 'assigned' THEN now() ELSE assigned_at END,
                activated_at = CASE WHEN $3 = 'active' THEN now() ELSE activated_at END
          WHERE game = $1 AND book = $2 RETURNING state, retailer_id",
    )
    .bind(game)
    .bind(book)
    .bind(to.as_str())
    .bind(assign_to)
    .fetch_one(&mut *conn)
    .await?;
    Ok(Pack {
        state: PackState::parse(row.try_get("state")?)?,
        retailer_id: row.try_get("retailer_id")?,
        settlement: None,
    })
}

/// Marks the locked pack settled with what its retailer owes; returns when.
pub async fn mark_settled(
    conn: &mut PgConnection,
    game: i32,
    book: i32,
    owed: &PackSettlement,
) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar(
        "UPDATE packs SET state = 'settled', settled_at = now(), sales_cents = $3, commission_cents = $4, owed_cents = $5
          WHERE game = $1 AND book = $2 RETURNING settled_at",
    )
    .bind(game)
    .bind(book)
    .bind(owed.sales_cents)
    .bind(owed.commission_cents)
    .bind(owed.owed_cents)
    .fetch_one(&mut *conn)
    .await?)
}

/// Packs active for longer than `after`, oldest first (at most 1,000).
pub async fn due_for_settlement(
    pool: &PgPool,
    after: std::time::Duration,
) -> Result<Vec<(i32, i32)>, AppError> {
    Ok(sqlx::query_as(
        "SELECT game, book FROM packs
          WHERE state = 'active' AND activated_at < now() - make_interval(secs => $1)
          ORDER BY activated_at LIMIT 1000",
    )
    .bind(after.as_secs_f64())
    .fetch_all(pool)
    .await?)
}
