//! The recovery pass every saga shares (DESIGN §4): find the rounds or tickets a crash left
//! between steps, and drive each forward with the saga's own idempotent steps.

use std::future::Future;
use std::time::Duration;

use sqlx::PgPool;
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
            Ok(_) => finished = finished.saturating_add(1),
            Err(e) => {
                tracing::warn!(%id, error = %e, what, "could not finish it yet; the next pass will retry");
            }
        }
    }
    finished
}

/// Runs `stuck` (a query returning ids, with `$1` the seconds an item must have been idle) and
/// calls `drive` on each id; returns how many were driven without error. An item that fails is
/// logged and left for the next pass.
pub async fn finish_stuck<F, Fut, T>(
    pool: &PgPool,
    stuck: &str,
    older_than: Duration,
    what: &'static str,
    drive: F,
) -> Result<usize, AppError>
where
    F: Fn(Uuid) -> Fut,
    Fut: Future<Output = Result<T, AppError>>,
{
    let ids: Vec<Uuid> = sqlx::query_scalar(stuck).bind(older_than.as_secs_f64()).fetch_all(pool).await?;
    Ok(finish_each(ids, what, drive).await)
}
