//! The office's record of a prize it paid, written in the transaction that reserves the ticket;
//! checked against the schema at build time.

use chrono::{DateTime, Utc};
use domain::prizes::TaxAssessment;
use platform::AppError;
use sqlx::{PgConnection, PgPool};
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
    sqlx::query!(
        "INSERT INTO office_claims (id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g,
                                    claimant_name, claimant_address, tin_last4, paid_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        id,
        place.game,
        place.book,
        place.ticket,
        claim.prize_cents,
        claim.tax.withheld_cents,
        claim.tax.net_cents,
        claim.tax.w2g,
        &claim.claimant_name,
        claim.claimant_address.as_deref(),
        claim.tin_last4.as_deref(),
        &claim.paid_by
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// An office claim's row.
struct ClaimRow {
    id: Uuid,
    game: i32,
    book: i32,
    ticket: i32,
    prize_cents: i64,
    withheld_cents: i64,
    net_cents: i64,
    w2g: bool,
    claimant_name: String,
    tin_last4: Option<String>,
    paid_by: String,
    paid_at: DateTime<Utc>,
}

impl TryFrom<ClaimRow> for OfficeClaimView {
    type Error = AppError;

    fn try_from(r: ClaimRow) -> Result<Self, AppError> {
        let place = |n: i32| u32::try_from(n).map_err(AppError::internal);
        Ok(OfficeClaimView {
            id: r.id,
            barcode: domain::instant::print_run::barcode(place(r.game)?, place(r.book)?, place(r.ticket)?),
            prize_cents: r.prize_cents,
            withheld_cents: r.withheld_cents,
            net_cents: r.net_cents,
            w2g: r.w2g,
            claimant_name: r.claimant_name,
            tin_last4: r.tin_last4,
            paid_by: r.paid_by,
            paid_at: r.paid_at,
        })
    }
}

/// The claim of payment `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<OfficeClaimView, AppError> {
    sqlx::query_as!(
        ClaimRow,
        "SELECT id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g, claimant_name, tin_last4,
                paid_by, paid_at
           FROM office_claims WHERE id = $1",
        id
    )
    .fetch_one(pool)
    .await?
    .try_into()
}

/// At most `limit` claims, newest first; only those with a W-2G when `w2g` says so.
pub async fn list(pool: &PgPool, w2g: Option<bool>, limit: i64) -> Result<Vec<OfficeClaimView>, AppError> {
    sqlx::query_as!(
        ClaimRow,
        "SELECT id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g, claimant_name, tin_last4,
                paid_by, paid_at
           FROM office_claims WHERE ($1::boolean IS NULL OR w2g = $1) ORDER BY paid_at DESC, id LIMIT $2",
        w2g,
        limit
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(OfficeClaimView::try_from)
    .collect()
}
