//! A ticket's rows: the scan that reads it under the terminal's and retailer's guards, and the
//! steps of its prize payment; checked against the schema at build time.

use chrono::{DateTime, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::sales_ends::SalesEnd;
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
    /// The game's announced end of sales, read in the same statement (without a lock: a scan's
    /// answer; a claim reads it again under its lock).
    pub sales_end: Option<SalesEnd>,
}

/// One scan, one statement (see the `scan_ticket` migration): the guards locked, the ticket with
/// its pack read, the VIRN's keyed hash compared and a failure counted; and the game's end of
/// sales beside it, so a winner's answer needs no second read.
pub async fn scan(
    pool: &PgPool,
    terminal: &str,
    retailer: Option<&str>,
    place: TicketPlace,
    virn_hash: &[u8],
    limits: ScanLimits,
) -> Result<Scanned, AppError> {
    let row = sqlx::query!(
        r#"SELECT s.locked_until, s.printed AS "printed!", s.pack_state AS "pack_state: PackState",
                  s.virn_ok AS "virn_ok!", s.attempts_left AS "attempts_left!", s.prize_row, s.prize_cents,
                  s.paid_at, s.payment AS "payment: PaymentState", s.paid_to,
                  se.ends_on AS "ends_on?", se.announced_at AS "announced_at?", se.announced_by AS "announced_by?",
                  se.expiring_at, se.expired_cents, se.expired_at
             FROM scan_ticket($1, $2, $3, $4, $5, $6, $7, $8, make_interval(mins => $9), make_interval(mins => $10)) s
             LEFT JOIN sales_ends se ON se.game = $3"#,
        terminal,
        retailer,
        place.game,
        place.book,
        place.ticket,
        virn_hash,
        limits.per_terminal,
        limits.per_retailer,
        limits.window_minutes,
        limits.lock_minutes
    )
    .fetch_one(pool)
    .await?;
    let sales_end = match (row.ends_on, row.announced_at, row.announced_by) {
        (Some(ends_on), Some(announced_at), Some(announced_by)) => Some(SalesEnd {
            game: place.game,
            ends_on,
            announced_at,
            announced_by,
            expiring_at: row.expiring_at,
            expired_cents: row.expired_cents,
            expired_at: row.expired_at,
        }),
        _ => None,
    };
    Ok(Scanned {
        locked_until: row.locked_until,
        printed: row.printed,
        pack_state: row.pack_state,
        virn_ok: row.virn_ok,
        attempts_left: row.attempts_left,
        prize_row: row.prize_row,
        prize_cents: row.prize_cents,
        paid_at: row.paid_at,
        payment: row.payment,
        paid_to: row.paid_to,
        sales_end,
    })
}

/// A payment to be made: reserved, its money not yet moved.
#[derive(Debug)]
pub struct PendingPayment {
    pub place: TicketPlace,
    pub paid_to: PaidTo,
    pub paid_cents: i64,
}

/// Where a pending payment goes, as the record written with its reservation says: the office's
/// claim record (its net and the tax withheld), else the retailer that reserved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaidTo {
    Retailer(String),
    Office { net_cents: i64, withheld_cents: i64 },
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
    let reserved = sqlx::query!(
        "UPDATE tickets SET paid_at = now(), payment_id = $4, paid_to = $5, paid_cents = $6, payment = 'pending'
          WHERE game = $1 AND book = $2 AND ticket = $3 AND paid_at IS NULL",
        place.game,
        place.book,
        place.ticket,
        id,
        paid_to,
        paid_cents
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if reserved == 1 {
        sqlx::query!(
            "UPDATE prize_counts SET paid = paid + 1 WHERE game = $1 AND prize_row = $2",
            place.game,
            prize_row
        )
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
    Ok(sqlx::query_scalar!(
        "SELECT paid_to FROM tickets
          WHERE game = $1 AND book = $2 AND ticket = $3 AND payment IN ('pending', 'done')",
        place.game,
        place.book,
        place.ticket
    )
    .fetch_optional(&mut *conn)
    .await?
    .flatten())
}

/// Payment `id`, when it is still pending, with its payee as its reservation recorded it.
pub async fn pending_payment(pool: &PgPool, id: Uuid) -> Result<Option<PendingPayment>, AppError> {
    let row = sqlx::query!(
        r#"SELECT t.game, t.book, t.ticket, t.paid_to AS "paid_to!", t.paid_cents AS "paid_cents!",
                  o.net_cents AS "net_cents?", o.withheld_cents AS "withheld_cents?"
             FROM tickets t LEFT JOIN office_claims o ON o.id = t.payment_id
            WHERE t.payment_id = $1 AND t.payment = 'pending'"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|row| PendingPayment {
        place: TicketPlace { game: row.game, book: row.book, ticket: row.ticket },
        paid_to: match (row.net_cents, row.withheld_cents) {
            (Some(net_cents), Some(withheld_cents)) => PaidTo::Office { net_cents, withheld_cents },
            _ => PaidTo::Retailer(row.paid_to),
        },
        paid_cents: row.paid_cents,
    }))
}

/// Pending → done: the ledger moved the money.
pub async fn mark_done(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query!(
        r#"UPDATE tickets SET payment = 'done' WHERE payment_id = $1 AND payment = 'pending'
           RETURNING game, book, ticket, prize_cents, paid_to AS "paid_to!", paid_cents AS "paid_cents!""#,
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(done) = done {
        // The prize paid, in the significant-events log: with the step that records its money moved.
        #[derive(serde::Serialize)]
        struct Paid<'a> {
            payment: Uuid,
            game: i32,
            book: i32,
            ticket: i32,
            prize_cents: i64,
            paid_cents: i64,
            /// A retailer's id (its counter), or `office`.
            paid_to: &'a str,
        }
        let paid = Paid {
            payment: id,
            game: done.game,
            book: done.book,
            ticket: done.ticket,
            prize_cents: done.prize_cents,
            paid_cents: done.paid_cents,
            paid_to: &done.paid_to,
        };
        let mut event = Event::new(Kind::PrizePaid, &paid)?;
        if let Ok(retailer) = done.paid_to.parse() {
            event = event.retailer(retailer);
        }
        events::record(&mut tx, crate::SCHEMA, &event).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Done → confirmed; true for the one request that does it.
pub async fn confirm(pool: &PgPool, id: Uuid) -> Result<bool, AppError> {
    let confirmed = sqlx::query!(
        "UPDATE tickets SET payment = 'confirmed' WHERE payment_id = $1 AND payment = 'done'",
        id
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(confirmed == 1)
}

/// Undoes pending payment `id`: the ticket unpaid, its prize row's count, any office claim
/// row and any counter receipt as before, in one transaction.
pub async fn release(pool: &PgPool, id: Uuid) -> Result<(), AppError> {
    let mut tx = pool.begin().await?;
    let released = sqlx::query!(
        "UPDATE tickets SET paid_at = NULL, payment_id = NULL, paid_to = NULL, paid_cents = NULL, payment = NULL
          WHERE payment_id = $1 AND payment = 'pending' RETURNING game, prize_row",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(released) = released {
        sqlx::query!(
            "UPDATE prize_counts SET paid = paid - 1 WHERE game = $1 AND prize_row = $2",
            released.game,
            released.prize_row
        )
        .execute(&mut *tx)
        .await?;
        sqlx::query!("DELETE FROM office_claims WHERE id = $1", id).execute(&mut *tx).await?;
        sqlx::query!("DELETE FROM claim_receipts WHERE id = $1", id).execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Payments pending for longer than `older_than`, oldest first, for the recovery pass.
pub async fn stuck_payments(pool: &PgPool, older_than: std::time::Duration) -> Result<Vec<Uuid>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT payment_id AS "payment_id!" FROM tickets
            WHERE payment = 'pending' AND paid_at < now() - make_interval(secs => $1)
            ORDER BY paid_at LIMIT 500"#,
        older_than.as_secs_f64()
    )
    .fetch_all(pool)
    .await?)
}
