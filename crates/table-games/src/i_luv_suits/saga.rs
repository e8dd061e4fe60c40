//! A round's steps (architecture §4), each one step of the kit's round driver
//! ([`crate::kit::round`]) planned by a pure function of [`super::steps`]; none holds a row lock
//! across a call to the ledger (ADR 0004):
//!
//! 1. [`place_wagers`]: the wagers checked against the posted limits and recorded `open`;
//! 2. [`drive_deal`]: the wagers in one ledger batch (key `<round>/stake/*`), then seven cards
//!    each → `deciding` ([`steps::deal`]); refused → `refused`, nothing moved. Cards are stored
//!    before anyone sees them, so a deal retried after a crash either finds them or deals ones
//!    nobody has seen;
//! 3. [`decide`]: one conditional write claims the round's decision ([`steps::decide`]; of two
//!    concurrent decisions exactly one applies): a fold → `settling`; a play, checked, pending;
//! 4. the settlement ([`steps::settle`]): one ledger batch takes a pending play's wager (key
//!    `<round>/play`) ahead of everything the round pays → `settled`, chained; a refused play
//!    wager clears the claim with nothing moved.
//!
//! [`recover`] finishes any step a crash interrupted with the same keys (so the ledger replays
//! what it already did) and the same stored cards; [`finish_abandoned`] folds for a player who
//! never decides (the house never stakes a player's money for them).

use chrono::{SubsecRound, Utc};
use domain::i_luv_suits::round::{Choice, Wagers};
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::convert::Infallible;
use uuid::Uuid;

use super::steps::{self, SuitsPlan, wager_error};
use super::store::{DecidedBy, NewRound, StoredRound};
use crate::kit::round::{Driven, Start, drive};
use crate::{TABLES_NAMESPACE, TablesState};

fn not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist"))
}

/// One step of round `id` through the driver.
async fn step(
    state: &TablesState,
    id: Uuid,
    start: Start<StoredRound>,
    plan: impl FnMut(&StoredRound) -> Result<SuitsPlan, AppError>,
) -> Result<Driven<StoredRound, Infallible>, AppError> {
    let gave_up = || AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round was decided meanwhile: read it");
    drive(&state.kit, &state.i_luv_suits.repository, &id, start, plan, gave_up).await
}

/// Step 1: a round of `wagers` for `player` under idempotency key `key`, then dealt
/// ([`drive_deal`]); a replay of the key finishes and answers the same round. Returns the round
/// and whether this call made it.
pub async fn place_wagers(
    state: &TablesState,
    player: &str,
    key: &str,
    wagers: &Wagers,
) -> Result<(StoredRound, bool), AppError> {
    let rules = state.i_luv_suits.limits.rules;
    wagers.check(&rules).map_err(|e| wager_error(&e))?;
    let id = Uuid::new_v5(&TABLES_NAMESPACE, format!("ils-round/{player}/{key}").as_bytes());
    let wallet = state.ledger.wallet_of(player).await?;
    // Postgres keeps microseconds: the round answered now and read later must be the same.
    let created_at = Utc::now().trunc_subsecs(6);
    let round = NewRound { id, player: player.to_owned(), wallet, wagers: *wagers, rules, created_at };
    if state.i_luv_suits.repository.open(round.clone()).await? {
        return Ok((deal(state, id, Start::Row(round.stored())).await?.answer()?, true));
    }
    let existing = state.i_luv_suits.repository.load(id).await?.ok_or_else(|| not_found(id))?;
    if existing.wagers != *wagers {
        return Err(AppError::conflict(
            codes::IDEMPOTENCY_CONFLICT,
            "this key placed a round with other wagers",
        ));
    }
    Ok((deal(state, id, Start::Row(existing)).await?.answer()?, false))
}

/// Step 2 on the round as read (or just recorded).
async fn deal(
    state: &TablesState,
    id: Uuid,
    start: Start<StoredRound>,
) -> Result<Driven<StoredRound, Infallible>, AppError> {
    let accounts = state.i_luv_suits.accounts();
    step(state, id, start, |round| steps::deal(round, accounts, &mut ChaCha20Rng::from_os_rng())).await
}

/// Step 2: takes an `open` round's wagers and deals it; safe to run again at any point. A round
/// the ledger refused is answered as it stands, `refused`.
pub async fn drive_deal(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    match deal(state, id, Start::Read).await? {
        Driven::Refused(_) => state.i_luv_suits.repository.load(id).await?.ok_or_else(|| not_found(id)),
        dealt => dealt.answer(),
    }
}

/// Steps 3 and 4: the player's decision (`choice`, given the round's ante: a play names its
/// amount or is the ante's), or the house's fold for an abandoned round (`player` and `choice`
/// None); then the settlement. The player's decision may be worked out on the round as this
/// process dealt it.
pub async fn decide(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    choice: Option<&(dyn Fn(i64) -> Choice + Sync)>,
) -> Result<StoredRound, AppError> {
    let by = if player.is_some() { DecidedBy::Player } else { DecidedBy::House };
    let start = if player.is_some() { Start::Remembered } else { Start::Read };
    let decided = step(state, id, start, |round| {
        if player.is_some_and(|p| round.player_id != p) {
            return Err(not_found(id));
        }
        steps::decide(round, choice.map_or(Choice::Fold, |c| c(round.wagers.ante_cents)), by)
    })
    .await?;
    settle(state, decided).await?.answer()
}

/// Step 4 after a step that answered `driven`.
async fn settle(
    state: &TablesState,
    driven: Driven<StoredRound, Infallible>,
) -> Result<Driven<StoredRound, Infallible>, AppError> {
    let accounts = state.i_luv_suits.accounts();
    match driven {
        Driven::Row(round) => step(state, round.id, Start::Row(round), |round| steps::settle(round, accounts)).await,
        refused => Ok(refused),
    }
}

/// Finishes rounds a crash left between steps for longer than `older_than` (dealt, their play
/// wager taken, settled); returns how many. A round waiting for its player's decision waits.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    let stuck = state.i_luv_suits.repository.stuck(older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "I Luv Suits round", |id| async move {
        let dealt = drive_deal(state, id).await?;
        settle(state, Driven::Row(dealt)).await?.answer().map(|_| ())
    })
    .await)
}

/// Folds rounds whose player has not decided for `idle` (`LOTTO_ILS_ABANDONED_AFTER_SECONDS`, a
/// day by default) and settles them, so no wager waits in escrow for ever. Returns how many.
pub async fn finish_abandoned(state: &TablesState, idle: std::time::Duration) -> Result<usize, AppError> {
    let abandoned = state.i_luv_suits.repository.abandoned(idle).await?;
    Ok(platform::recovery::finish_each(abandoned, "abandoned I Luv Suits round", |id| {
        decide(state, id, None, None)
    })
    .await)
}
