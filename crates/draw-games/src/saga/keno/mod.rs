//! Castle Keno's steps: [`play_now`] (a ticket bought, drawn and settled at once), [`scheduled`]
//! (a ticket for the next draw or the next N) and [`draws`] (the scheduled draws closed, drawn
//! and settled).

pub mod draws;
pub mod play_now;
pub mod scheduled;
