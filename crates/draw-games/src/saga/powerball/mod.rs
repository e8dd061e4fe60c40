//! Powerball's steps: [`sales`] (slips sold at terminals and online), [`draws`] (a drawing
//! closed, exported, given its results, settled and certified), [`claims`] (prizes claimed at
//! terminals and the office, and expired) and [`annuities`] (a grand prize's yearly payments).

pub mod annuities;
pub mod claims;
pub mod draws;
pub mod sales;
