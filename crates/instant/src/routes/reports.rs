//! The operators' reports: each game's prize liability beside the ledger, validations by
//! retailer, and the retailers whose validations are unusual for the games' odds.

use axum::extract::State;
use platform::auth::{Caller, Role};
use platform::codes;
use platform::openapi::Refused;
use platform::{AppError, Json, Query};

use crate::InstantState;
use crate::views::*;

#[utoipa::path(
    get, path = "/v1/instant/liability", tag = "instant",
    responses((status = 200, description = "each game's prize liability", body = Vec<LiabilityView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
// Each game's prize liability (printed, paid, outstanding) with the ledger's balance beside it.
/// `GET /v1/instant/liability`: operators, auditors and services.
pub async fn liability(
    State(state): State<InstantState>,
    caller: Caller,
) -> Result<Json<Vec<LiabilityView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let counts = crate::store::reports::prize_counts(&state.pool).await?;
    let open = crate::store::reports::open_payments(&state.pool).await?;
    let mut views = Vec::new();
    for (game, _) in state.games.iter() {
        let (mut printed, mut paid) = (0i64, 0i64);
        for count in counts.iter().filter(|c| i64::from(c.game) == i64::from(game.number)) {
            let Some(prize) = usize::try_from(count.prize_row).ok().and_then(|r| game.prizes.get(r)) else {
                continue;
            };
            let each = game.cost_of_winner_cents(prize);
            printed = printed.saturating_add(each.saturating_mul(count.printed));
            paid = paid.saturating_add(each.saturating_mul(count.paid));
        }
        let (payments_pending, payments_unconfirmed) = open
            .iter()
            .find(|(g, _, _)| i64::from(*g) == i64::from(game.number))
            .map_or((0, 0), |&(_, pending, done)| (pending, done));
        views.push(LiabilityView {
            payments_pending,
            payments_unconfirmed,
            game: game.number,
            name: game.name.clone(),
            printed_cents: printed,
            paid_cents: paid,
            outstanding_cents: printed.saturating_sub(paid),
            ledger_balance_cents: Some(state.ledger.balance(crate::liability_account(game.number)).await?),
        });
    }
    Ok(Json(views))
}

#[utoipa::path(
    get, path = "/v1/instant/validations/by-retailer", tag = "instant", params(WindowQuery),
    responses((status = 200, description = "scans per retailer in the window", body = Vec<RetailerValidations>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
// The validations of each retailer's terminals.
/// `GET /v1/instant/validations/by-retailer`: a retailer's terminal its own retailer's;
/// operators, auditors and services any retailer's.
pub async fn validations_by_retailer(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<WindowQuery>,
) -> Result<Json<Vec<RetailerValidations>>, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    let retailer = super::packs::readable_retailer(&caller, query.retailer_id.as_deref())?;
    let (since, until) = platform::page::window(query.since, query.until, chrono::Duration::days(1))?;
    let rows = crate::store::reports::validations_by_retailer(&state.pool, since, until, retailer.as_deref())
        .await?;
    let mut views: Vec<RetailerValidations> = Vec::new();
    for crate::store::reports::ScanCounts { retailer_id: retailer, result, scans, tickets, cents } in rows {
        if views.last().is_none_or(|v| v.retailer_id != retailer) {
            views.push(RetailerValidations {
                retailer_id: retailer,
                scans: 0,
                winners: 0,
                not_winners: 0,
                refused: std::collections::BTreeMap::new(),
                winner_cents: 0,
            });
        }
        let Some(view) = views.last_mut() else { continue };
        view.scans = view.scans.saturating_add(scans);
        match result.as_str() {
            "winner" => {
                view.winners = view.winners.saturating_add(tickets);
                view.winner_cents = view.winner_cents.saturating_add(cents);
            }
            "not_a_winner" => view.not_winners = view.not_winners.saturating_add(tickets),
            _ => {
                view.refused.insert(result, scans);
            }
        }
    }
    Ok(Json(views))
}

#[utoipa::path(
    get, path = "/v1/instant/reports/unusual-validations", tag = "instant", params(UnusualQuery),
    responses((status = 200, description = "each retailer's validated winners against the games' odds, flagged ones first", body = UnusualReport), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
// Two patterns that point at a retailer paying itself or its friends: a share of high-tier
// winners far above what the games' prize structures give (it keeps the good tickets), and many
// claims just under the retailer's pay limit (prizes kept away from the office's W-2G). Each is a
// count against its expectation with the probability of that count or more by chance
// (`domain::instant::patterns`); wrong VIRNs, re-claims of paid tickets and scans of stolen packs
// are counted beside them.
/// `GET /v1/instant/reports/unusual-validations`: operators, auditors and services.
pub async fn unusual_validations(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<UnusualQuery>,
) -> Result<Json<UnusualReport>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let (since, until) = platform::page::window(query.since, query.until, chrono::Duration::days(30))?;
    let limit = state.settings.prizes.retailer_limit_cents;
    let high_from = query.high_tier_cents.unwrap_or(10_000);
    let near_from = query.near_limit_from_cents.unwrap_or(limit.saturating_mul(4) / 5);
    let alpha = query.alpha.unwrap_or(0.001);
    if high_from <= 0 || near_from <= 0 || !(alpha > 0.0 && alpha < 1.0) {
        return Err(AppError::bad_request(
            codes::INVALID_QUERY,
            "high_tier_cents and near_limit_from_cents are positive, alpha between 0 and 1",
        ));
    }
    let thresholds = crate::saga::reports::Thresholds { high_from, near_from, limit, alpha };
    let rows = crate::saga::reports::unusual_validations(&state, (since, until), &thresholds).await?;
    Ok(Json(UnusualReport { since, until, alpha, retailers: rows }))
}
