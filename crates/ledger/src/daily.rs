//! The daily reports (issue 50 §Daily reports; N.J.A.C. 13:69O-1.9, 58 Pa. Code 811a.9): at the
//! end of each gaming day the ledger makes that day's report from its journal, once, and keeps it.
//!
//! **What a line counts.** Every posted move of the day names its game and its money (its
//! [`ledger_api::Purpose`]); the accounts it moves between say the rest. A line is a game through
//! a channel, the channel being the player's side of the move: a wallet is `online`, a
//! retailer's settlement account `retail`, the claim office's cash account `office`, and a move
//! between the game's own accounts `house` (a Powerball drawing's prizes made payable in one sum).
//! - *handle*: stakes from wallets and retailers; an instant game's, its packs' sales when they
//!   are settled (the ledger sees an instant ticket's sale only then); *plays* are the distinct
//!   tickets or rounds staked (an instant game's: its packs settled);
//! - *refunds* and *voids*: stakes given back to wallets and retailers, and their tickets/rounds;
//! - *prizes won*: prizes out of the game's house, escrow or pot accounts (a drawing's prizes
//!   made payable count when the drawing is settled, not again when claimed); an instant game's
//!   prizes when paid, their fund having been set aside at the print run;
//! - *prizes paid*: prizes to wallets, retailers and the office; *expired*: prizes taken back
//!   because nobody claimed them in time;
//! - *gross gaming revenue*: handle - refunds - prizes won.
//!
//! **Reconciliation.** Each player account that moved money in the day: the journal before the
//! day (the opening), the day's moves by kind, and the sum checked against what the ledger's
//! balance counters (a separate record, kept by the stored function) held at the close.
//!
//! **Once.** One maker at a time across replicas (an advisory lock), each day kept under its
//! date; a process down for days catches up every missed day, oldest first. A day is made once
//! it has been over for [`ReportSettings::grace`], so no transfer begun before the close commits
//! after the report was made.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{NaiveDate, SubsecRound, Utc};
use domain::reports::{AccountDay, GamingDays};
use ledger_api::daily::{AccountReconciliation, Channel, DailyReport, Figures, ReportLine};
use platform::AppError;
use platform::clock::Clock;
use platform::config::{ConfigError, env_or};
use sqlx::PgPool;
use uuid::Uuid;

use crate::store::daily::{self as store, MoveGroup, PlayCount};

/// The version of the rules above: a report keeps it, and it changes whenever they do.
pub const RULES_VERSION: i32 = 1;
/// The ledger's version, kept in each report.
pub const SOFTWARE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Player accounts reconciled per query.
const ACCOUNTS_PAGE: i64 = 2_000;
/// Missed days one round of the maker catches up (the next round goes on).
const CATCH_UP_PER_ROUND: usize = 62;

/// When gaming days end and when their reports are made.
#[derive(Debug, Clone)]
pub struct ReportSettings {
    /// `LOTTO_GAMING_DAY_ENDS_AT_HOUR` (0 to 23, central time; 6 by default: a night's late play
    /// stays in the day it began).
    pub days: GamingDays,
    /// `LOTTO_REPORT_GRACE_SECONDS` after the close before the day is made (120 by default).
    pub grace: chrono::Duration,
    /// How often the maker looks for days to make (`LOTTO_REPORT_EVERY_SECONDS`, 60).
    pub every: Duration,
    /// The clock a day is judged over by: the system's, as the database's that stamps the
    /// journal (a demonstration's `LOTTO_CLOCK_OFFSET_SECONDS` shifts the draws, never the books'
    /// days: a report kept early would miss the rest of its day); tests set a manual one.
    pub clock: Clock,
}

impl Default for ReportSettings {
    fn default() -> Self {
        ReportSettings {
            days: GamingDays::default(),
            grace: chrono::Duration::seconds(120),
            every: Duration::from_secs(60),
            clock: Clock::system(),
        }
    }
}

impl ReportSettings {
    pub fn from_env() -> Result<ReportSettings, ConfigError> {
        let hour: u32 = env_or("LOTTO_GAMING_DAY_ENDS_AT_HOUR", GamingDays::default().hour())?;
        let days = GamingDays::ending_at(hour).ok_or_else(|| ConfigError {
            name: "LOTTO_GAMING_DAY_ENDS_AT_HOUR",
            value: hour.to_string(),
            reason: "an hour of the day, 0 to 23".to_owned(),
        })?;
        let grace: u32 = env_or("LOTTO_REPORT_GRACE_SECONDS", 120)?;
        let every: u64 = env_or("LOTTO_REPORT_EVERY_SECONDS", 60)?;
        Ok(ReportSettings {
            days,
            grace: chrono::Duration::seconds(i64::from(grace)),
            every: Duration::from_secs(every.max(1)),
            clock: Clock::system(),
        })
    }

    /// The gaming day open now.
    pub fn today(&self) -> NaiveDate {
        self.days.day_of(self.clock.now())
    }

    /// Whether `day` is over and its grace passed: its report can be made and kept.
    pub fn is_final(&self, day: NaiveDate) -> bool {
        // (a date at the end of the calendar is never over)
        self.days.closes(day).checked_add_signed(self.grace).is_some_and(|made| made <= self.clock.now())
    }
}

/// The account kinds a player's money is on (the channel each stands for).
fn channel_of(kind: &str) -> Option<Channel> {
    match kind {
        "player_wallet" => Some(Channel::Online),
        "retailer_settlement" => Some(Channel::Retail),
        "cash_clearing" => Some(Channel::Office),
        _ => None,
    }
}

/// The game's own accounts, out of which prizes are won.
fn is_games_own(kind: &str) -> bool {
    matches!(kind, "house_revenue" | "game_escrow" | "progressive_pot")
}

/// The report's lines from the day's grouped moves and play counts (see the module).
pub fn lines(groups: &[MoveGroup], plays: &[PlayCount]) -> Vec<ReportLine> {
    let mut lines: BTreeMap<(String, Channel), Figures> = BTreeMap::new();
    for g in groups {
        let Some(game) = g.game.clone() else { continue };
        let channel = channel_of(&g.debit_kind).or_else(|| channel_of(&g.credit_kind)).unwrap_or(Channel::House);
        let instant = game.starts_with("instant-");
        let f = lines.entry((game, channel)).or_default();
        let to_player = channel_of(&g.credit_kind).is_some();
        match g.money.as_deref() {
            Some("stake") if channel_of(&g.debit_kind).is_some() => f.handle = f.handle.saturating_add(g.amount),
            Some("pack_settlement") => {
                f.handle = f.handle.saturating_add(g.sales);
                f.plays = f.plays.saturating_add(g.moves);
            }
            Some("refund") if to_player => f.refunds = f.refunds.saturating_add(g.amount),
            Some("prize") if g.expired => f.prizes_expired = f.prizes_expired.saturating_add(g.amount),
            Some("prize") => {
                if is_games_own(&g.debit_kind) || (instant && g.debit_kind == "prize_liability") {
                    f.prizes_won = f.prizes_won.saturating_add(g.amount);
                }
                if to_player {
                    f.prizes_paid = f.prizes_paid.saturating_add(g.amount);
                }
            }
            _ => {}
        }
    }
    for p in plays {
        let (Some(game), Some(channel)) = (p.game.clone(), channel_of(&p.player_side_kind)) else { continue };
        let f = lines.entry((game, channel)).or_default();
        match p.money.as_deref() {
            Some("stake") => f.plays = f.plays.saturating_add(p.plays),
            Some("refund") => f.voids = f.voids.saturating_add(p.plays),
            _ => {}
        }
    }
    lines
        .into_iter()
        .filter(|(_, f)| *f != Figures::default())
        .map(|((game, channel), figures)| {
            ReportLine { game, channel, figures: figures.with_revenue() }
        })
        .collect()
}

/// Makes `day`'s report from the journal. Kept (with its accounts, in one transaction) when
/// `keep`; when another maker kept it first, that one is answered (and false: not made now).
async fn make(
    pool: &PgPool,
    settings: &ReportSettings,
    day: NaiveDate,
    keep: bool,
) -> Result<(DailyReport, bool), AppError> {
    let (opens, closes) = (settings.days.opens(day), settings.days.closes(day));
    let mut tx = pool.begin().await?;
    if keep {
        store::lock_makers(&mut tx).await?;
        if let Some(kept) = store::report(&mut tx, day).await? {
            return Ok((kept, false));
        }
    }
    let groups = store::move_groups(&mut tx, opens, closes).await?;
    let plays = store::play_counts(&mut tx, opens, closes).await?;
    let lines = lines(&groups, &plays);
    let liabilities = store::liabilities(&mut tx, closes).await?;
    let (mut active, mut unreconciled) = (0i64, 0i64);
    let mut after = Uuid::nil();
    loop {
        let page = store::account_moves(&mut tx, opens, closes, after, ACCOUNTS_PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.account_id;
        let reconciled: Vec<AccountReconciliation> = page.into_iter().map(reconcile).collect();
        active = active.saturating_add(i64::try_from(reconciled.len()).unwrap_or(i64::MAX));
        let bad = reconciled.iter().filter(|a| !a.reconciled).count();
        unreconciled = unreconciled.saturating_add(i64::try_from(bad).unwrap_or(i64::MAX));
        if keep {
            store::insert_accounts(&mut tx, day, &reconciled).await?;
        }
    }
    let report = DailyReport {
        gaming_day: day,
        opens_at: opens,
        closes_at: closes,
        provisional: !keep,
        // as the database keeps it (to the microsecond), so a report read back is the one made
        made_at: Utc::now().trunc_subsecs(6),
        software_version: SOFTWARE_VERSION.to_owned(),
        rules_version: RULES_VERSION,
        no_activity: groups.is_empty(),
        totals: Figures::total(&lines),
        lines,
        liabilities,
        accounts_active: active,
        accounts_unreconciled: unreconciled,
    };
    if keep {
        store::insert_report(&mut tx, &report).await?;
        tx.commit().await?;
        if unreconciled > 0 {
            tracing::error!(%day, unreconciled, "the day's report found player accounts that do not reconcile");
        }
    }
    Ok((report, keep))
}

/// An account's day, reconciled (the arithmetic is the domain's).
fn reconcile(m: store::AccountMoves) -> AccountReconciliation {
    let day = AccountDay {
        opening: m.opening,
        deposits: m.deposits,
        withdrawals: m.withdrawals,
        stakes: m.stakes,
        prizes: m.prizes,
        refunds: m.refunds,
        adjustments: m.adjustments,
        other: m.other,
    };
    AccountReconciliation {
        account_id: m.account_id,
        owner: m.owner,
        opening: m.opening,
        deposits: m.deposits,
        withdrawals: m.withdrawals,
        stakes: m.stakes,
        prizes: m.prizes,
        refunds: m.refunds,
        adjustments: m.adjustments,
        other: m.other,
        closing: day.closing(),
        ledger_closing: m.ledger_closing,
        reconciled: day.reconciles_with(m.ledger_closing),
    }
}

/// A page of the open day's accounts so far, after `after` (only the unreconciled when asked:
/// read on until the page is full or the day's accounts end).
pub async fn accounts_so_far(
    pool: &PgPool,
    settings: &ReportSettings,
    day: NaiveDate,
    mut after: Uuid,
    limit: i64,
    unreconciled_only: bool,
) -> Result<Vec<AccountReconciliation>, AppError> {
    let (opens, closes) = (settings.days.opens(day), settings.days.closes(day));
    let wanted = usize::try_from(limit).unwrap_or(0);
    let mut conn = pool.acquire().await?;
    let mut found = Vec::new();
    loop {
        let page = store::account_moves(&mut conn, opens, closes, after, limit).await?;
        let Some(last) = page.last() else { break };
        after = last.account_id;
        let read = page.len();
        found.extend(page.into_iter().map(reconcile).filter(|a| !unreconciled_only || !a.reconciled));
        if found.len() >= wanted || read < wanted {
            break;
        }
    }
    found.truncate(wanted);
    Ok(found)
}

/// What a day's report is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayStanding {
    /// Not begun.
    Future,
    /// Open, or over but within its grace: a provisional report.
    Open,
    /// Over: its report is kept (made now when it is not yet).
    Final,
}

pub fn standing(settings: &ReportSettings, day: NaiveDate) -> DayStanding {
    if settings.is_final(day) {
        DayStanding::Final
    } else if day > settings.today() {
        DayStanding::Future
    } else {
        DayStanding::Open
    }
}

/// `day`'s report: kept (made now if the maker has not yet), or provisional for a day not over.
/// None for a future day, or a day before the journal's first move (no report is kept for it).
pub async fn report(pool: &PgPool, settings: &ReportSettings, day: NaiveDate) -> Result<Option<DailyReport>, AppError> {
    match standing(settings, day) {
        DayStanding::Future => Ok(None),
        DayStanding::Open => Ok(Some(make(pool, settings, day, false).await?.0)),
        DayStanding::Final => {
            if let Some(kept) = store::report(&mut *pool.acquire().await?, day).await? {
                return Ok(Some(kept));
            }
            let (first_move, _) = store::report_bounds(pool).await?;
            match first_move {
                Some(first) if settings.days.day_of(first) <= day => Ok(Some(make(pool, settings, day, true).await?.0)),
                _ => Ok(None),
            }
        }
    }
}

/// Makes every day that is over and has no report, oldest first, from the journal's first day
/// (at most [`CATCH_UP_PER_ROUND`] a call). Answers the days this call made (not those another
/// maker made meanwhile).
pub async fn make_due(pool: &PgPool, settings: &ReportSettings) -> Result<Vec<NaiveDate>, AppError> {
    let (first_move, last_day) = store::report_bounds(pool).await?;
    let Some(first_move) = first_move else { return Ok(Vec::new()) };
    let mut next = match last_day {
        Some(last) => last.succ_opt().unwrap_or(last),
        None => settings.days.day_of(first_move),
    };
    let mut made = Vec::new();
    for _ in 0..CATCH_UP_PER_ROUND {
        if !settings.is_final(next) {
            break;
        }
        if make(pool, settings, next, true).await?.1 {
            made.push(next);
        }
        let Some(following) = next.succ_opt() else { break };
        next = following;
    }
    // The close of the latest day kept, for the alert that pages when a day goes unreported.
    if let Some(kept) = made.last().copied().or(last_day) {
        #[allow(clippy::cast_precision_loss)] // seconds since 1970
        let closed = settings.days.closes(kept).timestamp() as f64;
        metrics::gauge!(platform::metrics::DAILY_REPORT_LAST_CLOSE).set(closed);
    }
    Ok(made)
}

/// Runs [`make_due`] every [`ReportSettings::every`] until the process ends.
pub fn spawn_report_maker(pool: PgPool, settings: ReportSettings) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(settings.every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match make_due(&pool, &settings).await {
                Ok(made) if made.is_empty() => {}
                Ok(made) => tracing::info!(days = made.len(), first = ?made.first(), "daily reports made"),
                Err(e) => tracing::warn!(error = %e, "making the daily reports failed; will retry"),
            }
        }
    })
}
