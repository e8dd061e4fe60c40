//! The gateway's steps that move money and state, on typed values: the handlers in
//! [`crate::routes`] call these, and these call [`crate::store`] for rows and `ledger_api` for
//! money.
//!
//! - [`players`]: registration with a wallet, deposit limits;
//! - [`identity`]: the player file, the identity provider's check, the gate before money;
//! - [`links`]: the one-time links mailed to players (an address proved, a password reset);
//! - [`mail`]: what is written to players, and the worker that sends it;
//! - [`protection`]: player protection (ADR 0014): money, deposit and time limits, breaks,
//!   self-exclusion and closure, reality checks, the activity statement;
//! - [`exclusion_lists`]: state and operator exclusion lists, and dormant accounts;
//! - [`payments`]: deposits and withdrawals through the provider, settled by its webhook;
//! - [`sessions`]: logins, renewals and the idle timeout;
//! - [`staff`]: staff, retailers and terminal keys;
//! - [`events`]: the significant-events log as regulators read it (issue 50).

pub mod adjustments;
pub mod events;
pub mod exclusion_lists;
pub mod identity;
pub mod links;
pub mod location;
pub mod mail;
pub mod payments;
pub mod players;
pub mod protection;
pub mod second_factor;
pub mod sessions;
pub mod staff;
