//! The money steps of a round (architecture §4): where its wagers go at the deal, and its settlement
//! with the play wager, each one ledger batch under keys derived from the round; the settled
//! round chained in the audit log.

use domain::cards::Card;
use domain::i_luv_suits::PROGRESSIVE_SEED_CENTS;
use domain::i_luv_suits::round::{Choice, Returns, Showdown, Wagers, pot_contribution, settle};
use ledger_api::LedgerError;
use platform::AppError;
use serde::Serialize;
use uuid::Uuid;

use super::store::{self, Decided, RoundState, Settlement, StoredRound};
use crate::{TABLES_NAMESPACE, TablesState};

/// The id of a round's ledger step: a retry of the step arrives at the same one.
pub fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("ils-round/{round}/{step}").as_bytes())
}

/// One atomic batch of a round's transfers, `(step, debit, credit, amount)`; answers the posted
/// balances of `balances_of` just after it.
pub async fn ledger_batch(
    state: &TablesState,
    round: Uuid,
    transfers: &[(&str, Uuid, Uuid, i64)],
    balances_of: &[Uuid],
) -> Result<Vec<i64>, LedgerError> {
    let transfers: Vec<_> = transfers
        .iter()
        .map(|&(step, debit, credit, amount)| (step_id(round, step), debit, credit, amount))
        .collect();
    crate::kit::ledger::ledger_batch(&state.kit, "i_luv_suits", round, &transfers, balances_of).await
}

/// Where a round's wagers go at the deal: the ante and the side wagers into escrow; of the
/// progressive wager 22% into the pot (76(i)(5)) and the rest to the house.
pub fn stakes_at_deal(
    state: &TablesState,
    wallet: Uuid,
    wagers: &Wagers,
) -> [(&'static str, Uuid, Uuid, i64); 3] {
    let game = &state.i_luv_suits;
    let progressive = if wagers.progressive { game.limits.rules.progressive_wager_cents } else { 0 };
    let to_pot = pot_contribution(progressive);
    let escrowed = wagers.staked_at_deal(&game.limits.rules).saturating_sub(progressive);
    [
        ("stake/escrow", wallet, game.escrow_account, escrowed),
        ("stake/pot", wallet, game.pot_account, to_pot),
        ("stake/house", wallet, game.house_account, progressive.saturating_sub(to_pot)),
    ]
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

/// A decided round's settlement batch, `(step, debit, credit, amount)`, and the play wager it
/// takes now (a pending play's, ahead of everything it pays; none when taken before).
fn settlement_transfers(
    game: &super::Game,
    stored: &StoredRound,
    choice: Choice,
    returns: &Returns,
) -> (Vec<(&'static str, Uuid, Uuid, i64)>, i64) {
    let wallet = stored.wallet;
    let play = match choice {
        Choice::Fold => 0,
        Choice::Play { play_cents } => play_cents,
    };
    let play_now = if stored.pending.is_some() { play } else { 0 };
    let progressive = if stored.wagers.progressive { stored.rules.progressive_wager_cents } else { 0 };
    let escrowed =
        stored.wagers.staked_at_deal(&stored.rules).saturating_sub(progressive).saturating_add(play);
    let mut transfers = vec![
        ("play", wallet, game.escrow_account, play_now),
        ("settle/stakes", game.escrow_account, game.house_account, escrowed),
        (
            "settle/returns",
            game.house_account,
            wallet,
            returns.total().saturating_sub(returns.pot_prize_cents),
        ),
        ("settle/pot-prize", game.pot_account, wallet, returns.pot_prize_cents),
    ];
    if returns.top_prize {
        // 76(i)(5) read as these tables read it: the house funds the pot again after a top prize.
        transfers.push(("settle/pot-reseed", game.house_account, game.pot_account, PROGRESSIVE_SEED_CENTS));
    }
    (transfers, play_now)
}

/// The settlement (step 4) of a decided round, outside any transaction: one ledger batch (a
/// pending play decision's wager first; then the escrowed wagers to the house, the returns from
/// the house, a pot prize from the pot, and the pot funded again after a top prize), then
/// `settled` with its audit record, group-committed. A refused batch (the play wager: the wallet
/// cannot cover it) forgets the pending decision, nothing moved. Nothing to do for a round that
/// is not decided or has no decision pending. Answers the round settled when this call settled it
/// (None: nothing to do, or another call settled it first).
pub async fn settle_round(
    state: &TablesState,
    stored: &StoredRound,
) -> Result<Option<StoredRound>, AppError> {
    let decided = match (stored.state, stored.decision, stored.pending) {
        (RoundState::Settling, Some(decided), _) | (RoundState::Deciding, None, Some(decided)) => decided,
        _ => return Ok(None),
    };
    let Some(deal) = stored.deal.as_ref() else {
        return Err(AppError::internal("a decided round without cards"));
    };
    let (id, game, wallet) = (stored.id, &state.i_luv_suits, stored.wallet);
    let pot_at_deal = stored.pot_at_deal_cents.unwrap_or(0);
    let (showdown, returns) = settle(&stored.rules, &stored.wagers, deal, decided.choice, pot_at_deal);
    let (transfers, play_now) = settlement_transfers(game, stored, decided.choice, &returns);
    let after = match ledger_batch(state, id, &transfers, &[wallet]).await {
        Ok(balances) => balances.first().copied().ok_or_else(|| AppError::internal("no balance answered"))?,
        Err(LedgerError::Refused(e)) if stored.pending.is_some() => {
            game.repository.clear_pending(id).await?;
            return Err(e);
        }
        Err(e) => return Err(e.into()),
    };
    let staked = stored.staked_cents.unwrap_or(0).saturating_add(play_now);
    let record = RoundRecord {
        game: "i_luv_suits",
        round: id,
        player: &stored.player_id,
        wagers: &stored.wagers,
        player_cards: &deal.player,
        dealer_cards: &deal.dealer,
        decision: &decided,
        showdown,
        returns: &returns,
        pot_at_deal_cents: pot_at_deal,
        staked_cents: staked,
        returned_cents: returns.total(),
    };
    let settled = store::Settled {
        id,
        decided,
        staked,
        settlement: Settlement { showdown, returns },
        balance_after: after,
    };
    let audit = platform::audit::Entry::new("i_luv_suits.round", id, &record)?;
    if !game.repository.settle(settled.clone(), audit).await? {
        return Ok(None);
    }
    Ok(Some(StoredRound {
        state: RoundState::Settled,
        pending: None,
        decision: Some(decided),
        staked_cents: Some(staked),
        settlement: Some(settled.settlement),
        returned_cents: Some(settled.settlement.returns.total()),
        balance_after_cents: Some(after),
        ..stored.clone()
    }))
}
