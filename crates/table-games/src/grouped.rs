//! The two steps every table game's rounds and rolls share, done for many of them at once: the
//! group commit of ADR 0003 (Keno's play-now) applied to the table games (ADR 0010).
//!
//! - [`LedgerCalls`]: a round's ledger batch, with the balances it reads back (the wallet after
//!   the round, a pot's meter), sent to the ledger many rounds to a call. A shared call the
//!   ledger refuses (one player's empty wallet) is sent again round by round, so one refusal
//!   never refuses another player's round.
//! - [`GroupedWriter`]: a round's local writes (recorded, dealt, a decision, settled with its
//!   audit record), many rounds to a transaction: one commit, and one append to the chain, whose
//!   lock every finishing round would otherwise take in turn. Each write is one conditional
//!   statement on its own row (no lock is held between statements), so a round's steps keep
//!   their order and exclusivity without a transaction of their own.
//! - [`CrapsClaims`] and [`CrapsFinishes`]: a craps request's claim, and its finish with its
//!   audit record, each one statement for many requests, without a transaction.
//!
//! Callers still wait for their own call or write to be done before answering.

use std::collections::HashMap;

use ledger_api::{LedgerClient, NewTransfer};
use platform::AppError;
use platform::audit::Entry;
use platform::group_commit::{BatchRun, BatchWrite, GroupCommit, InTransaction, OneStatement};
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

/// A write of one round or roll that may share its transaction with others'; each answers
/// whether it applied (false: the row was not as the write expects, so nothing was written).
#[derive(Debug)]
pub enum GroupedWrite {
    /// A blackjack round paid → `settled`.
    Blackjack(blackjack::store::Settled),
    /// An I Luv Suits round recorded `open` with its wagers (false: its id was recorded before).
    ILuvSuitsOpened(i_luv_suits::store::NewRound),
    /// Its wagers taken → dealt, `deciding`.
    ILuvSuitsDealt(i_luv_suits::store::Dealt),
    /// Its player's decision claimed: a fold → `settling`, a play pending its wager.
    ILuvSuitsDecided(i_luv_suits::store::Claim),
    /// Paid → `settled`.
    ILuvSuits(i_luv_suits::store::Settled),
}

/// The writers of [`Grouped`] jobs: those that chain an audit record share one transaction at a
/// time (the chain is appended in order, under its lock), those that chain none (a round
/// recorded, dealt, a decision) share another, on their own connection: a decision does not
/// wait for the commit of other rounds' settlements, nor they for it. A craps request's claim
/// and its finish (with its audit record) are each one statement for a whole batch, written
/// without a transaction by writers of their own ([`OneStatement`]: one round trip a batch
/// where a transaction takes three or more). Each write is conditional on its own row, so the
/// writers may run side by side; the audit chain's lock orders the appends of the two that
/// chain.
#[derive(Debug, Clone)]
pub struct Writers {
    chained: GroupCommit<InTransaction<GroupedWriter>>,
    unchained: GroupCommit<InTransaction<GroupedWriter>>,
    craps_claims: GroupCommit<OneStatement<CrapsClaims>>,
    craps_finishes: GroupCommit<OneStatement<CrapsFinishes>>,
}

impl Writers {
    /// Starts the writers on `pool` (the one-statement writers on a pool of their own, planning
    /// by key), at most 64 jobs to a transaction or statement.
    pub fn spawn(pool: &PgPool) -> Writers {
        let by_key = platform::db::by_key_pool(pool, 2);
        Writers {
            chained: GroupCommit::spawn(pool.clone(), GroupedWriter, 64),
            unchained: GroupCommit::spawn(pool.clone(), GroupedWriter, 64),
            craps_claims: GroupCommit::spawn_one_statement(by_key.clone(), CrapsClaims, 64),
            craps_finishes: GroupCommit::spawn_one_statement(by_key, CrapsFinishes, 64),
        }
    }

    /// Writes `job` with others of its kind; answers whether it applied.
    pub async fn submit(&self, job: Grouped) -> Result<bool, AppError> {
        if job.audit.is_some() { self.chained.submit(job).await } else { self.unchained.submit(job).await }
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
}

/// Craps claims, a batch in one statement ([`craps::store::claim_all`]).
#[derive(Debug)]
pub struct CrapsClaims;

impl BatchWrite for CrapsClaims {
    type Job = (Uuid, craps::store::Pending);
    type Output = bool;

    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[Self::Job]) -> Result<Vec<bool>, AppError> {
        craps::store::claim_all(conn, jobs).await
    }
}

/// Craps requests finished and chained, a batch in one statement ([`craps::store::finish_all`]).
#[derive(Debug)]
pub struct CrapsFinishes;

impl BatchWrite for CrapsFinishes {
    type Job = (craps::store::Finished, Entry);
    type Output = bool;

    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[Self::Job]) -> Result<Vec<bool>, AppError> {
        craps::store::finish_all(conn, jobs).await
    }
}

/// A [`GroupedWrite`] and the record it chains when it applies.
#[derive(Debug)]
pub struct Grouped {
    pub write: GroupedWrite,
    pub audit: Option<Entry>,
}

/// A batch's jobs by kind, each with its place in the batch.
#[derive(Default)]
struct Kinds<'a> {
    blackjack: Vec<(usize, &'a blackjack::store::Settled)>,
    opened: Vec<(usize, &'a i_luv_suits::store::NewRound)>,
    dealt: Vec<(usize, &'a i_luv_suits::store::Dealt)>,
    decided: Vec<(usize, &'a i_luv_suits::store::Claim)>,
    settled: Vec<(usize, &'a i_luv_suits::store::Settled)>,
}

fn unzip<T>(jobs: Vec<(usize, T)>) -> (Vec<usize>, Vec<T>) {
    jobs.into_iter().unzip()
}

/// Writes [`Grouped`] jobs in one transaction, in order, and appends the audit records of those
/// that applied with one insert.
#[derive(Debug)]
pub struct GroupedWriter;

impl BatchWrite for GroupedWriter {
    type Job = Grouped;
    type Output = bool;

    /// Each kind of write is one statement for all the rounds of that kind in the batch (their
    /// conditions make their order within a batch irrelevant).
    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[Grouped]) -> Result<Vec<bool>, AppError> {
        let mut applied = vec![false; jobs.len()];
        let mut kinds = Kinds::default();
        for (i, job) in jobs.iter().enumerate() {
            match &job.write {
                GroupedWrite::Blackjack(settled) => kinds.blackjack.push((i, settled)),
                GroupedWrite::ILuvSuitsOpened(round) => kinds.opened.push((i, round)),
                GroupedWrite::ILuvSuitsDealt(dealt) => kinds.dealt.push((i, dealt)),
                GroupedWrite::ILuvSuitsDecided(claim) => kinds.decided.push((i, claim)),
                GroupedWrite::ILuvSuits(settled) => kinds.settled.push((i, settled)),
            }
        }
        let mut scatter = |indices: Vec<usize>, done: Vec<bool>| {
            for (i, done) in indices.into_iter().zip(done) {
                applied[i] = done;
            }
        };
        let (at, rows) = unzip(kinds.blackjack);
        scatter(at, blackjack::store::write_settled_all(conn, &rows).await?);
        let (at, rows) = unzip(kinds.opened);
        scatter(at, i_luv_suits::store::insert_rounds(conn, &rows).await?);
        let (at, rows) = unzip(kinds.dealt);
        scatter(at, i_luv_suits::store::mark_dealt_all(conn, &rows).await?);
        let (at, rows) = unzip(kinds.decided);
        scatter(at, i_luv_suits::store::claim_decisions(conn, &rows).await?);
        let (at, rows) = unzip(kinds.settled);
        scatter(at, i_luv_suits::store::write_settled_all(conn, &rows).await?);
        let chained: Vec<Entry> = jobs
            .iter()
            .zip(&applied)
            .filter_map(|(job, &done)| if done { job.audit.clone() } else { None })
            .collect();
        platform::audit::append_all(conn, &chained).await?;
        Ok(applied)
    }
}
