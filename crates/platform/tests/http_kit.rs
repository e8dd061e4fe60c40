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

/// A router whose handlers take text from the body, the path and the query.
fn echo_router() -> Router {
    use axum::routing::post;
    use serde_json::Value;
    async fn body(platform::Json(v): platform::Json<Value>) -> platform::Json<Value> {
        platform::Json(v)
    }
    async fn path(platform::Path(name): platform::Path<String>) -> String {
        name
    }
    async fn query(platform::Query(q): platform::Query<std::collections::HashMap<String, String>>) -> String {
        q.len().to_string()
    }
    async fn guarded() -> platform::AppError {
        platform::auth::unauthenticated(platform::codes::UNAUTHENTICATED, "send a token")
    }
    Router::new()
        .route("/body", post(body))
        .route("/path/{name}", get(path))
        .route("/query", get(query))
        .route("/guarded", post(guarded))
}

async fn status_and_code(request: Request<Body>) -> (StatusCode, String) {
    let response = echo_router().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
    let code = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v["code"].as_str().map(str::to_owned))
        .unwrap_or_default();
    (status, code)
}

fn post_json(body: &str) -> Request<Body> {
    Request::post("/body")
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

#[tokio::test]
async fn text_holding_a_nul_is_refused_at_the_edge_wherever_it_comes() {
    let refused = (StatusCode::UNPROCESSABLE_ENTITY, "nul_in_text".to_owned());
    for body in [
        r#"{"email": "a\u0000@b.c"}"#,
        r#"{"nested": [{"deep": "x\u0000"}]}"#,
        r#"{"key\u0000": 1}"#,
        r#"{"odd": "\\\u0000"}"#,
    ] {
        assert_eq!(status_and_code(post_json(body)).await, refused, "{body}");
    }
    // An escaped backslash followed by the letters u0000 is plain text.
    assert_eq!(status_and_code(post_json(r#"{"text": "\\u0000"}"#)).await.0, StatusCode::OK);
    assert_eq!(status_and_code(post_json(r#"{"text": "fine"}"#)).await.0, StatusCode::OK);
    let path = Request::get("/path/a%00b").body(Body::empty()).unwrap();
    assert_eq!(status_and_code(path).await, refused);
    let query = Request::get("/query?name=a%00").body(Body::empty()).unwrap();
    assert_eq!(status_and_code(query).await, refused);
    // Other malformed bodies keep their own problems.
    assert_eq!(status_and_code(post_json("{")).await.1, "malformed_json");
    let invalid_utf8 = Request::post("/body")
        .header("content-type", "application/json")
        .body(Body::from(b"{\"a\": \"\xff\"}".to_vec()))
        .unwrap();
    assert_eq!(status_and_code(invalid_utf8).await.1, "malformed_json");
    let text = Request::post("/body").header("content-type", "text/plain").body(Body::from("{}")).unwrap();
    assert_eq!(
        status_and_code(text).await,
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type".to_owned())
    );
    let vendor = Request::post("/body")
        .header("content-type", "application/merge-patch+json; charset=utf-8")
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(status_and_code(vendor).await.0, StatusCode::OK);
}

/// Sends `raw` on a connection of its own and answers what the server first writes back.
async fn exchange(addr: String, raw: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
    stream.write_all(raw.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(3), stream.read(&mut answer))
        .await
        .expect("no answer within 3 s")
        .unwrap();
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

/// Slow and oversized requests are cut off early over a real socket (issue 11, defect 8), and
/// every answer says `nosniff` (defect 9).
#[tokio::test]
async fn slow_and_oversized_requests_are_cut_off_before_any_handler() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = platform::http::app(echo_router(), Readiness::default(), Limits::default());
    let base = platform::testing::serve_on_loopback(app).await.unwrap();
    let addr = base.trim_start_matches("http://").to_owned();
    let exchange = |raw: String| exchange(addr.clone(), raw);
    // A declared 10 GB body: 413 at once, without a byte of it sent.
    let big = exchange(
        "POST /body HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10000000000\r\n\r\n".into(),
    )
    .await;
    assert!(big.starts_with("HTTP/1.1 413"), "{big}");
    assert!(big.contains("application/problem+json") && big.contains("body_too_large"), "{big}");
    // A long URI: 414 as a problem.
    let long = exchange(format!("GET /path/{} HTTP/1.1\r\nhost: x\r\n\r\n", "a".repeat(20_000))).await;
    assert!(long.starts_with("HTTP/1.1 414") && long.contains("uri_too_long"), "{long}");
    // Refused before its body is read: the answer closes the connection, so the unsent body is
    // never read as the next request (issue 32 §5).
    let early = exchange(
        "POST /guarded HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n"
            .into(),
    )
    .await;
    assert!(early.starts_with("HTTP/1.1 401"), "{early}");
    assert!(early.to_lowercase().contains("connection: close"), "{early}");
    let fine = exchange("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n".into()).await;
    assert!(
        fine.starts_with("HTTP/1.1 200") && fine.to_lowercase().contains("x-content-type-options: nosniff"),
        "{fine}"
    );

    // Slowloris: headers never finished; the connection is closed after the header timeout.
    let mut slow = tokio::net::TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-slow: ").await.unwrap();
    let started = std::time::Instant::now();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            match slow.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(read.is_ok(), "a connection that never finished its headers was still open after 15 s");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "closed before the timeout: {:?}",
        started.elapsed()
    );
}

/// A body that never finishes arriving is the client's delay, not the server's: 408 with a
/// problem and `Connection: close`, where it was 503 (issue 32 §5). A slow handler whose body has
/// all arrived is still 503.
#[tokio::test]
async fn a_body_that_never_finishes_gets_408_and_a_slow_handler_503() {
    async fn slow_after_body(platform::Json(_): platform::Json<serde_json::Value>) -> &'static str {
        tokio::time::sleep(Duration::from_secs(5)).await;
        "late"
    }
    let api = echo_router().route("/slow-body", axum::routing::post(slow_after_body));
    let limits = Limits { request_timeout: Duration::from_millis(300), ..Limits::default() };
    let base = platform::testing::serve_on_loopback(platform::http::app(api, Readiness::default(), limits))
        .await
        .unwrap();
    let addr = base.trim_start_matches("http://").to_owned();
    let exchange = |raw: &'static str| exchange(addr.clone(), raw.to_owned());
    // 100 bytes declared, 10 sent, then nothing.
    let stalled = exchange(
        "POST /body HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"a\": 1, ",
    )
    .await;
    assert!(stalled.starts_with("HTTP/1.1 408"), "{stalled}");
    assert!(stalled.contains("application/problem+json") && stalled.contains("body_timeout"), "{stalled}");
    assert!(stalled.to_lowercase().contains("connection: close"), "{stalled}");
    // The whole body sent, the handler slow: the server's delay.
    let slow = exchange(
        "POST /slow-body HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}",
    )
    .await;
    assert!(slow.starts_with("HTTP/1.1 503") && slow.contains("\"unavailable\""), "{slow}");
}

/// What hyper's parser refuses before any layer of ours runs (a control character in a header
/// value, a path of 64 KiB or more, a header block past its buffer) is answered with a problem
/// too, not a bare head (issue 32 §5), and the connection still closes.
#[tokio::test]
async fn requests_hyper_refuses_before_they_exist_are_answered_with_problems() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = platform::http::app(echo_router(), Readiness::default(), Limits::default());
    let base = platform::testing::serve_on_loopback(app).await.unwrap();
    let addr = base.trim_start_matches("http://").to_owned();
    for (raw, status, code) in [
        (
            b"POST /body HTTP/1.1\r\nhost: x\r\nidempotency-key: a\x01b\r\ncontent-length: 2\r\n\r\n{}"
                .to_vec(),
            400,
            "malformed_request",
        ),
        (
            [b"GET /path/".as_slice(), &[b'a'; 70_000], b" HTTP/1.1\r\nhost: x\r\n\r\n"].concat(),
            414,
            "uri_too_long",
        ),
        (
            [b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ".as_slice(), &[b'a'; 500_000], b"\r\n\r\n"]
                .concat(),
            431,
            "headers_too_large",
        ),
    ] {
        let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        // The server may answer and close before all of a large request is written.
        let _ = stream.write_all(&raw).await;
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert!(answer.starts_with(&format!("HTTP/1.1 {status} ")), "{answer}");
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("content-type: application/problem+json"), "{answer}");
        let problem: Problem = serde_json::from_str(body).unwrap();
        assert_eq!((problem.status, problem.code.as_str()), (status, code), "{answer}");
        assert!(head.contains("connection: close"), "{answer}");
    }
}

/// Issue 47 §5: made-up methods and random paths do not make new series. Fifty requests with
/// methods nobody defined and paths nobody routes add at most the one `other` and `unmatched`
/// series per status, however many are sent.
#[tokio::test]
async fn made_up_methods_and_paths_do_not_grow_the_metrics() {
    let api = Router::new().route("/known", get(|| async { "yes" }));
    let app = platform::http::app(api, Readiness::default(), Limits::default());
    let series = || async {
        let metrics = platform::testing::send(
            &platform::http::metrics_app(),
            Request::get("/metrics").body(Body::empty()).unwrap(),
        )
        .await;
        let text = metrics.body.as_str().unwrap_or_default().to_owned();
        text.lines().filter(|l| l.starts_with("http_requests_total{")).map(str::to_owned).collect::<Vec<_>>()
    };
    let send = |method: String, path: String| {
        let app = app.clone();
        async move {
            let request = Request::builder().method(method.as_str()).uri(path).body(Body::empty()).unwrap();
            app.oneshot(request).await.unwrap().status()
        }
    };
    // One of each kind first, so the series they make exist.
    send("GET".into(), "/known".into()).await;
    send("BREW".into(), "/known".into()).await;
    send("GET".into(), "/nowhere".into()).await;
    send("BREW".into(), "/nowhere".into()).await;
    let before = series().await.len();
    assert!(before >= 3, "the requests above are counted");
    for i in 0..50 {
        let random = uuid::Uuid::new_v4().simple().to_string().to_uppercase();
        let method = format!("X{}", &random[..8]);
        let path = if i % 2 == 0 { "/known".to_owned() } else { format!("/random/{}", &random[8..]) };
        let status = send(method, path).await;
        assert!(status.is_client_error(), "{status}");
    }
    let after = series().await;
    assert_eq!(after.len(), before, "{after:#?}");
    assert!(after.iter().all(|l| !l.contains("method=\"B") || l.contains("method=\"other\"")), "{after:#?}");
}

/// Issue 47 §5: an answer refused at the door before a request's body was read (a 401 here)
/// reaches a client that sent its whole body at once: the server reads the body before it
/// answers, instead of closing with the body unread in its socket, which made the kernel reset
/// the connection and could lose the answer (two connections of an authorization sweep were
/// closed without one). A body larger than the sockets' buffers makes the loss certain before.
#[tokio::test]
async fn an_early_refusal_reaches_a_client_that_sent_its_whole_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = platform::http::app(echo_router(), Readiness::default(), Limits::default());
    let base = platform::testing::serve_on_loopback(app).await.unwrap();
    let addr = base.trim_start_matches("http://").to_owned();
    let body = format!("{{\"pad\": \"{}\"}}", "x".repeat(900_000));
    for _ in 0..5 {
        let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /guarded HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.expect("the body was refused mid-way (connection reset)");
        let mut answer = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
            .await
            .expect("no answer within 5 s")
            .expect("the connection was reset without an answer");
        let answer = String::from_utf8_lossy(&answer[..n]).into_owned();
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        // The body was read, so the connection may serve the next request.
        assert!(!answer.to_lowercase().contains("connection: close"), "{answer}");
    }
}
