//! A craps request's steps (architecture §4), none holding a row lock across a call to the ledger:
//!
//! 1. the session read (or taken as this process last recorded it, [`super::repository`]), the
//!    changes applied to a copy of the layout (a rule refused changes nothing), the dice thrown
//!    by the server's CSPRNG (and power odds lit or not), and all of it recorded as the session's
//!    `pending` request by one conditional write that claims the session only if it is as read
//!    (no request pending, none recorded since), committed before any money moves: a crash
//!    resumes with the same roll;
//! 2. its money in one ledger batch, keys derived from the session and the request's number:
//!    the wallet's net with the house (what it pays back less what it stakes, with commissions),
//!    applied only if the wallet held the whole stake just before it, then the escrow moved by
//!    the net of the bets left standing ([`Legs::WalletNet`]); refused → the pending request is
//!    forgotten, nothing moved and the roll never shown;
//! 3. the session moved on, the request recorded, the roll chained in the audit log.
//!
//! The writes of steps 1 and 3 and the ledger batch share their transactions and calls with
//! other sessions' ([`crate::kit`]). Requests on one session are taken one at a time: another
//! arriving while one is pending is told so (`roll_in_progress`); one that read the session
//! before another request was recorded works itself out again on the session as it is now, and
//! one naming the roll count it expects (`expected_rolls`) is refused once another roll has been
//! thrown (`stale_step`), so of concurrent rolls sent on the same view exactly one is thrown.
//! [`recover`] finishes requests a crash left pending.

use axum::http::StatusCode;
use chrono::{SubsecRound, Utc};
use domain::craps::Roll;
use domain::craps::session::{Change, RuleError, Session};
use ledger_api::{LedgerError, NewTransfer};
use platform::AppError;
use platform::codes;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::Serialize;
use uuid::Uuid;

use super::repository::Played;
use super::store::{self, Legs, Money, Pending, StoredRoll, StoredSession};
use crate::{TABLES_NAMESPACE, TablesState};

/// A rule the session refused, as a problem with its stable code.
pub fn rule_error(e: &RuleError) -> AppError {
    let code = match e {
        RuleError::InvalidBet(_) => codes::INVALID_BET,
        RuleError::NotNow(_) => codes::BET_NOT_ALLOWED_NOW,
        RuleError::ContractBet => codes::CONTRACT_BET,
        RuleError::DontLocked => codes::DONT_BET_LOCKED,
        RuleError::OddsOverMultiple { .. } => codes::ODDS_OVER_MULTIPLE,
        RuleError::OutOfLimits { .. } => codes::WAGER_OUT_OF_RANGE,
        RuleError::NotInUnits { .. } => codes::AMOUNT_NOT_IN_UNITS,
        RuleError::NoSuchBet => codes::NO_SUCH_BET,
        RuleError::ShooterNeedsLineBet => codes::SHOOTER_NEEDS_LINE_BET,
    };
    AppError::new(StatusCode::UNPROCESSABLE_ENTITY, code, e.to_string())
}

fn not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::SESSION_NOT_FOUND, format!("craps session {id} does not exist"))
}

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

/// What a request asks for.
#[derive(Debug, Clone)]
pub struct Request {
    pub changes: Vec<Change>,
    pub roll: bool,
    pub expected_rolls: Option<i32>,
    /// The house's own request closing an abandoned session: its roll needs no line bet (the
    /// house, not a shooter, throws it to decide the contract bets left).
    pub by_house: bool,
}

/// How many times a request is worked out again when another request changed the session between
/// its read and its claim.
const CLAIM_ATTEMPTS: usize = 3;

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

async fn play_once(
    state: &TablesState,
    id: Uuid,
    player: &str,
    key: &str,
    request: &Request,
) -> Result<Played, AppError> {
    let repository = &state.craps.repository;
    let mut remembered = repository.remembered(id, player)?;
    let mut claims = 0;
    while claims < CLAIM_ATTEMPTS {
        let from_memory = remembered.is_some();
        let stored = match remembered.take() {
            Some(stored) => stored,
            None => {
                claims += 1;
                let (stored, recorded) = repository
                    .with_request(id, key)
                    .await?
                    .filter(|(s, _)| s.player_id == player)
                    .ok_or_else(|| not_found(id))?;
                if let Some(done) = recorded {
                    return Ok((done, stored, false));
                }
                if let Some(pending) = &stored.pending {
                    if pending.key == key {
                        return wait_for_pending(state, &stored, pending).await;
                    }
                    return Err(in_progress());
                }
                stored
            }
        };
        let worked_out = if request.expected_rolls.is_some_and(|n| n != stored.rolls) {
            Err(AppError::conflict(
                codes::STALE_STEP,
                format!("the session has thrown {} rolls; read it and decide again", stored.rolls),
            ))
        } else {
            // No balance is read first: the request's ledger batch takes its stakes before
            // anything else and is refused, with nothing moved, when the wallet cannot cover them.
            work_out(&stored, key, request)
        };
        let pending = match worked_out {
            Ok(pending) => pending,
            // A remembered session may be behind another process's: refuse only on a fresh read.
            Err(_) if from_memory => {
                repository.forget(id)?;
                continue;
            }
            Err(e) => return Err(e),
        };
        // The claim: recorded pending only if the session is as it was read (no request pending
        // or recorded since, this key not recorded), group-committed with other sessions' claims.
        if repository.claim(id, pending.clone()).await? {
            let (record, session) = match finish_pending(state, &stored, &pending).await? {
                Some(done) => done,
                None => {
                    let (record, session, _) = finished(state, id, key).await?;
                    (record, session)
                }
            };
            repository.remember(&session)?;
            return Ok((record, session, true));
        }
    }
    Err(in_progress())
}

/// How long a copy of a request that another process is working on waits for its record before
/// finishing it itself (the other process may have died), and how often it looks.
const COPY_WAITS: std::time::Duration = std::time::Duration::from_secs(1);
const COPY_LOOKS_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// A copy of a request found pending (claimed by another request with this key, here before a
/// restart or in another process): waits for its record, a connection taken only for each look,
/// then finishes it itself if it is still pending. Answered as a replay either way.
async fn wait_for_pending(
    state: &TablesState,
    stored: &StoredSession,
    pending: &Pending,
) -> Result<Played, AppError> {
    let started = std::time::Instant::now();
    while started.elapsed() < COPY_WAITS {
        tokio::time::sleep(COPY_LOOKS_EVERY).await;
        if let Some(done) = state.craps.repository.record_of(stored.id, &pending.key).await? {
            return Ok((done, reload(state, stored.id).await?, false));
        }
    }
    finish_pending(state, stored, pending).await?;
    let (record, session, _) = finished(state, stored.id, &pending.key).await?;
    Ok((record, session, false))
}

fn in_progress() -> AppError {
    AppError::conflict(codes::ROLL_IN_PROGRESS, "another request on this session is being settled: retry")
}

/// The request applied to a copy of the session: its changes (a rule refused changes nothing),
/// then the dice from the server's CSPRNG (and power odds lit or not) when it rolls.
fn work_out(stored: &StoredSession, key: &str, request: &Request) -> Result<Pending, AppError> {
    let mut next = stored.session.clone();
    let mut money = Money::default();
    for change in &request.changes {
        let moved = next.change(*change).map_err(|e| rule_error(&e))?;
        if moved.stake_cents >= 0 {
            money.staked_cents = money.staked_cents.saturating_add(moved.stake_cents);
        } else {
            money.taken_down_cents = money.taken_down_cents.saturating_sub(moved.stake_cents);
        }
        money.commission_cents = money.commission_cents.saturating_add(moved.commission_cents);
    }
    let report = if request.roll {
        if !request.by_house {
            next.check_roll().map_err(|e| rule_error(&e))?;
        }
        let mut rng = ChaCha20Rng::from_os_rng();
        let dice = Roll::random(&mut rng);
        let lit = next.rules.power_odds.is_some_and(|p| rng.random_range(0..1_000) < p.per_thousand_rolls);
        let report = next.roll(dice, lit);
        money.returned_cents = report.stakes_returned();
        money.lost_cents = report.stakes_lost();
        money.winnings_cents = report.winnings();
        Some(report)
    } else {
        None
    };
    Ok(Pending {
        key: key.to_owned(),
        seq: stored.requests,
        changes: request.changes.clone(),
        report,
        next,
        money,
        legs: Legs::WalletNet,
    })
}

async fn finished(state: &TablesState, id: Uuid, key: &str) -> Result<Played, AppError> {
    let done = state
        .craps
        .repository
        .record_of(id, key)
        .await?
        .ok_or_else(|| AppError::internal("a finished request vanished"))?;
    Ok((done, reload(state, id).await?, true))
}

/// The id of a request's ledger leg: a retry arrives at the same one.
fn leg(session: Uuid, seq: i32, name: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("craps/{session}/{seq}/{name}").as_bytes())
}

/// One of a request's ledger transfers, named for its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Leg {
    name: &'static str,
    debit: Uuid,
    credit: Uuid,
    amount: i64,
    /// Applied only if the wallet holds at least this much just before it (the stake).
    wallet_holds: Option<i64>,
}

impl Leg {
    fn new(name: &'static str, debit: Uuid, credit: Uuid, amount: i64) -> Leg {
        Leg { name, debit, credit, amount, wallet_holds: None }
    }
}

/// A request's ledger transfers, in order, by the scheme it was claimed with (those of no amount
/// are left out by the ledger call).
fn transfers_of(pending: &Pending, wallet: Uuid, (escrow, house): (Uuid, Uuid)) -> Vec<Leg> {
    let m = pending.money;
    let commission = m.commission_cents.max(0);
    let commission_back = m.commission_cents.min(0).saturating_neg();
    let stake = m.staked_cents.saturating_add(commission);
    let paid = [m.taken_down_cents, m.returned_cents, m.winnings_cents, commission_back]
        .iter()
        .fold(0i64, |sum, &c| sum.saturating_add(c));
    // What the escrow gains: the stakes now on the layout less those that left it.
    let standing = m
        .staked_cents
        .saturating_sub(m.taken_down_cents)
        .saturating_sub(m.returned_cents)
        .saturating_sub(m.lost_cents);
    let escrow_legs = [
        Leg::new("to-escrow", house, escrow, standing.max(0)),
        Leg::new("from-escrow", escrow, house, standing.min(0).saturating_neg()),
    ];
    let stake_and_paid = [Leg::new("stake", wallet, house, stake), Leg::new("paid", house, wallet, paid)];
    match pending.legs {
        Legs::EachMovement => vec![
            Leg::new("staked", wallet, escrow, m.staked_cents),
            Leg::new("commission", wallet, house, commission),
            Leg::new("commission-back", house, wallet, commission_back),
            Leg::new("taken-down", escrow, wallet, m.taken_down_cents),
            Leg::new("returned", escrow, wallet, m.returned_cents),
            Leg::new("lost", escrow, house, m.lost_cents),
            Leg::new("won", house, wallet, m.winnings_cents),
        ],
        Legs::Netted => stake_and_paid.into_iter().chain(escrow_legs).collect(),
        Legs::WalletNet => {
            let net = paid.saturating_sub(stake);
            let wallet_legs = match net.signum() {
                0 => stake_and_paid.to_vec(),
                1 => vec![Leg::new("net-paid", house, wallet, net)],
                _ => vec![Leg::new("net-staked", wallet, house, net.saturating_neg())],
            };
            let check = (stake > 0 && net != 0).then_some(stake);
            wallet_legs.into_iter().map(|leg| Leg { wallet_holds: check, ..leg }).chain(escrow_legs).collect()
        }
    }
}

/// A roll as chained in the audit log.
#[derive(Debug, Serialize)]
struct RollRecord<'a> {
    game: &'static str,
    session: Uuid,
    seq: i32,
    player: &'a str,
    changes: &'a [Change],
    report: &'a Option<domain::craps::session::RollReport>,
    money: &'a Money,
}

/// Steps 2 and 3 of a pending request (safe to run again: the ledger replays its legs). Answers
/// the record and the session after it when this call wrote them (None: another call, a retry or
/// the recovery pass, had).
async fn finish_pending(
    state: &TablesState,
    stored: &StoredSession,
    pending: &Pending,
) -> Result<Option<(StoredRoll, StoredSession)>, AppError> {
    let (id, seq) = (stored.id, pending.seq);
    let metadata = crate::kit::ledger::round_metadata("craps", id);
    let transfers: Vec<NewTransfer> =
        transfers_of(pending, stored.wallet, (state.craps.escrow_account, state.craps.house_account))
            .into_iter()
            .map(|l| {
                let transfer =
                    NewTransfer::new(leg(id, seq, l.name), l.debit, l.credit, l.amount, metadata.clone());
                match l.wallet_holds {
                    Some(stake) => transfer.checking_funds(stored.wallet, stake),
                    None => transfer,
                }
            })
            .collect();
    let after = match crate::kit::ledger::submit_transfers(&state.kit, transfers, &[stored.wallet]).await {
        Ok(balances) => balances.first().copied().ok_or_else(|| AppError::internal("no balance answered"))?,
        Err(LedgerError::Refused(e)) => {
            state.craps.repository.clear_pending(id, &pending.key).await?;
            return Err(e);
        }
        Err(e) => return Err(e.into()),
    };
    let record = RollRecord {
        game: "craps",
        session: id,
        seq,
        player: &stored.player_id,
        changes: &pending.changes,
        report: &pending.report,
        money: &pending.money,
    };
    let finished = store::Finished {
        session: id,
        pending: pending.clone(),
        balance_after: after,
        // Postgres keeps microseconds: the answer now and on a replay must be the same.
        at: Utc::now().trunc_subsecs(6),
    };
    let audit = platform::audit::Entry::new("craps.roll", id, &record)?;
    state.craps.repository.finish(stored, finished, audit).await
}

/// Finishes requests a crash left pending for longer than `older_than`; returns how many.
pub async fn recover(state: &TablesState, older_than: std::time::Duration) -> Result<usize, AppError> {
    let stuck = state.craps.repository.stuck(older_than).await?;
    Ok(platform::recovery::finish_each(stuck, "craps request", |id| async move {
        let stored = reload(state, id).await?;
        match &stored.pending {
            Some(pending) => finish_pending(state, &stored, pending).await.map(|_| ()),
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::craps::Limits;

    fn pending(money: Money, legs: Legs) -> Pending {
        Pending {
            key: "k".into(),
            seq: 0,
            changes: Vec::new(),
            report: None,
            next: Session::new(Limits::default().rules),
            money,
            legs,
        }
    }

    /// Each account's change after a request's transfers.
    fn moved(transfers: &[Leg]) -> HashMap<Uuid, i64> {
        let mut by_account = HashMap::new();
        for leg in transfers {
            assert!(leg.amount >= 0, "a transfer never moves a negative amount");
            *by_account.entry(leg.debit).or_insert(0) -= leg.amount;
            *by_account.entry(leg.credit).or_insert(0) += leg.amount;
        }
        by_account.retain(|_, v| *v != 0);
        by_account
    }

    #[test]
    fn netted_transfers_leave_every_account_where_one_per_movement_does_and_cover_the_stake_first() {
        let accounts = (Uuid::from_u128(1), Uuid::from_u128(2));
        let wallet = Uuid::from_u128(3);
        let mut rng = ChaCha20Rng::seed_from_u64(16);
        for _ in 0..10_000 {
            let mut cents = || if rng.random_bool(0.4) { 0 } else { rng.random_range(1..5_000) };
            let money = Money {
                staked_cents: cents(),
                taken_down_cents: cents(),
                commission_cents: cents() - cents(),
                returned_cents: cents(),
                lost_cents: cents(),
                winnings_cents: cents(),
            };
            let each = transfers_of(&pending(money, Legs::EachMovement), wallet, accounts);
            let netted = transfers_of(&pending(money, Legs::Netted), wallet, accounts);
            let one = transfers_of(&pending(money, Legs::WalletNet), wallet, accounts);
            assert_eq!(moved(&each), moved(&netted), "{money:?}");
            assert_eq!(moved(&each), moved(&one), "{money:?}");
            assert_eq!(moved(&netted).get(&wallet).copied().unwrap_or(0), money.wallet_change());
            let stake = money.staked_cents + money.commission_cents.max(0);
            let first = netted[0];
            assert_eq!((first.debit, first.credit), (wallet, accounts.1));
            assert_eq!(first.amount, stake, "the stake goes first, whole");
            assert!(netted.iter().filter(|t| t.amount > 0).count() <= 3, "at most three transfers");
            // One wallet transfer, applied only if the wallet held the stake just before it; or,
            // when nothing would move for the wallet, the stake first as above.
            let wallet_legs: Vec<&Leg> =
                one.iter().filter(|t| t.amount > 0 && (t.debit == wallet || t.credit == wallet)).collect();
            if money.wallet_change() == 0 && stake > 0 {
                assert_eq!((one[0].debit, one[0].amount, one[0].wallet_holds), (wallet, stake, None));
            } else {
                assert!(wallet_legs.len() <= 1, "{money:?}");
                let checked = wallet_legs.first().and_then(|t| t.wallet_holds);
                assert_eq!(checked, (stake > 0).then_some(stake), "{money:?}");
                assert!(one.iter().filter(|t| t.amount > 0).count() <= 2, "at most two transfers: {money:?}");
            }
            assert!(one.iter().all(|t| t.wallet_holds.is_none() || t.debit == wallet || t.credit == wallet));
        }
    }

    #[test]
    fn a_request_recorded_before_the_netted_legs_finishes_with_one_transfer_per_movement() {
        let mut stored = serde_json::to_value(pending(Money::default(), Legs::Netted)).unwrap();
        stored.as_object_mut().unwrap().remove("legs");
        let read: Pending = serde_json::from_value(stored).unwrap();
        assert_eq!(read.legs, Legs::EachMovement);
    }
}
