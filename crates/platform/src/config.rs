//! Settings from environment variables, each with a default that works on a developer's machine.
//!
//! | variable                     | default            | meaning                                      |
//! |------------------------------|--------------------|----------------------------------------------|
//! | `DATABASE_URL`               | (found or started) | Postgres to use; see the `lotto` command     |
//! | `LOTTO_LISTEN`               | `127.0.0.1:8080`   | address the HTTP server binds                |
//! | `LOTTO_DB_MAX_CONNECTIONS`   | 12 per core (24 on two) | the process's connections to Postgres, every pool and writer together ([`crate::db::split_budget`]) |
//! | `LOTTO_BODY_LIMIT_BYTES`     | `1048576`          | largest request body accepted (413 above)    |
//! | `LOTTO_REQUEST_TIMEOUT_MS`   | `10000`            | a request still running after this gets 503 (408 when its body has not all arrived) |
//! | `LOTTO_HOLD_SWEEP_MS`        | `1000`             | how often expired ledger holds are voided    |
//! | `LOTTO_TOKEN_SECRET`         | (required; `lotto` keeps its own) | signs access tokens; 32+ bytes, shared by all services |
//! | `LOTTO_SECRETS_DIR`          | `.lotto/secrets`   | where `lotto` keeps the secrets it made ([`crate::secrets`]) |
//! | `LOTTO_ACCESS_TOKEN_TTL_S`   | `900`              | lifetime of an access token                  |
//! | `LOTTO_METRICS_LISTEN`       | (none)             | where Prometheus `/metrics` is served        |
//! | `LOTTO_LOG`                  | `info`             | `tracing` filter (`RUST_LOG` syntax)         |
//! | `LOTTO_LOG_FORMAT`           | `text`             | `text` or `json`                             |

use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

use crate::auth::TokenKeys;

/// A variable that is set but cannot be parsed.
#[derive(Debug, thiserror::Error)]
#[error("environment variable {name}={value:?} is invalid: {reason}")]
pub struct ConfigError {
    pub name: &'static str,
    pub value: String,
    pub reason: String,
}

/// Reads `name`, falling back to `default` when it is unset or empty.
pub fn env_or<T>(name: &'static str, default: T) -> Result<T, ConfigError>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    match std::env::var(name) {
        Ok(value) if !value.trim().is_empty() => {
            value.trim().parse().map_err(|e: T::Err| ConfigError { name, value, reason: e.to_string() })
        }
        _ => Ok(default),
    }
}

/// Reads `name` (empty when unset) through `parse`, its refusal the setting's.
pub fn env_with<T>(
    name: &'static str,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, ConfigError> {
    let value = std::env::var(name).unwrap_or_default();
    parse(&value).map_err(|reason| ConfigError { name, value: value.clone(), reason })
}

/// Words that mark a value as a placeholder someone forgot to replace.
const PLACEHOLDERS: [&str; 8] = [
    "please-set",
    "please set",
    "changeme",
    "change-me",
    "change_me",
    "placeholder",
    "replace-me",
    "example",
];

/// A secret from the environment, refused when it is shorter than 32 bytes or is a known
/// placeholder (`please-set-...`, `changeme`, one character repeated): a deployment must not
/// start with a secret anyone could guess from the repository.
pub fn checked_secret(name: &'static str, value: &str) -> Result<Vec<u8>, ConfigError> {
    let refuse = |reason: &str| ConfigError { name, value: "(hidden)".to_owned(), reason: reason.to_owned() };
    if value.len() < 32 {
        return Err(refuse("a secret must be 32 bytes or more"));
    }
    let lower = value.to_ascii_lowercase();
    if PLACEHOLDERS.iter().any(|p| lower.contains(p))
        || value.bytes().all(|b| Some(b) == value.bytes().next())
    {
        return Err(refuse("this is a placeholder, not a secret: generate one (openssl rand -hex 32)"));
    }
    Ok(value.as_bytes().to_vec())
}

/// A secret (a signing or hashing key): its `Debug` and `Display` say `(hidden)`, so no log line,
/// panic message or settings dump can print it; [`Secret::expose`] is the one way to its bytes.
#[derive(Clone)]
pub struct Secret(std::sync::Arc<Vec<u8>>);

impl Secret {
    pub fn new(bytes: Vec<u8>) -> Self {
        Secret(std::sync::Arc::new(bytes))
    }

    /// `name` from the environment through [`checked_secret`]; `None` when it is unset or empty.
    pub fn from_env(name: &'static str) -> Result<Option<Self>, ConfigError> {
        match std::env::var(name) {
            Ok(value) if !value.is_empty() => Ok(Some(Secret::new(checked_secret(name, &value)?))),
            _ => Ok(None),
        }
    }

    /// 32 random bytes, for a process that keeps nothing past its end.
    pub fn random() -> Self {
        Secret::new(crate::auth::random_bytes::<32>().to_vec())
    }

    pub fn expose(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret((hidden))")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(hidden)")
    }
}

/// The settings every service shares.
#[derive(Debug, Clone)]
pub struct Config {
    /// `DATABASE_URL`, when set.
    pub database_url: Option<String>,
    pub listen: SocketAddr,
    /// The process's connection budget (`LOTTO_DB_MAX_CONNECTIONS`); a service's pool is given
    /// its share by [`Config::with_pool`] or [`Config::alone`].
    pub db_max_connections: u32,
    pub body_limit_bytes: usize,
    pub request_timeout: Duration,
    pub hold_sweep_interval: Duration,
    /// `LOTTO_TOKEN_SECRET`, when set.
    pub token_secret: Option<String>,
    pub access_token_ttl: Duration,
    /// `LOTTO_METRICS_LISTEN`: the metrics listener, off the API port; none when unset.
    pub metrics_listen: Option<SocketAddr>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            database_url: None,
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            // The process's budget: a few per core for each service (measured on 2 cores, more
            // connections only queue inside Postgres).
            db_max_connections: crate::db::default_budget(),
            body_limit_bytes: 1 << 20,
            request_timeout: Duration::from_secs(10),
            hold_sweep_interval: Duration::from_secs(1),
            token_secret: None,
            access_token_ttl: Duration::from_secs(900),
            metrics_listen: None,
        }
    }
}

impl Config {
    /// The defaults, overridden by whatever the environment sets.
    pub fn from_env() -> Result<Self, ConfigError> {
        let d = Config::default();
        Ok(Config {
            database_url: std::env::var("DATABASE_URL").ok().filter(|s| !s.trim().is_empty()),
            listen: env_or("LOTTO_LISTEN", d.listen)?,
            db_max_connections: env_or("LOTTO_DB_MAX_CONNECTIONS", d.db_max_connections)?,
            body_limit_bytes: env_or("LOTTO_BODY_LIMIT_BYTES", d.body_limit_bytes)?,
            request_timeout: Duration::from_millis(env_or("LOTTO_REQUEST_TIMEOUT_MS", 10_000u64)?),
            hold_sweep_interval: Duration::from_millis(env_or("LOTTO_HOLD_SWEEP_MS", 1_000u64)?),
            token_secret: std::env::var("LOTTO_TOKEN_SECRET").ok().filter(|s| !s.is_empty()),
            access_token_ttl: Duration::from_secs(env_or("LOTTO_ACCESS_TOKEN_TTL_S", 900u64)?),
            metrics_listen: match std::env::var("LOTTO_METRICS_LISTEN") {
                Ok(v) if !v.trim().is_empty() => Some(env_or("LOTTO_METRICS_LISTEN", d.listen)?),
                _ => None,
            },
        })
    }

    /// The same settings with a pool of `size` connections (one service's share of the budget).
    #[must_use]
    pub fn with_pool(&self, size: u32) -> Config {
        Config { db_max_connections: size, ..self.clone() }
    }

    /// The settings of a service run alone: its pool is the whole budget less the
    /// `held_apart` connections it keeps outside its pool (writers, a lock).
    pub fn alone(&self, held_apart: u32) -> Result<Config, ConfigError> {
        let pool = crate::db::split_budget(self.db_max_connections, held_apart, &[1]).map_err(|reason| {
            ConfigError {
                name: "LOTTO_DB_MAX_CONNECTIONS",
                value: self.db_max_connections.to_string(),
                reason,
            }
        })?;
        Ok(self.with_pool(pool.first().copied().unwrap_or(1)))
    }

    /// The token keys from `LOTTO_TOKEN_SECRET`; a service run on its own cannot do without them,
    /// since every service of a deployment must verify the same tokens.
    pub fn token_keys(&self) -> Result<TokenKeys, ConfigError> {
        let secret = self.token_secret.as_deref().ok_or_else(|| ConfigError {
            name: "LOTTO_TOKEN_SECRET",
            value: String::new(),
            reason: "must be set (32 or more bytes) when a service runs on its own".to_owned(),
        })?;
        let secret = checked_secret("LOTTO_TOKEN_SECRET", secret)?;
        TokenKeys::from_secret(&secret).map_err(|reason| ConfigError {
            name: "LOTTO_TOKEN_SECRET",
            value: "(hidden)".to_owned(),
            reason,
        })
    }
}

/// A fresh directory for one test's or benchmark's files (`what` names them), under the system's
/// temporary directory. Directories made more than an hour ago are removed first, so runs leave
/// no files behind them for long (a benchmark's are hundreds of megabytes).
pub fn scratch_dir(what: &str) -> std::path::PathBuf {
    let root = std::env::temp_dir().join("lotto-scratch");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    if let Ok(entries) = std::fs::read_dir(&root) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let made = name.split('-').next().and_then(|s| s.parse::<u64>().ok()).unwrap_or(now);
            if now.saturating_sub(made) > 3_600 {
                // Best effort: another run may be removing it at the same moment.
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    root.join(format!("{now}-{}", uuid::Uuid::new_v4())).join(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_short_secrets_are_refused() {
        for bad in [
            "short",
            "please-set-LOTTO_TOKEN_SECRET-to-32-random-bytes",
            "changeme-changeme-changeme-changeme",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "an-example-secret-that-is-long-enough",
        ] {
            assert!(checked_secret("S", bad).is_err(), "{bad}");
        }
        assert!(checked_secret("S", "3f9c1e77a0b24d5e8c6f1a2b3c4d5e6f7a8b9c0d").is_ok());
    }

    #[test]
    fn a_secret_never_prints() {
        let secret = Secret::new(b"3f9c1e77a0b24d5e8c6f1a2b3c4d5e6f".to_vec());
        assert!(!format!("{secret:?} {secret}").contains("3f9c"));
        assert_eq!(secret.expose(), b"3f9c1e77a0b24d5e8c6f1a2b3c4d5e6f");
    }
}
