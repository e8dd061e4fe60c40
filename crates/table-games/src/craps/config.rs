//! The house's craps settings, read once at start.

use domain::craps::PowerTable;
use domain::craps::session::{PowerOdds, TableRules};
use platform::config::{ConfigError, env_or};

use crate::kit::house::HouseLimits;

/// The limits posted at the house's craps tables (`LOTTO_CRAPS_MIN_BET_CENTS`,
/// `LOTTO_CRAPS_MAX_BET_CENTS`), the most odds a table may allow (`LOTTO_CRAPS_ODDS_MULTIPLE`, up
/// to 100, 111-501-45(s)-(u)), and power odds (`LOTTO_CRAPS_POWER_ODDS`: `off`, `one` or `two`,
/// the pay table the house pre-selects, 44(c)(47); `LOTTO_CRAPS_POWER_ODDS_PER_THOUSAND`: how many
/// rolls in a thousand they light on); and when a session with bets on its layout and no
/// request from its player counts as abandoned (`LOTTO_CRAPS_ABANDONED_AFTER_SECONDS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub rules: TableRules,
    pub abandoned_after: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rules: TableRules {
                min_bet_cents: 100,
                max_bet_cents: 100_000,
                odds_multiple: 10,
                power_odds: None,
            },
            abandoned_after: std::time::Duration::from_secs(86_400),
        }
    }
}

impl Limits {
    pub fn from_env(house: &HouseLimits) -> Result<Limits, ConfigError> {
        let defaults = Limits::default().rules;
        let refuse = |name: &'static str, value: String, reason: &str| ConfigError {
            name,
            value,
            reason: reason.to_owned(),
        };
        let min = env_or("LOTTO_CRAPS_MIN_BET_CENTS", defaults.min_bet_cents)?;
        let max = env_or("LOTTO_CRAPS_MAX_BET_CENTS", defaults.max_bet_cents)?;
        if !(1..=max).contains(&min) || max > house.max_wager_cents {
            return Err(refuse(
                "LOTTO_CRAPS_MAX_BET_CENTS",
                max.to_string(),
                &format!(
                    "must be at least the minimum and at most {} (the house's limit)",
                    house.max_wager_cents
                ),
            ));
        }
        let multiple = env_or("LOTTO_CRAPS_ODDS_MULTIPLE", defaults.odds_multiple)?;
        if !(1..=100).contains(&multiple) {
            return Err(refuse(
                "LOTTO_CRAPS_ODDS_MULTIPLE",
                multiple.to_string(),
                "must be 1 to 100 (111-501-45(s))",
            ));
        }
        let power = env_or("LOTTO_CRAPS_POWER_ODDS", "off".to_owned())?;
        let per_thousand = env_or("LOTTO_CRAPS_POWER_ODDS_PER_THOUSAND", 20u32)?;
        let table = match power.as_str() {
            "off" => None,
            "one" => Some(PowerTable::One),
            "two" => Some(PowerTable::Two),
            _ => return Err(refuse("LOTTO_CRAPS_POWER_ODDS", power, "must be off, one or two")),
        };
        if per_thousand > 1_000 {
            return Err(refuse(
                "LOTTO_CRAPS_POWER_ODDS_PER_THOUSAND",
                per_thousand.to_string(),
                "must be 0 to 1000",
            ));
        }
        let idle = env_or("LOTTO_CRAPS_ABANDONED_AFTER_SECONDS", 86_400u64)?;
        Ok(Limits {
            abandoned_after: std::time::Duration::from_secs(idle),
            rules: TableRules {
                min_bet_cents: min,
                max_bet_cents: max,
                odds_multiple: multiple,
                power_odds: table.map(|table| PowerOdds { table, per_thousand_rolls: per_thousand }),
            },
        })
    }
}
