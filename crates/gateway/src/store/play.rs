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
    /// Whether the player has a time limit (in force or waiting).
    pub time_limited: bool,
}

/// Session `sid`'s play clock, with its player's interval.
pub async fn clock(pool: &PgPool, sid: Uuid, player: Uuid) -> Result<Option<PlayClock>, AppError> {
    Ok(sqlx::query_as!(
        PlayClock,
        r#"SELECT s.play_started_at, s.reality_check_at, s.baseline_hour, s.baseline_staked, s.baseline_won,
                  p.reality_check_minutes AS interval_minutes,
                  EXISTS (SELECT 1 FROM player_limits l WHERE l.player_id = p.id AND l.kind = 'time'
                             AND (l.amount IS NOT NULL OR l.pending_from IS NOT NULL)) AS "time_limited!"
             FROM sessions s JOIN players p ON p.id = $2
            WHERE s.id = $1"#,
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
            SET play_started_at = now(), last_played_at = now(), reality_check_at = now() + make_interval(mins => p.reality_check_minutes),
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

/// A stake of session `sid` passed: its time played runs to now.
pub async fn touch(pool: &PgPool, sid: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE sessions SET last_played_at = now() WHERE id = $1 AND play_started_at IS NOT NULL",
        sid
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Time `player` played in the last 24 hours, 7 days and 30 days, each game session counted
/// from its first stake to its last, session `sid`'s to now (a stake now would take it there).
#[derive(Debug, Clone)]
pub struct Played {
    pub period: String,
    pub seconds: i64,
    /// When time played in the window starts to fall out of it: the earliest play it counts,
    /// a window's length later.
    pub frees_at: Option<DateTime<Utc>>,
}

/// [`Played`] for each rolling window.
pub async fn played(pool: &PgPool, player: Uuid, sid: Option<Uuid>) -> Result<Vec<Played>, AppError> {
    Ok(sqlx::query_as!(
        Played,
        r#"SELECT w.period AS "period!",
                  coalesce(sum(greatest(0, extract(epoch FROM s.played_to - greatest(s.play_started_at, now() - w.span))))
                      , 0)::bigint AS "seconds!",
                  min(greatest(s.play_started_at, now() - w.span)) FILTER (WHERE s.played_to > now() - w.span) + w.span
                      AS frees_at
             FROM (VALUES ('daily', interval '24 hours'), ('weekly', interval '7 days'), ('monthly', interval '30 days'))
                  AS w (period, span)
             LEFT JOIN (SELECT play_started_at,
                               CASE WHEN id = $2 THEN now() ELSE coalesce(last_played_at, play_started_at) END AS played_to
                          FROM sessions
                         WHERE subject = $1 AND play_started_at IS NOT NULL
                           AND (id = $2 OR coalesce(last_played_at, play_started_at) > now() - interval '30 days')) s
                    ON s.played_to > now() - w.span
            GROUP BY w.period, w.span"#,
        player.to_string(),
        sid
    )
    .fetch_all(pool)
    .await?)
}
