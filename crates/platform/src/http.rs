//! The HTTP plumbing every service gets: health, readiness, Prometheus metrics, request ids,
//! body-size limits, timeouts, problem+json for unknown routes and panics, and graceful shutdown.
//!
//! What a hostile client meets before any handler runs (issue 11): a connection that has not sent
//! its request's headers within [`HEADER_READ_TIMEOUT`] is closed (slowloris); a declared
//! `Content-Length` above the body limit is answered 413 at once, without waiting for the body;
//! a path and query longer than [`MAX_URI_BYTES`] is answered 414; every answer carries
//! `X-Content-Type-Options: nosniff`. Prometheus `/metrics` is not on the API port: it is
//! served on its own listener ([`spawn_metrics`], `LOTTO_METRICS_LISTEN`), kept off the
//! public network.
//!
//! A service writes only its API routes; [`app`] wraps them (one service, or all of them merged
//! in the `lotto` process) into the router that is served.

use std::any::Any;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hyper::body::{Frame, SizeHint};
use sqlx::PgPool;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::AppError;
use crate::config::Config;

mod bare_refusals;
mod request_span;

use request_span::request_span;

/// The header that carries a request's id across services.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// What `/readyz` checks: the database pool of each service mounted in this process.
#[derive(Debug, Clone, Default)]
pub struct Readiness {
    pools: Vec<(&'static str, PgPool)>,
}

impl Readiness {
    /// Adds a service's pool to the readiness check.
    #[must_use]
    pub fn with_pool(mut self, service: &'static str, pool: PgPool) -> Self {
        self.pools.push((service, pool));
        self
    }
}

/// Limits applied to every request.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub body_limit_bytes: usize,
    pub request_timeout: Duration,
}

impl From<&Config> for Limits {
    fn from(config: &Config) -> Self {
        Limits { body_limit_bytes: config.body_limit_bytes, request_timeout: config.request_timeout }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::from(&Config::default())
    }
}

/// Wraps API routes with the operational endpoints and the shared middleware.
pub fn app(api: Router, readiness: Readiness, limits: Limits) -> Router {
    let ops =
        Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz)).with_state(readiness);
    let body_limit = limits.body_limit_bytes;
    let timeout = limits.request_timeout;

    let api = api
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limits.body_limit_bytes))
        .layer(middleware::from_fn(move |req: Request, next: Next| deadline(req, next, timeout)));

    ops.merge(api).layer(
        ServiceBuilder::new()
            .layer(SetRequestIdLayer::new(REQUEST_ID_HEADER, MakeRequestUuid))
            .layer(TraceLayer::new_for_http().make_span_with(request_span))
            .layer(PropagateRequestIdLayer::new(REQUEST_ID_HEADER))
            .layer(CatchPanicLayer::custom(panic_response))
            .layer(middleware::from_fn(record_metrics))
            .layer(middleware::map_response(|mut response: Response| async move {
                crate::error::log_cause(&mut response);
                response
            }))
            .layer(middleware::from_fn(move |req: Request, next: Next| {
                refuse_oversized(req, next, body_limit)
            }))
            .layer(SetResponseHeaderLayer::overriding(
                HeaderName::from_static("x-content-type-options"),
                HeaderValue::from_static("nosniff"),
            )),
    )
}

/// Headers for an answer that carries a secret (an access token, an API key): never cached.
pub fn no_store() -> [(HeaderName, HeaderValue); 2] {
    [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        (header::PRAGMA, HeaderValue::from_static("no-cache")),
    ]
}

/// The longest path and query accepted, in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// How long a connection may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long an answer given before its request's body was read waits for the rest of the body.
pub const UNREAD_BODY_WAIT: Duration = Duration::from_secs(1);

/// 413 on a declared body above the limit and 414 on an over-long URI, before anything waits
/// for the body or routes the path.
///
/// An answer given before the request's body was read (a 401, 403 or 429 refused at the door) is
/// sent once the rest of the body has arrived and been read, within the body limit and
/// [`UNREAD_BODY_WAIT`]; only a body that does not arrive so closes the connection (`Connection:
/// close`), as does a request that waits for `100 Continue` before sending its body (nothing of
/// it is on its way: it is never asked for). Issue 47 §5: closing at once, with the body's bytes unread in the server's socket,
/// makes the kernel reset the connection, and a client still sending could lose the answer
/// (two connections of an authorization sweep were closed without one).
async fn refuse_oversized(req: Request, next: Next, body_limit: usize) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > u64::try_from(body_limit).unwrap_or(u64::MAX)) {
        metrics::counter!(crate::metrics::HTTP_TOO_LARGE).increment(1);
        return AppError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            crate::codes::BODY_TOO_LARGE,
            format!("a request body may be at most {body_limit} bytes"),
        )
        .with_header(header::CONNECTION, HeaderValue::from_static("close"))
        .into_response();
    }
    if req.uri().path_and_query().map_or(0, |pq| pq.as_str().len()) > MAX_URI_BYTES {
        return AppError::new(
            StatusCode::URI_TOO_LONG,
            crate::codes::URI_TOO_LONG,
            format!("a path and query may be at most {MAX_URI_BYTES} bytes"),
        )
        .into_response();
    }
    let has_body = declared.is_some_and(|n| n > 0) || req.headers().contains_key(header::TRANSFER_ENCODING);
    if !has_body {
        return next.run(req).await;
    }
    let waits_to_send =
        req.headers().get(header::EXPECT).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let (parts, body) = req.into_parts();
    let slot = Arc::new(std::sync::Mutex::new(Some(body)));
    let req = Request::from_parts(parts, Body::new(SharedBody { slot: Arc::clone(&slot) }));
    let mut response = next.run(req).await;
    let unread = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    if let Some(rest) = unread.filter(|b| !b.is_end_stream()) {
        let drained = if waits_to_send {
            None
        } else {
            tokio::time::timeout(UNREAD_BODY_WAIT, axum::body::to_bytes(rest, body_limit)).await.ok()
        };
        if !matches!(drained, Some(Ok(_))) {
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
    }
    response
}

/// A request's body read through a slot its middleware keeps, so that what the handler left
/// unread can still be read after the answer is made ([`refuse_oversized`]).
struct SharedBody {
    slot: Arc<std::sync::Mutex<Option<Body>>>,
}

impl HttpBody for SharedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let mut slot = self.slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match slot.as_mut() {
            Some(body) => Pin::new(body).poll_frame(cx),
            None => std::task::Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), Body::size_hint)
    }
}

/// The request's deadline (`LOTTO_REQUEST_TIMEOUT_MS`). Past it the request is abandoned: 408
/// `body_timeout` (closing the connection) when its declared body had not all arrived, since the
/// client was the slow one (issue 32 §5: it was a 503, which tells a client the server is at
/// fault); otherwise 503 `unavailable`, which a retry may clear (every write is idempotent).
async fn deadline(req: Request, next: Next, timeout: Duration) -> Response {
    let declares_body = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() != "0")
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    let arrived = Arc::new(AtomicBool::new(!declares_body));
    let req = if declares_body {
        let (parts, body) = req.into_parts();
        Request::from_parts(parts, Body::new(WatchedBody { inner: body, arrived: Arc::clone(&arrived) }))
    } else {
        req
    };
    let answered = tokio::time::timeout(timeout, next.run(req)).await;
    if answered.is_err() {
        let kind = if arrived.load(Ordering::Acquire) { "handler" } else { "body" };
        metrics::counter!(crate::metrics::HTTP_TIMEOUTS, "kind" => kind).increment(1);
    }
    match answered {
        Ok(response) => response,
        Err(_) if !arrived.load(Ordering::Acquire) => AppError::new(
            StatusCode::REQUEST_TIMEOUT,
            crate::codes::BODY_TIMEOUT,
            format!("the request's body did not arrive within {} ms", timeout.as_millis()),
        )
        .with_header(header::CONNECTION, HeaderValue::from_static("close"))
        .into_response(),
        Err(_) => AppError::unavailable("the request took too long and was abandoned; retrying it is safe")
            .into_response(),
    }
}

/// A request body that says, through `arrived`, when its last byte has been read.
struct WatchedBody {
    inner: Body,
    arrived: Arc<AtomicBool>,
}

impl HttpBody for WatchedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, std::task::Poll::Ready(None)) || self.inner.is_end_stream() {
            self.arrived.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Prometheus `/metrics`, for the metrics listener only.
pub fn metrics_app() -> Router {
    Router::new().route("/metrics", get(metrics_text))
}

/// Serves [`metrics_app`] on `LOTTO_METRICS_LISTEN` when it is set (a port the public network
/// does not reach: the deployments expose it to the cluster's scraper only).
pub async fn spawn_metrics(config: &Config) -> std::io::Result<()> {
    let Some(addr) = config.metrics_listen else { return Ok(()) };
    crate::metrics::ensure_recorder();
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(addr = %listener.local_addr()?, "metrics listening");
    tokio::spawn(serve(listener, metrics_app(), std::future::pending()));
    Ok(())
}

/// Builds a router from a service's route table, merging the methods of one path.
pub fn routes_from<S: Clone + Send + Sync + 'static>(
    table: Vec<(axum::http::Method, &'static str, axum::routing::MethodRouter<S>)>,
) -> Router<S> {
    let mut by_path: Vec<(&'static str, axum::routing::MethodRouter<S>)> = Vec::new();
    for (_, path, handler) in table {
        match by_path.iter_mut().find(|(p, _)| *p == path) {
            Some((_, existing)) => *existing = std::mem::take(existing).merge(handler),
            None => by_path.push((path, handler)),
        }
    }
    by_path.into_iter().fold(Router::new(), |router, (path, handler)| router.route(path, handler))
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(readiness): State<Readiness>) -> Result<&'static str, AppError> {
    for (service, pool) in &readiness.pools {
        if let Err(e) = sqlx::query("SELECT 1").execute(pool).await {
            tracing::warn!(service, error = %e, "not ready");
            return Err(AppError::unavailable(format!("{service}: database unreachable")));
        }
    }
    Ok("ready")
}

async fn metrics_text() -> Response {
    let body = crate::metrics::render();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}

/// The method as a metric label: one of HTTP's own, or `other` (issue 47 §5: any client could
/// make a series per made-up method, and so grow Prometheus' memory without end).
pub fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    const KNOWN: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::DELETE, "DELETE"),
        (Method::PATCH, "PATCH"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::CONNECT, "CONNECT"),
        (Method::TRACE, "TRACE"),
    ];
    KNOWN.iter().find(|(known, _)| known == method).map_or("other", |(_, label)| label)
}

/// Counts requests and their latency per route template (not per raw path), method label
/// ([`method_label`]) and status class, so that the series stay bounded whatever clients send;
/// and the requests in flight.
async fn record_metrics(req: Request, next: Next) -> Response {
    use crate::metrics as m;
    m::ensure_recorder();
    let route = req.extensions().get::<MatchedPath>().map_or("unmatched", MatchedPath::as_str).to_owned();
    let method = method_label(req.method());
    let started = Instant::now();
    let in_flight = metrics::gauge!(m::HTTP_IN_FLIGHT);
    in_flight.increment(1.0);
    // Decremented however the request ends (answered, or dropped with its connection).
    let _leaving = scopeguard(move || in_flight.decrement(1.0));
    let response = next.run(req).await;
    let elapsed = started.elapsed();
    let labels = [
        ("route", route.clone()),
        ("method", method.to_owned()),
        ("status_class", m::status_class(response.status()).to_owned()),
    ];
    metrics::counter!(m::HTTP_REQUESTS, &labels).increment(1);
    metrics::histogram!(m::HTTP_DURATION, &labels).record(elapsed.as_secs_f64());
    let status = response.status().as_u16();
    if response.status().is_server_error() {
        tracing::Span::current().record("otel.status_code", "ERROR");
    }
    // The access line: its own status and latency, the request's span (on the line) the route,
    // caller and trace id. (Recorded on the event, not the span: a span's fields are written
    // again at each record.)
    if !matches!(route.as_str(), "/healthz" | "/readyz") {
        let latency_ms = elapsed.as_secs_f64() * 1_000.0;
        tracing::info!(target: "lotto::access", status, latency_ms, "answered");
    }
    response
}

/// Runs `f` when dropped.
fn scopeguard(f: impl FnOnce()) -> impl Drop {
    struct Guard<F: FnOnce()>(Option<F>);
    impl<F: FnOnce()> Drop for Guard<F> {
        fn drop(&mut self) {
            if let Some(f) = self.0.take() {
                f();
            }
        }
    }
    Guard(Some(f))
}

async fn unknown_route() -> AppError {
    AppError::not_found(crate::codes::ROUTE_NOT_FOUND, "no such route")
}

async fn method_not_allowed() -> AppError {
    AppError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        crate::codes::METHOD_NOT_ALLOWED,
        "this route does not take that method",
    )
}

fn panic_response(_: Box<dyn Any + Send + 'static>) -> Response {
    AppError::internal("a handler panicked").into_response()
}

/// Resolves on SIGTERM or ctrl-c, so servers stop taking requests and finish the ones in flight.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown requested; finishing requests in flight");
}

/// Whether this process is shutting down: set when [`serve`]'s shutdown fires, so that answers
/// that would never end by themselves (event streams) end, and the process can.
fn drain_flag() -> &'static tokio::sync::watch::Sender<bool> {
    static DRAINING: OnceLock<tokio::sync::watch::Sender<bool>> = OnceLock::new();
    DRAINING.get_or_init(|| tokio::sync::watch::channel(false).0)
}

/// Resolves once the process has begun to shut down (at once if it has).
pub async fn draining() {
    let mut flag = drain_flag().subscribe();
    // The sender lives in a static, so it is never dropped: `wait_for` ends only when set.
    let _ = flag.wait_for(|draining| *draining).await;
}

/// How long a shutdown waits for the requests in flight before the process exits regardless:
/// below Kubernetes' 30 s grace period, above the longest request (`LOTTO_REQUEST_TIMEOUT_MS`).
const DRAIN_DEADLINE: Duration = Duration::from_secs(20);

/// Serves `app` on `listener` until `shutdown` resolves, then lets the requests in flight finish.
/// Handlers can see the client's address as `ConnectInfo<SocketAddr>` (the gateway's
/// per-address rate limit uses it). HTTP/1.1 and HTTP/2; a connection that does not send a
/// request's headers within [`HEADER_READ_TIMEOUT`] is closed.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::extract::ConnectInfo;
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;
    use tower::ServiceExt;

    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small JSON answers go out at once rather than wait on Nagle's algorithm.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        let service =
            app.clone().map_request(move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(remote));
                request
            });
        let connection = builder.serve_connection_with_upgrades(
            TokioIo::new(bare_refusals::ProblemRefusals::new(stream)),
            TowerToHyperService::new(service),
        );
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended");
            }
        });
    }
    // Streams end now (each with a hint to reconnect elsewhere); requests in flight finish.
    drain_flag().send_replace(true);
    if tokio::time::timeout(DRAIN_DEADLINE, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            seconds = DRAIN_DEADLINE.as_secs(),
            "connections still open after the drain deadline; exiting"
        );
    }
    Ok(())
}

/// Set on every answer to a request that carried an idempotency key: `true` when the answer
/// repeats what an earlier request with the same key did, `false` when this request did it.
pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// The one way a create that may be a replay answers (ADR 0009 §7): `201 Created` with the new
/// resource's `Location` when it was made now, `200 OK` when an earlier request with the same
/// key made it; `Idempotent-Replayed` says which, always.
pub fn created_or_replayed<T: serde::Serialize>(body: T, created: bool, location: Option<&str>) -> Response {
    let mut response = crate::Json(body).into_response();
    response
        .headers_mut()
        .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static(if created { "false" } else { "true" }));
    if created {
        *response.status_mut() = StatusCode::CREATED;
        if let Some(value) = location.and_then(|l| HeaderValue::from_str(l).ok()) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    response
}

/// `201 Created` with the new resource's `Location`, for a create that carries no key.
pub fn created<T: serde::Serialize>(body: T, location: &str) -> Response {
    let mut response = (StatusCode::CREATED, crate::Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// An answer that takes its request in (202 Accepted) or repeats one taken before (200 OK):
/// payments and jobs; `Location` where the thing is followed, `Idempotent-Replayed` always.
pub fn accepted_or_replayed<T: serde::Serialize>(
    body: T,
    accepted: bool,
    location: Option<&str>,
) -> Response {
    let mut response = created_or_replayed(body, accepted, location);
    if accepted {
        *response.status_mut() = StatusCode::ACCEPTED;
    }
    response
}
