//! Operator reads: each game's prize liability (printed, paid, outstanding, and the ledger's
//! balance beside it) and the validations of each retailer's terminals.

use axum::extract::State;
use chrono::{DateTime, Utc};
use platform::auth::{Caller, Role};
use platform::openapi::Refused;
use platform::{AppError, Json, Query};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::InstantState;

/// One game's prizes as the lottery owes them. A free ticket counts at the ticket's price, as
/// the print run funded it.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct LiabilityView {
    pub game: u32,
    pub name: String,
    /// Every prize of every run printed.
    pub printed_cents: i64,
    pub paid_cents: i64,
    /// Printed and not yet paid.
    pub outstanding_cents: i64,
    /// The game's prize-liability account in the ledger: equals `outstanding_cents` when the
    /// books agree.
    pub ledger_balance_cents: Option<i64>,
    /// Payments waiting for the ledger (the recovery pass finishes them).
    pub payments_pending: i64,
    /// Payments the ledger made that no till or office desk has been told to hand over yet: the
    /// payee claiming the ticket again is.
    pub payments_unconfirmed: i64,
}

#[utoipa::path(
    get, path = "/v1/instant/liability", tag = "instant",
    responses((status = 200, description = "each game's prize liability", body = Vec<LiabilityView>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/liability`: operators, auditors and services.
pub async fn liability(
    State(state): State<InstantState>,
    caller: Caller,
) -> Result<Json<Vec<LiabilityView>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let rows =
        sqlx::query("SELECT game, prize_row, printed, paid FROM prize_counts").fetch_all(&state.pool).await?;
    let open: Vec<(i32, i64, i64)> = sqlx::query_as(
        "SELECT game, count(*) FILTER (WHERE payment = 'pending'), count(*) FILTER (WHERE payment = 'done')
           FROM tickets WHERE payment IN ('pending', 'done') GROUP BY game",
    )
    .fetch_all(&state.pool)
    .await?;
    let mut views = Vec::new();
    for (game, _) in state.games.iter() {
        let (mut printed, mut paid) = (0i64, 0i64);
        for row in &rows {
            if i64::from(row.try_get::<i32, _>("game")?) != i64::from(game.number) {
                continue;
            }
            let Some(prize) =
                usize::try_from(row.try_get::<i16, _>("prize_row")?).ok().and_then(|r| game.prizes.get(r))
            else {
                continue;
            };
            let each = game.cost_of_winner_cents(prize);
            printed = printed.saturating_add(each.saturating_mul(row.try_get("printed")?));
            paid = paid.saturating_add(each.saturating_mul(row.try_get("paid")?));
        }
        let ledger_balance_cents = match &state.ledger {
            Some(link) => Some(link.ledger.balance(crate::liability_account(game.number)).await?),
            None => None,
        };
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
            ledger_balance_cents,
        });
    }
    Ok(Json(views))
}

/// `GET /v1/instant/validations/by-retailer` window.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WindowQuery {
    /// From this instant (inclusive); the last 24 hours by default.
    pub since: Option<DateTime<Utc>>,
    /// To this instant (exclusive); now by default.
    pub until: Option<DateTime<Utc>>,
    /// Only this retailer.
    pub retailer_id: Option<String>,
}

/// One retailer's validations in the window.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RetailerValidations {
    pub retailer_id: String,
    pub scans: i64,
    pub winners: i64,
    pub not_winners: i64,
    /// Refused scans by code (`wrong_virn`, `already_paid`, `pack_not_active`, ...).
    #[schema(value_type = Object)]
    pub refused: std::collections::BTreeMap<String, i64>,
    /// The prizes of the winners scanned.
    pub winner_cents: i64,
}

#[utoipa::path(
    get, path = "/v1/instant/validations/by-retailer", tag = "instant", params(WindowQuery),
    responses((status = 200, description = "scans per retailer in the window", body = Vec<RetailerValidations>), (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
/// `GET /v1/instant/validations/by-retailer`: operators, auditors and services.
pub async fn validations_by_retailer(
    State(state): State<InstantState>,
    caller: Caller,
    Query(query): Query<WindowQuery>,
) -> Result<Json<Vec<RetailerValidations>>, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    let until = query.until.unwrap_or_else(Utc::now);
    let since = query.since.unwrap_or(until - chrono::Duration::days(1));
    if since >= until {
        return Err(AppError::unprocessable("invalid_window", "`since` must be before `until`"));
    }
    let rows = sqlx::query(
        "SELECT retailer_id, result, count(*) AS n, sum(prize_cents)::bigint AS cents FROM validations
          WHERE retailer_id IS NOT NULL AND at >= $1 AND at < $2 AND ($3::text IS NULL OR retailer_id = $3)
          GROUP BY retailer_id, result ORDER BY retailer_id, result",
    )
    .bind(since)
    .bind(until)
    .bind(query.retailer_id.as_deref())
    .fetch_all(&state.pool)
    .await?;
    let mut views: Vec<RetailerValidations> = Vec::new();
    for row in &rows {
        let retailer: String = row.try_get("retailer_id")?;
        let (result, n, cents): (String, i64, i64) =
            (row.try_get("result")?, row.try_get("n")?, row.try_get("cents")?);
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
        view.scans = view.scans.saturating_add(n);
        match result.as_str() {
            "winner" => {
                view.winners = view.winners.saturating_add(n);
                view.winner_cents = view.winner_cents.saturating_add(cents);
            }
            "not_a_winner" => view.not_winners = view.not_winners.saturating_add(n),
            _ => {
                view.refused.insert(result, n);
            }
        }
    }
    Ok(Json(views))
}
