//! The daily report's wire types (issue 50 §Daily reports): what `GET /v1/reports/daily...`
//! answers. What each figure counts is the ledger's `daily` module's to say (and the README's).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::AccountKind;

/// Where the money of a line met its player.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// A player's wallet: play on the web and the apps.
    Online,
    /// A retailer's counter.
    Retail,
    /// The lottery's claim office.
    Office,
    /// The game's own accounts, no player's: a drawing's prizes made payable in one sum.
    House,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Online => "online",
            Channel::Retail => "retail",
            Channel::Office => "office",
            Channel::House => "house",
        }
    }
}

/// A line's (or a day's) figures. Amounts in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Figures {
    /// Tickets or rounds staked (an instant game's: its packs settled).
    pub plays: i64,
    /// What was staked (an instant game's: its settled packs' sales).
    pub handle: i64,
    /// Stakes given back.
    pub refunds: i64,
    /// Tickets or rounds whose stakes were given back.
    pub voids: i64,
    /// Prizes the day's play won.
    pub prizes_won: i64,
    /// Prizes paid to players, retailers and the office.
    pub prizes_paid: i64,
    /// Prizes nobody claimed in time, taken back.
    pub prizes_expired: i64,
    /// `handle - refunds - prizes_won`.
    pub gross_gaming_revenue: i64,
}

impl Figures {
    /// The figures with their revenue worked out (`handle - refunds - prizes_won`).
    pub fn with_revenue(self) -> Figures {
        let takings = domain::reports::Takings {
            handle: self.handle,
            refunds: self.refunds,
            prizes_won: self.prizes_won,
        };
        Figures { gross_gaming_revenue: takings.gross_gaming_revenue(), ..self }
    }

    /// The lines summed.
    pub fn total(lines: &[ReportLine]) -> Figures {
        let mut sum = Figures::default();
        for line in lines {
            let f = &line.figures;
            sum.plays = sum.plays.saturating_add(f.plays);
            sum.handle = sum.handle.saturating_add(f.handle);
            sum.refunds = sum.refunds.saturating_add(f.refunds);
            sum.voids = sum.voids.saturating_add(f.voids);
            sum.prizes_won = sum.prizes_won.saturating_add(f.prizes_won);
            sum.prizes_paid = sum.prizes_paid.saturating_add(f.prizes_paid);
            sum.prizes_expired = sum.prizes_expired.saturating_add(f.prizes_expired);
        }
        sum.with_revenue()
    }
}

/// One game through one channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReportLine {
    /// The game as the journal names it (`castle_keno`, `instant-283`).
    pub game: String,
    pub channel: Channel,
    pub figures: Figures,
}

/// A progressive pot's or a prize liability's balance at the day's close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Liability {
    pub account_id: Uuid,
    pub owner: String,
    pub kind: AccountKind,
    pub balance: i64,
}

/// `GET /v1/reports/daily/{day}`: a gaming day's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DailyReport {
    pub gaming_day: NaiveDate,
    pub opens_at: DateTime<Utc>,
    pub closes_at: DateTime<Utc>,
    /// True for the day still open: figures so far, made now and kept nowhere.
    pub provisional: bool,
    pub made_at: DateTime<Utc>,
    /// The ledger's version that made it, and the version of the rules that read the journal.
    pub software_version: String,
    pub rules_version: i32,
    /// No money moved in the day.
    pub no_activity: bool,
    pub lines: Vec<ReportLine>,
    /// The lines summed.
    pub totals: Figures,
    pub liabilities: Vec<Liability>,
    /// Player accounts that moved money in the day, each reconciled.
    pub accounts_active: i64,
    /// Those whose day does not reconcile (none, when the books are right).
    pub accounts_unreconciled: i64,
}

/// A day in `GET /v1/reports/daily`: its totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DailySummary {
    pub gaming_day: NaiveDate,
    pub provisional: bool,
    pub no_activity: bool,
    pub totals: Figures,
    pub accounts_active: i64,
    pub accounts_unreconciled: i64,
}

/// `GET /v1/reports/daily`: the days of a range that have a report, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DailySummaries {
    pub days: Vec<DailySummary>,
    /// The gaming day now open (its figures are provisional).
    pub today: NaiveDate,
}

/// A player account's day: opening + deposits - withdrawals - stakes + prizes + refunds +/-
/// adjustments (+/- other) = closing, and the ledger's own balance at the close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AccountReconciliation {
    pub account_id: Uuid,
    pub owner: String,
    pub opening: i64,
    pub deposits: i64,
    pub withdrawals: i64,
    pub stakes: i64,
    pub prizes: i64,
    pub refunds: i64,
    /// Signed: credits less debits.
    pub adjustments: i64,
    /// Signed: money that names none of the kinds above (never, when every service names it).
    pub other: i64,
    pub closing: i64,
    /// The balance the ledger's counters held at the close.
    pub ledger_closing: i64,
    pub reconciled: bool,
}

/// `GET /v1/reports/daily/{day}/accounts`: a page of the day's reconciliation, by account id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ReconciliationPage {
    pub items: Vec<AccountReconciliation>,
    /// Where the next page starts (`after`); none on the last.
    pub next: Option<Uuid>,
}
