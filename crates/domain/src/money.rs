//! Money as integer minor units (cents) and an ISO 4217 currency code; never floats (architecture §2).
//!
//! Every arithmetic step is checked: an overflow is an error, not a wrap, because a wrapped
//! balance is money created from nothing.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a money value or operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("currency must be three upper-case letters (ISO 4217), got {0:?}")]
    InvalidCurrency(String),
    #[error("amount must be greater than zero, got {}", dollars(*.0))]
    NotPositive(i64),
    #[error("currencies differ: {0} and {1}")]
    CurrencyMismatch(Currency, Currency),
    #[error("amount overflows 64-bit cents")]
    Overflow,
    #[error("amount {} is above the most one transfer may move, {}", dollars(*.0), dollars(Amount::MAX_CENTS))]
    TooLarge(i64),
    #[error("{amount} × {numerator}/{denominator} is not a whole number of cents")]
    NotExact { amount: i64, numerator: i64, denominator: i64 },
}

/// An ISO 4217 alphabetic currency code such as `USD`.
///
/// Only the shape is checked (three ASCII upper-case letters); which currencies an operator
/// accepts is configuration, not a rule of arithmetic.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency([u8; 3]);

impl Currency {
    /// US dollars, the currency of the Kansas Lottery games.
    pub const USD: Currency = Currency(*b"USD");

    /// The code as text.
    pub fn as_str(&self) -> &str {
        // The constructor admits only ASCII letters, so this is always valid UTF-8.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }
}

impl FromStr for Currency {
    type Err = MoneyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.as_bytes() {
            &[a, b, c] if [a, b, c].iter().all(u8::is_ascii_uppercase) => Ok(Currency([a, b, c])),
            _ => Err(MoneyError::InvalidCurrency(s.to_owned())),
        }
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Currency({})", self.as_str())
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A strictly positive number of minor units: the amount of a transfer, a stake or a prize.
///
/// Zero and negative amounts cannot be built, so a transfer can never run "backwards"; nor can
/// amounts above [`Amount::MAX_CENTS`], so no sum of a sane number of them nears 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Amount(i64);

impl Amount {
    /// The most one transfer, stake or prize may be: $10,000,000,000 (ten times the largest
    /// lottery jackpot ever paid), about a nine-millionth of `i64::MAX`.
    pub const MAX_CENTS: i64 = 1_000_000_000_000;

    /// The most any one ledger balance row may count in each of its lifetime totals (debits and
    /// credits, posted and pending): $10,000,000,000,000. An account has at most 64 rows, so no
    /// account's totals can come within a thousandth of `i64::MAX` (ADR 0001).
    pub const MAX_ROW_TOTAL_CENTS: i64 = 1_000_000_000_000_000;

    /// Accepts only `0 < cents <= MAX_CENTS`.
    pub fn new(cents: i64) -> Result<Self, MoneyError> {
        if cents <= 0 {
            Err(MoneyError::NotPositive(cents))
        } else if cents > Amount::MAX_CENTS {
            Err(MoneyError::TooLarge(cents))
        } else {
            Ok(Amount(cents))
        }
    }

    /// The amount in minor units.
    pub fn cents(self) -> i64 {
        self.0
    }

    /// `self × numerator / denominator`, refused unless the result is a whole number of cents.
    ///
    /// Pay ratios such as 3:2 or 7:6 are applied with this, so a stake that cannot be paid
    /// exactly is refused instead of rounded (architecture §2).
    pub fn times_ratio(self, numerator: i64, denominator: i64) -> Result<Amount, MoneyError> {
        let not_exact = MoneyError::NotExact { amount: self.0, numerator, denominator };
        if numerator <= 0 || denominator <= 0 {
            return Err(not_exact);
        }
        let product = self.0.checked_mul(numerator).ok_or(MoneyError::Overflow)?;
        if product.checked_rem(denominator) != Some(0) {
            return Err(not_exact);
        }
        Amount::new(product.checked_div(denominator).ok_or(MoneyError::Overflow)?)
    }

    /// The sum, refused above [`Amount::MAX_CENTS`].
    pub fn checked_add(self, other: Amount) -> Result<Amount, MoneyError> {
        Amount::new(self.0.checked_add(other.0).ok_or(MoneyError::Overflow)?)
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Amount::new(i64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// `cents` as a person reads dollars on a ticket or a receipt: `$1,234.05` (`-$0.50` below zero).
pub fn dollars(cents: i64) -> String {
    let abs = cents.unsigned_abs();
    let whole = (abs / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        // Digits still to come after this one's group start: a comma every three from the right.
        let left = whole.len().saturating_sub(i);
        if i > 0 && left.is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{}${grouped}.{:02}", if cents < 0 { "-" } else { "" }, abs % 100)
}

/// `cents` as a file a spreadsheet reads carries dollars: `1234.05` (`-0.50` below zero), no sign
/// of the currency and no grouping.
pub fn decimal_dollars(cents: i64) -> String {
    let abs = cents.unsigned_abs();
    format!("{}{}.{:02}", if cents < 0 { "-" } else { "" }, abs / 100, abs % 100)
}

/// A signed quantity of one currency: a balance, which may be negative on accounts allowed to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Money {
    /// Minor units (cents for USD).
    pub amount: i64,
    pub currency: Currency,
}

impl Money {
    pub fn new(amount: i64, currency: Currency) -> Self {
        Money { amount, currency }
    }

    /// The sum of two amounts of the same currency.
    pub fn checked_add(self, other: Money) -> Result<Money, MoneyError> {
        if self.currency != other.currency {
            return Err(MoneyError::CurrencyMismatch(self.currency, other.currency));
        }
        let amount = self.amount.checked_add(other.amount).ok_or(MoneyError::Overflow)?;
        Ok(Money::new(amount, self.currency))
    }
}

impl fmt::Display for Money {
    /// `12.34 USD`: two decimal places, which every currency this platform runs has.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.amount < 0 { "-" } else { "" };
        let abs = self.amount.unsigned_abs();
        write!(f, "{sign}{}.{:02} {}", abs / 100, abs % 100, self.currency)
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn currency_accepts_only_three_upper_case_letters() {
        assert_eq!("USD".parse::<Currency>(), Ok(Currency::USD));
        for bad in ["usd", "US", "USDD", "U$D", "", "ÜSD"] {
            assert!(bad.parse::<Currency>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn amount_refuses_zero_and_negative() {
        assert_eq!(Amount::new(0), Err(MoneyError::NotPositive(0)));
        assert_eq!(Amount::new(-5), Err(MoneyError::NotPositive(-5)));
        assert!(serde_json::from_str::<Amount>("0").is_err());
        assert_eq!(serde_json::from_str::<Amount>("250").ok(), Amount::new(250).ok());
    }

    #[test]
    fn ratios_pay_exactly_or_refuse() {
        let ten_dollars = Amount::new(1000).unwrap();
        // Blackjack pays 3:2: $10 wins $15.
        assert_eq!(ten_dollars.times_ratio(3, 2).unwrap().cents(), 1500);
        // 7:6 on $10 is 1166.66… cents: refused, never rounded.
        assert!(matches!(ten_dollars.times_ratio(7, 6), Err(MoneyError::NotExact { .. })));
        let most = Amount::new(Amount::MAX_CENTS).unwrap();
        assert_eq!(most.times_ratio(2, 1), Err(MoneyError::TooLarge(2 * Amount::MAX_CENTS)));
        assert_eq!(Amount::new(i64::MAX), Err(MoneyError::TooLarge(i64::MAX)));
        assert_eq!(
            most.checked_add(Amount::new(1).unwrap()),
            Err(MoneyError::TooLarge(Amount::MAX_CENTS + 1))
        );
    }

    #[test]
    fn dollars_group_thousands_and_keep_the_cents() {
        assert_eq!(dollars(0), "$0.00");
        assert_eq!(dollars(5), "$0.05");
        assert_eq!(dollars(123_456_789), "$1,234,567.89");
        assert_eq!(dollars(100_000), "$1,000.00");
        assert_eq!(dollars(-50), "-$0.50");
    }

    #[test]
    fn money_displays_in_major_units() {
        assert_eq!(Money::new(-1205, Currency::USD).to_string(), "-12.05 USD");
        assert_eq!(Money::new(7, Currency::USD).to_string(), "0.07 USD");
        assert_eq!(decimal_dollars(-123_405), "-1234.05");
        assert_eq!(decimal_dollars(i64::MIN), "-92233720368547758.08");
    }

    proptest! {
        #[test]
        fn exact_ratio_round_trips(cents in 1i64..1_000_000_000, num in 1i64..100, den in 1i64..100) {
            let amount = Amount::new(cents).unwrap();
            match amount.times_ratio(num, den) {
                Ok(paid) => prop_assert_eq!(paid.cents() * den, cents * num),
                Err(MoneyError::NotExact { .. }) => prop_assert_ne!((cents * num) % den, 0),
                Err(other) => prop_assert!(false, "unexpected {other}"),
            }
        }

        #[test]
        fn money_addition_never_wraps(a in any::<i64>(), b in any::<i64>()) {
            let sum = Money::new(a, Currency::USD).checked_add(Money::new(b, Currency::USD));
            prop_assert_eq!(sum.ok().map(|m| m.amount), a.checked_add(b));
        }
    }
}
