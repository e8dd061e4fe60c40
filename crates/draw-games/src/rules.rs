//! Castle Keno's rules as the API shows them: the pay tables and the math (both public), and the
//! problem codes of rule errors, shared by every way of buying a ticket.

use domain::keno::math::{ParRow, par_sheet};
use domain::keno::{BetOption, MAX_SPOTS, RuleError, pay_cents};
use platform::openapi::Refused;
use platform::{AppError, Json};
use serde::Serialize;
use serde_json::Value;

/// A rule broken by a ticket, as a 422 problem with a stable code.
pub fn rule_error(e: &RuleError) -> AppError {
    let code = match e {
        RuleError::SpotOutOfRange { .. } => "spot_out_of_range",
        RuleError::DuplicateSpot { .. } => "duplicate_spot",
        RuleError::SpotsNotAllowed { .. } => "spots_not_allowed",
        RuleError::StakeOutOfRange { .. } => "stake_out_of_range",
    };
    AppError::unprocessable(code, e.to_string())
}

/// The option's name as stored and shown (`bet`, `bet_against`, ...).
pub fn option_name(option: BetOption) -> Result<String, AppError> {
    serde_json::to_value(option)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .ok_or_else(|| AppError::internal("option"))
}

/// The option stored under `name`.
pub fn option_named(name: &str) -> Result<BetOption, AppError> {
    serde_json::from_value(Value::String(name.to_owned())).map_err(AppError::internal)
}

/// One option's pay table for the $1 ticket.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PayTable {
    #[schema(value_type = String)]
    pub option: BetOption,
    pub min_spots: usize,
    pub max_spots: usize,
    /// (spots, hits, cents) for every paying cell; TOP OR BOTTOM lists the smaller half's hits.
    pub cells: Vec<[i64; 3]>,
}

#[utoipa::path(
    get, path = "/v1/keno/paytables", tag = "keno",
    responses((status = 200, description = "every option's pay table (public)", body = Vec<PayTable>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/paytables`: public.
pub async fn paytables() -> Json<Vec<PayTable>> {
    let tables = BetOption::ALL
        .iter()
        .map(|&option| {
            let range = option.spot_range();
            let mut cells = Vec::new();
            for spots in range.clone() {
                let outcomes = if option == BetOption::TopOrBottom { 10 } else { spots.min(MAX_SPOTS) };
                for hits in 0..=outcomes {
                    let cents = pay_cents(option, spots, hits);
                    if cents > 0 {
                        cells.push([
                            i64::try_from(spots).unwrap_or(0),
                            i64::try_from(hits).unwrap_or(0),
                            cents,
                        ]);
                    }
                }
            }
            PayTable { option, min_spots: *range.start(), max_spots: *range.end(), cells }
        })
        .collect();
    Json(tables)
}

#[utoipa::path(
    get, path = "/v1/keno/math", tag = "keno",
    responses((status = 200, description = "the PAR sheet: exact return to player and hit frequency per option and spot count (public)", body = Vec<Object>),
              (status = "4XX", response = Refused))
)]
/// `GET /v1/keno/math`: public.
pub async fn math() -> Json<Vec<ParRow>> {
    Json(par_sheet())
}
