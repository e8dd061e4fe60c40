//! Manual balance adjustments (a goodwill credit, a correction) under maker-checker control
//! (issue 49 §Staff; ADR 0018): one operator proposes, with the reason; another approves or
//! rejects; only then does the money move, through the ledger, between the player's wallet and
//! the operator's adjustments account, under a transfer id derived from the adjustment, so an
//! approval sent twice, or finished by recovery after a crash, moves it once.
//!
//! The adjustments account is of its own kind, so player protection counts no adjustment as a
//! stake, a win or a deposit, and a player on a break or excluded can still be corrected.

use ledger_api::{AccountKind, LedgerError, NewTransfer, Purpose};
use platform::{AppError, IdempotencyKey, codes};
use uuid::Uuid;

use crate::saga::players::load_player;
use crate::saga::staff::required_reason;
use crate::store::adjustments::{self as store, AdjustmentState, Direction, NewAdjustment};
use crate::store::staff::{StaffAction, record_action};
use crate::views::adjustments::{AdjustmentProposal, AdjustmentView};
use crate::{GATEWAY_NAMESPACE, GatewayState};

/// The operator's account every adjustment moves money to or from (the house's side).
pub fn adjustments_account() -> Uuid {
    Uuid::new_v5(&GATEWAY_NAMESPACE, b"adjustments/USD")
}

/// The largest adjustment: $1,000,000 (the proposal's schema says so).
const MAX_ADJUSTMENT_CENTS: i64 = 100_000_000;

/// The ledger transfer adjustment `id` moves its money under.
fn transfer_id(id: Uuid) -> Uuid {
    Uuid::new_v5(&GATEWAY_NAMESPACE, format!("adjustment/{id}").as_bytes())
}

fn not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::ADJUSTMENT_NOT_FOUND, format!("adjustment {id} does not exist"))
}

/// Adjustment `id` on the wire.
pub(crate) async fn get(state: &GatewayState, id: Uuid) -> Result<AdjustmentView, AppError> {
    let row = store::get(&state.pool, id).await?.ok_or_else(|| not_found(id))?;
    Ok(AdjustmentView::of(row, transfer_id(id)))
}

/// A page of adjustments (see [`store::page`]).
pub(crate) async fn page(
    state: &GatewayState,
    which: Option<AdjustmentState>,
    player: Option<Uuid>,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<AdjustmentView>, AppError> {
    let rows = store::page(&state.pool, which, player, after, limit).await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let transfer = transfer_id(row.id);
            AdjustmentView::of(row, transfer)
        })
        .collect())
}

/// Operator `staff` proposes `proposal` for `player`, once per Idempotency-Key: a replay answers
/// the proposal as it stands; the same key for a different proposal is a conflict. Answers
/// whether it was made now.
pub(crate) async fn propose(
    state: &GatewayState,
    staff: &str,
    player: Uuid,
    key: IdempotencyKey,
    proposal: &AdjustmentProposal,
) -> Result<(bool, AdjustmentView), AppError> {
    let key = key.required()?;
    if !(1..=MAX_ADJUSTMENT_CENTS).contains(&proposal.amount_cents) {
        return Err(AppError::unprocessable(
            codes::INVALID_AMOUNT,
            format!("an adjustment is $0.01 to {}", domain::money::dollars(MAX_ADJUSTMENT_CENTS)),
        ));
    }
    let reason = required_reason(&proposal.reason)?;
    load_player(state, player).await?;
    // The key is the proposer's own: the same key from two operators is two proposals.
    let id = Uuid::new_v5(&GATEWAY_NAMESPACE, format!("adjustment/{staff}/{key}").as_bytes());
    let new = NewAdjustment {
        id,
        player,
        direction: proposal.direction,
        amount_cents: proposal.amount_cents,
        reason,
        proposed_by: staff,
    };
    let mut tx = state.pool.begin().await?;
    let made = store::insert(&mut tx, &new).await?;
    if made {
        let action = StaffAction {
            staff,
            action: "adjustment.propose",
            subject: format!("player:{player}"),
            before: serde_json::Value::Null,
            after: serde_json::json!({"adjustment": id, "direction": new.direction.as_str(),
                                      "amount_cents": new.amount_cents}),
            reason,
        };
        record_action(&mut tx, &action).await?;
    }
    tx.commit().await?;
    let view = get(state, id).await?;
    let same = view.player_id == player
        && view.direction == proposal.direction
        && view.amount_cents == proposal.amount_cents
        && view.reason == reason;
    if !same {
        return Err(AppError::conflict(
            codes::IDEMPOTENCY_CONFLICT,
            "this Idempotency-Key proposed a different adjustment",
        ));
    }
    Ok((made, view))
}

/// Operator `staff` approves adjustment `id` (not their own proposal): recorded, then its money
/// moved. Approving one approved already (by anyone) answers it as it stands. A debit the
/// wallet no longer covers is refused (`insufficient_funds`) and the adjustment waits again.
pub(crate) async fn approve(state: &GatewayState, staff: &str, id: Uuid) -> Result<AdjustmentView, AppError> {
    let mut tx = state.pool.begin().await?;
    let (proposer, now) = store::lock(&mut tx, id).await?.ok_or_else(|| not_found(id))?;
    match now {
        AdjustmentState::Proposed if proposer == staff => {
            return Err(AppError::conflict(
                codes::SECOND_OPERATOR_REQUIRED,
                "an adjustment is approved by an operator other than the one who proposed it",
            ));
        }
        AdjustmentState::Proposed => {
            store::decide(&mut tx, id, AdjustmentState::Approving, staff, None).await?;
            let action = StaffAction {
                staff,
                action: "adjustment.approve",
                subject: format!("adjustment:{id}"),
                before: serde_json::json!({"state": "proposed"}),
                after: serde_json::json!({"state": "approved"}),
                reason: "approved as proposed",
            };
            record_action(&mut tx, &action).await?;
        }
        AdjustmentState::Rejected => {
            return Err(AppError::conflict(codes::ADJUSTMENT_DECIDED, "this adjustment was rejected"));
        }
        AdjustmentState::Approving | AdjustmentState::Approved => {}
    }
    tx.commit().await?;
    finish(state, id).await?;
    get(state, id).await
}

/// Operator `staff` rejects adjustment `id`, saying why (the proposer may withdraw their own).
pub(crate) async fn reject(
    state: &GatewayState,
    staff: &str,
    id: Uuid,
    reason: &str,
) -> Result<AdjustmentView, AppError> {
    let reason = required_reason(reason)?;
    let mut tx = state.pool.begin().await?;
    let (_, now) = store::lock(&mut tx, id).await?.ok_or_else(|| not_found(id))?;
    if now != AdjustmentState::Proposed {
        return Err(AppError::conflict(
            codes::ADJUSTMENT_DECIDED,
            format!("this adjustment is {} already", now.as_str()),
        ));
    }
    store::decide(&mut tx, id, AdjustmentState::Rejected, staff, Some(reason)).await?;
    let action = StaffAction {
        staff,
        action: "adjustment.reject",
        subject: format!("adjustment:{id}"),
        before: serde_json::json!({"state": "proposed"}),
        after: serde_json::json!({"state": "rejected"}),
        reason,
    };
    record_action(&mut tx, &action).await?;
    tx.commit().await?;
    get(state, id).await
}

/// Moves an approved adjustment's money (a replay if it moved already) and marks it approved;
/// an adjustment not `approving` is left as it is.
async fn finish(state: &GatewayState, id: Uuid) -> Result<(), AppError> {
    let row = store::get(&state.pool, id).await?.ok_or_else(|| not_found(id))?;
    if row.state != AdjustmentState::Approving {
        return Ok(());
    }
    let wallet = load_player(state, row.player_id).await?.wallet_account_id;
    let house = adjustments_account();
    state.ledger.open_accounts("gateway", &[(house, AccountKind::Adjustments)]).await?;
    let purpose = Purpose::adjustment(id);
    let transfer = match row.direction {
        Direction::Credit => NewTransfer::new(transfer_id(id), house, wallet, row.amount_cents, purpose),
        Direction::Debit => NewTransfer::new(transfer_id(id), wallet, house, row.amount_cents, purpose),
    };
    match state.ledger.transfer(&transfer).await {
        Ok(()) => {}
        Err(LedgerError::Refused(e)) => {
            // Nothing moved (the wallet no longer covers a debit): the adjustment waits again.
            let mut tx = state.pool.begin().await?;
            store::back_to_proposed(&mut tx, id).await?;
            let reason = format!("the ledger refused it: {}", e.code());
            let action = StaffAction {
                staff: row.decided_by.as_deref().unwrap_or_default(),
                action: "adjustment.refused",
                subject: format!("adjustment:{id}"),
                before: serde_json::json!({"state": "approving"}),
                after: serde_json::json!({"state": "proposed"}),
                reason: &reason,
            };
            record_action(&mut tx, &action).await?;
            tx.commit().await?;
            return Err(e);
        }
        Err(unavailable) => return Err(unavailable.into()),
    }
    store::mark_approved(&state.pool, id).await?;
    Ok(())
}

/// Finishes every adjustment left `approving` for longer than `older_than` (its approver's
/// process died, or the ledger was away). Returns how many.
pub(crate) async fn finish_approving(
    state: &GatewayState,
    older_than: std::time::Duration,
) -> Result<usize, AppError> {
    let approving = store::approving(&state.pool, older_than).await?;
    Ok(platform::recovery::finish_each(approving, "adjustment", |id| finish(state, id)).await)
}
