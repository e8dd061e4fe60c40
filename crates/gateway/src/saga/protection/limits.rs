//! The money limits a player sets on their own play and those an operator imposes (the ledger
//! keeps them and refuses, in the statement that would debit it, a stake that would pass one),
//! and the time limits on minutes played.

use ledger_api::wire::{LimitChange, LimitPeriod, LimitSource, MoneyLimit, MoneyLimitKind};
use platform::AppError;
use platform::codes;
use uuid::Uuid;

use crate::GatewayState;
use crate::saga::mail::{self, Letter};
use crate::saga::players::{
    LIMIT_RAISE_DELAY_HOURS, limits as deposit_limits, load_player, set_player_limit,
};
use crate::store::play;
use crate::store::players::{self as store, LimitKind};
use crate::views::protection::{ImposedLimitRequest, Limits, MoneyLimitRequest, TimeLimit, TimeLimitRequest};

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
    let words = match request.minutes {
        Some(minutes) => format!("a {} time limit of {minutes} minutes", request.period.as_str()),
        None => format!("no {} time limit", request.period.as_str()),
    };
    let email = load_player(state, player).await?.email;
    mail::tell(state, player, &email, &Letter::limit_changed(&words, false, &state.protection.help_line))
        .await?;
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
    let found = load_player(state, player).await?;
    let wallet = found.wallet_account_id;
    let change = LimitChange {
        kind: request.kind,
        period: request.period,
        source,
        cents: request.amount,
        raise_delay_seconds: LIMIT_RAISE_DELAY_HOURS * 3600,
    };
    let money = state.ledger.set_limit(wallet, &change).await?;
    let words = money_limit_words(request.kind, request.period, request.amount);
    let letter = Letter::limit_changed(&words, source == LimitSource::Operator, &state.protection.help_line);
    mail::tell(state, player, &found.email, &letter).await?;
    limits_with(state, player, money).await
}

/// A money limit in words: "a daily loss limit of $3.00", "no single-stake limit".
fn money_limit_words(kind: MoneyLimitKind, period: Option<LimitPeriod>, cents: Option<i64>) -> String {
    let kind = match kind {
        MoneyLimitKind::Loss => "loss",
        MoneyLimitKind::Wager => "wager",
        MoneyLimitKind::SingleStake => "single-stake",
    };
    let period = period.map_or(String::new(), |p| format!("{} ", p.as_str()));
    match cents {
        Some(cents) => format!("a {period}{kind} limit of {}", domain::money::dollars(cents)),
        None => format!("no {period}{kind} limit"),
    }
}

/// Operator `staff` imposes a money limit on `player`, or lowers the one imposed, saying why
/// (issue 49 §Staff): an operator's change may only lower, so a limit of this kind and period
/// the operator set already must be above the new amount (`limit_may_only_lower`), and none is
/// lifted this way. The player's own limits stay; the lower binds. Recorded as a staff action
/// once the ledger holds it. Two operators lowering at once both lower: whichever lands last
/// stands, below what either read.
pub(crate) async fn impose_money_limit(
    state: &GatewayState,
    staff: &str,
    player: Uuid,
    request: ImposedLimitRequest,
) -> Result<Limits, AppError> {
    let reason = crate::saga::staff::required_reason(&request.reason)?;
    let found = load_player(state, player).await?;
    let wallet = found.wallet_account_id;
    let now = state.ledger.limits(wallet).await?;
    let imposed = now
        .iter()
        .find(|l| l.kind == request.kind && l.period == request.period && l.source == LimitSource::Operator)
        .and_then(|l| l.cents);
    if let Some(cents) = imposed
        && request.amount >= cents
    {
        return Err(AppError::conflict(
            codes::LIMIT_MAY_ONLY_LOWER,
            format!(
                "an operator may only lower a limit: this one is {}; ask for less",
                domain::money::dollars(cents)
            ),
        ));
    }
    let change = LimitChange {
        kind: request.kind,
        period: request.period,
        source: LimitSource::Operator,
        cents: Some(request.amount),
        raise_delay_seconds: LIMIT_RAISE_DELAY_HOURS * 3600,
    };
    let money = state.ledger.set_limit(wallet, &change).await?;
    let what = serde_json::json!({"kind": request.kind, "period": request.period});
    let action = crate::store::staff::StaffAction {
        staff,
        action: "limit.impose",
        subject: format!("player:{player}"),
        before: serde_json::json!({"limit": what, "cents": imposed}),
        after: serde_json::json!({"limit": what, "cents": request.amount}),
        reason,
    };
    {
        // Given back before the limits are read (a pool of one must not wait on itself).
        let mut conn = state.pool.acquire().await?;
        crate::store::staff::record_action(&mut conn, &action).await?;
    }
    let words = money_limit_words(request.kind, request.period, Some(request.amount));
    let letter = Letter::limit_changed(&words, true, &state.protection.help_line);
    mail::tell(state, player, &found.email, &letter).await?;
    limits_with(state, player, money).await
}
