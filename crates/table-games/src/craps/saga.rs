//! A craps request's steps (architecture §4), each one step of the kit's round driver
//! ([`crate::kit::round`]) planned by a pure function of [`super::steps`]; none holds a row lock
//! across a call to the ledger:
//!
//! 1. the claim ([`steps::claim`]): the session read (or taken as this process last recorded it),
//!    the changes applied to a copy of the layout (a rule refused changes nothing), the dice
//!    thrown by the server's CSPRNG (and power odds lit or not), and all of it recorded as the
//!    session's `pending` request by one conditional write that claims the session only if it is
//!    as read (no request pending, none recorded since), committed before any money moves: a
//!    crash resumes with the same roll;
//! 2. its money in one ledger batch ([`steps::finish`]), keys derived from the session and the
//!    request's number: the wallet's net with the house, applied only if the wallet held the
//!    whole stake just before it, then the escrow moved by the net of the bets left standing
//!    (`Legs::WalletNet`); refused → the pending request is forgotten, nothing moved and the
//!    roll never shown;
//! 3. the session moved on, the request recorded, the roll chained in the audit log.
//!
//! Requests on one session are taken one at a time: another arriving while one is pending is
//! told so (`roll_in_progress`); one that read the session before another request was recorded
//! works itself out again on the session as it is now, and one naming the roll count it expects
//! (`expected_rolls`) is refused once another roll has been thrown (`stale_step`), so of
//! concurrent rolls sent on the same view exactly one is thrown. [`recover`] finishes requests a
//! crash left pending.

use domain::craps::session::{Change, Session};
use platform::AppError;
use platform::codes;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use uuid::Uuid;

use super::repository::{Played, Row};
use super::steps::{self, CrapsPlan, Request, WaitForPending, in_progress, not_found};
use super::store::{StoredRoll, StoredSession};
use crate::TablesState;
use crate::kit::round::{Driven, Start, drive};

/// Opens a session at the house's table with `odds_multiple` (at most the house's).
pub async fn open(
    state: &TablesState,
    player: &str,
    odds_multiple: Option<u32>,
) -> Result<StoredSession, AppError> {
    let mut rules = state.craps.limits.rules;
    if let Some(multiple) = odds_multiple {
        if !(1..=rules.odds_multiple).contains(&multiple) {
            return Err(AppError::unprocessable(
                codes::INVALID_ODDS_MULTIPLE,
                format!("this house's tables allow odds of 1x to {}x", rules.odds_multiple),
            ));
        }
        rules.odds_multiple = multiple;
    }
    let wallet = state.ledger.wallet_of(player).await?;
    let id = Uuid::now_v7();
    state.craps.repository.open(id, player, wallet, &Session::new(rules)).await?.ok_or_else(|| not_found(id))
}

async fn reload(state: &TablesState, id: Uuid) -> Result<StoredSession, AppError> {
    state.craps.repository.load(id).await?.ok_or_else(|| not_found(id))
}

/// One step of request `key` on its session through the driver.
async fn step(
    state: &TablesState,
    key: &(Uuid, String),
    start: Start<Row>,
    plan: impl FnMut(&Row) -> Result<CrapsPlan, AppError>,
) -> Result<Driven<Row, WaitForPending>, AppError> {
    drive(&state.kit, &state.craps.repository, key, start, plan, in_progress).await
}

/// Applies a request (changes, then a roll when asked) to session `id` of `player` under
/// idempotency key `key`; a retry of the key answers the same record. Returns the record, the
/// session after it, and whether this call made it. Copies of a request arriving while it is
/// worked on in this process wait for its answer, holding no connection (issue 32 §5: fifteen
/// copies each held one and ran the pool dry); one worked on elsewhere is waited for in
/// [`wait_for_pending`].
pub async fn play(
    state: &TablesState,
    id: Uuid,
    player: &str,
    key: &str,
    request: &Request,
) -> Result<Played, AppError> {
    let flight = (id, player.to_owned(), key.to_owned());
    let (answer, this_call) =
        state.craps.repository.once(flight, || play_once(state, id, player, key, request)).await;
    let (record, session, made) = answer?;
    Ok((record, session, made && this_call))
}

/// Step 1, the claim, then steps 2 and 3 on the session as claimed.
async fn play_once(
    state: &TablesState,
    id: Uuid,
    player: &str,
    key: &str,
    request: &Request,
) -> Result<Played, AppError> {
    let request_key = (id, key.to_owned());
    let claimed = step(state, &request_key, Start::Remembered, |row| {
        steps::claim(row, player, key, request, &mut ChaCha20Rng::from_os_rng())
    })
    .await?;
    match claimed {
        // Recorded before: answered as it was.
        Driven::Row((session, Some(record))) => Ok((record, session, false)),
        Driven::Row(claimed) => {
            let (record, session) = finish(state, request_key, Start::Row(claimed)).await?;
            Ok((record, session, true))
        }
        Driven::Aside(WaitForPending, (session, _)) => wait_for_pending(state, &session, key).await,
        Driven::Refused(problem) => Err(problem),
    }
}

/// Steps 2 and 3 of request `key` (safe to run again: the ledger replays its legs); answers its
/// record and the session after it, whoever wrote them.
async fn finish(state: &TablesState, key: (Uuid, String), start: Start<Row>) -> Result<(StoredRoll, StoredSession), AppError> {
    let accounts = (state.craps.escrow_account, state.craps.house_account);
    match step(state, &key, start, |row| steps::finish(row, accounts)).await? {
        Driven::Row((session, Some(record))) => Ok((record, session)),
        Driven::Refused(problem) => Err(problem),
        Driven::Row(_) | Driven::Aside(..) => Err(AppError::internal("a finished request has no record")),
    }
}

/// How long a copy of a request that another process is working on waits for its record before
/// finishing it itself (the other process may have died), and how often it looks.
const COPY_WAITS: std::time::Duration = std::time::Duration::from_secs(1);
const COPY_LOOKS_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// A copy of a request found pending (claimed by another request with this key, here before a
/// restart or in another process): waits for its record, a connection taken only for each look,
/// then finishes it itself if it is still pending. Answered as a replay either way.
async fn wait_for_pending(state: &TablesState, stored: &StoredSession, key: &str) -> Result<Played, AppError> {
    let started = std::time::Instant::now();
    while started.elapsed() < COPY_WAITS {
        tokio::time::sleep(COPY_LOOKS_EVERY).await;
        if let Some(done) = state.craps.repository.record_of(stored.id, key).await? {
            return Ok((done, reload(state, stored.id).await?, false));
        }
    }
    let (record, session) = finish(state, (stored.id, key.to_owned()), Start::Read).await?;
    Ok((record, session, false))
}

/// Finishes requests a crash left pending for longer than `older_than`; returns how many.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    let stuck = state.craps.repository.stuck(older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "craps request", |id| async move {
        let stored = reload(state, id).await?;
        match &stored.pending {
            Some(pending) => finish(state, (id, pending.key.clone()), Start::Read).await.map(|_| ()),
            None => Ok(()),
        }
    })
    .await)
}

/// The most requests the house makes to close one session (a contract bet is decided within a
/// few rolls; this only stops a defect from looping).
const MOST_CLOSING_REQUESTS: usize = 1_000;

/// Closes sessions whose player has left bets on the layout and made no request for `idle`
/// (`LOTTO_CRAPS_ABANDONED_AFTER_SECONDS`, a day by default), so no bet waits in escrow for ever:
/// the house takes down every bet that may come down (back to the wallet), then throws the dice
/// until the contract bets, which may not (45(d)), are decided. Each step is an ordinary request
/// (keyed `house-close/<n>`), recorded, chained and paid through the ledger; the house makes no
/// bet for the player. Returns how many sessions it closed.
pub async fn close_abandoned(state: &TablesState, idle: std::time::Duration) -> Result<usize, AppError> {
    let abandoned = state.craps.repository.abandoned(idle).await?;
    Ok(platform::recovery::finish_each(abandoned, "abandoned craps session", |id| close(state, id)).await)
}

async fn close(state: &TablesState, id: Uuid) -> Result<(), AppError> {
    for _ in 0..MOST_CLOSING_REQUESTS {
        let stored = reload(state, id).await?;
        let session = &stored.session;
        if session.bets.is_empty() || stored.pending.is_some() {
            // Closed; or a request pending, which recovery finishes first.
            return Ok(());
        }
        // Odds first: taking a bet down brings its odds down with it.
        let mut down: Vec<_> =
            session.bets.iter().map(|p| p.bet).filter(|&b| session.may_remove(b)).collect();
        down.sort_by_key(|&b| !domain::craps::session::is_odds(b));
        let contract_left = down.len() < session.bets.len();
        let request = Request {
            changes: down.into_iter().map(|bet| Change::Remove { bet }).collect(),
            roll: contract_left,
            expected_rolls: Some(stored.rolls),
            by_house: true,
        };
        let key = format!("house-close/{}", stored.requests);
        play(state, id, &stored.player_id, &key, &request).await?;
    }
    Err(AppError::internal("an abandoned craps session did not close"))
}

