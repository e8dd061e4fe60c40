//! The significant-events log on the wire ([`crate::saga::events`], ADR 0019).

use chrono::{DateTime, Utc};
use platform::events::Kind;
use platform::events::export::{FileCheck, Format};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `GET /v1/events`: which events. Every filter narrows; none lists the whole log.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// About this player.
    pub player: Option<Uuid>,
    /// About this retailer.
    pub retailer: Option<Uuid>,
    /// About this terminal (its id).
    #[param(min_length = 1, max_length = 200)]
    pub terminal: Option<String>,
    /// About this drawing: `keno:<draw number>` or `powerball:<YYYY-MM-DD>`.
    #[param(min_length = 1, max_length = 200)]
    pub drawing: Option<String>,
    /// Done by this member of staff (their id).
    #[param(min_length = 1, max_length = 200)]
    pub staff: Option<String>,
    /// Of this kind.
    pub kind: Option<Kind>,
    /// That happened at or after this time (RFC 3339)...
    pub from: Option<DateTime<Utc>>,
    /// ...and before this one.
    pub to: Option<DateTime<Utc>>,
    /// The `next` cursor of the previous page (the last event's `seq`).
    #[param(schema_with = platform::page::after_schema::<i64>)]
    pub after: Option<String>,
    /// Page size, 1 to 500 (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// `GET /v1/events/export`: every event recorded in a period, for a regulator to keep.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// Events recorded at or after this time (RFC 3339)...
    pub from: DateTime<Utc>,
    /// ...and before this one. Any length: the export is streamed.
    pub to: DateTime<Utc>,
    /// `jsonl` (the default: a header line, then one event a line; what `lotto verify-events`
    /// checks) or `csv`.
    pub format: Option<Format>,
}

/// `GET /v1/events/chain`: where to walk from.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ChainQuery {
    /// Go on after this event (the `head_seq` of a walk that stopped at its limit).
    #[param(schema_with = platform::page::after_schema::<i64>)]
    pub after: Option<String>,
}

/// An export checked: the file on its own, and against the chain here.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ExportCheckView {
    pub file: FileCheck,
    /// True when the file is intact and its ends are the chain's own events here (the hash
    /// before its first and the hash of its last); false when either differs or is not here.
    pub matches_chain: bool,
    /// What the comparison with the chain found, in words.
    pub chain: String,
}
