//! The service client against a real HTTP server: retries only what is safe, parses problems.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use platform::AppError;
use platform::client::{ClientError, Retry, ServiceClient};
use platform::http::{Limits, Readiness};
use serde_json::{Value, json};

/// Answers 503 to the first two calls of each route, then succeeds.
async fn flaky(State(calls): State<Arc<AtomicUsize>>) -> Result<platform::Json<Value>, AppError> {
    let n = calls.fetch_add(1, Ordering::SeqCst);
    if n < 2 { Err(AppError::unavailable("warming up")) } else { Ok(platform::Json(json!({"calls": n + 1}))) }
}

async fn refuse() -> AppError {
    AppError::unprocessable(platform::codes::INSUFFICIENT_FUNDS, "balance too low")
}

async fn serve(calls: Arc<AtomicUsize>) -> String {
    let api = Router::new()
        .route("/flaky", get(flaky).post(flaky))
        .route("/refuse", post(refuse))
        .with_state(calls);
    let app = platform::http::app(api, Readiness::default(), Limits::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(platform::http::serve(listener, app, std::future::pending()));
    format!("http://{addr}")
}

fn client(base: &str) -> ServiceClient {
    ServiceClient::with_timeout(base, Duration::from_secs(2))
        .unwrap()
        .with_retries(3, Duration::from_millis(5))
}

#[tokio::test]
async fn safe_calls_are_retried_through_passing_failures() {
    let calls = Arc::new(AtomicUsize::new(0));
    let base = serve(Arc::clone(&calls)).await;
    let answer: Value = client(&base).get("/flaky").await.unwrap();
    assert_eq!(answer["calls"], 3);
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn unsafe_calls_are_sent_once() {
    let calls = Arc::new(AtomicUsize::new(0));
    let base = serve(Arc::clone(&calls)).await;
    let err = client(&base).post::<_, Value>("/flaky", &json!({}), Retry::Never).await.unwrap_err();
    assert_eq!(err.code(), Some("unavailable"));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn refusals_arrive_as_problems_and_are_not_retried() {
    let base = serve(Arc::new(AtomicUsize::new(0))).await;
    let err = client(&base).post::<_, Value>("/refuse", &json!({}), Retry::Safe).await.unwrap_err();
    match err {
        ClientError::Problem { status, problem } => {
            assert_eq!(status.as_u16(), 422);
            assert_eq!(
                (problem.code.as_str(), problem.detail.as_str()),
                ("insufficient_funds", "balance too low")
            );
        }
        other => panic!("expected a problem, got {other:?}"),
    }
}

#[tokio::test]
async fn a_dead_service_is_a_transport_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = client(&format!("http://127.0.0.1:{port}")).get::<Value>("/x").await.unwrap_err();
    assert!(matches!(err, ClientError::Transport(_)), "{err:?}");
}

#[tokio::test]
async fn a_request_id_is_assigned_and_echoed() {
    let base = serve(Arc::new(AtomicUsize::new(0))).await;
    let http = reqwest::Client::new();
    let assigned = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert!(assigned.headers().contains_key("x-request-id"));
    let echoed =
        http.get(format!("{base}/healthz")).header("x-request-id", "trace-me-42").send().await.unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "trace-me-42");
}

/// Echoes the Idempotency-Key it received, failing the first call as a lost answer would.
async fn keyed(
    State(calls): State<Arc<AtomicUsize>>,
    key: platform::IdempotencyKey,
) -> Result<platform::Json<Value>, AppError> {
    if calls.fetch_add(1, Ordering::SeqCst) == 0 {
        return Err(AppError::unavailable("lost"));
    }
    Ok(platform::Json(json!({ "key": key.0 })))
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_sends_it_and_is_retried() {
    let calls = Arc::new(AtomicUsize::new(0));
    let api = Router::new().route("/keyed", post(keyed)).with_state(Arc::clone(&calls));
    let app = platform::http::app(api, Readiness::default(), Limits::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(platform::http::serve(listener, app, std::future::pending()));
    let answer: Value = client(&base).post_idempotent("/keyed", "wager-7", &json!({})).await.unwrap();
    assert_eq!(answer["key"], "wager-7");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
