//! A service reached through a load balancer over a real socket: what the balancer says when the
//! replica it chose died with the request (a 502 page, not a problem) and an answer cut off
//! midway are both "not answering" (503, retry with the same key), never an internal error.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::http::{Method, StatusCode};
use platform::upstream::Upstream;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server that answers every connection with `answer`, byte for byte, and closes it.
async fn answering(answer: &'static str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0_u8; 4096];
            let _ = socket.read(&mut request).await.unwrap();
            socket.write_all(answer.as_bytes()).await.unwrap();
            socket.shutdown().await.unwrap();
        }
    });
    base
}

async fn call(answer: &'static str) -> (StatusCode, String) {
    let upstream = Upstream::remote("ledger", &answering(answer).await, Duration::from_secs(5)).unwrap();
    let body = serde_json::json!({"amount": 1});
    let err = upstream
        .call::<_, serde_json::Value>(Method::POST, "/v1/transfers", "token", Some(&body), Some("key-1"))
        .await
        .unwrap_err();
    (err.status(), err.code().to_owned())
}

const BALANCER_502: &str = "HTTP/1.1 502 Bad Gateway\r\ncontent-length: 107\r\ncache-control: no-cache\r\n\
    content-type: text/html\r\nconnection: close\r\n\r\n\
    <html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n";

#[tokio::test]
async fn a_balancers_502_page_is_a_503_problem() {
    assert_eq!(BALANCER_502.split("\r\n\r\n").nth(1).unwrap().len(), 107);
    assert_eq!(
        call(BALANCER_502).await,
        (StatusCode::SERVICE_UNAVAILABLE, "upstream_unavailable".to_owned())
    );
}

#[tokio::test]
async fn a_balancers_504_page_is_a_503_problem() {
    let answer = "HTTP/1.1 504 Gateway Time-out\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
    assert_eq!(call(answer).await, (StatusCode::SERVICE_UNAVAILABLE, "upstream_unavailable".to_owned()));
}

#[tokio::test]
async fn an_answer_cut_off_midway_is_a_503_problem() {
    let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"id\":";
    assert_eq!(call(answer).await, (StatusCode::SERVICE_UNAVAILABLE, "upstream_unavailable".to_owned()));
}

#[tokio::test]
async fn a_500_without_a_problem_stays_an_internal_error() {
    let answer = "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\nconnection: close\r\n\r\noops";
    assert_eq!(call(answer).await, (StatusCode::INTERNAL_SERVER_ERROR, "internal".to_owned()));
}

/// What a request passed through as it is (the gateway's hop) comes back as.
async fn forwarded(answer: &'static str) -> (StatusCode, Option<String>, serde_json::Value) {
    let upstream = Upstream::remote("ledger", &answering(answer).await, Duration::from_secs(5)).unwrap();
    let request = axum::http::Request::get("/v1/accounts").body(axum::body::Body::empty()).unwrap();
    let response = upstream.forward(request, 1 << 16).await;
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
    let retry_after = headers.get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    (status, retry_after, serde_json::from_slice(&bytes).unwrap_or_default())
}

#[tokio::test]
async fn a_balancers_502_page_passed_through_becomes_the_platforms_503_problem() {
    let (status, retry_after, body) = forwarded(BALANCER_502).await;
    assert_eq!((status, retry_after.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("1")));
    assert_eq!(body["code"], "upstream_unavailable");
}

#[tokio::test]
async fn a_services_own_503_problem_passes_through_as_it_is() {
    let answer = "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\n\
        content-length: 17\r\nconnection: close\r\n\r\n{\"code\":\"custom\"}";
    let (status, retry_after, body) = forwarded(answer).await;
    assert_eq!(
        (status, retry_after, body["code"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, None, Some("custom"))
    );
}
