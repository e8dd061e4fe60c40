//! A blackjack round's steps as pure functions (architecture §4): each turns the round as read,
//! with its table's shoe, and a request into a [`Plan`] for the kit's round driver (the write,
//! and the ledger legs before it). No async and no SQL: the driver and the repository do the
//! rest. Every ledger leg has a key derived from the round and its step, so a step run again
//! replays in the ledger.

use domain::blackjack::round::{Action, Phase, PlayError, Round, SpotBet, TableRules};
use domain::blackjack::side_wagers::{BLAZING_SEVENS_SEED_CENTS, pot_contribution, pot_share};
use axum::http::StatusCode;
use domain::cards::{Decks, Shoe};
use ledger_api::{Game, Money, NewTransfer, Purpose};
use platform::AppError;
use platform::codes;
use rand::Rng;
use serde::Serialize;
use serde_json::json;
use uuid::Uuid;

use super::repository::{Release, Repository, Row, Write};
use super::store::{self, AtDeal, PendingDecision, RoundState, StoredRound};
use crate::TABLES_NAMESPACE;
pub use crate::kit::ledger::Accounts;
use crate::kit::round::{Payment, Plan};

/// A plan of a blackjack step.
pub type BlackjackPlan = Plan<Repository, Void>;

/// A path aside: the shoe has no card left for the round, which is voided.
#[derive(Debug, Clone)]
pub enum Void {
    /// At the deal, with the shoe as prepared for it (shuffled when `shuffled`).
    AtDeal { prepared: Shoe, shuffled: bool },
    /// In play, at the step read.
    InPlay,
}

/// A rule the round's engine refused, as a problem with its stable code.
pub fn play_error(e: &PlayError) -> AppError {
    let (status, code) = match e {
        PlayError::WagerOutOfRange { .. } => (StatusCode::UNPROCESSABLE_ENTITY, codes::WAGER_OUT_OF_RANGE),
        PlayError::RoyalMatchNeedsSixDecks => {
            (StatusCode::UNPROCESSABLE_ENTITY, codes::ROYAL_MATCH_NEEDS_SIX_DECKS)
        }
        PlayError::BlazingSevensNeedSixDecks => {
            (StatusCode::UNPROCESSABLE_ENTITY, codes::BLAZING_SEVENS_NEED_SIX_DECKS)
        }
        PlayError::NoSpots => (StatusCode::UNPROCESSABLE_ENTITY, codes::NO_SPOTS),
        PlayError::TooManySpots { .. } => (StatusCode::UNPROCESSABLE_ENTITY, codes::TOO_MANY_SPOTS),
        PlayError::OutOfTurn(_) => (StatusCode::CONFLICT, codes::OUT_OF_TURN),
        PlayError::NoSuchSpot => (StatusCode::UNPROCESSABLE_ENTITY, codes::NO_SUCH_SPOT),
        PlayError::NotAllowed(_) => (StatusCode::UNPROCESSABLE_ENTITY, codes::ACTION_NOT_ALLOWED),
        PlayError::Shoe(e) => return AppError::internal(e),
    };
    AppError::new(status, code, e.to_string())
}

/// The id of a round's ledger step: a retry of the step arrives at the same one.
pub fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("bj-round/{round}/{step}").as_bytes())
}

/// A round's ledger leg `step`, moving `money`, tagged with its game and round.
fn leg(round: Uuid, money: Money, step: &str, debit: Uuid, credit: Uuid, amount: i64) -> NewTransfer {
    let purpose = Purpose::of(Game::Blackjack, money).round(round);
    NewTransfer::new(step_id(round, step), debit, credit, amount, purpose)
}

/// A cut card's place the rules allow (K.A.R. 111-301-6(a)), at random.
pub fn random_cut(decks: Decks, rng: &mut impl Rng) -> usize {
    let min = decks.min_cards_beside_cut();
    rng.random_range(min..=decks.count().saturating_mul(52).saturating_sub(min))
}

/// Where a round's wagers went at the deal and after: the escrow holds all but the progressive
/// wagers, of which 24% went to the pot and the rest to the house (K.A.R. 111-301-5(j)(3), (6)).
#[derive(Debug, Clone, Copy)]
pub struct Stakes {
    pub escrowed: i64,
    pub to_pot: i64,
    pub to_house: i64,
}

impl Stakes {
    /// `staked` is everything the spots staked so far (wagers added by decisions included).
    pub fn of(rules: &TableRules, bets: &[SpotBet], staked: i64) -> Stakes {
        let sevens = bets.iter().filter(|b| b.blazing_7s).count();
        let sevens = i64::try_from(sevens).unwrap_or(i64::MAX);
        let progressive = rules.progressive_wager_cents.saturating_mul(sevens);
        let to_pot = pot_contribution(rules.progressive_wager_cents).saturating_mul(sevens);
        Stakes {
            escrowed: staked.saturating_sub(progressive),
            to_pot,
            to_house: progressive.saturating_sub(to_pot),
        }
    }

    /// Everything the wallet staked.
    pub fn total(&self) -> i64 {
        self.escrowed.saturating_add(self.to_pot).saturating_add(self.to_house)
    }
}

/// Step 2, the deal: an `open` round's wagers in one batch (into escrow; of each progressive
/// wager 24% into the pot and the rest to the house), then the cards from the table's shoe
/// (shuffled first when past its cut card; any other has its discards shuffled into the reserve
/// it deals from), written with the shoe. The cards are drawn here, before the money, and seen by
/// nobody until written: a deal planned again draws anew. A shoe with no card for the round sends
/// it aside, to be voided. Refused wagers leave the round `refused`.
pub fn deal(row: &Row, rules: &TableRules, accounts: Accounts, rng: &mut impl Rng) -> Result<BlackjackPlan, AppError> {
    let (stored, read) = row;
    if stored.state != RoundState::Open {
        return Ok(Plan::Done);
    }
    let (id, wallet) = (stored.id, stored.wallet);
    let bets = stored.spot_bets()?;
    let mut shoe = read.shoe.clone();
    let shuffled = shoe.cut_card_reached();
    if shuffled {
        let cut = random_cut(rules.decks, rng);
        shoe = Shoe::shuffled(rules.decks, cut, rng).map_err(AppError::internal)?;
    } else {
        shoe.reserve_discards(rng);
    }
    let prepared = shoe.clone();
    let round = match Round::deal(*rules, bets.clone(), &mut shoe) {
        Ok(round) => round,
        Err(PlayError::Shoe(_)) => return Ok(Plan::Aside(Void::AtDeal { prepared, shuffled })),
        Err(e) => return Err(play_error(&e)),
    };
    let stakes = Stakes::of(rules, &bets, Round::stake_at_deal(rules, &bets));
    let staked: i64 = round.spots.iter().map(|s| s.staked(rules)).sum();
    let read_version = read.version;
    Ok(Plan::Pay(Payment {
        transfers: vec![
            leg(id, Money::Stake, "stake/escrow", wallet, accounts.escrow, stakes.escrowed),
            leg(id, Money::Stake, "stake/pot", wallet, accounts.pot, stakes.to_pot),
            leg(id, Money::Stake, "stake/house", wallet, accounts.house, stakes.to_house),
        ],
        // 111-301-5(j)(6): prizes are paid on the meter at the time they are won (this deal):
        // the pot as the wagers leave it, read back with the wallet.
        balances_of: vec![wallet, accounts.pot],
        on_refusal: Release::Refuse,
        then: Box::new(move |balances| {
            let [wallet, pot] = balances[..] else {
                return Err(AppError::internal("the ledger answered other balances"));
            };
            platform::metrics::set_progressive_pot(Game::Blackjack.label(), pot);
            let at_deal = AtDeal { pot, balance_before: wallet.saturating_add(stakes.total()) };
            Ok(Write::Deal(store::Dealt { id, round, at_deal, staked, shoe, shuffled, read_version }))
        }),
    }))
}

/// What the house decides for a round its player abandoned: insurance declined, hands stood.
fn house_decision(round: &Round) -> Action {
    match round.phase {
        Phase::Insurance => {
            let spot = round.spots.iter().position(|s| s.insurance.is_none()).unwrap_or(0);
            Action::DeclineInsurance { spot }
        }
        _ => Action::Stand,
    }
}

fn stale(step: i32) -> AppError {
    AppError::conflict(codes::STALE_STEP, format!("the round is at step {step}; read it and decide again"))
        .with_context(json!({"step": step}))
}

/// Step 3, a decision: the player's on the step they name (`decision`), or the house's for an
/// abandoned round (None), applied to the round and shoe as read. A rule error changes nothing;
/// a stale step is refused. One that adds no wager is written with the shoe on the condition that
/// the round is still at that step with nothing pending. One that adds a wager (double, split,
/// insurance) is written as the round's pending decision on that condition, holding the step
/// until [`take_pending_wager`] takes its wager. A decision already pending: the same one sent
/// again (or the house's) leaves it to be finished; another is told what waits.
pub fn decide(row: &Row, decision: Option<(i32, Action)>) -> Result<BlackjackPlan, AppError> {
    let (stored, read) = row;
    if stored.state == RoundState::Settling {
        // The decision that ended it was applied; its settlement is finished for whoever asks.
        return Ok(Plan::Done);
    }
    if stored.state != RoundState::Playing {
        return Err(AppError::conflict(codes::ROUND_NOT_IN_PLAY, "this round is not waiting for a decision"));
    }
    if let Some(pending) = &stored.pending {
        return match decision {
            Some((step, _)) if step != pending.step => Err(stale(pending.step)),
            Some((_, action)) if Some(&store::json_of(&action)?) != pending.record.get("decision") => {
                Err(AppError::conflict(
                    codes::DECISION_PENDING,
                    "another decision on this step waits for its wager to be taken: send it again to finish it",
                )
                .with_context(json!({"step": pending.step, "pending": pending.record["decision"]})))
            }
            _ => Ok(Plan::Done),
        };
    }
    let round = stored.round.as_ref().ok_or_else(|| AppError::internal("a round in play without cards"))?;
    let action = match decision {
        Some((named, _)) if named != stored.step => return Err(stale(stored.step)),
        Some((_, action)) => action,
        None => house_decision(round),
    };
    let (mut next, mut shoe) = (round.clone(), read.shoe.clone());
    match next.act(action, &mut shoe) {
        Ok(()) => {}
        Err(PlayError::Shoe(_)) => return Ok(Plan::Aside(Void::InPlay)),
        Err(e) => return Err(play_error(&e)),
    }
    let before: i64 = round.spots.iter().map(|s| s.staked(&round.rules)).sum();
    let after: i64 = next.spots.iter().map(|s| s.staked(&next.rules)).sum();
    let by = if decision.is_some() { "player" } else { "house (round abandoned)" };
    let pending = PendingDecision {
        step: stored.step,
        record: json!({"step": stored.step, "decision": action, "by": by}),
        next,
        shoe,
        added_cents: after.saturating_sub(before),
    };
    if pending.added_cents > 0 {
        return Ok(Plan::Write(Write::Pending(pending)));
    }
    Ok(Plan::Write(Write::Decision(applied(row, pending, false)?)))
}

/// A decision as written: the round moved on a step, the decision recorded, and the shoe.
fn applied(row: &Row, pending: PendingDecision, was_pending: bool) -> Result<store::Decision, AppError> {
    let stored = &row.0;
    let mut actions: Vec<serde_json::Value> = store::from_json(stored.actions.clone())?;
    actions.push(pending.record.clone());
    Ok(store::Decision { id: stored.id, pending, actions: serde_json::Value::Array(actions), was_pending })
}

/// A pending decision finished: its wager taken from the wallet (key `<round>/step/<n>`), then the
/// decision written if it is still the round's pending one; a refused wager clears it with
/// nothing moved. Nothing to do for a round with none pending.
pub fn take_pending_wager(row: &Row, accounts: Accounts) -> Result<BlackjackPlan, AppError> {
    let Some(pending) = row.0.pending.clone() else {
        return Ok(Plan::Done);
    };
    let (id, wallet) = (row.0.id, row.0.wallet);
    let decision = applied(row, pending, true)?;
    let step = decision.pending.step;
    Ok(Plan::Pay(Payment {
        transfers: vec![leg(id, Money::Stake, &format!("step/{step}"), wallet, accounts.escrow, decision.pending.added_cents)],
        balances_of: Vec::new(),
        on_refusal: Release::ClearPending(step),
        then: Box::new(move |_| Ok(Write::Decision(decision))),
    }))
}

/// A settled round as chained in the audit log.
#[derive(Debug, Serialize)]
struct RoundRecord<'a> {
    game: &'static str,
    round: Uuid,
    cards: &'a Round,
    staked_cents: i64,
    returned_cents: i64,
    pot_prize_cents: i64,
}

/// The pot prizes of a round: divided evenly between the hands that won them
/// (111-301-5(j)(5)), on the meter at the deal (111-301-5(j)(6)); and whether the top prize was
/// among them.
fn pot_prizes(round: &Round, pot_at_deal: i64) -> Result<(i64, bool), AppError> {
    let mut pot_prize = 0i64;
    let mut top_prize = false;
    for percent in [100u32, 10] {
        let winners = round
            .spots
            .iter()
            .filter(|s| s.sides.sevens.and_then(|p| p.pot_percent()) == Some(percent))
            .count();
        if winners > 0 {
            let winners = u32::try_from(winners).map_err(AppError::internal)?;
            pot_prize = pot_prize
                .saturating_add(pot_share(pot_at_deal, percent, winners).saturating_mul(i64::from(winners)));
            top_prize |= percent == 100;
        }
    }
    Ok((pot_prize, top_prize))
}

/// Step 4, the settlement of a `settling` round: one batch (the escrowed wagers to the house,
/// the returns from the house, pot prizes from the pot, and the pot funded again after a top
/// prize), then `settled` with its sums and its audit record. Nothing to do for a round in any
/// other state.
pub fn settle(row: &Row, accounts: Accounts) -> Result<BlackjackPlan, AppError> {
    let stored = &row.0;
    let (RoundState::Settling, Some(round)) = (stored.state, stored.round.clone()) else {
        return Ok(Plan::Done);
    };
    let (id, wallet) = (stored.id, stored.wallet);
    let rules = &round.rules;
    let staked: i64 = round.spots.iter().map(|s| s.staked(rules)).sum();
    let returned: i64 = round.spots.iter().map(|s| s.returned.unwrap_or(0)).sum();
    let progressive: i64 =
        round.spots.iter().filter(|s| s.bet.blazing_7s).map(|_| rules.progressive_wager_cents).sum();
    let (pot_prize, top_prize) = pot_prizes(&round, stored.pot_at_deal_cents.unwrap_or(0))?;
    let mut transfers = vec![
        leg(id, Money::Settlement, "settle/stakes", accounts.escrow, accounts.house, staked.saturating_sub(progressive)),
        leg(id, Money::Prize, "settle/returns", accounts.house, wallet, returned),
        leg(id, Money::Prize, "settle/pot-prize", accounts.pot, wallet, pot_prize),
    ];
    if top_prize {
        // 111-301-5(j)(7): after the top prize the pot is funded again with $10,000.
        transfers.push(leg(id, Money::PotSeed, "settle/pot-reseed", accounts.house, accounts.pot, BLAZING_SEVENS_SEED_CENTS));
    }
    Ok(Plan::Pay(Payment {
        transfers,
        balances_of: vec![wallet],
        on_refusal: Release::Nothing,
        then: Box::new(move |balances| {
            let after =
                balances.first().copied().ok_or_else(|| AppError::internal("the ledger answered no balance"))?;
            let record = RoundRecord {
                game: "blackjack",
                round: id,
                cards: &round,
                staked_cents: staked,
                returned_cents: returned,
                pot_prize_cents: pot_prize,
            };
            let audit = platform::audit::Entry::new("blackjack.round", id, &record)?;
            Ok(Write::Settled(store::Settled { id, returned, pot_prize, balance_after: after }, audit))
        }),
    }))
}

/// A round voided because the shoe had no card left for it.
#[derive(Debug, Serialize)]
pub struct VoidRecord<'a> {
    game: &'static str,
    round: Uuid,
    reason: &'static str,
    cards: Option<&'a Round>,
    returned_cents: i64,
}

/// A void's ledger batch and record: every wager the round took goes back to the wallet from
/// where its stake put it, the stakes at the deal first when it is voided at the deal (taken
/// now if they were not: the same keys replay), nothing won. Answers the transfers, what was
/// staked and the record.
pub fn void<'a>(
    stored: &StoredRound,
    rules: &TableRules,
    round: Option<&'a Round>,
    accounts: Accounts,
) -> Result<(Vec<NewTransfer>, i64, VoidRecord<'a>), AppError> {
    let (id, wallet) = (stored.id, stored.wallet);
    let bets = stored.spot_bets()?;
    let staked = round
        .map_or_else(|| Round::stake_at_deal(rules, &bets), |r| r.spots.iter().map(|s| s.staked(rules)).sum());
    let stakes = Stakes::of(rules, &bets, staked);
    let mut transfers = Vec::new();
    if round.is_none() {
        transfers.extend([
            leg(id, Money::Stake, "stake/escrow", wallet, accounts.escrow, stakes.escrowed),
            leg(id, Money::Stake, "stake/pot", wallet, accounts.pot, stakes.to_pot),
            leg(id, Money::Stake, "stake/house", wallet, accounts.house, stakes.to_house),
        ]);
    }
    transfers.extend([
        leg(id, Money::Refund, "void/escrow", accounts.escrow, wallet, stakes.escrowed),
        leg(id, Money::Refund, "void/pot", accounts.pot, wallet, stakes.to_pot),
        leg(id, Money::Refund, "void/house", accounts.house, wallet, stakes.to_house),
    ]);
    let record = VoidRecord { game: "blackjack", round: id, reason: "shoe_exhausted", cards: round, returned_cents: staked };
    Ok((transfers, staked, record))
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use serde_json::json;

    use domain::cards::Card;

    use super::*;
    use crate::blackjack::Limits;
    use crate::blackjack::store::ReadShoe;

    const ACCOUNTS: Accounts =
        Accounts { escrow: Uuid::from_u128(1), house: Uuid::from_u128(2), pot: Uuid::from_u128(3) };
    const WALLET: Uuid = Uuid::from_u128(9);

    fn rules() -> TableRules {
        Limits::default().table_rules(Decks::Six, None, None, None).unwrap()
    }

    /// An open round of `bets` at a table whose shoe deals the player 5 and 6 against the dealer's
    /// 9 (hole 7), then a 10.
    fn open(bets: serde_json::Value) -> Row {
        let mut cards: Vec<Card> = ["5S", "9H", "6D", "7C", "10C"].iter().map(|c| c.parse().unwrap()).collect();
        cards.extend((0..6).flat_map(|_| Card::deck()));
        let shoe = Shoe::stacked(Decks::Six, cards, 260).unwrap();
        let round = store::NewRound {
            id: Uuid::from_u128(100),
            table: Uuid::from_u128(200),
            player: "p".into(),
            wallet: WALLET,
            bets,
            created_at: Utc::now(),
        }
        .stored();
        (round, ReadShoe { shoe, version: 4 })
    }

    /// The round as the deal's plan would write it, given the wallet and pot the batch read back.
    fn dealt(row: &Row) -> Row {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let Plan::Pay(payment) = deal(row, &rules(), ACCOUNTS, &mut rng).unwrap() else { panic!("a deal pays") };
        let Write::Deal(dealt) = (payment.then)(&[9_000, 1_000_000]).unwrap() else { panic!("a deal writes") };
        (dealt.applied_to(&row.0), ReadShoe { shoe: dealt.shoe, version: 5 })
    }

    #[test]
    fn a_deal_takes_each_wager_once_from_the_wallet_and_reads_the_wallet_and_the_pot_back() {
        let row = open(json!([{"wager": 500, "blazing_7s": true}, {"wager": 300}]));
        let bets = row.0.spot_bets().unwrap();
        let stake = Round::stake_at_deal(&rules(), &bets);
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let Plan::Pay(payment) = deal(&row, &rules(), ACCOUNTS, &mut rng).unwrap() else { panic!("a deal pays") };
        let first = payment.transfers.clone();
        assert!(payment.transfers.iter().all(|t| t.debit == WALLET), "every leg from the wallet");
        assert_eq!(payment.transfers.iter().map(|t| t.amount).sum::<i64>(), stake);
        let to_pot: i64 = payment.transfers.iter().filter(|t| t.credit == ACCOUNTS.pot).map(|t| t.amount).sum();
        assert_eq!(to_pot, pot_contribution(rules().progressive_wager_cents), "24% of the progressive wager");
        assert_eq!(payment.balances_of, vec![WALLET, ACCOUNTS.pot]);
        assert!(matches!(payment.on_refusal, Release::Refuse));
        let Write::Deal(written) = (payment.then)(&[9_000, 1_000_000]).unwrap() else { panic!("a deal writes") };
        assert_eq!((written.at_deal.balance_before, written.at_deal.pot), (9_000 + stake, 1_000_000));
        assert_eq!(written.read_version, 4, "written only on the shoe as read");
        // Planned again (a lost race), the same keys: the ledger replays the legs.
        let Plan::Pay(again) = deal(&row, &rules(), ACCOUNTS, &mut rng).unwrap() else { panic!("a deal pays") };
        let ids = |p: &[NewTransfer]| p.iter().map(|t| t.id).collect::<Vec<_>>();
        assert_eq!(ids(&again.transfers), ids(&first));
    }

    #[test]
    fn a_step_on_a_round_past_it_has_nothing_to_do() {
        let row = open(json!([{"wager": 500}]));
        let in_play = dealt(&row);
        assert_eq!(in_play.0.state, RoundState::Playing);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        assert!(matches!(deal(&in_play, &rules(), ACCOUNTS, &mut rng).unwrap(), Plan::Done));
        assert!(matches!(take_pending_wager(&in_play, ACCOUNTS).unwrap(), Plan::Done));
        assert!(matches!(settle(&in_play, ACCOUNTS).unwrap(), Plan::Done));
        assert!(matches!(settle(&row, ACCOUNTS).unwrap(), Plan::Done));
    }

    #[test]
    fn a_decision_on_another_step_or_beside_a_pending_one_is_refused_and_a_double_is_claimed_first() {
        let in_play = dealt(&open(json!([{"wager": 500}])));
        assert_eq!(in_play.0.round.as_ref().unwrap().phase, Phase::PlayerTurn);
        let double = Action::Double { amount: None };
        let stale = decide(&in_play, Some((3, Action::Stand))).unwrap_err();
        assert_eq!(stale.code(), "stale_step");
        let Plan::Write(Write::Pending(pending)) = decide(&in_play, Some((0, double))).unwrap() else {
            panic!("a double adds a wager: claimed first");
        };
        assert_eq!(pending.added_cents, 500);
        let claimed = (StoredRound { pending: Some(pending), ..in_play.0.clone() }, in_play.1.clone());
        let other = decide(&claimed, Some((0, Action::Stand))).unwrap_err();
        assert_eq!(other.code(), "decision_pending");
        assert!(matches!(decide(&claimed, Some((0, double))).unwrap(), Plan::Done), "the same again");
        let Plan::Pay(wager) = take_pending_wager(&claimed, ACCOUNTS).unwrap() else { panic!("the wager") };
        assert_eq!(wager.transfers.len(), 1);
        assert_eq!((wager.transfers[0].debit, wager.transfers[0].amount), (WALLET, 500));
        assert!(matches!(wager.on_refusal, Release::ClearPending(0)));
        let Write::Decision(decision) = (wager.then)(&[]).unwrap() else { panic!("the decision") };
        assert!(decision.was_pending);
        assert_eq!(decision.pending.next.spots[0].hands[0].cards.len(), 3, "one card on a double");
        let Plan::Write(Write::Decision(stand)) = decide(&in_play, Some((0, Action::Stand))).unwrap() else {
            panic!("a stand adds no wager: written at once");
        };
        assert!(!stand.was_pending);
    }
}
