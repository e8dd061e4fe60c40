//! OpenTelemetry traces (issue 51): each request one trace across the services it crosses.
//!
//! Off unless an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, as every OpenTelemetry SDK reads them): then spans go,
//! in batches from a thread of the SDK's, as OTLP protobuf over HTTP through the platform's own
//! hyper client. Off, no layer is installed and nothing is injected: tracing costs nothing.
//!
//! A request's trace crosses services through W3C `traceparent`: [`inject`] writes the current
//! span's context into every call another service or a provider receives
//! ([`crate::upstream::Upstream::forward`]), and [`adopt_parent`] makes the span a service opens
//! for a request the child of the caller's. What the SDK reads from the environment it reads
//! itself: the sampler (`OTEL_TRACES_SAMPLER`, parent-based always-on by default), the batches
//! (`OTEL_BSP_*`), the service's name (`OTEL_SERVICE_NAME` over the one it is started as).

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, Request, Response};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_http::{HeaderExtractor, HeaderInjector, HttpError};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanExporter};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;

/// The provider, once traces are on (kept to flush it at the process's end).
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// The target of the spans made for traces alone (a call to another service, a saga's step, a
/// ledger batch, a group commit): at `debug`, below the log's default filter, so that only the
/// trace layer pays for them.
pub const TARGET: &str = "lotto::trace";

/// What the trace layer records, unless `LOTTO_TRACE_FILTER` says otherwise: the platform's
/// spans (each request's and [`TARGET`]'s), not the HTTP and database libraries' own (nor the
/// exporter's calls, which would trace themselves), nor the access line (`lotto::access`, one
/// event a request): the log's, which as an event of every request's span doubled what a trace
/// carries for nothing a trace needs.
const DEFAULT_FILTER: &str =
    "info,sqlx=off,hyper=off,hyper_util=off,h2=off,tower=off,tower_http=off,lotto::access=off";

/// Whether an OTLP endpoint is configured.
fn configured() -> bool {
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty()))
}

/// Whether spans are being traced (a layer is installed).
pub fn enabled() -> bool {
    PROVIDER.get().is_some()
}

/// The layer that turns `tracing` spans into OpenTelemetry spans exported over OTLP, when an
/// endpoint is configured and a Tokio runtime runs (the exporter's calls run on it); else none.
pub(super) fn otlp_layer<S>(service: &'static str) -> Option<Box<dyn Layer<S> + Send + Sync>>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
{
    if !configured() {
        return None;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        tracing::warn!("an OTLP endpoint is configured but no runtime runs: traces are off");
        return None;
    };
    use opentelemetry_otlp::WithHttpConfig;
    let exporter = match opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(OnTokio::new(runtime))
        .build()
    {
        Ok(exporter) => exporter,
        Err(e) => {
            tracing::warn!(error = %e, "the OTLP exporter cannot be built: traces are off");
            return None;
        }
    };
    Some(layer_exporting_to(service, exporter))
}

/// The trace layer exporting to `exporter` in batches (tests give the SDK's in-memory one).
pub fn layer_exporting_to<S, E>(service: &'static str, exporter: E) -> Box<dyn Layer<S> + Send + Sync>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    E: SpanExporter + 'static,
{
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(service).build();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    let tracer = provider.tracer("lotto");
    let _ = PROVIDER.set(provider);
    // A filter of targets and levels, not an `EnvFilter`: two `EnvFilter`s as the filters of
    // two layers share the thread's span scope, and the log's then dropped lines (measured: no
    // request's line at all once this layer was on).
    let filter = std::env::var("LOTTO_TRACE_FILTER")
        .ok()
        .and_then(|f| {
            f.parse::<Targets>()
                .map_err(|e| tracing::warn!(error = %e, "LOTTO_TRACE_FILTER is not a filter"))
                .ok()
        })
        .unwrap_or_else(|| DEFAULT_FILTER.parse().unwrap_or_default());
    // What the layer would do on each poll of an instrumented future (time it, make its context
    // the thread's current OpenTelemetry context) and what it would add to each span (thread,
    // source file and line, target) was paid on every poll of a request and tells an operator
    // nothing the span's name and parent do not: without them a ticket's spans are a third of
    // the bytes (docs/benchmarks.md, issue 51's second session).
    tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_context_activation(false)
        .with_tracked_inactivity(false)
        .with_threads(false)
        .with_location(false)
        .with_target(false)
        .with_filter(filter)
        .boxed()
}

/// Exports every span ended so far (a test reads them next).
pub fn flush() {
    if let Some(provider) = PROVIDER.get() {
        let _ = provider.force_flush();
    }
}

/// Exports what is left and stops the exporter (at the end of `main`: a batch not yet sent
/// would be lost with the process).
pub fn shutdown() {
    if let Some(provider) = PROVIDER.get() {
        let _ = provider.force_flush();
        let _ = provider.shutdown_with_timeout(Duration::from_secs(5));
    }
}

/// Writes the current span's trace context into `headers` (`traceparent`, `tracestate`),
/// replacing any a caller sent: the next service's span is a child of this one.
pub fn inject(headers: &mut HeaderMap) {
    if !enabled() {
        return;
    }
    let context = tracing::Span::current().context();
    TraceContextPropagator::new().inject_context(&context, &mut HeaderInjector(headers));
}

/// Makes `span` the child of the trace context `headers` carry, if they carry a valid one.
pub fn adopt_parent(span: &tracing::Span, headers: &HeaderMap) {
    if !enabled() {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
}

/// The trace id of `span` (32 hex digits), when traces are on.
pub fn trace_id(span: &tracing::Span) -> Option<String> {
    if !enabled() {
        return None;
    }
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then(|| span_context.trace_id().to_string())
}

/// The exporter's HTTP client: the platform's hyper client, its calls spawned on the service's
/// runtime (the SDK's batch thread has none of its own) and each bounded in time and size.
#[derive(Debug, Clone)]
struct OnTokio {
    http: Client<HttpConnector, Full<Bytes>>,
    runtime: tokio::runtime::Handle,
}

/// How long one export may take before it is given up (the batch is dropped, not retried
/// forever: traces never hold a service up).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

impl OnTokio {
    fn new(runtime: tokio::runtime::Handle) -> OnTokio {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(2)));
        OnTokio { http: Client::builder(TokioExecutor::new()).build(connector), runtime }
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for OnTokio {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let http = self.http.clone();
        let call = async move {
            let (parts, body) = request.into_parts();
            let sent = http.request(Request::from_parts(parts, Full::new(body)));
            let response = tokio::time::timeout(EXPORT_TIMEOUT, sent).await??;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, 1 << 20).collect().await?.to_bytes();
            Ok::<_, HttpError>(Response::from_parts(parts, body))
        };
        self.runtime.spawn(call).await?
    }
}
