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
use platform::group_commit::{GroupCommit, OneStatement};
use serde::Serialize;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

use super::store::{
    self, Dealt, Decision, NewRound, PendingDecision, ReadShoe, RoundState, Settled, StoredRound,
};
use crate::kit::Kit;
use crate::kit::cache::Remembered;

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

/// The game's writers and memory.
#[derive(Debug, Clone)]
pub struct Repository {
    recorded: GroupCommit<OneStatement<Recorded>>,
    dealt: GroupCommit<OneStatement<DealtRounds>>,
    decided: GroupCommit<OneStatement<Decisions>>,
    settled: GroupCommit<OneStatement<SettledRounds>>,
    tables: Remembered<(String, TableRules)>,
    rounds: Remembered<(StoredRound, ReadShoe)>,
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

    /// Round `id` and its table's shoe as stored, read together.
    pub async fn load_with_shoe(&self, id: Uuid) -> Result<Option<(StoredRound, ReadShoe)>, AppError> {
        store::load_round_and_shoe(&self.pool, id).await
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

    /// An open round whose wagers the ledger refused with `code`: `refused`, nothing moved.
    pub async fn refuse(&self, id: Uuid, code: &str) -> Result<(), AppError> {
        store::mark_refused(&self.pool, id, code).await
    }

    /// Round `id` and its table's shoe as this process last wrote them, if it did and a decision
    /// may follow.
    pub fn remembered_round(&self, id: Uuid) -> Result<Option<(StoredRound, ReadShoe)>, AppError> {
        self.rounds.get(id, |_| true)
    }

    /// Writes the open `round` dealt with its table's shoe, and answers it as written; none (and
    /// the shoe forgotten) when another call dealt it first or the shoe changed since it was read
    /// (read both again).
    pub async fn deal(&self, round: &StoredRound, dealt: Dealt) -> Result<Option<StoredRound>, AppError> {
        let written = dealt.applied_to(round);
        let shoe = ReadShoe { shoe: dealt.shoe.clone(), version: dealt.read_version.saturating_add(1) };
        if !self.dealt.submit(dealt).await? {
            self.shoes.forget(round.table_id)?;
            return Ok(None);
        }
        self.written(&written, shoe)?;
        Ok(Some(written))
    }

    /// Writes `decision` on the round `before` as read (or remembered), with its table's shoe, and
    /// answers the round as written; none (and the round forgotten) when the round was no longer
    /// there.
    pub async fn decide(
        &self,
        before: &StoredRound,
        decision: Decision,
    ) -> Result<Option<StoredRound>, AppError> {
        let written = decision.applied_to(before);
        let shoe =
            ReadShoe { shoe: decision.pending.shoe.clone(), version: decision.read_version.saturating_add(1) };
        if !self.decided.submit(decision).await? {
            self.rounds.forget(before.id)?;
            return Ok(None);
        }
        self.written(&written, shoe)?;
        Ok(Some(written))
    }

    /// Records a decision that adds a wager as the round's pending one (claiming its step);
    /// false (and the round forgotten) when the round moved on.
    pub async fn set_pending(&self, id: Uuid, pending: &PendingDecision) -> Result<bool, AppError> {
        let set = store::set_pending(&self.pool, id, pending).await?;
        if !set {
            self.rounds.forget(id)?;
        }
        Ok(set)
    }

    /// A decision pending on `step` whose wager was refused: cleared, nothing moved.
    pub async fn clear_pending(&self, id: Uuid, step: i32) -> Result<(), AppError> {
        self.rounds.forget(id)?;
        store::clear_pending(&self.pool, id, step).await
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

    /// Writes the round settled with its audit record; false: another call settled it first.
    pub async fn settle(&self, settled: Settled, audit: Entry) -> Result<bool, AppError> {
        self.settled.submit((settled, audit)).await
    }

    /// Forgets round `id`: its row or its table's shoe was changed outside this game's steps.
    pub fn forget(&self, id: Uuid) -> Result<(), AppError> {
        self.rounds.forget(id)
    }

    /// Keeps the table's `shoe` as written, and `round` with it if a decision may follow
    /// (forgets it otherwise).
    fn written(&self, round: &StoredRound, shoe: ReadShoe) -> Result<(), AppError> {
        self.shoes.remember(round.table_id, shoe.clone())?;
        if round.state == RoundState::Playing && round.pending.is_none() {
            self.rounds.remember(round.id, (round.clone(), shoe))
        } else {
            self.rounds.forget(round.id)
        }
    }
}

/// A round held under its row lock (and its table's, when dealing) while it is voided: the rare
/// path of a shoe with no card left (see [`super::settlement::void_round`]). Dropped without
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
        self.tx.commit().await?;
        Ok(())
    }
}
