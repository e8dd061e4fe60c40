//! Powerball as stored: [`annuities`] (grand prizes paid yearly), [`drawings`] (each drawing's row and steps), [`settlement`] (its
//! winners, prize table and certification), [`result_entries`] (the
//! operators' entries of official results), [`claims`] (prizes paid once, and expired),
//! [`tickets`] (sales and the plays they place in their drawings), [`sale_writes`] (a sale's
//! writes, group-committed) and [`wager_set`] (a closed drawing's plays, exported).

pub mod annuities;
pub mod claims;
pub mod drawings;
pub mod result_entries;
pub mod sale_writes;
pub mod settlement;
pub mod tickets;
pub mod wager_set;

/// How the office is recorded as a claim's payee (and an annuity's payer).
pub const OFFICE: &str = "office";
