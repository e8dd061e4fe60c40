//! Browsers on other origins (issue 15): a preflight from an allowed origin is answered with what
//! the API accepts and shows, and an allowed answer is marked for that origin; an origin not
//! allowed gets no CORS header, and with no origin allowed (the gateway's default) none at all.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::TestGateway;
use gateway::cors::CorsOrigins;
use platform::http::Limits;

fn preflight(path: &str, origin: &str) -> Request<Body> {
    Request::builder()
        .method("OPTIONS")
        .uri(path)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type, idempotency-key")
        .body(Body::empty())
        .unwrap()
}

fn get_from(path: &str, origin: &str) -> Request<Body> {
    Request::builder().uri(path).header("origin", origin).body(Body::empty()).unwrap()
}

#[tokio::test]
async fn allowed_origins_get_their_preflight_answered_and_others_get_nothing() {
    let gw = TestGateway::new().await;
    let with = |cors: CorsOrigins| {
        let mut state = gw.state.clone();
        state.cors = cors;
        gateway::router(state, Limits::default())
    };
    let send = |router: axum::Router, request| async move { platform::testing::send(&router, request).await };

    // `local`: a dev server on this machine, any port.
    let local = with(CorsOrigins::Local);
    let answered = send(local.clone(), preflight("/v1/keno/tickets", "http://localhost:5173")).await;
    assert!(answered.status.is_success(), "{} {:?}", answered.status, answered.headers);
    let header = |name: &str| answered.headers.get(name).map(|v| v.to_str().unwrap().to_lowercase());
    assert_eq!(header("access-control-allow-origin").as_deref(), Some("http://localhost:5173"));
    let allowed = header("access-control-allow-headers").unwrap();
    for wanted in ["authorization", "content-type", "idempotency-key"] {
        assert!(allowed.contains(wanted), "{allowed}");
    }
    assert!(header("access-control-allow-methods").unwrap().contains("post"));
    // An answer the browser may read, with the headers a client needs.
    let paytables = send(local.clone(), get_from("/v1/keno/paytables", "http://127.0.0.1:3000")).await;
    assert_eq!(paytables.status, StatusCode::OK);
    assert_eq!(paytables.headers["access-control-allow-origin"], "http://127.0.0.1:3000");
    let exposed = paytables.headers["access-control-expose-headers"].to_str().unwrap().to_lowercase();
    for wanted in ["idempotent-replayed", "location", "retry-after", "x-request-id"] {
        assert!(exposed.contains(wanted), "{exposed}");
    }
    // A problem answered to an allowed origin is readable too.
    let refused = send(local.clone(), get_from("/v1/me/wallet", "http://localhost:5173")).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.headers["access-control-allow-origin"], "http://localhost:5173");
    // Another machine is not local.
    let elsewhere = send(local, get_from("/v1/keno/paytables", "https://evil.example.com")).await;
    assert!(!elsewhere.headers.contains_key("access-control-allow-origin"));

    // A list: exactly those origins.
    let listed = with(CorsOrigins::parse("https://play.example.com").unwrap());
    let ok = send(listed.clone(), preflight("/v1/me/deposits", "https://play.example.com")).await;
    assert_eq!(ok.headers["access-control-allow-origin"], "https://play.example.com");
    let other = send(listed, preflight("/v1/me/deposits", "http://localhost:5173")).await;
    assert!(!other.headers.contains_key("access-control-allow-origin"));

    // None (the gateway's default): no CORS header anywhere.
    let none = send(gw.router.clone(), get_from("/v1/keno/paytables", "http://localhost:5173")).await;
    assert_eq!(none.status, StatusCode::OK);
    assert!(!none.headers.contains_key("access-control-allow-origin"));
}
