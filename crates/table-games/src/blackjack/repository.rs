//! Blackjack's door to its grouped writes and its memory: the saga's deals, decisions and
//! settlements are written through this, which alone holds the game's one-statement writers,
//! the tables and rounds it remembers and when it forgets them, and the round as a write leaves
//! it. SQL itself is [`super::store`]'s; the machinery is the kit's. (Pages read rounds from the
//! store directly: they never write, nor use what is remembered.)
//!
//! **What is remembered.**
//! - Tables' players and rules, as read once: neither ever changes, and every deal needs both.
//! - Rounds in play as this process last wrote them, with their table's shoe as written with
//!   them, so that a decision is worked out without reading either first (a read is a round
//!   trip, and the shoe's 312 cards to decode). Safe with many processes: only the round in
//!   play at a table writes its shoe (one open or in play per table), and a decision worked out
//!   on a remembered round is written only if the round is still in play at the remembered step
//!   with no decision pending; a write that fails forgets the round, and the next attempt reads.
//! - Tables' shoes as this process last wrote them, with the count of the shoe's writes then, so
//!   that the next round is recorded without reading the shoe back. Safe with many processes: a
//!   deal is written only if the shoe's count is still the one remembered (every write of a
//!   shoe counts), else the round and the shoe are read and the deal made again.

use std::time::Duration;

use domain::blackjack::round::TableRules;
use domain::cards::Shoe;
use platform::AppError;
use platform::audit::Entry;
use platform::codes;
use platform::events::{self, Event, Kind};
use platform::group_commit::{GroupCommit, OneStatement};
use serde::Serialize;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

use super::store::{
    self, Dealt, Decision, NewRound, PendingDecision, ReadShoe, RoundState, Settled, StoredRound,
};
use crate::kit::Kit;
use crate::kit::cache::Remembered;
use crate::kit::round::Rows;

crate::kit::one_statement_write!(
    /// Rounds recorded ([`store::insert_rounds`]).
    Recorded, NewRound, store::insert_rounds
);
crate::kit::one_statement_write!(
    /// Rounds dealt with their tables' shoes ([`store::write_dealt_all`]).
    DealtRounds, Dealt, store::write_dealt_all
);
crate::kit::one_statement_write!(
    /// Decisions applied with their tables' shoes ([`store::write_decisions`]).
    Decisions, Decision, store::write_decisions
);
crate::kit::one_statement_write!(
    /// Rounds settled and chained ([`store::write_settled_all`]).
    SettledRounds, (Settled, Entry), store::write_settled_all
);

/// A round as the round driver reads it: the round and its table's shoe.
pub type Row = (StoredRound, ReadShoe);

/// The game's writers and memory.
#[derive(Debug, Clone)]
pub struct Repository {
    recorded: GroupCommit<OneStatement<Recorded>>,
    dealt: GroupCommit<OneStatement<DealtRounds>>,
    decided: GroupCommit<OneStatement<Decisions>>,
    settled: GroupCommit<OneStatement<SettledRounds>>,
    tables: Remembered<(String, TableRules)>,
    rounds: Remembered<Row>,
    shoes: Remembered<ReadShoe>,
    pool: PgPool,
}

impl Repository {
    /// The writers it starts (one connection each, once used).
    pub const WRITERS: u32 = 4;

    /// The grouped statements, with the indexes they must use (checked on a fresh database by
    /// `tests/grouped_plans.rs`).
    pub const GROUPED_STATEMENTS: &[(&str, &str, &[&str])] = &[
        ("blackjack dealt", store::DEALT, &["bj_rounds_pkey", "bj_tables_pkey"]),
        ("blackjack decision", store::DECIDED, &["bj_rounds_pkey", "bj_tables_pkey"]),
        ("blackjack settled", store::SETTLED, &["bj_rounds_pkey"]),
    ];

    pub fn spawn(kit: &Kit) -> Repository {
        Repository {
            recorded: kit.writer(Recorded),
            dealt: kit.writer(DealtRounds),
            decided: kit.writer(Decisions),
            settled: kit.writer(SettledRounds),
            tables: kit.memory(),
            rounds: kit.memory(),
            shoes: kit.memory(),
            pool: kit.pool().clone(),
        }
    }

    /// The same writers with nothing remembered: as another process serving the same tables.
    #[must_use]
    pub fn with_fresh_memory(&self) -> Repository {
        Repository {
            tables: self.tables.emptied(),
            rounds: self.rounds.emptied(),
            shoes: self.shoes.emptied(),
            ..self.clone()
        }
    }

    /// Records table `id` of `player` with its `rules` and first `shoe`.
    pub async fn open_table(
        &self,
        id: Uuid,
        player: &str,
        rules: &TableRules,
        shoe: &Shoe,
    ) -> Result<(), AppError> {
        store::insert_table(&self.pool, id, player, rules, shoe).await
    }

    /// Table `id`'s rules, if it exists and, when `player` is given, is theirs.
    pub async fn table_rules(&self, id: Uuid, player: Option<&str>) -> Result<TableRules, AppError> {
        let (owner, rules) = match self.tables.get(id, |_| true)? {
            Some(known) => known,
            None => {
                let read = store::table_owner_and_rules(&self.pool, id).await?;
                self.tables.remember(id, read.clone())?;
                read
            }
        };
        if player.is_some_and(|p| p != owner) {
            return Err(AppError::not_found(codes::TABLE_NOT_FOUND, format!("table {id} does not exist")));
        }
        Ok(rules)
    }

    /// Round `id` as stored.
    pub async fn load(&self, id: Uuid) -> Result<Option<StoredRound>, AppError> {
        store::load_round(&self.pool, id).await
    }

    /// Records `round` (`open`) with other rounds, and answers it as recorded with its table's
    /// shoe as this process last wrote it, if it did; none when it was not recorded (its id was
    /// recorded before, or its table has a round in play).
    pub async fn record(
        &self,
        round: &NewRound,
    ) -> Result<Option<(StoredRound, Option<ReadShoe>)>, AppError> {
        if !self.recorded.submit(round.clone()).await? {
            return Ok(None);
        }
        Ok(Some((round.stored(), self.shoes.get(round.table, |_| true)?)))
    }

    /// The round in play at `table`, if any.
    pub async fn in_play_at(&self, table: Uuid) -> Result<Option<StoredRound>, AppError> {
        store::round_in_play_at(&self.pool, table).await
    }

    /// Round `id` locked to be voided (and its table with it when `table` is given, so that its
    /// shoe may be saved), in a transaction of its own; none when the round is not there.
    pub async fn voiding(&self, id: Uuid, table: Option<Uuid>) -> Result<Option<Voiding>, AppError> {
        self.rounds.forget(id)?;
        let mut tx = self.pool.begin().await?;
        let round = store::lock_round(&mut tx, id, table).await?;
        if let Some(round) = &round {
            self.shoes.forget(round.table_id)?;
        }
        Ok(round.map(|round| Voiding { tx, round }))
    }

    /// Rounds left `open` for longer than `older_than`.
    pub async fn stuck_open(&self, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        store::stuck_open(&self.pool, older_than).await
    }

    /// Rounds left `settling`, or with a decision pending, for longer than `older_than`.
    pub async fn stuck_in_play(&self, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        store::stuck_in_play(&self.pool, older_than).await
    }

    /// Rounds waiting for their player's decision for longer than `idle`.
    pub async fn abandoned(&self, idle: Duration) -> Result<Vec<Uuid>, AppError> {
        store::abandoned(&self.pool, idle).await
    }

}

/// A write of a round, conditional on the round as read ([`crate::kit::round`]).
#[derive(Debug)]
pub enum Write {
    /// The open round dealt, with its table's shoe.
    Deal(Dealt),
    /// A decision adding a wager, recorded pending (claiming its step) before the wager moves.
    Pending(PendingDecision),
    /// A decision applied, with the table's shoe.
    Decision(Decision),
    /// The round settled, with its audit record.
    Settled(Settled, Entry),
}

/// What a refused ledger batch leaves of a step.
#[derive(Debug, Clone, Copy)]
pub enum Release {
    /// The round's wagers refused at the deal: `refused`, with the ledger's code.
    Refuse,
    /// The decision pending on this step cleared.
    ClearPending(i32),
    /// Nothing held.
    Nothing,
}

impl Rows for Repository {
    type Key = Uuid;
    type Row = Row;
    type Write = Write;
    type Release = Release;

    fn remembered(&self, id: &Uuid) -> Result<Option<Row>, AppError> {
        self.rounds.get(*id, |_| true)
    }

    async fn read(&self, id: &Uuid) -> Result<Row, AppError> {
        store::load_round_and_shoe(&self.pool, *id)
            .await?
            .ok_or_else(|| AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist")))
    }

    async fn write(&self, (round, read): &Row, write: Write) -> Result<Option<Row>, AppError> {
        let next_shoe = |shoe: &Shoe| ReadShoe { shoe: shoe.clone(), version: read.version.saturating_add(1) };
        Ok(match write {
            Write::Deal(dealt) => {
                let written = (dealt.applied_to(round), next_shoe(&dealt.shoe));
                let dealt = self.dealt.submit(dealt).await?;
                if !dealt {
                    // Dealt by another call, or the shoe changed: the shoe is read again.
                    self.shoes.forget(round.table_id)?;
                }
                dealt.then_some(written)
            }
            Write::Pending(pending) => {
                let set = store::set_pending(&self.pool, round.id, &pending).await?;
                set.then(|| (StoredRound { pending: Some(pending), ..round.clone() }, read.clone()))
            }
            Write::Decision(decision) => {
                let written = (decision.applied_to(round), next_shoe(&decision.pending.shoe));
                self.decided.submit(decision).await?.then_some(written)
            }
            Write::Settled(settled, audit) => {
                let written = StoredRound {
                    state: RoundState::Settled,
                    returned_cents: Some(settled.returned),
                    pot_prize_cents: Some(settled.pot_prize),
                    balance_after_cents: Some(settled.balance_after),
                    ..round.clone()
                };
                self.settled.submit((settled, audit)).await?.then(|| (written, read.clone()))
            }
        })
    }

    async fn release(&self, (round, _): &Row, release: Release, code: &str) -> Result<(), AppError> {
        match release {
            Release::Refuse => store::mark_refused(&self.pool, round.id, code).await,
            Release::ClearPending(step) => store::clear_pending(&self.pool, round.id, step).await,
            Release::Nothing => Ok(()),
        }
    }

    /// Keeps the table's shoe as written, and the round with it if a decision may follow
    /// (forgets it otherwise).
    fn remember(&self, (round, shoe): &Row) -> Result<(), AppError> {
        self.shoes.remember(round.table_id, shoe.clone())?;
        if round.state == RoundState::Playing && round.pending.is_none() {
            self.rounds.remember(round.id, (round.clone(), shoe.clone()))
        } else {
            self.rounds.forget(round.id)
        }
    }

    /// Forgets the round, and its table's shoe (it may be behind the table's).
    fn forget(&self, id: &Uuid) -> Result<(), AppError> {
        if let Some((round, _)) = self.rounds.get(*id, |_| true)? {
            self.shoes.forget(round.table_id)?;
        }
        self.rounds.forget(*id)
    }
}

/// A round held under its row lock (and its table's, when dealing) while it is voided: the rare
/// path of a shoe with no card left (see [`super::steps::void`]). Dropped without
/// [`Voiding::voided`], nothing it did is kept.
#[derive(Debug)]
pub struct Voiding {
    tx: Transaction<'static, Postgres>,
    /// The round as locked.
    pub round: StoredRound,
}

impl Voiding {
    /// Saves the locked table's shoe as prepared for the round, counting a shuffle when `shuffled`.
    pub async fn save_shoe(&mut self, shoe: &Shoe, shuffled: bool) -> Result<(), AppError> {
        store::save_shoe(&mut self.tx, self.round.table_id, shoe, shuffled).await
    }

    /// The round `voided` with `staked` returned, the wallet left at `balance_after`, chained
    /// as `record`; committed.
    pub async fn voided(
        mut self,
        staked: i64,
        balance_after: i64,
        record: &impl Serialize,
    ) -> Result<(), AppError> {
        let id = self.round.id;
        store::mark_voided(&mut self.tx, id, staked, balance_after).await?;
        platform::audit::append(&mut self.tx, "blackjack.round.voided", id, record).await?;
        let mut event = Event::new(Kind::Void, record)?;
        if let Ok(player) = self.round.player_id.parse() {
            event = event.player(player);
        }
        events::record(&mut self.tx, crate::SCHEMA, &event).await?;
        self.tx.commit().await?;
        Ok(())
    }
}
