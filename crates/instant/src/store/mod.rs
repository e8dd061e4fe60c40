//! Every SQL statement of the instant service, and the typed states its rows hold. Nothing
//! outside this module writes SQL; the sagas call these functions inside the transactions they
//! open.
//!
//! - [`tickets`]: the scan (`scan_ticket`) and a prize payment's rows (reserve, done, confirm,
//!   release);
//! - [`office_claims`]: the office's record of a payment;
//! - [`packs`]: a pack's state moves and settlement;
//! - [`print_runs`]: a run's rows, tickets written with COPY;
//! - [`reports`]: prize counts, open payments and validations for the operator's reads;
//! - [`validation_log`]: every scan's log row, group-committed.

pub mod office_claims;
pub mod packs;
pub mod print_runs;
pub mod reports;
pub mod tickets;
pub mod validation_log;

use platform::AppError;

/// Where a pack is: packs move only forward, printed → assigned → active → settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackState {
    Printed,
    Assigned,
    Active,
    Settled,
}

impl PackState {
    pub fn as_str(self) -> &'static str {
        match self {
            PackState::Printed => "printed",
            PackState::Assigned => "assigned",
            PackState::Active => "active",
            PackState::Settled => "settled",
        }
    }

    fn parse(text: &str) -> Result<Self, AppError> {
        Ok(match text {
            "printed" => PackState::Printed,
            "assigned" => PackState::Assigned,
            "active" => PackState::Active,
            "settled" => PackState::Settled,
            other => return Err(AppError::internal(format!("a pack in an unknown state {other:?}"))),
        })
    }
}

/// Where a prize payment is (see `saga::payment`): reserved for its payee and waiting for the
/// ledger, moved by the ledger, or answered "paid" to its payee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentState {
    Pending,
    Done,
    Confirmed,
}

impl PaymentState {
    fn parse(text: &str) -> Result<Self, AppError> {
        Ok(match text {
            "pending" => PaymentState::Pending,
            "done" => PaymentState::Done,
            "confirmed" => PaymentState::Confirmed,
            other => return Err(AppError::internal(format!("a payment in an unknown state {other:?}"))),
        })
    }
}

/// A ticket's place: game, book and ticket number, as its rows key it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TicketPlace {
    pub game: i32,
    pub book: i32,
    pub ticket: i32,
}
