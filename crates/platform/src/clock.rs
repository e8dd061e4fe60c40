//! The time a service acts on: the system clock in production, a clock the test moves by hand
//! (so a test can buy a ticket at the exact instant sales close, or skip an hour of draws), or the
//! system clock shifted by a fixed offset (a demonstration or a process test that must meet a
//! drawing's close without waiting for its day).

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};

use crate::config::{ConfigError, env_or};

/// Now, as the service sees it. Cheap to clone; clones of a manual clock share its time.
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<Arc<Mutex<DateTime<Utc>>>>, Duration);

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Clock(None, Duration::zero())
    }

    /// The system clock, `by` ahead (behind when negative).
    pub fn shifted(by: Duration) -> Self {
        Clock(None, by)
    }

    /// A clock standing at `at` until it is set or advanced.
    pub fn manual(at: DateTime<Utc>) -> Self {
        Clock(Some(Arc::new(Mutex::new(at))), Duration::zero())
    }

    pub fn now(&self) -> DateTime<Utc> {
        match &self.0 {
            None => Utc::now() + self.1,
            Some(at) => *at.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
        }
    }

    /// Moves a manual clock to `at` (the system clock ignores it).
    pub fn set(&self, at: DateTime<Utc>) {
        if let Some(now) = &self.0 {
            *now.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = at;
        }
    }

    /// Moves a manual clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        self.set(self.now() + by);
    }
}

/// `LOTTO_CLOCK_OFFSET_SECONDS`: how far the draws' clock runs ahead of the system's (behind when
/// negative). 0 in production; a demonstration or a process test sets it to meet a drawing's
/// close without waiting for it.
pub fn offset_from_env() -> Result<i64, ConfigError> {
    let seconds = env_or("LOTTO_CLOCK_OFFSET_SECONDS", 0i64)?;
    // A century either way is more than any demonstration needs, and chrono can carry it.
    if seconds.unsigned_abs() > 100 * 366 * 24 * 3600 {
        return Err(ConfigError {
            name: "LOTTO_CLOCK_OFFSET_SECONDS",
            value: seconds.to_string(),
            reason: "at most a century either way".to_owned(),
        });
    }
    if seconds != 0 {
        tracing::warn!(
            seconds,
            "LOTTO_CLOCK_OFFSET_SECONDS is set: the draws run on a shifted clock (demonstrations and tests only)"
        );
    }
    Ok(seconds)
}
