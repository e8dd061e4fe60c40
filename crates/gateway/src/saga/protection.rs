//! Player protection (ADR 0014): the money limits a player sets on their own play, and those an
//! operator imposes. The ledger keeps them and refuses, in the statement that would debit it, a
//! stake that would pass one (`limit_reached`); here they are checked, routed and read.

use ledger_api::wire::{LimitChange, LimitSource, MoneyLimit};
use platform::AppError;
use uuid::Uuid;

use crate::GatewayState;
use crate::saga::players::{LIMIT_RAISE_DELAY_HOURS, limits as deposit_limits, load_player};
use crate::views::protection::{Limits, MoneyLimitRequest};

/// Every limit of `player`: deposits and money at stake.
pub(crate) async fn limits(state: &GatewayState, player: Uuid) -> Result<Limits, AppError> {
    let wallet = load_player(state, player).await?.wallet_account_id;
    let deposit = deposit_limits(state, player).await?;
    let money = state.ledger.limits(wallet).await?;
    Ok(Limits { deposit, money })
}

/// Sets one of `player`'s money limits as `source`: the player's own (a lowering at once, a
/// raise or removal after [`LIMIT_RAISE_DELAY_HOURS`]) or the operator's (at once either way).
pub(crate) async fn set_money_limit(
    state: &GatewayState,
    player: Uuid,
    request: MoneyLimitRequest,
    source: LimitSource,
) -> Result<Vec<MoneyLimit>, AppError> {
    let wallet = load_player(state, player).await?.wallet_account_id;
    let change = LimitChange {
        kind: request.kind,
        period: request.period,
        source,
        cents: request.amount,
        raise_delay_seconds: LIMIT_RAISE_DELAY_HOURS * 3600,
    };
    state.ledger.set_limit(wallet, &change).await
}
