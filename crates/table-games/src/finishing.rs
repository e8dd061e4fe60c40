//! The two steps every table game's rounds and rolls share, done for many of them at once: the
//! group commit of ADR 0003 (Keno's play-now) applied to the table games (ADR 0010).
//!
//! - [`LedgerCalls`]: a round's ledger batch, with the balances it reads back (the wallet after
//!   the round, a pot's meter), sent to the ledger many rounds to a call. A shared call the
//!   ledger refuses (one player's empty wallet) is sent again round by round, so one refusal
//!   never refuses another player's round.
//! - [`FinalWriter`]: a round's last local write (settled, or a roll recorded) with its audit
//!   record, many rounds to a transaction: one commit, and one append to the chain, whose lock
//!   every finishing round would otherwise take in turn.
//!
//! Callers still wait for their own call or write to be done before answering.

use std::collections::HashMap;

use ledger_api::{LedgerClient, NewTransfer};
use platform::AppError;
use platform::audit::Entry;
use platform::group_commit::{BatchRun, BatchWrite};
use sqlx::PgConnection;
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
    let metadata = serde_json::json!({"game": game, "round": round});
    let transfers: Vec<NewTransfer> = transfers
        .iter()
        .filter(|t| t.3 > 0)
        .map(|&(id, debit, credit, amount)| NewTransfer::new(id, debit, credit, amount, metadata.clone()))
        .collect();
    let job = LedgerJob { transfers, balances_of: balances_of.to_vec() };
    state.ledger_calls.submit(job).await.map_err(|e| {
        if ledger_api::is_refusal(&e) {
            ledger_api::LedgerError::Refused(e)
        } else {
            ledger_api::LedgerError::Unavailable(e)
        }
    })
}

/// The last write of a round or roll, by game.
#[derive(Debug)]
pub enum FinalWrite {
    Blackjack(blackjack::store::Settled),
    ILuvSuits(i_luv_suits::store::Settled),
    Craps(craps::store::Finished),
}

/// A [`FinalWrite`] and the record it chains when it applies.
#[derive(Debug)]
pub struct Final {
    pub write: FinalWrite,
    pub audit: Entry,
}

/// Writes [`Final`]s in one transaction; answers whether each applied (false: another call, a
/// retry or the recovery pass, had finished it first, and nothing was written or chained).
#[derive(Debug)]
pub struct FinalWriter;

impl BatchWrite for FinalWriter {
    type Job = Final;
    type Output = bool;

    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[Final]) -> Result<Vec<bool>, AppError> {
        let mut applied = Vec::with_capacity(jobs.len());
        let mut chained = Vec::new();
        for job in jobs {
            let done = match &job.write {
                FinalWrite::Blackjack(settled) => blackjack::store::write_settled(conn, settled).await?,
                FinalWrite::ILuvSuits(settled) => i_luv_suits::store::write_settled(conn, settled).await?,
                FinalWrite::Craps(finished) => craps::store::write_finished(conn, finished).await?,
            };
            if done {
                chained.push(job.audit.clone());
            }
            applied.push(done);
        }
        platform::audit::append_all(conn, &chained).await?;
        Ok(applied)
    }
}
