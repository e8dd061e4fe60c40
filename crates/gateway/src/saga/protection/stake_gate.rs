//! What every stake passes before it reaches a game: the player's identity verified, the
//! device located in the jurisdiction, the player's game session joined (or started), its
//! reality check, and the time limits.

use chrono::Utc;
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, end_sessions};
use crate::saga::players::load_player;
use crate::store::play;
use crate::store::players::{self as store, LimitKind};
use crate::views::protection::{PlaySession, RealityCheckDecision};

/// The reality-check intervals a player may choose, in minutes (at least hourly).
const REALITY_CHECK_MINUTES: [i32; 3] = [15, 30, 60];

/// Before a player's stake passes to a game: joins the login to the player's game session
/// going on, or starts one at the first stake; once the game session's reality check is due
/// answers 409 `reality_check_due` with its time, staked, won and net until the player
/// acknowledges it (from any of their logins); refuses the stake (422 `limit_reached`, kind
/// `time`) when a time limit's window is used up; and carries the time played to now.
pub(crate) async fn before_stake(
    state: &GatewayState,
    caller: &Authenticated,
    ip: Option<std::net::IpAddr>,
) -> Result<(), AppError> {
    // A token without a session (a service's, a test's) has no game session to time.
    let Some(sid) = caller.0.sid else { return Ok(()) };
    let player = caller.subject_id()?;
    // No stake before the player's identity is verified (issue 49 §KYC).
    crate::saga::identity::require_verified(state, player).await?;
    // From where the law allows online play, checked in this login from this address.
    crate::saga::location::require_located(state, sid, ip).await?;
    let Some(clock) = game_session_clock(state, sid, player).await? else { return Ok(()) };
    reality_check_answered(state, sid, player, &clock).await?;
    if clock.time_limited {
        refuse_past_time_limit(state, player, sid).await?;
    }
    play::touch(&state.pool, sid).await
}

/// The login's clock in the player's game session: the one going on joined, or one started at
/// this first stake (counting the hour's stakes and wins the ledger already holds).
async fn game_session_clock(
    state: &GatewayState,
    sid: Uuid,
    player: Uuid,
) -> Result<Option<play::PlayClock>, AppError> {
    let Some(clock) = play::clock(&state.pool, sid, player).await? else { return Ok(None) };
    if clock.game_session.is_some() {
        return Ok(Some(clock));
    }
    let idle = state.sessions.idle_timeout;
    if !play::join_or_start(&state.pool, sid, player, idle, None).await? {
        let wallet = load_player(state, player).await?.wallet_account_id;
        let hour = state.ledger.activity_totals(wallet, Utc::now()).await?;
        play::join_or_start(&state.pool, sid, player, idle, Some((hour.hour, hour.staked, hour.won))).await?;
    }
    play::clock(&state.pool, sid, player).await
}

/// 409 `reality_check_due` while the game session's check is due and unanswered.
pub(crate) async fn reality_check_answered(
    state: &GatewayState,
    sid: Uuid,
    player: Uuid,
    clock: &play::PlayClock,
) -> Result<(), AppError> {
    match clock.reality_check_at {
        Some(due) if due <= Utc::now() => {
            let session = play_session(state, sid, player).await?;
            let context = serde_json::to_value(&session).map_err(AppError::internal)?;
            Err(AppError::conflict(
                codes::REALITY_CHECK_DUE,
                format!(
                    "you have played for {} minutes: staked {}, won {}; go on or stop (POST /v1/me/reality-check)",
                    session.played_seconds / 60,
                    domain::money::dollars(session.staked),
                    domain::money::dollars(session.won)
                ),
            )
            .with_context(context))
        }
        _ => Ok(()),
    }
}

/// 422 `limit_reached` (kind `time`) when a stake now would carry the player's time played in a
/// window to or past its limit.
async fn refuse_past_time_limit(state: &GatewayState, player: Uuid, sid: Uuid) -> Result<(), AppError> {
    let limits = store::binding_limits(&state.pool, player, LimitKind::Time).await?;
    let played = play::played(&state.pool, player, Some(sid)).await?;
    for (period, minutes) in &limits {
        let Some(minutes) = *minutes else { continue };
        let Some(window) = played.iter().find(|p| &p.period == period) else { continue };
        if window.seconds >= minutes.saturating_mul(60) {
            let context = serde_json::json!({
                "kind": "time", "period": period, "limit": minutes, "played": window.seconds / 60,
                "left": 0, "resets_at": window.frees_at,
            });
            return Err(AppError::unprocessable(
                codes::LIMIT_REACHED,
                format!("you have played your {period} time limit of {minutes} minutes"),
            )
            .with_context(context));
        }
    }
    Ok(())
}

/// Session `sid`'s game-session clock and figures.
pub(crate) async fn play_session(
    state: &GatewayState,
    sid: Uuid,
    player: Uuid,
) -> Result<PlaySession, AppError> {
    let clock = play::clock(&state.pool, sid, player)
        .await?
        .ok_or_else(|| AppError::bad_request(codes::NO_SESSION, "this token has no session"))?;
    let mut session = PlaySession {
        started_at: clock.play_started_at,
        played_seconds: 0,
        staked: 0,
        won: 0,
        net: 0,
        next_reality_check_at: clock.reality_check_at,
        interval_minutes: clock.interval_minutes,
    };
    if let (Some(started), Some(hour)) = (clock.play_started_at, clock.baseline_hour) {
        let wallet = load_player(state, player).await?.wallet_account_id;
        let since = state.ledger.activity_totals(wallet, hour).await?;
        session.played_seconds = (Utc::now() - started).num_seconds().max(0);
        session.staked = since.staked.saturating_sub(clock.baseline_staked.unwrap_or(0));
        session.won = since.won.saturating_sub(clock.baseline_won.unwrap_or(0));
        session.net = session.won.saturating_sub(session.staked);
    }
    Ok(session)
}

/// The player's answer to a reality check: go on (the next falls an interval from now) or stop
/// (the game session and every login of the player end). Answers the game session's figures.
pub(crate) async fn answer_reality_check(
    state: &GatewayState,
    caller: &Authenticated,
    decision: RealityCheckDecision,
) -> Result<PlaySession, AppError> {
    let player = caller.subject_id()?;
    let sid =
        caller.0.sid.ok_or_else(|| AppError::bad_request(codes::NO_SESSION, "this token has no session"))?;
    let session = play_session(state, sid, player).await?;
    match decision {
        RealityCheckDecision::Continue => play::acknowledge(&state.pool, sid, player).await?,
        // Stopping ends the game session and every login of the player, so none plays on.
        RealityCheckDecision::Stop => {
            let ending = play::Ending {
                ended_by: "reality_check_stop",
                staked_cents: session.staked,
                won_cents: session.won,
            };
            play::end(&state.pool, sid, ending).await?;
            end_sessions(state, &caller.0.sub, None, "reality_check").await?;
        }
    }
    Ok(session)
}

/// Sets the player's reality-check interval (15, 30 or 60 minutes).
pub(crate) async fn set_reality_check_interval(
    state: &GatewayState,
    player: Uuid,
    minutes: i32,
) -> Result<(), AppError> {
    if !REALITY_CHECK_MINUTES.contains(&minutes) {
        return Err(AppError::unprocessable(
            codes::INVALID_INTERVAL,
            "a reality check comes every 15, 30 or 60 minutes",
        ));
    }
    play::set_interval(&state.pool, player, minutes).await
}

/// How many idle game sessions one pass ends at most (the rest on the next).
const IDLE_SESSIONS_PER_PASS: i64 = 100;

/// Ends every game session gone idle (no stake and no request of its logins for the idle
/// timeout), recording what was staked and won in it; returns how many this call ended. Its
/// figures are the wallet's activity since the session's baseline, read when it is ended: a
/// player who comes back just past the timeout, before the pass, has the first stakes of the
/// new session counted in the old one's too (at most a pass's interval of play).
pub(crate) async fn end_idle_game_sessions(state: &GatewayState) -> Result<usize, AppError> {
    let idle = state.sessions.idle_timeout;
    let mut ended = 0;
    for session in play::idle(&state.pool, idle, IDLE_SESSIONS_PER_PASS).await? {
        let wallet = load_player(state, session.player_id).await?.wallet_account_id;
        let since = state.ledger.activity_totals(wallet, session.baseline_hour).await?;
        let ending = play::Ending {
            ended_by: "idle",
            staked_cents: since.staked.saturating_sub(session.baseline_staked),
            won_cents: since.won.saturating_sub(session.baseline_won),
        };
        if play::end_idle(&state.pool, &session, idle, ending).await? {
            ended += 1;
        }
    }
    Ok(ended)
}
