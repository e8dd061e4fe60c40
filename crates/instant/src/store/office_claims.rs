//! The office's record of a prize it paid, written in the transaction that reserves the ticket.

use domain::prizes::TaxAssessment;
use platform::AppError;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use super::TicketPlace;
use crate::views::OfficeClaimView;

/// What the office records of a payment.
#[derive(Debug, Clone)]
pub struct OfficeClaimRecord {
    pub prize_cents: i64,
    pub tax: TaxAssessment,
    pub claimant_name: String,
    pub claimant_address: Option<String>,
    pub tin_last4: Option<String>,
    pub paid_by: String,
}

/// Writes the office's record of payment `id` (its id is the payment's).
pub async fn insert(
    conn: &mut PgConnection,
    id: Uuid,
    place: TicketPlace,
    claim: &OfficeClaimRecord,
) -> Result<(), AppError> {
    sqlx::query(
        "INSERT INTO office_claims (id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g,
                                    claimant_name, claimant_address, tin_last4, paid_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(id)
    .bind(place.game)
    .bind(place.book)
    .bind(place.ticket)
    .bind(claim.prize_cents)
    .bind(claim.tax.withheld_cents)
    .bind(claim.tax.net_cents)
    .bind(claim.tax.w2g)
    .bind(&claim.claimant_name)
    .bind(claim.claimant_address.as_deref())
    .bind(claim.tin_last4.as_deref())
    .bind(&claim.paid_by)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Payment `id`'s net and withheld amounts.
pub async fn amounts(pool: &PgPool, id: Uuid) -> Result<(i64, i64), AppError> {
    let row = sqlx::query("SELECT net_cents, withheld_cents FROM office_claims WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    Ok((row.try_get("net_cents")?, row.try_get("withheld_cents")?))
}

/// The claim of payment `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<OfficeClaimView, AppError> {
    let row = sqlx::query("SELECT * FROM office_claims WHERE id = $1").bind(id).fetch_one(pool).await?;
    claim_view(&row)
}

/// At most `limit` claims, newest first; only those with a W-2G when `w2g` says so.
pub async fn list(pool: &PgPool, w2g: Option<bool>, limit: i64) -> Result<Vec<OfficeClaimView>, AppError> {
    let rows = sqlx::query(
        "SELECT * FROM office_claims WHERE ($1::boolean IS NULL OR w2g = $1) ORDER BY paid_at DESC, id LIMIT $2",
    )
    .bind(w2g)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter().map(claim_view).collect()
}

fn claim_view(r: &PgRow) -> Result<OfficeClaimView, AppError> {
    let place = |column: &str| -> Result<u32, AppError> {
        u32::try_from(r.try_get::<i32, _>(column)?).map_err(AppError::internal)
    };
    Ok(OfficeClaimView {
        id: r.try_get("id")?,
        barcode: domain::instant::print_run::barcode(place("game")?, place("book")?, place("ticket")?),
        prize_cents: r.try_get("prize_cents")?,
        withheld_cents: r.try_get("withheld_cents")?,
        net_cents: r.try_get("net_cents")?,
        w2g: r.try_get("w2g")?,
        claimant_name: r.try_get("claimant_name")?,
        tin_last4: r.try_get("tin_last4")?,
        paid_by: r.try_get("paid_by")?,
        paid_at: r.try_get("paid_at")?,
    })
}
