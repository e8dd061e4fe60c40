//! What every table game shares, naming none of them (issue 33 §1): a game's repository is built
//! on these, and its saga calls the repository.
//!
//! - [`round`]: the driver every step of every game takes (read, plan, ledger batch, write,
//!   retry a lost race, remember), on a game's rows and its pure steps;
//! - [`ledger`]: a round's ledger batch, many rounds to a ledger call;
//! - [`store`]: the one-statement writers' shape (what the games' stores share), a batch of one
//!   kind of step to a statement, and the planner convention they follow; and the games' saga
//!   backlogs read for the metrics;
//! - [`cache`]: what this process last wrote of a row, remembered as a hint;
//! - [`house`]: the house's own limits, which every game's posted limits stay within.
//!
//! The recovery pass over every game is [`crate::recover_all`], each round finished by
//! `platform::recovery`.

platform::floor!(cache);
platform::floor!(house);
platform::floor!(ledger);
platform::floor!(round);
platform::floor!(store);

use ledger_api::LedgerClient;
use platform::group_commit::{BatchWrite, GroupCommit, OneStatement};
use sqlx::PgPool;

/// How the kit batches and remembers: the defaults are what the measurements kept (ADR 0010,
/// ADR 0012); the benchmark turns each off to measure what it buys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KitSettings {
    /// The most rounds' batches sharing one ledger call (1: none shared).
    pub ledger_batch: usize,
    /// The most jobs sharing one writer's statement (1: none shared).
    pub write_batch: usize,
    /// Whether repositories remember the rows they wrote.
    pub remember: bool,
}

impl Default for KitSettings {
    fn default() -> Self {
        KitSettings { ledger_batch: 64, write_batch: 64, remember: true }
    }
}

/// The shared machinery a game's repository is built on.
#[derive(Debug, Clone)]
pub struct Kit {
    /// Every game's ledger batches, many rounds to a call.
    pub ledger_calls: GroupCommit<ledger::LedgerCalls>,
    /// The one-statement writers' own pool, planning by key ([`platform::db::by_key_pool`]).
    writers: PgPool,
    /// The service's pool, for a repository's reads and its other writes.
    pool: PgPool,
    settings: KitSettings,
}

impl Kit {
    /// The kit on `pool`'s database, its ledger batches sent through `ledger`, and a pool of
    /// `writer_connections` for the writers (one a writer, once it has written: a game nobody
    /// plays holds none).
    pub fn spawn(pool: &PgPool, ledger: LedgerClient, writer_connections: u32, settings: KitSettings) -> Kit {
        let settings = KitSettings {
            ledger_batch: settings.ledger_batch.max(1),
            write_batch: settings.write_batch.max(1),
            ..settings
        };
        Kit {
            ledger_calls: GroupCommit::spawn_runner(ledger::LedgerCalls { ledger }, settings.ledger_batch),
            writers: platform::db::by_key_pool(pool, writer_connections),
            pool: pool.clone(),
            settings,
        }
    }

    /// The same kit sending its ledger batches through `ledger` (a test's unreachable one, say).
    #[must_use]
    pub fn with_ledger(&self, ledger: LedgerClient) -> Kit {
        let ledger_calls =
            GroupCommit::spawn_runner(ledger::LedgerCalls { ledger }, self.settings.ledger_batch);
        Kit { ledger_calls, ..self.clone() }
    }

    /// A one-statement writer of `write`'s batches, at most `write_batch` jobs to a statement.
    pub fn writer<W: BatchWrite>(&self, write: W) -> GroupCommit<OneStatement<W>> {
        GroupCommit::spawn_one_statement(self.writers.clone(), write, self.settings.write_batch)
    }

    /// A memory for a repository's rows (remembering nothing when the settings say so).
    pub fn memory<T>(&self) -> cache::Remembered<T> {
        cache::Remembered::of_at_most(if self.settings.remember { cache::Remembered::<T>::MOST } else { 0 })
    }

    /// The service's pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The pool the writers' connections come from.
    pub fn writers_pool(&self) -> &PgPool {
        &self.writers
    }
}

/// A [`BatchWrite`] that is one store function writing a whole batch in one statement (a game's
/// repository names its writers with it).
macro_rules! one_statement_write {
    ($(#[$doc:meta])* $name:ident, $job:ty, $write:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;

        impl platform::group_commit::BatchWrite for $name {
            type Job = $job;
            type Output = bool;

            async fn write_batch(
                &self,
                conn: &mut sqlx::PgConnection,
                jobs: &[$job],
            ) -> Result<Vec<bool>, platform::AppError> {
                $write(conn, jobs).await
            }
        }
    };
}
pub(crate) use one_statement_write;
