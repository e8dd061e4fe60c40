//! Deposits and withdrawals as stored (`payments`, `payment_events`): every statement the
//! payment flows run ([`crate::saga::payments`]), checked against the schema at build time.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Deposit or withdrawal.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema, sqlx::Type,
)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum PaymentKind {
    Deposit,
    Withdrawal,
}

impl PaymentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentKind::Deposit => "deposit",
            PaymentKind::Withdrawal => "withdrawal",
        }
    }
}

/// Where a stored payment stands: `Settling` is claimed by a webhook with its outcome, its
/// money not yet (or not known to be) moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Pending,
    Settling { succeeded: bool },
    Succeeded,
    Failed,
}

/// A payment's row.
#[derive(Debug, Clone)]
pub struct PaymentRow {
    pub id: Uuid,
    pub kind: PaymentKind,
    pub amount: i64,
    pub currency: String,
    pub stage: Stage,
    pub failure: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The columns as stored: `state` and `outcome` become a [`Stage`].
struct Stored {
    id: Uuid,
    kind: PaymentKind,
    amount: i64,
    currency: String,
    state: String,
    outcome: Option<String>,
    failure: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<Stored> for PaymentRow {
    type Error = AppError;

    fn try_from(row: Stored) -> Result<Self, AppError> {
        let stage = match row.state.as_str() {
            "pending" => Stage::Pending,
            "settling" => Stage::Settling { succeeded: row.outcome.as_deref() == Some("succeeded") },
            "succeeded" => Stage::Succeeded,
            "failed" => Stage::Failed,
            other => return Err(AppError::internal(format!("a stored payment in state {other:?}"))),
        };
        Ok(PaymentRow {
            id: row.id,
            kind: row.kind,
            amount: row.amount,
            currency: row.currency,
            stage,
            failure: row.failure,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// Payment `id`.
pub async fn get(conn: &mut PgConnection, id: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query_as!(
        Stored,
        r#"SELECT id, kind AS "kind: PaymentKind", amount, currency, state, outcome, failure, created_at, updated_at
             FROM payments WHERE id = $1"#,
        id
    )
    .fetch_optional(conn)
    .await?
    .map(PaymentRow::try_from)
    .transpose()
}

/// Payment `id` if it is `player`'s.
pub async fn get_of_player(pool: &PgPool, id: Uuid, player: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query_as!(
        Stored,
        r#"SELECT id, kind AS "kind: PaymentKind", amount, currency, state, outcome, failure, created_at, updated_at
             FROM payments WHERE id = $1 AND player_id = $2"#,
        id,
        player
    )
    .fetch_optional(pool)
    .await?
    .map(PaymentRow::try_from)
    .transpose()
}

/// A page of `player`'s payments, newest first, after the one made at `after` (its time and id):
/// every one, declined ones too, so a player's history keeps what never moved money.
pub async fn of_player(
    pool: &PgPool,
    player: Uuid,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<PaymentRow>, AppError> {
    let (after_at, after_id) = after.unzip();
    sqlx::query_as!(
        Stored,
        r#"SELECT id, kind AS "kind: PaymentKind", amount, currency, state, outcome, failure, created_at, updated_at
             FROM payments
            WHERE player_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
            ORDER BY created_at DESC, id DESC LIMIT $4"#,
        player,
        after_at,
        after_id,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(PaymentRow::try_from)
    .collect()
}

/// Payment `id`, locked until the caller's transaction ends (never across a ledger call).
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query_as!(
        Stored,
        r#"SELECT id, kind AS "kind: PaymentKind", amount, currency, state, outcome, failure, created_at, updated_at
             FROM payments WHERE id = $1 FOR UPDATE"#,
        id
    )
    .fetch_optional(conn)
    .await?
    .map(PaymentRow::try_from)
    .transpose()
}

/// Locks player `player` until the caller's transaction ends: one deposit intent at a time each.
pub async fn lock_player(conn: &mut PgConnection, player: Uuid) -> Result<(), AppError> {
    sqlx::query!("SELECT 1 AS locked FROM players WHERE id = $1 FOR UPDATE", player)
        .fetch_optional(conn)
        .await?;
    Ok(())
}

/// A new pending payment.
#[derive(Debug)]
pub struct NewPayment<'a> {
    pub id: Uuid,
    pub player: Uuid,
    pub kind: PaymentKind,
    pub amount: i64,
    pub currency: &'a str,
    pub method: &'a str,
}

/// Records `payment` pending; none when a payment with its id exists already.
pub async fn insert_pending(
    conn: &mut PgConnection,
    payment: &NewPayment<'_>,
) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query_as!(
        Stored,
        r#"INSERT INTO payments (id, player_id, kind, amount, currency, payment_method, state)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (id) DO NOTHING
           RETURNING id, kind AS "kind: PaymentKind", amount, currency, state, outcome, failure, created_at, updated_at"#,
        payment.id,
        payment.player,
        payment.kind as PaymentKind,
        payment.amount,
        payment.currency,
        payment.method
    )
    .fetch_optional(conn)
    .await?
    .map(PaymentRow::try_from)
    .transpose()
}

/// What `player` has deposited in the last `days` days, counting intents still pending and those
/// settling as succeeded.
pub async fn deposited_within(conn: &mut PgConnection, player: Uuid, days: i32) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT coalesce(sum(amount), 0)::bigint AS "deposited!" FROM payments
            WHERE player_id = $1 AND kind = 'deposit'
              AND (state IN ('pending', 'succeeded') OR (state = 'settling' AND outcome = 'succeeded'))
              AND created_at > now() - make_interval(days => $2)"#,
        player,
        days
    )
    .fetch_one(conn)
    .await?)
}

/// Records the provider's event `event_id` of `kind` for `payment`; false when it was recorded
/// before.
pub async fn record_event(
    conn: &mut PgConnection,
    event_id: &str,
    payment: Uuid,
    kind: &str,
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "INSERT INTO payment_events (event_id, payment_id, type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        event_id,
        payment,
        kind
    )
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Claims pending payment `id` as settling with the provider's outcome (and its reason).
pub async fn claim_settling(
    conn: &mut PgConnection,
    id: Uuid,
    succeeded: bool,
    failure: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE payments SET state = 'settling', outcome = $2, failure = $3, updated_at = now()
          WHERE id = $1 AND state = 'pending'",
        id,
        if succeeded { "succeeded" } else { "failed" },
        failure
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Stops the deposits of the player of failed deposit `payment` when it is the `failures`th
/// failed deposit of theirs within `minutes`; true when this stopped them.
pub async fn block_after_failures(
    conn: &mut PgConnection,
    payment: Uuid,
    failures: i64,
    minutes: i32,
) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE players p SET deposits_blocked_at = now()
           FROM payments pay
          WHERE pay.id = $1 AND pay.kind = 'deposit' AND p.id = pay.player_id AND p.deposits_blocked_at IS NULL
            AND (SELECT count(*) FROM payments f
                  WHERE f.player_id = pay.player_id AND f.kind = 'deposit' AND f.outcome = 'failed'
                    AND f.updated_at > now() - make_interval(mins => $3)) >= $2
          RETURNING p.id",
        payment,
        failures,
        minutes
    )
    .fetch_optional(conn)
    .await?
    .is_some())
}

/// Payment `id` and its player's wallet.
pub async fn with_wallet(pool: &PgPool, id: Uuid) -> Result<Option<(PaymentRow, Uuid)>, AppError> {
    let Some(row) = sqlx::query!(
        r#"SELECT p.id, p.kind AS "kind: PaymentKind", p.amount, p.currency, p.state, p.outcome, p.failure,
                  p.created_at, p.updated_at, w.wallet_account_id
             FROM payments p JOIN players w ON w.id = p.player_id WHERE p.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    let wallet = row.wallet_account_id;
    let stored = Stored {
        id: row.id,
        kind: row.kind,
        amount: row.amount,
        currency: row.currency,
        state: row.state,
        outcome: row.outcome,
        failure: row.failure,
        created_at: row.created_at,
        updated_at: row.updated_at,
    };
    Ok(Some((PaymentRow::try_from(stored)?, wallet)))
}

/// A settling payment `id` becomes its outcome (its money has moved); false when it was not
/// settling (another delivery finished it).
pub async fn settle(conn: &mut PgConnection, id: Uuid) -> Result<Option<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE payments SET state = outcome, updated_at = now() WHERE id = $1 AND state = 'settling'
         RETURNING player_id",
        id
    )
    .fetch_optional(conn)
    .await?)
}

/// The payments settling for longer than `older_than`, oldest first (the recovery pass's).
pub async fn settling(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        "SELECT id FROM payments WHERE state = 'settling'
            AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 100",
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}
