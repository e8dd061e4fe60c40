//! The grand prize: pari-mutuel, shared equally by its winners, paid by each winner's election
//! either as an annuity of 30 graduated payments, each 5% larger than the one before, or as a
//! single payment of the cash held in the grand prize pool for the drawing (111-5-24(a)).
//!
//! The default election, for a winner who makes none, is the **annuity**: the seeds carry 111-5-24
//! but not the paragraphs after it that set the default, so it is a decision (ADR 0008): it is the
//! form 111-5-24(a) names first, the one the advertised grand prize describes, and the one that
//! pays the winner the larger total.

use chrono::{Months, NaiveDate};
use serde::{Deserialize, Serialize};

/// How a grand prize winner is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Election {
    Annuity,
    Cash,
}

/// The election of a winner who makes none.
pub const DEFAULT_ELECTION: Election = Election::Annuity;

/// Payments of the annuity.
pub const ANNUITY_PAYMENTS: usize = 30;

/// Each payment is this many percent larger than the one before.
pub const ANNUITY_GROWTH_PERCENT: u32 = 5;

/// One winner's equal share of `pool_cents` among `winners` (rounded down to the cent; the
/// cents left over, fewer than the winners, stay in the pool), or nothing without a winner.
pub fn share_cents(pool_cents: i64, winners: u32) -> i64 {
    if winners == 0 { 0 } else { pool_cents.checked_div(i64::from(winners)).unwrap_or(0) }
}

/// The 30 payments of an annuity of `total_cents`: each 5% larger than the one before, in whole
/// cents, together exactly `total_cents`. The exact shares are total × 1.05^i / Σ 1.05^j; each
/// payment is its share rounded down, and the cents left over go one each to the payments whose
/// shares lost the most in rounding (so every payment is within a cent of its exact share).
pub fn annuity_payments(total_cents: i64) -> [i64; ANNUITY_PAYMENTS] {
    let growth = 1.0 + f64::from(ANNUITY_GROWTH_PERCENT) / 100.0;
    let weights: Vec<f64> =
        (0..ANNUITY_PAYMENTS).map(|i| growth.powi(i32::try_from(i).unwrap_or(0))).collect();
    let sum: f64 = weights.iter().sum();
    let mut payments = [0i64; ANNUITY_PAYMENTS];
    let mut lost: Vec<(f64, usize)> = Vec::with_capacity(ANNUITY_PAYMENTS);
    for (i, (payment, weight)) in payments.iter_mut().zip(&weights).enumerate() {
        #[allow(clippy::cast_precision_loss)] // cents far below 2^53
        let exact = total_cents as f64 * weight / sum;
        #[allow(clippy::cast_possible_truncation)]
        let floor = exact.floor() as i64;
        *payment = floor;
        #[allow(clippy::cast_precision_loss)]
        lost.push((exact - floor as f64, i));
    }
    let mut left = total_cents.saturating_sub(payments.iter().sum::<i64>());
    lost.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(_, i) in lost.iter().cycle().take(usize::try_from(left.max(0)).unwrap_or(0)) {
        if let Some(payment) = payments.get_mut(i) {
            *payment = payment.saturating_add(1);
            left = left.saturating_sub(1);
        }
    }
    payments
}

/// The dates the 30 payments of an annuity claimed on `claimed` fall due: the first on the claim
/// (paid with it), each later one on the claim's anniversary (a claim on 29 February falls due
/// on 28 February in the years without one). A date past the calendar's end is never due.
///
/// The multi-state rules pay the first payment at the claim and the others yearly; which day of
/// the year is the lottery's to set, so it is a decision (ADR 0019): the anniversary of the claim,
/// which a winner can work out from the receipt.
pub fn annuity_due_dates(claimed: NaiveDate) -> [NaiveDate; ANNUITY_PAYMENTS] {
    let mut dates = [NaiveDate::MAX; ANNUITY_PAYMENTS];
    for (years, date) in (0u32..).zip(dates.iter_mut()) {
        if let Some(due) = claimed.checked_add_months(Months::new(years.saturating_mul(12))) {
            *date = due;
        }
    }
    dates
}
