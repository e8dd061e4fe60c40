//! Player protection on the wire (ADR 0014): the limits a player sets or an operator imposes.

use ledger_api::wire::{LimitPeriod, MoneyLimit, MoneyLimitKind};
use serde::{Deserialize, Serialize};

use crate::views::players::DepositLimit;

// `PUT /v1/me/limits` and `PUT /v1/players/{id}/limits`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoneyLimitRequest {
    /// `loss` (stakes less wins), `wager` (total staked) or `single_stake` (any one play).
    pub kind: MoneyLimitKind,
    /// `daily`, `weekly` or `monthly` (the last 24 hours, 7 days, 30 days); none for a single stake.
    pub period: Option<LimitPeriod>,
    /// Cents, at least 1; `null` removes the limit (a player's removal waits 24 hours, as a raise).
    pub amount: Option<i64>,
}

/// Every limit of a player: deposits (kept here) and money at stake (kept by the ledger, which
/// refuses a stake that would pass one).
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Limits {
    pub deposit: Vec<DepositLimit>,
    /// The player's own and the operator's; the lower of the two binds.
    pub money: Vec<MoneyLimit>,
}
