//! I Luv Suits' one door to its rows: the saga calls this, and this alone holds the game's
//! one-statement writers, the rounds it remembers and when it forgets them, and the round as a
//! write leaves it. SQL itself is [`super::store`]'s; the machinery is the kit's.
//!
//! **What is remembered.** A round this process dealt, as it wrote it, so that its decision is
//! worked out without reading the round first (a read is a round trip). Safe with many
//! processes: a dealt round's cards, wagers and player never change, and a decision made on a
//! remembered round is claimed only if the round still waits for one with none pending; a
//! claim that fails reads the round again as if it had never been remembered. A round is
//! forgotten when its decision is claimed (won or lost).

use std::time::Duration;

use platform::AppError;
use platform::audit::Entry;
use platform::group_commit::{GroupCommit, OneStatement};
use sqlx::PgPool;
use uuid::Uuid;

use super::store::{self, Claim, Dealt, NewRound, RoundState, Settled, StoredRound};
use crate::kit::Kit;
use crate::kit::cache::Remembered;

crate::kit::one_statement_write!(
    /// Rounds recorded ([`store::insert_rounds`]).
    Opened, NewRound, store::insert_rounds
);
crate::kit::one_statement_write!(
    /// Rounds dealt ([`store::mark_dealt_all`]).
    DealtRounds, Dealt, store::mark_dealt_all
);
crate::kit::one_statement_write!(
    /// Decisions claimed ([`store::claim_decisions`]).
    Decisions, Claim, store::claim_decisions
);
crate::kit::one_statement_write!(
    /// Rounds settled and chained ([`store::write_settled_all`]).
    SettledRounds, (Settled, Entry), store::write_settled_all
);

/// The game's writers and memory.
#[derive(Debug, Clone)]
pub struct Repository {
    opened: GroupCommit<OneStatement<Opened>>,
    dealt: GroupCommit<OneStatement<DealtRounds>>,
    decided: GroupCommit<OneStatement<Decisions>>,
    settled: GroupCommit<OneStatement<SettledRounds>>,
    rounds: Remembered<StoredRound>,
    pool: PgPool,
}

impl Repository {
    /// The writers it starts (one connection each, once used).
    pub const WRITERS: u32 = 4;

    /// The grouped statements that read rows, with the indexes they must use (checked on a fresh
    /// database by `tests/grouped_plans.rs`; the record is an insert).
    pub const GROUPED_STATEMENTS: &[(&str, &str, &[&str])] = &[
        ("I Luv Suits dealt", store::DEALT, &["ils_rounds_pkey"]),
        ("I Luv Suits decision", store::CLAIM_DECISIONS, &["ils_rounds_pkey"]),
        ("I Luv Suits settled", store::SETTLED, &["ils_rounds_pkey"]),
    ];

    pub fn spawn(kit: &Kit) -> Repository {
        Repository {
            opened: kit.writer(Opened),
            dealt: kit.writer(DealtRounds),
            decided: kit.writer(Decisions),
            settled: kit.writer(SettledRounds),
            rounds: kit.memory(),
            pool: kit.pool().clone(),
        }
    }

    /// The same writers with nothing remembered: as another process serving the same tables.
    #[must_use]
    pub fn with_fresh_memory(&self) -> Repository {
        Repository { rounds: self.rounds.emptied(), ..self.clone() }
    }

    /// Round `id` as stored.
    pub async fn load(&self, id: Uuid) -> Result<Option<StoredRound>, AppError> {
        store::load_round(&self.pool, id).await
    }

    /// Round `id` as remembered (dealt by this process, no decision claimed since), or read.
    pub async fn deciding(&self, id: Uuid) -> Result<Option<StoredRound>, AppError> {
        match self.rounds.get(id, |_| true)? {
            Some(round) => Ok(Some(round)),
            None => self.load(id).await,
        }
    }

    /// Records `round` `open`; false: its id was recorded before.
    pub async fn open(&self, round: NewRound) -> Result<bool, AppError> {
        self.opened.submit(round).await
    }

    /// Writes the open `round` dealt as `dealt` says, and answers it as written (remembered for
    /// its decision); none when another call dealt it first (its cards stand: read it).
    pub async fn deal(&self, round: StoredRound, dealt: Dealt) -> Result<Option<StoredRound>, AppError> {
        if !self.dealt.submit(dealt.clone()).await? {
            return Ok(None);
        }
        let dealt_round = StoredRound {
            state: RoundState::Deciding,
            deal: Some(dealt.deal),
            pot_at_deal_cents: Some(dealt.pot),
            staked_cents: Some(dealt.staked),
            balance_before_cents: Some(dealt.balance_before),
            ..round
        };
        self.rounds.remember(dealt_round.id, dealt_round.clone())?;
        Ok(Some(dealt_round))
    }

    /// An open round the ledger refused → `refused`, with its code.
    pub async fn refuse(&self, id: Uuid, code: &str) -> Result<(), AppError> {
        store::mark_refused(&self.pool, id, code).await
    }

    /// Claims the round's decision; false: another decision came first. Either way the round is
    /// no longer as remembered, and is forgotten.
    pub async fn claim(&self, claim: Claim) -> Result<bool, AppError> {
        let id = claim.id;
        let claimed = self.decided.submit(claim).await;
        self.rounds.forget(id)?;
        claimed
    }

    /// A pending play whose wager the ledger refused: the claim cleared, nothing moved.
    pub async fn clear_pending(&self, id: Uuid) -> Result<(), AppError> {
        store::clear_pending(&self.pool, id).await
    }

    /// Writes the round settled with its audit record; false: another call settled it first.
    pub async fn settle(&self, settled: Settled, audit: Entry) -> Result<bool, AppError> {
        self.settled.submit((settled, audit)).await
    }

    /// Forgets round `id`: its row was changed outside this game's steps (a test's stacked
    /// deck, say), so its next decision reads it.
    pub fn forget(&self, id: Uuid) -> Result<(), AppError> {
        self.rounds.forget(id)
    }

    /// Rounds a crash left between steps for longer than `older_than`.
    pub async fn stuck(&self, older_than: Duration) -> Result<Vec<Uuid>, AppError> {
        store::stuck(&self.pool, older_than).await
    }

    /// Rounds waiting for their player's decision for longer than `idle`.
    pub async fn abandoned(&self, idle: Duration) -> Result<Vec<Uuid>, AppError> {
        store::abandoned(&self.pool, idle).await
    }
}
