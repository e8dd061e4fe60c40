//! The gateway's store floor (architecture §1): every SQL statement of the gateway, by what it keeps.

pub mod adjustments;
pub mod exclusions;
pub mod identity;
pub mod location;
pub mod mail;
pub mod payments;
pub mod play;
pub mod players;
pub mod rate_limits;
pub mod second_factor;
pub mod sessions;
pub mod staff;
