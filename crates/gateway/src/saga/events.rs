//! The significant-events log as regulators and operators read it (issue 50, ADR 0019): found
//! by subject, kind and period; exported, streamed, for a period; its chain walked; an export
//! checked against it. Every service writes the log ([`platform::events`]); the gateway reads it.

use chrono::{DateTime, Utc};
use platform::events::chain::{self, LogCheck, RecordedEvent};
use platform::events::export::{self, FileCheck, Header};
use platform::events::query::{self, Filter};
use platform::{AppError, codes};

use crate::GatewayState;
use crate::views::events::ExportCheckView;

/// Events a request's chain walk checks at most: about three seconds here.
pub(crate) const WALK_PER_REQUEST: i64 = 100_000;

/// A page of events matching `filter`, after `after`.
pub(crate) async fn find(
    state: &GatewayState,
    filter: &Filter,
    after: i64,
    limit: i64,
) -> Result<Vec<RecordedEvent>, AppError> {
    checked_period(filter.from, filter.to)?;
    // The contract's 1 to 200 characters for the names a filter gives.
    for (name, value) in
        [("terminal", &filter.terminal), ("drawing", &filter.drawing), ("staff", &filter.staff)]
    {
        if value.as_deref().is_some_and(|v| !(1..=200).contains(&v.chars().count())) {
            return Err(AppError::bad_request(
                codes::INVALID_QUERY,
                format!("`{name}` is 1 to 200 characters"),
            ));
        }
    }
    query::find(&state.pool, filter, after, limit).await
}

/// Refuses a period that ends before it starts.
fn checked_period(from: Option<DateTime<Utc>>, to: Option<DateTime<Utc>>) -> Result<(), AppError> {
    match (from, to) {
        (Some(from), Some(to)) if from >= to => {
            Err(AppError::unprocessable(codes::INVALID_PERIOD, "a period's from is before its to"))
        }
        _ => Ok(()),
    }
}

/// The range an export of `[from, to)` covers, with the chain's hashes at its ends.
pub(crate) async fn plan_export(
    state: &GatewayState,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Header, AppError> {
    checked_period(Some(from), Some(to))?;
    export::plan(&state.pool, from, to).await
}

/// The chain walked, from its start or after `after`, [`WALK_PER_REQUEST`] events at most.
pub(crate) async fn check_chain(state: &GatewayState, after: Option<i64>) -> Result<LogCheck, AppError> {
    chain::verify_part(&state.pool, after, WALK_PER_REQUEST).await
}

/// An export (JSON lines) checked on its own and against the chain here.
pub(crate) async fn check_export(
    state: &GatewayState,
    body: Option<&[u8]>,
) -> Result<ExportCheckView, AppError> {
    // An empty file is checked (it holds no events); no body at all is refused.
    let body = body.ok_or_else(|| {
        AppError::bad_request(codes::INVALID_BODY, "the body is the export file (JSON lines): none was sent")
    })?;
    let file = export::check_jsonl(body).map_err(AppError::internal)?;
    let (matches_chain, chain) = against_chain(state, &file).await?;
    Ok(ExportCheckView { file, matches_chain, chain })
}

/// Whether `file`'s ends are the chain's here.
async fn against_chain(state: &GatewayState, file: &FileCheck) -> Result<(bool, String), AppError> {
    if !file.intact {
        return Ok((false, "the file is not intact, so it was not compared".to_owned()));
    }
    let (Some(first), Some(last)) = (file.first_seq, file.last_seq) else {
        return Ok((false, "the file holds no events to compare".to_owned()));
    };
    let ends = query::ends(&state.pool, first, last).await?;
    Ok(match ends {
        None => (false, format!("events {first} and {last} are not both in the log here (archived?)")),
        Some((prev, hash))
            if Some(prev.as_str()) == file.prev_hash.as_deref()
                && Some(hash.as_str()) == file.last_hash.as_deref() =>
        {
            (true, format!("events {first} to {last} are the chain's, unaltered"))
        }
        Some(_) => (false, format!("events {first} to {last} differ from the chain's")),
    })
}
