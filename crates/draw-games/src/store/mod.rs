//! Every SQL statement of the draw games. Nothing outside this module writes SQL.
//!
//! - [`tickets`]: both kinds of Keno ticket on one load / list / recovery path
//!   ([`tickets::StoredTicket`]), the play-now saga's group-committed writes, and a draw
//!   ticket's purchase steps;
//! - [`draws`]: the schedule, the draws' rows and their close, draw and settle steps, and the
//!   scheduler's leadership lock;
//! - [`powerball`]: Powerball drawings and their advertised grand prize.

pub mod draws;
pub mod powerball;
pub mod tickets;

use platform::AppError;

/// Defines a state enum stored as text, with its names.
macro_rules! stored_state {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(text: &str) -> Result<Self, AppError> {
                match text {
                    $($text => Ok($name::$variant),)+
                    other => Err(AppError::internal(format!(concat!("unknown ", stringify!($name), " {:?}"), other))),
                }
            }
        }
    };
}

stored_state!(
    /// A play-now ticket: drawn (numbers fixed, money not yet moved), then settled or refused.
    PlayNowState { Drawn => "drawn", Settled => "settled", Refused => "refused" }
);

stored_state!(
    /// A ticket for scheduled draws: open (recorded), then staked (in its draws) or refused.
    DrawTicketState { Open => "open", Staked => "staked", Refused => "refused" }
);

stored_state!(
    /// A scheduled draw, in order: sold, closed (wager set frozen), drawn, settled.
    DrawState { Scheduled => "scheduled", Open => "open", Closed => "closed", Drawn => "drawn", Settled => "settled" }
);
