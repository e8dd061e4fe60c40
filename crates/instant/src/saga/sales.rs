//! A game's end of sales and the expiry of its unclaimed prizes (issue 50 §Prizes that expire).
//!
//! An operator records the game's announced end of sales (past or to come; moved while its
//! prizes have not begun to expire). Its prizes may be claimed until the claim period after it
//! ends ([`domain::prizes::ClaimPeriod`]: `LOTTO_INSTANT_CLAIM_DAYS`, to the next business day);
//! the day after, a claim at the till or the office is `prize_expired`, and the expiry moves
//! what the game's prize liability still holds to the unclaimed-prizes account, once.
//!
//! **Exactly one of a claim and the expiry.** A claim reserves its ticket in a transaction that
//! share-locks the game's row and checks the period there; the expiry begins by locking the row
//! for update, and only when no payment of the game is reserved with its money unmoved. So a
//! claim reserved first is paid (the expiry waits for its money), and an expiry begun first is
//! what a claim then finds.

use chrono::NaiveDate;
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::store::sales_ends::{self, SalesEnd};
use crate::views::SalesEndView;
use crate::{INSTANT_NAMESPACE, InstantState};

/// The lottery's date now (its days are central time's).
fn today() -> NaiveDate {
    chrono::Utc::now().with_timezone(&domain::text::LOTTERY_ZONE).date_naive()
}

/// Whether `end`'s game's prizes can no longer be claimed.
pub fn has_expired(state: &InstantState, end: &SalesEnd) -> bool {
    end.expiring_at.is_some() || state.settings.claim.has_expired(end.ends_on, today())
}

/// The refusal of a claim of `end`'s game after its claim period.
pub fn prize_expired(state: &InstantState, end: &SalesEnd) -> AppError {
    AppError::conflict(
        codes::PRIZE_EXPIRED,
        format!(
            "game {}'s sales ended on {}; its prizes could be claimed until {}",
            end.game,
            end.ends_on,
            state.settings.claim.last_day(end.ends_on)
        ),
    )
}

/// A claim's check, in the transaction that reserves the ticket (see the module).
pub async fn check_claimable(conn: &mut PgConnection, state: &InstantState, game: i32) -> Result<(), AppError> {
    match sales_ends::for_claim(conn, game).await? {
        Some(end) if has_expired(state, &end) => Err(prize_expired(state, &end)),
        _ => Ok(()),
    }
}

/// A scan's check: a winning ticket of a game whose prizes have expired, by the end of sales the
/// scan read.
pub fn check_scanned(state: &InstantState, end: Option<&SalesEnd>) -> Result<(), AppError> {
    match end {
        Some(end) if has_expired(state, end) => Err(prize_expired(state, end)),
        _ => Ok(()),
    }
}

pub fn view(state: &InstantState, end: &SalesEnd) -> SalesEndView {
    SalesEndView {
        game: u32::try_from(end.game).unwrap_or_default(),
        ends_on: end.ends_on,
        last_claim_day: state.settings.claim.last_day(end.ends_on),
        announced_at: end.announced_at,
        announced_by: end.announced_by.clone(),
        expired_cents: end.expired_at.and(end.expired_cents),
        expired_at: end.expired_at,
    }
}

/// Records `game`'s announced end of sales (operator `by`).
pub async fn end_sales(state: &InstantState, game: u32, ends_on: NaiveDate, by: &str) -> Result<SalesEndView, AppError> {
    state.game(game)?;
    let stored = i32::try_from(game).map_err(AppError::internal)?;
    match sales_ends::announce(&state.pool, stored, ends_on, by).await? {
        Some(end) => Ok(view(state, &end)),
        None => Err(AppError::conflict(
            codes::PRIZE_EXPIRED,
            format!("game {game}'s prizes have begun to expire: its end of sales stands"),
        )),
    }
}

/// Every game's end of sales.
pub async fn sales_ends(state: &InstantState) -> Result<Vec<SalesEndView>, AppError> {
    Ok(sales_ends::all(&state.pool).await?.iter().map(|end| view(state, end)).collect())
}

/// The expiry's transfer of `game`: its id derived from the game, so it moves once.
fn expiry_transfer(state: &InstantState, game: u32, cents: i64) -> NewTransfer {
    NewTransfer::new(
        Uuid::new_v5(&INSTANT_NAMESPACE, format!("instant/{game}/expired").as_bytes()),
        crate::liability_account(game),
        state.accounts.unclaimed,
        cents,
        Purpose::of(Game::Instant(game), Money::Prize).expired(),
    )
}

/// Expires the prizes of every game whose claim period has ended (see the module); answers
/// how many games this call finished expiring. A game with a payment in flight waits for the
/// next round; two replicas at once move its money once (the transfer's id is the game's).
pub async fn expire_due(state: &InstantState) -> Result<usize, AppError> {
    let mut expired = 0usize;
    for end in sales_ends::all(&state.pool).await? {
        if end.expired_at.is_some() || !has_expired(state, &end) {
            continue;
        }
        if !sales_ends::begin_expiry(&state.pool, end.game).await? {
            continue;
        }
        let game = crate::game_number(end.game)?;
        // No claim is taken now, so the liability's balance is what nobody claimed; the first
        // amount recorded stands (a retry after a crash moves the same).
        let balance = state.ledger.balance(crate::liability_account(game)).await?;
        let cents = sales_ends::record_amount(&state.pool, end.game, balance.max(0)).await?;
        if cents > 0 {
            state.ledger.transfer(&expiry_transfer(state, game, cents)).await?;
        }
        if sales_ends::mark_expired(&state.pool, end.game).await? {
            tracing::info!(game, cents, "an instant game's unclaimed prizes expired");
            expired = expired.saturating_add(1);
        }
    }
    Ok(expired)
}
