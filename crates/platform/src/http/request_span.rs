//! The span each request a service answers runs in (issue 51).

use axum::extract::{MatchedPath, Request};
use tower_http::request_id::RequestId;

use super::method_label;

/// The span of one request a service answers (its trace's server span): the route template,
/// never the path (a path may hold a ticket's serial), the request id, and, once known, the
/// caller ([`crate::auth::Caller`]), which every log line written while it runs carries; the
/// access line adds the status and the latency. A caller's `traceparent` makes it the child of the caller's span.
pub(super) fn request_span(req: &Request) -> tracing::Span {
    use tracing::field::Empty;
    let request_id = req.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok());
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", MatchedPath::as_str);
    let method = method_label(req.method());
    let span = tracing::info_span!(
        "http",
        otel.name = format!("{method} {route}"),
        otel.kind = "server",
        otel.status_code = Empty,
        method,
        route,
        request_id,
        trace_id = Empty,
        caller_kind = Empty,
        caller_id = Empty,
    );
    crate::telemetry::traces::adopt_parent(&span, req.headers());
    if let Some(trace_id) = crate::telemetry::traces::trace_id(&span) {
        span.record("trace_id", trace_id);
    }
    span
}
