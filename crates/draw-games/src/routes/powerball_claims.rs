//! Powerball's prizes paid: claims at a retailer's terminal and the retailer's day, claims at
//! the lottery office with their W-2G records, and the annuities' schedules.

use axum::extract::State;
use axum::http::StatusCode;
use domain::serial::TicketSerial;
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, IdempotencyKey, Json, PageParams, Query};

use crate::DrawsState;
use crate::saga::powerball::claims::{self as powerball_claims, Claimant, Counter};
use crate::store::powerball::{annuities, claims};
use crate::views::*;

/// A claim as answered.
fn claim_view(claim: &claims::Claim) -> Result<PowerballClaimView, AppError> {
    use domain::powerball::grand_prize::{self, Election};
    let serial = TicketSerial::from_body(claim.serial)
        .ok_or_else(|| AppError::internal("a stored serial out of range"))?;
    // The annuity of the grand prize part of the claim (a fixed prize won beside it is paid now).
    let annuity = claim
        .election
        .filter(|&e| e == Election::Annuity)
        .and(claim.grand_cents)
        .map(|grand| grand_prize::annuity_payments(grand).to_vec());
    Ok(PowerballClaimView {
        id: claim.id,
        serial: serial.to_string(),
        draw_date: claim.draw_date,
        payee: claim.payee.clone(),
        prize_cents: claim.prize_cents,
        paid_cents: claim.paid_cents,
        withheld_cents: claim.withheld_cents,
        net_cents: claim.net_cents,
        w2g: claim.w2g,
        election: claim.election.map(|e| match e {
            Election::Annuity => "annuity".to_owned(),
            Election::Cash => "cash".to_owned(),
        }),
        annuity_payments: annuity,
        released_cents: claim.released_cents,
        claimant_name: claim.claimant_name.clone(),
        tin_last4: claim.tin_last4.clone(),
        paid_by: claim.paid_by.clone(),
        created_at: claim.created_at,
    })
}

#[utoipa::path(
    post, path = "/v1/powerball/retail/claims", tag = "powerball", request_body = PowerballClaimRequest,
    params(("Idempotency-Key" = String, Header, description = "required: the same terminal sending the same key again is answered the same receipt (`Idempotent-Replayed: true`)")),
    responses((status = 201, description = "paid at the counter, once: the retailer's settlement account is credited", body = PowerballClaimView),
              (status = 200, description = "a replay: the receipt this terminal's claim under this key made", body = PowerballClaimView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/powerball/retail/claims`: a retailer's terminal pays a terminal ticket's prizes in a
/// certified drawing, up to the retailer limit; of concurrent claims exactly one is paid, and a
/// till that lost the answer sends its key again for the same receipt.
pub async fn claim_powerball_at_terminal(
    State(state): State<DrawsState>,
    caller: Caller,
    key: IdempotencyKey,
    Json(request): Json<PowerballClaimRequest>,
) -> Result<axum::response::Response, AppError> {
    caller.require(&[Role::Retailer])?;
    let key = key.required()?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    let counter = Counter::Terminal { retailer, terminal: caller.subject().to_owned() };
    let (claim, replayed) =
        powerball_claims::claim(&state, &request.serial, request.draw_date, &counter, Some(key)).await?;
    Ok(platform::http::created_or_replayed(claim_view(&claim)?, !replayed, None))
}

#[utoipa::path(
    get, path = "/v1/powerball/retail/day", tag = "powerball", params(RetailDayQuery),
    responses((status = 200, description = "the terminal's retailer's Powerball in the window: tickets sold and prizes paid", body = PowerballRetailDay),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/powerball/retail/day?since=&until=`: a retailer's terminal reads its retailer's
/// Powerball sales and prizes paid, for the till's close-out beside the instant figures.
pub async fn powerball_retail_day(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<RetailDayQuery>,
) -> Result<Json<PowerballRetailDay>, AppError> {
    caller.require(&[Role::Retailer])?;
    let retailer = caller.organization().ok_or_else(platform::auth::forbidden)?.to_owned();
    // The game's clock, as its tickets' and claims' times are (shifted in a demonstration).
    let until = query.until.unwrap_or_else(|| state.clock.now());
    let (since, until) = platform::page::window(query.since, Some(until), chrono::Duration::days(1))?;
    let (tickets_sold, sales_cents, prizes_paid, prizes_paid_cents) =
        claims::retail_day(&state.pool, &retailer, since, until).await?;
    Ok(Json(PowerballRetailDay { retailer_id: retailer, since, until, tickets_sold, sales_cents, prizes_paid, prizes_paid_cents }))
}

#[utoipa::path(
    post, path = "/v1/powerball/office-claims", tag = "powerball", request_body = PowerballOfficeClaimRequest,
    responses((status = 201, description = "paid at the office, once, after tax; the grand prize by the winner's election", body = PowerballClaimView),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `POST /v1/powerball/office-claims`: operators at the lottery office pay any prize of a
/// certified drawing, with the W-2G and withholding rules, and the grand prize by election.
pub async fn claim_powerball_at_office(
    State(state): State<DrawsState>,
    caller: Caller,
    Json(request): Json<PowerballOfficeClaimRequest>,
) -> Result<(StatusCode, Json<PowerballClaimView>), AppError> {
    caller.require(&[Role::Operator])?;
    let counter = Counter::Office {
        operator: caller.subject().to_owned(),
        claimant: Claimant { name: request.claimant.name, tin_last4: request.claimant.tin_last4 },
        election: request.election,
    };
    let (claim, _) =
        powerball_claims::claim(&state, &request.serial, request.draw_date, &counter, None).await?;
    Ok((StatusCode::CREATED, Json(claim_view(&claim)?)))
}

#[utoipa::path(
    get, path = "/v1/powerball/office-claims", tag = "powerball", params(PowerballOfficeClaimsQuery),
    operation_id = "list_powerball_office_claims",
    responses((status = 200, description = "prizes paid at the office, newest first, with their W-2G records", body = Vec<PowerballClaimView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/powerball/office-claims`: operators, auditors and services see every prize paid at the
/// office; a player sees those of the tickets they bought online (their W-2G records among them).
pub async fn list_powerball_office_claims(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<PowerballOfficeClaimsQuery>,
) -> Result<Json<Vec<PowerballClaimView>>, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    // The platform's page size rule, as every list has.
    let limit = PageParams::<i64>::new(None, query.limit).limit()?;
    let buyer = (caller.role() == Role::Player).then(|| caller.subject());
    let claims = claims::paid_at_office(&state.pool, buyer, query.w2g, limit).await?;
    claims.iter().map(claim_view).collect::<Result<Vec<_>, _>>().map(Json)
}

#[utoipa::path(
    get, path = "/v1/powerball/annuities", tag = "powerball", params(PowerballAnnuitiesQuery),
    responses((status = 200, description = "grand prizes paid as annuities, newest claim first: each one's 30 payments, what is paid and what is owed, each year's W-2G record", body = Vec<PowerballAnnuityView>),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/powerball/annuities`: operators and auditors list the annuities' schedules.
pub async fn list_powerball_annuities(
    State(state): State<DrawsState>,
    caller: Caller,
    Query(query): Query<PowerballAnnuitiesQuery>,
) -> Result<Json<Vec<PowerballAnnuityView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let limit = PageParams::<i64>::new(None, query.limit).limit()?;
    let schedules = annuities::schedules(&state.pool, limit).await?;
    schedules.iter().map(annuity_view).collect::<Result<Vec<_>, _>>().map(Json)
}

fn annuity_view(schedule: &annuities::Schedule) -> Result<PowerballAnnuityView, AppError> {
    use chrono::Datelike;
    let serial = TicketSerial::from_body(schedule.serial)
        .ok_or_else(|| AppError::internal("a stored serial out of range"))?;
    let sum = |paid: bool| {
        schedule.payments.iter().filter(|p| p.paid_at.is_some() == paid).map(|p| p.amount_cents).sum::<i64>()
    };
    Ok(PowerballAnnuityView {
        claim_id: schedule.claim_id,
        serial: serial.to_string(),
        draw_date: schedule.draw_date,
        claimant_name: schedule.claimant_name.clone(),
        tin_last4: schedule.tin_last4.clone(),
        claimed_at: schedule.claimed_at,
        total_cents: sum(true).saturating_add(sum(false)),
        paid_cents: sum(true),
        owed_cents: sum(false),
        next_due_on: schedule.payments.iter().find(|p| p.paid_at.is_none()).map(|p| p.due_on),
        payments: schedule
            .payments
            .iter()
            .map(|p| PowerballAnnuityPaymentView {
                number: p.number,
                due_on: p.due_on,
                tax_year: p.due_on.year(),
                amount_cents: p.amount_cents,
                withheld_cents: p.withheld_cents,
                net_cents: p.net_cents,
                w2g: p.w2g,
                paid_at: p.paid_at,
            })
            .collect(),
    })
}
