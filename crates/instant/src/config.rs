//! The instant service's settings: read once at start from the environment, each with a default,
//! and a value that does not parse stops the service there (one failure policy for every
//! service: a typo must not go unnoticed until a till pays the wrong limit).
//!
//! | variable                             | default      | meaning                                   |
//! |--------------------------------------|--------------|-------------------------------------------|
//! | `LOTTO_VIRN_KEY`                     | (required; `lotto` keeps its own) | VIRNs are stored only as their HMAC under it |
//! | `LOTTO_RETAILER_PAY_LIMIT_CENTS`     | `59900`      | the largest prize a retailer pays         |
//! | `LOTTO_W2G_THRESHOLD_CENTS`          | `60000`      | a W-2G for a prize at least this ...      |
//! | `LOTTO_W2G_PRICE_MULTIPLE`           | `300`        | ... and at least this many times the price |
//! | `LOTTO_WITHHOLDING_THRESHOLD_CENTS`  | `500000`     | tax withheld from a prize over this       |
//! | `LOTTO_WITHHOLDING_BPS`              | `2400`       | how much (24%)                            |
//! | `LOTTO_RETAILER_COMMISSION_BPS`      | `500`        | the retailer's commission on a pack (5%)  |
//! | `LOTTO_PACK_SETTLE_AFTER_SECONDS`    | `2592000`    | an active pack is settled after 30 days   |
//! | `LOTTO_PRINTER_RECIPIENT`            | (a demo key) | the printer's `age` public key printer's files are encrypted to |
//! | `LOTTO_SIGNING_KEY`                  | (required; `lotto` keeps its own) | the lottery's Ed25519 key (hex seed) signing them |
//! | `LOTTO_PRINTER_FILE_DIR`             | `.lotto/printer-files` | where printer's files wait for their one download |
//! | `LOTTO_LOTTERY_IDENTITY`             | (a demo key) | the lottery's `age` secret key vendors' validation files are encrypted to |
//! | `LOTTO_VENDOR_FILE_DIR`              | `.lotto/vendor-files` | the inbox vendors' validation files are delivered to |
//!
//! The demonstration keys (the printer's without `LOTTO_PRINTER_RECIPIENT`, the lottery's
//! without `LOTTO_LOTTERY_IDENTITY`) are kept in `LOTTO_SECRETS_DIR` (`platform::secrets`), never
//! inside the directory whose files they protect.

use std::path::PathBuf;
use std::time::Duration;

use ed25519_dalek::SigningKey;

use domain::prizes::PrizeRules;
use hmac::{Hmac, Mac};
use platform::config::{ConfigError, Secret, env_or};
use platform::secrets::KeptSecrets;
use sha2::Sha256;

use crate::printer_file::PrinterKeys;

/// The key VIRNs are hashed under. The clear VIRN is never stored: a ticket's row holds only
/// its HMAC-SHA256 under this key, which lives in the service's environment, not the database.
#[derive(Clone)]
pub struct VirnKey(Hmac<Sha256>);

impl std::fmt::Debug for VirnKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VirnKey(..)")
    }
}

impl VirnKey {
    pub fn new(secret: Secret) -> Self {
        // HMAC takes a key of any length; `new_from_slice` cannot fail for it. Keyed once here:
        // each hash starts from a copy of the keyed state (a print run hashes millions).
        let keyed = <Hmac<Sha256> as Mac>::new_from_slice(secret.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
        // Only the keyed state is kept.
        drop(secret);
        VirnKey(keyed)
    }

    /// HMAC-SHA256 of `virn`.
    pub fn hash(&self, virn: &str) -> [u8; 32] {
        let mut mac = self.0.clone();
        mac.update(virn.as_bytes());
        mac.finalize().into_bytes().into()
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
    /// The printer's public key and the lottery's signing key (the printer's file).
    pub printer: PrinterKeys,
    /// Where printer's files wait for their one download.
    pub printer_file_dir: PathBuf,
    /// The printer's secret key, only when this process made it (tests, a demonstration): the
    /// service never needs it; `lotto printer-file` does, on the printer's side.
    pub demo_printer_identity: Option<DemoIdentity>,
    /// The lottery's secret key that vendors' validation files are encrypted to (its public half
    /// is at `GET /v1/instant/keys`).
    pub lottery_identity: DemoIdentity,
    /// The inbox vendors' validation files are delivered to, imported from by name.
    pub vendor_file_dir: PathBuf,
    /// How long after a game's announced end of sales its prizes may be claimed
    /// (`LOTTO_INSTANT_CLAIM_DAYS`, 180 by default, to the next business day: `LOTTO_HOLIDAYS`).
    pub claim: domain::prizes::ClaimPeriod,
}

/// An `age` secret key: a printer's made for a demonstration or a test, or the lottery's own
/// (never shown in a log).
#[derive(Clone)]
pub struct DemoIdentity(pub age::x25519::Identity);

impl std::fmt::Debug for DemoIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DemoIdentity(..)")
    }
}

/// A fresh Ed25519 signing key from the operating system's generator.
fn random_signing_key() -> SigningKey {
    SigningKey::from_bytes(&platform::auth::random_bytes::<32>())
}

impl InstantSettings {
    /// The defaults with `virn_key`: what tests and benchmarks run with.
    pub fn with_key(virn_key: Secret) -> Self {
        let demo = age::x25519::Identity::generate();
        InstantSettings {
            virn_key: VirnKey::new(virn_key),
            prizes: PrizeRules::default(),
            commission_bps: 500,
            settle_after: Duration::from_secs(30 * 24 * 3600),
            printer: PrinterKeys { recipient: demo.to_public(), signing: random_signing_key() },
            printer_file_dir: platform::config::scratch_dir("printer-files"),
            demo_printer_identity: Some(DemoIdentity(demo)),
            lottery_identity: DemoIdentity(age::x25519::Identity::generate()),
            vendor_file_dir: platform::config::scratch_dir("vendor-files"),
            claim: domain::prizes::ClaimPeriod::default(),
        }
    }

    /// The defaults overridden by the environment; the secrets it does not give come from
    /// `kept` (made and kept by `lotto`, refused for the `instant` binary).
    pub fn from_env(kept: &KeptSecrets) -> Result<Self, ConfigError> {
        let key = kept.secret("LOTTO_VIRN_KEY", "virn-key")?;
        let d = InstantSettings::with_key(key);
        let printer_file_dir: PathBuf =
            env_or("LOTTO_PRINTER_FILE_DIR", PathBuf::from(".lotto/printer-files"))?;
        let recipient = match std::env::var("LOTTO_PRINTER_RECIPIENT") {
            Ok(text) if !text.trim().is_empty() => {
                text.trim().parse::<age::x25519::Recipient>().map_err(|e| ConfigError {
                    name: "LOTTO_PRINTER_RECIPIENT",
                    value: text.clone(),
                    reason: format!("not an age public key (age1...): {e}"),
                })?
            }
            _ => {
                let demo = demo_identity(kept, PRINTER_IDENTITY, "LOTTO_PRINTER_RECIPIENT")?;
                tracing::warn!(
                    identity = %kept.dir().join(PRINTER_IDENTITY).display(),
                    "LOTTO_PRINTER_RECIPIENT is not set: printer's files are encrypted to a demonstration printer's key"
                );
                demo.to_public()
            }
        };
        let vendor_file_dir: PathBuf = env_or("LOTTO_VENDOR_FILE_DIR", PathBuf::from(".lotto/vendor-files"))?;
        let lottery_identity = match Secret::from_env("LOTTO_LOTTERY_IDENTITY")? {
            Some(text) => String::from_utf8_lossy(text.expose())
                .trim()
                .parse::<age::x25519::Identity>()
                .map_err(|e| ConfigError {
                    name: "LOTTO_LOTTERY_IDENTITY",
                    value: String::new(),
                    reason: format!("not an age secret key (AGE-SECRET-KEY-...): {e}"),
                })?,
            None => {
                let demo = demo_identity(kept, LOTTERY_IDENTITY, "LOTTO_LOTTERY_IDENTITY")?;
                tracing::warn!(
                    identity = %kept.dir().join(LOTTERY_IDENTITY).display(),
                    "LOTTO_LOTTERY_IDENTITY is not set: vendors' files are decrypted with a demonstration key"
                );
                demo
            }
        };
        let seed = kept.secret("LOTTO_SIGNING_KEY", "signing-key")?;
        let seed = hex::decode(seed.expose()).ok().and_then(|b| <[u8; 32]>::try_from(b).ok());
        let signing = SigningKey::from_bytes(&seed.ok_or_else(|| ConfigError {
            name: "LOTTO_SIGNING_KEY",
            value: String::new(),
            reason: "64 hex digits (an Ed25519 seed)".to_owned(),
        })?);
        Ok(InstantSettings {
            prizes: PrizeRules::from_settings(env_or)?,
            commission_bps: env_or("LOTTO_RETAILER_COMMISSION_BPS", d.commission_bps)?,
            settle_after: Duration::from_secs(env_or(
                "LOTTO_PACK_SETTLE_AFTER_SECONDS",
                d.settle_after.as_secs(),
            )?),
            printer: PrinterKeys { recipient, signing },
            printer_file_dir,
            demo_printer_identity: None,
            lottery_identity: DemoIdentity(lottery_identity),
            vendor_file_dir,
            virn_key: d.virn_key,
            claim: domain::prizes::ClaimPeriod {
                days: env_or("LOTTO_INSTANT_CLAIM_DAYS", d.claim.days)?,
                holidays: platform::config::env_with(
                    "LOTTO_HOLIDAYS",
                    domain::prizes::ClaimPeriod::parse_holidays,
                )?,
            },
        })
    }
}

/// The file the demonstration printer's key is kept in (`lotto printer-file` reads it).
pub const PRINTER_IDENTITY: &str = "printer-identity.txt";
/// The file the demonstration lottery's key is kept in.
pub const LOTTERY_IDENTITY: &str = "lottery-identity.txt";

/// A demonstration's `age` key (the printer's without `LOTTO_PRINTER_RECIPIENT`, the lottery's
/// without `LOTTO_LOTTERY_IDENTITY`): made once and kept with the process's other secrets, so a
/// newcomer can decrypt a printer's file with `lotto printer-file` or encrypt a vendor's file to
/// the lottery. It is kept apart from the files it protects: a key beside the file it encrypts
/// protects nothing. Real keys are kept by their owners.
fn demo_identity(
    kept: &KeptSecrets,
    file: &str,
    setting: &'static str,
) -> Result<age::x25519::Identity, ConfigError> {
    use age::secrecy::ExposeSecret;
    let text = kept.demonstration(setting, file, || {
        age::x25519::Identity::generate().to_string().expose_secret().to_owned()
    })?;
    text.trim().parse::<age::x25519::Identity>().map_err(|e| ConfigError {
        name: setting,
        value: String::new(),
        reason: format!("{}: {e}", kept.dir().join(file).display()),
    })
}
