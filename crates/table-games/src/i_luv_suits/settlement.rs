//! The money steps of a round (DESIGN §4): where its wagers go at the deal, the play wager, and
//! its settlement, each one ledger batch under keys derived from the round; the settled round
//! chained in the audit log.

use domain::cards::Card;
use domain::i_luv_suits::PROGRESSIVE_SEED_CENTS;
use domain::i_luv_suits::round::{Choice, Returns, Showdown, Wagers, pot_contribution, settle};
use platform::AppError;
use serde::Serialize;
use uuid::Uuid;

use super::store::{self, Decided, RoundState, Settlement};
use crate::{TABLES_NAMESPACE, TablesState};

/// The id of a round's ledger step: a retry of the step arrives at the same one.
pub fn step_id(round: Uuid, step: &str) -> Uuid {
    Uuid::new_v5(&TABLES_NAMESPACE, format!("ils-round/{round}/{step}").as_bytes())
}

/// One atomic batch of a round's transfers, `(step, debit, credit, amount)`.
pub async fn ledger_batch(
    state: &TablesState,
    round: Uuid,
    transfers: &[(&str, Uuid, Uuid, i64)],
) -> Result<(), ledger_api::LedgerError> {
    let transfers: Vec<_> = transfers
        .iter()
        .map(|&(step, debit, credit, amount)| (step_id(round, step), debit, credit, amount))
        .collect();
    crate::ledger_batch(state, "i_luv_suits", round, &transfers).await
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

/// The settlement of a `settling` round, outside any transaction: one ledger batch (the escrowed
/// wagers to the house; the returns from the house, a pot prize from the pot, and the pot funded
/// again after a top prize), then `settled` with its audit record in one short transaction.
/// Nothing to do for a round in any other state.
pub async fn settle_round(state: &TablesState, id: Uuid) -> Result<(), AppError> {
    let stored = store::load_round(&mut *state.pool.acquire().await?, id, false)
        .await?
        .ok_or_else(|| AppError::internal("a settling round vanished"))?;
    let (RoundState::Settling, Some(deal), Some(decided)) =
        (stored.state, stored.deal.as_ref(), stored.decision.as_ref())
    else {
        return Ok(());
    };
    let game = &state.i_luv_suits;
    let pot_at_deal = stored.pot_at_deal_cents.unwrap_or(0);
    let (showdown, returns) = settle(&stored.rules, &stored.wagers, deal, decided.choice, pot_at_deal);
    let play = match decided.choice {
        Choice::Fold => 0,
        Choice::Play { play_cents } => play_cents,
    };
    let progressive = if stored.wagers.progressive { stored.rules.progressive_wager_cents } else { 0 };
    let escrowed =
        stored.wagers.staked_at_deal(&stored.rules).saturating_sub(progressive).saturating_add(play);
    let wallet = stored.wallet;
    let mut transfers = vec![
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
    ledger_batch(state, id, &transfers).await?;
    let after = state.ledger.balance(wallet).await?;
    let settlement = Settlement { showdown, returns };
    let mut tx = state.pool.begin().await?;
    if store::mark_settled(&mut tx, id, &settlement, after).await? {
        let record = RoundRecord {
            game: "i_luv_suits",
            round: id,
            player: &stored.player_id,
            wagers: &stored.wagers,
            player_cards: &deal.player,
            dealer_cards: &deal.dealer,
            decision: decided,
            showdown,
            returns: &returns,
            pot_at_deal_cents: pot_at_deal,
            staked_cents: stored.staked_cents.unwrap_or(0),
            returned_cents: returns.total(),
        };
        platform::audit::append(&mut tx, "i_luv_suits.round", id, &record).await?;
    }
    tx.commit().await?;
    Ok(())
}
