//! The money steps of a round (architecture §4): its ledger batches, where its stakes went, its
//! settlement, and its voiding when the shoe cannot finish it; each chained in the audit log.

use domain::blackjack::round::{Round, SpotBet, TableRules};
use domain::blackjack::side_wagers::{BLAZING_SEVENS_SEED_CENTS, pot_contribution, pot_share};
use ledger_api::LedgerError;
use platform::AppError;
use serde::Serialize;
use uuid::Uuid;

use super::repository::Voiding;
use super::store::{self, RoundState, StoredRound};
use crate::{TABLES_NAMESPACE, TablesState};

/// The id of a round's ledger step: a retry of the step arrives at the same one.
pub fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("bj-round/{round}/{step}").as_bytes())
}

/// A round's transfers, `(id, debit, credit, amount)`, as one atomic batch; answers the posted
/// balances of `balances_of` just after it.
pub async fn ledger_batch(
    state: &TablesState,
    round: Uuid,
    transfers: &[(Uuid, Uuid, Uuid, i64)],
    balances_of: &[Uuid],
) -> Result<Vec<i64>, LedgerError> {
    crate::kit::ledger::ledger_batch(&state.kit, "blackjack", round, transfers, balances_of).await
}

/// The one balance a batch read back.
pub fn only_balance(balances: &[i64]) -> Result<i64, AppError> {
    balances.first().copied().ok_or_else(|| AppError::internal("the ledger answered no balance"))
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
        let progressive: i64 =
            bets.iter().filter(|b| b.blazing_7s).map(|_| rules.progressive_wager_cents).sum();
        let to_pot: i64 = bets
            .iter()
            .filter(|b| b.blazing_7s)
            .map(|_| pot_contribution(rules.progressive_wager_cents))
            .sum();
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

/// A round voided because the shoe had no card left for it.
#[derive(Debug, Serialize)]
struct VoidRecord<'a> {
    game: &'static str,
    round: Uuid,
    reason: &'static str,
    cards: Option<&'a Round>,
    returned_cents: i64,
}

/// A round that cannot be finished is void: every wager it took goes back to the wallet (from
/// the escrow, the pot and the house, where the stake put it), nothing is won, and the round is
/// chained as voided, under the round's lock ([`Voiding`]). A legal round never needs it
/// (`domain::blackjack::max_spots_served` and the shoe's reserve); it keeps a shoe stored before
/// the reserve existed, or any defect that empties one, from stranding stakes in escrow. (So
/// rare a path keeps its ledger calls inside the round's transaction.)
pub async fn void_round(
    state: &TablesState,
    voiding: Voiding,
    rules: &TableRules,
    bets: &[SpotBet],
    round: Option<&Round>,
) -> Result<(), AppError> {
    let (id, wallet) = (voiding.round.id, voiding.round.wallet);
    let staked = round
        .map_or_else(|| Round::stake_at_deal(rules, bets), |r| r.spots.iter().map(|s| s.staked(rules)).sum());
    let stakes = Stakes::of(rules, bets, staked);
    let refunds = [
        (step_id(id, "void/escrow"), state.blackjack.escrow_account, wallet, stakes.escrowed),
        (step_id(id, "void/pot"), state.blackjack.pot_account, wallet, stakes.to_pot),
        (step_id(id, "void/house"), state.blackjack.house_account, wallet, stakes.to_house),
    ];
    let after = only_balance(&ledger_batch(state, id, &refunds, &[wallet]).await?)?;
    let record = VoidRecord {
        game: "blackjack",
        round: id,
        reason: "shoe_exhausted",
        cards: round,
        returned_cents: staked,
    };
    voiding.voided(staked, after, &record).await?;
    tracing::warn!(round = %id, "blackjack round voided: the shoe had no card left for it; every wager returned");
    Ok(())
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

/// The settlement (step 5) of a `settling` round as read or written last, outside any
/// transaction: one ledger batch under keys derived from the round (a retry is a replay), then
/// `settled` with its sums and its audit record, group-committed with other rounds'
/// ([`super::repository`]). Answers the round as it then stands; a round in any other state as it
/// is.
pub async fn settle_stored(state: &TablesState, stored: StoredRound) -> Result<StoredRound, AppError> {
    let (RoundState::Settling, Some(round)) = (stored.state, stored.round.as_ref()) else {
        return Ok(stored);
    };
    let id = stored.id;
    let rules = &round.rules;
    let staked: i64 = round.spots.iter().map(|s| s.staked(rules)).sum();
    let returned: i64 = round.spots.iter().map(|s| s.returned.unwrap_or(0)).sum();
    let progressive: i64 =
        round.spots.iter().filter(|s| s.bet.blazing_7s).map(|_| rules.progressive_wager_cents).sum();
    let (pot_prize, top_prize) = pot_prizes(round, stored.pot_at_deal_cents.unwrap_or(0))?;
    let wallet = stored.wallet;
    let mut transfers = vec![
        (
            step_id(id, "settle/stakes"),
            state.blackjack.escrow_account,
            state.blackjack.house_account,
            staked.saturating_sub(progressive),
        ),
        (step_id(id, "settle/returns"), state.blackjack.house_account, wallet, returned),
        (step_id(id, "settle/pot-prize"), state.blackjack.pot_account, wallet, pot_prize),
    ];
    if top_prize {
        // 111-301-5(j)(7): after the top prize the pot is funded again with $10,000.
        transfers.push((
            step_id(id, "settle/pot-reseed"),
            state.blackjack.house_account,
            state.blackjack.pot_account,
            BLAZING_SEVENS_SEED_CENTS,
        ));
    }
    let after = only_balance(&ledger_batch(state, id, &transfers, &[wallet]).await?)?;
    let record = RoundRecord {
        game: "blackjack",
        round: id,
        cards: round,
        staked_cents: staked,
        returned_cents: returned,
        pot_prize_cents: pot_prize,
    };
    let settled = store::Settled { id, returned, pot_prize, balance_after: after };
    let audit = platform::audit::Entry::new("blackjack.round", id, &record)?;
    if !state.blackjack.repository.settle(settled, audit).await? {
        // Another call (a retry, the recovery pass) settled it first: as it wrote it.
        return state
            .blackjack
            .repository
            .load(id)
            .await?
            .ok_or_else(|| AppError::internal("a settled round vanished"));
    }
    Ok(StoredRound {
        state: RoundState::Settled,
        returned_cents: Some(returned),
        pot_prize_cents: Some(pot_prize),
        balance_after_cents: Some(after),
        ..stored
    })
}
