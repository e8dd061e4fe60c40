//! A typed JSON client for calling a running platform over HTTP, as tests and benchmarks do
//! (feature `testing`; services reach each other through `crate::upstream`).
//!
//! Every call has a timeout. A call is retried (with exponential back-off) only when repeating it
//! cannot do anything twice: a `GET`, or a `POST` the caller marks idempotent because it carries
//! an idempotency key. Only failures that say nothing was done or that may be passing are retried:
//! connection errors, timeouts, 502, 503 and 504.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Problem;
use crate::auth::TokenKeys;
use crate::extract::IDEMPOTENCY_KEY_HEADER;
use crate::http::REQUEST_ID_HEADER;

/// Why a call to another service failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The service answered with a problem (or another non-success status).
    #[error("{status}: {} ({})", problem.detail, problem.code)]
    Problem { status: StatusCode, problem: Box<Problem> },
    /// No usable answer: connection refused, timed out, ...
    #[error("transport error: {0}")]
    Transport(#[from] reqwest::Error),
    /// A success status with a body that does not parse as the expected type.
    #[error("unexpected response body: {0}")]
    Decode(String),
}

impl ClientError {
    /// The problem's stable code, when the service answered with one.
    pub fn code(&self) -> Option<&str> {
        match self {
            ClientError::Problem { problem, .. } => Some(&problem.code),
            _ => None,
        }
    }
}

/// Whether a request may be sent again after a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Repeating it is harmless (a read, or a write carrying an idempotency key).
    Safe,
    /// Repeating it could apply it twice; it is sent once.
    Never,
}

/// Optional headers of a call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Headers<'a> {
    /// Forwarded as `x-request-id`, so one request can be followed across services.
    pub request_id: Option<&'a str>,
    /// Sent as `Idempotency-Key` on a POST that moves money.
    pub idempotency_key: Option<&'a str>,
    /// A caller's own token to send instead of the service token (to act on their behalf).
    pub bearer: Option<&'a str>,
}

/// A client for one service, at one base URL.
#[derive(Debug, Clone)]
pub struct ServiceClient {
    base_url: String,
    http: reqwest::Client,
    max_attempts: u32,
    backoff: Duration,
    /// Signs a service token for every call, as service `.1`.
    identity: Option<(TokenKeys, String)>,
}

impl ServiceClient {
    /// A client with a 10-second timeout and up to three attempts for safe calls.
    pub fn new(base_url: impl Into<String>) -> Result<Self, ClientError> {
        Self::with_timeout(base_url, Duration::from_secs(10))
    }

    /// A client whose every call gives up after `timeout`.
    pub fn with_timeout(base_url: impl Into<String>, timeout: Duration) -> Result<Self, ClientError> {
        let http = reqwest::Client::builder().timeout(timeout).connect_timeout(timeout).build()?;
        Ok(ServiceClient {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            http,
            max_attempts: 3,
            backoff: Duration::from_millis(50),
            identity: None,
        })
    }

    /// Calls as service `name`, with a fresh service token on every call (architecture §7).
    #[must_use]
    pub fn as_service(mut self, keys: TokenKeys, name: &str) -> Self {
        self.identity = Some((keys, name.to_owned()));
        self
    }

    /// Sets how many times a safe call is tried in all, and the first back-off.
    #[must_use]
    pub fn with_retries(mut self, max_attempts: u32, backoff: Duration) -> Self {
        self.max_attempts = max_attempts.max(1);
        self.backoff = backoff;
        self
    }

    /// `GET path`, decoding the JSON answer.
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        self.call::<(), T>(Method::GET, path, None, Retry::Safe, &Headers::default()).await
    }

    /// `POST path` with a JSON body.
    pub async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        retry: Retry,
    ) -> Result<T, ClientError> {
        self.call(Method::POST, path, Some(body), retry, &Headers::default()).await
    }

    /// `POST path` carrying an `Idempotency-Key`: the service applies it once however often it
    /// arrives, so it is retried like a read.
    pub async fn post_idempotent<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        idempotency_key: &str,
        body: &B,
    ) -> Result<T, ClientError> {
        let headers = Headers { idempotency_key: Some(idempotency_key), ..Headers::default() };
        self.call(Method::POST, path, Some(body), Retry::Safe, &headers).await
    }

    /// Any call, with optional headers.
    pub async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        retry: Retry,
        headers: &Headers<'_>,
    ) -> Result<T, ClientError> {
        let url = format!("{}{}", self.base_url, path);
        let attempts = if retry == Retry::Safe { self.max_attempts } else { 1 };
        let mut backoff = self.backoff;
        let mut attempt = 1;
        loop {
            let mut request = self.http.request(method.clone(), &url);
            if let Some(body) = body {
                request = request.json(body);
            }
            if let Some(token) = headers.bearer {
                request = request.bearer_auth(token);
            } else if let Some((keys, name)) = &self.identity {
                let token = keys.service_token(name).map_err(|e| ClientError::Decode(e.to_string()))?;
                request = request.bearer_auth(token);
            }
            if let Some(id) = headers.request_id {
                request = request.header(REQUEST_ID_HEADER, id);
            }
            if let Some(key) = headers.idempotency_key {
                request = request.header(IDEMPOTENCY_KEY_HEADER, key);
            }
            let outcome = match request.send().await {
                Ok(response) => decode(response).await,
                Err(e) => Err(ClientError::Transport(e)),
            };
            match outcome {
                Err(e) if attempt < attempts && is_transient(&e) => {
                    tracing::debug!(%url, attempt, error = %e, "retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = backoff.saturating_mul(2);
                    attempt = attempt.saturating_add(1);
                }
                other => return other,
            }
        }
    }
}

fn is_transient(err: &ClientError) -> bool {
    match err {
        ClientError::Transport(e) => e.is_connect() || e.is_timeout(),
        ClientError::Problem { status, .. } => matches!(
            *status,
            StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
        ),
        ClientError::Decode(_) => false,
    }
}

async fn decode<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, ClientError> {
    let status = response.status();
    let bytes = response.bytes().await?;
    if status.is_success() {
        return serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode(e.to_string()));
    }
    let problem = serde_json::from_slice::<Problem>(&bytes).unwrap_or_else(|_| Problem {
        kind: "about:blank".to_owned(),
        title: status.canonical_reason().unwrap_or("Error").to_owned(),
        status: status.as_u16(),
        detail: String::from_utf8_lossy(&bytes).chars().take(500).collect(),
        code: "unexpected_status".to_owned(),
        rule: None,
        context: None,
    });
    Err(ClientError::Problem { status, problem: Box::new(problem) })
}
