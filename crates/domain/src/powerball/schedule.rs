//! When Powerball is sold and drawn (K.A.R. 111-5-24(g), (h)): drawings on Mondays, Wednesdays and
//! Saturdays at about 9:58 p.m. central time; on a draw day sales end at about 8:59 p.m. and
//! resume at about 9:05 p.m. (for the next drawing). Central time is `America/Chicago`, so every
//! instant here follows its daylight-saving changes (the tz database, through `chrono-tz`).
//!
//! A sale at an instant enters the first drawing whose sales have not yet closed; inside the
//! closed window (8:59 to 9:05 p.m. on a draw day) there is no sale, and the answer says when
//! sales resume. "About" in the rules is read as these exact minutes; an operator moves them with
//! [`Timetable`].

use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::America::Chicago;
use serde::Serialize;

/// The minutes of a draw day, central time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timetable {
    pub sales_close: NaiveTime,
    pub sales_resume: NaiveTime,
    pub drawing: NaiveTime,
}

impl Default for Timetable {
    /// 8:59 p.m., 9:05 p.m. and 9:58 p.m. (111-5-24(g), (h)).
    fn default() -> Self {
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap_or(NaiveTime::MIN);
        Timetable { sales_close: at(20, 59), sales_resume: at(21, 5), drawing: at(21, 58) }
    }
}

/// Whether a day has a drawing (111-5-24(a), (h): Monday, Wednesday, Saturday).
pub fn is_draw_day(date: NaiveDate) -> bool {
    matches!(date.weekday(), Weekday::Mon | Weekday::Wed | Weekday::Sat)
}

/// `time` on `date` in central time, as an instant. (No draw-day minute falls in a
/// daylight-saving gap or overlap, which come at 2 a.m.; the earlier instant is taken if one did.)
fn central(date: NaiveDate, time: NaiveTime) -> DateTime<Utc> {
    let local = date.and_time(time);
    Chicago
        .from_local_datetime(&local)
        .earliest()
        .unwrap_or_else(|| Chicago.from_utc_datetime(&local))
        .with_timezone(&Utc)
}

/// One drawing's instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Drawing {
    /// Its day in central time.
    pub date: NaiveDate,
    pub sales_close: DateTime<Utc>,
    pub sales_resume: DateTime<Utc>,
    pub drawing: DateTime<Utc>,
}

/// What a sale at an instant may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaleWindow {
    /// Sales are open for `drawing`.
    Open(Drawing),
    /// Sales are closed until `resumes_at`, for the drawing after `closing`.
    Closed { closing: Drawing, resumes_at: DateTime<Utc> },
}

impl Timetable {
    /// The drawing of draw day `date`.
    pub fn drawing_on(&self, date: NaiveDate) -> Drawing {
        Drawing {
            date,
            sales_close: central(date, self.sales_close),
            sales_resume: central(date, self.sales_resume),
            drawing: central(date, self.drawing),
        }
    }

    /// The first draw day on or after `date`.
    fn draw_day_from(date: NaiveDate) -> NaiveDate {
        let mut day = date;
        while !is_draw_day(day) {
            day = day.checked_add_days(Days::new(1)).unwrap_or(day);
        }
        day
    }

    /// The first drawing whose sales close after `at`.
    pub fn next_open(&self, at: DateTime<Utc>) -> Drawing {
        let today = at.with_timezone(&Chicago).date_naive();
        let candidate = self.drawing_on(Self::draw_day_from(today));
        if candidate.sales_close > at {
            return candidate;
        }
        let tomorrow = candidate.date.checked_add_days(Days::new(1)).unwrap_or(candidate.date);
        self.drawing_on(Self::draw_day_from(tomorrow))
    }

    /// What a sale at `at` may do.
    pub fn sale_window(&self, at: DateTime<Utc>) -> SaleWindow {
        let today = at.with_timezone(&Chicago).date_naive();
        if is_draw_day(today) {
            let closing = self.drawing_on(today);
            if at >= closing.sales_close && at < closing.sales_resume {
                return SaleWindow::Closed { closing, resumes_at: closing.sales_resume };
            }
        }
        SaleWindow::Open(self.next_open(at))
    }

    /// `count` consecutive drawings from `first` (a multi-draw sale).
    pub fn drawings_from(&self, first: &Drawing, count: usize) -> Vec<Drawing> {
        let mut drawings = Vec::with_capacity(count);
        let mut day = first.date;
        while drawings.len() < count {
            day = Self::draw_day_from(day);
            drawings.push(self.drawing_on(day));
            day = day.checked_add_days(Days::new(1)).unwrap_or(day);
        }
        drawings
    }
}
