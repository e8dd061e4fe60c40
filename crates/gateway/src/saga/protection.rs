//! Player protection (ADR 0014): the money limits a player sets on their own play, and those an
//! operator imposes. The ledger keeps them and refuses, in the statement that would debit it, a
//! stake that would pass one (`limit_reached`); here they are checked, routed and read. The
//! player's activity statement, from the figures the ledger counts the limits with. Breaks
//! (time-outs) and exclusions, which suspend play in the ledger (`play_suspended`).

use std::collections::BTreeMap;

use axum::http::Method;
use chrono::{DateTime, Days, Months, NaiveDate, Utc};
use ledger_api::wire::{
    ActivityLine, LimitChange, LimitPeriod, LimitSource, MoneyLimit, Page, StatementEntry, SuspensionReason,
};
use platform::codes;
use platform::{AppError, PageParams};
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, end_sessions};
use crate::saga::players::{
    LIMIT_RAISE_DELAY_HOURS, limits as deposit_limits, load_player, set_player_limit, the_player,
};
use crate::standing::PlayStanding;
use crate::store::play;
use crate::store::players::{self as store, LimitKind, PlayerRow};
use crate::views::players::{ExclusionPeriod, SelfExclusion};
use crate::views::protection::{
    DayTotals, GameTotals, Limits, MoneyLimitRequest, PlaySession, RealityCheckDecision, Statement,
    StatementQuery, TimeLimit, TimeLimitRequest, TimeOutPeriod, Totals, WalletEntriesQuery,
};

/// Every limit of `player`: deposits, money at stake and time played.
pub(crate) async fn limits(state: &GatewayState, player: Uuid) -> Result<Limits, AppError> {
    let wallet = load_player(state, player).await?.wallet_account_id;
    let money = state.ledger.limits(wallet).await?;
    limits_with(state, player, money).await
}

/// `player`'s limits with the money limits as the ledger answered them.
async fn limits_with(state: &GatewayState, player: Uuid, money: Vec<MoneyLimit>) -> Result<Limits, AppError> {
    Ok(Limits {
        deposit: deposit_limits(state, player).await?,
        money,
        time: time_limits(state, player).await?,
    })
}

/// `player`'s time limits with the minutes each window has used.
async fn time_limits(state: &GatewayState, player: Uuid) -> Result<Vec<TimeLimit>, AppError> {
    let rows = store::limits(&state.pool, player, LimitKind::Time).await?;
    let played = play::played(&state.pool, player, None).await?;
    Ok(LimitPeriod::ALL
        .into_iter()
        .map(|period| {
            let row = rows.iter().find(|r| r.period == period.as_str());
            let seconds = played.iter().find(|p| p.period == period.as_str()).map_or(0, |p| p.seconds);
            TimeLimit {
                period,
                minutes: row.and_then(|r| r.amount),
                played_minutes: seconds / 60,
                pending_minutes: row.and_then(|r| r.pending_amount),
                pending_removal: row.is_some_and(|r| r.pending_none),
                pending_from: row.and_then(|r| r.pending_from),
            }
        })
        .collect())
}

/// Sets one of the caller's time limits (a lowering at once, a raise or removal after 24
/// hours); answers every limit.
pub(crate) async fn set_time_limit(
    state: &GatewayState,
    player: Uuid,
    request: TimeLimitRequest,
) -> Result<Limits, AppError> {
    let longest = match request.period {
        LimitPeriod::Daily => 24 * 60,
        LimitPeriod::Weekly => 7 * 24 * 60,
        LimitPeriod::Monthly => 30 * 24 * 60,
    };
    if request.minutes.is_some_and(|m| !(1..=longest).contains(&m)) {
        return Err(AppError::unprocessable(
            codes::INVALID_TIME_LIMIT,
            format!("a {} time limit is 1 to {longest} minutes", request.period.as_str()),
        ));
    }
    set_player_limit(state, player, LimitKind::Time, request.period, request.minutes).await?;
    limits(state, player).await
}

/// Sets one of `player`'s money limits as `source`: the player's own (a lowering at once, a
/// raise or removal after [`LIMIT_RAISE_DELAY_HOURS`]) or the operator's (at once either way).
/// Answers every limit after the change (the ledger answers the money limits with it).
pub(crate) async fn set_money_limit(
    state: &GatewayState,
    player: Uuid,
    request: MoneyLimitRequest,
    source: LimitSource,
) -> Result<Limits, AppError> {
    let wallet = load_player(state, player).await?.wallet_account_id;
    let change = LimitChange {
        kind: request.kind,
        period: request.period,
        source,
        cents: request.amount,
        raise_delay_seconds: LIMIT_RAISE_DELAY_HOURS * 3600,
    };
    let money = state.ledger.set_limit(wallet, &change).await?;
    limits_with(state, player, money).await
}

/// The most days one statement covers (the ledger reads at most 366 after the first).
const MAX_STATEMENT_DAYS: u64 = 366;

/// The days a statement reads: `to` (today by default, in the operator's time zone) and `from`
/// (29 days before it by default), at most 366 days apart.
fn statement_days(
    state: &GatewayState,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Result<(NaiveDate, NaiveDate), AppError> {
    let today = Utc::now().with_timezone(&state.time_zone).date_naive();
    let to = to.unwrap_or(today);
    let from = from.unwrap_or_else(|| to - Days::new(29));
    if from > to || to > from + Days::new(MAX_STATEMENT_DAYS) {
        return Err(AppError::unprocessable(
            codes::INVALID_WINDOW,
            format!("`to` must be `from` or up to {MAX_STATEMENT_DAYS} days after it"),
        ));
    }
    Ok((from, to))
}

/// A page of `player`'s wallet transfers in the days `query` asks for (the last 30 by
/// default), newest first, each with the wallet's balance after it; read with the player's
/// own `token`, so the ledger checks the wallet is theirs.
pub(crate) async fn wallet_entries(
    state: &GatewayState,
    player: Uuid,
    token: &str,
    query: WalletEntriesQuery,
) -> Result<Page<StatementEntry>, AppError> {
    let (from, to) = statement_days(state, query.from, query.to)?;
    let page = PageParams::<i64>::new(query.after, query.limit);
    let (after, limit) = (page.after()?, page.limit()?);
    let wallet = load_player(state, player).await?.wallet_account_id;
    state.ledger.statement_as(token, wallet, (from, to, state.time_zone.name()), after, limit).await
}

/// `player`'s activity statement over the days `query` asks for (the last 30 by default), in
/// the operator's time zone, with today's, the last 7 days' and the last 30 days' totals.
pub(crate) async fn statement(
    state: &GatewayState,
    player: Uuid,
    query: &StatementQuery,
) -> Result<(Statement, Vec<ActivityLine>), AppError> {
    let zone = state.time_zone;
    let today = Utc::now().with_timezone(&zone).date_naive();
    let (from, to) = statement_days(state, query.from, query.to)?;
    let wallet = load_player(state, player).await?.wallet_account_id;
    let lines = state.ledger.activity(wallet, from, to, zone.name()).await?;
    let recent = state.ledger.activity(wallet, today - Days::new(29), today, zone.name()).await?;
    let within = |days: u64| {
        let first = today - Days::new(days - 1);
        recent.iter().filter(|l| l.date >= first).fold(Totals::default(), Totals::add)
    };
    let mut days: Vec<DayTotals> = Vec::new();
    let mut games: BTreeMap<&str, Totals> = BTreeMap::new();
    for line in &lines {
        match days.last_mut() {
            Some(day) if day.date == line.date => day.totals = day.totals.add(line),
            _ => days.push(DayTotals { date: line.date, totals: Totals::default().add(line) }),
        }
        if !line.game.is_empty() {
            let game = games.entry(line.game.as_str()).or_default();
            *game = game.add(line);
        }
    }
    let statement = Statement {
        time_zone: zone.name().to_owned(),
        from,
        to,
        totals: lines.iter().fold(Totals::default(), Totals::add),
        games: games.into_iter().map(|(game, totals)| GameTotals { game: game.to_owned(), totals }).collect(),
        days,
        today: within(1),
        last_7_days: within(7),
        last_30_days: within(30),
    };
    Ok((statement, lines))
}

/// A statement's lines as CSV: one row per day and game (the game empty for deposits and
/// withdrawals), amounts in dollars and cents, net = won less staked.
pub(crate) fn statement_csv(lines: &[ActivityLine]) -> String {
    let dollars = |cents: i64| {
        format!(
            "{}{}.{:02}",
            if cents < 0 { "-" } else { "" },
            cents.unsigned_abs() / 100,
            cents.unsigned_abs() % 100
        )
    };
    let mut csv = String::from("date,game,deposited,withdrawn,staked,won,net\r\n");
    for l in lines {
        let net = l.won.saturating_sub(l.staked);
        csv.push_str(&format!(
            "{},{},{},{},{},{},{}\r\n",
            l.date,
            l.game,
            dollars(l.deposited),
            dollars(l.withdrawn),
            dollars(l.staked),
            dollars(l.won),
            dollars(net)
        ));
    }
    csv
}

/// Puts the caller on a break of `period` (never shortening one in force), suspends their play
/// in the ledger, ends every one of their sessions and voids their tickets for future draws, at
/// once. Answers when the break ends.
pub(crate) async fn take_time_out(
    state: &GatewayState,
    player: Uuid,
    period: TimeOutPeriod,
) -> Result<DateTime<Utc>, AppError> {
    let until = Utc::now() + chrono::Duration::hours(period.hours());
    let until = store::break_until(&state.pool, player, until).await?;
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

/// The reality-check intervals a player may choose, in minutes (at least hourly).
const REALITY_CHECK_MINUTES: [i32; 3] = [15, 30, 60];

/// Before a player's stake passes to a game: joins the login to the player's game session
/// going on, or starts one at the first stake; once the game session's reality check is due
/// answers 409 `reality_check_due` with its time, staked, won and net until the player
/// acknowledges it (from any of their logins); refuses the stake (422 `limit_reached`, kind
/// `time`) when a time limit's window is used up; and carries the time played to now.
pub(crate) async fn before_stake(state: &GatewayState, caller: &Authenticated) -> Result<(), AppError> {
    // A token without a session (a service's, a test's) has no game session to time.
    let Some(sid) = caller.0.sid else { return Ok(()) };
    let player = caller.subject_id()?;
    let Some(mut clock) = play::clock(&state.pool, sid, player).await? else { return Ok(()) };
    if clock.game_session.is_none() {
        let idle = state.sessions.idle_timeout;
        if !play::join_or_start(&state.pool, sid, player, idle, None).await? {
            let wallet = load_player(state, player).await?.wallet_account_id;
            let hour = state.ledger.activity_totals(wallet, Utc::now()).await?;
            play::join_or_start(&state.pool, sid, player, idle, Some((hour.hour, hour.staked, hour.won)))
                .await?;
        }
        let Some(joined) = play::clock(&state.pool, sid, player).await? else { return Ok(()) };
        clock = joined;
    }
    reality_check_answered(state, sid, player, &clock).await?;
    if clock.time_limited {
        refuse_past_time_limit(state, player, sid).await?;
    }
    play::touch(&state.pool, sid).await
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
                    session.staked,
                    session.won
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
            play::end(&state.pool, sid).await?;
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

/// Excludes the caller for `period` or for good (never shortening an exclusion in force),
/// suspends their play, ends every one of their sessions and voids their tickets for future
/// draws, at once. Answers when the term ends (`None`: never).
pub(crate) async fn self_exclude(
    state: &GatewayState,
    caller: &Authenticated,
    period: ExclusionPeriod,
) -> Result<SelfExclusion, AppError> {
    let player = the_player(state, caller).await?;
    let answer = match period.months() {
        Some(months) => {
            let until = Utc::now()
                .checked_add_months(Months::new(months))
                .ok_or_else(|| AppError::internal("date overflow"))?;
            let until = store::exclude_until(&state.pool, player.id, until).await?;
            SelfExclusion { self_excluded_until: Some(until), permanent: player.excluded_permanently }
        }
        None => {
            store::exclude_permanently(&state.pool, player.id).await?;
            SelfExclusion { self_excluded_until: player.self_excluded_until, permanent: true }
        }
    };
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
    store::request_return(&state.pool, player.id).await?;
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
    store::close(&state.pool, player.id).await?;
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
    store::request_reopen(&state.pool, player.id).await?;
    sync_play(state, player.id).await
}
