//! A ticket's rows: the scan that reads it under the terminal's and retailer's guards, and the
//! steps of its prize payment.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use super::{PackState, PaymentState, TicketPlace};

/// The lockout's limits, as `scan_ticket` applies them.
#[derive(Debug, Clone, Copy)]
pub struct ScanLimits {
    pub per_terminal: i32,
    pub per_retailer: i32,
    pub window_minutes: i32,
    pub lock_minutes: i32,
}

/// What one scan read: the guards' lock, then the ticket as stored.
#[derive(Debug)]
pub struct Scanned {
    /// The terminal (or its retailer) is locked until then; nothing else was read.
    pub locked_until: Option<DateTime<Utc>>,
    pub printed: bool,
    pub pack_state: Option<PackState>,
    pub virn_ok: bool,
    /// Wrong VIRNs the terminal may still send in the window.
    pub attempts_left: i32,
    pub prize_row: Option<i16>,
    pub prize_cents: Option<i64>,
    pub paid_at: Option<DateTime<Utc>>,
    pub payment: Option<PaymentState>,
    pub paid_to: Option<String>,
}

/// One scan, one statement (see the `scan_ticket` migration): the guards locked, the ticket with
/// its pack read, the VIRN's keyed hash compared and a failure counted.
pub async fn scan(
    pool: &PgPool,
    terminal: &str,
    retailer: Option<&str>,
    place: TicketPlace,
    virn_hash: &[u8],
    limits: ScanLimits,
) -> Result<Scanned, AppError> {
    let row = sqlx::query(
        "SELECT locked_until, printed, pack_state, virn_ok, attempts_left, prize_row, prize_cents, paid_at,
                payment, paid_to
           FROM scan_ticket($1, $2, $3, $4, $5, $6, $7, $8, make_interval(mins => $9), make_interval(mins => $10))",
    )
    .bind(terminal)
    .bind(retailer)
    .bind(place.game)
    .bind(place.book)
    .bind(place.ticket)
    .bind(virn_hash)
    .bind(limits.per_terminal)
    .bind(limits.per_retailer)
    .bind(limits.window_minutes)
    .bind(limits.lock_minutes)
    .fetch_one(pool)
    .await?;
    Ok(Scanned {
        locked_until: row.try_get("locked_until")?,
        printed: row.try_get("printed")?,
        pack_state: row
            .try_get::<Option<String>, _>("pack_state")?
            .as_deref()
            .map(PackState::parse)
            .transpose()?,
        virn_ok: row.try_get("virn_ok")?,
        attempts_left: row.try_get("attempts_left")?,
        prize_row: row.try_get("prize_row")?,
        prize_cents: row.try_get("prize_cents")?,
        paid_at: row.try_get("paid_at")?,
        payment: row
            .try_get::<Option<String>, _>("payment")?
            .as_deref()
            .map(PaymentState::parse)
            .transpose()?,
        paid_to: row.try_get("paid_to")?,
    })
}

/// A payment to be made: reserved, its money not yet moved.
#[derive(Debug)]
pub struct PendingPayment {
    pub place: TicketPlace,
    pub paid_to: String,
    pub paid_cents: i64,
}

/// Reserves the unpaid ticket at `place` for `paid_to` as payment `id` (`pending`) and counts its
/// prize row paid; false when it is already reserved (the ticket's row lock decides between
/// concurrent claims).
pub async fn reserve(
    conn: &mut PgConnection,
    place: TicketPlace,
    prize_row: Option<i16>,
    id: Uuid,
    paid_to: &str,
    paid_cents: i64,
) -> Result<bool, AppError> {
    let reserved = sqlx::query(
        "UPDATE tickets SET paid_at = now(), payment_id = $4, paid_to = $5, paid_cents = $6, payment = 'pending'
          WHERE game = $1 AND book = $2 AND ticket = $3 AND paid_at IS NULL",
    )
    .bind(place.game)
    .bind(place.book)
    .bind(place.ticket)
    .bind(id)
    .bind(paid_to)
    .bind(paid_cents)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if reserved == 1 {
        sqlx::query("UPDATE prize_counts SET paid = paid + 1 WHERE game = $1 AND prize_row = $2")
            .bind(place.game)
            .bind(prize_row)
            .execute(&mut *conn)
            .await?;
    }
    Ok(reserved == 1)
}

/// Whom the ticket at `place` is being paid to, while its payment is unconfirmed.
pub async fn unconfirmed_payee(
    conn: &mut PgConnection,
    place: TicketPlace,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar(
        "SELECT paid_to FROM tickets
          WHERE game = $1 AND book = $2 AND ticket = $3 AND payment IN ('pending', 'done')",
    )
    .bind(place.game)
    .bind(place.book)
    .bind(place.ticket)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Payment `id`, when it is still pending.
pub async fn pending_payment(pool: &PgPool, id: Uuid) -> Result<Option<PendingPayment>, AppError> {
    let Some(row) = sqlx::query(
        "SELECT game, book, ticket, paid_to, paid_cents FROM tickets WHERE payment_id = $1 AND payment = 'pending'",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(None);
    };
    Ok(Some(PendingPayment {
        place: TicketPlace {
            game: row.try_get("game")?,
            book: row.try_get("book")?,
            ticket: row.try_get("ticket")?,
        },
        paid_to: row.try_get("paid_to")?,
        paid_cents: row.try_get("paid_cents")?,
    }))
}

/// Pending → done: the ledger moved the money.
pub async fn mark_done(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    sqlx::query("UPDATE tickets SET payment = 'done' WHERE payment_id = $1 AND payment = 'pending'")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Done → confirmed; true for the one request that does it.
pub async fn confirm(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    let confirmed =
        sqlx::query("UPDATE tickets SET payment = 'confirmed' WHERE payment_id = $1 AND payment = 'done'")
            .bind(id)
            .execute(pool)
            .await?
            .rows_affected();
    Ok(confirmed == 1)
}

/// Undoes pending payment `id`: the ticket unpaid, its prize row's count, any office claim
/// row and any counter receipt as before, in one transaction.
pub async fn release(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let released: Option<(i32, Option<i16>)> = sqlx::query_as(
        "UPDATE tickets SET paid_at = NULL, payment_id = NULL, paid_to = NULL, paid_cents = NULL, payment = NULL
          WHERE payment_id = $1 AND payment = 'pending' RETURNING game, prize_row",
    )
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((game, prize_row)) = released {
        sqlx::query("UPDATE prize_counts SET paid = paid - 1 WHERE game = $1 AND prize_row = $2")
            .bind(game)
            .bind(prize_row)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM office_claims WHERE id = $1").bind(id).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM claim_receipts WHERE id = $1").bind(id).execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Payments pending for longer than `$1` seconds, oldest first, for the recovery pass.
pub const STUCK_PAYMENTS: &str = "SELECT payment_id FROM tickets
  WHERE payment = 'pending' AND paid_at < now() - make_interval(secs => $1)
  ORDER BY paid_at LIMIT 500";
