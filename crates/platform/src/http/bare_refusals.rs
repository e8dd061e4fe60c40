//! hyper's own refusals, given the problem+json body every other refusal has (issue 32 §5).
//!
//! A request whose line or headers break HTTP/1's syntax never becomes a request: hyper's parser
//! answers it itself, before any layer of ours runs, with a bare head and no body: 400 (a control
//! character in a header value, such as an `Idempotency-Key` holding one), 414 (a path of 64 KiB
//! or more; ours refuses from 8 KiB, [`super::MAX_URI_BYTES`]) and 431 (a header block past
//! hyper's buffer). hyper has no hook for those answers, so the connection's writes are watched
//! instead: a head that hyper wrote for a refusal (a 4xx with `content-length: 0` and without the
//! `x-request-id` every answer of ours carries) is replaced by the same status with a problem
//! body. Nothing else written is touched.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::AppError;

/// A connection whose bare refusals are given problem bodies.
#[derive(Debug)]
pub struct ProblemRefusals<S> {
    inner: S,
    /// A replacement answer still being written, and how much of it has gone.
    pending: Option<(Vec<u8>, usize)>,
}

impl<S> ProblemRefusals<S> {
    pub fn new(inner: S) -> Self {
        ProblemRefusals { inner, pending: None }
    }
}

/// The problem that stands for a bare head hyper wrote, if `written` is one.
fn replacement(written: &[u8]) -> Option<Vec<u8>> {
    let head = written.strip_suffix(b"\r\n\r\n")?;
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    let headers: Vec<String> = lines.map(str::to_ascii_lowercase).collect();
    let ours = headers.iter().any(|h| h.starts_with("x-request-id:"));
    let empty = headers.iter().any(|h| h.replace(' ', "") == "content-length:0");
    if ours || !empty || !(400..500).contains(&status) {
        return None;
    }
    let status = StatusCode::from_u16(status).ok()?;
    let (code, detail) = match status {
        StatusCode::URI_TOO_LONG => (
            crate::codes::URI_TOO_LONG,
            format!("a path and query may be at most {} bytes", super::MAX_URI_BYTES),
        ),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            (crate::codes::HEADERS_TOO_LARGE, "the request's headers are too large".to_owned())
        }
        _ => (
            crate::codes::MALFORMED_REQUEST,
            "the request line or a header breaks HTTP's syntax (a control character in a header value, \
             say); nothing of it was read"
                .to_owned(),
        ),
    };
    let body = serde_json::to_vec(&AppError::new(status, code, detail).to_problem()).ok()?;
    let mut answer =
        format!("HTTP/1.1 {} {}\r\n", status.as_str(), status.canonical_reason().unwrap_or("Bad Request"));
    for header in headers.iter().filter(|h| !h.starts_with("content-length:")) {
        answer.push_str(header);
        answer.push_str("\r\n");
    }
    answer.push_str(&format!(
        "content-type: {}\r\nx-content-type-options: nosniff\r\ncontent-length: {}\r\n\r\n",
        crate::error::PROBLEM_JSON,
        body.len()
    ));
    let mut bytes = answer.into_bytes();
    bytes.extend_from_slice(&body);
    Some(bytes)
}

impl<S: AsyncWrite + Unpin> ProblemRefusals<S> {
    /// Writes what is left of a replacement answer.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, sent)) = &mut self.pending {
            if *sent == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *sent += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ProblemRefusals<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ProblemRefusals<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.drain(cx))?;
        if let Some(answer) = replacement(buf) {
            self.pending = Some((answer, 0));
            // Taken whole; what the socket does not take now goes at the next write or flush.
            if let Poll::Ready(Err(e)) = self.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    // Not vectored: hyper then writes each head as one buffer, which is what is looked at.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bare_refusal_is_replaced() {
        let bare = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Fri, 04 Dec 2026 01:45:51 GMT\r\n\r\n";
        let answer = String::from_utf8(replacement(bare).unwrap()).unwrap();
        assert!(answer.starts_with("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n"), "{answer}");
        assert!(answer.contains("content-type: application/problem+json"), "{answer}");
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())), "{answer}");
        let problem: crate::Problem = serde_json::from_str(body).unwrap();
        assert_eq!((problem.status, problem.code.as_str()), (400, "malformed_request"));
        // Ours (a request id), a success, and anything with a body are left alone.
        let ours = b"HTTP/1.1 404 Not Found\r\nx-request-id: 1\r\ncontent-length: 0\r\n\r\n";
        let fine = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n";
        let body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!([replacement(ours), replacement(fine), replacement(body)], [None, None, None]);
    }
}
