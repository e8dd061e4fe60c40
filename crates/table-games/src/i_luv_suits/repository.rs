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

use domain::i_luv_suits::round::Choice;
use platform::codes;

use super::store::{self, Claim, Dealt, NewRound, RoundState, Settled, StoredRound};
use crate::kit::Kit;
use crate::kit::cache::Remembered;
use crate::kit::round::Rows;

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

    /// Records `round` `open`; false: its id was recorded before.
    pub async fn open(&self, round: NewRound) -> Result<bool, AppError> {
        self.opened.submit(round).await
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

/// A write of a round, conditional on the round as read ([`crate::kit::round`]).
#[derive(Debug)]
pub enum Write {
    /// The open round dealt.
    Deal(Dealt),
    /// The round's decision claimed (a fold made, a play pending).
    Claim(Claim),
    /// The round settled, with its audit record.
    Settled(Settled, Entry),
}

/// What a refused ledger batch leaves of a step.
#[derive(Debug, Clone, Copy)]
pub enum Release {
    /// The round's wagers refused at the deal: `refused`, with the ledger's code.
    Refuse,
    /// The pending play decision cleared.
    ClearPending,
    /// Nothing held.
    Nothing,
}

impl Rows for Repository {
    type Key = Uuid;
    type Row = StoredRound;
    type Write = Write;
    type Release = Release;

    fn remembered(&self, id: &Uuid) -> Result<Option<StoredRound>, AppError> {
        self.rounds.get(*id, |_| true)
    }

    async fn read(&self, id: &Uuid) -> Result<StoredRound, AppError> {
        self.load(*id)
            .await?
            .ok_or_else(|| AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist")))
    }

    async fn write(&self, round: &StoredRound, write: Write) -> Result<Option<StoredRound>, AppError> {
        Ok(match write {
            Write::Deal(dealt) => {
                let written = dealt.applied_to(round);
                self.dealt.submit(dealt).await?.then_some(written)
            }
            Write::Claim(claim) => {
                let mut written = round.clone();
                match claim.decided.choice {
                    Choice::Fold => (written.state, written.decision) = (RoundState::Settling, Some(claim.decided)),
                    Choice::Play { .. } => written.pending = Some(claim.decided),
                }
                self.decided.submit(claim).await?.then_some(written)
            }
            Write::Settled(settled, audit) => {
                let written = StoredRound {
                    state: RoundState::Settled,
                    pending: None,
                    decision: Some(settled.decided),
                    staked_cents: Some(settled.staked),
                    settlement: Some(settled.settlement),
                    returned_cents: Some(settled.settlement.returns.total()),
                    balance_after_cents: Some(settled.balance_after),
                    ..round.clone()
                };
                self.settled.submit((settled, audit)).await?.then_some(written)
            }
        })
    }

    async fn release(&self, round: &StoredRound, release: Release, code: &str) -> Result<(), AppError> {
        match release {
            Release::Refuse => store::mark_refused(&self.pool, round.id, code).await,
            Release::ClearPending => store::clear_pending(&self.pool, round.id).await,
            Release::Nothing => Ok(()),
        }
    }

    /// A round waiting for its decision is remembered; any other is forgotten.
    fn remember(&self, round: &StoredRound) -> Result<(), AppError> {
        if round.state == RoundState::Deciding && round.pending.is_none() {
            self.rounds.remember(round.id, round.clone())
        } else {
            self.rounds.forget(round.id)
        }
    }

    fn forget(&self, id: &Uuid) -> Result<(), AppError> {
        self.rounds.forget(*id)
    }
}
