//! Players as stored (`players`, `deposit_limits`): registration, the profile, self-exclusion
//! and deposit limits ([`crate::saga::players`]), checked against the schema at build time.

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use sqlx::PgPool;
use uuid::Uuid;

/// A player's row.
#[derive(Debug, Clone)]
pub struct PlayerRow {
    pub id: Uuid,
    pub email: String,
    pub date_of_birth: NaiveDate,
    pub wallet_account_id: Uuid,
    pub last_login_at: Option<DateTime<Utc>>,
    pub self_excluded_until: Option<DateTime<Utc>>,
    pub on_break_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A new player, before its wallet is opened.
#[derive(Debug)]
pub struct NewPlayer<'a> {
    pub id: Uuid,
    pub email: &'a str,
    pub password_hash: &'a str,
    pub date_of_birth: NaiveDate,
    pub wallet: Uuid,
}

/// Whether a player has `email` (lower-cased by the caller).
pub async fn email_taken(pool: &PgPool, email: &str) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(r#"SELECT EXISTS (SELECT 1 FROM players WHERE email = $1) AS "taken!""#, email)
        .fetch_one(pool)
        .await?)
}

/// Records `player`; false when another took its email first.
pub async fn insert(pool: &PgPool, player: &NewPlayer<'_>) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO players (id, email, password_hash, date_of_birth, wallet_account_id)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (email) DO NOTHING",
        player.id,
        player.email,
        player.password_hash,
        player.date_of_birth,
        player.wallet
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Takes a player whose wallet could not be opened back out.
pub async fn delete(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query!("DELETE FROM players WHERE id = $1", id).execute(pool).await?;
    Ok(())
}

/// Player `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<PlayerRow>, AppError> {
    Ok(sqlx::query_as!(
        PlayerRow,
        "SELECT id, email, date_of_birth, wallet_account_id, last_login_at, self_excluded_until, on_break_until,
                created_at
           FROM players WHERE id = $1",
        id
    )
    .fetch_optional(pool)
    .await?)
}

/// Excludes player `id` until `until`, never shortening an exclusion in force; answers the end.
pub async fn exclude_until(pool: &PgPool, id: Uuid, until: DateTime<Utc>) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE players SET self_excluded_until = greatest(coalesce(self_excluded_until, $2), $2)
            WHERE id = $1 RETURNING self_excluded_until AS "until!""#,
        id,
        until
    )
    .fetch_one(pool)
    .await?)
}

/// Puts player `id` on a break until `until`, never shortening one in force; answers the end.
pub async fn break_until(pool: &PgPool, id: Uuid, until: DateTime<Utc>) -> Result<DateTime<Utc>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"UPDATE players SET on_break_until = greatest(coalesce(on_break_until, $2), $2)
            WHERE id = $1 RETURNING on_break_until AS "until!""#,
        id,
        until
    )
    .fetch_one(pool)
    .await?)
}

/// A deposit limit's row: the amount in force and a raise (or removal) waiting.
#[derive(Debug, Clone)]
pub struct LimitRow {
    pub period: String,
    pub amount: Option<i64>,
    pub pending_amount: Option<i64>,
    pub pending_none: bool,
    pub pending_from: Option<DateTime<Utc>>,
}

/// A player's deposit limits, raises whose delay has passed applied first.
pub async fn deposit_limits(pool: &PgPool, player: Uuid) -> Result<Vec<LimitRow>, AppError> {
    sqlx::query!(
        "UPDATE deposit_limits SET amount = CASE WHEN pending_none THEN NULL ELSE pending_amount END,
                pending_amount = NULL, pending_none = false, pending_from = NULL
          WHERE player_id = $1 AND pending_from <= now()",
        player
    )
    .execute(pool)
    .await?;
    Ok(sqlx::query_as!(
        LimitRow,
        "SELECT period, amount, pending_amount, pending_none, pending_from FROM deposit_limits WHERE player_id = $1",
        player
    )
    .fetch_all(pool)
    .await?)
}

/// Sets `player`'s `period` limit to `amount` now, cancelling any raise that was waiting.
pub async fn lower_limit(pool: &PgPool, player: Uuid, period: &str, amount: i64) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO deposit_limits (player_id, period, amount) VALUES ($1, $2, $3)
         ON CONFLICT (player_id, period) DO UPDATE
            SET amount = $3, pending_amount = NULL, pending_none = false, pending_from = NULL",
        player,
        period,
        amount
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Raises (or, with `None`, removes) `player`'s `period` limit after `delay_hours`.
pub async fn raise_limit(
    pool: &PgPool,
    player: Uuid,
    period: &str,
    amount: Option<i64>,
    delay_hours: i32,
) -> Result<(), AppError> {
    sqlx::query!(
        "INSERT INTO deposit_limits (player_id, period, amount, pending_amount, pending_none, pending_from)
         VALUES ($1, $2, NULL, $3::bigint, $3::bigint IS NULL, now() + make_interval(hours => $4))
         ON CONFLICT (player_id, period) DO UPDATE
            SET pending_amount = $3::bigint, pending_none = $3::bigint IS NULL, pending_from = now() + make_interval(hours => $4)",
        player,
        period,
        amount,
        delay_hours
    )
    .execute(pool)
    .await?;
    Ok(())
}
