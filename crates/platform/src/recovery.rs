//! The recovery pass every saga shares (architecture §4): the rounds or tickets a crash left between
//! steps (each saga's store finds them, with a checked query) driven forward, each with the
//! saga's own idempotent steps.

use std::future::Future;
use uuid::Uuid;

use crate::AppError;

/// Calls `drive` on each of `ids` (found stuck by the saga's store); returns how many were
/// driven without error. An item that fails is logged and left for the next pass.
pub async fn finish_each<F, Fut, T>(ids: Vec<Uuid>, what: &'static str, drive: F) -> usize
where
    F: Fn(Uuid) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    let mut finished = 0usize;
    for id in ids {
        match drive(id).await {
            Ok(_) => {
                finished = finished.saturating_add(1);
                metrics::counter!(crate::metrics::SAGA_RECOVERIES, "what" => what).increment(1);
            }
            Err(e) => {
                tracing::warn!(%id, error = %e, what, "could not finish it yet; the next pass will retry");
            }
        }
    }
    finished
}
