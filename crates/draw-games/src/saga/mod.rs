//! The steps of the draw games that move money and state, on typed values: the handlers in
//! [`crate::routes`] call these, and these call [`crate::store`] for rows and `ledger_api` for
//! money.
//!
//! - [`play_now`]: a ticket bought, drawn and settled at once;
//! - [`scheduled`]: a ticket bought for the next draw or the next N draws;
//! - [`keno_draws`]: the steps that close, draw and settle every scheduled Keno draw;
//! - [`powerball_sales`]: Powerball slips sold at terminals and online;
//! - [`powerball_draws`]: a Powerball drawing closed, exported, given its results, settled and
//!   certified;
//! - [`powerball_claims`]: Powerball prizes claimed at terminals and the office, and expired;
//! - [`scheduler`]: the one leader that runs every draw game's due steps;
//! - [`voids`]: a player's tickets for future draws voided and refunded when their play is
//!   suspended.
//!
//! Both kinds of ticket are recovered by one [`recover`].

pub mod keno_draws;
pub mod play_now;
pub mod powerball_claims;
pub mod powerball_draws;
pub mod powerball_sales;
pub mod scheduled;
pub mod scheduler;
pub mod voids;

use std::future::Future;
use std::time::Duration;

use platform::AppError;
use uuid::Uuid;

use crate::DrawsState;
use crate::store::tickets::StoredTicket;

/// Finishes tickets of kind `T` left unfinished for longer than `older_than` with the kind's own
/// `drive`; returns how many.
pub async fn recover<T, F, Fut, V>(
    state: &DrawsState,
    older_than: Duration,
    drive: F,
) -> Result<usize, AppError>
where
    T: StoredTicket,
    F: Fn(Uuid) -> Fut,
    Fut: Future<Output = Result<V, AppError>>,
{
    Ok(platform::recovery::finish_each(T::stuck(&state.pool, older_than).await?, T::WHAT, drive).await)
}
