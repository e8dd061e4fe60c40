//! Manual balance adjustments as stored (`balance_adjustments`): the queue of proposals and the
//! record of each decision ([`crate::saga::adjustments`]).

use chrono::{DateTime, Utc};
use platform::{AppError, stored_state};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

stored_state!(
    /// Where an adjustment stands: waiting for a second operator, approved and its money being
    /// moved, moved, or rejected.
    pub AdjustmentState {
        Proposed => "proposed",
        Approving => "approving",
        Approved => "approved",
        Rejected => "rejected",
    }
);

stored_state!(
    /// Which way the money goes: into the player's wallet (a goodwill credit) or out of it (a
    /// correction).
    pub Direction {
        Credit => "credit",
        Debit => "debit",
    }
);

/// An adjustment as kept, with the usernames of who proposed and decided it.
#[derive(Debug, Clone)]
pub struct AdjustmentRow {
    pub id: Uuid,
    pub player_id: Uuid,
    pub player_email: String,
    pub direction: Direction,
    pub amount_cents: i64,
    pub reason: String,
    pub proposed_by: String,
    pub proposed_by_name: Option<String>,
    pub proposed_at: DateTime<Utc>,
    pub state: AdjustmentState,
    pub decided_by: Option<String>,
    pub decided_by_name: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    pub decision_reason: Option<String>,
}

/// A proposal to keep.
#[derive(Debug)]
pub struct NewAdjustment<'a> {
    pub id: Uuid,
    pub player: Uuid,
    pub direction: Direction,
    pub amount_cents: i64,
    pub reason: &'a str,
    pub proposed_by: &'a str,
}

/// Keeps `proposal` unless its id is kept already; true when kept now.
pub async fn insert(conn: &mut PgConnection, proposal: &NewAdjustment<'_>) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO balance_adjustments (id, player_id, direction, amount_cents, reason, proposed_by)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
        proposal.id,
        proposal.player,
        proposal.direction as Direction,
        proposal.amount_cents,
        proposal.reason,
        proposal.proposed_by,
    )
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Adjustment `id` as it stands.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<AdjustmentRow>, AppError> {
    Ok(select(pool, Some(id), None, None, None, 1).await?.pop())
}

/// Adjustment `id`'s row locked on `conn` (a transaction) for a decision: its proposer and
/// state.
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<Option<(String, AdjustmentState)>, AppError> {
    let row = sqlx::query!(
        r#"SELECT proposed_by, state AS "state: AdjustmentState" FROM balance_adjustments WHERE id = $1 FOR UPDATE"#,
        id
    )
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|r| (r.proposed_by, r.state)))
}

/// A page of adjustments in `state` (every state when none), of `player` when given, oldest
/// first after `after`.
pub async fn page(
    pool: &PgPool,
    state: Option<AdjustmentState>,
    player: Option<Uuid>,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<AdjustmentRow>, AppError> {
    select(pool, None, state, player, after, limit).await
}

/// The adjustments each given filter admits, oldest first, with who proposed and decided them.
async fn select(
    pool: &PgPool,
    id: Option<Uuid>,
    state: Option<AdjustmentState>,
    player: Option<Uuid>,
    after: Option<Uuid>,
    limit: i64,
) -> Result<Vec<AdjustmentRow>, AppError> {
    Ok(sqlx::query_as!(
        AdjustmentRow,
        r#"SELECT a.id, a.player_id, pl.email AS player_email, a.direction AS "direction: Direction", a.amount_cents,
                  a.reason, a.proposed_by, p.username AS "proposed_by_name?", a.proposed_at,
                  a.state AS "state: AdjustmentState", a.decided_by, d.username AS "decided_by_name?",
                  a.decided_at, a.decision_reason
             FROM balance_adjustments a
             JOIN players pl ON pl.id = a.player_id
             LEFT JOIN staff p ON p.id::text = a.proposed_by
             LEFT JOIN staff d ON d.id::text = a.decided_by
            WHERE ($1::uuid IS NULL OR a.id = $1) AND ($2::text IS NULL OR a.state = $2)
              AND ($3::uuid IS NULL OR a.player_id = $3) AND ($4::uuid IS NULL OR a.id > $4)
            ORDER BY a.id LIMIT $5"#,
        id,
        state.map(AdjustmentState::as_str),
        player,
        after,
        limit,
    )
    .fetch_all(pool)
    .await?)
}

/// Decides a proposed adjustment on `conn` (the transaction holding its lock): `approving` or
/// `rejected`, by `staff`, with the reason for a rejection.
pub async fn decide(
    conn: &mut PgConnection,
    id: Uuid,
    state: AdjustmentState,
    staff: &str,
    reason: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE balance_adjustments SET state = $2, decided_by = $3, decided_at = now(), decision_reason = $4
          WHERE id = $1 AND state = 'proposed'",
        id,
        state as AdjustmentState,
        staff,
        reason,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// An approved adjustment whose money has moved; false when it was not `approving`.
pub async fn mark_approved(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE balance_adjustments SET state = 'approved' WHERE id = $1 AND state = 'approving'",
        id
    )
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// An approval the ledger refused (a debit the wallet no longer covers): back to the queue,
/// undecided.
pub async fn back_to_proposed(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE balance_adjustments SET state = 'proposed', decided_by = NULL, decided_at = NULL
          WHERE id = $1 AND state = 'approving'",
        id
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The adjustments left `approving` for longer than `older_than` (the approver's process died
/// or the ledger was away before the money moved).
pub async fn approving(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    let seconds = older_than.as_secs_f64();
    Ok(sqlx::query_scalar!(
        "SELECT id FROM balance_adjustments
          WHERE state = 'approving' AND decided_at < now() - make_interval(secs => $1) ORDER BY id LIMIT 100",
        seconds
    )
    .fetch_all(pool)
    .await?)
}
