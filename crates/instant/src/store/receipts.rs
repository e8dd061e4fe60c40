//! The counter's receipt of a prize it paid: written in the transaction that reserves the ticket
//! (so a payment never exists without one), found again by the claim's idempotency key, removed
//! with the reservation if the ledger refuses the payment.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::TicketPlace;

/// Who paid a prize at the counter, and under which key.
#[derive(Debug, Clone)]
pub struct CounterClaim {
    pub retailer_id: String,
    pub terminal_id: String,
    pub idempotency_key: String,
    /// The shop and till by name, as the terminal's token names them, kept on the receipt.
    pub place: Option<platform::auth::Place>,
}

/// A receipt as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Receipt {
    pub id: Uuid,
    pub retailer_id: String,
    pub idempotency_key: String,
    pub terminal_id: String,
    pub game: i32,
    pub book: i32,
    pub ticket: i32,
    pub prize_cents: i64,
    pub paid_cents: i64,
    pub free_ticket: bool,
    pub created_at: DateTime<Utc>,
    /// The shop's name, its address and the till's label when it was printed (none on receipts
    /// printed before names were kept).
    pub shop: Option<String>,
    pub shop_address: Option<String>,
    pub terminal_label: Option<String>,
    /// The payment's state: `pending`, `done` or `confirmed`.
    pub payment: Option<String>,
}

impl Receipt {
    pub fn place(&self) -> TicketPlace {
        TicketPlace { game: self.game, book: self.book, ticket: self.ticket }
    }
}

const SELECT: &str = "SELECT r.*, t.payment FROM claim_receipts r
  LEFT JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id";

/// Writes payment `id`'s receipt. False when the retailer used this key for another claim
/// already (the unique key refuses it and nothing is written).
#[allow(clippy::too_many_arguments)]
pub async fn insert(
    conn: &mut PgConnection,
    id: Uuid,
    place: TicketPlace,
    claim: &CounterClaim,
    prize_cents: i64,
    paid_cents: i64,
    free_ticket: bool,
) -> Result<bool, AppError> {
    let written = sqlx::query(
        "INSERT INTO claim_receipts (id, retailer_id, idempotency_key, terminal_id, game, book, ticket,
                                     prize_cents, paid_cents, free_ticket, shop, shop_address, terminal_label)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(&claim.retailer_id)
    .bind(&claim.idempotency_key)
    .bind(&claim.terminal_id)
    .bind(place.game)
    .bind(place.book)
    .bind(place.ticket)
    .bind(prize_cents)
    .bind(paid_cents)
    .bind(free_ticket)
    .bind(claim.place.as_ref().map(|p| &p.shop))
    .bind(claim.place.as_ref().and_then(|p| p.address.as_ref()))
    .bind(claim.place.as_ref().map(|p| &p.terminal))
    .execute(&mut *conn)
    .await?
    .rows_affected();
    Ok(written == 1)
}

/// The receipt a retailer's claim with `key` left, if any.
pub async fn by_key(pool: &PgPool, retailer: &str, key: &str) -> Result<Option<Receipt>, AppError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE r.retailer_id = $1 AND r.idempotency_key = $2"))
        .bind(retailer)
        .bind(key)
        .fetch_optional(pool)
        .await?)
}

/// Receipt `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Receipt>, AppError> {
    Ok(sqlx::query_as(&format!("{SELECT} WHERE r.id = $1")).bind(id).fetch_optional(pool).await?)
}

/// A retailer's receipts in `[since, until)`, oldest first, after receipt `after` (a page).
pub async fn list(
    pool: &PgPool,
    retailer: Option<&str>,
    (since, until): (DateTime<Utc>, DateTime<Utc>),
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<Receipt>, AppError> {
    let (after_at, after_id) = after.unwrap_or((since, Uuid::nil()));
    Ok(sqlx::query_as(&format!(
        "{SELECT} WHERE ($1::text IS NULL OR r.retailer_id = $1) AND r.created_at >= $2 AND r.created_at < $3
            AND (r.created_at, r.id) > ($4, $5)
          ORDER BY r.created_at, r.id LIMIT $6"
    ))
    .bind(retailer)
    .bind(since)
    .bind(until)
    .bind(after_at)
    .bind(after_id)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// How many prizes a retailer's counters paid in `[since, until)`, and their sum (payments the
/// ledger has made; a pending one is not yet paid).
pub async fn paid_in(
    pool: &PgPool,
    retailer: &str,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<(i64, i64), AppError> {
    Ok(sqlx::query_as(
        "SELECT count(*), coalesce(sum(r.paid_cents), 0)::bigint FROM claim_receipts r
           JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id
          WHERE r.retailer_id = $1 AND r.created_at >= $2 AND r.created_at < $3
            AND t.payment IN ('done', 'confirmed')",
    )
    .bind(retailer)
    .bind(since)
    .bind(until)
    .fetch_one(pool)
    .await?)
}
