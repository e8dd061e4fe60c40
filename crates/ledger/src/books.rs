//! The books watched (issue 51): every minute the trial balance's debits less credits per
//! currency as the gauge `ledger_imbalance_cents`, which is 0 unless something is badly wrong,
//! so an alert pages the moment it is not.

use std::time::Duration;

use sqlx::PgPool;

use crate::store;

/// Samples the trial balance every `interval`.
pub fn spawn_imbalance_gauge(pool: PgPool, interval: Duration) -> tokio::task::JoinHandle<()> {
    platform::metrics::ensure_recorder();
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match store::trial_balance(&pool).await {
                Ok(balance) => {
                    for c in &balance.currencies {
                        #[allow(clippy::cast_precision_loss)] // an imbalance far below 2^53 cents
                        let off = c.debits_posted.saturating_sub(c.credits_posted) as f64;
                        let currency = c.currency.as_str().to_owned();
                        metrics::gauge!(platform::metrics::LEDGER_IMBALANCE, "currency" => currency).set(off);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "sampling the trial balance failed; will retry"),
            }
        }
    })
}
