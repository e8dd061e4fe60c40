//! Packs, as a lottery runs them: an operator ships a printed pack to a retailer, the retailer's
//! terminal confirms it was received and activates it (activating a shipped pack confirms its
//! receipt in the same step), and it is settled: the retailer owes the lottery the pack's price
//! less its commission (`LOTTO_RETAILER_COMMISSION_BPS`, 5% by default), posted in the ledger from
//! the retailer's settlement account to the instant house account. A pack is settled when its
//! retailer or an operator asks, or by [`settle_due_packs`] once it has been active for
//! `LOTTO_PACK_SETTLE_AFTER_SECONDS` (30 days by default).
//!
//! Off that road: a pack not yet activated may be returned to the lottery (an operator records
//! it back), and a pack out at a retailer (shipped, received or active) may be reported stolen, by
//! an operator or by the retailer's terminal: its tickets are then refused at every counter with
//! `pack_stolen`. Both are final. Every move is checked against [`PackMove::rule`]; any other is a
//! conflict that changes nothing.

use domain::instant::payout::settle_pack;
use ledger_api::{AccountKind, Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::events::{self, Event, Kind};
use platform::codes;
use sqlx::PgConnection;

use crate::InstantState;
use crate::store::PackState;
use crate::store::packs::{self, Pack};
use crate::views::{PackView, SettlementView};

fn pack_not_found(game: i32, book: i32) -> AppError {
    AppError::not_found(codes::PACK_NOT_FOUND, format!("no pack {game:03}-{book:06}"))
}

fn view(game: i32, book: i32, pack: Pack) -> PackView {
    PackView {
        game,
        book,
        state: pack.state,
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

/// A move of a pack along its life (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackMove {
    /// printed → shipped, to a retailer (operators).
    Ship,
    /// shipped → received (the retailer's terminal).
    Receive,
    /// shipped or received → active (the retailer's terminal).
    Activate,
    /// shipped or received → returned (operators).
    Return,
    /// shipped, received or active → stolen (operators, or the retailer's terminal).
    ReportStolen,
}

impl PackMove {
    /// The states the move starts from, where it ends, and the code of a pack elsewhere.
    pub fn rule(self) -> (&'static [PackState], PackState, codes::CodeName) {
        use PackState::*;
        match self {
            PackMove::Ship => (&[Printed], Shipped, codes::PACK_NOT_PRINTED),
            PackMove::Receive => (&[Shipped], Received, codes::PACK_NOT_SHIPPED),
            PackMove::Activate => (&[Shipped, Received], Active, codes::PACK_NOT_SHIPPED),
            PackMove::Return => (&[Shipped, Received], Returned, codes::PACK_NOT_RETURNABLE),
            PackMove::ReportStolen => (&[Shipped, Received, Active], Stolen, codes::PACK_NOT_AT_RETAILER),
        }
    }
}

/// Moves a pack (see [`PackMove::rule`]), shipping it to `ship_to` when given; `by` is who asks.
/// A pack of another retailer than `owner` (when given) is not found, one in another state is a
/// conflict, and nothing changes.
pub async fn move_pack(
    state: &InstantState,
    (game, book): (i32, i32),
    how: PackMove,
    ship_to: Option<&str>,
    owner: Option<&str>,
    by: &str,
) -> Result<PackView, AppError> {
    let (from, to, code) = how.rule();
    let mut tx = state.pool.begin().await?;
    let current = lock_pack(&mut tx, game, book, owner).await?.state;
    if !from.contains(&current) {
        let allowed: Vec<&str> = from.iter().map(|s| s.as_str()).collect();
        return Err(AppError::conflict(
            code,
            format!(
                "the pack is {}; only a pack {} can become {}",
                current.as_str(),
                allowed.join(" or "),
                to.as_str()
            ),
        ));
    }
    let moved = packs::set_state(&mut tx, game, book, to, ship_to, by).await?;
    let event = pack_event(game, book, current.as_str(), to.as_str(), moved.retailer_id.as_deref(), by)?;
    events::record(&mut tx, crate::SCHEMA, &event).await?;
    tx.commit().await?;
    Ok(view(game, book, moved))
}

/// A pack's move, as the significant-events log records it (shipped, received, activated,
/// returned, reported stolen, settled).
fn pack_event(game: i32, book: i32, from: &str, to: &str, retailer: Option<&str>, by: &str) -> Result<Event, AppError> {
    #[derive(serde::Serialize)]
    struct Moved<'a> {
        game: i32,
        book: i32,
        from: &'a str,
        to: &'a str,
        /// The terminal or member of staff who moved it (empty for a settlement).
        by: &'a str,
    }
    let event = Event::new(Kind::Pack, &Moved { game, book, from, to, by })?;
    Ok(match retailer.and_then(|r| r.parse().ok()) {
        Some(retailer) => event.retailer(retailer),
        None => event,
    })
}

/// Settles one active pack (see the module); `owner`, when given, must be its retailer. Asking
/// again for a settled pack answers its settlement (and moves its money, if that had not
/// happened). The settlement is recorded under the pack's lock and committed before the ledger
/// moves the money, keyed by the pack, so no lock waits on the ledger and a retry moves it once.
pub async fn settle_pack_now(
    state: &InstantState,
    game: i32,
    book: i32,
    owner: Option<&str>,
) -> Result<PackView, AppError> {
    let definition = state.game(u32::try_from(game).map_err(|_| pack_not_found(game, book))?)?.clone();
    let mut tx = state.pool.begin().await?;
    let pack = lock_pack(&mut tx, game, book, owner).await?;
    let pack = match pack.state {
        PackState::Settled => pack,
        PackState::Active => {
            let owed = settle_pack(
                definition.ticket_numbers.tickets_per_book(),
                definition.price_cents,
                state.settings.commission_bps,
            );
            let settled_at = packs::mark_settled(&mut tx, game, book, &owed).await?;
            let event = pack_event(game, book, "active", "settled", pack.retailer_id.as_deref(), "")?;
            events::record(&mut tx, crate::SCHEMA, &event).await?;
            let settlement = SettlementView {
                sales_cents: owed.sales_cents,
                commission_cents: owed.commission_cents,
                owed_cents: owed.owed_cents,
                settled_at,
            };
            Pack { state: PackState::Settled, settlement: Some(settlement), settlement_posted: false, ..pack }
        }
        other => {
            return Err(AppError::conflict(
                codes::PACK_NOT_ACTIVE,
                format!("the pack is {}; only an active pack is settled", other.as_str()),
            ));
        }
    };
    tx.commit().await?;
    if !pack.settlement_posted {
        post_settlement(state, game, book, &pack).await?;
    }
    Ok(view(game, book, pack))
}

/// A settled pack's money moved: what its retailer owes, from the retailer's settlement account
/// to the house, under an id derived from the pack (a repeat is a replay); then noted.
async fn post_settlement(state: &InstantState, game: i32, book: i32, pack: &Pack) -> Result<(), AppError> {
    let (Some(retailer_id), Some(owed)) = (pack.retailer_id.as_deref(), pack.settlement.as_ref()) else {
        return Err(AppError::internal("a settled pack without a retailer or a settlement"));
    };
    let account = ledger_api::retailer_account(retailer_id);
    state.ledger.open_accounts(retailer_id, &[(account, AccountKind::RetailerSettlement)]).await?;
    let id = uuid::Uuid::new_v5(
        &crate::INSTANT_NAMESPACE,
        format!("instant/pack/{game}-{book}/settled").as_bytes(),
    );
    let purpose = Purpose::of(Game::Instant(crate::game_number(game)?), Money::PackSettlement)
        .book(i64::from(book))
        .sales(owed.sales_cents, owed.commission_cents);
    state
        .ledger
        .batch(&[NewTransfer::new(id, account, state.accounts.house, owed.owed_cents, purpose)])
        .await?;
    packs::mark_settlement_posted(&state.pool, game, book).await
}

/// Settles every pack active for longer than the service's `settle_after`, and moves the money
/// of any settled pack whose money did not move (the ledger away, the process killed); returns
/// how many. Each is settled on its own, so one that fails is retried on the next pass.
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
