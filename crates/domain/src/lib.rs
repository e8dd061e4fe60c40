//! The pure heart of the platform: every game rule and the money math they pay with.
//!
//! Nothing here does I/O, awaits, or knows about HTTP or SQL (architecture §1), so every rule can be
//! tested exhaustively and reused by every service without re-implementing it.
#![warn(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

pub mod blackjack;
pub mod cards;
pub mod craps;
pub mod eligibility;
pub mod i_luv_suits;
pub mod instant;
pub mod keno;
pub mod math;
pub mod money;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod powerball;
pub mod prizes;
pub mod reports;
pub mod serial;
pub mod text;

pub use money::{Amount, Currency, Money, MoneyError};
