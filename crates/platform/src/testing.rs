//! Test support: every test gets a database of its own on the real local Postgres.
//!
//! `TEST_DATABASE_URL` names the server (default `postgres://postgres@127.0.0.1:5432/postgres`).
//! Databases are named `lotto_test_<unix seconds>_<process id>_<random>`. A test process keeps
//! its databases while it runs (a failed test's is worth a look then); the first database a
//! process makes drops every one whose process has ended (another test binary of the run, or an
//! interrupted run) and any older than 30 minutes. So a run of the whole suite leaves only its
//! last binary's, and the next run drops those: ten runs do not fill the disk.

use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{Connection, PgConnection};

use crate::db::{DbError, parse_url};

/// The server tests run against.
pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// Creates an empty database and returns its URL.
pub async fn fresh_database() -> Result<String, DbError> {
    let admin = parse_url(&server_url())?;
    let mut conn = with_room(&admin).await?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    static SWEPT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if SWEPT.set(()).is_ok() {
        drop_stale_databases(&mut conn, now).await?;
    }
    let name = format!("lotto_test_{now}_{}_{}", std::process::id(), uuid::Uuid::new_v4().simple());
    sqlx::query(&format!("CREATE DATABASE \"{name}\"")).execute(&mut conn).await?;
    conn.close().await?;
    let mut url = server_url();
    let base = url.rfind('/').map_or(url.len(), |i| i.saturating_add(1));
    url.replace_range(base.., &name);
    Ok(url)
}

/// A fresh database `lotto_bench_<name>` for a benchmark, on the server `BENCH_SERVER_URL` names
/// (default `postgres://postgres@127.0.0.1:5432`); returns its URL. A previous run's is dropped.
pub async fn bench_database(name: &str) -> Result<String, DbError> {
    let server =
        std::env::var("BENCH_SERVER_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".to_owned());
    let admin = parse_url(&format!("{server}/postgres"))?;
    let mut conn = PgConnection::connect_with(&admin).await.map_err(DbError::Connect)?;
    let database = format!("lotto_bench_{name}");
    sqlx::query(&format!("DROP DATABASE IF EXISTS \"{database}\" WITH (FORCE)")).execute(&mut conn).await?;
    sqlx::query(&format!("CREATE DATABASE \"{database}\"")).execute(&mut conn).await?;
    conn.close().await?;
    Ok(format!("{server}/{database}"))
}

/// The free connections a test waits for before it makes its database: a test's platform
/// holds up to its budget (`crate::db::default_budget`, 24 on two cores) and a few besides.
const ROOM_FOR_A_TEST: i64 = 30;

/// A connection to the server once it has [`ROOM_FOR_A_TEST`] connections free, waiting up to
/// a minute (then as it is). A test binary runs its tests at once, each with a platform of its
/// own, on a server shared with whatever else runs: a test that starts while the others hold
/// nearly all of `max_connections` waits for them rather than failing on "too many clients".
async fn with_room(admin: &sqlx::postgres::PgConnectOptions) -> Result<PgConnection, DbError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let waited_enough = std::time::Instant::now() >= deadline;
        match PgConnection::connect_with(admin).await {
            Ok(mut conn) => {
                let (max, reserved, in_use) = crate::db::connections(&mut conn).await?;
                if i64::from(max - reserved) - in_use >= ROOM_FOR_A_TEST || waited_enough {
                    return Ok(conn);
                }
                conn.close().await?;
            }
            // 53300: too many connections.
            Err(sqlx::Error::Database(e)) if !waited_enough && e.code().as_deref() == Some("53300") => {}
            Err(e) => return Err(DbError::Connect(e)),
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

async fn drop_stale_databases(conn: &mut PgConnection, now: u64) -> Result<(), DbError> {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'lotto\\_test\\_%'")
            .fetch_all(&mut *conn)
            .await?;
    for name in names {
        let mut parts = name.split('_').skip(2);
        let created = parts.next().and_then(|s| s.parse::<u64>().ok()).unwrap_or(now);
        // Databases named before the process id was part of the name have none: judged by age.
        let ended = parts.next().and_then(|s| s.parse::<u32>().ok()).is_some_and(|pid| {
            pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        });
        if ended || now.saturating_sub(created) > 30 * 60 {
            // Best effort: another run may be dropping it at the same moment.
            let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .execute(&mut *conn)
                .await;
        }
    }
    Ok(())
}

/// A service's answer, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: axum::http::StatusCode,
    pub headers: axum::http::HeaderMap,
    /// The JSON body (`null` when empty; a string when it is not JSON).
    pub body: serde_json::Value,
}

impl Reply {
    /// The problem code of an error reply (empty on success).
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
}

/// Serves `app` on a loopback socket of the system's choosing, as a benchmark's clients reach
/// it; returns its base URL.
pub async fn serve_on_loopback(app: axum::Router) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(crate::http::serve(listener, app, std::future::pending()));
    Ok(url)
}

fn is_event_stream(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// A stream of Server-Sent Events never ends by itself: what it sends as its
/// first events (what comes within 200 ms of the last; nothing, if none comes in five), as a test reads it.
async fn first_events(body: axum::body::Body) -> axum::body::Bytes {
    use http_body_util::BodyExt;
    let mut body = body;
    let mut read = Vec::new();
    let mut wait = std::time::Duration::from_secs(5);
    while let Ok(Some(Ok(frame))) = tokio::time::timeout(wait, body.frame()).await {
        if let Ok(data) = frame.into_data() {
            read.extend_from_slice(&data);
            wait = std::time::Duration::from_millis(200);
        }
    }
    read.into()
}

/// Calls `router` without a socket. Every error must be problem+json with a code: a test that
/// sees anything else fails here, whatever it was checking.
pub async fn send(router: &axum::Router, request: axum::http::Request<axum::body::Body>) -> Reply {
    use tower::ServiceExt;
    let response = match router.clone().oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = if is_event_stream(&headers) {
        first_events(response.into_body()).await
    } else {
        axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap_or_default()
    };
    let body = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    if !status.is_success() {
        let content_type = headers.get(axum::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        assert_eq!(
            content_type,
            Some(crate::error::PROBLEM_JSON),
            "error {status} without problem+json: {body}"
        );
        assert!(body["code"].is_string(), "problem without a code: {body}");
        let code = body["code"].as_str().unwrap_or("");
        assert!(
            crate::codes::is_listed(code, status.as_u16()),
            "problem code `{code}` ({status}) is not in platform::codes: add it there and to docs/errors.md"
        );
        let detail = body["detail"].as_str().unwrap_or("");
        let unreadable = crate::words::unreadable(detail);
        assert!(
            unreadable.is_none(),
            "problem `{code}` has {} in its detail, which a person reads: {detail:?}",
            unreadable.unwrap_or_default()
        );
    }
    Reply { status, headers, body }
}

/// What a closed-loop load run measured.
#[derive(Debug, Default)]
pub struct LoadRun {
    /// Every request's latency, sorted.
    pub latencies: Vec<std::time::Duration>,
    /// Units of work done (requests, or transfers when a request carries many).
    pub units: u64,
    /// Wall time of the run, in seconds.
    pub seconds: f64,
    /// CPU time the whole machine spent busy during the run (every process: the services,
    /// Postgres, the load itself), in seconds; 0 where `/proc/stat` cannot be read.
    pub busy_cpu_seconds: f64,
    /// Of it, the CPU time of this process (the load and, in a benchmark that starts the service
    /// in its own process, the service) and of every Postgres process, in seconds; 0 where `/proc`
    /// cannot be read. What a unit costs each side: the capacity model's figures (issue 52).
    pub own_cpu_seconds: f64,
    pub postgres_cpu_seconds: f64,
}

impl LoadRun {
    /// Adds another run's figures (benchmarks alternate scenarios in rounds).
    pub fn absorb(&mut self, other: LoadRun) {
        self.latencies.extend(other.latencies);
        self.latencies.sort();
        self.units = self.units.saturating_add(other.units);
        self.seconds += other.seconds;
        self.busy_cpu_seconds += other.busy_cpu_seconds;
        self.own_cpu_seconds += other.own_cpu_seconds;
        self.postgres_cpu_seconds += other.postgres_cpu_seconds;
    }

    /// This process's and Postgres' CPU time per unit of work, in milliseconds.
    pub fn own_and_postgres_cpu_ms_per_unit(&self) -> (f64, f64) {
        #[allow(clippy::cast_precision_loss)]
        let units = (self.units as f64).max(1.0);
        (self.own_cpu_seconds * 1000.0 / units, self.postgres_cpu_seconds * 1000.0 / units)
    }

    /// A line saying what a `unit` cost in CPU each side, for a benchmark to print under its rate
    /// (the figures `docs/capacity.md` is built from).
    pub fn cpu_note(&self, unit: &str) -> String {
        let (own, postgres) = self.own_and_postgres_cpu_ms_per_unit();
        format!(
            "  CPU a {unit}: {own:.3} ms in this process (the load and the services), {postgres:.3} ms in Postgres, \
             {:.3} ms the whole machine",
            self.cpu_ms_per_unit()
        )
    }

    /// The machine's busy CPU time per unit of work, in milliseconds: what a unit costs, as
    /// opposed to how long it waits (a closed loop's rate is bounded by either).
    pub fn cpu_ms_per_unit(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let units = self.units as f64;
        self.busy_cpu_seconds * 1000.0 / units.max(1.0)
    }

    pub fn per_second(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let units = self.units as f64;
        units / self.seconds.max(f64::MIN_POSITIVE)
    }

    /// The `p` quantile (0 to 1) of latency, in milliseconds.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        let last = self.latencies.len().saturating_sub(1);
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let index = ((last as f64) * p.clamp(0.0, 1.0)).round() as usize;
        self.latencies.get(index).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    }
}

/// `clients` clients, each sending one request every `every` for `duration` whether or not its
/// last one has been answered (an open loop: a fixed offered rate, as terminals at a counter
/// make it), so the latencies are those at that rate and not at saturation.
pub async fn open_loop<F, Fut>(
    clients: usize,
    every: std::time::Duration,
    duration: std::time::Duration,
    request: F,
) -> LoadRun
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = u64> + Send + 'static,
{
    use std::sync::{Arc, Mutex};
    let request = Arc::new(request);
    let done: Arc<Mutex<LoadRun>> = Arc::new(Mutex::new(LoadRun::default()));
    let cpu_before = CpuReading::now();
    let started = std::time::Instant::now();
    let mut clients_tasks = Vec::with_capacity(clients);
    for client in 0..clients {
        let (request, done) = (Arc::clone(&request), Arc::clone(&done));
        // Clients start spread over one interval, not all at once.
        let offset = every.mul_f64(client as f64 / clients.max(1) as f64);
        clients_tasks.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            let mut ticker = tokio::time::interval(every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
            let mut inflight = Vec::new();
            while started.elapsed() < duration {
                ticker.tick().await;
                let (request, done) = (Arc::clone(&request), Arc::clone(&done));
                inflight.push(tokio::spawn(async move {
                    let t = std::time::Instant::now();
                    let units = request(client).await;
                    let elapsed = t.elapsed();
                    let mut run = done.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    run.latencies.push(elapsed);
                    run.units = run.units.saturating_add(units);
                }));
            }
            for task in inflight {
                let _ = task.await;
            }
        }));
    }
    for task in clients_tasks {
        let _ = task.await;
    }
    let mut total = std::mem::take(&mut *done.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    total.latencies.sort_unstable();
    total.seconds = started.elapsed().as_secs_f64();
    cpu_before.charge_since(&mut total);
    total
}

/// The machine's CPU time since boot, in seconds by state, all CPUs (the first line of
/// `/proc/stat`: user, nice, system, idle, iowait, irq, softirq, steal, ...); None where it
/// cannot be read.
pub fn machine_cpu_reading() -> Option<Vec<f64>> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> =
        stat.lines().next()?.split_whitespace().skip(1).map_while(|t| t.parse().ok()).collect();
    // The kernel reports in USER_HZ, 100 on every Linux architecture this runs on.
    #[allow(clippy::cast_precision_loss)]
    Some(ticks.iter().map(|&t| t as f64 / 100.0).collect())
}

/// The machine's busy CPU time since boot, in seconds (all CPUs: user, nice, system, irq and
/// softirq; not idle, iowait, nor the time a hypervisor gave this machine's CPUs to others,
/// which is not work done here); None where that cannot be read.
pub fn machine_busy_cpu_seconds() -> Option<f64> {
    let states = machine_cpu_reading()?;
    Some([0, 1, 2, 5, 6].iter().filter_map(|&i| states.get(i)).sum())
}

/// The share of the machine's CPU time a hypervisor gave to others since a reading of
/// [`machine_cpu_reading`] (its `steal`): on a shared host, what makes one run slower than the next.
pub fn machine_stolen_share_since(before: &Option<Vec<f64>>) -> Option<f64> {
    let (before, now) = (before.as_ref()?, machine_cpu_reading()?);
    let total: f64 = now.iter().take(8).zip(before).map(|(n, b)| n - b).sum();
    let stolen = now.get(7)? - before.get(7)?;
    (total > 0.0).then(|| stolen / total)
}

/// A benchmark's setting `name` (how long a scenario runs, how many tickets a draw holds): the
/// environment's value where set; else `quick` under `BENCH_QUICK=1`, the mode in which
/// `cargo bench --workspace` runs every benchmark in a few minutes, to compare a change before and
/// after in one sitting (smaller, so noisier: a full run is what the benchmarks page quotes);
/// else `full`.
pub fn bench_knob<T>(name: &'static str, full: T, quick: T) -> Result<T, crate::config::ConfigError>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let quick_mode = std::env::var("BENCH_QUICK").is_ok_and(|v| !matches!(v.trim(), "" | "0"));
    crate::config::env_or(name, if quick_mode { quick } else { full })
}

/// The CPU time process `pid` has used (user and system, all its threads), in seconds; None
/// where `/proc/{pid}/stat` cannot be read. A benchmark's cost per unit of one process, apart
/// from the machine's (which counts Postgres and the load too).
pub fn process_cpu_seconds(pid: u32) -> Option<f64> {
    let [user, system] = cpu_ticks(&format!("/proc/{pid}/stat"))?;
    Some(ticks_seconds(user + system))
}

/// This process's own CPU time and that of its children that have ended and been waited for
/// (a benchmark running `pgbench`), in seconds.
pub fn own_and_children_cpu_seconds() -> Option<(f64, f64)> {
    let [user, system, children_user, children_system] = cpu_ticks("/proc/self/stat")?;
    Some((ticks_seconds(user + system), ticks_seconds(children_user + children_system)))
}

/// The first `N` of the CPU times in a `/proc/<pid>/stat` (utime, stime, cutime, cstime), in
/// clock ticks.
fn cpu_ticks<const N: usize>(path: &str) -> Option<[u64; N]> {
    let stat = std::fs::read_to_string(path).ok()?;
    // After "pid (comm) ": state, ppid, ... ; utime is the 12th field.
    let (_, rest) = stat.rsplit_once(')')?;
    let ticks: Vec<u64> =
        rest.split_whitespace().skip(11).take(N).map(|t| t.parse().ok()).collect::<Option<_>>()?;
    ticks.try_into().ok()
}

/// Clock ticks in seconds: USER_HZ is 100 on every Linux architecture this runs on.
#[allow(clippy::cast_precision_loss)]
fn ticks_seconds(ticks: u64) -> f64 {
    ticks as f64 / 100.0
}

/// The CPU time every process called `postgres` has used, in seconds (a connection that ended
/// takes its time with it: the benchmarks' pools keep theirs); None where `/proc` cannot be read.
pub fn postgres_cpu_seconds() -> Option<f64> {
    let mut total = 0.0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let is_postgres =
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "postgres");
        if is_postgres {
            total += process_cpu_seconds(pid).unwrap_or(0.0);
        }
    }
    Some(total)
}

/// CPU readings at the start of a load run: the machine's, this process's and Postgres'.
struct CpuReading {
    machine: Option<f64>,
    own: Option<f64>,
    postgres: Option<f64>,
}

impl CpuReading {
    fn now() -> Self {
        CpuReading {
            machine: machine_busy_cpu_seconds(),
            own: process_cpu_seconds(std::process::id()),
            postgres: postgres_cpu_seconds(),
        }
    }

    /// Sets `run`'s CPU figures to the time spent since this reading (0 where one is missing).
    fn charge_since(&self, run: &mut LoadRun) {
        let now = CpuReading::now();
        let since = |before: Option<f64>, now: Option<f64>| before.zip(now).map_or(0.0, |(b, n)| n - b);
        run.busy_cpu_seconds = since(self.machine, now.machine);
        run.own_cpu_seconds = since(self.own, now.own);
        run.postgres_cpu_seconds = since(self.postgres, now.postgres);
    }
}

/// Runs `clients` loops for `duration`, each awaiting `request(client)` again and again; a
/// request returns how many units of work it did. For benchmark programs.
pub async fn closed_loop<F, Fut>(clients: usize, duration: std::time::Duration, request: F) -> LoadRun
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = u64> + Send,
{
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let request = Arc::new(request);
    let stop = Arc::new(AtomicBool::new(false));
    let cpu_before = CpuReading::now();
    let started = std::time::Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|client| {
            let (request, stop) = (Arc::clone(&request), Arc::clone(&stop));
            tokio::spawn(async move {
                let mut run = LoadRun::default();
                while !stop.load(Ordering::Relaxed) {
                    let t = std::time::Instant::now();
                    let units = request(client).await;
                    run.latencies.push(t.elapsed());
                    run.units = run.units.saturating_add(units);
                }
                run
            })
        })
        .collect();
    tokio::time::sleep(duration).await;
    stop.store(true, Ordering::Relaxed);
    let mut total = LoadRun::default();
    for task in tasks {
        if let Ok(run) = task.await {
            total.absorb(run);
        }
    }
    total.seconds = started.elapsed().as_secs_f64();
    cpu_before.charge_since(&mut total);
    total
}

/// Whether `plan` (from [`crate::group_commit::generic_plan`]) reads its tables only by index
/// scans on `indexes`, each of them used: no sequential, bitmap or other index scan, no hash or
/// merge join. The error says what it does instead, with the plan.
pub fn reads_by_key(plan: &[String], indexes: &[&str]) -> Result<(), String> {
    let text = plan.join("\n");
    let mut used = Vec::new();
    for line in plan {
        let line = line.trim_start_matches([' ', '-', '>']);
        // The batch's own arrays, unnested, and the statement's own results (`WITH`).
        if line.starts_with("Function Scan on ")
            || line.starts_with("CTE Scan on ")
            || !line.contains(" Scan ")
        {
            continue;
        }
        let index = line
            .strip_prefix("Index Scan using ")
            .or_else(|| line.strip_prefix("Index Only Scan using "))
            .and_then(|rest| rest.split(' ').next());
        match index {
            Some(index) if indexes.contains(&index) => used.push(index.to_owned()),
            _ => return Err(format!("reads a table otherwise than by key ({line}):\n{text}")),
        }
    }
    if text.contains("Hash") || text.contains("Merge") {
        return Err(format!("joins by hash or merge:\n{text}"));
    }
    match indexes.iter().find(|index| !used.iter().any(|u| u == *index)) {
        Some(index) => Err(format!("does not use {index}:\n{text}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU readers see this process's own work: a busy loop shows (however busy the machine
    /// is, within a minute).
    #[test]
    fn cpu_time_is_read_from_proc() {
        let (own_before, _) = own_and_children_cpu_seconds().unwrap();
        let started = std::time::Instant::now();
        let mut spin = 0u64;
        let mut own = own_before;
        while own - own_before < 0.05 && started.elapsed() < std::time::Duration::from_secs(60) {
            for _ in 0..1_000_000 {
                spin = std::hint::black_box(spin.wrapping_add(1));
            }
            own = own_and_children_cpu_seconds().unwrap().0;
        }
        assert!(own - own_before >= 0.05, "{own_before} -> {own}");
        assert!(own_and_children_cpu_seconds().unwrap().1 >= 0.0);
        assert!(process_cpu_seconds(std::process::id()).unwrap() >= own - 0.05);
        assert_eq!(process_cpu_seconds(u32::MAX), None, "no such process");
    }
}
