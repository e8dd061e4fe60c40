//! The chain's watch (issue 51): every process walks the significant-events chain every
//! [`WATCH_EVERY`] from where its last walk ended to the head (at its start, from the last
//! [`FIRST_WALK`] events: a busy lottery's unsealed months are tens of millions, the whole
//! chain is walked by `lotto verify-events` and the console's check), and says on its
//! metrics when it last found it intact (`audit_chain_last_verified_timestamp_seconds`) and
//! whether it is (`audit_chain_intact`): an alert pages for a chain broken or gone unwalked.

use std::time::Duration;

use sqlx::PgPool;

use super::chain::verify_part;
use crate::AppError;
use crate::metrics::{AUDIT_CHAIN_INTACT, AUDIT_CHAIN_VERIFIED};

/// How often the chain is walked.
pub const WATCH_EVERY: Duration = Duration::from_secs(300);

/// Events one step of a walk reads before it goes on (a walk holds no more at a time).
const STEP: i64 = 10_000;

/// How far back a process's first walk begins: the last 100,000 events (an hour or more of a
/// state lottery's).
pub const FIRST_WALK: i64 = 100_000;

/// Walks the chain every `every` for as long as the process runs.
pub fn spawn_watch(pool: PgPool, every: Duration) {
    crate::metrics::ensure_recorder();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut walked_to = None;
        loop {
            tick.tick().await;
            match walk(&pool, walked_to).await {
                Ok((true, head)) => {
                    walked_to = head.or(walked_to);
                    metrics::gauge!(AUDIT_CHAIN_INTACT, "chain" => "events").set(1.0);
                    #[allow(clippy::cast_precision_loss)] // seconds since 1970 fit
                    metrics::gauge!(AUDIT_CHAIN_VERIFIED, "chain" => "events")
                        .set(chrono::Utc::now().timestamp() as f64);
                }
                Ok((false, broken)) => {
                    tracing::error!(first_broken_seq = ?broken, "the significant-events chain does not verify");
                    metrics::gauge!(AUDIT_CHAIN_INTACT, "chain" => "events").set(0.0);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the significant-events chain could not be walked; retrying");
                }
            }
        }
    });
}

/// One walk from after `from` (or over the last [`FIRST_WALK`] events kept) to the head:
/// whether it is intact, and the head reached (or the first event that is not).
async fn walk(pool: &PgPool, from: Option<i64>) -> Result<(bool, Option<i64>), AppError> {
    let mut after = match from {
        Some(seq) => Some(seq),
        None => super::chain::kept_range(pool)
            .await?
            .and_then(|(first, last)| (last - first > FIRST_WALK).then_some(last - FIRST_WALK)),
    };
    loop {
        let check = verify_part(pool, after, STEP).await?;
        if !check.intact {
            return Ok((false, check.first_broken_seq));
        }
        after = check.head_seq.or(after);
        if check.complete {
            return Ok((true, after));
        }
    }
}
