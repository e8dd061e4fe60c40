//! The house's blackjack settings, read once at start.

use domain::blackjack::round::TableRules;
use domain::cards::Decks;
use platform::AppError;
use platform::codes;
use platform::config::{ConfigError, env_or};

use crate::kit::house::HouseLimits;

/// The limits posted at every table (`LOTTO_BJ_MIN_WAGER_CENTS`, `LOTTO_BJ_MAX_WAGER_CENTS`,
/// `LOTTO_BJ_PROGRESSIVE_WAGER_CENTS`, `LOTTO_BJ_MAX_SPOTS`), and when a round counts as
/// abandoned (`LOTTO_BJ_ABANDONED_AFTER_SECONDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub min_wager_cents: i64,
    pub max_wager_cents: i64,
    pub progressive_wager_cents: i64,
    /// The most spots a round may play at the house's tables: seven, as on a real layout, and
    /// never more than the shoe always serves (`domain::blackjack::max_spots_served`).
    pub max_spots: usize,
    /// How long a round may wait for its player before the house finishes it.
    pub abandoned_after: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_wager_cents: 100,
            max_wager_cents: 100_000,
            progressive_wager_cents: 100,
            max_spots: domain::blackjack::SPOTS_AT_A_TABLE,
            abandoned_after: std::time::Duration::from_secs(86_400),
        }
    }
}

impl Limits {
    /// The defaults overridden by the environment, read once at start; a value out of range is
    /// an error there.
    pub fn from_env(house: &HouseLimits) -> Result<Limits, ConfigError> {
        let get = |name: &'static str, default: i64| env_or(name, default);
        let refuse = |name: &'static str, value: i64, reason: String| ConfigError {
            name,
            value: value.to_string(),
            reason,
        };
        let max_wager_cents = get("LOTTO_BJ_MAX_WAGER_CENTS", 100_000)?;
        let progressive_wager_cents = get("LOTTO_BJ_PROGRESSIVE_WAGER_CENTS", 100)?;
        // Within the house's limit, which keeps a round's payout inside one ledger transfer.
        let house = house.max_wager_cents;
        for (name, cents) in [
            ("LOTTO_BJ_MAX_WAGER_CENTS", max_wager_cents),
            ("LOTTO_BJ_PROGRESSIVE_WAGER_CENTS", progressive_wager_cents),
        ] {
            if !(100..=house).contains(&cents) {
                return Err(refuse(name, cents, format!("must be 100 to {house} (the house's limit)")));
            }
        }
        let spots = get("LOTTO_BJ_MAX_SPOTS", 7)?;
        Ok(Limits {
            min_wager_cents: get("LOTTO_BJ_MIN_WAGER_CENTS", 100)?,
            max_wager_cents,
            progressive_wager_cents,
            max_spots: usize::try_from(spots)
                .ok()
                .filter(|n| (1..=domain::blackjack::SPOTS_AT_A_TABLE).contains(n))
                .ok_or_else(|| refuse("LOTTO_BJ_MAX_SPOTS", spots, "must be 1 to 7".to_owned()))?,
            abandoned_after: std::time::Duration::from_secs(
                u64::try_from(get("LOTTO_BJ_ABANDONED_AFTER_SECONDS", 86_400)?).unwrap_or(86_400),
            ),
        })
    }

    /// A new table's rules checked against these, the house's: whole-dollar limits within the
    /// house's, and a number of spots the shoe always serves.
    pub fn table_rules(
        &self,
        decks: Decks,
        min_wager_cents: Option<i64>,
        max_wager_cents: Option<i64>,
        max_spots: Option<usize>,
    ) -> Result<TableRules, AppError> {
        let house = self;
        let min = min_wager_cents.unwrap_or(house.min_wager_cents);
        let max = max_wager_cents.unwrap_or(house.max_wager_cents);
        if min < house.min_wager_cents
            || max > house.max_wager_cents
            || min > max
            || min % 100 != 0
            || max % 100 != 0
        {
            return Err(AppError::unprocessable(
                codes::INVALID_LIMITS,
                format!(
                    "table limits are whole dollars within the house's, {} to {}",
                    domain::money::dollars(house.min_wager_cents),
                    domain::money::dollars(house.max_wager_cents)
                ),
            ));
        }
        let most_spots = house.max_spots.min(domain::blackjack::max_spots_served(decks));
        let max_spots = max_spots.unwrap_or(most_spots);
        if !(1..=most_spots).contains(&max_spots) {
            return Err(AppError::unprocessable(
                codes::INVALID_MAX_SPOTS,
                format!("a {}-deck table plays 1 to {most_spots} spots a round", decks.count()),
            ));
        }
        Ok(TableRules {
            decks,
            min_wager_cents: min,
            max_wager_cents: max,
            progressive_wager_cents: house.progressive_wager_cents,
            max_spots,
        })
    }
}
