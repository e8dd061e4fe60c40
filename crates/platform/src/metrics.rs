//! The metrics every service serves on its metrics listener (issue 51): one catalogue of their
//! names, types, labels and meanings ([`CATALOGUE`], the table in `docs/operations.md`), and
//! the process-wide Prometheus recorder that renders them.
//!
//! Histograms are real Prometheus histograms with fixed buckets (the exporter renders a
//! histogram as a summary unless its buckets are set, and summaries of several replicas cannot
//! be added up): latency in seconds ([`LATENCY_BUCKETS`]), sizes in items ([`SIZE_BUCKETS`]).
//! Every label takes a bounded set of values (route templates, never raw paths; HTTP's own
//! methods and `other`; status classes; games and kinds of money; error codes from the
//! catalogue), so the series stay bounded whatever clients send.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use sqlx::PgPool;

/// What a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Counter,
    Gauge,
    Histogram,
}

impl Type {
    pub fn as_str(self) -> &'static str {
        match self {
            Type::Counter => "counter",
            Type::Gauge => "gauge",
            Type::Histogram => "histogram",
        }
    }
}

/// One metric: its name, type, labels and meaning.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub name: &'static str,
    pub kind: Type,
    pub labels: &'static [&'static str],
    pub help: &'static str,
}

const fn metric(
    name: &'static str,
    kind: Type,
    labels: &'static [&'static str],
    help: &'static str,
) -> Metric {
    Metric { name, kind, labels, help }
}

pub const HTTP_REQUESTS: &str = "http_requests_total";
pub const HTTP_DURATION: &str = "http_request_duration_seconds";
pub const HTTP_IN_FLIGHT: &str = "http_requests_in_flight";
pub const HTTP_TOO_LARGE: &str = "http_bodies_too_large_total";
pub const HTTP_TIMEOUTS: &str = "http_timeouts_total";
pub const HTTP_RATE_LIMITED: &str = "http_rate_limited_total";
pub const UPSTREAM_REQUESTS: &str = "upstream_requests_total";
pub const UPSTREAM_DURATION: &str = "upstream_request_duration_seconds";
pub const DB_POOL_CONNECTIONS: &str = "db_pool_connections";
pub const DB_POOL_MAX: &str = "db_pool_max_connections";
pub const PROCESS_MEMORY: &str = "process_resident_memory_bytes";
pub const PROCESS_FDS: &str = "process_open_fds";
pub const LEDGER_TRANSFERS: &str = "ledger_transfers_total";
pub const LEDGER_CENTS: &str = "ledger_transfer_cents_total";
pub const LEDGER_BATCH_SIZE: &str = "ledger_batch_transfers";
pub const LEDGER_BATCH_DURATION: &str = "ledger_batch_duration_seconds";
pub const LEDGER_REFUSALS: &str = "ledger_refusals_total";
pub const LEDGER_IMBALANCE: &str = "ledger_imbalance_cents";
pub const DRAW_LEADER: &str = "draw_scheduler_leader";
pub const DRAW_LATENESS: &str = "draw_last_lateness_seconds";
pub const DRAWS_LATE: &str = "draws_late_total";
pub const DAILY_REPORT_LAST_CLOSE: &str = "daily_report_last_close_timestamp_seconds";
pub const SAGA_WAITING: &str = "saga_waiting";
pub const SAGA_OLDEST: &str = "saga_oldest_waiting_seconds";
pub const DRAW_LAST_CLOSE: &str = "draw_last_drawn_close_timestamp_seconds";
pub const DRAW_INTERVAL: &str = "draw_interval_seconds";
pub const GAME_PLAYS: &str = "game_plays_total";
pub const STAKES_HELD_BACK: &str = "stakes_held_back_total";
pub const PROGRESSIVE_POT: &str = "progressive_pot_cents";
pub const SAGA_RECOVERIES: &str = "saga_recoveries_total";
pub const LIVE_STREAMS: &str = "live_streams_open";
pub const WEBHOOKS_RECEIVED: &str = "webhooks_received_total";
pub const MAIL_DELIVERIES: &str = "mail_deliveries_total";
pub const DB_POOL_ACQUIRE: &str = "db_pool_acquire_seconds";
pub const AUDIT_CHAIN_VERIFIED: &str = "audit_chain_last_verified_timestamp_seconds";
pub const AUDIT_CHAIN_INTACT: &str = "audit_chain_intact";
pub const JACKPOT_ADVERTISED: &str = "jackpot_advertised_cents";
pub const PRINT_JOBS: &str = "print_jobs";
pub const LIMITS_REACHED: &str = "limits_reached_total";

/// Every metric a service records (the table in `docs/operations.md`).
pub const CATALOGUE: &[Metric] = &[
    metric(
        HTTP_REQUESTS,
        Type::Counter,
        &["route", "method", "status_class"],
        "requests answered, by route template (`unmatched` for none), method (`other` for one HTTP does not define) and status class (`2xx`...)",
    ),
    metric(
        HTTP_DURATION,
        Type::Histogram,
        &["route", "method", "status_class"],
        "seconds from a request's arrival to its answer",
    ),
    metric(HTTP_IN_FLIGHT, Type::Gauge, &[], "requests being answered now"),
    metric(HTTP_TOO_LARGE, Type::Counter, &[], "requests refused 413 for a declared body over the limit"),
    metric(
        HTTP_TIMEOUTS,
        Type::Counter,
        &["kind"],
        "requests abandoned at their deadline: `body` (the client's body late, 408) or `handler` (503)",
    ),
    metric(
        HTTP_RATE_LIMITED,
        Type::Counter,
        &["scope"],
        "requests refused 429 by the gateway's rate limits, per `identity` or `address`",
    ),
    metric(
        UPSTREAM_REQUESTS,
        Type::Counter,
        &["upstream", "status_class"],
        "calls to another service or an outside provider (`ledger`, `draws`, `payments`, `identity`, `location`, `mail`...) by the answer's status class (`5xx` when it did not answer; for `mail`, as the SMTP reply classes: `4xx` a failure tried again (the relay away, slow or answering 4xx), `5xx` refused for good)",
    ),
    metric(
        UPSTREAM_DURATION,
        Type::Histogram,
        &["upstream"],
        "seconds a call to another service or a provider took",
    ),
    metric(DB_POOL_CONNECTIONS, Type::Gauge, &["pool", "state"], "a pool's connections `in_use` and `idle`"),
    metric(DB_POOL_MAX, Type::Gauge, &["pool"], "a pool's most connections"),
    metric(PROCESS_MEMORY, Type::Gauge, &[], "the process's resident memory, in bytes"),
    metric(PROCESS_FDS, Type::Gauge, &[], "the process's open file descriptors"),
    metric(
        LEDGER_TRANSFERS,
        Type::Counter,
        &["game", "money", "channel"],
        "transfers the ledger applied (replays not counted), by game (`none` outside the games, instant games as `instant`, `other` for a name no game has) kind of money (`stake`, `prize`, `refund`, `payment`...) and channel (`online`, `retail`, `none` for money not a ticket's)",
    ),
    metric(
        LEDGER_CENTS,
        Type::Counter,
        &["game", "money", "channel"],
        "cents the ledger moved, as `ledger_transfers_total` counts transfers",
    ),
    metric(
        LEDGER_BATCH_SIZE,
        Type::Histogram,
        &[],
        "transfers per ledger call (a single transfer is a batch of one)",
    ),
    metric(
        LEDGER_BATCH_DURATION,
        Type::Histogram,
        &[],
        "seconds a ledger call took to apply its transfers (retries of lost races included)",
    ),
    metric(
        LEDGER_REFUSALS,
        Type::Counter,
        &["code"],
        "ledger calls refused, by the refusal's stable code (`insufficient_funds`, `limit_reached`...)",
    ),
    metric(
        LIMITS_REACHED,
        Type::Counter,
        &["kind"],
        "stakes the ledger refused at a player's money limit, by the limit's kind (`loss`, `wager`, `single_stake`); the gateway's time limits and reality checks are `stakes_held_back_total`'s",
    ),
    metric(
        LEDGER_IMBALANCE,
        Type::Gauge,
        &["currency"],
        "the trial balance's debits less credits, sampled every minute: always 0 (anything else pages)",
    ),
    metric(
        DRAW_LEADER,
        Type::Gauge,
        &[],
        "1 on the replica whose scheduler leads the draws, 0 on the others",
    ),
    metric(
        DAILY_REPORT_LAST_CLOSE,
        Type::Gauge,
        &[],
        "when the latest gaming day with its report kept closed (Unix seconds): over a day and an hour ago, a day went unreported",
    ),
    metric(
        SAGA_WAITING,
        Type::Gauge,
        &["kind"],
        "work waiting between a saga's steps, sampled every 15 s: Keno and Powerball tickets, claims, table rounds and craps requests, payments, mail, instant prize payments, print jobs",
    ),
    metric(
        SAGA_OLDEST,
        Type::Gauge,
        &["kind"],
        "seconds the oldest of `saga_waiting`'s has waited (0 when none): the recovery workers finish what is a few seconds old, so minutes is stuck",
    ),
    metric(DRAW_LATENESS, Type::Gauge, &["game"], "seconds the last draw was drawn after its close"),
    metric(DRAWS_LATE, Type::Counter, &["game"], "draws drawn more than 5 s after their close"),
    metric(
        DRAW_LAST_CLOSE,
        Type::Gauge,
        &["game"],
        "when the last draw drawn closed (Unix seconds): the time less it, past an interval and a grace, is a draw not drawn",
    ),
    metric(DRAW_INTERVAL, Type::Gauge, &["game"], "seconds between a game's draws"),
    metric(
        GAME_PLAYS,
        Type::Counter,
        &["game", "channel"],
        "plays accepted (replays not counted): Keno tickets, Powerball slips, blackjack and I Luv Suits rounds dealt, craps rolls; by game and channel (`online`, `retail`)",
    ),
    metric(
        STAKES_HELD_BACK,
        Type::Counter,
        &["code"],
        "stakes the gateway held back before a game saw them, by the refusal's code (identity not verified, location not checked, a reality check due, a time limit reached...); money limits are the ledger's `limit_reached` refusals",
    ),
    metric(
        PROGRESSIVE_POT,
        Type::Gauge,
        &["game"],
        "a progressive pot's meter in cents, as the last round read it (blackjack's Blazing 7's)",
    ),
    metric(
        SAGA_RECOVERIES,
        Type::Counter,
        &["what"],
        "items the recovery workers drove to their end after a crash or a failed step, by what they were",
    ),
    metric(LIVE_STREAMS, Type::Gauge, &[], "live-results streams (Server-Sent Events) open now"),
    metric(
        WEBHOOKS_RECEIVED,
        Type::Counter,
        &["provider", "outcome"],
        "providers' webhooks the gateway received (`payments`, `identity`), by outcome: `applied`, `replayed`, or the refusal's stable code (`bad_signature`...)",
    ),
    metric(
        MAIL_DELIVERIES,
        Type::Counter,
        &["outcome"],
        "messages handed to the mail relay: `sent`, `retrying` (a transient failure), `failed` (refused for good)",
    ),
    metric(
        DB_POOL_ACQUIRE,
        Type::Histogram,
        &["pool"],
        "seconds a probe waited for a pool's connection, every 5 s (sqlx counts no waiters: a pool whose callers wait shows here)",
    ),
    metric(
        AUDIT_CHAIN_VERIFIED,
        Type::Gauge,
        &["chain"],
        "when the significant-events chain (`events`) was last walked to its head and found intact (Unix seconds), every 5 minutes",
    ),
    metric(
        AUDIT_CHAIN_INTACT,
        Type::Gauge,
        &["chain"],
        "1 while the last walk of the chain found every event linked and hashed as stored, 0 once one did not",
    ),
    metric(
        JACKPOT_ADVERTISED,
        Type::Gauge,
        &["game"],
        "the grand prize advertised for a draw game's next drawing (Powerball's annuity), in cents, sampled every 15 s; absent until one is set",
    ),
    metric(
        PRINT_JOBS,
        Type::Gauge,
        &["source", "state"],
        "instant-ticket print jobs by where their run comes from (`generated`, `vendor_file`) and state (`queued`, `running`, `succeeded`, `failed`, `cancelled`), sampled every 15 s",
    ),
];

/// Counts a provider's webhook by what came of it: applied, replayed (`Ok(true)`), or refused
/// (its stable code: the catalogue's, so bounded).
pub fn count_webhook(provider: &'static str, outcome: Result<bool, &crate::AppError>) {
    let outcome = match outcome {
        Ok(false) => "applied".to_owned(),
        Ok(true) => "replayed".to_owned(),
        Err(e) => e.code().to_owned(),
    };
    metrics::counter!(WEBHOOKS_RECEIVED, "provider" => provider, "outcome" => outcome).increment(1);
}

/// Counts a call to another service or an outside provider by its answer's status class
/// (`2xx`...; a mail relay's SMTP reply codes fall in the same classes) and how long it took.
pub fn count_upstream_call(upstream: &'static str, status_class: &'static str, took: Duration) {
    metrics::counter!(UPSTREAM_REQUESTS, "upstream" => upstream, "status_class" => status_class).increment(1);
    metrics::histogram!(UPSTREAM_DURATION, "upstream" => upstream).record(took.as_secs_f64());
}

/// Counts a message handed to the mail relay: `sent`, `retrying` or `failed`.
pub fn count_mail(outcome: &'static str) {
    metrics::counter!(MAIL_DELIVERIES, "outcome" => outcome).increment(1);
}

/// The meter of `game`'s progressive pot, as a round just read it.
pub fn set_progressive_pot(game: &'static str, cents: i64) {
    #[allow(clippy::cast_precision_loss)] // cents far below 2^53
    metrics::gauge!(PROGRESSIVE_POT, "game" => game).set(cents as f64);
}

/// The grand prize advertised for `game`'s next drawing, as a sampler just read it.
pub fn set_jackpot_advertised(game: &'static str, cents: i64) {
    #[allow(clippy::cast_precision_loss)] // cents far below 2^53
    metrics::gauge!(JACKPOT_ADVERTISED, "game" => game).set(cents as f64);
}

/// How many print jobs of `source` are in `state`, as a sampler just counted them.
pub fn set_print_jobs(source: &'static str, state: &'static str, jobs: i64) {
    #[allow(clippy::cast_precision_loss)] // counts far below 2^53
    metrics::gauge!(PRINT_JOBS, "source" => source, "state" => state).set(jobs as f64);
}

/// Counts a stake the gateway held back before a game saw it, by `code`.
pub fn count_stake_held_back(code: &str) {
    metrics::counter!(STAKES_HELD_BACK, "code" => code.to_owned()).increment(1);
}

/// Counts one live stream open for as long as the value lives.
#[derive(Debug)]
pub struct OpenStream(());

impl OpenStream {
    pub fn new() -> OpenStream {
        metrics::gauge!(LIVE_STREAMS).increment(1.0);
        OpenStream(())
    }
}

impl Default for OpenStream {
    fn default() -> Self {
        OpenStream::new()
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        metrics::gauge!(LIVE_STREAMS).decrement(1.0);
    }
}

/// Counts one play of `game` (the ledger's game labels: `castle_keno`, `powerball`,
/// `blackjack`, `i_luv_suits`, `craps`) sold through `channel` (`online`, `retail`).
pub fn count_play(game: &'static str, channel: &'static str) {
    metrics::counter!(GAME_PLAYS, "game" => game, "channel" => channel).increment(1);
}

/// Latency buckets, in seconds: from a millisecond to a minute.
pub const LATENCY_BUCKETS: [f64; 14] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0];

/// Size buckets, in items: one to the ledger's largest batch.
pub const SIZE_BUCKETS: [f64; 10] = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0];

/// Installs the process-wide recorder now, so what is recorded before the metrics listener
/// starts (a gauge set at start) is kept.
pub fn ensure_recorder() {
    let _ = recorder();
}

/// The process-wide Prometheus recorder, installed on first use, every metric described.
pub(crate) fn recorder() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            // `LOTTO_METRICS=off`: no recorder, and every count and timing a no-op.
            if std::env::var("LOTTO_METRICS").as_deref() == Ok("off") {
                return None;
            }
            let built = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &LATENCY_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(LEDGER_BATCH_SIZE.to_owned()), &SIZE_BUCKETS)
                })
                .map_err(|e| e.to_string())
                .and_then(|b| b.install_recorder().map_err(|e| e.to_string()));
            match built {
                Ok(handle) => {
                    for m in CATALOGUE {
                        match m.kind {
                            Type::Counter => metrics::describe_counter!(m.name, m.help),
                            Type::Gauge => metrics::describe_gauge!(m.name, m.help),
                            Type::Histogram => metrics::describe_histogram!(m.name, m.help),
                        }
                    }
                    Some(handle)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed");
                    None
                }
            }
        })
        .as_ref()
}

/// The metrics as Prometheus text.
pub fn render() -> String {
    recorder().map(PrometheusHandle::render).unwrap_or_default()
}

/// A status code's class as a label: `1xx` to `5xx`.
pub fn status_class(status: axum::http::StatusCode) -> &'static str {
    match status.as_u16() / 100 {
        1 => "1xx",
        2 => "2xx",
        3 => "3xx",
        4 => "4xx",
        _ => "5xx",
    }
}

/// Every `interval`: each pool's connections in use and idle, and its most
/// (`db_pool_connections{pool, state}`, `db_pool_max_connections{pool}`), and the process's
/// resident memory and open file descriptors.
pub fn spawn_resource_gauges(
    pools: Vec<(&'static str, PgPool)>,
    interval: Duration,
) -> tokio::task::JoinHandle<()> {
    ensure_recorder();
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            for (name, pool) in &pools {
                let (size, idle) = (pool.size(), u32::try_from(pool.num_idle()).unwrap_or(u32::MAX));
                metrics::gauge!(DB_POOL_CONNECTIONS, "pool" => *name, "state" => "in_use")
                    .set(f64::from(size.saturating_sub(idle)));
                metrics::gauge!(DB_POOL_CONNECTIONS, "pool" => *name, "state" => "idle").set(f64::from(idle));
                metrics::gauge!(DB_POOL_MAX, "pool" => *name)
                    .set(f64::from(pool.options().get_max_connections()));
                metrics::histogram!(DB_POOL_ACQUIRE, "pool" => *name).record(acquire_probe(pool).await);
            }
            if let Some(bytes) = resident_memory_bytes() {
                metrics::gauge!(PROCESS_MEMORY).set(bytes);
            }
            if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
                #[allow(clippy::cast_precision_loss)] // far below 2^53
                metrics::gauge!(PROCESS_FDS).set(fds.count() as f64);
            }
        }
    })
}

/// Seconds a connection of `pool` took to come (given back at once); the probe gives up at
/// [`ACQUIRE_PROBE_LIMIT`], which it then answers.
async fn acquire_probe(pool: &PgPool) -> f64 {
    let started = std::time::Instant::now();
    match tokio::time::timeout(ACQUIRE_PROBE_LIMIT, pool.acquire()).await {
        Ok(Ok(connection)) => {
            let waited = started.elapsed();
            drop(connection);
            waited.as_secs_f64()
        }
        Ok(Err(_)) | Err(_) => started.elapsed().as_secs_f64().max(ACQUIRE_PROBE_LIMIT.as_secs_f64()),
    }
}

/// The longest the pool probe waits.
const ACQUIRE_PROBE_LIMIT: Duration = Duration::from_secs(10);

/// Work of one kind waiting between a saga's steps: how many, and since when the oldest.
#[derive(Debug, Clone)]
pub struct Backlog {
    /// A name from the service's own query (a literal: the label's values are bounded).
    pub kind: String,
    pub waiting: i64,
    pub oldest: Option<chrono::DateTime<chrono::Utc>>,
}

/// Every `interval`, the backlogs `sample` reads (a service's store query) as the gauges
/// `saga_waiting{kind}` and `saga_oldest_waiting_seconds{kind}`.
pub fn spawn_backlog_gauges<F, Fut>(sample: F, interval: Duration) -> tokio::task::JoinHandle<()>
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = Result<Vec<Backlog>, crate::AppError>> + Send,
{
    ensure_recorder();
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match sample().await {
                Ok(backlogs) => {
                    let now = chrono::Utc::now();
                    for b in backlogs {
                        #[allow(clippy::cast_precision_loss)] // counts and seconds far below 2^53
                        let (waiting, age) = (
                            b.waiting as f64,
                            b.oldest.map_or(0.0, |at| (now - at).num_milliseconds().max(0) as f64 / 1000.0),
                        );
                        metrics::gauge!(SAGA_WAITING, "kind" => b.kind.clone()).set(waiting);
                        metrics::gauge!(SAGA_OLDEST, "kind" => b.kind).set(age);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "sampling the saga backlogs failed; will retry"),
            }
        }
    })
}

/// The process's resident memory (Linux's `VmRSS`), in bytes.
fn resident_memory_bytes() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// The catalogue as the Markdown table `docs/operations.md` holds.
pub fn markdown_table() -> String {
    let mut table = String::from("| metric | type | labels | what it measures |\n|---|---|---|---|\n");
    for m in CATALOGUE {
        let labels = if m.labels.is_empty() { "-".to_owned() } else { m.labels.join(", ") };
        table.push_str(&format!("| `{}` | {} | {} | {} |\n", m.name, m.kind.as_str(), labels, m.help));
    }
    table
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_operations_page_lists_every_metric() {
        crate::doc_tables::check("docs/operations.md", "metrics", &super::markdown_table());
    }

    #[test]
    fn names_are_unique_and_counters_end_in_total() {
        let mut names: Vec<&str> = super::CATALOGUE.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), super::CATALOGUE.len());
        for m in super::CATALOGUE {
            assert_eq!(m.kind == super::Type::Counter, m.name.ends_with("_total"), "{}", m.name);
        }
    }
}
