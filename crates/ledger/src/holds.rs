//! The hold sweeper: voids two-phase holds whose timeout has passed, so reserved funds return.
//!
//! Each expiry is a transfer (`expire_pending`) whose id is derived from the hold's id, so any
//! number of replicas may sweep at once: the second to expire a hold replays the first's transfer.

use std::time::Duration;

use platform::AppError;
use sqlx::PgPool;
use uuid::Uuid;

use crate::model::{TransferCommand, TransferOp};
use crate::store::{self, LEDGER_NAMESPACE};

/// How many holds one sweep expires in one batch.
const SWEEP_BATCH: i64 = 500;

/// The id of the transfer that expires `hold`.
pub fn expiry_id(hold: Uuid) -> Uuid {
    Uuid::new_v5(&LEDGER_NAMESPACE, format!("expire/{hold}").as_bytes())
}

/// Expires every hold that is due now; returns how many were expired.
pub async fn expire_due_holds(pool: &PgPool) -> Result<usize, AppError> {
    let mut expired = 0usize;
    loop {
        let due = store::expired_holds(pool, SWEEP_BATCH).await?;
        if due.is_empty() {
            return Ok(expired);
        }
        let commands: Vec<TransferCommand> = due
            .iter()
            .map(|&hold| TransferCommand {
                id: expiry_id(hold),
                op: TransferOp::ExpirePending { pending_id: hold },
                metadata: serde_json::json!({}),
                funds_check: None,
            })
            .collect();
        if store::create_transfers(pool, &commands, None).await.is_ok() {
            expired = expired.saturating_add(commands.len());
            continue;
        }
        // A hold in the batch was ended meanwhile (posted just before it expired): go one by one.
        for command in &commands {
            match store::create_transfers(pool, std::slice::from_ref(command), None).await {
                Ok(_) => expired = expired.saturating_add(1),
                Err(e) if e.code() == "hold_already_ended" => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Runs [`expire_due_holds`] every `interval` until the process ends.
pub fn spawn_hold_sweeper(pool: PgPool, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match expire_due_holds(&pool).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(expired = n, "expired holds"),
                Err(e) => tracing::warn!(error = %e, "hold sweep failed; will retry"),
            }
        }
    })
}
