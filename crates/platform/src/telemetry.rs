//! `tracing` setup: human-readable lines by default, JSON lines for log collectors.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls (tests, several services in one process) are no-ops.
///
/// The filter comes from `LOTTO_LOG` (else `RUST_LOG`, else `info`); `LOTTO_LOG_FORMAT=json` selects JSON.
pub fn init_tracing() {
    let filter = std::env::var("LOTTO_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "info,sqlx=warn,tower_http=info".to_owned());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_target(true);
    let result = if std::env::var("LOTTO_LOG_FORMAT").as_deref() == Ok("json") {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.compact().try_init()
    };
    // Err only means a subscriber is already installed, which is fine.
    drop(result);
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
