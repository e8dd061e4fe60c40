//! Powerball's steps: [`sales`] (slips sold at terminals and online), [`draws`] (a drawing
//! closed, exported, given its results, settled and certified) and [`claims`] (prizes claimed at
//! terminals and the office, and expired).

pub mod claims;
pub mod draws;
pub mod sales;
