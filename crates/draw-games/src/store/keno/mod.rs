//! Castle Keno as stored: [`tickets`] (both kinds of ticket on one load / list / recovery path,
//! the play-now saga's group-committed writes, a draw ticket's purchase steps) and [`draws`]
//! (the timetable, the draws' rows and their entries).

pub mod draws;
pub mod tickets;
