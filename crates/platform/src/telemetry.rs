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
