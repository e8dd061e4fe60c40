//! Prizes paid at the lottery office (operators): any winning ticket, with the tax rules a
//! lottery applies (`domain::instant::payout::TaxRules`, each figure configurable): a W-2G
//! record for a prize of $600 or more that is at least 300 times the price, and 24% withheld
//! from a prize over $5,000. The prize leaves the game's prize liability in one ledger batch:
//! the net to the office's payout account (paid out by check) and what is withheld to the tax
//! account, exactly once per ticket.

use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Query};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use uuid::Uuid;

use crate::InstantState;
use crate::counter::{ValidationRequest, check_ticket, mark_paid, post_transfers};

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
    let link = state.ledger_link()?.clone();
    let scan = ValidationRequest { barcode: request.barcode.clone(), virn: request.virn.clone() };
    let checked = check_ticket(&state, &caller, &scan).await?;
    if checked.prize_row.is_none() {
        return Err(AppError::unprocessable("not_a_winner", "this ticket wins nothing"));
    }
    let amount = checked.amount_cents();
    // A free ticket is a ticket, not winnings: nothing to report or withhold.
    let tax = if checked.free_ticket {
        domain::instant::payout::TaxAssessment { w2g: false, withheld_cents: 0, net_cents: amount }
    } else {
        state.tax.assess(amount, checked.price_cents)
    };
    check_claimant(&request.claimant, tax.w2g)?;
    let id = checked.transfer_id("office-claim");
    let mut tx = state.pool.begin().await?;
    mark_paid(&mut tx, &checked).await?;
    let row = sqlx::query(
        "INSERT INTO office_claims (id, game, book, ticket, prize_cents, withheld_cents, net_cents, w2g,
                                    claimant_name, claimant_address, tin_last4, paid_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING paid_at",
    )
    .bind(id)
    .bind(checked.game)
    .bind(checked.book)
    .bind(checked.ticket)
    .bind(amount)
    .bind(tax.withheld_cents)
    .bind(tax.net_cents)
    .bind(tax.w2g)
    .bind(request.claimant.name.trim())
    .bind(request.claimant.address.as_deref())
    .bind(request.claimant.tin_last4.as_deref())
    .bind(caller.subject())
    .fetch_one(&mut *tx)
    .await?;
    let game = u32::try_from(checked.game).map_err(AppError::internal)?;
    let metadata = serde_json::json!({"game": checked.game, "book": checked.book, "ticket": checked.ticket, "office_claim": id});
    let mut transfers = vec![serde_json::json!({"id": checked.transfer_id("office-net"),
        "debit_account_id": crate::liability_account(game), "credit_account_id": link.office_payouts_account,
        "amount": tax.net_cents, "currency": "USD", "metadata": metadata})];
    if tax.withheld_cents > 0 {
        transfers.push(serde_json::json!({"id": checked.transfer_id("office-withheld"),
            "debit_account_id": crate::liability_account(game), "credit_account_id": link.withholding_account,
            "amount": tax.withheld_cents, "currency": "USD", "metadata": metadata}));
    }
    post_transfers(&state, transfers).await?;
    tx.commit().await?;
    Ok((
        StatusCode::CREATED,
        Json(OfficeClaimView {
            id,
            barcode: request.barcode,
            prize_cents: amount,
            withheld_cents: tax.withheld_cents,
            net_cents: tax.net_cents,
            w2g: tax.w2g,
            claimant_name: request.claimant.name.trim().to_owned(),
            tin_last4: request.claimant.tin_last4,
            paid_by: caller.subject().to_owned(),
            paid_at: row.try_get("paid_at")?,
        }),
    ))
}

/// `GET /v1/instant/office-claims` filters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct OfficeClaimsQuery {
    /// Only claims with a W-2G record.
    pub w2g: Option<bool>,
    /// At most this many, newest first (1 to 1,000; 100 by default).
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
    let limit = query.limit.unwrap_or(100);
    if !(1..=1_000).contains(&limit) {
        return Err(AppError::unprocessable("invalid_limit", "`limit` is 1 to 1,000"));
    }
    let rows = sqlx::query(
        "SELECT * FROM office_claims WHERE ($1::boolean IS NULL OR w2g = $1) ORDER BY paid_at DESC, id LIMIT $2",
    )
    .bind(query.w2g)
    .bind(limit)
    .fetch_all(&state.pool)
    .await?;
    rows.iter()
        .map(|r| {
            let (game, book, ticket): (i32, i32, i32) =
                (r.try_get("game")?, r.try_get("book")?, r.try_get("ticket")?);
            Ok(OfficeClaimView {
                id: r.try_get("id")?,
                barcode: domain::instant::print_run::barcode(
                    u32::try_from(game).unwrap_or(0),
                    u32::try_from(book).unwrap_or(0),
                    u32::try_from(ticket).unwrap_or(0),
                ),
                prize_cents: r.try_get("prize_cents")?,
                withheld_cents: r.try_get("withheld_cents")?,
                net_cents: r.try_get("net_cents")?,
                w2g: r.try_get("w2g")?,
                claimant_name: r.try_get("claimant_name")?,
                tin_last4: r.try_get("tin_last4")?,
                paid_by: r.try_get("paid_by")?,
                paid_at: r.try_get("paid_at")?,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()
        .map(Json)
}
