//! Player protection (ADR 0014), by what each part does: [`limits`] (money and time limits),
//! [`statement`] (the activity statement and wallet lines), [`suspension`] (breaks, exclusion,
//! closure and the ledger kept in step) and [`stake_gate`] (what a stake passes first: the game
//! session, its reality check, the time limits).

mod limits;
mod stake_gate;
mod statement;
mod suspension;

pub(crate) use limits::*;
pub(crate) use stake_gate::*;
pub(crate) use statement::*;
pub(crate) use suspension::*;
