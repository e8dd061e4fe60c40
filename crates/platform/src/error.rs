//! The one error type of every service, rendered as RFC 9457 `application/problem+json`.
//!
//! Every failure a client can see carries a stable machine `code` (`insufficient_funds`,
//! `sales_closed`, ...) beside the human `detail`, so front ends branch on the code and never on
//! the wording; every code is in one table, [`crate::codes`]. An internal failure keeps its cause
//! (never shown: the client sees only `internal`), and the cause is logged once, when the answer
//! leaves the service (`crate::http::app`'s middleware, or the in-process hop of
//! `crate::upstream`), not where the error was made.

use std::borrow::Cow;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::codes::{self, CodeName};

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// The body of an error response (RFC 9457), also what [`crate::client`] parses from other services.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Problem {
    /// A URI naming the problem type; `urn:lotto:problem:<code>`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status's reason phrase.
    pub title: String,
    pub status: u16,
    /// What went wrong with this request, for a person: words and dollars, no rule numbers.
    pub detail: String,
    /// The stable machine-readable code.
    pub code: String,
    /// The rule this refusal applies (`K.A.R. 111-501-44(a)(8)`), for staff and auditors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Extra facts about the failure (for example which transfer of a batch failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<HashMap<String, serde_json::Value>>)]
    pub context: Option<serde_json::Value>,
}

/// An error a handler returns; it becomes a problem+json response.
#[derive(Debug, Clone)]
pub struct AppError {
    status: StatusCode,
    code: Cow<'static, str>,
    detail: String,
    rule: Option<Box<str>>,
    context: Option<Box<serde_json::Value>>,
    headers: Vec<(HeaderName, HeaderValue)>,
    /// Why it happened, for the log only (boxed: errors travel in every `Result`).
    cause: Option<Box<str>>,
}

/// The cause of an error answer, carried in the response's extensions until it is logged.
#[derive(Debug, Clone)]
pub struct ErrorCause(pub String);

impl AppError {
    /// An error with an explicit status and a code of the catalogue.
    pub fn new(status: StatusCode, code: CodeName, detail: impl Into<String>) -> Self {
        Self::relayed(status, code.as_str(), detail)
    }

    /// An error whose code arrived as text: another service's problem passed on, or a rule's
    /// refusal named by `domain`. Every code is still the catalogue's (the tests check each
    /// problem they meet against it, `crate::testing::send`). A rule cited in `detail` moves to
    /// the problem's `rule` ([`crate::words::split_rule`]): the detail is a person's words.
    pub fn relayed(
        status: StatusCode,
        code: impl Into<Cow<'static, str>>,
        detail: impl Into<String>,
    ) -> Self {
        let (detail, rule) = crate::words::split_rule(&detail.into());
        AppError {
            status,
            code: code.into(),
            detail,
            rule: rule.map(String::into_boxed_str),
            context: None,
            headers: Vec::new(),
            cause: None,
        }
    }

    /// 400: the request is malformed or a value is out of range.
    pub fn bad_request(code: CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    /// 404: the named thing does not exist.
    pub fn not_found(code: CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, detail)
    }

    /// 409: the request conflicts with what already happened.
    pub fn conflict(code: CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, detail)
    }

    /// 422: well-formed, but the rules refuse it (insufficient funds, currency mismatch, ...).
    pub fn unprocessable(code: CodeName, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }

    /// 500: a fault of ours. The cause is kept for the log and never shown to the client.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            codes::INTERNAL,
            "an internal error occurred; it has been logged",
        )
        .with_cause(cause)
    }

    /// Keeps `cause` with the error, for the log.
    #[must_use]
    pub fn with_cause(mut self, cause: impl std::fmt::Display) -> Self {
        self.cause = Some(cause.to_string().into_boxed_str());
        self
    }

    /// The cause kept for the log, if any.
    pub fn cause(&self) -> Option<&str> {
        self.cause.as_deref()
    }

    /// 503: a dependency (the database, another service) is unavailable; retrying later is safe.
    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, codes::UNAVAILABLE, detail)
    }

    /// The machine-readable facts attached to the failure, if any.
    pub fn context(&self) -> Option<&serde_json::Value> {
        self.context.as_deref()
    }

    /// Attaches machine-readable facts about the failure.
    #[must_use]
    pub fn with_context(mut self, context: serde_json::Value) -> Self {
        self.context = Some(Box::new(context));
        self
    }

    /// Names the rule the refusal applies (a relayed problem's `rule`), unless its detail did.
    #[must_use]
    pub fn with_rule(mut self, rule: Option<String>) -> Self {
        if self.rule.is_none() {
            self.rule = rule.map(String::into_boxed_str);
        }
        self
    }

    /// Adds a response header (`WWW-Authenticate` on a 401, `Retry-After` on a 429 or 503).
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The problem body this error renders as.
    pub fn to_problem(&self) -> Problem {
        Problem {
            kind: format!("urn:lotto:problem:{}", self.code),
            title: self.status.canonical_reason().unwrap_or("Error").to_owned(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code.to_string(),
            rule: self.rule.as_deref().map(str::to_owned),
            context: self.context.as_deref().cloned(),
        }
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)?;
        match &self.cause {
            Some(cause) => write!(f, " (cause: {cause})"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for AppError {}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.to_problem()).unwrap_or_default();
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        for (name, value) in self.headers {
            headers.insert(name, value);
        }
        if let Some(cause) = self.cause {
            response.extensions_mut().insert(ErrorCause(cause.into_string()));
        }
        response
    }
}

/// Logs an error answer's cause, once: the cause is taken out of the response as it is logged.
pub fn log_cause(response: &mut Response) {
    if let Some(ErrorCause(cause)) = response.extensions_mut().remove::<ErrorCause>() {
        let status = response.status().as_u16();
        if response.status().is_server_error() && response.status() != StatusCode::SERVICE_UNAVAILABLE {
            tracing::error!(status, %cause, "internal error");
        } else {
            tracing::warn!(status, %cause, "request failed");
        }
    }
}

impl From<sqlx::Error> for AppError {
    fn from(err: sqlx::Error) -> Self {
        if is_unavailable(&err) {
            return AppError::unavailable("the database is unavailable; retry later")
                .with_header(header::RETRY_AFTER, HeaderValue::from_static("1"))
                .with_cause(err);
        }
        AppError::internal(err)
    }
}

/// True when the database could not be reached or dropped the connection, rather than refused
/// the statement: a retry later is safe and may succeed. Pool timeouts, broken sockets, a
/// connection the server ended (SQLSTATE class 08, 57P01-57P03 on restart or shutdown), too
/// many connections (53300), a statement cancelled by a timeout (57014), and a write sent to a
/// member that is (now) a standby (25006: a primary demoted, or reached before HAProxy moved).
pub fn is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08")
                || matches!(code.as_ref(), "57P01" | "57P02" | "57P03" | "53300" | "57014" | "25006")
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn renders_problem_json_with_stable_code() {
        let response = AppError::unprocessable(codes::INSUFFICIENT_FUNDS, "balance 5 is below 10")
            .with_context(serde_json::json!({"index": 3}))
            .into_response();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(response.headers()[header::CONTENT_TYPE], PROBLEM_JSON);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        let problem: Problem = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(problem.code, "insufficient_funds");
        assert_eq!(problem.kind, "urn:lotto:problem:insufficient_funds");
        assert_eq!(problem.status, 422);
        assert_eq!(problem.title, "Unprocessable Entity");
        assert_eq!(problem.context, Some(serde_json::json!({"index": 3})));
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let err = AppError::internal("password=hunter2 leaked in a driver message");
        assert_eq!(err.code(), "internal");
        assert!(!err.detail().contains("hunter2"));
        assert!(!serde_json::to_string(&err.to_problem()).unwrap().contains("hunter2"));
    }

    #[tokio::test]
    async fn an_internal_error_keeps_its_cause_until_it_is_logged_once() {
        let err = AppError::internal("the disk is full");
        assert_eq!(err.cause(), Some("the disk is full"));
        assert!(err.to_string().contains("the disk is full"), "the log line names the cause");
        let mut response = err.into_response();
        assert!(response.extensions().get::<ErrorCause>().is_some());
        log_cause(&mut response);
        assert!(response.extensions().get::<ErrorCause>().is_none(), "taken out as it is logged");
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains("disk"), "never shown to the client");
    }
}
