//! I Luv Suits over the API (K.A.R. 111-301-74 to -76): a round's wagers, its seven and seven
//! cards from a freshly shuffled deck, the player's fold or play, the settlement of every wager
//! through the ledger; game recall, the progressive meter and the math.
//!
//! On floors (ADR 0006): [`routes`] the handlers, [`saga`] a round's steps in order (wagers and
//! deal, decision, settlement, recovery), [`steps`] each step as a pure function (the cards, the
//! ledger legs, the write), [`repository`] the one door the steps
//! write and read through (its writers, the rounds it remembers), [`store`] every SQL statement
//! and the typed round state, [`views`] what a player sees, [`config`] the house's settings. The rules
//! themselves are `domain::i_luv_suits`.

platform::floor!(config);
platform::floor!(repository);
platform::floor!(routes);
platform::floor!(saga);
platform::floor!(steps);
platform::floor!(store);
platform::floor!(views);

pub use config::Limits;
pub use saga::{finish_abandoned, recover};

use domain::i_luv_suits::PROGRESSIVE_SEED_CENTS;
use ledger_api::LedgerClient;
use platform::AppError;
use uuid::Uuid;

use crate::kit::ledger::{Pot, open_game_accounts};

/// The game's ledger accounts, the house's posted limits, and its repository.
#[derive(Debug, Clone)]
pub struct Game {
    /// The ante, play and side wagers wait here until their round settles.
    pub escrow_account: Uuid,
    /// Takes settled wagers and the house's part of each progressive wager; pays wins.
    pub house_account: Uuid,
    /// The progressive pot: real money, its balance is the meter (76(i)(5)).
    pub pot_account: Uuid,
    pub limits: Limits,
    pub repository: repository::Repository,
}

impl Game {
    /// The accounts its rounds' money moves between.
    pub fn accounts(&self) -> steps::Accounts {
        steps::Accounts { escrow: self.escrow_account, house: self.house_account, pot: self.pot_account }
    }

    /// Opens the accounts if they are not there and funds the pot with $1,000 once (76(i)(5)).
    pub async fn open_accounts(&self, ledger: &LedgerClient) -> Result<(), AppError> {
        let pot = Pot {
            account: self.pot_account,
            seed_id: Uuid::new_v5(&crate::TABLES_NAMESPACE, b"i-luv-suits/progressive-pot/seed/0"),
            seed_cents: PROGRESSIVE_SEED_CENTS,
        };
        open_game_accounts(
            ledger,
            ledger_api::Game::ILuvSuits,
            self.escrow_account,
            self.house_account,
            Some(pot),
        )
        .await
    }
}
