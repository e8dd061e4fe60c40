//! Blackjack over the API: a player's table and shoe, rounds played as sagas through the ledger,
//! game recall, the Blazing 7's meter, and the math.
//!
//! On floors (ADR 0006): [`routes`] the handlers, [`saga`] a round's steps in order (deal,
//! decisions, settlement, recovery), [`steps`] each step as a pure function (the cards, the
//! ledger legs, the write), [`repository`] the
//! door its grouped writes and its memory go through, [`store`] every SQL statement and the
//! typed round state, [`views`] what a player sees, [`config`] the house's settings. See
//! [`saga`] for the round's steps and why no step holds a lock across the ledger.

platform::floor!(config);
platform::floor!(repository);
platform::floor!(routes);
platform::floor!(saga);
platform::floor!(steps);
platform::floor!(store);
platform::floor!(views);

pub use config::Limits;
pub use saga::{finish_abandoned, recover};

use ledger_api::LedgerClient;
use platform::AppError;
use uuid::Uuid;

use crate::kit::ledger::{Pot, open_game_accounts};

/// The game's ledger accounts, the house's posted limits, and its repository.
#[derive(Debug, Clone)]
pub struct Game {
    /// Wagers wait here until their round settles.
    pub escrow_account: Uuid,
    /// Takes settled wagers and pays wins.
    pub house_account: Uuid,
    /// The Blazing 7's progressive pot: real money, its balance is the meter.
    pub pot_account: Uuid,
    /// Table limits offered to players, and the posted progressive wager.
    pub limits: Limits,
    pub repository: repository::Repository,
}

impl Game {
    /// The accounts its rounds' money moves between.
    pub fn accounts(&self) -> steps::Accounts {
        steps::Accounts { escrow: self.escrow_account, house: self.house_account, pot: self.pot_account }
    }

    /// Opens the accounts if they are not there and seeds the Blazing 7's pot with $10,000 once
    /// (K.A.R. 111-301-5(j)(6)).
    pub async fn open_accounts(&self, ledger: &LedgerClient) -> Result<(), AppError> {
        let pot = Pot {
            account: self.pot_account,
            seed_id: Uuid::new_v5(&crate::TABLES_NAMESPACE, b"blackjack/blazing-7s-pot/seed/0"),
            seed_cents: domain::blackjack::side_wagers::BLAZING_SEVENS_SEED_CENTS,
        };
        open_game_accounts(
            ledger,
            ledger_api::Game::Blackjack,
            self.escrow_account,
            self.house_account,
            Some(pot),
        )
        .await
    }
}
