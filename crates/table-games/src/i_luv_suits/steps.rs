//! An I Luv Suits round's steps as pure functions (architecture §4): each turns the round as read
//! and a request into a [`Plan`] for the kit's round driver (the write, and the ledger legs before
//! it). No async and no SQL. Every ledger leg has a key derived from the round and its step, so a
//! step run again replays in the ledger.

use axum::http::StatusCode;
use domain::cards::Card;
use domain::i_luv_suits::PROGRESSIVE_SEED_CENTS;
use domain::i_luv_suits::round::{
    Choice, Deal, Hands, Returns, Showdown, WagerError, Wagers, check_play, pot_contribution,
    settle as settle_wagers,
};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use rand::Rng;
use serde::Serialize;
use serde_json::json;
use uuid::Uuid;

use super::repository::{Release, Repository, Write};
use super::store::{Claim, Decided, Dealt, RoundState, Settled, Settlement, StoredRound};
use crate::TABLES_NAMESPACE;
pub use crate::kit::ledger::Accounts;
use crate::kit::round::{Payment, Plan};

/// A plan of an I Luv Suits step.
pub type SuitsPlan = Plan<Repository, std::convert::Infallible>;

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

/// The id of a round's ledger step: a retry of the step arrives at the same one.
pub fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("ils-round/{round}/{step}").as_bytes())
}

/// A round's ledger leg `step`, moving `money`, tagged with its game and round.
pub fn leg(round: Uuid, money: Money, step: &str, debit: Uuid, credit: Uuid, amount: i64) -> NewTransfer {
    let purpose = Purpose::of(Game::ILuvSuits, money).round(round);
    NewTransfer::new(step_id(round, step), debit, credit, amount, purpose)
}

/// Step 2, the deal: an `open` round's wagers in one batch (the ante and the side wagers into
/// escrow; of the progressive wager 22% into the pot, 76(i)(5), and the rest to the house), then
/// seven cards each from a deck shuffled by the server's CSPRNG, stored with the pot's meter →
/// `deciding`. The cards are drawn here and seen by nobody until written. Refused wagers leave the
/// round `refused`.
pub fn deal(round: &StoredRound, accounts: Accounts, rng: &mut impl Rng) -> Result<SuitsPlan, AppError> {
    if round.state != RoundState::Open {
        return Ok(Plan::Done);
    }
    let (id, wallet, rules) = (round.id, round.wallet, round.rules);
    let progressive = if round.wagers.progressive { rules.progressive_wager_cents } else { 0 };
    let to_pot = pot_contribution(progressive);
    let staked = round.wagers.staked_at_deal(&rules);
    let deal = Deal::shuffled(rng);
    Ok(Plan::Pay(Payment {
        transfers: vec![
            leg(id, Money::Stake, "stake/escrow", wallet, accounts.escrow, staked.saturating_sub(progressive)),
            leg(id, Money::Stake, "stake/pot", wallet, accounts.pot, to_pot),
            leg(id, Money::Stake, "stake/house", wallet, accounts.house, progressive.saturating_sub(to_pot)),
        ],
        // 76(i)(5): prizes are paid on the meter at the time they are won (this deal): the pot
        // as the batch leaves it, read back with the wallet.
        balances_of: vec![wallet, accounts.pot],
        on_refusal: Release::Refuse,
        then: Box::new(move |balances| {
            let [wallet, pot] = balances[..] else {
                return Err(AppError::internal("the ledger answered other balances"));
            };
            Ok(Write::Deal(Dealt { id, deal, pot, staked, balance_before: wallet.saturating_add(staked) }))
        }),
    }))
}

/// Step 3, a decision (`choice`, given the round's ante), claimed by one conditional write on a
/// round that waits for one with none pending: a fold is made at once (→ `settling`), a play is
/// checked (75(a)(2)) and recorded pending until [`settle`] takes its wager. The same decision sent
/// again finds the round it made (nothing to do); another is told what was decided or waits.
pub fn decide(round: &StoredRound, choice: Choice, by: super::store::DecidedBy) -> Result<SuitsPlan, AppError> {
    let decided = Decided { choice, by };
    match (round.state, &round.pending) {
        (RoundState::Settling | RoundState::Settled, _) if round.decision.is_some_and(|d| d.choice == choice) => {
            Ok(Plan::Done)
        }
        (RoundState::Settling | RoundState::Settled, _) => {
            Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round has been decided"))
        }
        (RoundState::Deciding, Some(pending)) if pending.choice == choice || by == super::store::DecidedBy::House => {
            Ok(Plan::Done)
        }
        (RoundState::Deciding, Some(pending)) => Err(AppError::conflict(
            codes::DECISION_PENDING,
            "another decision waits for its play wager to be taken: send it again to finish it",
        )
        .with_context(json!({"pending": pending.choice}))),
        (RoundState::Deciding, None) => {
            let deal = round.deal.as_ref().ok_or_else(|| AppError::internal("a dealt round without cards"))?;
            if let Choice::Play { play_cents } = choice {
                check_play(&Hands::of(deal), round.wagers.ante_cents, play_cents).map_err(|e| wager_error(&e))?;
            }
            Ok(Plan::Write(Write::Claim(Claim { id: round.id, decided })))
        }
        _ => Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round is not waiting for a decision")),
    }
}

/// A settled round as chained in the audit log: every card, the decision, every wager and what
/// it returned.
#[derive(Debug, Serialize)]
struct RoundRecord<'a> {
    game: &'static str,
    round: Uuid,
    player: &'a str,
    wagers: &'a Wagers,
    player_cards: &'a [Card; 7],
    dealer_cards: &'a [Card; 7],
    decision: &'a Decided,
    showdown: Showdown,
    returns: &'a Returns,
    pot_at_deal_cents: i64,
    staked_cents: i64,
    returned_cents: i64,
}

/// A decided round's settlement batch and the play wager it takes now (a pending play's, ahead
/// of everything it pays; none when taken before).
fn settlement_legs(
    round: &StoredRound,
    accounts: Accounts,
    choice: Choice,
    returns: &Returns,
) -> (Vec<NewTransfer>, i64) {
    let (id, wallet, rules) = (round.id, round.wallet, &round.rules);
    let play = match choice {
        Choice::Fold => 0,
        Choice::Play { play_cents } => play_cents,
    };
    let play_now = if round.pending.is_some() { play } else { 0 };
    let progressive = if round.wagers.progressive { rules.progressive_wager_cents } else { 0 };
    let escrowed = round.wagers.staked_at_deal(rules).saturating_sub(progressive).saturating_add(play);
    let mut transfers = vec![
        leg(id, Money::Stake, "play", wallet, accounts.escrow, play_now),
        leg(id, Money::Settlement, "settle/stakes", accounts.escrow, accounts.house, escrowed),
        leg(id, Money::Prize, "settle/returns", accounts.house, wallet, returns.total().saturating_sub(returns.pot_prize_cents)),
        leg(id, Money::Prize, "settle/pot-prize", accounts.pot, wallet, returns.pot_prize_cents),
    ];
    if returns.top_prize {
        // 76(i)(5) read as these tables read it: the house funds the pot again after a top prize.
        transfers.push(leg(id, Money::PotSeed, "settle/pot-reseed", accounts.house, accounts.pot, PROGRESSIVE_SEED_CENTS));
    }
    (transfers, play_now)
}

/// Step 4, the settlement of a decided round: one batch (a pending play's wager first; then the
/// escrowed wagers to the house, the returns from the house, a pot prize from the pot, and the pot
/// funded again after a top prize), then `settled` with its audit record. A refused batch (the
/// play wager: the wallet cannot cover it) forgets the pending decision, nothing moved. Nothing
/// to do for a round that is not decided and has no decision pending.
pub fn settle(round: &StoredRound, accounts: Accounts) -> Result<SuitsPlan, AppError> {
    let decided = match (round.state, round.decision, round.pending) {
        (RoundState::Settling, Some(decided), _) | (RoundState::Deciding, None, Some(decided)) => decided,
        _ => return Ok(Plan::Done),
    };
    let deal = round.deal.ok_or_else(|| AppError::internal("a decided round without cards"))?;
    let pot_at_deal = round.pot_at_deal_cents.unwrap_or(0);
    let (showdown, returns) = settle_wagers(&round.rules, &round.wagers, &deal, decided.choice, pot_at_deal);
    let (transfers, play_now) = settlement_legs(round, accounts, decided.choice, &returns);
    let staked = round.staked_cents.unwrap_or(0).saturating_add(play_now);
    let on_refusal = if round.pending.is_some() { Release::ClearPending } else { Release::Nothing };
    let (id, player, wagers) = (round.id, round.player_id.clone(), round.wagers);
    Ok(Plan::Pay(Payment {
        transfers,
        balances_of: vec![round.wallet],
        on_refusal,
        then: Box::new(move |balances| {
            let after = balances.first().copied().ok_or_else(|| AppError::internal("no balance answered"))?;
            let record = RoundRecord {
                game: "i_luv_suits",
                round: id,
                player: &player,
                wagers: &wagers,
                player_cards: &deal.player,
                dealer_cards: &deal.dealer,
                decision: &decided,
                showdown,
                returns: &returns,
                pot_at_deal_cents: pot_at_deal,
                staked_cents: staked,
                returned_cents: returns.total(),
            };
            let settlement = Settlement { showdown, returns };
            let audit = platform::audit::Entry::new("i_luv_suits.round", id, &record)?;
            Ok(Write::Settled(Settled { id, decided, staked, settlement, balance_after: after }, audit))
        }),
    }))
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    use super::*;
    use crate::i_luv_suits::Limits;
    use crate::i_luv_suits::store::DecidedBy;

    const ACCOUNTS: Accounts =
        Accounts { escrow: Uuid::from_u128(1), house: Uuid::from_u128(2), pot: Uuid::from_u128(3) };
    const WALLET: Uuid = Uuid::from_u128(9);

    fn open(ante_cents: i64, progressive: bool) -> StoredRound {
        let rules = Limits::default().rules;
        let wagers = Wagers { ante_cents, flush_rush_cents: 0, super_flush_rush_cents: 0, progressive };
        crate::i_luv_suits::store::NewRound {
            id: Uuid::from_u128(100),
            player: "p".into(),
            wallet: WALLET,
            wagers,
            rules,
            created_at: Utc::now(),
        }
        .stored()
    }

    fn dealt(round: &StoredRound) -> StoredRound {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let Plan::Pay(payment) = deal(round, ACCOUNTS, &mut rng).unwrap() else { panic!("a deal pays") };
        let Write::Deal(dealt) = (payment.then)(&[5_000, 100_000]).unwrap() else { panic!("a deal writes") };
        dealt.applied_to(round)
    }

    #[test]
    fn a_deal_takes_the_wagers_with_22_percent_of_the_progressive_to_the_pot() {
        let round = open(500, true);
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let Plan::Pay(payment) = deal(&round, ACCOUNTS, &mut rng).unwrap() else { panic!("a deal pays") };
        let staked = round.wagers.staked_at_deal(&round.rules);
        assert_eq!(payment.transfers.iter().map(|t| t.amount).sum::<i64>(), staked);
        let to_pot: i64 = payment.transfers.iter().filter(|t| t.credit == ACCOUNTS.pot).map(|t| t.amount).sum();
        assert_eq!(to_pot, pot_contribution(round.rules.progressive_wager_cents));
        assert_eq!(payment.balances_of, vec![WALLET, ACCOUNTS.pot]);
        assert!(matches!(deal(&dealt(&round), ACCOUNTS, &mut rng).unwrap(), Plan::Done), "dealt once");
    }

    #[test]
    fn a_play_is_claimed_pending_and_its_wager_taken_first_at_the_settlement_which_a_refusal_clears() {
        let round = dealt(&open(500, false));
        let play = Choice::Play { play_cents: 500 };
        let Plan::Write(Write::Claim(claim)) = decide(&round, play, DecidedBy::Player).unwrap() else {
            panic!("a decision is claimed")
        };
        let pending = StoredRound { pending: Some(claim.decided), ..round.clone() };
        assert!(matches!(decide(&pending, play, DecidedBy::Player).unwrap(), Plan::Done), "the same again");
        let fold = decide(&pending, Choice::Fold, DecidedBy::Player).unwrap_err();
        assert_eq!(fold.code(), "decision_pending");
        let Plan::Pay(settlement) = settle(&pending, ACCOUNTS).unwrap() else { panic!("the settlement pays") };
        let first = &settlement.transfers[0];
        assert_eq!((first.debit, first.credit, first.amount), (WALLET, ACCOUNTS.escrow, 500), "the play first");
        assert!(matches!(settlement.on_refusal, Release::ClearPending));
        // Every cent the escrow takes in, it gives up to the house.
        let escrow: i64 = settlement
            .transfers
            .iter()
            .map(|t| i64::from(t.credit == ACCOUNTS.escrow) * t.amount - i64::from(t.debit == ACCOUNTS.escrow) * t.amount)
            .sum();
        assert_eq!(escrow, -round.staked_cents.unwrap(), "the ante leaves escrow with the play");
        assert!(matches!(settle(&round, ACCOUNTS).unwrap(), Plan::Done), "nothing decided, nothing to settle");
    }
}
