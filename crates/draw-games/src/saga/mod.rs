//! The steps of the draw games that move money and state, on typed values: the handlers in
//! [`crate::routes`] call these, and these call [`crate::store`] for rows and `ledger_api` for
//! money.
//!
//! - [`keno`]: tickets played now and for scheduled draws, and the draws closed, drawn and
//!   settled;
//! - [`powerball`]: slips sold at terminals and online, drawings closed, exported, given their
//!   results, settled and certified, and prizes claimed and expired;
//! - [`scheduler`]: the one leader that runs every draw game's due steps;
//! - [`voids`]: a player's tickets for future draws of both games voided and refunded when their
//!   play is suspended.
//!
//! Both kinds of ticket are recovered by one [`recover`].

pub mod keno;
pub mod powerball;
pub mod scheduler;
pub mod voids;

use std::future::Future;
use std::time::Duration;

use platform::AppError;
use uuid::Uuid;

use crate::DrawsState;
use crate::store::keno::tickets::StoredTicket;

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
