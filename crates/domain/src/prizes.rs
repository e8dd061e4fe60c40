//! How a prize is paid, whatever the game: the largest prize a retailer pays at the counter
//! (larger ones are claimed at the lottery office), the office's tax rules, and how long a prize
//! may be claimed.
//!
//! The tax figures are the ones a US lottery applies (issue 6): a W-2G record for a prize of $600
//! or more that is also at least 300 times the ticket's price, and 24% federal withholding on a
//! prize over $5,000. They change with the law, so each is configurable; these are the defaults.

/// The largest prize a retailer pays by default: $599.
pub const DEFAULT_RETAILER_LIMIT_CENTS: i64 = 59_900;

/// Where prizes are paid and what the office withholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrizeRules {
    /// The largest prize a retailer pays; larger ones are claimed at the lottery office.
    pub retailer_limit_cents: i64,
    pub tax: TaxRules,
}

impl Default for PrizeRules {
    fn default() -> Self {
        PrizeRules { retailer_limit_cents: DEFAULT_RETAILER_LIMIT_CENTS, tax: TaxRules::default() }
    }
}

impl PrizeRules {
    /// The rules with each figure read by `read(variable, default)`: one list of the settings'
    /// names for every service (the reading itself, from the environment, is the caller's).
    pub fn from_settings<E>(
        mut read: impl FnMut(&'static str, i64) -> Result<i64, E>,
    ) -> Result<PrizeRules, E> {
        let d = PrizeRules::default();
        Ok(PrizeRules {
            retailer_limit_cents: read("LOTTO_RETAILER_PAY_LIMIT_CENTS", d.retailer_limit_cents)?,
            tax: TaxRules {
                w2g_threshold_cents: read("LOTTO_W2G_THRESHOLD_CENTS", d.tax.w2g_threshold_cents)?,
                w2g_price_multiple: read("LOTTO_W2G_PRICE_MULTIPLE", d.tax.w2g_price_multiple)?,
                withholding_threshold_cents: read(
                    "LOTTO_WITHHOLDING_THRESHOLD_CENTS",
                    d.tax.withholding_threshold_cents,
                )?,
                withholding_bps: read("LOTTO_WITHHOLDING_BPS", d.tax.withholding_bps)?,
            },
        })
    }
}

/// How long a prize may be claimed (issue 50 §Prizes that expire): `days` after the day it
/// counts from (a draw game's drawing, an instant game's announced end of sales); a last day
/// that falls on a Saturday, a Sunday or one of the lottery's `holidays` moves to the next
/// business day. A prize claimed on its last day is paid; the day after, it has expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimPeriod {
    pub days: u32,
    pub holidays: std::collections::BTreeSet<chrono::NaiveDate>,
}

/// The claim period most states give by default: 180 days.
pub const DEFAULT_CLAIM_DAYS: u32 = 180;

impl Default for ClaimPeriod {
    fn default() -> Self {
        ClaimPeriod { days: DEFAULT_CLAIM_DAYS, holidays: std::collections::BTreeSet::new() }
    }
}

impl ClaimPeriod {
    /// Whether the lottery's offices are open on `day`.
    pub fn is_business_day(&self, day: chrono::NaiveDate) -> bool {
        use chrono::Datelike;
        !matches!(day.weekday(), chrono::Weekday::Sat | chrono::Weekday::Sun) && !self.holidays.contains(&day)
    }

    /// The last day a prize counted from `from` may be claimed.
    pub fn last_day(&self, from: chrono::NaiveDate) -> chrono::NaiveDate {
        let mut day =
            from.checked_add_days(chrono::Days::new(u64::from(self.days))).unwrap_or(chrono::NaiveDate::MAX);
        while !self.is_business_day(day) {
            let Some(next) = day.succ_opt() else { break };
            day = next;
        }
        day
    }

    /// Whether, on `today`, a prize counted from `from` has expired.
    pub fn has_expired(&self, from: chrono::NaiveDate, today: chrono::NaiveDate) -> bool {
        today > self.last_day(from)
    }

    /// `LOTTO_HOLIDAYS`: the lottery's holidays, `YYYY-MM-DD` separated by commas.
    pub fn parse_holidays(text: &str) -> Result<std::collections::BTreeSet<chrono::NaiveDate>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| d.parse().map_err(|e| format!("{d:?} is not a date (YYYY-MM-DD): {e}")))
            .collect()
    }
}

/// The office's tax rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaxRules {
    /// A W-2G is made for a prize at least this large ...
    pub w2g_threshold_cents: i64,
    /// ... that is also at least this many times the ticket's price.
    pub w2g_price_multiple: i64,
    /// Tax is withheld from a prize over this.
    pub withholding_threshold_cents: i64,
    /// How much, in basis points (2,400 = 24%).
    pub withholding_bps: i64,
}

impl Default for TaxRules {
    fn default() -> Self {
        TaxRules {
            w2g_threshold_cents: 60_000,
            w2g_price_multiple: 300,
            withholding_threshold_cents: 500_000,
            withholding_bps: 2_400,
        }
    }
}

/// What the office does with one prize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaxAssessment {
    /// A W-2G record is made.
    pub w2g: bool,
    pub withheld_cents: i64,
    /// Paid to the claimant: the prize less what is withheld.
    pub net_cents: i64,
}

/// `bps` basis points of `cents`, rounded to the nearest cent, halves up.
pub fn share_of(cents: i64, bps: i64) -> i64 {
    let exact = i128::from(cents).saturating_mul(i128::from(bps));
    i64::try_from(exact.saturating_add(5_000).checked_div(10_000).unwrap_or(0)).unwrap_or(i64::MAX)
}

impl TaxRules {
    pub fn assess(&self, prize_cents: i64, price_cents: i64) -> TaxAssessment {
        let w2g = prize_cents >= self.w2g_threshold_cents
            && prize_cents >= price_cents.saturating_mul(self.w2g_price_multiple);
        let withheld_cents = if prize_cents > self.withholding_threshold_cents {
            share_of(prize_cents, self.withholding_bps)
        } else {
            0
        };
        TaxAssessment { w2g, withheld_cents, net_cents: prize_cents.saturating_sub(withheld_cents) }
    }
}

/// A claimant the office's record cannot take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ClaimantError {
    #[error("the claimant's name is 1 to 200 characters")]
    Name,
    #[error("`tin_last4` is four digits")]
    Tin,
    #[error("this prize needs a W-2G: give the last four digits of the claimant's taxpayer number")]
    TinRequired,
}

/// Checks the office's record of a claimant: a name, and the last four digits of the taxpayer
/// number when a W-2G is made.
pub fn check_claimant(name: &str, tin_last4: Option<&str>, w2g: bool) -> Result<(), ClaimantError> {
    if crate::text::trim(name).is_empty() || name.chars().count() > 200 {
        return Err(ClaimantError::Name);
    }
    match tin_last4 {
        Some(tin) if tin.len() != 4 || !tin.bytes().all(|b| b.is_ascii_digit()) => Err(ClaimantError::Tin),
        None if w2g => Err(ClaimantError::TinRequired),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod claim_period_tests {
    use super::ClaimPeriod;
    use chrono::NaiveDate;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap_or(NaiveDate::MIN)
    }

    #[test]
    fn the_last_day_moves_past_weekends_and_holidays() {
        let period = ClaimPeriod::default();
        // 2026-11-30 + 180 days is Saturday 2027-05-29: the last day is Monday the 31st.
        assert_eq!(period.last_day(day("2026-11-30")), day("2027-05-31"));
        // With Memorial Day (the 31st) a holiday, Tuesday.
        let holidays = ClaimPeriod::parse_holidays("2027-05-31, 2027-07-05").unwrap_or_default();
        let with = ClaimPeriod { holidays, ..ClaimPeriod::default() };
        assert_eq!(with.last_day(day("2026-11-30")), day("2027-06-01"));
        // A weekday last day stays: 2026-12-02 + 180 is Monday 2027-05-31.
        assert_eq!(period.last_day(day("2026-12-02")), day("2027-05-31"));
        assert!(!with.has_expired(day("2026-11-30"), day("2027-06-01")), "its last day still pays");
        assert!(with.has_expired(day("2026-11-30"), day("2027-06-02")));
        assert!(ClaimPeriod::parse_holidays("2027-13-01").is_err());
        assert_eq!(ClaimPeriod::parse_holidays(" ").map(|h| h.len()), Ok(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn w2g_needs_both_600_dollars_and_300_times_the_price() {
        let rules = TaxRules::default();
        // A $2 ticket: 300x is $600, so $600 makes a W-2G and $599 does not.
        assert!(rules.assess(60_000, 200).w2g);
        assert!(!rules.assess(59_999, 200).w2g);
        // A $5 ticket: 300x is $1,500; a $1,000 prize is over $600 but under 300x.
        assert!(!rules.assess(100_000, 500).w2g);
        assert!(rules.assess(150_000, 500).w2g);
    }

    #[test]
    fn withholding_starts_above_5000_dollars_rounded_to_the_cent() {
        let rules = TaxRules::default();
        assert_eq!(rules.assess(500_000, 500).withheld_cents, 0, "$5,000 is not above $5,000");
        let over = rules.assess(500_001, 500);
        assert_eq!((over.withheld_cents, over.net_cents), (120_000, 380_001), "24% of 500,001 = 120,000.24");
        let big = rules.assess(5_000_000, 500);
        assert_eq!((big.withheld_cents, big.net_cents), (1_200_000, 3_800_000));
        assert_eq!(share_of(3, 5_000), 2, "1.5 cents rounds up");
    }
}
