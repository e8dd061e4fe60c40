//! The draw games' settings: read once at start from the environment, each with a default; a
//! value that does not parse, or that the ledger could not carry, stops the service there.
//!
//! | variable                            | default | meaning                                         |
//! |-------------------------------------|---------|-------------------------------------------------|
//! | `LOTTO_KENO_MAX_TICKETS`            | `100`   | the most $1 tickets one Keno ticket may stake   |
//! | `LOTTO_KENO_MAX_DRAWS`              | `20`    | the most consecutive draws one ticket may join  |
//! | `LOTTO_KENO_DRAW_INTERVAL_SECONDS`  | `240`   | seconds between scheduled draws (first start)   |

use std::time::Duration;

use platform::config::{ConfigError, env_or};

/// The most $1 tickets one Keno ticket may stake by default.
pub const DEFAULT_MAX_TICKETS: u32 = 100;

/// The most consecutive draws one ticket may join by default. The rules do not name a limit; 20
/// draws is an hour and twenty minutes at the default interval.
pub const DEFAULT_MAX_DRAWS: u32 = 20;

/// Seconds between scheduled draws by default.
pub const DEFAULT_DRAW_INTERVAL_SECONDS: u64 = 240;

/// Everything the draw games are configured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KenoSettings {
    pub max_tickets: u32,
    pub max_draws: u32,
    /// Between scheduled draws; only the first start's is kept (see `Schedule::load_or_create`).
    pub draw_interval: Duration,
}

impl Default for KenoSettings {
    fn default() -> Self {
        KenoSettings {
            max_tickets: DEFAULT_MAX_TICKETS,
            max_draws: DEFAULT_MAX_DRAWS,
            draw_interval: Duration::from_secs(DEFAULT_DRAW_INTERVAL_SECONDS),
        }
    }
}

impl KenoSettings {
    /// The defaults overridden by the environment, checked.
    pub fn from_env() -> Result<Self, ConfigError> {
        let d = KenoSettings::default();
        KenoSettings {
            max_tickets: env_or("LOTTO_KENO_MAX_TICKETS", d.max_tickets)?,
            max_draws: env_or("LOTTO_KENO_MAX_DRAWS", d.max_draws)?,
            draw_interval: Duration::from_secs(env_or(
                "LOTTO_KENO_DRAW_INTERVAL_SECONDS",
                d.draw_interval.as_secs(),
            )?),
        }
        .checked()
    }

    /// A ticket's prize is one ledger transfer: the largest must be one the ledger takes, or a
    /// ticket could be staked and then never paid.
    pub fn checked(self) -> Result<Self, ConfigError> {
        if domain::keno::top_prize_cents().saturating_mul(i64::from(self.max_tickets))
            > domain::Amount::MAX_CENTS
        {
            return Err(ConfigError {
                name: "LOTTO_KENO_MAX_TICKETS",
                value: self.max_tickets.to_string(),
                reason: "its top prize would be more than one transfer may move".to_owned(),
            });
        }
        Ok(self)
    }
}
