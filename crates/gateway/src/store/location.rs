//! Location checks as stored (`location_checks`), each kept with its result, checked against
//! the schema at build time ([`crate::saga::location`]).

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::PgPool;
use uuid::Uuid;

/// A check as kept.
#[derive(Debug, Clone)]
pub struct CheckRow {
    pub id: Uuid,
    pub session_id: Uuid,
    pub result: String,
    pub jurisdiction: String,
    pub reason: String,
    pub ip: Option<String>,
    pub checked_at: DateTime<Utc>,
}

/// A check to keep (and, as it is, the significant event it is).
#[derive(Debug, serde::Serialize)]
pub struct NewCheck<'a> {
    pub session: Uuid,
    pub player: Uuid,
    pub ip: Option<&'a str>,
    pub result: &'a str,
    pub jurisdiction: &'a str,
    pub reason: &'a str,
    pub provider_ref: &'a str,
}

/// Keeps `check`; the row kept.
pub async fn insert(conn: &mut sqlx::PgConnection, check: &NewCheck<'_>) -> Result<CheckRow, AppError> {
    Ok(sqlx::query_as!(
        CheckRow,
        "INSERT INTO location_checks
             (id, session_id, player_id, ip, result, jurisdiction, reason, provider_ref)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         RETURNING id, session_id, result, jurisdiction, reason, ip, checked_at",
        Uuid::now_v7(),
        check.session,
        check.player,
        check.ip,
        check.result,
        check.jurisdiction,
        check.reason,
        check.provider_ref,
    )
    .fetch_one(conn)
    .await?)
}

/// The last check of login `session`.
pub async fn last_of_session(pool: &PgPool, session: Uuid) -> Result<Option<CheckRow>, AppError> {
    Ok(sqlx::query_as!(
        CheckRow,
        "SELECT id, session_id, result, jurisdiction, reason, ip, checked_at
           FROM location_checks WHERE session_id = $1
          ORDER BY checked_at DESC, id DESC LIMIT 1",
        session,
    )
    .fetch_optional(pool)
    .await?)
}

/// Player `player`'s last `limit` checks, newest first.
pub async fn of_player(pool: &PgPool, player: Uuid, limit: i64) -> Result<Vec<CheckRow>, AppError> {
    Ok(sqlx::query_as!(
        CheckRow,
        "SELECT id, session_id, result, jurisdiction, reason, ip, checked_at
           FROM location_checks WHERE player_id = $1
          ORDER BY checked_at DESC, id DESC LIMIT $2",
        player,
        limit,
    )
    .fetch_all(pool)
    .await?)
}
