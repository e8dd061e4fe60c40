//! Manual balance adjustments on the wire ([`crate::saga::adjustments`]).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::adjustments::{AdjustmentRow, AdjustmentState, Direction};

/// `POST /v1/players/{id}/adjustments`: a goodwill credit or a correction, proposed.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdjustmentProposal {
    /// `credit` (into the player's wallet) or `debit` (out of it).
    #[schema(schema_with = Direction::schema)]
    pub direction: Direction,
    /// In cents, 1 to 100,000,000 ($1,000,000).
    #[schema(minimum = 1, maximum = 100_000_000)]
    pub amount_cents: i64,
    /// Why, in words: recorded with the adjustment and shown to the approver. 1 to 2,000
    /// characters, not all spaces (lines and tabs allowed).
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"
    )]
    pub reason: String,
}

/// `GET /v1/adjustments`: which adjustments.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AdjustmentsQuery {
    /// Only those in this state (`proposed`: the ones waiting for a second operator).
    #[param(schema_with = AdjustmentState::schema)]
    pub state: Option<AdjustmentState>,
    /// Only this player's.
    pub player: Option<Uuid>,
    /// The `next` cursor of the previous page.
    #[param(schema_with = platform::page::after_schema::<Uuid>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// An adjustment and where it stands.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AdjustmentView {
    pub id: Uuid,
    pub player_id: Uuid,
    pub player_email: String,
    #[schema(schema_with = Direction::schema)]
    pub direction: Direction,
    pub amount_cents: i64,
    pub reason: String,
    /// The operator who proposed it (id and username).
    pub proposed_by: String,
    pub proposed_by_name: Option<String>,
    pub proposed_at: DateTime<Utc>,
    /// `proposed` (waiting for a second operator), `approving` (approved; its money is being
    /// moved), `approved` (moved), `rejected`.
    #[schema(schema_with = AdjustmentState::schema)]
    pub state: AdjustmentState,
    pub decided_by: Option<String>,
    pub decided_by_name: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    /// Why it was rejected.
    pub decision_reason: Option<String>,
    /// The ledger transfer that moves (or moved) its money.
    pub transfer_id: Uuid,
}

impl AdjustmentView {
    /// `row` on the wire, with the ledger transfer its money moves under.
    pub fn of(row: AdjustmentRow, transfer_id: Uuid) -> AdjustmentView {
        AdjustmentView {
            id: row.id,
            player_id: row.player_id,
            player_email: row.player_email,
            direction: row.direction,
            amount_cents: row.amount_cents,
            reason: row.reason,
            proposed_by: row.proposed_by,
            proposed_by_name: row.proposed_by_name,
            proposed_at: row.proposed_at,
            state: row.state,
            decided_by: row.decided_by,
            decided_by_name: row.decided_by_name,
            decided_at: row.decided_at,
            decision_reason: row.decision_reason,
            transfer_id,
        }
    }
}
