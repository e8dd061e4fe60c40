//! A round's steps (architecture §4), none holding a row lock across a call to the ledger (ADR 0004):
//!
//! 1. [`place_wagers`]: the wagers checked against the posted limits and recorded `open`;
//! 2. [`drive_deal`]: the wagers in one ledger batch (key `<round>/stake/*`); refused →
//!    `refused`, nothing moved; then seven cards each from a deck shuffled by the server's
//!    CSPRNG, stored with the meter → `deciding`. Cards are stored before anyone sees them, so a
//!    deal retried after a crash either finds them or deals ones nobody has seen;
//! 3. [`decide`]: one conditional write claims the round's decision (of two concurrent decisions
//!    exactly one applies: the other finds the round decided or a decision pending): a fold is
//!    recorded → `settling`; a play is checked (75(a)(2)) and recorded as the round's pending
//!    decision;
//! 4. [`super::settlement::settle_round`], with no lock held: one ledger batch takes a pending
//!    play's wager (key `<round>/play`) ahead of everything the round pays → `settled`, chained;
//!    a refused play wager clears the claim with nothing moved.
//!
//! [`recover`] finishes any step a crash interrupted with the same keys (so the ledger replays
//! what it already did) and the same stored cards; [`finish_abandoned`] folds for a player who
//! never decides (the house never stakes a player's money for them).

use axum::http::StatusCode;
use chrono::{SubsecRound, Utc};
use domain::i_luv_suits::round::{Choice, Deal, Hands, WagerError, Wagers, check_play};
use ledger_api::LedgerError;
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use serde_json::json;
use uuid::Uuid;

use super::settlement::{ledger_batch, settle_round, stakes_at_deal};
use super::store::{Claim, Dealt, Decided, DecidedBy, NewRound, RoundState, StoredRound};
use crate::{TABLES_NAMESPACE, TablesState};

/// A wager or decision the rules refused, as a problem with its stable code.
pub fn wager_error(e: &WagerError) -> AppError {
    let code = match e {
        WagerError::AnteOutOfRange { .. } => codes::WAGER_OUT_OF_RANGE,
        WagerError::SideOutOfRange { .. } => codes::SIDE_WAGER_OUT_OF_RANGE,
        WagerError::PlayOverMultiple { .. } => codes::PLAY_OVER_MULTIPLE,
        WagerError::PlayUnderAnte { .. } => codes::PLAY_UNDER_ANTE,
    };
    AppError::new(StatusCode::UNPROCESSABLE_ENTITY, code, e.to_string())
}

fn not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::ROUND_NOT_FOUND, format!("round {id} does not exist"))
}

async fn reload(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    state.i_luv_suits.repository.load(id).await?.ok_or_else(|| not_found(id))
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
        return Ok((deal_round(state, round.stored()).await?, true));
    }
    let existing = reload(state, id).await?;
    if existing.wagers != *wagers {
        return Err(AppError::conflict(
            codes::IDEMPOTENCY_CONFLICT,
            "this key placed a round with other wagers",
        ));
    }
    Ok((deal_round(state, existing).await?, false))
}

/// Step 2: takes an `open` round's wagers and deals it; safe to run again at any point.
pub async fn drive_deal(state: &TablesState, id: Uuid) -> Result<StoredRound, AppError> {
    match deal_round(state, reload(state, id).await?).await {
        // The ledger refused the wagers: the round is finished, `refused`.
        Err(e) if ledger_api::is_refusal(&e) => reload(state, id).await,
        dealt => dealt,
    }
}

/// Step 2 on the round as read (or just recorded); answers the round after it.
async fn deal_round(state: &TablesState, stored: StoredRound) -> Result<StoredRound, AppError> {
    if stored.state != RoundState::Open {
        return Ok(stored);
    }
    let (id, game) = (stored.id, &state.i_luv_suits);
    let stakes = stakes_at_deal(state, stored.wallet, &stored.wagers);
    // 76(i)(5): prizes are paid on the meter at the time they are won (this deal): the pot as
    // the batch leaves it, read back with the wallet.
    let (wallet, pot) = match ledger_batch(state, id, &stakes, &[stored.wallet, game.pot_account]).await {
        Ok(balances) => match balances[..] {
            [wallet, pot] => (wallet, pot),
            _ => return Err(AppError::internal("the ledger answered other balances")),
        },
        // Refused: the round ends `refused`, and this answer carries the ledger's problem as it
        // came (a limit's amount left and when it resets); a replay answers the stored code.
        Err(LedgerError::Refused(e)) => {
            game.repository.refuse(id, e.code()).await?;
            return Err(e);
        }
        Err(e) => return Err(e.into()),
    };
    let deal = Deal::shuffled(&mut ChaCha20Rng::from_os_rng());
    let staked = stored.wagers.staked_at_deal(&stored.rules);
    let dealt = Dealt { id, deal, pot, staked, balance_before: wallet.saturating_add(staked) };
    match game.repository.deal(stored, dealt).await? {
        Some(dealt_round) => Ok(dealt_round),
        // Another call (a retry, the recovery pass) dealt it first: its cards stand.
        None => reload(state, id).await,
    }
}

/// Step 3: the player's decision (`choice`, given the round's ante: a play names its amount or
/// is the ante's), or the house's fold for an abandoned round (`player` and `choice` None); then
/// the settlement.
pub async fn decide(
    state: &TablesState,
    id: Uuid,
    player: Option<&str>,
    choice: Option<&(dyn Fn(i64) -> Choice + Sync)>,
) -> Result<StoredRound, AppError> {
    let by = if player.is_some() { DecidedBy::Player } else { DecidedBy::House };
    // Read (or remembered), then claimed by one conditional write: a decision that lost the race
    // reads the round again and finds what won (its own retry's decision, or another: refused).
    for attempt in 0..2 {
        let read = match attempt {
            0 => state.i_luv_suits.repository.deciding(id).await?.ok_or_else(|| not_found(id))?,
            _ => reload(state, id).await?,
        };
        let stored =
            Some(read).filter(|r| player.is_none_or(|p| r.player_id == p)).ok_or_else(|| not_found(id))?;
        let decided = Decided { choice: choice.map_or(Choice::Fold, |c| c(stored.wagers.ante_cents)), by };
        let decided_round = match (stored.state, &stored.pending) {
            // The same decision sent again (a retry) finds the round it made.
            (RoundState::Settling | RoundState::Settled, _)
                if stored.decision.is_some_and(|d| d.choice == decided.choice) =>
            {
                stored
            }
            (RoundState::Settling | RoundState::Settled, _) => {
                return Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round has been decided"));
            }
            (RoundState::Deciding, Some(pending)) => {
                if pending.choice != decided.choice && choice.is_some() {
                    return Err(AppError::conflict(
                        codes::DECISION_PENDING,
                        "another decision waits for its play wager to be taken: send it again to finish it",
                    )
                    .with_context(json!({"pending": pending.choice})));
                }
                stored
            }
            (RoundState::Deciding, None) => {
                let deal = stored.deal.ok_or_else(|| AppError::internal("a dealt round without cards"))?;
                if let Choice::Play { play_cents } = decided.choice {
                    check_play(&Hands::of(&deal), stored.wagers.ante_cents, play_cents)
                        .map_err(|e| wager_error(&e))?;
                }
                if !state.i_luv_suits.repository.claim(Claim { id, decided }).await? {
                    continue;
                }
                let mut decided_round = stored;
                match decided.choice {
                    Choice::Fold => {
                        (decided_round.state, decided_round.decision) = (RoundState::Settling, Some(decided));
                    }
                    Choice::Play { .. } => decided_round.pending = Some(decided),
                }
                decided_round
            }
            _ => {
                return Err(AppError::conflict(
                    codes::ROUND_NOT_IN_PLAY,
                    "this round is not waiting for a decision",
                ));
            }
        };
        return match settle_round(state, &decided_round).await? {
            Some(settled) => Ok(settled),
            None => reload(state, id).await,
        };
    }
    Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round was decided meanwhile: read it"))
}

/// Finishes rounds a crash left between steps for longer than `older_than` (dealt, their play
/// wager taken, settled); returns how many. A round waiting for its player's decision waits.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    let stuck = state.i_luv_suits.repository.stuck(older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "I Luv Suits round", |id| async move {
        let stored = drive_deal(state, id).await?;
        settle_round(state, &stored).await.map(|_| ())
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
