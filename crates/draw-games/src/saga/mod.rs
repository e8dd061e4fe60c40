//! The steps of the draw games that move money and state, on typed values: the handlers in
//! [`crate::routes`] call these, and these call [`crate::store`] for rows and `ledger_api` for
//! money.
//!
//! - [`play_now`]: a ticket bought, drawn and settled at once;
//! - [`scheduled`]: a ticket bought for the next draw or the next N draws;
//! - [`draws`]: the leader that closes, draws and settles every scheduled draw.
//!
//! Both kinds of ticket are recovered by one [`recover`].

pub mod draws;
pub mod play_now;
pub mod scheduled;

use std::future::Future;
use std::time::Duration;

use platform::AppError;
use uuid::Uuid;

use crate::DrawsState;
use crate::store::tickets::{StoredTicket, stuck};

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
    platform::recovery::finish_stuck(&state.pool, &stuck::<T>(), older_than, T::WHAT, drive).await
}
