//! The draw games' settings: read once at start from the environment, each with a default; a
//! value that does not parse, or that the ledger could not carry, stops the service there.
//!
//! | variable                            | default | meaning                                         |
//! |-------------------------------------|---------|-------------------------------------------------|
//! | `LOTTO_KENO_MAX_TICKETS`            | `100`   | the most $1 tickets one Keno ticket may stake   |
//! | `LOTTO_KENO_MAX_DRAWS`              | `20`    | the most consecutive draws one ticket may join  |
//! | `LOTTO_KENO_DRAW_INTERVAL_SECONDS`  | `240`   | seconds between scheduled draws (first start)   |
//! | `LOTTO_POWERBALL_MAX_BOARDS`        | `10`    | the most boards (plays) on one Powerball slip   |
//! | `LOTTO_POWERBALL_MAX_DRAWS`         | `10`    | the most drawings one Powerball ticket may enter|
//! | `LOTTO_POWERBALL_ONLINE`            | `false` | players with a wallet may buy Powerball online  |
//! | `LOTTO_POWERBALL_RESULTS`           | `entered` | `entered` (dual control) or `drawn` (the RNG) |
//! | `LOTTO_POWERBALL_EXPORT_DIR`        | `.lotto/powerball` | where frozen wager sets are written  |
//! | `LOTTO_POWERBALL_CLAIM_DAYS`        | `365`   | days after a drawing that its prizes may be claimed |
//! | `LOTTO_RETAILER_PAY_LIMIT_CENTS` and the tax settings | as instant's | `domain::prizes::PrizeRules` |
//! | `LOTTO_CLOCK_OFFSET_SECONDS`        | `0`     | demonstrations and process tests only: the draws' clock runs this far ahead of the system's |
//! | `LOTTO_MAX_STREAMS`                 | `2000`  | live-results streams open at once in this process (each a connection and a file handle) |

use std::path::PathBuf;
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

/// How a Powerball drawing's results come to stand (a per-drawing setting, from this default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultsMode {
    /// The official multi-state results, entered by two different operators who must agree.
    Entered,
    /// Drawn by the service's generator (a jurisdiction that holds its own drawing).
    Drawn,
}

impl ResultsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ResultsMode::Entered => "entered",
            ResultsMode::Drawn => "drawn",
        }
    }
}

impl std::str::FromStr for ResultsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "entered" => Ok(ResultsMode::Entered),
            "drawn" => Ok(ResultsMode::Drawn),
            other => Err(format!("{other} is neither entered nor drawn")),
        }
    }
}

impl std::fmt::Display for ResultsMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Powerball's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PowerballSettings {
    /// Boards on one slip. A play slip carries up to ten (a decision: the rules leave it to the
    /// slip's design).
    pub max_boards: u32,
    /// Drawings one multi-draw ticket may enter.
    pub max_draws: u32,
    /// Whether players may buy online from their wallet (111-5-24(d) sells at terminals; online
    /// sales are the operator's choice).
    pub online_sales: bool,
    /// How new drawings' results come to stand.
    pub results: ResultsMode,
    /// Where the frozen wager sets (the canonical exports) are written.
    pub export_dir: PathBuf,
    /// How long after its drawing a prize may be claimed (`LOTTO_POWERBALL_CLAIM_DAYS`, 180 by
    /// default, to the next business day: `LOTTO_HOLIDAYS`); unclaimed prizes then expire.
    pub claim: domain::prizes::ClaimPeriod,
    /// The retailer limit and the office's tax rules (every game's: `domain::prizes`).
    pub prizes: domain::prizes::PrizeRules,
}

impl Default for PowerballSettings {
    fn default() -> Self {
        PowerballSettings {
            max_boards: 10,
            max_draws: 10,
            online_sales: false,
            results: ResultsMode::Entered,
            export_dir: PathBuf::from(".lotto/powerball"),
            claim: domain::prizes::ClaimPeriod::default(),
            prizes: domain::prizes::PrizeRules::default(),
        }
    }
}

impl PowerballSettings {
    /// The defaults overridden by the environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        let d = PowerballSettings::default();
        let settings = PowerballSettings {
            max_boards: env_or("LOTTO_POWERBALL_MAX_BOARDS", d.max_boards)?,
            max_draws: env_or("LOTTO_POWERBALL_MAX_DRAWS", d.max_draws)?,
            online_sales: env_or("LOTTO_POWERBALL_ONLINE", d.online_sales)?,
            results: env_or("LOTTO_POWERBALL_RESULTS", d.results)?,
            export_dir: env_or("LOTTO_POWERBALL_EXPORT_DIR", d.export_dir)?,
            claim: domain::prizes::ClaimPeriod {
                days: env_or("LOTTO_POWERBALL_CLAIM_DAYS", d.claim.days)?,
                // the days the lottery's offices are closed, on which no claim period ends
                holidays: platform::config::env_with(
                    "LOTTO_HOLIDAYS",
                    domain::prizes::ClaimPeriod::parse_holidays,
                )?,
            },
            prizes: domain::prizes::PrizeRules::from_settings(env_or)?,
        };
        for (name, value) in [
            ("LOTTO_POWERBALL_MAX_BOARDS", settings.max_boards),
            ("LOTTO_POWERBALL_MAX_DRAWS", settings.max_draws),
        ] {
            if !(1..=100).contains(&value) {
                return Err(ConfigError { name, value: value.to_string(), reason: "1 to 100".to_owned() });
            }
        }
        Ok(settings)
    }
}

/// Every draw game's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DrawSettings {
    pub keno: KenoSettings,
    pub powerball: PowerballSettings,
    /// How far the draws' clock runs ahead of the system clock: 0 in production; a
    /// demonstration or a process test sets it to meet a drawing's close without waiting for it.
    pub clock_offset_seconds: i64,
    /// Live-results streams open at once in this process (`LOTTO_MAX_STREAMS`).
    pub max_streams: usize,
}

/// The live streams a process keeps open at most by default: well under the file handles a
/// process is given (20,000 here), leaving room for the connections that do work.
pub const DEFAULT_MAX_STREAMS: usize = 2_000;

impl DrawSettings {
    pub fn from_env() -> Result<Self, ConfigError> {
        let clock_offset_seconds = platform::clock::offset_from_env()?;
        Ok(DrawSettings {
            keno: KenoSettings::from_env()?,
            powerball: PowerballSettings::from_env()?,
            clock_offset_seconds,
            max_streams: env_or("LOTTO_MAX_STREAMS", DEFAULT_MAX_STREAMS)?,
        })
    }

    /// The clock the draws run on: the system's, shifted by `clock_offset_seconds`. Every time a
    /// draw records comes from it (the `lotto verify-draw` command's certification too).
    pub fn clock(&self) -> platform::clock::Clock {
        platform::clock::Clock::shifted(chrono::Duration::seconds(self.clock_offset_seconds))
    }
}
