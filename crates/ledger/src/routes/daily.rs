//! The daily reports' handlers (issue 50): a range of days' totals, a day's report (JSON or CSV),
//! and a day's reconciliation of every player account that moved money.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use platform::auth::Caller;
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, Json, PageParams, Path, Query};
use serde::Deserialize;
use uuid::Uuid;

use super::READERS;
use crate::LedgerState;
use crate::daily::{self, DayStanding};
use crate::model::Page;
use crate::model::daily::{AccountReconciliation, DailyReport, DailySummaries};
use crate::store;

/// The most days one listing covers.
const MAX_RANGE_DAYS: i64 = 366;

/// `GET /v1/reports/daily`: which days.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DailyRange {
    /// The first gaming day (inclusive), `YYYY-MM-DD`; 30 days before `to` by default.
    from: Option<NaiveDate>,
    /// The last (inclusive), at most 366 days after `from`; the day now open by default.
    to: Option<NaiveDate>,
}

/// `GET /v1/reports/daily?from=&to=`: the kept reports of a range of gaming days, oldest first,
/// with their totals (a day over but not made yet is made within the maker's next round, or
/// when it is read).
#[utoipa::path(
    get, path = "/v1/reports/daily", tag = "ledger", params(DailyRange),
    responses((status = 200, description = "the kept reports' totals, oldest first", body = DailySummaries), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn daily_reports(
    State(state): State<LedgerState>,
    caller: Caller,
    Query(range): Query<DailyRange>,
) -> Result<Json<DailySummaries>, AppError> {
    caller.require(READERS)?;
    let today = state.reports.today();
    let to = range.to.unwrap_or(today);
    let from = range.from.unwrap_or_else(|| to.checked_sub_days(chrono::Days::new(30)).unwrap_or(to));
    if !(0..MAX_RANGE_DAYS).contains(&(to - from).num_days()) {
        return Err(AppError::unprocessable(
            codes::INVALID_WINDOW,
            format!("`to` must be `from` or up to {} days after it", MAX_RANGE_DAYS - 1),
        ));
    }
    let days = store::daily::summaries(&state.pool, from, to).await?;
    Ok(Json(DailySummaries { days, today }))
}

/// A day's report as what.
#[derive(Debug, Clone, Copy, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    #[default]
    Json,
    /// One row per game and channel, then the day's totals (`game` `total`), amounts in dollars.
    Csv,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// `json` (the default) or `csv`.
    format: Option<ReportFormat>,
}

/// The report of `day`, or why there is none.
async fn day_report(state: &LedgerState, day: NaiveDate) -> Result<DailyReport, AppError> {
    if daily::standing(&state.reports, day) == DayStanding::Future {
        return Err(AppError::conflict(
            codes::REPORT_DAY_NOT_BEGUN,
            format!("the gaming day {day} has not begun (today is {})", state.reports.today()),
        ));
    }
    daily::report(&state.pool, &state.reports, day).await?.ok_or_else(|| {
        AppError::not_found(codes::REPORT_NOT_FOUND, format!("the journal has no move on or before {day}: no report"))
    })
}

/// `GET /v1/reports/daily/{day}?format=json|csv`: a gaming day's report. A day over is kept (made
/// now if the maker has not made it yet) and never made again; the day now open answers its
/// figures so far, `provisional`; a day not begun is refused.
#[utoipa::path(
    get, path = "/v1/reports/daily/{day}", tag = "ledger",
    params(("day" = NaiveDate, Path, description = "the gaming day, `YYYY-MM-DD`"), ReportQuery),
    responses(
        (status = 200, description = "the day's report", content((DailyReport = "application/json"), (String = "text/csv"))),
        (status = "4XX", response = Refused)
    ),
    security(("bearer" = []))
)]
pub async fn daily_report(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(day): Path<NaiveDate>,
    Query(query): Query<ReportQuery>,
) -> Result<Response, AppError> {
    caller.require(READERS)?;
    let report = day_report(&state, day).await?;
    Ok(match query.format.unwrap_or_default() {
        ReportFormat::Json => Json(report).into_response(),
        ReportFormat::Csv => {
            let kind = if report.provisional { "provisional-" } else { "" };
            let file = format!("attachment; filename=\"daily-report-{kind}{day}.csv\"");
            ([(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()), (header::CONTENT_DISPOSITION, file)], csv(&report))
                .into_response()
        }
    })
}

/// The report's lines as CSV: `gaming_day,game,channel,plays,handle,refunds,voids,prizes_won,
/// prizes_paid,prizes_expired,gross_gaming_revenue`, then the totals (game `total`).
fn csv(report: &DailyReport) -> String {
    let dollars = domain::money::decimal_dollars;
    let mut out = String::from(
        "gaming_day,game,channel,plays,handle,refunds,voids,prizes_won,prizes_paid,prizes_expired,gross_gaming_revenue\r\n",
    );
    let totals = ("total".to_owned(), "", &report.totals);
    let rows = report.lines.iter().map(|l| (l.game.clone(), l.channel.as_str(), &l.figures)).chain([totals]);
    for (game, channel, f) in rows {
        out.push_str(&format!(
            "{},{game},{channel},{},{},{},{},{},{},{},{}\r\n",
            report.gaming_day,
            f.plays,
            dollars(f.handle),
            dollars(f.refunds),
            f.voids,
            dollars(f.prizes_won),
            dollars(f.prizes_paid),
            dollars(f.prizes_expired),
            dollars(f.gross_gaming_revenue)
        ));
    }
    out
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AccountsQuery {
    /// Only the accounts whose day does not reconcile.
    unreconciled: Option<bool>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<Uuid>)]
    after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<i64>,
}

/// `GET /v1/reports/daily/{day}/accounts`: the day's reconciliation of each player account that
/// moved money, by account id (the day now open: so far).
#[utoipa::path(
    get, path = "/v1/reports/daily/{day}/accounts", tag = "ledger",
    params(("day" = NaiveDate, Path, description = "the gaming day, `YYYY-MM-DD`"), AccountsQuery),
    responses((status = 200, description = "a page of the day's accounts, reconciled", body = Page<AccountReconciliation>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn daily_accounts(
    State(state): State<LedgerState>,
    caller: Caller,
    Path(day): Path<NaiveDate>,
    Query(query): Query<AccountsQuery>,
) -> Result<Json<Page<AccountReconciliation>>, AppError> {
    caller.require(READERS)?;
    let page = PageParams::<Uuid>::new(query.after, query.limit);
    let (limit, after) = (page.limit()?, page.after()?.unwrap_or(Uuid::nil()));
    let report = day_report(&state, day).await?;
    let unreconciled = query.unreconciled.unwrap_or(false);
    let items = if report.provisional {
        daily::accounts_so_far(&state.pool, &state.reports, day, after, limit, unreconciled).await?
    } else {
        store::daily::kept_accounts(&state.pool, day, after, limit, unreconciled).await?
    };
    let next = page.next_cursor(items.len(), items.last().map(|a| a.account_id));
    Ok(Json(Page { items, next }))
}
