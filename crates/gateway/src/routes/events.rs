//! The significant-events log ([`crate::saga::events`]): operators and auditors find, export
//! and check it.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use ledger_api::wire::Page;
use platform::auth::Role;
use platform::events::chain::{LogCheck, RecordedEvent};
use platform::events::export::{self, Format};
use platform::events::query::Filter;
use platform::openapi::Refused;
use platform::page::PageParams;
use platform::{AppError, Json, Query};

use crate::GatewayState;
use crate::auth::Authenticated;
use crate::saga::events as saga;
use crate::views::events::{ChainQuery, EventsQuery, ExportCheckView, ExportQuery};

const READERS: &[Role] = &[Role::Operator, Role::Auditor];

/// `GET /v1/events?player=&retailer=&terminal=&drawing=&staff=&kind=&from=&to=&after=&limit=`:
/// the events matching, in the chain's order.
#[utoipa::path(
    get, path = "/v1/events", operation_id = "list_events", tag = "records", params(EventsQuery),
    responses((status = 200, description = "a page of events, in the chain's order", body = Page<RecordedEvent>), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn list(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<EventsQuery>,
) -> Result<Json<Page<RecordedEvent>>, AppError> {
    caller.require(READERS)?;
    let page = PageParams::<i64>::new(query.after, query.limit);
    let (after, limit) = (page.after()?, page.limit()?);
    let filter = Filter {
        player: query.player,
        retailer: query.retailer,
        terminal: query.terminal,
        drawing: query.drawing,
        staff: query.staff,
        kind: query.kind,
        from: query.from,
        to: query.to,
    };
    let items = saga::find(&state, &filter, after.unwrap_or(0), limit).await?;
    let next = page.next_cursor(items.len(), items.last().map(|e| e.seq));
    Ok(Json(Page { items, next }))
}

/// `GET /v1/events/export?from=&to=&format=jsonl|csv`: every event recorded in the period,
/// streamed. A JSON-lines export begins with its range and the chain's hashes at both ends (the
/// CSV's are in the `X-Events-*` headers); `lotto verify-events` or `POST /v1/events/export-check`
/// proves it complete and unaltered.
#[utoipa::path(
    get, path = "/v1/events/export", operation_id = "export_events", tag = "records", params(ExportQuery),
    responses((status = 200, description = "the export, streamed", content(
                  (String = "application/jsonl"), (String = "text/csv"))),
              (status = "4XX", response = Refused)),
    security(("bearer" = []))
)]
pub async fn export(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<ExportQuery>,
) -> Result<Response, AppError> {
    caller.require(READERS)?;
    let format = query.format.unwrap_or(Format::Jsonl);
    let header = saga::plan_export(&state, query.from, query.to).await?;
    let extension = match format {
        Format::Jsonl => "jsonl",
        Format::Csv => "csv",
    };
    let name = format!(
        "attachment; filename=\"events-{}-{}.{extension}\"",
        query.from.format("%Y%m%dT%H%M%SZ"),
        query.to.format("%Y%m%dT%H%M%SZ")
    );
    let seq = |s: Option<i64>| s.map(|s| s.to_string()).unwrap_or_default();
    let headers = [
        (header::CONTENT_TYPE, format.content_type().to_owned()),
        (header::CONTENT_DISPOSITION, name),
        (header::HeaderName::from_static("x-events-count"), header.events.to_string()),
        (header::HeaderName::from_static("x-events-first-seq"), seq(header.first_seq)),
        (header::HeaderName::from_static("x-events-last-seq"), seq(header.last_seq)),
        (header::HeaderName::from_static("x-events-prev-hash"), header.prev_hash.clone()),
        (header::HeaderName::from_static("x-events-last-hash"), header.last_hash.clone()),
    ];
    let body = Body::from_stream(export::stream(state.pool.clone(), &header, format));
    Ok((headers, body).into_response())
}

/// `GET /v1/events/chain?after=`: the chain walked and every hash recomputed, from its first
/// event kept (or after `after`), 100,000 events a request (`complete` false: go on after
/// `head_seq`).
#[utoipa::path(
    get, path = "/v1/events/chain", operation_id = "check_event_chain", tag = "records", params(ChainQuery),
    responses((status = 200, description = "what the walk found", body = LogCheck), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn chain(
    State(state): State<GatewayState>,
    caller: Authenticated,
    Query(query): Query<ChainQuery>,
) -> Result<Json<LogCheck>, AppError> {
    caller.require(READERS)?;
    let after = PageParams::<i64>::new(query.after, None).after()?;
    Ok(Json(saga::check_chain(&state, after).await?))
}

/// `POST /v1/events/export-check`: a JSON-lines export (the body, up to the body limit; larger
/// ones with `lotto verify-events`) checked on its own and against the chain here.
#[utoipa::path(
    post, path = "/v1/events/export-check", operation_id = "check_event_export", tag = "records",
    request_body(content = String, content_type = "application/octet-stream", description = "a JSON-lines export of the log, as the file it was saved to (any content type is read as its bytes)"),
    responses((status = 200, description = "what the check found", body = ExportCheckView), (status = "4XX", response = Refused)), security(("bearer" = []))
)]
pub async fn check_export(
    State(state): State<GatewayState>,
    caller: Authenticated,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<Json<ExportCheckView>, AppError> {
    caller.require(READERS)?;
    // A body is sent with its type (an empty file too); a request with neither sent none.
    let sent = !body.is_empty() || headers.contains_key(header::CONTENT_TYPE);
    Ok(Json(saga::check_export(&state, sent.then_some(&body[..])).await?))
}
