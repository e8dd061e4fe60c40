//! Prizes paid at the lottery office (operators): any winning ticket, with the tax rules a
//! lottery applies (`domain::instant::payout::TaxRules`, each figure configurable): a W-2G
//! record for a prize of $600 or more that is at least 300 times the price, and 24% withheld
//! from a prize over $5,000. The prize leaves the game's prize liability in one ledger batch:
//! the net to the office's payout account (paid out by check) and what is withheld to the tax
//! account, exactly once per ticket.

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use domain::instant::payout::TaxAssessment;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Query};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::InstantState;
use crate::counter::{Checked, OFFICE, ValidationRequest, check_ticket, pay_ticket};

/// Who is paid, as the office records it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Claimant {
    pub name: String,
    pub address: Option<String>,
    /// The last four digits of the claimant's taxpayer number: required when a W-2G is made.
    pub tin_last4: Option<String>,
}

/// `POST /v1/instant/office-claims`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimRequest {
    pub barcode: String,
    pub virn: String,
    pub claimant: Claimant,
}

/// A prize paid at the office.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct OfficeClaimView {
    pub id: Uuid,
    pub barcode: String,
    pub prize_cents: i64,
    pub withheld_cents: i64,
    /// Paid to the claimant.
    pub net_cents: i64,
    /// A W-2G record was made.
    pub w2g: bool,
    pub claimant_name: String,
    pub tin_last4: Option<String>,
    pub paid_by: String,
    pub paid_at: DateTime<Utc>,
}

/// What the office records of a payment, written with the ticket's reservation.
#[derive(Debug)]
pub struct OfficeClaimRecord {
    pub prize_cents: i64,
    pub tax: TaxAssessment,
    pub claimant_name: String,
    pub claimant_address: Option<String>,
    pub tin_last4: Option<String>,
    pub paid_by: String,
}

/// Writes the office's record of payment `id` (its id is the payment's).
pub async fn insert_claim(
    conn: &mut PgConnection,
    id: Uuid,
    checked: &Checked,
    claim: &OfficeClaimRecord,
) -> Result<(), AppError> {
    sqlx::query(
        "INSERT INTO office_claims (id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g,
                                    claimant_name, claimant_address, tin_last4, paid_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(id)
    .bind(checked.game)
    .bind(checked.book)
    .bind(checked.ticket)
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

fn check_claimant(claimant: &Claimant, w2g: bool) -> Result<(), AppError> {
    let name = claimant.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(AppError::unprocessable(
            "invalid_claimant",
            "the claimant's name is 1 to 200 characters",
        ));
    }
    match claimant.tin_last4.as_deref() {
        Some(tin) if tin.len() != 4 || !tin.bytes().all(|b| b.is_ascii_digit()) => {
            Err(AppError::unprocessable("invalid_claimant", "`tin_last4` is four digits"))
        }
        None if w2g => Err(AppError::unprocessable(
            "claimant_tin_required",
            "this prize needs a W-2G: give the last four digits of the claimant's taxpayer number",
        )),
        _ => Ok(()),
    }
}

#[utoipa::path(
    post, path = "/v1/instant/office-claims", tag = "instant", request_body = OfficeClaimRequest,
    responses((status = 201, description = "paid at the office, once, after tax", body = OfficeClaimView), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/instant/office-claims`: operators at the lottery office.
pub async fn create_office_claim(
    State(state): State<InstantState>,
    caller: Caller,
    Json(request): Json<OfficeClaimRequest>,
) -> Result<(StatusCode, Json<OfficeClaimView>), AppError> {
    caller.require(&[Role::Operator])?;
    state.ledger_link()?;
    let scan = ValidationRequest { barcode: request.barcode.clone(), virn: request.virn.clone() };
    let checked = check_ticket(&state, &caller, &scan, Some(OFFICE)).await?;
    if checked.prize_row.is_none() {
        return Err(AppError::unprocessable("not_a_winner", "this ticket wins nothing"));
    }
    let amount = checked.amount_cents();
    // A free ticket is a ticket, not winnings: nothing to report or withhold.
    let tax = if checked.free_ticket {
        TaxAssessment { w2g: false, withheld_cents: 0, net_cents: amount }
    } else {
        state.tax.assess(amount, checked.price_cents)
    };
    check_claimant(&request.claimant, tax.w2g)?;
    let record = OfficeClaimRecord {
        prize_cents: amount,
        tax,
        claimant_name: request.claimant.name.trim().to_owned(),
        claimant_address: request.claimant.address.clone(),
        tin_last4: request.claimant.tin_last4.clone(),
        paid_by: caller.subject().to_owned(),
    };
    // Claiming a ticket whose office payment is pending finishes it, as first recorded.
    let id = pay_ticket(&state, &checked, OFFICE, amount, Some(&record)).await?;
    let row =
        sqlx::query("SELECT * FROM office_claims WHERE id = $1").bind(id).fetch_one(&state.pool).await?;
    Ok((StatusCode::CREATED, Json(claim_view(&row)?)))
}

fn claim_view(r: &sqlx::postgres::PgRow) -> Result<OfficeClaimView, AppError> {
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

/// `GET /v1/instant/office-claims` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimsQuery {
    /// Only claims with a W-2G record.
    pub w2g: Option<bool>,
    /// At most this many, newest first (1 to 500; 50 by default).
    pub limit: Option<i64>,
}

#[utoipa::path(
    get, path = "/v1/instant/office-claims", tag = "instant", params(OfficeClaimsQuery),
    responses((status = 200, description = "prizes paid at the office, newest first", body = Vec<OfficeClaimView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/office-claims`: operators, auditors and services.
pub async fn list_office_claims(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<OfficeClaimsQuery>,
) -> Result<Json<Vec<OfficeClaimView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    // The platform's page size rule, as every list has.
    let limit = platform::PageParams { after: None, limit: query.limit }.limit()?;
    let rows = sqlx::query(
        "SELECT * FROM office_claims WHERE ($1::boolean IS NULL OR w2g = $1) ORDER BY paid_at DESC, id LIMIT $2",
    )
    .bind(query.w2g)
    .bind(limit)
    .fetch_all(&state.pool)
    .await?;
    rows.iter().map(claim_view).collect::<Result<Vec<_>, AppError>>().map(Json)
}
