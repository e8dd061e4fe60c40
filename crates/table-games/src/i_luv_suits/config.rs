//! The house's I Luv Suits settings, read once at start.

use domain::i_luv_suits::round::TableRules;
use platform::config::{ConfigError, env_or};

use crate::kit::house::HouseLimits;

/// The limits posted at the house's I Luv Suits tables (`LOTTO_ILS_MIN_ANTE_CENTS`,
/// `LOTTO_ILS_MAX_ANTE_CENTS`, `LOTTO_ILS_MIN_SIDE_CENTS`, `LOTTO_ILS_MAX_SIDE_CENTS`,
/// `LOTTO_ILS_PROGRESSIVE_WAGER_CENTS`), and when a round waiting for its player's decision
/// counts as abandoned (`LOTTO_ILS_ABANDONED_AFTER_SECONDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub rules: TableRules,
    pub abandoned_after: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rules: TableRules {
                min_ante_cents: 500,
                max_ante_cents: 50_000,
                min_side_cents: 100,
                max_side_cents: 10_000,
                progressive_wager_cents: 500,
            },
            abandoned_after: std::time::Duration::from_secs(86_400),
        }
    }
}

impl Limits {
    /// The defaults overridden by the environment; a value out of range is an error at start.
    pub fn from_env(house: &HouseLimits) -> Result<Limits, ConfigError> {
        let defaults = Limits::default().rules;
        let house = house.max_wager_cents;
        let get = |name: &'static str, default: i64| -> Result<i64, ConfigError> {
            let cents = env_or(name, default)?;
            // Whole dollars up to the house's limit.
            if !(100..=house).contains(&cents) || cents % 100 != 0 {
                return Err(ConfigError {
                    name,
                    value: cents.to_string(),
                    reason: format!("must be whole dollars from 100 to {house} cents (the house's limit)"),
                });
            }
            Ok(cents)
        };
        let rules = TableRules {
            min_ante_cents: get("LOTTO_ILS_MIN_ANTE_CENTS", defaults.min_ante_cents)?,
            max_ante_cents: get("LOTTO_ILS_MAX_ANTE_CENTS", defaults.max_ante_cents)?,
            min_side_cents: get("LOTTO_ILS_MIN_SIDE_CENTS", defaults.min_side_cents)?,
            max_side_cents: get("LOTTO_ILS_MAX_SIDE_CENTS", defaults.max_side_cents)?,
            progressive_wager_cents: get(
                "LOTTO_ILS_PROGRESSIVE_WAGER_CENTS",
                defaults.progressive_wager_cents,
            )?,
        };
        for (name, min, max) in [
            ("LOTTO_ILS_MAX_ANTE_CENTS", rules.min_ante_cents, rules.max_ante_cents),
            ("LOTTO_ILS_MAX_SIDE_CENTS", rules.min_side_cents, rules.max_side_cents),
        ] {
            if max < min {
                return Err(ConfigError {
                    name,
                    value: max.to_string(),
                    reason: format!("is below its minimum, {min}"),
                });
            }
        }
        let idle = env_or("LOTTO_ILS_ABANDONED_AFTER_SECONDS", 86_400i64)?;
        Ok(Limits {
            rules,
            abandoned_after: std::time::Duration::from_secs(u64::try_from(idle).unwrap_or(86_400)),
        })
    }
}
