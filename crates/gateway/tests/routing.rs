//! The gateway in front of a ledger in another process (a real socket): requests pass through
//! with their request id, and a ledger that is down or hangs gives a 503 problem, not a hang.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use gateway::GatewayState;
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::http::Limits;
use platform::upstream::Upstream;
use tower::ServiceExt;

async fn gateway_to(ledger_url: &str, tokens: &TokenKeys, timeout: Duration) -> axum::Router {
    let url = platform::testing::fresh_database().await.unwrap();
    let config = Config::default();
    let pool = gateway::connect(&url, &config).await.unwrap();
    let upstream = Upstream::remote("ledger", ledger_url, timeout).unwrap();
    let state =
        GatewayState::new(pool, tokens.clone(), upstream, &config, &gateway::GatewaySettings::default());
    gateway::router(state, Limits::default())
}

async fn get(
    router: &axum::Router,
    path: &str,
    token: &str,
) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
    let request = Request::get(path)
        .header("authorization", format!("Bearer {token}"))
        .header("x-request-id", "trace-42")
        .body(Body::empty())
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, headers, serde_json::from_slice(&bytes).unwrap_or_default())
}

#[tokio::test]
async fn requests_reach_a_remote_ledger_with_their_request_id() {
    let tokens = TokenKeys::random();
    let url = platform::testing::fresh_database().await.unwrap();
    let pool = ledger::connect(&url, &Config::default()).await.unwrap();
    let ledger = ledger::router(ledger::LedgerState::new(pool, tokens.clone()), Limits::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(platform::http::serve(listener, ledger, std::future::pending()));

    let router = gateway_to(&base, &tokens, Duration::from_secs(5)).await;
    let service = tokens.service_token("tests").unwrap();
    let (status, headers, body) = get(&router, "/v1/reports/trial-balance", &service).await;
    assert_eq!((status, body["balanced"].clone()), (StatusCode::OK, serde_json::json!(true)));
    assert_eq!(headers["x-request-id"], "trace-42");
    // The ledger's own refusals come back as they are.
    let (status, _, body) = get(&router, "/v1/accounts/not-a-uuid", &service).await;
    assert_eq!((status, body["code"].clone()), (StatusCode::BAD_REQUEST, serde_json::json!("invalid_path")));
}

#[tokio::test]
async fn a_ledger_that_is_down_is_a_503_problem() {
    let tokens = TokenKeys::random();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let router = gateway_to(&format!("http://{closed}"), &tokens, Duration::from_secs(5)).await;
    let (status, headers, body) =
        get(&router, "/v1/reports/trial-balance", &tokens.service_token("t").unwrap()).await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::SERVICE_UNAVAILABLE, serde_json::json!("upstream_unavailable"))
    );
    assert_eq!(headers["retry-after"], "1");
}

#[tokio::test]
async fn a_ledger_that_hangs_is_a_503_problem_after_the_timeout() {
    let tokens = TokenKeys::random();
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let router = gateway_to(&format!("http://{addr}"), &tokens, Duration::from_millis(300)).await;
    let started = Instant::now();
    let (status, _, body) =
        get(&router, "/v1/reports/trial-balance", &tokens.service_token("t").unwrap()).await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::SERVICE_UNAVAILABLE, serde_json::json!("upstream_unavailable"))
    );
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}
