//! The house's own limits: what no game's posted limit may pass, set once for every table.

use platform::config::{ConfigError, env_or};

/// The house's limits (`LOTTO_HOUSE_MAX_WAGER_CENTS`, $100,000 a wager by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HouseLimits {
    /// The highest table limit any game may post, in cents.
    pub max_wager_cents: i64,
}

impl Default for HouseLimits {
    fn default() -> Self {
        HouseLimits { max_wager_cents: Self::MOST_CENTS }
    }
}

impl HouseLimits {
    /// The most the house may set: at $100,000 a wager, a blackjack round of seven spots of four
    /// doubled hands and three side wagers at their best odds still pays less than one ledger
    /// transfer may move (a test checks it), so no round can be staked and then not paid.
    pub const MOST_CENTS: i64 = 10_000_000;

    /// The defaults overridden by the environment: $1 to [`HouseLimits::MOST_CENTS`] a wager.
    pub fn from_env() -> Result<HouseLimits, ConfigError> {
        let max_wager_cents = env_or("LOTTO_HOUSE_MAX_WAGER_CENTS", HouseLimits::default().max_wager_cents)?;
        if !(100..=Self::MOST_CENTS).contains(&max_wager_cents) {
            return Err(ConfigError {
                name: "LOTTO_HOUSE_MAX_WAGER_CENTS",
                value: max_wager_cents.to_string(),
                reason: format!("must be 100 to {}", Self::MOST_CENTS),
            });
        }
        Ok(HouseLimits { max_wager_cents })
    }
}
