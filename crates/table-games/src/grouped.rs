//! The two steps every table game's rounds and rolls share, done for many of them at once: the
//! group commit of ADR 0003 (Keno's play-now) applied to the table games (ADR 0010).
//!
//! - [`LedgerCalls`]: a round's ledger batch, with the balances it reads back (the wallet after
//!   the round, a pot's meter), sent to the ledger many rounds to a call. A shared call the
//!   ledger refuses (one player's empty wallet) is sent again round by round, so one refusal
//!   never refuses another player's round.
//! - [`Writers`]: a round's or roll's local writes (recorded, dealt, a decision claimed or
//!   applied, settled with its audit record), each kind one statement for many rounds, without a transaction: one
//!   commit, and one append to the chain, whose lock every finishing round would otherwise take
//!   in turn. Each write is one conditional statement on its own row (no lock is held between
//!   statements), so a round's steps keep their order and exclusivity without a transaction of
//!   their own.
//!
//! Callers still wait for their own call or write to be done before answering.

use std::collections::HashMap;

use ledger_api::{LedgerClient, NewTransfer};
use platform::AppError;
use platform::audit::Entry;
use platform::group_commit::{BatchRun, BatchWrite, GroupCommit, OneStatement};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::{TablesState, blackjack, craps, i_luv_suits};

/// A round's transfers `(id, debit, credit, amount)`, in order, and the accounts whose balances
/// it reads back.
#[derive(Debug, Clone)]
pub struct LedgerJob {
    pub transfers: Vec<NewTransfer>,
    pub balances_of: Vec<Uuid>,
}

/// Runs [`LedgerJob`]s many to one ledger batch; answers each job's balances, in its order.
#[derive(Debug)]
pub struct LedgerCalls {
    pub ledger: LedgerClient,
}

impl BatchRun for LedgerCalls {
    type Job = LedgerJob;
    type Output = Vec<i64>;

    async fn run_batch(&self, jobs: &[LedgerJob]) -> Result<Vec<Vec<i64>>, AppError> {
        let transfers: Vec<NewTransfer> = jobs.iter().flat_map(|j| j.transfers.iter().cloned()).collect();
        let mut accounts: Vec<Uuid> = jobs.iter().flat_map(|j| j.balances_of.iter().copied()).collect();
        accounts.sort_unstable();
        accounts.dedup();
        let balances = self.ledger.batch_reading(&transfers, &accounts).await?;
        let of: HashMap<Uuid, i64> = accounts.into_iter().zip(balances).collect();
        jobs.iter()
            .map(|j| {
                j.balances_of
                    .iter()
                    .map(|a| of.get(a).copied().ok_or_else(|| AppError::internal("a balance went unread")))
                    .collect()
            })
            .collect()
    }
}

/// A round's transfers as one atomic ledger batch (shared with other rounds' batches), each
/// tagged with its game and round; answers the posted balances of `balances_of` just after it.
pub async fn ledger_batch(
    state: &TablesState,
    game: &'static str,
    round: Uuid,
    transfers: &[(Uuid, Uuid, Uuid, i64)],
    balances_of: &[Uuid],
) -> Result<Vec<i64>, ledger_api::LedgerError> {
    let metadata = round_metadata(game, round);
    let transfers: Vec<NewTransfer> = transfers
        .iter()
        .map(|&(id, debit, credit, amount)| NewTransfer::new(id, debit, credit, amount, metadata.clone()))
        .collect();
    submit_transfers(state, transfers, balances_of).await
}

/// What every transfer of a round carries in the journal: its game and round.
pub fn round_metadata(game: &'static str, round: Uuid) -> serde_json::Value {
    serde_json::json!({"game": game, "round": round})
}

/// [`ledger_batch`] of transfers already made (those with a funds check, say); those of no
/// amount are left out by the ledger call.
pub async fn submit_transfers(
    state: &TablesState,
    transfers: Vec<NewTransfer>,
    balances_of: &[Uuid],
) -> Result<Vec<i64>, ledger_api::LedgerError> {
    let job = LedgerJob { transfers, balances_of: balances_of.to_vec() };
    state.ledger_calls.submit(job).await.map_err(|e| {
        if ledger_api::is_refusal(&e) {
            ledger_api::LedgerError::Refused(e)
        } else {
            ledger_api::LedgerError::Unavailable(e)
        }
    })
}

/// The writers of every round's and roll's steps, one per kind of step: each batch is one
/// statement, written without a transaction ([`OneStatement`]: one round trip a batch, where a
/// transaction takes three or more) on a connection of its own, kept from batch to batch. A step
/// that chains an audit record chains it in the same statement (`audit_append`, under the
/// chain's lock, which orders the appends of the writers that chain). Each write is conditional
/// on its own row, so the writers run side by side: a decision does not wait for the commit of
/// other rounds' settlements, nor they for it. A row named twice in one batch is written for the
/// first job only; the other is answered as not written and its caller reads the row again.
#[derive(Debug, Clone)]
pub struct Writers {
    craps_claims: GroupCommit<OneStatement<CrapsClaims>>,
    craps_finishes: GroupCommit<OneStatement<CrapsFinishes>>,
    ils_opened: GroupCommit<OneStatement<ILuvSuitsOpened>>,
    ils_dealt: GroupCommit<OneStatement<ILuvSuitsDealt>>,
    ils_decided: GroupCommit<OneStatement<ILuvSuitsDecided>>,
    ils_settled: GroupCommit<OneStatement<ILuvSuitsSettled>>,
    blackjack_dealt: GroupCommit<OneStatement<BlackjackDealt>>,
    blackjack_decided: GroupCommit<OneStatement<BlackjackDecided>>,
    blackjack_settled: GroupCommit<OneStatement<BlackjackSettled>>,
    /// The writers' own pool (for its gauges).
    by_key: PgPool,
}

impl Writers {
    /// How many writers [`Writers::spawn`] starts, each holding one connection once it has
    /// written.
    pub const CONNECTIONS: u32 = 9;

    /// Starts the writers on a pool of their own on `pool`'s database, planning by key, at most
    /// 64 jobs to a statement. A writer connects at its first batch, so a game nobody plays
    /// holds no connection.
    pub fn spawn(pool: &PgPool) -> Writers {
        let by_key = platform::db::by_key_pool(pool, Self::CONNECTIONS);
        Writers {
            craps_claims: GroupCommit::spawn_one_statement(by_key.clone(), CrapsClaims, 64),
            craps_finishes: GroupCommit::spawn_one_statement(by_key.clone(), CrapsFinishes, 64),
            ils_opened: GroupCommit::spawn_one_statement(by_key.clone(), ILuvSuitsOpened, 64),
            ils_dealt: GroupCommit::spawn_one_statement(by_key.clone(), ILuvSuitsDealt, 64),
            ils_decided: GroupCommit::spawn_one_statement(by_key.clone(), ILuvSuitsDecided, 64),
            ils_settled: GroupCommit::spawn_one_statement(by_key.clone(), ILuvSuitsSettled, 64),
            blackjack_dealt: GroupCommit::spawn_one_statement(by_key.clone(), BlackjackDealt, 64),
            blackjack_decided: GroupCommit::spawn_one_statement(by_key.clone(), BlackjackDecided, 64),
            blackjack_settled: GroupCommit::spawn_one_statement(by_key.clone(), BlackjackSettled, 64),
            by_key,
        }
    }

    /// The pool the writers' connections come from.
    pub fn pool(&self) -> &PgPool {
        &self.by_key
    }

    /// Claims `session` for `pending` with other sessions' claims; answers whether it did.
    pub async fn claim_craps(&self, session: Uuid, pending: craps::store::Pending) -> Result<bool, AppError> {
        self.craps_claims.submit((session, pending)).await
    }

    /// Writes a craps request done, with its audit record, with other sessions'; answers whether
    /// this call did it.
    pub async fn finish_craps(
        &self,
        finished: craps::store::Finished,
        audit: Entry,
    ) -> Result<bool, AppError> {
        self.craps_finishes.submit((finished, audit)).await
    }

    /// Records an I Luv Suits round `open` with its wagers; false: its id was recorded before.
    pub async fn open_i_luv_suits(&self, round: i_luv_suits::store::NewRound) -> Result<bool, AppError> {
        self.ils_opened.submit(round).await
    }

    /// Writes an open I Luv Suits round dealt (`deciding`); false: another call dealt it first.
    pub async fn deal_i_luv_suits(&self, dealt: i_luv_suits::store::Dealt) -> Result<bool, AppError> {
        self.ils_dealt.submit(dealt).await
    }

    /// Claims an I Luv Suits round's decision; false: another decision came first.
    pub async fn decide_i_luv_suits(&self, claim: i_luv_suits::store::Claim) -> Result<bool, AppError> {
        self.ils_decided.submit(claim).await
    }

    /// Writes an I Luv Suits round settled, with its audit record; false: another call settled
    /// it first.
    pub async fn settle_i_luv_suits(
        &self,
        settled: i_luv_suits::store::Settled,
        audit: Entry,
    ) -> Result<bool, AppError> {
        self.ils_settled.submit((settled, audit)).await
    }

    /// Writes a blackjack round dealt with its table's shoe; false: another call dealt it first,
    /// or the shoe was written since it was read.
    pub async fn deal_blackjack(&self, dealt: blackjack::store::Dealt) -> Result<bool, AppError> {
        self.blackjack_dealt.submit(dealt).await
    }

    /// Writes a blackjack decision with its table's shoe; false: the round was no longer where
    /// the decision was worked out.
    pub async fn decide_blackjack(&self, decision: blackjack::store::Decision) -> Result<bool, AppError> {
        self.blackjack_decided.submit(decision).await
    }

    /// Writes a blackjack round settled, with its audit record; false: another call settled it
    /// first.
    pub async fn settle_blackjack(
        &self,
        settled: blackjack::store::Settled,
        audit: Entry,
    ) -> Result<bool, AppError> {
        self.blackjack_settled.submit((settled, audit)).await
    }
}

/// A [`BatchWrite`] that is one store function writing a whole batch in one statement.
macro_rules! one_statement_write {
    ($(#[$doc:meta])* $name:ident, $job:ty, $write:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;

        impl BatchWrite for $name {
            type Job = $job;
            type Output = bool;

            async fn write_batch(&self, conn: &mut PgConnection, jobs: &[$job]) -> Result<Vec<bool>, AppError> {
                $write(conn, jobs).await
            }
        }
    };
}

one_statement_write!(
    /// Craps claims ([`craps::store::claim_all`]).
    CrapsClaims, (Uuid, craps::store::Pending), craps::store::claim_all
);
one_statement_write!(
    /// Craps requests finished and chained ([`craps::store::finish_all`]).
    CrapsFinishes, (craps::store::Finished, Entry), craps::store::finish_all
);
one_statement_write!(
    /// I Luv Suits rounds recorded ([`i_luv_suits::store::insert_rounds`]).
    ILuvSuitsOpened, i_luv_suits::store::NewRound, i_luv_suits::store::insert_rounds
);
one_statement_write!(
    /// I Luv Suits rounds dealt ([`i_luv_suits::store::mark_dealt_all`]).
    ILuvSuitsDealt, i_luv_suits::store::Dealt, i_luv_suits::store::mark_dealt_all
);
one_statement_write!(
    /// I Luv Suits decisions claimed ([`i_luv_suits::store::claim_decisions`]).
    ILuvSuitsDecided, i_luv_suits::store::Claim, i_luv_suits::store::claim_decisions
);
one_statement_write!(
    /// I Luv Suits rounds settled and chained ([`i_luv_suits::store::write_settled_all`]).
    ILuvSuitsSettled, (i_luv_suits::store::Settled, Entry), i_luv_suits::store::write_settled_all
);
one_statement_write!(
    /// Blackjack rounds dealt with their tables' shoes ([`blackjack::store::write_dealt_all`]).
    BlackjackDealt, blackjack::store::Dealt, blackjack::store::write_dealt_all
);
one_statement_write!(
    /// Blackjack decisions applied with their tables' shoes ([`blackjack::store::write_decisions`]).
    BlackjackDecided, blackjack::store::Decision, blackjack::store::write_decisions
);
one_statement_write!(
    /// Blackjack rounds settled and chained ([`blackjack::store::write_settled_all`]).
    BlackjackSettled, (blackjack::store::Settled, Entry), blackjack::store::write_settled_all
);
