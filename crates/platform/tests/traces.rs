//! Trace context across an HTTP hop (issue 51), read back with the OpenTelemetry SDK's
//! in-memory exporter: a caller's request to one service, which calls another through
//! [`Upstream`] over a real socket, is one trace: the first service's server span is the
//! caller's child, its call (a client span) the server span's child, and the second service's
//! server span the call's child.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use axum::routing::get;
use opentelemetry::trace::SpanKind;
use opentelemetry_sdk::trace::InMemorySpanExporter;
use platform::http::{Limits, Readiness};
use platform::upstream::Upstream;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Serves `api` as every service is served (`platform::http::app`) on a free port.
async fn serve(api: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = platform::http::app(api, Readiness::default(), Limits::default());
    tokio::spawn(platform::http::serve(listener, app, std::future::pending()));
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_through_an_upstream_continues_the_callers_trace() {
    let exporter = InMemorySpanExporter::default();
    tracing_subscriber::registry()
        .with(platform::telemetry::traces::layer_exporting_to("traces-test", exporter.clone()))
        .init();
    let back = serve(Router::new().route("/hop", get(|| async { "from the back" }))).await;
    let upstream = Upstream::remote("back", &back, Duration::from_secs(5)).unwrap();
    let front = serve(Router::new().route(
        "/front",
        get(move || {
            let upstream = upstream.clone();
            async move {
                let request = Request::get("/hop").body(Body::empty()).unwrap();
                upstream.forward(request, 1 << 10).await.status().as_u16().to_string()
            }
        }),
    ))
    .await;

    let (trace, caller) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
    let answer = reqwest::Client::new()
        .get(format!("{front}/front"))
        .header("traceparent", format!("00-{trace}-{caller}-01"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.text().await.unwrap(), "200");
    platform::telemetry::traces::flush();

    let spans = exporter.get_finished_spans().unwrap();
    let find = |name: &str, kind: SpanKind| {
        spans
            .iter()
            .find(|s| s.name == name && s.span_kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} span {name}: {spans:#?}"))
    };
    let front_server = find("GET /front", SpanKind::Server);
    let call = find("back GET", SpanKind::Client);
    let back_server = find("GET /hop", SpanKind::Server);
    for span in [front_server, call, back_server] {
        assert_eq!(span.span_context.trace_id().to_string(), trace, "{span:#?}");
    }
    assert_eq!(front_server.parent_span_id.to_string(), caller);
    assert_eq!(call.parent_span_id, front_server.span_context.span_id());
    assert_eq!(back_server.parent_span_id, call.span_context.span_id());
}
