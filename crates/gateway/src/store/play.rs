//! A game session's clock, kept on the gateway's session row (ADR 0014 §3): when play started,
//! when the next reality check falls, and what the wallet's current hour held before play.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::PgPool;
use uuid::Uuid;

/// A session's play clock as stored.
#[derive(Debug, Clone)]
pub struct PlayClock {
    pub play_started_at: Option<DateTime<Utc>>,
    pub reality_check_at: Option<DateTime<Utc>>,
    pub baseline_hour: Option<DateTime<Utc>>,
    pub baseline_staked: Option<i64>,
    pub baseline_won: Option<i64>,
    /// The player's interval between reality checks, in minutes.
    pub interval_minutes: i32,
}

/// Session `sid`'s play clock, with its player's interval.
pub async fn clock(pool: &PgPool, sid: Uuid, player: Uuid) -> Result<Option<PlayClock>, AppError> {
    Ok(sqlx::query_as!(
        PlayClock,
        "SELECT s.play_started_at, s.reality_check_at, s.baseline_hour, s.baseline_staked, s.baseline_won,
                p.reality_check_minutes AS interval_minutes
           FROM sessions s JOIN players p ON p.id = $2
          WHERE s.id = $1",
        sid,
        player
    )
    .fetch_optional(pool)
    .await?)
}

/// Starts session `sid`'s play clock now, unless another request started it first.
pub async fn start(
    pool: &PgPool,
    sid: Uuid,
    player: Uuid,
    baseline: (DateTime<Utc>, i64, i64),
) -> Result<(), AppError> {
    let (hour, staked, won) = baseline;
    sqlx::query!(
        "UPDATE sessions s
            SET play_started_at = now(), reality_check_at = now() + make_interval(mins => p.reality_check_minutes),
                baseline_hour = $3, baseline_staked = $4, baseline_won = $5
           FROM players p
          WHERE s.id = $1 AND p.id = $2 AND s.play_started_at IS NULL",
        sid,
        player,
        hour,
        staked,
        won
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// The player went on after a reality check: the next falls an interval from now.
pub async fn acknowledge(pool: &PgPool, sid: Uuid, player: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE sessions s SET reality_check_at = now() + make_interval(mins => p.reality_check_minutes)
           FROM players p
          WHERE s.id = $1 AND p.id = $2 AND s.reality_check_at <= now()",
        sid,
        player
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Sets `player`'s interval; a check of their open sessions falls no later than it now allows.
pub async fn set_interval(pool: &PgPool, player: Uuid, minutes: i32) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    sqlx::query!("UPDATE players SET reality_check_minutes = $2 WHERE id = $1", player, minutes)
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "UPDATE sessions SET reality_check_at = least(reality_check_at, now() + make_interval(mins => $2))
          WHERE subject = $1 AND ended_at IS NULL AND reality_check_at IS NOT NULL",
        player.to_string(),
        minutes
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
