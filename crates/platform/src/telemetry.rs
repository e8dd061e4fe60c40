//! `tracing` setup: human-readable lines by default, JSON lines for log collectors, and
//! OpenTelemetry traces when an OTLP endpoint is configured ([`traces`]).

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

pub mod traces;

/// Installs the global subscriber once; later calls (tests, several services in one process) are no-ops.
///
/// `service` names the process in its traces (`gateway`, `ledger`, ..., or `lotto` for all of
/// them in one). The log's filter comes from `LOTTO_LOG` (else `RUST_LOG`, else `info`);
/// `LOTTO_LOG_FORMAT=json` selects JSON, each line with the fields of the request's span
/// (route, status, latency, the caller's kind and id, the trace id: [`crate::http::app`]).
pub fn init_tracing(service: &'static str) {
    init_tracing_or(service, "info,sqlx=warn");
}

/// [`init_tracing`] with another filter when the environment names none (tests: `warn`, not a
/// line per request).
pub fn init_tracing_or(service: &'static str, default_filter: &str) {
    let filter = std::env::var("LOTTO_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| default_filter.to_owned());
    let filter = format!("{filter},lotto::trace=off");
    let lines = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_target(true);
    let lines: Box<dyn Layer<Registry> + Send + Sync> = if json_lines() {
        // The request's span holds what a line needs (route, caller, trace id): not the list of
        // every span around it too.
        filtered(lines.json().flatten_event(true).with_span_list(false), &filter)
    } else {
        filtered(lines.compact(), &filter)
    };
    // Layered one on the other, not in a `Vec`: in a `Vec`, the log's filter lost every line
    // written after a span only the trace layer's filter let through (tracing-subscriber 0.3).
    let subscriber = tracing_subscriber::registry().with(lines).with(traces::otlp_layer(service));
    // Err only means a subscriber is already installed, which is fine.
    drop(subscriber.try_init());
}

/// `layer` behind `filter`: a filter of targets and levels when `filter` is one (the usual
/// `info,sqlx=warn`), an `EnvFilter` only when it names spans or fields: an `EnvFilter` takes a
/// lock on every entry to and exit from each span it let through, which is on every poll of a
/// request's future (tracing-subscriber 0.3).
fn filtered<L>(layer: L, filter: &str) -> Box<dyn Layer<Registry> + Send + Sync>
where
    L: Layer<Registry> + Send + Sync,
{
    match filter.parse::<Targets>() {
        Ok(targets) => layer.with_filter(targets).boxed(),
        Err(_) => layer.with_filter(EnvFilter::new(filter)).boxed(),
    }
}

/// Whether `LOTTO_LOG_FORMAT=json` asks for JSON lines.
fn json_lines() -> bool {
    std::env::var("LOTTO_LOG_FORMAT").as_deref() == Ok("json")
}

/// `line` in the log format: as it is, or as one JSON object (the shape of the JSON log lines:
/// `timestamp`, `level`, `target`, `message`), so that a collector reading the process's JSON
/// lines never meets plain text (issue 47 §5).
fn formatted(level: &str, line: &str) -> String {
    if json_lines() {
        serde_json::json!({
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "level": level,
            "target": "lotto",
            "message": line,
        })
        .to_string()
    } else {
        line.to_owned()
    }
}

/// A line for whoever started the process, on stdout: where it listens, what it found.
#[allow(clippy::print_stdout)]
pub fn banner(line: &str) {
    println!("{}", formatted("INFO", line));
}

/// Why a command stopped, on stderr: the message alone, never a backtrace, whatever
/// `RUST_BACKTRACE` says: a refusal is for a person to read (issue 47 §5).
#[allow(clippy::print_stderr)]
pub fn refusal(line: &str) {
    eprintln!("{}", formatted("ERROR", line));
}
