//! Deposits and withdrawals as stored (`payments`, `payment_events`): every statement the
//! payment flows run ([`crate::payments`]).

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

/// Deposit or withdrawal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
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

const COLUMNS: &str = "id, kind, amount, currency, state, outcome, failure, created_at, updated_at";

fn row_of(row: &PgRow) -> Result<PaymentRow, AppError> {
    let kind: String = row.try_get("kind")?;
    let state: String = row.try_get("state")?;
    let outcome: Option<String> = row.try_get("outcome")?;
    Ok(PaymentRow {
        id: row.try_get("id")?,
        kind: match kind.as_str() {
            "deposit" => PaymentKind::Deposit,
            "withdrawal" => PaymentKind::Withdrawal,
            other => return Err(AppError::internal(format!("a stored payment of kind {other:?}"))),
        },
        amount: row.try_get("amount")?,
        currency: row.try_get("currency")?,
        stage: match state.as_str() {
            "pending" => Stage::Pending,
            "settling" => Stage::Settling { succeeded: outcome.as_deref() == Some("succeeded") },
            "succeeded" => Stage::Succeeded,
            "failed" => Stage::Failed,
            other => return Err(AppError::internal(format!("a stored payment in state {other:?}"))),
        },
        failure: row.try_get("failure")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Payment `id`.
pub async fn get(conn: &mut PgConnection, id: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM payments WHERE id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(row_of)
        .transpose()
}

/// Payment `id` if it is `player`'s.
pub async fn get_of_player(pool: &PgPool, id: Uuid, player: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM payments WHERE id = $1 AND player_id = $2"))
        .bind(id)
        .bind(player)
        .fetch_optional(pool)
        .await?
        .as_ref()
        .map(row_of)
        .transpose()
}

/// Payment `id`, locked until the caller's transaction ends (never across a ledger call).
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<Option<PaymentRow>, AppError> {
    sqlx::query(&format!("SELECT {COLUMNS} FROM payments WHERE id = $1 FOR UPDATE"))
        .bind(id)
        .fetch_optional(conn)
        .await?
        .as_ref()
        .map(row_of)
        .transpose()
}

/// Locks player `player` until the caller's transaction ends: one deposit intent at a time each.
pub async fn lock_player(conn: &mut PgConnection, player: Uuid) -> Result<(), AppError> {
    sqlx::query("SELECT 1 FROM players WHERE id = $1 FOR UPDATE").bind(player).execute(conn).await?;
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
    sqlx::query(&format!(
        "INSERT INTO payments (id, player_id, kind, amount, currency, payment_method, state)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (id) DO NOTHING RETURNING {COLUMNS}"
    ))
    .bind(payment.id)
    .bind(payment.player)
    .bind(payment.kind.as_str())
    .bind(payment.amount)
    .bind(payment.currency)
    .bind(payment.method)
    .fetch_optional(conn)
    .await?
    .as_ref()
    .map(row_of)
    .transpose()
}

/// What `player` has deposited in the last `days` days, counting intents still pending and those
/// settling as succeeded.
pub async fn deposited_within(conn: &mut PgConnection, player: Uuid, days: i32) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        "SELECT coalesce(sum(amount), 0)::bigint FROM payments
          WHERE player_id = $1 AND kind = 'deposit'
            AND (state IN ('pending', 'succeeded') OR (state = 'settling' AND outcome = 'succeeded'))
            AND created_at > now() - make_interval(days => $2)",
    )
    .bind(player)
    .bind(days)
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
    Ok(sqlx::query(
        "INSERT INTO payment_events (event_id, payment_id, type) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    )
    .bind(event_id)
    .bind(payment)
    .bind(kind)
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
    sqlx::query(
        "UPDATE payments SET state = 'settling', outcome = $2, failure = $3, updated_at = now()
          WHERE id = $1 AND state = 'pending'",
    )
    .bind(id)
    .bind(if succeeded { "succeeded" } else { "failed" })
    .bind(failure)
    .execute(conn)
    .await?;
    Ok(())
}

/// Payment `id` and its player's wallet.
pub async fn with_wallet(pool: &PgPool, id: Uuid) -> Result<Option<(PaymentRow, Uuid)>, AppError> {
    let Some(row) = sqlx::query(&format!(
        "SELECT {COLUMNS}, (SELECT wallet_account_id FROM players WHERE players.id = payments.player_id) AS wallet
           FROM payments WHERE id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    Ok(Some((row_of(&row)?, row.try_get("wallet")?)))
}

/// A settling payment `id` becomes its outcome (its money has moved).
pub async fn settle(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query(
        "UPDATE payments SET state = outcome, updated_at = now() WHERE id = $1 AND state = 'settling'",
    )
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// The payments settling for longer than `$1` seconds, oldest first (the recovery pass's).
pub const SETTLING: &str = "SELECT id FROM payments WHERE state = 'settling'
    AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT 100";
