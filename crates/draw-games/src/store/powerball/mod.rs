//! Powerball as stored: [`drawings`] (each drawing's row and steps) and [`tickets`] (sales and
//! the plays they place in their drawings).

pub mod drawings;
pub mod tickets;
