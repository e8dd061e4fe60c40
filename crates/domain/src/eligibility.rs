//! Who may play: the minimum age.
//!
//! K.A.R. 111-5-24(c): "Plays shall not be sold to any person under the age of 18 years." The
//! platform applies the same floor to opening a player account at all.

use chrono::{Datelike, NaiveDate};

/// K.A.R. 111-5-24(c).
pub const MINIMUM_AGE_YEARS: u32 = 18;

/// Completed years of age on `today` of someone born on `date_of_birth` (0 if not yet born).
/// A person born on 29 February turns a year older on 1 March in common years.
pub fn age_on(date_of_birth: NaiveDate, today: NaiveDate) -> u32 {
    if today < date_of_birth {
        return 0;
    }
    let years = today.year().saturating_sub(date_of_birth.year());
    let had_birthday = (today.month(), today.day()) >= (date_of_birth.month(), date_of_birth.day());
    let years = if had_birthday { years } else { years.saturating_sub(1) };
    u32::try_from(years).unwrap_or(0)
}

/// Whether someone born on `date_of_birth` may play on `today` (K.A.R. 111-5-24(c)).
pub fn is_of_playing_age(date_of_birth: NaiveDate, today: NaiveDate) -> bool {
    age_on(date_of_birth, today) >= MINIMUM_AGE_YEARS
}

/// The oldest age a date of birth may give: no one registering is older than this, so an older
/// date is a typing error or a probe (`0000-01-01`, `1800-01-01`), refused rather than stored.
pub const MAXIMUM_AGE_YEARS: u32 = 120;

/// Whether `date_of_birth` could be a living person's on `today`: not in the future, and at most
/// [`MAXIMUM_AGE_YEARS`] ago.
pub fn is_plausible_birth_date(date_of_birth: NaiveDate, today: NaiveDate) -> bool {
    date_of_birth <= today && age_on(date_of_birth, today) <= MAXIMUM_AGE_YEARS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn birth_dates_are_of_living_people() {
        let today = date(2026, 11, 30);
        for (dob, plausible) in [
            (date(0, 1, 1), false),
            (date(1800, 1, 1), false),
            (date(1906, 11, 30), true),
            (date(1906, 11, 29), true),
            (date(1905, 11, 30), false),
            (date(1990, 5, 17), true),
            (date(2026, 12, 1), false),
        ] {
            assert_eq!(is_plausible_birth_date(dob, today), plausible, "{dob}");
        }
    }

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn eighteen_on_the_birthday_and_not_a_day_before() {
        assert!(!is_of_playing_age(date(2008, 11, 30), date(2026, 11, 29)));
        assert!(is_of_playing_age(date(2008, 11, 29), date(2026, 11, 29)));
        assert!(is_of_playing_age(date(1950, 1, 1), date(2026, 11, 29)));
    }

    #[test]
    fn a_leap_day_birthday_counts_from_the_first_of_march() {
        assert_eq!(age_on(date(2008, 2, 29), date(2026, 2, 28)), 17);
        assert_eq!(age_on(date(2008, 2, 29), date(2026, 3, 1)), 18);
    }

    #[test]
    fn the_unborn_are_zero() {
        assert_eq!(age_on(date(2030, 1, 1), date(2026, 11, 29)), 0);
    }
}
