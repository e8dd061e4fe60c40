//! Powerball's timetable in central time (K.A.R. 111-5-24(g), (h)), across both daylight-saving
//! changes of 2026 (March 8 and November 1).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use chrono::{DateTime, Days, NaiveDate, Utc};
use domain::powerball::schedule::{SaleWindow, Timetable, is_draw_day};

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

#[test]
fn drawings_are_at_958_pm_central_on_either_side_of_each_change() {
    let t = Timetable::default();
    // Saturday before spring forward: CST, UTC-6.
    let before = t.drawing_on(day("2026-03-07"));
    assert_eq!(before.drawing, utc("2026-03-08T03:58:00Z"));
    assert_eq!(before.sales_close, utc("2026-03-08T02:59:00Z"));
    assert_eq!(before.sales_resume, utc("2026-03-08T03:05:00Z"));
    // Monday after: CDT, UTC-5.
    assert_eq!(t.drawing_on(day("2026-03-09")).drawing, utc("2026-03-10T02:58:00Z"));
    // Saturday before fall back: CDT; Monday after: CST.
    assert_eq!(t.drawing_on(day("2026-10-31")).drawing, utc("2026-11-01T02:58:00Z"));
    assert_eq!(t.drawing_on(day("2026-11-02")).drawing, utc("2026-11-03T03:58:00Z"));
}

#[test]
fn a_sale_enters_the_next_drawing_still_open_and_none_is_made_in_the_closed_window() {
    let t = Timetable::default();
    let monday = t.drawing_on(day("2026-03-09"));
    let open_for = |at: &str| match t.sale_window(utc(at)) {
        SaleWindow::Open(drawing) => drawing.date,
        SaleWindow::Closed { .. } => panic!("closed at {at}"),
    };
    // Sunday the clocks change, at 3 a.m. CDT: the next drawing is Monday's.
    assert_eq!(open_for("2026-03-08T08:00:00Z"), day("2026-03-09"));
    // Monday 8:58:59 p.m. CDT: still Monday's.
    assert_eq!(open_for("2026-03-10T01:58:59Z"), day("2026-03-09"));
    // 8:59 p.m.: closed until 9:05 p.m., and the answer says so.
    assert_eq!(
        t.sale_window(utc("2026-03-10T01:59:00Z")),
        SaleWindow::Closed { closing: monday, resumes_at: utc("2026-03-10T02:05:00Z") }
    );
    assert!(matches!(t.sale_window(utc("2026-03-10T02:04:59Z")), SaleWindow::Closed { .. }));
    // 9:05 p.m.: open again, for Wednesday.
    assert_eq!(open_for("2026-03-10T02:05:00Z"), day("2026-03-11"));
    // Saturday 10 p.m. CST, after the drawing: Monday's, across the change.
    assert_eq!(open_for("2026-03-08T04:00:00Z"), day("2026-03-09"));
    // Tuesday and Thursday have no drawing and no closed window.
    assert_eq!(open_for("2026-11-04T01:59:00Z"), day("2026-11-04"), "Tuesday 7:59 p.m. CST");
}

#[test]
fn a_multi_draw_sale_takes_the_next_drawings_in_order() {
    let t = Timetable::default();
    let first = t.drawing_on(day("2026-10-31"));
    let dates: Vec<NaiveDate> = t.drawings_from(&first, 4).iter().map(|d| d.date).collect();
    assert_eq!(dates, [day("2026-10-31"), day("2026-11-02"), day("2026-11-04"), day("2026-11-07")]);
}

/// Every day of 2026: draw days are Monday, Wednesday and Saturday, and each has its 59 minutes
/// from close to drawing and its six closed minutes, whatever the offset that day.
#[test]
fn every_draw_day_of_the_year_keeps_its_minutes() {
    let t = Timetable::default();
    let mut date = day("2026-01-01");
    let mut draws = 0;
    while date < day("2027-01-01") {
        if is_draw_day(date) {
            let d = t.drawing_on(date);
            assert_eq!((d.drawing - d.sales_close).num_minutes(), 59, "{date}");
            assert_eq!((d.sales_resume - d.sales_close).num_minutes(), 6, "{date}");
            draws += 1;
        }
        date = date.checked_add_days(Days::new(1)).unwrap();
    }
    assert_eq!(draws, 156, "three a week: 52 weeks and the year's extra Thursday carry none");
}
