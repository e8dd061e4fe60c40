//! A round's ledger batch, sent to the ledger many rounds to a call (the group commit of
//! ADR 0003 applied to the table games, ADR 0010): a shared call the ledger refuses (one
//! player's empty wallet) is sent again round by round, so one refusal never refuses another
//! player's round. Each round reads back the balances it records (the wallet after the round, a
//! pot's meter) from the same call. Callers wait for their own batch before answering.

use std::collections::HashMap;

use ledger_api::{LedgerClient, NewTransfer};
use platform::AppError;
use platform::group_commit::BatchRun;
use uuid::Uuid;

use super::Kit;

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
    kit: &Kit,
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
    submit_transfers(kit, transfers, balances_of).await
}

/// What every transfer of a round carries in the journal: its game and round.
pub fn round_metadata(game: &'static str, round: Uuid) -> serde_json::Value {
    serde_json::json!({"game": game, "round": round})
}

/// [`ledger_batch`] of transfers already made (those with a funds check, say); those of no
/// amount are left out by the ledger call.
pub async fn submit_transfers(
    kit: &Kit,
    transfers: Vec<NewTransfer>,
    balances_of: &[Uuid],
) -> Result<Vec<i64>, ledger_api::LedgerError> {
    let job = LedgerJob { transfers, balances_of: balances_of.to_vec() };
    kit.ledger_calls.submit(job).await.map_err(|e| {
        if ledger_api::is_refusal(&e) {
            ledger_api::LedgerError::Refused(e)
        } else {
            ledger_api::LedgerError::Unavailable(e)
        }
    })
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
    game: &str,
    escrow: Uuid,
    house: Uuid,
    pot: Option<Pot>,
) -> Result<(), AppError> {
    let mut accounts =
        vec![(escrow, ledger_api::AccountKind::GameEscrow), (house, ledger_api::AccountKind::HouseRevenue)];
    accounts.extend(pot.map(|p| (p.account, ledger_api::AccountKind::ProgressivePot)));
    ledger.open_accounts_at_start(game, &accounts).await?;
    if let Some(pot) = pot {
        let metadata = serde_json::json!({"game": game, "progressive": "initial funding"});
        ledger.transfer(&NewTransfer::new(pot.seed_id, house, pot.account, pot.seed_cents, metadata)).await?;
    }
    Ok(())
}
