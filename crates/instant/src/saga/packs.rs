//! Packs: an operator assigns a printed pack to a retailer, the retailer's terminal activates it,
//! and it is settled: the retailer owes the lottery the pack's price less its commission
//! (`LOTTO_RETAILER_COMMISSION_BPS`, 5% by default), posted in the ledger from the retailer's
//! settlement account to the instant house account. A pack is settled when its retailer or an
//! operator asks, or by [`settle_due_packs`] once it has been active for
//! `LOTTO_PACK_SETTLE_AFTER_SECONDS` (30 days by default).
//!
//! Packs move only forward: printed → assigned → active → settled.

use domain::instant::payout::settle_pack;
use ledger_api::{AccountKind, NewTransfer};
use platform::AppError;
use sqlx::PgConnection;

use crate::InstantState;
use crate::store::PackState;
use crate::store::packs::{self, Pack};
use crate::views::{PackView, SettlementView};

fn pack_not_found(game: i32, book: i32) -> AppError {
    AppError::not_found("pack_not_found", format!("no pack {game:03}-{book:06}"))
}

fn view(game: i32, book: i32, pack: Pack) -> PackView {
    PackView {
        game,
        book,
        state: pack.state.as_str().to_owned(),
        retailer_id: pack.retailer_id,
        settlement: pack.settlement,
    }
}

/// Locks and reads pack `game`-`book`; a pack of another retailer than `owner` (when given) is
/// not found.
async fn lock_pack(
    conn: &mut PgConnection,
    game: i32,
    book: i32,
    owner: Option<&str>,
) -> Result<Pack, AppError> {
    let pack = packs::lock(conn, game, book).await?.ok_or_else(|| pack_not_found(game, book))?;
    if owner.is_some() && pack.retailer_id.as_deref() != owner {
        return Err(pack_not_found(game, book));
    }
    Ok(pack)
}

/// Moves a pack `from` → `to`; a pack of another retailer is not found, one in another state is a
/// conflict, and nothing changes.
pub async fn move_pack(
    state: &InstantState,
    (game, book): (i32, i32),
    (from, to): (PackState, PackState),
    assign_to: Option<&str>,
    owner: Option<&str>,
) -> Result<PackView, AppError> {
    let mut tx = state.pool.begin().await?;
    let current = lock_pack(&mut tx, game, book, owner).await?.state;
    if current != from {
        return Err(AppError::conflict(
            format!("pack_not_{}", from.as_str()),
            format!(
                "the pack is {}; packs move only forward (printed, assigned, active, settled)",
                current.as_str()
            ),
        ));
    }
    let moved = packs::set_state(&mut tx, game, book, to, assign_to).await?;
    tx.commit().await?;
    Ok(view(game, book, moved))
}

/// Settles one active pack (see the module); `owner`, when given, must be its retailer. Asking
/// again for a settled pack answers its settlement.
pub async fn settle_pack_now(
    state: &InstantState,
    game: i32,
    book: i32,
    owner: Option<&str>,
) -> Result<PackView, AppError> {
    let definition = state.game(u32::try_from(game).map_err(|_| pack_not_found(game, book))?)?.clone();
    let mut tx = state.pool.begin().await?;
    let pack = lock_pack(&mut tx, game, book, owner).await?;
    match pack.state {
        PackState::Settled => return Ok(view(game, book, pack)),
        PackState::Active => {}
        other => {
            return Err(AppError::conflict(
                "pack_not_active",
                format!("the pack is {}; only an active pack is settled", other.as_str()),
            ));
        }
    }
    let retailer_id =
        pack.retailer_id.clone().ok_or_else(|| AppError::internal("an active pack without a retailer"))?;
    let owed = settle_pack(
        definition.ticket_numbers.tickets_per_book(),
        definition.price_cents,
        state.settings.commission_bps,
    );
    let settled_at = packs::mark_settled(&mut tx, game, book, &owed).await?;
    let account = ledger_api::retailer_account(&retailer_id);
    state.ledger.open_accounts(&retailer_id, &[(account, AccountKind::RetailerSettlement)]).await?;
    let id = uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/pack/{game}-{book}/settled").as_bytes(),
    );
    let metadata = serde_json::json!({"game": game, "book": book, "sales": owed.sales_cents, "commission": owed.commission_cents});
    state
        .ledger
        .batch(&[NewTransfer::new(id, account, state.accounts.house, owed.owed_cents, metadata)])
        .await?;
    tx.commit().await?;
    let settlement = SettlementView {
        sales_cents: owed.sales_cents,
        commission_cents: owed.commission_cents,
        owed_cents: owed.owed_cents,
        settled_at,
    };
    Ok(view(
        game,
        book,
        Pack { state: PackState::Settled, retailer_id: pack.retailer_id, settlement: Some(settlement) },
    ))
}

/// Settles every pack active for longer than the service's `settle_after`; returns how many.
/// Each is settled on its own, so one that fails (the ledger away) is retried on the next pass.
pub async fn settle_due_packs(state: &InstantState) -> Result<usize, AppError> {
    let mut settled = 0usize;
    for (game, book) in packs::due_for_settlement(&state.pool, state.settings.settle_after).await? {
        match settle_pack_now(state, game, book, None).await {
            Ok(_) => settled = settled.saturating_add(1),
            Err(e) => {
                tracing::warn!(game, book, error = %e, "settling a pack failed; retried on the next pass");
            }
        }
    }
    Ok(settled)
}
