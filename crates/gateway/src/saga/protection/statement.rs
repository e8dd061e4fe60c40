//! The player's activity statement and wallet lines, from the figures the ledger counts the
//! limits with, in the operator's time zone.

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate, Utc};
use ledger_api::wire::{ActivityLine, Page, StatementEntry};
use platform::codes;
use platform::{AppError, PageParams};
use uuid::Uuid;

use crate::GatewayState;
use crate::saga::players::load_player;
use crate::views::protection::{
    DayTotals, GameTotals, Statement, StatementQuery, Totals, WalletEntriesQuery,
};

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
    let dollars = domain::money::decimal_dollars;
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
