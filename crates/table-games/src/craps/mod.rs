//! Craps over the API (K.A.R. 111-501-44, -45): a player's session at a table, bets made, taken
//! down and called on or off, one roll per request deciding every bet at once through one ledger
//! batch; game recall and the exact math.
//!
//! On floors (ADR 0006): [`routes`] the handlers, [`saga`] a request's steps in order and
//! recovery, [`steps`] each step as a pure function (the dice, the ledger legs, the write),
//! [`repository`] the one door the steps write and read through (its writers, the sessions it
//! remembers, the requests in flight), [`store`] every SQL statement, [`views`] what a player
//! sees, [`config`] the house's settings.
//! The rules themselves are `domain::craps`.

platform::floor!(config);
platform::floor!(repository);
platform::floor!(routes);
platform::floor!(saga);
platform::floor!(steps);
platform::floor!(store);
platform::floor!(views);

pub use config::Limits;
pub use saga::{close_abandoned, recover};

use ledger_api::LedgerClient;
use platform::AppError;
use uuid::Uuid;

use crate::kit::ledger::open_game_accounts;

/// The game's ledger accounts, the house's posted limits, and its repository.
#[derive(Debug, Clone)]
pub struct Game {
    /// Every bet on a layout waits here until a roll decides it or it is taken down.
    pub escrow_account: Uuid,
    /// Takes lost bets and commissions; pays winnings.
    pub house_account: Uuid,
    pub limits: Limits,
    pub repository: repository::Repository,
}

impl Game {
    pub async fn open_accounts(&self, ledger: &LedgerClient) -> Result<(), AppError> {
        open_game_accounts(ledger, ledger_api::Game::Craps, self.escrow_account, self.house_account, None)
            .await
    }
}
