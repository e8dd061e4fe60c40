//! Blackjack over the API: a player's table and shoe, rounds played as sagas through the ledger,
//! game recall, the Blazing 7's meter, and the math.
//!
//! On floors (ADR 0006): [`routes`] the handlers, [`saga`] a round's steps (deal, decisions,
//! recovery), [`settlement`] its money steps (stakes, settlement, voiding), [`store`] every SQL
//! statement and the typed round state, [`views`] what a player sees, [`config`] the house's
//! settings. See [`saga`] for the round's steps and why no step holds a lock across the ledger.

pub mod config;
pub mod routes;
pub mod saga;
pub mod settlement;
pub mod store;
pub mod views;

pub use config::{Limits, MAX_HOUSE_WAGER_CENTS};
pub use saga::{finish_abandoned, recover};
