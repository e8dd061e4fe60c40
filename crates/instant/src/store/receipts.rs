//! The counter's receipt of a prize it paid: written in the transaction that reserves the ticket
//! (so a payment never exists without one), found again by the claim's idempotency key, removed
//! with the reservation if the ledger refuses the payment. Checked against the schema at build
//! time.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{PaymentState, TicketPlace};

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
#[derive(Debug, Clone)]
pub struct Receipt {
    pub id: Uuid,
    pub retailer_id: String,
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
    /// The payment's state (none once the ledger refused it and it was released).
    pub payment: Option<PaymentState>,
}

impl Receipt {
    pub fn place(&self) -> TicketPlace {
        TicketPlace { game: self.game, book: self.book, ticket: self.ticket }
    }
}

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
    let written = sqlx::query!(
        "INSERT INTO claim_receipts (id, retailer_id, idempotency_key, terminal_id, game, book, ticket,
                                     prize_cents, paid_cents, free_ticket, shop, shop_address, terminal_label)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING",
        id,
        &claim.retailer_id,
        &claim.idempotency_key,
        &claim.terminal_id,
        place.game,
        place.book,
        place.ticket,
        prize_cents,
        paid_cents,
        free_ticket,
        claim.place.as_ref().map(|p| p.shop.as_str()),
        claim.place.as_ref().and_then(|p| p.address.as_deref()),
        claim.place.as_ref().map(|p| p.terminal.as_str())
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    Ok(written == 1)
}

/// The receipt a retailer's claim with `key` left, if any.
pub async fn by_key(pool: &PgPool, retailer: &str, key: &str) -> Result<Option<Receipt>, AppError> {
    Ok(sqlx::query_as!(
        Receipt,
        r#"SELECT r.id, r.retailer_id, r.terminal_id, r.game, r.book, r.ticket, r.prize_cents,
                  r.paid_cents, r.free_ticket, r.created_at, r.shop, r.shop_address, r.terminal_label,
                  t.payment AS "payment?: PaymentState"
             FROM claim_receipts r
             LEFT JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id
            WHERE r.retailer_id = $1 AND r.idempotency_key = $2"#,
        retailer,
        key
    )
    .fetch_optional(pool)
    .await?)
}

/// Receipt `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<Receipt>, AppError> {
    Ok(sqlx::query_as!(
        Receipt,
        r#"SELECT r.id, r.retailer_id, r.terminal_id, r.game, r.book, r.ticket, r.prize_cents,
                  r.paid_cents, r.free_ticket, r.created_at, r.shop, r.shop_address, r.terminal_label,
                  t.payment AS "payment?: PaymentState"
             FROM claim_receipts r
             LEFT JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id
            WHERE r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?)
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
    Ok(sqlx::query_as!(
        Receipt,
        r#"SELECT r.id, r.retailer_id, r.terminal_id, r.game, r.book, r.ticket, r.prize_cents,
                  r.paid_cents, r.free_ticket, r.created_at, r.shop, r.shop_address, r.terminal_label,
                  t.payment AS "payment?: PaymentState"
             FROM claim_receipts r
             LEFT JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id
            WHERE ($1::text IS NULL OR r.retailer_id = $1) AND r.created_at >= $2 AND r.created_at < $3
              AND (r.created_at, r.id) > ($4, $5)
            ORDER BY r.created_at, r.id LIMIT $6"#,
        retailer,
        since,
        until,
        after_at,
        after_id,
        limit
    )
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
    let row = sqlx::query!(
        r#"SELECT count(*) AS "count!", coalesce(sum(r.paid_cents), 0)::bigint AS "cents!" FROM claim_receipts r
             JOIN tickets t ON t.game = r.game AND t.book = r.book AND t.ticket = r.ticket AND t.payment_id = r.id
            WHERE r.retailer_id = $1 AND r.created_at >= $2 AND r.created_at < $3
              AND t.payment IN ('done', 'confirmed')"#,
        retailer,
        since,
        until
    )
    .fetch_one(pool)
    .await?;
    Ok((row.count, row.cents))
}
