//! A craps request's steps as pure functions (architecture §4): each turns the session as read
//! (with the record of the request's key, if it made one) and a request into a [`Plan`] for the
//! kit's round driver: the claim, then the ledger legs and the write. No async and no SQL. Every
//! ledger leg has a key derived from the session and the request's number, so a request finished
//! again replays in the ledger.

use axum::http::StatusCode;
use chrono::{SubsecRound, Utc};
use domain::craps::Roll;
use domain::craps::session::{Change, RuleError};
use ledger_api::{Game, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use rand::Rng;
use serde::Serialize;
use uuid::Uuid;

use super::repository::{Repository, Row, Write};
use super::store::{Finished, Legs, Money, Pending, StoredSession};
use crate::TABLES_NAMESPACE;
use crate::kit::round::{Payment, Plan};

/// A plan of a craps step.
pub type CrapsPlan = Plan<Repository, WaitForPending>;

/// A path aside: a copy of this request is pending (claimed here before a restart, or in another
/// process), to be waited for.
#[derive(Debug, Clone, Copy)]
pub struct WaitForPending;

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

pub fn not_found(id: Uuid) -> AppError {
    AppError::not_found(codes::SESSION_NOT_FOUND, format!("craps session {id} does not exist"))
}

/// Another request on the session is pending.
pub fn in_progress() -> AppError {
    AppError::conflict(codes::ROLL_IN_PROGRESS, "another request on this session is being settled: retry")
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

/// Step 1, the claim: the request (`key`) applied to a copy of the session as read
/// ([`work_out`]) and recorded as its pending request on the condition that the session is as read
/// (no request pending or recorded since, this key not recorded). A request recorded before is
/// answered as it was; a copy of this one pending is waited for; another pending, or a roll count
/// other than the one the request expects, is refused. No balance is read first: the request's
/// ledger batch takes its stakes before anything else and is refused, with nothing moved, when
/// the wallet cannot cover them.
pub fn claim(
    (stored, recorded): &Row,
    player: &str,
    key: &str,
    request: &Request,
    rng: &mut impl Rng,
) -> Result<CrapsPlan, AppError> {
    if stored.player_id != player {
        return Err(not_found(stored.id));
    }
    if recorded.is_some() {
        return Ok(Plan::Done);
    }
    if let Some(pending) = &stored.pending {
        return if pending.key == key { Ok(Plan::Aside(WaitForPending)) } else { Err(in_progress()) };
    }
    if request.expected_rolls.is_some_and(|n| n != stored.rolls) {
        return Err(AppError::conflict(
            codes::STALE_STEP,
            format!("the session has thrown {} rolls; read it and decide again", stored.rolls),
        ));
    }
    Ok(Plan::Write(Write::Claim(work_out(stored, key, request, rng)?)))
}

/// The request applied to a copy of the session: its changes (a rule refused changes nothing),
/// then the dice from the server's CSPRNG (and power odds lit or not) when it rolls.
pub fn work_out(stored: &StoredSession, key: &str, request: &Request, rng: &mut impl Rng) -> Result<Pending, AppError> {
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
        let dice = Roll::random(rng);
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

/// Steps 2 and 3, the money and the record: a pending request's legs in one ledger batch, then
/// the session moved on, the request recorded and the roll chained in the audit log; a refused
/// batch clears the claim with nothing moved and the roll never shown. Nothing to do for a
/// request recorded before, or a session with none pending.
pub fn finish((stored, recorded): &Row, (escrow, house): (Uuid, Uuid)) -> Result<CrapsPlan, AppError> {
    let Some(pending) = stored.pending.clone().filter(|_| recorded.is_none()) else {
        return Ok(Plan::Done);
    };
    let (id, seq, wallet) = (stored.id, pending.seq, stored.wallet);
    let transfers = transfers_of(&pending, wallet, (escrow, house))
        .into_iter()
        .map(|l| {
            // From the wallet a stake, to it a prize; between the house and the escrow the bets.
            let money = match (l.debit == wallet, l.credit == wallet) {
                (true, _) => ledger_api::Money::Stake,
                (_, true) => ledger_api::Money::Prize,
                _ => ledger_api::Money::Settlement,
            };
            let purpose = Purpose::of(Game::Craps, money).round(id);
            let transfer = NewTransfer::new(leg(id, seq, l.name), l.debit, l.credit, l.amount, purpose);
            match l.wallet_holds {
                Some(stake) => transfer.checking_funds(wallet, stake),
                None => transfer,
            }
        })
        .collect();
    let player = stored.player_id.clone();
    Ok(Plan::Pay(Payment {
        transfers,
        balances_of: vec![wallet],
        on_refusal: pending.key.clone(),
        then: Box::new(move |balances| {
            let after = balances.first().copied().ok_or_else(|| AppError::internal("no balance answered"))?;
            let record = RollRecord {
                game: "craps",
                session: id,
                seq,
                player: &player,
                changes: &pending.changes,
                report: &pending.report,
                money: &pending.money,
            };
            let audit = platform::audit::Entry::new("craps.roll", id, &record)?;
            // Postgres keeps microseconds: the answer now and on a replay must be the same.
            let at = Utc::now().trunc_subsecs(6);
            Ok(Write::Finish(Finished { session: id, pending, balance_after: after, at }, audit))
        }),
    }))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use domain::craps::session::Session;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

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
