//! Player protection (ADR 0014): the money limits a player sets on their own play, and those an
//! operator imposes. The ledger keeps them and refuses, in the statement that would debit it, a
//! stake that would pass one (`limit_reached`); here they are checked, routed and read. The
//! player's activity statement, from the figures the ledger counts the limits with. Breaks
//! (time-outs) and exclusions, which suspend play in the ledger (`play_suspended`).

use std::collections::BTreeMap;

use chrono::{DateTime, Days, Months, Utc};
use ledger_api::wire::{ActivityLine, LimitChange, LimitSource, Suspension, SuspensionReason};
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::GatewayState;
use crate::auth::{Authenticated, end_sessions};
use crate::saga::players::{LIMIT_RAISE_DELAY_HOURS, limits as deposit_limits, load_player, the_player};
use crate::store::play;
use crate::store::players as store;
use crate::views::players::ExclusionPeriod;
use crate::views::protection::{
    DayTotals, GameTotals, Limits, MoneyLimitRequest, PlaySession, RealityCheckDecision, Statement,
    StatementQuery, TimeOutPeriod, Totals,
};

/// Every limit of `player`: deposits and money at stake.
pub(crate) async fn limits(state: &GatewayState, player: Uuid) -> Result<Limits, AppError> {
    let wallet = load_player(state, player).await?.wallet_account_id;
    let deposit = deposit_limits(state, player).await?;
    let money = state.ledger.limits(wallet).await?;
    Ok(Limits { deposit, money })
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
    Ok(Limits { deposit: deposit_limits(state, player).await?, money })
}

/// The most days one statement covers (the ledger reads at most 366 after the first).
const MAX_STATEMENT_DAYS: u64 = 366;

/// `player`'s activity statement over the days `query` asks for (the last 30 by default), in
/// the operator's time zone, with today's, the last 7 days' and the last 30 days' totals.
pub(crate) async fn statement(
    state: &GatewayState,
    player: Uuid,
    query: &StatementQuery,
) -> Result<(Statement, Vec<ActivityLine>), AppError> {
    let zone = state.time_zone;
    let today = Utc::now().with_timezone(&zone).date_naive();
    let to = query.to.unwrap_or(today);
    let from = query.from.unwrap_or_else(|| to - Days::new(29));
    if from > to || to > from + Days::new(MAX_STATEMENT_DAYS) {
        return Err(AppError::unprocessable(
            codes::INVALID_WINDOW,
            format!("`to` must be `from` or up to {MAX_STATEMENT_DAYS} days after it"),
        ));
    }
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
/// in the ledger and ends every one of their sessions at once. Answers when the break ends.
pub(crate) async fn take_time_out(
    state: &GatewayState,
    player: Uuid,
    period: TimeOutPeriod,
) -> Result<DateTime<Utc>, AppError> {
    let until = Utc::now() + chrono::Duration::hours(period.hours());
    let until = store::break_until(&state.pool, player, until).await?;
    suspend_play(state, player).await?;
    end_sessions(state, &player.to_string(), None, "time_out").await?;
    Ok(until)
}

/// Tells the ledger to take no stake from `player`'s wallet until their break or exclusion ends,
/// whichever is later (the ledger refuses a stake in flight too: `play_suspended`).
pub(crate) async fn suspend_play(state: &GatewayState, player: Uuid) -> Result<(), AppError> {
    let row = load_player(state, player).await?;
    let now = Utc::now();
    let exclusion =
        row.self_excluded_until.filter(|u| *u > now).map(|u| (u, SuspensionReason::SelfExclusion));
    let time_out = row.on_break_until.filter(|u| *u > now).map(|u| (u, SuspensionReason::TimeOut));
    let Some((until, reason)) = exclusion.into_iter().chain(time_out).max_by_key(|(u, _)| *u) else {
        return Ok(());
    };
    state.ledger.suspend(row.wallet_account_id, &Suspension { until: Some(until), reason }).await
}

/// The reality-check intervals a player may choose, in minutes (at least hourly).
const REALITY_CHECK_MINUTES: [i32; 3] = [15, 30, 60];

/// Before a player's stake passes to a game: starts the game session's clock at the first stake
/// of the login, and once the reality check is due answers 409 `reality_check_due` with the
/// session's time, staked, won and net until the player acknowledges it.
pub(crate) async fn before_stake(state: &GatewayState, caller: &Authenticated) -> Result<(), AppError> {
    // A token without a session (a service's, a test's) has no game session to time.
    let Some(sid) = caller.0.sid else { return Ok(()) };
    let player = caller.subject_id()?;
    let Some(clock) = play::clock(&state.pool, sid, player).await? else { return Ok(()) };
    match clock.reality_check_at {
        None => {
            let wallet = load_player(state, player).await?.wallet_account_id;
            let hour = state.ledger.activity_totals(wallet, Utc::now()).await?;
            play::start(&state.pool, sid, player, (hour.hour, hour.staked, hour.won)).await
        }
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
        Some(_) => Ok(()),
    }
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
/// (the session ends). Answers the session's figures.
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
        RealityCheckDecision::Stop => end_sessions(state, &caller.0.sub, Some(sid), "reality_check").await?,
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

/// Excludes the caller for `period` (never shortening an exclusion in force) and ends every
/// one of their sessions at once. Answers when the exclusion ends.
pub(crate) async fn self_exclude(
    state: &GatewayState,
    caller: &Authenticated,
    period: ExclusionPeriod,
) -> Result<DateTime<Utc>, AppError> {
    let player = the_player(state, caller).await?;
    let until = Utc::now()
        .checked_add_months(Months::new(period.months()))
        .ok_or_else(|| AppError::internal("date overflow"))?;
    let until = store::exclude_until(&state.pool, player.id, until).await?;
    suspend_play(state, player.id).await?;
    end_sessions(state, &player.id.to_string(), None, "self_exclusion").await?;
    Ok(until)
}
