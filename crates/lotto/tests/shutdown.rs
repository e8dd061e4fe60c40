//! Shutting down with streams open (issue 32 §5): `lotto`, with a thousand live-results streams
//! open, ends them with a hint to reconnect and exits within five seconds of SIGTERM (the
//! Kubernetes grace period is 30); a stream past the process's cap, or past a client address's
//! share, is refused, not held.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::time::{Duration, Instant};

use common::Lotto;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Opens `GET /v1/draws/live` on a socket of its own; answers it with the status line read.
async fn open_stream(addr: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET /v1/draws/live HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await.unwrap() == 0 {
            break;
        }
        head.push(byte[0]);
    }
    let status = String::from_utf8_lossy(&head).lines().next().unwrap_or("").to_owned();
    (stream, status)
}

#[tokio::test]
async fn sigterm_ends_a_thousand_streams_with_a_retry_hint_and_exits_within_five_seconds() {
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url),
            ("LOTTO_MAX_STREAMS", "1000".to_owned()),
            // This test's thousand streams come from one address.
            ("LOTTO_MAX_STREAMS_PER_ADDRESS", "2000".to_owned()),
        ],
        Duration::from_secs(60),
    );
    let addr = lotto.base_url.trim_start_matches("http://").to_owned();
    let mut streams = Vec::new();
    for batch in 0..10 {
        let opened = futures_util::future::join_all((0..100).map(|_| open_stream(&addr))).await;
        for (stream, status) in opened {
            assert!(status.contains(" 200 "), "stream of batch {batch}: {status}");
            streams.push(stream);
        }
    }
    // The thousand-and-first is refused, saying when to come back.
    let (_, refused) = open_stream(&addr).await;
    assert!(refused.contains(" 503 "), "{refused}");

    let started = Instant::now();
    let said = tokio::task::spawn_blocking(move || lotto.terminate()).await.unwrap();
    let took = started.elapsed();
    println!("lotto exited {:.2} s after SIGTERM with 1,000 streams open", took.as_secs_f64());
    assert!(said.iter().any(|l| l == "lotto: stopped"), "{said:?}");
    assert!(took < Duration::from_secs(5), "exited {took:?} after SIGTERM");
    // Each stream was ended with the hint to reconnect in a second.
    for stream in streams.iter_mut().take(50) {
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut rest)).await;
        let text = String::from_utf8_lossy(&rest);
        assert!(text.contains("event: reconnect") && text.contains("retry: 1000"), "{text}");
    }
}

/// One client address holds at most its share of streams (`LOTTO_MAX_STREAMS_PER_ADDRESS`): the
/// next is refused with 429 and a problem, and a stream its client closes gives its place back
/// (issue 32 §5: 1,500 anonymous streams from one address were accepted).
#[tokio::test]
async fn one_address_holds_at_most_its_share_of_streams() {
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(
        &[("DATABASE_URL", url), ("LOTTO_MAX_STREAMS_PER_ADDRESS", "3".to_owned())],
        Duration::from_secs(60),
    );
    let addr = lotto.base_url.trim_start_matches("http://").to_owned();
    let mut streams = Vec::new();
    for _ in 0..3 {
        let (stream, status) = open_stream(&addr).await;
        assert!(status.contains(" 200 "), "{status}");
        streams.push(stream);
    }
    let (mut refused, status) = open_stream(&addr).await;
    assert!(status.contains(" 429 "), "{status}");
    let mut body = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), refused.read_to_end(&mut body)).await;
    assert!(
        String::from_utf8_lossy(&body).contains("too_many_streams"),
        "{}",
        String::from_utf8_lossy(&body)
    );
    // A client that leaves frees its place once the server sees it gone.
    drop(streams.pop());
    let mut reopened = None;
    for _ in 0..50 {
        let (stream, status) = open_stream(&addr).await;
        if status.contains(" 200 ") {
            reopened = Some(stream);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reopened.is_some(), "the place of a closed stream was not given back within 5 s");
    drop(streams);
    drop(lotto);
}
