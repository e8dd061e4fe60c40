//! The gateway's wire types (architecture §1): what its handlers take and answer, built from the
//! store's rows, never read from the database by name.

pub mod adjustments;
pub mod events;
pub mod identity;
pub mod location;
pub mod payments;
pub mod players;
pub mod protection;
pub mod sessions;
pub mod staff;
