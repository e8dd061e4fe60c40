//! The instant service's settings: read once at start from the environment, each with a default,
//! and a value that does not parse stops the service there (one failure policy for every
//! service: a typo must not go unnoticed until a till pays the wrong limit).
//!
//! | variable                             | default      | meaning                                   |
//! |--------------------------------------|--------------|-------------------------------------------|
//! | `LOTTO_VIRN_KEY`                     | (random; required by the `instant` binary) | VIRNs are stored only as their HMAC under it |
//! | `LOTTO_RETAILER_PAY_LIMIT_CENTS`     | `59900`      | the largest prize a retailer pays         |
//! | `LOTTO_W2G_THRESHOLD_CENTS`          | `60000`      | a W-2G for a prize at least this ...      |
//! | `LOTTO_W2G_PRICE_MULTIPLE`           | `300`        | ... and at least this many times the price |
//! | `LOTTO_WITHHOLDING_THRESHOLD_CENTS`  | `500000`     | tax withheld from a prize over this       |
//! | `LOTTO_WITHHOLDING_BPS`              | `2400`       | how much (24%)                            |
//! | `LOTTO_RETAILER_COMMISSION_BPS`      | `500`        | the retailer's commission on a pack (5%)  |
//! | `LOTTO_PACK_SETTLE_AFTER_SECONDS`    | `2592000`    | an active pack is settled after 30 days   |

use std::time::Duration;

use domain::prizes::PrizeRules;
use hmac::{Hmac, Mac};
use platform::config::{ConfigError, Secret, env_or};
use sha2::Sha256;

/// The key VIRNs are hashed under. The clear VIRN is never stored: a ticket's row holds only
/// its HMAC-SHA256 under this key, which lives in the service's environment, not the database.
#[derive(Debug, Clone)]
pub struct VirnKey(Secret);

impl VirnKey {
    pub fn new(secret: Secret) -> Self {
        VirnKey(secret)
    }

    /// HMAC-SHA256 of `virn`.
    pub fn hash(&self, virn: &str) -> Vec<u8> {
        // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(self.0.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
        mac.update(virn.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }
}

/// Everything the instant service is configured with.
#[derive(Debug, Clone)]
pub struct InstantSettings {
    pub virn_key: VirnKey,
    /// The retailer limit and the office's tax rules (every game's: `domain::prizes`).
    pub prizes: PrizeRules,
    /// The retailer's commission on a settled pack, in basis points.
    pub commission_bps: i64,
    /// A pack active this long is settled without being asked.
    pub settle_after: Duration,
}

impl InstantSettings {
    /// The defaults with `virn_key`: what tests and benchmarks run with.
    pub fn with_key(virn_key: Secret) -> Self {
        InstantSettings {
            virn_key: VirnKey::new(virn_key),
            prizes: PrizeRules::default(),
            commission_bps: 500,
            settle_after: Duration::from_secs(30 * 24 * 3600),
        }
    }

    /// The defaults overridden by the environment. Without `LOTTO_VIRN_KEY` a random key is made
    /// (with a warning) unless `key_required`: tickets printed by this process then validate
    /// only in it, which a demonstration can live with and production cannot.
    pub fn from_env(key_required: bool) -> Result<Self, ConfigError> {
        let key = match Secret::from_env("LOTTO_VIRN_KEY")? {
            Some(key) => key,
            None if key_required => {
                return Err(ConfigError {
                    name: "LOTTO_VIRN_KEY",
                    value: String::new(),
                    reason: "must be set (32 bytes or more): tickets are validated long after printing"
                        .to_owned(),
                });
            }
            None => {
                tracing::warn!(
                    "LOTTO_VIRN_KEY is not set: tickets printed now validate only in this process"
                );
                Secret::random()
            }
        };
        let d = InstantSettings::with_key(key);
        Ok(InstantSettings {
            prizes: PrizeRules::from_settings(env_or)?,
            commission_bps: env_or("LOTTO_RETAILER_COMMISSION_BPS", d.commission_bps)?,
            settle_after: Duration::from_secs(env_or(
                "LOTTO_PACK_SETTLE_AFTER_SECONDS",
                d.settle_after.as_secs(),
            )?),
            virn_key: d.virn_key,
        })
    }
}
