//! The draw games' rules as the service speaks them: the problem codes of rule errors (Keno's,
//! shared by every way of buying a ticket, and Powerball's), Keno's options' stored names, and its
//! pay tables as shown.

use domain::keno::{BetOption, MAX_SPOTS, RuleError, pay_cents};
use platform::AppError;
use platform::codes;
use serde_json::Value;

use crate::views::PayTable;

/// A rule broken by a ticket, as a 422 problem with a stable code.
pub fn rule_error(e: &RuleError) -> AppError {
    let code = match e {
        RuleError::SpotOutOfRange { .. } => codes::SPOT_OUT_OF_RANGE,
        RuleError::DuplicateSpot { .. } => codes::DUPLICATE_SPOT,
        RuleError::SpotsNotAllowed { .. } => codes::SPOTS_NOT_ALLOWED,
        RuleError::StakeOutOfRange { .. } => codes::STAKE_OUT_OF_RANGE,
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

/// Every option's pay table, its paying cells only.
pub fn pay_tables() -> Vec<PayTable> {
    BetOption::ALL
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
        .collect()
}

/// A Powerball board or results entry broken by the rules, as a 422 problem with a stable code.
pub fn powerball_rule_error(e: &domain::powerball::RuleError) -> AppError {
    use domain::powerball::RuleError as Pb;
    let code = match e {
        Pb::WhiteCount(_) => codes::WHITE_COUNT,
        Pb::WhiteOutOfRange(_) => codes::WHITE_OUT_OF_RANGE,
        Pb::DuplicateWhite(_) => codes::DUPLICATE_WHITE,
        Pb::PowerballOutOfRange(_) => codes::POWERBALL_OUT_OF_RANGE,
        Pb::MultiplierNotInDrum(_) => codes::MULTIPLIER_NOT_IN_DRUM,
    };
    AppError::unprocessable(code, e.to_string())
}
