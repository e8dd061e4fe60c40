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

use ledger_api::NewTransfer;
use platform::AppError;
use platform::group_commit::BatchRun;
use uuid::Uuid;

use crate::DrawsState;
use crate::store::keno::tickets::StoredTicket;

/// Tickets' ledger batches (each ticket's transfers, in order: a Keno play-now ticket's stake and
/// prize, a Powerball slip's cost), sent to the ledger many tickets to a call: the ledger's cost
/// is mostly per call, not per transfer. A call the ledger refuses is sent again ticket by ticket
/// (see [`platform::group_commit`]), so one player's empty wallet refuses only that player's
/// ticket.
#[derive(Debug)]
pub struct LedgerBatches {
    pub ledger: ledger_api::LedgerClient,
}

impl BatchRun for LedgerBatches {
    type Job = Vec<NewTransfer>;
    type Output = ();

    async fn run_batch(&self, jobs: &[Vec<NewTransfer>]) -> Result<Vec<()>, AppError> {
        let transfers: Vec<NewTransfer> = jobs.iter().flatten().cloned().collect();
        self.ledger.batch(&transfers).await?;
        Ok(vec![(); jobs.len()])
    }
}

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
