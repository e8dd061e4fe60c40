//! Another service: mounted in this process (`lotto`) or reached over HTTP.
//!
//! [`Upstream::forward`] passes a request through unchanged (the service verifies the caller's
//! token again); [`Upstream::call`] is the gateway's own typed call, as a service or on a
//! caller's behalf. A service that does not answer becomes a 503 problem, never a hang.

use std::time::Duration;

use crate::{AppError, Problem};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::Limited;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tower::ServiceExt;

/// Where a service is.
#[derive(Clone, Debug)]
pub enum Upstream {
    /// Mounted in this process: called without a socket.
    Local { name: &'static str, router: Router },
    /// Another process, at `base_url`; every call gives up after `timeout`.
    Remote { name: &'static str, base_url: String, http: Box<HttpClient>, timeout: Duration },
}

/// Headers that describe one hop, not the message (RFC 9110 §7.6.1).
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

impl Upstream {
    pub fn local(name: &'static str, router: Router) -> Self {
        Upstream::Local { name, router }
    }

    /// A remote service; `timeout` bounds every call.
    pub fn remote(name: &'static str, base_url: &str, timeout: Duration) -> Result<Self, AppError> {
        let base_url = base_url.trim_end_matches('/').to_owned();
        if !base_url.starts_with("http://") {
            return Err(AppError::internal(format!(
                "{name}: only http:// upstreams are supported, got {base_url}"
            )));
        }
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(timeout));
        connector.set_nodelay(true);
        let http = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(256).build(connector);
        Ok(Upstream::Remote { name, base_url, http: Box::new(http), timeout })
    }

    fn name(&self) -> &'static str {
        match self {
            Upstream::Local { name, .. } | Upstream::Remote { name, .. } => name,
        }
    }

    fn unavailable(&self) -> AppError {
        AppError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            crate::codes::UPSTREAM_UNAVAILABLE,
            format!("the {} service is not answering; retry later", self.name()),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from_static("1"))
    }

    /// Sends `request` to the service as it is and returns its answer as it is; counted and
    /// timed by the service's name and the answer's status class (`upstream_requests_total`,
    /// `upstream_request_duration_seconds`: a provider failing or slowing shows there).
    ///
    /// The call carries the caller's trace on: its `traceparent` names the caller's span
    /// ([`crate::telemetry::traces::inject`]). A call over the network is a span of its own (a
    /// client span, with the service's name); a call in this process is not: the service's
    /// server span is the caller's child already, and a client span would time the same work
    /// again, one more span entered on every poll of the call (measured: docs/benchmarks.md).
    pub async fn forward(&self, mut request: Request<Body>, body_limit: usize) -> Response {
        let started = std::time::Instant::now();
        let response = match self {
            Upstream::Local { .. } => {
                crate::telemetry::traces::inject(request.headers_mut());
                self.forward_unmeasured(request, body_limit).await
            }
            Upstream::Remote { .. } => self.forward_in_client_span(request, body_limit).await,
        };
        let class = crate::metrics::status_class(response.status());
        crate::metrics::count_upstream_call(self.name(), class, started.elapsed());
        response
    }

    /// [`Upstream::forward`] over the network, in a client span.
    async fn forward_in_client_span(&self, mut request: Request<Body>, body_limit: usize) -> Response {
        use tracing::Instrument;
        let method = crate::http::method_label(request.method());
        let span = tracing::info_span!(
            target: crate::telemetry::traces::TARGET,
            "upstream",
            otel.name = format!("{} {method}", self.name()),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            upstream = self.name(),
            method,
            status = tracing::field::Empty,
        );
        let response = async {
            crate::telemetry::traces::inject(request.headers_mut());
            self.forward_unmeasured(request, body_limit).await
        }
        .instrument(span.clone())
        .await;
        span.record("status", response.status().as_u16());
        if response.status().is_server_error() {
            span.record("otel.status_code", "ERROR");
        }
        response
    }

    /// [`Upstream::forward`]'s work, without its metrics.
    async fn forward_unmeasured(&self, request: Request<Body>, body_limit: usize) -> Response {
        match self {
            // The in-process hop is where the service's answer leaves it: its cause is logged here.
            Upstream::Local { router, .. } => match router.clone().oneshot(without_extensions(request)).await
            {
                Ok(mut response) => {
                    crate::error::log_cause(&mut response);
                    response
                }
                Err(never) => match never {},
            },
            Upstream::Remote { base_url, http, timeout, .. } => {
                match forward_remote(http, base_url, *timeout, request, body_limit).await {
                    // A balancer's own page in place of the service's answer (see `call`): the
                    // caller gets the platform's problem, with its Retry-After.
                    Ok(response) if from_in_front(&response) => self
                        .unavailable()
                        .with_cause(format!("{}: {} from in front of it", self.name(), response.status()))
                        .into_response(),
                    Ok(response) => response,
                    Err(e) => self.unavailable().with_cause(format!("{}: {e}", self.name())).into_response(),
                }
            }
        }
    }

    /// A JSON call of the gateway's own. `bearer` is the token to present; a problem the service
    /// answers with is passed on with its status and code.
    pub async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        bearer: &str,
        body: Option<&B>,
        idempotency_key: Option<&str>,
    ) -> Result<T, AppError> {
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header(header::AUTHORIZATION, format!("Bearer {bearer}"))
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(key) = idempotency_key {
            builder = builder.header("idempotency-key", key);
        }
        let bytes = match body {
            Some(body) => serde_json::to_vec(body).map_err(AppError::internal)?,
            None => Vec::new(),
        };
        let request = builder.body(Body::from(bytes)).map_err(AppError::internal)?;
        let response = self.forward(request, usize::MAX).await;
        let status = response.status();
        // A body cut off midway is a service that died while answering: as unavailable as one
        // that never answered.
        let bytes = axum::body::to_bytes(response.into_body(), 16 << 20)
            .await
            .map_err(|e| self.unavailable().with_cause(format!("{}: {e}", self.name())))?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(AppError::internal);
        }
        match serde_json::from_slice::<Problem>(&bytes) {
            Ok(problem) => {
                let err = AppError::relayed(status, problem.code, problem.detail).with_rule(problem.rule);
                Err(match problem.context {
                    Some(context) => err.with_context(context),
                    None => err,
                })
            }
            // A load balancer's own page (HAProxy's 502 when the replica it chose died with the
            // request, its 504, its 503 with no replica up): the service did not answer.
            Err(_) if is_gateway_failure(status) => {
                Err(self.unavailable().with_cause(format!("{}: {status} from in front of it", self.name())))
            }
            Err(_) => Err(AppError::internal(format!("{} answered {status} without a problem", self.name()))),
        }
    }
}

/// The request as it came over the wire: the gateway's own routing state (matched path,
/// path parameters) must not leak into the service's router. It is marked
/// [`crate::auth::InProcess`].
fn without_extensions(request: Request<Body>) -> Request<Body> {
    let (mut parts, body) = request.into_parts();
    parts.extensions = axum::http::Extensions::new();
    parts.extensions.insert(crate::auth::InProcess);
    Request::from_parts(parts, body)
}

/// 502, 503 or 504: what a load balancer or proxy answers when the service behind it did not.
fn is_gateway_failure(status: StatusCode) -> bool {
    matches!(status, StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT)
}

/// An answer that is a balancer's page rather than the service's: a gateway failure without
/// the problem body every service answers with.
fn from_in_front(response: &Response) -> bool {
    let problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(crate::error::PROBLEM_JSON.as_bytes()));
    is_gateway_failure(response.status()) && !problem
}

/// The HTTP/1.1 client the gateway reaches services with (pooled, streaming both ways).
pub type HttpClient = Client<HttpConnector, Body>;

async fn forward_remote(
    http: &HttpClient,
    base_url: &str,
    timeout: Duration,
    request: Request<Body>,
    body_limit: usize,
) -> Result<Response, Box<dyn std::error::Error + Send + Sync>> {
    let (mut parts, body) = request.into_parts();
    let path_and_query = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    parts.uri = format!("{base_url}{path_and_query}").parse()?;
    parts.extensions = axum::http::Extensions::new();
    parts.headers.remove(header::HOST);
    for name in HOP_BY_HOP {
        parts.headers.remove(name);
    }
    let body = Body::new(Limited::new(body, body_limit));
    let answer = tokio::time::timeout(timeout, http.request(Request::from_parts(parts, body))).await??;
    let (mut parts, body) = answer.into_parts();
    for name in HOP_BY_HOP {
        parts.headers.remove(name);
    }
    // The answer streams back as it arrives, bounded by the same timeout.
    Ok(Response::from_parts(parts, Body::new(body)))
}
