//! The steps of the instant service that move money and state, each on typed values: the
//! handlers in [`crate::routes`] call one of these, and these call [`crate::store`] for rows and
//! `ledger_api` for money.
//!
//! - [`scan`]: the checks of a scanned ticket, in order, each refusal logged;
//! - [`payment`]: a prize paid to its payee (a retailer or the office), exactly once;
//! - [`counter`]: a prize claimed at a retailer's till, once per Idempotency-Key;
//! - [`packs`]: a pack's life, from shipped to settled (or returned, or stolen);
//! - [`jobs`]: print jobs queued, run in the background and taken up again after a crash;
//! - [`print_run`]: a game's whole order generated, stored and funded;
//! - [`vendor_run`]: a run a printing vendor generated, imported from its validation file;
//! - [`reports`]: the retailers whose validations are unusual for the games' odds;
//! - [`sales`]: a game's end of sales announced, and its unclaimed prizes expired after.

pub mod counter;
pub mod jobs;
pub mod packs;
pub mod payment;
pub mod print_run;
pub mod reports;
pub mod sales;
pub mod scan;
pub mod vendor_run;
