//! The daily report's rules (issue 50 §Daily reports; N.J.A.C. 13:69O-1.9, 58 Pa. Code 811a.9):
//! which instants bound a gaming day, and the arithmetic of a report's lines and of a player
//! account's reconciliation. What the ledger's journal says each move is lives in the ledger.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};

use crate::text::LOTTERY_ZONE;

/// When a gaming day ends: at `hour` o'clock in the lottery's zone (America/Chicago), 0 to 23.
/// Gaming day `D` runs from `D` at that hour to `D + 1` at that hour; with hour 0 it is the
/// calendar day in Chicago.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GamingDays {
    hour: u32,
}

/// Days end at 6 in the morning by default: a night's late play stays in the day it began.
impl Default for GamingDays {
    fn default() -> Self {
        GamingDays { hour: 6 }
    }
}

impl GamingDays {
    /// Days ending at `hour` o'clock (None when `hour` is not 0 to 23).
    pub fn ending_at(hour: u32) -> Option<GamingDays> {
        (hour < 24).then_some(GamingDays { hour })
    }

    pub fn hour(self) -> u32 {
        self.hour
    }

    /// The instant `day` begins. On the night clocks spring forward an hour that does not exist
    /// is read as the first instant after the gap; on the night they fall back, an hour that
    /// happens twice is its first.
    pub fn opens(self, day: NaiveDate) -> DateTime<Utc> {
        let time = NaiveTime::from_hms_opt(self.hour, 0, 0).unwrap_or(NaiveTime::MIN);
        let local = day.and_time(time);
        let mut probe = local;
        // A gap is an hour at most: step a minute at a time until a local time exists.
        for _ in 0..=120 {
            if let Some(at) = LOTTERY_ZONE.from_local_datetime(&probe).earliest() {
                return at.with_timezone(&Utc);
            }
            probe = probe.checked_add_signed(Duration::minutes(1)).unwrap_or(probe);
        }
        Utc.from_utc_datetime(&local)
    }

    /// The instant `day` ends (the next day's opening).
    pub fn closes(self, day: NaiveDate) -> DateTime<Utc> {
        self.opens(day.succ_opt().unwrap_or(day))
    }

    /// The gaming day `at` falls in.
    pub fn day_of(self, at: DateTime<Utc>) -> NaiveDate {
        let date = at.with_timezone(&LOTTERY_ZONE).date_naive();
        if at < self.opens(date) { date.pred_opt().unwrap_or(date) } else { date }
    }
}

/// One line of a day's report: a game sold through one channel. Amounts in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Takings {
    /// What players staked (an instant game's: its packs' sales).
    pub handle: i64,
    /// Stakes given back (voided tickets and rounds, cancelled drawings).
    pub refunds: i64,
    /// Prizes the day's play won.
    pub prizes_won: i64,
}

impl Takings {
    /// Gross gaming revenue: what was staked and kept, less what it won.
    /// `handle - refunds - prizes_won`; negative on a day players won more than they lost.
    pub fn gross_gaming_revenue(self) -> i64 {
        self.handle.saturating_sub(self.refunds).saturating_sub(self.prizes_won)
    }
}

/// A player account's day (issue 50): what it held at the opening and what moved, by kind.
/// Amounts in cents; `adjustments` and `other` are signed, the rest are what moved each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccountDay {
    pub opening: i64,
    pub deposits: i64,
    pub withdrawals: i64,
    pub stakes: i64,
    pub prizes: i64,
    pub refunds: i64,
    pub adjustments: i64,
    /// Money of no kind above (none, when every service names its moves).
    pub other: i64,
}

impl AccountDay {
    /// opening + deposits - withdrawals - stakes + prizes + refunds +/- adjustments (+/- other).
    pub fn closing(self) -> i64 {
        self.opening
            .saturating_add(self.deposits)
            .saturating_sub(self.withdrawals)
            .saturating_sub(self.stakes)
            .saturating_add(self.prizes)
            .saturating_add(self.refunds)
            .saturating_add(self.adjustments)
            .saturating_add(self.other)
    }

    /// Whether the day reconciles with `ledger_closing`, the balance the ledger's own counters
    /// held at the close: the sum equals it, and no money moved that names no kind.
    pub fn reconciles_with(self, ledger_closing: i64) -> bool {
        self.closing() == ledger_closing && self.other == 0
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, 0).single().unwrap()
    }

    #[test]
    fn a_winter_day_is_24_hours_of_central_standard_time() {
        let days = GamingDays::ending_at(6).unwrap();
        assert_eq!(days.opens(date(2026, 12, 5)), utc(2026, 12, 5, 12, 0));
        assert_eq!(days.closes(date(2026, 12, 5)), utc(2026, 12, 6, 12, 0));
        assert_eq!(days.day_of(utc(2026, 12, 6, 11, 59)), date(2026, 12, 5));
        assert_eq!(days.day_of(utc(2026, 12, 6, 12, 0)), date(2026, 12, 6));
    }

    #[test]
    fn midnight_days_are_chicago_calendar_days() {
        let days = GamingDays::ending_at(0).unwrap();
        assert_eq!(days.opens(date(2026, 7, 1)), utc(2026, 7, 1, 5, 0));
        assert_eq!(days.day_of(utc(2026, 7, 1, 4, 59)), date(2026, 6, 30));
        assert!(GamingDays::ending_at(24).is_none());
    }

    #[test]
    fn daylight_saving_days_are_23_and_25_hours() {
        let days = GamingDays::ending_at(2).unwrap();
        // 2027-03-14: 2:00 CST does not exist; the day opens at 3:00 CDT, the first instant after.
        let spring = date(2027, 3, 14);
        assert_eq!(days.opens(spring), utc(2027, 3, 14, 8, 0));
        assert_eq!(days.closes(spring) - days.opens(spring), Duration::hours(23));
        // 2026-11-01: 1:00-2:00 happens twice; 2:00 CST is one instant.
        let fall = date(2026, 10, 31);
        assert_eq!(days.closes(fall) - days.opens(fall), Duration::hours(25));
        for day in [date(2027, 3, 13), spring, fall] {
            assert_eq!(days.day_of(days.opens(day)), day);
            assert_eq!(days.day_of(days.closes(day) - Duration::seconds(1)), day);
        }
    }

    #[test]
    fn revenue_and_reconciliation() {
        let t = Takings { handle: 10_000, refunds: 500, prizes_won: 12_000 };
        assert_eq!(t.gross_gaming_revenue(), -2_500);
        let day = AccountDay {
            opening: 1_000,
            deposits: 5_000,
            withdrawals: 2_000,
            stakes: 3_000,
            prizes: 4_500,
            refunds: 200,
            adjustments: -100,
            other: 0,
        };
        assert_eq!(day.closing(), 5_600);
        assert!(day.reconciles_with(5_600));
        assert!(!day.reconciles_with(5_601));
        assert!(!AccountDay { other: 1, ..day }.reconciles_with(5_601), "unnamed money never reconciles");
    }
}
