//! The money steps of a round (DESIGN §4): its ledger batches, where its stakes went, its
//! settlement, and its voiding when the shoe cannot finish it; each chained in the audit log.

use super::*;

/// A round's transfers, `(id, debit, credit, amount)`, as one atomic batch.
pub(super) async fn ledger_batch(
    state: &TablesState,
    round: Uuid,
    transfers: &[(Uuid, Uuid, Uuid, i64)],
) -> Result<(), LedgerError> {
    let metadata = json!({"game": "blackjack", "round": round});
    let transfers: Vec<NewTransfer> = transfers
        .iter()
        .map(|&(id, debit, credit, amount)| NewTransfer::new(id, debit, credit, amount, metadata.clone()))
        .collect();
    state.ledger.batch(&transfers).await
}

/// Where a round's wagers went at the deal and after: the escrow holds all but the progressive
/// wagers, of which 24% went to the pot and the rest to the house (K.A.R. 111-301-5(j)(3), (6)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Stakes {
    pub(super) escrowed: i64,
    pub(super) to_pot: i64,
    pub(super) to_house: i64,
}

impl Stakes {
    /// `staked` is everything the spots staked so far (wagers added by decisions included).
    pub(super) fn of(rules: &TableRules, bets: &[SpotBet], staked: i64) -> Stakes {
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
/// chained as voided. A legal round never needs it (`domain::blackjack::max_spots_served` and
/// the shoe's reserve); it keeps a shoe stored before the reserve existed, or any defect that
/// empties one, from stranding stakes in escrow.
pub(super) async fn void_round(
    state: &TablesState,
    tx: &mut PgConnection,
    id: Uuid,
    rules: &TableRules,
    bets: &[SpotBet],
    round: Option<&Round>,
    wallet: Uuid,
) -> Result<(), AppError> {
    let staked = round
        .map_or_else(|| Round::stake_at_deal(rules, bets), |r| r.spots.iter().map(|s| s.staked(rules)).sum());
    let stakes = Stakes::of(rules, bets, staked);
    let refunds = [
        (step_id(id, "void/escrow"), state.escrow_account, wallet, stakes.escrowed),
        (step_id(id, "void/pot"), state.pot_account, wallet, stakes.to_pot),
        (step_id(id, "void/house"), state.house_account, wallet, stakes.to_house),
    ];
    ledger_batch(state, id, &refunds).await?;
    let after = state.ledger.balance(wallet).await?;
    sqlx::query(
        "UPDATE bj_rounds SET state = 'voided', refusal = 'shoe_exhausted', staked_cents = $2, returned_cents = $2,
                pot_prize_cents = 0, balance_after_cents = $3, updated_at = now() WHERE id = $1",
    )
    .bind(id)
    .bind(staked)
    .bind(after)
    .execute(&mut *tx)
    .await?;
    let record = VoidRecord {
        game: "blackjack",
        round: id,
        reason: "shoe_exhausted",
        cards: round,
        returned_cents: staked,
    };
    platform::audit::append(tx, "blackjack.round.voided", id, &record).await?;
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

/// The settlement (step 5), inside the round's transaction: one ledger batch, the round's sums,
/// its audit record.
pub(super) async fn settle(
    state: &TablesState,
    tx: &mut PgConnection,
    id: Uuid,
    round: &Round,
    pot_at_deal: i64,
    wallet: Uuid,
) -> Result<(), AppError> {
    let rules = &round.rules;
    let staked: i64 = round.spots.iter().map(|s| s.staked(rules)).sum();
    let returned: i64 = round.spots.iter().map(|s| s.returned.unwrap_or(0)).sum();
    let progressive: i64 =
        round.spots.iter().filter(|s| s.bet.blazing_7s).map(|_| rules.progressive_wager_cents).sum();
    // Pot prizes of one round are divided evenly between the hands that won them (111-301-5(j)(5)).
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
    let mut transfers = vec![
        (
            step_id(id, "settle/stakes"),
            state.escrow_account,
            state.house_account,
            staked.saturating_sub(progressive),
        ),
        (step_id(id, "settle/returns"), state.house_account, wallet, returned),
        (step_id(id, "settle/pot-prize"), state.pot_account, wallet, pot_prize),
    ];
    if top_prize {
        // 111-301-5(j)(7): after the top prize the pot is funded again with $10,000.
        transfers.push((
            step_id(id, "settle/pot-reseed"),
            state.house_account,
            state.pot_account,
            BLAZING_SEVENS_SEED_CENTS,
        ));
    }
    ledger_batch(state, id, &transfers).await?;
    let after = state.ledger.balance(wallet).await?;
    sqlx::query(
        "UPDATE bj_rounds SET state = 'settled', returned_cents = $2, pot_prize_cents = $3, balance_after_cents = $4,
                updated_at = now() WHERE id = $1",
    )
    .bind(id)
    .bind(returned)
    .bind(pot_prize)
    .bind(after)
    .execute(&mut *tx)
    .await?;
    let record = RoundRecord {
        game: "blackjack",
        round: id,
        cards: round,
        staked_cents: staked,
        returned_cents: returned,
        pot_prize_cents: pot_prize,
    };
    platform::audit::append(tx, "blackjack.round", id, &record).await?;
    Ok(())
}
