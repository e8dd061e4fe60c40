//! Breaks, self-exclusion and closure, which suspend play in the ledger (`play_suspended`) and
//! void the player's tickets for future draws; the ledger kept in step with the player's standing.

use axum::http::Method;
use chrono::{DateTime, Months, Utc};
use ledger_api::wire::SuspensionReason;
use platform::AppError;
use platform::codes;
use platform::events::{self, Event, Kind};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, end_sessions};
use crate::saga::mail::{self, Letter};
use crate::saga::players::{load_player, the_player};
use crate::standing::PlayStanding;
use crate::store::players::{self as store, PlayerRow};
use crate::views::players::{ExclusionPeriod, SelfExclusion};
use crate::views::protection::TimeOutPeriod;

/// Puts the caller on a break of `period` (never shortening one in force), suspends their play
/// in the ledger, ends every one of their sessions and voids their tickets for future draws, at
/// once. Answers when the break ends.
pub(crate) async fn take_time_out(
    state: &GatewayState,
    player: Uuid,
    period: TimeOutPeriod,
) -> Result<DateTime<Utc>, AppError> {
    let until = Utc::now() + chrono::Duration::hours(period.hours());
    let email = load_player(state, player).await?.email;
    let mut tx = state.pool.begin().await?;
    let until = store::break_until(&mut tx, player, until).await?;
    let letter = Letter::break_taken(until, &state.protection.help_line);
    mail::write(state, &mut tx, &email, Some(player), &letter).await?;
    let taken =
        Standing { action: "break_taken", hours: Some(period.hours()), until: Some(until), permanent: false };
    events::record(&mut tx, crate::SCHEMA, &taken.event(Kind::Break, player)?).await?;
    tx.commit().await?;
    sync_play(state, player).await?;
    end_sessions(state, &player.to_string(), None, "time_out").await?;
    Ok(until)
}

/// Tells the ledger what the player's standing says (a suspension, or its end) and, once play is
/// suspended, has draw-games void and refund their tickets for draws not yet closed. The void is
/// asked for again by [`finish_pending_voids`] when draw-games could not answer. Answers the
/// standing.
pub(crate) async fn sync_play(state: &GatewayState, player: Uuid) -> Result<PlayStanding, AppError> {
    let row = store::get(&state.pool, player).await?.ok_or_else(|| {
        AppError::not_found(codes::PLAYER_NOT_FOUND, format!("player {player} does not exist"))
    })?;
    sync_row(state, &row).await
}

/// [`sync_play`] for the player row just read.
async fn sync_row(state: &GatewayState, row: &PlayerRow) -> Result<PlayStanding, AppError> {
    let (player, now) = (row.id, Utc::now());
    let standing = PlayStanding::of(row, now);
    state.ledger.suspend(row.wallet_account_id, &standing.suspension(now)).await?;
    if let (Some(since), Some(reason)) = (row.voids_pending_since, standing.reason) {
        match void_future_tickets(state, player, reason).await {
            Ok(()) => store::voids_done(&state.pool, player, since).await?,
            Err(e) => tracing::warn!(%player, error = %e, "voiding future tickets failed; will retry"),
        }
    }
    Ok(standing)
}

/// At a player's login, brings the ledger's suspension up to their standing when anything ever
/// suspended their play (an exclusion's end that waits for their request, a cooling-off that has
/// passed); a failure is logged, not the login's: the ledger still refuses what it was told to.
pub(crate) async fn sync_at_login(state: &GatewayState, player: Uuid) {
    let row = match store::get(&state.pool, player).await {
        Ok(Some(row)) if PlayStanding::ever_suspended(&row) => row,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!(%player, error = %e, "reading the player's standing at login failed");
            return;
        }
    };
    if let Err(e) = sync_row(state, &row).await {
        tracing::warn!(%player, error = %e, "bringing the ledger's suspension up to date at login failed");
    }
}

/// Has draw-games void `player`'s tickets for future draws and refund them (none to void
/// without a draw-games service).
async fn void_future_tickets(
    state: &GatewayState,
    player: Uuid,
    reason: SuspensionReason,
) -> Result<(), AppError> {
    let Some(draws) = &state.draws else { return Ok(()) };
    let path = format!("/v1/draws/players/{player}/void-future-tickets");
    let body = serde_json::json!({ "reason": reason.as_str() });
    draws
        .call::<_, serde_json::Value>(Method::POST, &path, &state.service_token()?, Some(&body), None)
        .await?;
    Ok(())
}

/// Asks again for the voids a suspension left waiting longer than `older_than` (draw-games was
/// away, or the process died); answers how many players' voids are done.
pub(crate) async fn finish_pending_voids(
    state: &GatewayState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    let pending = store::voids_pending(&state.pool, older_than).await?;
    each_player(&pending, |player| sync_play(state, player)).await?;
    Ok(pending.len())
}

/// Runs `step` for every player in turn, going on past one that fails (a player whose ledger
/// or draws call fails does not hold up the rest); answers the first failure, logged with the
/// others, once all were tried.
pub(crate) async fn each_player<F, Fut, T>(players: &[Uuid], mut step: F) -> Result<(), AppError>
where
    F: FnMut(Uuid) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    let mut first = None;
    for &player in players {
        if let Err(e) = step(player).await {
            tracing::warn!(%player, error = %e, "a player's standing could not be brought up to date; the next pass tries again");
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

/// Excludes the caller for `period` or for good (never shortening an exclusion in force),
/// suspends their play, ends every one of their sessions and voids their tickets for future
/// draws, at once. Answers when the term ends (`None`: never).
pub(crate) async fn self_exclude(
    state: &GatewayState,
    caller: &Authenticated,
    period: ExclusionPeriod,
) -> Result<SelfExclusion, AppError> {
    let player = the_player(state, caller).await?;
    let mut tx = state.pool.begin().await?;
    let answer = match period.months() {
        Some(months) => {
            let until = Utc::now()
                .checked_add_months(Months::new(months))
                .ok_or_else(|| AppError::internal("date overflow"))?;
            let until = store::exclude_until(&mut tx, player.id, until).await?;
            SelfExclusion { self_excluded_until: Some(until), permanent: player.excluded_permanently }
        }
        None => {
            store::exclude_permanently(&mut tx, player.id).await?;
            SelfExclusion { self_excluded_until: player.self_excluded_until, permanent: true }
        }
    };
    let until = if answer.permanent { None } else { answer.self_excluded_until };
    let letter = Letter::excluded(until, false, &state.protection.help_line);
    mail::write(state, &mut tx, &player.email, Some(player.id), &letter).await?;
    let excluded = Standing { action: "self_excluded", hours: None, until, permanent: answer.permanent };
    events::record(&mut tx, crate::SCHEMA, &excluded.event(Kind::Exclusion, player.id)?).await?;
    tx.commit().await?;
    sync_play(state, player.id).await?;
    end_sessions(state, &player.id.to_string(), None, "self_exclusion").await?;
    Ok(answer)
}

/// The caller asks to play again after their fixed-term self-exclusion ended: play resumes a
/// cooling-off later ([`crate::standing::COOLING_OFF_HOURS`]). Refused while the term runs (an
/// exclusion does not end early) and for a permanent one.
pub(crate) async fn request_return(
    state: &GatewayState,
    caller: &Authenticated,
) -> Result<PlayStanding, AppError> {
    let player = the_player(state, caller).await?;
    let now = Utc::now();
    if player.excluded_permanently {
        return Err(AppError::conflict(codes::EXCLUSION_IN_FORCE, "a permanent self-exclusion never ends"));
    }
    match player.self_excluded_until {
        None => return Err(AppError::conflict(codes::NOT_EXCLUDED, "you have not excluded yourself")),
        Some(end) if end > now => {
            return Err(AppError::conflict(
                codes::EXCLUSION_IN_FORCE,
                format!("your self-exclusion runs until {end}; it does not end early"),
            ));
        }
        Some(_) => {}
    }
    let mut tx = state.pool.begin().await?;
    store::request_return(&mut tx, player.id).await?;
    let asked = Standing { action: "return_requested", hours: None, until: None, permanent: false };
    events::record(&mut tx, crate::SCHEMA, &asked.event(Kind::Exclusion, player.id)?).await?;
    tx.commit().await?;
    sync_play(state, player.id).await
}

/// Closes the caller's account: no play or deposits from now, every session ended, tickets for
/// future draws voided and refunded; the balance stays theirs to withdraw (they may log in to do
/// so) and every record is kept. Reopening waits a cooling-off after they ask.
pub(crate) async fn close_account(
    state: &GatewayState,
    caller: &Authenticated,
) -> Result<PlayStanding, AppError> {
    let player = the_player(state, caller).await?;
    let mut tx = state.pool.begin().await?;
    store::close(&mut tx, player.id).await?;
    let letter = Letter::account_closed(&state.protection.help_line);
    mail::write(state, &mut tx, &player.email, Some(player.id), &letter).await?;
    let closed = Standing { action: "closed", hours: None, until: None, permanent: false };
    events::record(&mut tx, crate::SCHEMA, &closed.event(Kind::Closure, player.id)?).await?;
    tx.commit().await?;
    let standing = sync_play(state, player.id).await?;
    end_sessions(state, &player.id.to_string(), None, "closure").await?;
    Ok(standing)
}

/// The caller asks to reopen their closed account: play resumes a cooling-off later (or when
/// anything else holding it ends).
pub(crate) async fn request_reopen(
    state: &GatewayState,
    caller: &Authenticated,
) -> Result<PlayStanding, AppError> {
    let player = the_player(state, caller).await?;
    if player.closed_at.is_none() {
        return Err(AppError::conflict(codes::NOT_CLOSED, "the account is not closed"));
    }
    let mut tx = state.pool.begin().await?;
    store::request_reopen(&mut tx, player.id).await?;
    let asked = Standing { action: "reopen_requested", hours: None, until: None, permanent: false };
    events::record(&mut tx, crate::SCHEMA, &asked.event(Kind::Closure, player.id)?).await?;
    tx.commit().await?;
    sync_play(state, player.id).await
}

/// A change of a player's standing, as the significant-events log records it.
#[derive(Debug, serde::Serialize)]
struct Standing {
    /// `break_taken`, `self_excluded`, `return_requested`, `closed`, `reopen_requested`.
    action: &'static str,
    hours: Option<i64>,
    until: Option<DateTime<Utc>>,
    permanent: bool,
}

impl Standing {
    fn event(&self, kind: Kind, player: Uuid) -> Result<Event, AppError> {
        Ok(Event::new(kind, self)?.player(player))
    }
}
