//! The gateway's steps that move money and state, on typed values: the handlers in
//! [`crate::routes`] call these, and these call [`crate::store`] for rows and `ledger_api` for
//! money.
//!
//! - [`players`]: registration with a wallet, deposit limits;
//! - [`protection`]: player protection (ADR 0014): money, deposit and time limits, breaks,
//!   self-exclusion and closure, reality checks, the activity statement;
//! - [`exclusion_lists`]: state and operator exclusion lists, and dormant accounts;
//! - [`payments`]: deposits and withdrawals through the provider, settled by its webhook;
//! - [`sessions`]: logins, renewals and the idle timeout;
//! - [`staff`]: staff, retailers and terminal keys.

pub mod exclusion_lists;
pub mod payments;
pub mod players;
pub mod protection;
pub mod sessions;
pub mod staff;
