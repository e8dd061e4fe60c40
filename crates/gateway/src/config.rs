//! The gateway's own settings, read once at start; a value that does not parse is an error there.
//!
//! | variable                           | default   | meaning                                        |
//! |------------------------------------|-----------|------------------------------------------------|
//! | `LOTTO_RATE_PER_IDENTITY`          | `1200`    | requests per minute per token (all replicas)   |
//! | `LOTTO_RATE_PER_ADDRESS`           | `12000`   | requests per minute per client address         |
//! | `LOTTO_PAYMENTS_API_KEY`           | `sandbox` | what the gateway presents to the provider      |
//! | `LOTTO_PAYMENTS_TOLERANCE_SECONDS` | `300`     | how old a signed webhook may be                |
//! | `LOTTO_PAYMENTS_HOLD_SECONDS`      | `604800`  | how long a withdrawal's hold waits for the provider |
//! | `LOTTO_CORS_ORIGINS`               | none (`local` in `lotto`) | origins a browser may call the API from (see `crate::cors`) |
//! | `LOTTO_IDLE_TIMEOUT_S`             | `900`     | a player's or staff member's session ends after this long without a request |
//! | `LOTTO_SESSION_MAX_S`              | `43200`   | any session ends this long after its login  |
//! | `LOTTO_MAX_STREAMS_PER_ADDRESS`    | `20`      | live-results streams one client address may hold open through a replica |
//! | `LOTTO_LOCKOUT_AFTER_FAILURES`     | `3`       | failed logins in a row that lock a player's or staff member's account |
//! | `LOTTO_LOCKOUT_MINUTES`            | `15`      | how long a locked account stays locked         |
//! | `LOTTO_TIME_ZONE`                  | `America/Chicago` | the operator's zone: the days of a player's statement |
//! | `LOTTO_PASSWORD_CHECKS`            | the cores | argon2id password checks and hashes run at once by a replica (19 MiB each) |
//! | `LOTTO_PASSWORD_WAIT_MS`           | `5000`    | how long a login waits for one of them before it is refused 503 |
//! | `LOTTO_IDENTITY_REQUIRED`          | `true`    | no deposit and no stake before the player's identity is verified (`false` only for a demonstration without the check) |
//! | `LOTTO_LOCATION_REQUIRED`          | `true`    | no online stake without a location check of the login, from its address, in the jurisdiction (`false` only for a demonstration without the check) |
//! | `LOTTO_STAFF_SECOND_FACTOR`        | `true`    | operators and auditors log in with a TOTP code (or a recovery code) after the password |
//! | `LOTTO_LOCATION_MAX_AGE_S`         | `1200`    | how long a location check stands                |
//! | `LOTTO_JURISDICTION`               | `US-KS`   | where online play is allowed (ISO 3166-2)       |
//! | `LOTTO_LARGE_WIN_CENTS`            | `60000`   | a win of this many cents or more is told to the player by mail ($600 at least, the W-2G floor) |
//! | `LOTTO_SMTP_URL`                   | none      | the mail relay (`smtp://host:25`, `smtp://host:587?tls=required`, `smtps://user:pass@host`); none: messages are kept in the outbox (`GET /v1/mail`) |
//! | `LOTTO_MAIL_FROM`                  | `Lottery <no-reply@lottery.example>` | the sender of every message |
//! | `LOTTO_PUBLIC_URL`                 | `http://localhost:8080` | where players open the web client: the links in messages point there |

use std::time::Duration;

use platform::auth::Role;
use platform::config::{ConfigError, Secret, env_or};
use platform::upstream::Upstream;
use platform::webhook::WebhookSecret;

/// Everything the gateway is configured with (beside `platform::config::Config`).
#[derive(Debug, Clone)]
pub struct GatewaySettings {
    pub rate_per_identity: u32,
    pub rate_per_address: u32,
    pub payments: PaymentSettings,
    /// The origins a browser may call the API from.
    pub cors: crate::cors::CorsOrigins,
    /// A player's or staff member's session ends after this long without a request
    /// (`crate::saga::sessions`; 15 minutes: the New Jersey and Pennsylvania rules).
    pub idle_timeout: Duration,
    /// Any session ends this long after its login.
    pub session_lifetime: Duration,
    /// Live-results streams one client address may hold open through this replica (a shop's
    /// screens or a household behind one address share it).
    pub max_streams_per_address: usize,
    /// Failed logins in a row that lock an account (3: the New Jersey and Pennsylvania rules).
    pub lockout_after_failures: u32,
    /// How long a locked account stays locked.
    pub lockout: Duration,
    /// The operator's time zone: the days of a player's statement (Kansas: Central time).
    pub time_zone: chrono_tz::Tz,
    pub protection: ProtectionSettings,
    /// Password checks and hashes run at once by this replica (`crate::credentials::PasswordWork`):
    /// each holds 19 MiB while it runs, so this bounds what a flood of logins can make it hold.
    pub password_checks: usize,
    /// How long a login or registration waits for a password check's place before it is
    /// refused 503 with `Retry-After`.
    pub password_wait: Duration,
    /// How mail reaches players.
    pub mail: crate::mail::Mail,
    /// Whether deposits and stakes wait for a verified identity (`crate::saga::identity`).
    pub identity_required: bool,
    /// Whether online stakes wait for a location check (`crate::saga::location`).
    pub location_required: bool,
    /// Whether staff log in with a second factor (`crate::saga::second_factor`).
    pub staff_second_factor: bool,
    /// How long a location check stands (20 minutes).
    pub location_max_age: Duration,
    /// Where online play is allowed (ISO 3166-2: `US-KS`).
    pub jurisdiction: String,
}

/// Player protection's settings (ADR 0014).
#[derive(Debug, Clone)]
pub struct ProtectionSettings {
    /// An account without a login for this many days is dormant (`LOTTO_DORMANT_AFTER_DAYS`;
    /// three years by default).
    pub dormant_after_days: u32,
    /// The help line shown on the "play responsibly" page (`LOTTO_HELP_LINE`).
    pub help_line: String,
    /// How often every replica matches the exclusion lists against the players
    /// (`LOTTO_EXCLUSION_LIST_CHECK_S`; 15 minutes, so a list applies within the hour).
    pub exclusion_list_check: Duration,
    /// A win of this many cents or more is told to the player by mail (`LOTTO_LARGE_WIN_CENTS`;
    /// $600, the W-2G floor, and never less: the ledger lists no smaller credit).
    pub large_win_cents: i64,
}

impl Default for ProtectionSettings {
    fn default() -> Self {
        ProtectionSettings {
            dormant_after_days: 1095,
            help_line: "Call 1-800-522-4700, the National Problem Gambling Helpline: free, confidential, 24 hours a day."
                .to_owned(),
            exclusion_list_check: Duration::from_secs(900),
            large_win_cents: ledger_api::wire::LARGE_WIN_FLOOR_CENTS,
        }
    }
}

/// How the gateway deals with its payment provider.
#[derive(Debug, Clone)]
pub struct PaymentSettings {
    pub api_key: Secret,
    pub tolerance_seconds: i64,
    pub hold_seconds: i32,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        GatewaySettings {
            rate_per_identity: 1_200,
            rate_per_address: 12_000,
            payments: PaymentSettings {
                api_key: Secret::new(b"sandbox".to_vec()),
                tolerance_seconds: 300,
                hold_seconds: 7 * 24 * 3600,
            },
            cors: crate::cors::CorsOrigins::None,
            idle_timeout: Duration::from_secs(900),
            session_lifetime: Duration::from_secs(12 * 3600),
            max_streams_per_address: 20,
            lockout_after_failures: 3,
            lockout: Duration::from_secs(15 * 60),
            time_zone: chrono_tz::America::Chicago,
            protection: ProtectionSettings::default(),
            password_checks: std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get),
            password_wait: Duration::from_secs(5),
            mail: crate::mail::Mail::local(DEFAULT_SITE),
            identity_required: true,
            location_required: true,
            staff_second_factor: true,
            location_max_age: Duration::from_secs(20 * 60),
            jurisdiction: "US-KS".to_owned(),
        }
    }
}

impl PaymentSettings {
    /// `d` overridden by the environment.
    fn from_env(d: PaymentSettings) -> Result<Self, ConfigError> {
        Ok(PaymentSettings {
            api_key: match std::env::var("LOTTO_PAYMENTS_API_KEY") {
                Ok(key) if !key.is_empty() => Secret::new(key.into_bytes()),
                _ => d.api_key,
            },
            tolerance_seconds: env_or("LOTTO_PAYMENTS_TOLERANCE_SECONDS", d.tolerance_seconds)?,
            hold_seconds: env_or("LOTTO_PAYMENTS_HOLD_SECONDS", d.hold_seconds)?,
        })
    }
}

impl ProtectionSettings {
    /// `d` overridden by the environment.
    fn from_env(d: ProtectionSettings) -> Result<Self, ConfigError> {
        Ok(ProtectionSettings {
            dormant_after_days: at_least_one(
                "LOTTO_DORMANT_AFTER_DAYS",
                env_or("LOTTO_DORMANT_AFTER_DAYS", d.dormant_after_days)?,
                "day",
            )?,
            help_line: match std::env::var("LOTTO_HELP_LINE") {
                Ok(text) if !text.trim().is_empty() => text,
                _ => d.help_line,
            },
            exclusion_list_check: Duration::from_secs(at_least_one(
                "LOTTO_EXCLUSION_LIST_CHECK_S",
                env_or("LOTTO_EXCLUSION_LIST_CHECK_S", d.exclusion_list_check.as_secs())?,
                "second",
            )?),
            large_win_cents: match env_or("LOTTO_LARGE_WIN_CENTS", d.large_win_cents)? {
                cents if cents >= ledger_api::wire::LARGE_WIN_FLOOR_CENTS => cents,
                cents => {
                    return Err(ConfigError {
                        name: "LOTTO_LARGE_WIN_CENTS",
                        value: cents.to_string(),
                        reason: "a large win is 60000 cents ($600) or more".to_owned(),
                    });
                }
            },
        })
    }
}

impl GatewaySettings {
    /// The defaults overridden by the environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        let d = GatewaySettings::default();
        Ok(GatewaySettings {
            rate_per_identity: env_or("LOTTO_RATE_PER_IDENTITY", d.rate_per_identity)?,
            rate_per_address: env_or("LOTTO_RATE_PER_ADDRESS", d.rate_per_address)?,
            payments: PaymentSettings::from_env(d.payments)?,
            cors: match std::env::var("LOTTO_CORS_ORIGINS") {
                Ok(text) => crate::cors::CorsOrigins::parse(&text).map_err(|reason| ConfigError {
                    name: "LOTTO_CORS_ORIGINS",
                    value: text.clone(),
                    reason,
                })?,
                Err(_) => d.cors,
            },
            idle_timeout: Duration::from_secs(at_least_one(
                "LOTTO_IDLE_TIMEOUT_S",
                env_or("LOTTO_IDLE_TIMEOUT_S", d.idle_timeout.as_secs())?,
                "second",
            )?),
            session_lifetime: Duration::from_secs(at_least_one(
                "LOTTO_SESSION_MAX_S",
                env_or("LOTTO_SESSION_MAX_S", d.session_lifetime.as_secs())?,
                "second",
            )?),
            max_streams_per_address: env_or("LOTTO_MAX_STREAMS_PER_ADDRESS", d.max_streams_per_address)?,
            lockout_after_failures: at_least_one(
                "LOTTO_LOCKOUT_AFTER_FAILURES",
                env_or("LOTTO_LOCKOUT_AFTER_FAILURES", d.lockout_after_failures)?,
                "failure",
            )?,
            lockout: Duration::from_secs(
                60 * at_least_one(
                    "LOTTO_LOCKOUT_MINUTES",
                    env_or("LOTTO_LOCKOUT_MINUTES", d.lockout.as_secs() / 60)?,
                    "minute",
                )?,
            ),
            time_zone: match std::env::var("LOTTO_TIME_ZONE") {
                Ok(name) => name.parse().map_err(|_| ConfigError {
                    name: "LOTTO_TIME_ZONE",
                    value: name.clone(),
                    reason: "not an IANA time zone name (America/Chicago)".to_owned(),
                })?,
                Err(_) => d.time_zone,
            },
            protection: ProtectionSettings::from_env(d.protection)?,
            password_checks: at_least_one(
                "LOTTO_PASSWORD_CHECKS",
                env_or("LOTTO_PASSWORD_CHECKS", d.password_checks)?,
                "check",
            )?,
            password_wait: Duration::from_millis(env_or(
                "LOTTO_PASSWORD_WAIT_MS",
                u64::try_from(d.password_wait.as_millis()).unwrap_or(u64::MAX),
            )?),
            mail: mail_from_env()?,
            identity_required: env_or("LOTTO_IDENTITY_REQUIRED", d.identity_required)?,
            location_required: env_or("LOTTO_LOCATION_REQUIRED", d.location_required)?,
            staff_second_factor: env_or("LOTTO_STAFF_SECOND_FACTOR", d.staff_second_factor)?,
            location_max_age: Duration::from_secs(at_least_one(
                "LOTTO_LOCATION_MAX_AGE_S",
                env_or("LOTTO_LOCATION_MAX_AGE_S", d.location_max_age.as_secs())?,
                "second",
            )?),
            jurisdiction: env_or("LOTTO_JURISDICTION", d.jurisdiction)?,
        })
    }
}

/// Where players open the web client by default: `lotto` on this machine.
const DEFAULT_SITE: &str = "http://localhost:8080";

/// The mail relay, sender and site of the environment.
fn mail_from_env() -> Result<crate::mail::Mail, ConfigError> {
    let site = match std::env::var("LOTTO_PUBLIC_URL") {
        Ok(url) if !url.trim().is_empty() => url.trim().trim_end_matches('/').to_owned(),
        _ => DEFAULT_SITE.to_owned(),
    };
    if !(site.starts_with("https://") || site.starts_with("http://")) {
        return Err(ConfigError {
            name: "LOTTO_PUBLIC_URL",
            value: site,
            reason: "not an http(s) URL".to_owned(),
        });
    }
    let from = std::env::var("LOTTO_MAIL_FROM").unwrap_or_else(|_| crate::mail::DEFAULT_FROM.to_owned());
    match std::env::var("LOTTO_SMTP_URL") {
        Ok(url) if !url.trim().is_empty() => {
            let relay = crate::mail::MailRelay::smtp(url.trim(), &from).map_err(|reason| ConfigError {
                name: "LOTTO_SMTP_URL",
                // The URL may hold the relay's password: not repeated.
                value: "(hidden)".to_owned(),
                reason,
            })?;
            Ok(crate::mail::Mail { relay, site })
        }
        _ => Ok(crate::mail::Mail::local(&site)),
    }
}

/// A count of `unit`s that must be at least one.
fn at_least_one<N: Copy + PartialEq + From<u8>>(
    name: &'static str,
    count: N,
    unit: &str,
) -> Result<N, ConfigError> {
    if count == N::from(0) {
        return Err(ConfigError {
            name,
            value: "0".to_owned(),
            reason: format!("must be at least 1 {unit}"),
        });
    }
    Ok(count)
}

/// How the gateway reaches its payment provider, and how it checks the provider's callbacks.
#[derive(Debug, Clone)]
pub struct Payments {
    /// The provider's API (`LOTTO_PAYMENTS_URL`); `None` answers deposits and withdrawals 503.
    pub provider: Option<Upstream>,
    /// What the gateway presents to the provider (`LOTTO_PAYMENTS_API_KEY`).
    pub api_key: String,
    /// The secret the provider signs webhooks with (`LOTTO_PAYMENTS_WEBHOOK_SECRET`).
    pub webhook_secret: WebhookSecret,
    /// How far a webhook's timestamp may be from now (`LOTTO_PAYMENTS_TOLERANCE_SECONDS`, 300).
    pub tolerance_seconds: i64,
    /// How long a withdrawal's hold waits for the provider (`LOTTO_PAYMENTS_HOLD_SECONDS`, a
    /// week, the ledger's longest hold).
    pub hold_seconds: i32,
}

impl Payments {
    /// No provider: deposits and withdrawals answer 503 until one is configured.
    pub fn none() -> Payments {
        Payments {
            provider: None,
            api_key: String::new(),
            webhook_secret: WebhookSecret::random(),
            tolerance_seconds: 300,
            hold_seconds: 7 * 24 * 3600,
        }
    }

    /// The provider at `provider`, whose webhooks are signed with `secret`, dealt with as
    /// `settings` say.
    pub fn with_provider(provider: Upstream, secret: WebhookSecret, settings: &PaymentSettings) -> Payments {
        Payments {
            provider: Some(provider),
            api_key: String::from_utf8_lossy(settings.api_key.expose()).into_owned(),
            webhook_secret: secret,
            tolerance_seconds: settings.tolerance_seconds,
            hold_seconds: settings.hold_seconds,
        }
    }
}

/// How the gateway reaches its identity provider, and how it checks the provider's callbacks
/// (issue 49 §KYC).
#[derive(Debug, Clone)]
pub struct Identity {
    /// The provider's API (`lotto`'s sandbox, or a real provider's); `None` answers identity
    /// submissions 503.
    pub provider: Option<Upstream>,
    /// What the gateway presents to the provider (`LOTTO_IDENTITY_API_KEY`).
    pub api_key: String,
    /// The secrets the provider signs its webhooks with: the current one
    /// (`LOTTO_IDENTITY_WEBHOOK_SECRET`) and, during a rotation, the previous one
    /// (`LOTTO_IDENTITY_WEBHOOK_SECRET_PREVIOUS`); a delivery signed with either is taken.
    pub webhook_secrets: Vec<WebhookSecret>,
    /// How far a webhook's timestamp may be from now (seconds).
    pub tolerance_seconds: i64,
    /// The key the player file's sensitive parts are sealed with (`LOTTO_IDENTITY_KEY`).
    pub key: Secret,
    /// Whether deposits and stakes wait for a verified identity (`LOTTO_IDENTITY_REQUIRED`).
    pub required: bool,
}

impl Identity {
    /// No provider: identity submissions answer 503 until one is configured.
    pub fn none() -> Identity {
        Identity {
            provider: None,
            api_key: String::new(),
            webhook_secrets: vec![WebhookSecret::random()],
            tolerance_seconds: 300,
            key: Secret::new(platform::auth::random_bytes::<32>().to_vec()),
            required: false,
        }
    }

    /// The provider at `provider`, whose webhooks are signed with one of `secrets`; the file
    /// sealed with `key`.
    pub fn with_provider(
        provider: Upstream,
        api_key: &str,
        secrets: Vec<WebhookSecret>,
        key: Secret,
    ) -> Identity {
        Identity {
            provider: Some(provider),
            api_key: api_key.to_owned(),
            webhook_secrets: secrets,
            tolerance_seconds: 300,
            key,
            required: false,
        }
    }

    /// The same, requiring a verified identity before deposits and stakes when `required`.
    #[must_use]
    pub fn requiring(mut self, required: bool) -> Identity {
        self.required = required;
        self
    }
}

/// How the gateway reaches its geolocation provider, and what an online stake needs of it
/// (issue 49 §Location).
#[derive(Debug, Clone)]
pub struct Location {
    /// The provider's API (`lotto`'s sandbox, or `LOTTO_LOCATION_URL`); `None` answers checks 503.
    pub provider: Option<Upstream>,
    /// What the gateway presents to the provider (`LOTTO_LOCATION_API_KEY`).
    pub api_key: String,
    /// Where online play is allowed (`LOTTO_JURISDICTION`).
    pub jurisdiction: String,
    /// How long a check stands (`LOTTO_LOCATION_MAX_AGE_S`).
    pub max_age: Duration,
    /// Whether online stakes wait for a check (`LOTTO_LOCATION_REQUIRED`).
    pub required: bool,
}

impl Location {
    /// No provider: checks answer 503; stakes wait for one only if `settings` require it.
    pub fn none(settings: &GatewaySettings) -> Location {
        Location {
            provider: None,
            api_key: String::new(),
            jurisdiction: settings.jurisdiction.clone(),
            max_age: settings.location_max_age,
            required: settings.location_required,
        }
    }

    /// The provider at `provider`, presented `api_key`, as `settings` say.
    pub fn with_provider(provider: Upstream, api_key: &str, settings: &GatewaySettings) -> Location {
        Location { provider: Some(provider), api_key: api_key.to_owned(), ..Location::none(settings) }
    }
}

/// How long sessions and their tokens last.
#[derive(Debug, Clone, Copy)]
pub struct SessionPolicy {
    /// An access token's longest life (`LOTTO_ACCESS_TOKEN_TTL_S`).
    pub access_ttl: Duration,
    /// A player's or staff member's session ends after this long without a request.
    pub idle_timeout: Duration,
    /// Any session ends this long after its login, however used (a new login starts another).
    pub lifetime: Duration,
    /// Failed logins in a row that lock an account (`LOTTO_LOCKOUT_AFTER_FAILURES`).
    pub lockout_after_failures: u32,
    /// How long a locked account stays locked (`LOTTO_LOCKOUT_MINUTES`).
    pub lockout: Duration,
    /// Whether staff log in with a second factor (`LOTTO_STAFF_SECOND_FACTOR`).
    pub staff_second_factor: bool,
}

impl SessionPolicy {
    /// The idle timeout of a session of `role`: none for terminals and services.
    pub fn idle_timeout_of(&self, role: Role) -> Option<Duration> {
        matches!(role, Role::Player | Role::Operator | Role::Auditor).then_some(self.idle_timeout)
    }
}
