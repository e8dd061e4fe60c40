//! The shared HTTP middleware, without a socket: timeouts, panics and unknown routes become problems.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::get;
use platform::Problem;
use platform::http::{Limits, Readiness};
use tower::ServiceExt;

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(5)).await;
    "late"
}

async fn broken() -> &'static str {
    panic!("a bug")
}

async fn call(path: &str) -> (StatusCode, Problem) {
    let api = Router::new().route("/slow", get(slow)).route("/broken", get(broken));
    let limits = Limits { request_timeout: Duration::from_millis(50), ..Limits::default() };
    let app = platform::http::app(api, Readiness::default(), limits);
    let response = app.oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn a_request_past_its_deadline_gets_a_503_problem() {
    let (status, problem) = call("/slow").await;
    assert_eq!((status, problem.code.as_str()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"));
}

#[tokio::test]
async fn a_panicking_handler_gets_a_500_problem_not_a_dropped_connection() {
    let (status, problem) = call("/broken").await;
    assert_eq!((status, problem.code.as_str()), (StatusCode::INTERNAL_SERVER_ERROR, "internal"));
    assert!(!problem.detail.contains("a bug"));
}

#[tokio::test]
async fn an_unknown_route_gets_a_404_problem() {
    let (status, problem) = call("/v1/nowhere").await;
    assert_eq!((status, problem.code.as_str()), (StatusCode::NOT_FOUND, "route_not_found"));
}
