//! Every SQL statement of the instant service, and the typed states its rows hold. Nothing
//! outside this module writes SQL; the sagas call these functions inside the transactions they
//! open.
//!
//! - [`tickets`]: the scan (`scan_ticket`) and a prize payment's rows (reserve, done, confirm,
//!   release);
//! - [`office_claims`]: the office's record of a payment;
//! - [`receipts`]: the counter's receipt of a payment, found again by its idempotency key;
//! - [`packs`]: a pack's state moves and settlement, and the packs listed;
//! - [`print_runs`]: a run's rows, tickets written with COPY;
//! - [`reports`]: prize counts, open payments and validations for the operator's reads;
//! - [`sales_ends`]: games' announced ends of sales and their prizes' expiry;
//! - [`validation_log`]: every scan's log row, group-committed.

pub mod office_claims;
pub mod packs;
pub mod print_jobs;
pub mod print_runs;
pub mod receipts;
pub mod reports;
pub mod sales_ends;
pub mod tickets;
pub mod validation_log;

use platform::stored_state;

stored_state!(
    /// Where a pack is (see `saga::packs`): printed → shipped → received → active → settled, or
    /// returned to the lottery unsold, or reported stolen.
    pub PackState {
        Printed => "printed", Shipped => "shipped", Received => "received", Active => "active",
        Settled => "settled", Returned => "returned", Stolen => "stolen"
    }
);

stored_state!(
    /// Where a prize payment is (see `saga::payment`): reserved for its payee and waiting for the
    /// ledger, moved by the ledger, or answered "paid" to its payee.
    pub PaymentState { Pending => "pending", Done => "done", Confirmed => "confirmed" }
);

stored_state!(
    /// Where a print job is (see `saga::jobs`): waiting, being printed under a lease, or ended.
    pub JobState {
        Queued => "queued", Running => "running", Succeeded => "succeeded", Failed => "failed",
        Cancelled => "cancelled"
    }
);

stored_state!(
    /// Where a print job's run comes from: generated here, or imported from a vendor's file.
    pub JobSource { Generated => "generated", VendorFile => "vendor_file" }
);

/// A ticket's place: game, book and ticket number, as its rows key it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TicketPlace {
    pub game: i32,
    pub book: i32,
    pub ticket: i32,
}

/// The work waiting between the instant games' saga steps (`platform::metrics`' backlogs):
/// prize payments whose money has not moved, print jobs queued or running.
pub async fn backlogs(pool: &sqlx::PgPool) -> Result<Vec<platform::metrics::Backlog>, platform::AppError> {
    Ok(sqlx::query_as!(
        platform::metrics::Backlog,
        r#"SELECT 'instant_prize_payment' AS "kind!", count(*) AS "waiting!", min(paid_at) AS oldest
             FROM tickets WHERE payment IN ('pending', 'done') AND payment = 'pending'
           UNION ALL
           SELECT 'print_job', count(*), min(created_at) FROM print_jobs WHERE state IN ('queued', 'running')"#
    )
    .fetch_all(pool)
    .await?)
}
