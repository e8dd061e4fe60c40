//! Powerball annuities as stored: each grand prize taken as an annuity has its 30 payments,
//! recorded with the claim, the first paid with it and each later one marked paid once, in the
//! same transaction as its significant event; checked against the schema at build time.

use chrono::{DateTime, NaiveDate, Utc};
use platform::AppError;
use platform::events::{self, Event, Kind};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// One payment of an annuity: its amount, the tax withheld from it and its W-2G.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub claim_id: Uuid,
    /// 1 to 30; the first is paid with the claim.
    pub number: i16,
    pub due_on: NaiveDate,
    pub amount_cents: i64,
    pub withheld_cents: i64,
    pub net_cents: i64,
    pub w2g: bool,
    pub paid_at: Option<DateTime<Utc>>,
}

/// An annuity's payments with the claim they belong to.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub claim_id: Uuid,
    pub serial: i64,
    pub draw_date: NaiveDate,
    pub claimant_name: Option<String>,
    pub tin_last4: Option<String>,
    pub claimed_at: DateTime<Utc>,
    pub payments: Vec<Payment>,
}

/// Records `payments` (a claim's whole schedule), in the claim's reserving transaction.
pub async fn record(conn: &mut PgConnection, payments: &[Payment]) -> Result<(), AppError> {
    let column = |f: fn(&Payment) -> i64| payments.iter().map(f).collect::<Vec<i64>>();
    let claims: Vec<Uuid> = payments.iter().map(|p| p.claim_id).collect();
    let numbers: Vec<i16> = payments.iter().map(|p| p.number).collect();
    let dates: Vec<NaiveDate> = payments.iter().map(|p| p.due_on).collect();
    let w2g: Vec<bool> = payments.iter().map(|p| p.w2g).collect();
    sqlx::query!(
        "INSERT INTO pb_annuity_payments (claim_id, number, due_on, amount_cents, withheld_cents, net_cents, w2g)
         SELECT * FROM unnest($1::uuid[], $2::smallint[], $3::date[], $4::bigint[], $5::bigint[], $6::bigint[], $7::boolean[])
         ON CONFLICT DO NOTHING",
        &claims,
        &numbers,
        &dates,
        &column(|p| p.amount_cents),
        &column(|p| p.withheld_cents),
        &column(|p| p.net_cents),
        &w2g
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The first payment of claim `id`'s annuity (if it has one) paid, when the claim's money has
/// moved: as of the claim's receipt.
pub async fn first_paid(conn: &mut PgConnection, id: Uuid) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE pb_annuity_payments p SET paid_at = c.created_at FROM pb_claims c
          WHERE p.claim_id = $1 AND p.number = 1 AND p.paid_at IS NULL AND c.id = p.claim_id",
        id
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Payments due on or before `today` and not paid, oldest first, at most `limit`; only those
/// whose claim's money has moved (its first payment paid).
pub async fn due(pool: &PgPool, today: NaiveDate, limit: i64) -> Result<Vec<Payment>, AppError> {
    Ok(sqlx::query_as!(
        Payment,
        "SELECT p.claim_id, p.number, p.due_on, p.amount_cents, p.withheld_cents, p.net_cents, p.w2g, p.paid_at
           FROM pb_annuity_payments p
          WHERE p.paid_at IS NULL AND p.due_on <= $1 AND p.number > 1
            AND EXISTS (SELECT 1 FROM pb_annuity_payments f
                         WHERE f.claim_id = p.claim_id AND f.number = 1 AND f.paid_at IS NOT NULL)
          ORDER BY p.due_on, p.claim_id, p.number LIMIT $2",
        today,
        limit
    )
    .fetch_all(pool)
    .await?)
}

/// Payment `number` of claim `claim` marked paid at `at`, its event recorded with it; true for
/// the one call that does it (two replicas paying it at once: the ledger moved it once, by its
/// key, and only one of them records it).
pub async fn mark_paid(pool: &PgPool, payment: &Payment, at: DateTime<Utc>) -> Result<bool, AppError> {
    let mut tx = pool.begin().await?;
    let marked = sqlx::query_scalar!(
        r#"UPDATE pb_annuity_payments p SET paid_at = $3 FROM pb_claims c
            WHERE p.claim_id = $1 AND p.number = $2 AND p.paid_at IS NULL AND c.id = p.claim_id
        RETURNING c.draw_date AS "draw_date!""#,
        payment.claim_id,
        payment.number,
        at
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(draw_date) = marked else { return Ok(false) };
    #[derive(serde::Serialize)]
    struct AnnuityPaid {
        claim: Uuid,
        payment_number: i16,
        due_on: NaiveDate,
        amount_cents: i64,
        withheld_cents: i64,
        net_cents: i64,
        w2g: bool,
        paid_to: &'static str,
    }
    let paid = AnnuityPaid {
        claim: payment.claim_id,
        payment_number: payment.number,
        due_on: payment.due_on,
        amount_cents: payment.amount_cents,
        withheld_cents: payment.withheld_cents,
        net_cents: payment.net_cents,
        w2g: payment.w2g,
        paid_to: super::OFFICE,
    };
    events::record(&mut tx, crate::SCHEMA, &Event::new(Kind::PrizePaid, &paid)?.drawing("powerball", draw_date))
        .await?;
    tx.commit().await?;
    Ok(true)
}

/// The annuities claimed, newest claim first, at most `limit`, each with its 30 payments.
pub async fn schedules(pool: &PgPool, limit: i64) -> Result<Vec<Schedule>, AppError> {
    let claims = sqlx::query!(
        "SELECT c.id, c.serial, c.draw_date, c.claimant_name, c.tin_last4, c.created_at FROM pb_claims c
          WHERE c.state <> 'pending' AND EXISTS (SELECT 1 FROM pb_annuity_payments p WHERE p.claim_id = c.id)
          ORDER BY c.created_at DESC, c.id DESC LIMIT $1",
        limit
    )
    .fetch_all(pool)
    .await?;
    let ids: Vec<Uuid> = claims.iter().map(|c| c.id).collect();
    let payments = sqlx::query_as!(
        Payment,
        "SELECT claim_id, number, due_on, amount_cents, withheld_cents, net_cents, w2g, paid_at
           FROM pb_annuity_payments WHERE claim_id = ANY($1) ORDER BY claim_id, number",
        &ids
    )
    .fetch_all(pool)
    .await?;
    Ok(claims
        .into_iter()
        .map(|c| Schedule {
            claim_id: c.id,
            serial: c.serial,
            draw_date: c.draw_date,
            claimant_name: c.claimant_name,
            tin_last4: c.tin_last4,
            claimed_at: c.created_at,
            payments: payments.iter().filter(|p| p.claim_id == c.id).cloned().collect(),
        })
        .collect())
}
