//! The player's game session (ADR 0014 §3, issue 47 §2): when play started, when the next
//! reality check falls, and what the wallet's current hour held before play. It is the
//! player's, not one login's: every login of the player within the idle window joins the game
//! session that is going on, so a check due binds each of them until the player answers it.

use std::time::Duration;

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::PgPool;
use uuid::Uuid;

/// A login's game-session clock as stored.
#[derive(Debug, Clone)]
pub struct PlayClock {
    /// The game session the login has joined; `None` before it has.
    pub game_session: Option<Uuid>,
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

/// Session `sid`'s game-session clock, with its player's interval.
pub async fn clock(pool: &PgPool, sid: Uuid, player: Uuid) -> Result<Option<PlayClock>, AppError> {
    Ok(sqlx::query_as!(
        PlayClock,
        r#"SELECT s.game_session_id AS game_session, g.started_at AS "play_started_at?",
                  g.reality_check_at AS "reality_check_at?", g.baseline_hour AS "baseline_hour?",
                  g.baseline_staked AS "baseline_staked?", g.baseline_won AS "baseline_won?",
                  p.reality_check_minutes AS interval_minutes,
                  EXISTS (SELECT 1 FROM player_limits l WHERE l.player_id = p.id AND l.kind = 'time'
                             AND (l.amount IS NOT NULL OR l.pending_from IS NOT NULL)) AS "time_limited!"
             FROM sessions s JOIN players p ON p.id = $2
             LEFT JOIN game_sessions g ON g.id = s.game_session_id
            WHERE s.id = $1"#,
        sid,
        player
    )
    .fetch_optional(pool)
    .await?)
}

/// Joins session `sid` to `player`'s game session going on: the latest one with a stake, or a
/// request of one of its logins, within `idle` of now. Without one, starts a new game session
/// with `start` (the wallet's hour and what it held) when given. Answers whether `sid` is in a
/// game session now. The player's row is locked meanwhile, so two logins never start two.
pub async fn join_or_start(
    pool: &PgPool,
    sid: Uuid,
    player: Uuid,
    idle: Duration,
    start: Option<(DateTime<Utc>, i64, i64)>,
) -> Result<bool, AppError> {
    let idle_seconds = f64::from(u32::try_from(idle.as_secs()).unwrap_or(u32::MAX));
    let mut tx = pool.begin().await?;
    let minutes =
        sqlx::query_scalar!("SELECT reality_check_minutes FROM players WHERE id = $1 FOR UPDATE", player)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(minutes) = minutes else { return Ok(false) };
    let joined = sqlx::query_scalar!(
        "SELECT game_session_id FROM sessions WHERE id = $1 AND game_session_id IS NOT NULL",
        sid
    )
    .fetch_optional(&mut *tx)
    .await?
    .flatten();
    if joined.is_some() {
        return Ok(true);
    }
    let going_on = sqlx::query_scalar!(
        r#"SELECT g.id FROM game_sessions g
            WHERE g.player_id = $1 AND g.ended_at IS NULL
              AND greatest(g.last_played_at,
                           (SELECT max(s.last_seen_at) FROM sessions s WHERE s.game_session_id = g.id))
                  > now() - make_interval(secs => $2)
            ORDER BY g.last_played_at DESC LIMIT 1"#,
        player,
        idle_seconds
    )
    .fetch_optional(&mut *tx)
    .await?;
    let game_session = match (going_on, start) {
        (Some(id), _) => id,
        (None, Some((hour, staked, won))) => {
            let id = Uuid::now_v7();
            sqlx::query!(
                "INSERT INTO game_sessions (id, player_id, started_at, last_played_at, reality_check_at,
                                            baseline_hour, baseline_staked, baseline_won)
                 VALUES ($1, $2, now(), now(), now() + make_interval(mins => $3), $4, $5, $6)",
                id,
                player,
                minutes,
                hour,
                staked,
                won
            )
            .execute(&mut *tx)
            .await?;
            #[derive(serde::Serialize)]
            struct Started {
                game_session: Uuid,
                login: Uuid,
            }
            let started = Event::new(Kind::GameSessionStart, &Started { game_session: id, login: sid })?;
            events::record(&mut tx, crate::SCHEMA, &started.player(player)).await?;
            id
        }
        (None, None) => return Ok(false),
    };
    sqlx::query!("UPDATE sessions SET game_session_id = $2 WHERE id = $1", sid, game_session)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// The player went on after a reality check: the next falls an interval from now, for every
/// login in the game session.
pub async fn acknowledge(pool: &PgPool, sid: Uuid, player: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE game_sessions g SET reality_check_at = now() + make_interval(mins => p.reality_check_minutes)
           FROM players p, sessions s
          WHERE s.id = $1 AND g.id = s.game_session_id AND p.id = $2 AND g.player_id = p.id
            AND g.reality_check_at <= now()",
        sid,
        player
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// What a game session's end records: why it ended and what was staked and won in it (the
/// ledger's activity since the session's baseline).
#[derive(Debug, Clone, Copy)]
pub struct Ending {
    /// `reality_check_stop` (the player stopped at a reality check) or `idle`.
    pub ended_by: &'static str,
    pub staked_cents: i64,
    pub won_cents: i64,
}

/// The game session's end, in the significant-events log.
#[derive(serde::Serialize)]
struct Ended {
    game_session: Uuid,
    started_at: DateTime<Utc>,
    last_played_at: DateTime<Utc>,
    ended_by: &'static str,
    staked_cents: i64,
    won_cents: i64,
    net_cents: i64,
}

impl Ended {
    /// The end of game session `id` of `player`, played from `started_at` to `last_played_at`,
    /// as `ending` says, recorded in `tx`.
    async fn record(
        tx: &mut sqlx::PgConnection,
        (id, player): (Uuid, Uuid),
        (started_at, last_played_at): (DateTime<Utc>, DateTime<Utc>),
        ending: Ending,
    ) -> Result<(), AppError> {
        let details = Ended {
            game_session: id,
            started_at,
            last_played_at,
            ended_by: ending.ended_by,
            staked_cents: ending.staked_cents,
            won_cents: ending.won_cents,
            net_cents: ending.won_cents.saturating_sub(ending.staked_cents),
        };
        let event = Event::new(Kind::GameSessionEnd, &details)?.player(player);
        events::record(tx, crate::SCHEMA, &event).await
    }
}

/// The player stopped at a reality check: session `sid`'s game session is over, and the next
/// login starts another at its first stake.
pub async fn end(pool: &PgPool, sid: Uuid, ending: Ending) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let ended = sqlx::query!(
        "UPDATE game_sessions SET ended_at = now()
          WHERE id = (SELECT game_session_id FROM sessions WHERE id = $1) AND ended_at IS NULL
          RETURNING id, player_id, started_at, last_played_at",
        sid
    )
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(ended) = ended {
        let played = (ended.started_at, ended.last_played_at);
        Ended::record(&mut tx, (ended.id, ended.player_id), played, ending).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A game session gone idle, with the baseline its figures are counted from.
#[derive(Debug, Clone)]
pub struct IdleSession {
    pub id: Uuid,
    pub player_id: Uuid,
    pub baseline_hour: DateTime<Utc>,
    pub baseline_staked: i64,
    pub baseline_won: i64,
}

/// Game sessions still open with no stake and no request of any of their logins for `idle`,
/// the longest idle first, at most `limit`.
pub async fn idle(pool: &PgPool, idle: Duration, limit: i64) -> Result<Vec<IdleSession>, AppError> {
    let idle_seconds = f64::from(u32::try_from(idle.as_secs()).unwrap_or(u32::MAX));
    Ok(sqlx::query_as!(
        IdleSession,
        "SELECT g.id, g.player_id, g.baseline_hour, g.baseline_staked, g.baseline_won FROM game_sessions g
          WHERE g.ended_at IS NULL AND g.last_played_at < now() - make_interval(secs => $1)
            AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.game_session_id = g.id
                               AND s.last_seen_at >= now() - make_interval(secs => $1))
          ORDER BY g.last_played_at LIMIT $2",
        idle_seconds,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Ends game session `session`, gone idle, with `ending`, if it is still open and still idle
/// (a login of the player may have come back meanwhile); true for the one call that does it.
pub async fn end_idle(
    pool: &PgPool,
    session: &IdleSession,
    idle: Duration,
    ending: Ending,
) -> Result<bool, AppError> {
    let idle_seconds = f64::from(u32::try_from(idle.as_secs()).unwrap_or(u32::MAX));
    let mut tx = pool.begin().await?;
    let ended = sqlx::query!(
        "UPDATE game_sessions g SET ended_at = now()
          WHERE g.id = $1 AND g.ended_at IS NULL AND g.last_played_at < now() - make_interval(secs => $2)
            AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.game_session_id = g.id
                               AND s.last_seen_at >= now() - make_interval(secs => $2))
          RETURNING g.started_at, g.last_played_at",
        session.id,
        idle_seconds
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(ended) = ended else { return Ok(false) };
    let played = (ended.started_at, ended.last_played_at);
    Ended::record(&mut tx, (session.id, session.player_id), played, ending).await?;
    tx.commit().await?;
    Ok(true)
}

/// Sets `player`'s interval; the check of a game session an open login of theirs is in falls no
/// later than it now allows.
pub async fn set_interval(pool: &PgPool, player: Uuid, minutes: i32) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    sqlx::query!("UPDATE players SET reality_check_minutes = $2 WHERE id = $1", player, minutes)
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "UPDATE game_sessions SET reality_check_at = least(reality_check_at, now() + make_interval(mins => $2))
          WHERE player_id = $1
            AND id IN (SELECT game_session_id FROM sessions WHERE subject = $3 AND ended_at IS NULL)",
        player,
        minutes,
        player.to_string()
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A stake of session `sid` passed: its game session's time played runs to now.
pub async fn touch(pool: &PgPool, sid: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE game_sessions SET last_played_at = now()
          WHERE id = (SELECT game_session_id FROM sessions WHERE id = $1)",
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
                  coalesce(sum(greatest(0, extract(epoch FROM g.played_to - greatest(g.started_at, now() - w.span))))
                      , 0)::bigint AS "seconds!",
                  min(greatest(g.started_at, now() - w.span)) FILTER (WHERE g.played_to > now() - w.span) + w.span
                      AS frees_at
             FROM (VALUES ('daily', interval '24 hours'), ('weekly', interval '7 days'), ('monthly', interval '30 days'))
                  AS w (period, span)
             LEFT JOIN (SELECT started_at,
                               CASE WHEN id = (SELECT game_session_id FROM sessions WHERE id = $2) THEN now()
                                    ELSE last_played_at END AS played_to
                          FROM game_sessions
                         WHERE player_id = $1
                           AND (id = (SELECT game_session_id FROM sessions WHERE id = $2)
                                OR last_played_at > now() - interval '30 days')) g
                    ON g.played_to > now() - w.span
            GROUP BY w.period, w.span"#,
        player,
        sid
    )
    .fetch_all(pool)
    .await?)
}
