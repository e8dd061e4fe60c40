//! A round's ledger batch, sent to the ledger many rounds to a call (the group commit of
//! ADR 0003 applied to the table games, ADR 0010): a shared call the ledger refuses (one
//! player's empty wallet) is sent again round by round, so one refusal never refuses another
//! player's round. Each round reads back the balances it records (the wallet after the round, a
//! pot's meter) from the same call. Callers wait for their own batch before answering.

use std::collections::HashMap;

use ledger_api::{Game, LedgerClient, LedgerError, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::group_commit::BatchRun;
use uuid::Uuid;

use super::Kit;

/// A round's transfers, in order, and the accounts whose balances it reads back.
#[derive(Debug, Clone)]
pub struct LedgerJob {
    pub transfers: Vec<NewTransfer>,
    pub balances_of: Vec<Uuid>,
}

/// Runs [`LedgerJob`]s many to one ledger batch; answers each job's balances, in its order, or
/// the ledger's refusal of that job alone, typed as the ledger answered it.
#[derive(Debug)]
pub struct LedgerCalls {
    pub ledger: LedgerClient,
}

impl BatchRun for LedgerCalls {
    type Job = LedgerJob;
    type Output = Result<Vec<i64>, LedgerError>;

    async fn run_batch(&self, jobs: &[LedgerJob]) -> Result<Vec<Self::Output>, AppError> {
        let transfers: Vec<NewTransfer> = jobs.iter().flat_map(|j| j.transfers.iter().cloned()).collect();
        let mut accounts: Vec<Uuid> = jobs.iter().flat_map(|j| j.balances_of.iter().copied()).collect();
        accounts.sort_unstable();
        accounts.dedup();
        let balances = match self.ledger.batch_reading(&transfers, &accounts).await {
            Ok(balances) => balances,
            // One job's refusal is its own answer; a shared call's is sent again job by job
            // (the group commit's split), so one refusal never refuses another round.
            Err(LedgerError::Refused(problem)) if jobs.len() > 1 => return Err(problem),
            Err(refused @ LedgerError::Refused(_)) => return Ok(vec![Err(refused)]),
            Err(LedgerError::Unavailable(problem)) => return Err(problem),
        };
        let of: HashMap<Uuid, i64> = accounts.into_iter().zip(balances).collect();
        let mut answers = Vec::with_capacity(jobs.len());
        for job in jobs {
            let mut read = Vec::with_capacity(job.balances_of.len());
            for account in &job.balances_of {
                read.push(*of.get(account).ok_or_else(|| AppError::internal("a balance went unread"))?);
            }
            answers.push(Ok(read));
        }
        Ok(answers)
    }
}

impl Kit {
    /// One round's transfers as one atomic ledger batch, shared with other rounds' batches (those
    /// of no amount are left out by the ledger call); answers the posted balances of
    /// `balances_of` just after it, or the ledger's refusal of this batch.
    pub async fn pay(&self, transfers: Vec<NewTransfer>, balances_of: Vec<Uuid>) -> Result<Vec<i64>, LedgerError> {
        match self.ledger_calls.submit(LedgerJob { transfers, balances_of }).await {
            Ok(answer) => answer,
            // The queue itself failed (the runner stopped, or the ledger did not answer).
            Err(problem) => Err(LedgerError::Unavailable(problem)),
        }
    }
}

/// A game's accounts its rounds' money moves between: where stakes wait, the house, and its
/// progressive pot.
#[derive(Debug, Clone, Copy)]
pub struct Accounts {
    pub escrow: Uuid,
    pub house: Uuid,
    pub pot: Uuid,
}

/// A progressive pot: its account, and its seed (the transfer's id and amount), moved from the
/// house once.
#[derive(Debug, Clone, Copy)]
pub struct Pot {
    pub account: Uuid,
    pub seed_id: Uuid,
    pub seed_cents: i64,
}

/// Opens a game's escrow and house accounts (and its pot's) if they are not there, and seeds its
/// pot once (the seed's id makes a second start a replay).
pub async fn open_game_accounts(
    ledger: &LedgerClient,
    game: Game,
    escrow: Uuid,
    house: Uuid,
    pot: Option<Pot>,
) -> Result<(), AppError> {
    let mut accounts =
        vec![(escrow, ledger_api::AccountKind::GameEscrow), (house, ledger_api::AccountKind::HouseRevenue)];
    accounts.extend(pot.map(|p| (p.account, ledger_api::AccountKind::ProgressivePot)));
    ledger.open_accounts_at_start(&game.to_string(), &accounts).await?;
    if let Some(pot) = pot {
        let purpose = Purpose::of(game, Money::PotSeed).progressive("initial funding");
        ledger.transfer(&NewTransfer::new(pot.seed_id, house, pot.account, pot.seed_cents, purpose)).await?;
    }
    Ok(())
}
