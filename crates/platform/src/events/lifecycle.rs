//! Each process's start and stop in the log (issue 50): its software version, the SHA-256 of its
//! executable and its settings at each start; and unavailability, a process that stopped without
//! stopping cleanly, found by the next start on its machine or by any process once it has not
//! been seen for [`LAPSE`].

use std::time::Duration;

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use super::{Event, Kind};
use crate::AppError;

/// How often a running process says it is still running.
pub const SEEN_EVERY: Duration = Duration::from_secs(5);

/// A process not seen for this long (and not stopped) is taken to have stopped uncleanly.
pub const LAPSE: Duration = Duration::from_secs(30);

/// This process, as the log knows it.
#[derive(Debug, Clone)]
pub struct Instance {
    pub id: Uuid,
    pub service: &'static str,
    pool: PgPool,
}

#[derive(Serialize)]
struct Started<'a> {
    instance: Uuid,
    host: &'a str,
    pid: u32,
    version: &'a str,
    executable_sha256: &'a str,
    settings: &'a serde_json::Value,
}

/// Records this process's start (`service`, `settings` without secrets), records any process
/// found to have stopped uncleanly, and keeps saying that this one runs until it stops.
pub async fn started(
    pool: &PgPool,
    service: &'static str,
    settings: serde_json::Value,
) -> Result<Instance, AppError> {
    let id = Uuid::now_v7();
    let host = host();
    let version = env!("CARGO_PKG_VERSION");
    // The executable's digest says which build runs (a version number does not change with a
    // rebuild); read once, on a blocking thread.
    let executable_sha256 =
        tokio::task::spawn_blocking(executable_sha256).await.map_err(AppError::internal)?;
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "INSERT INTO events.processes (instance, service, host, pid, version) VALUES ($1, $2, $3, $4, $5)",
        id,
        service,
        host,
        std::process::id().cast_signed(),
        version
    )
    .execute(&mut *tx)
    .await?;
    let started = Started {
        instance: id,
        host: &host,
        pid: std::process::id(),
        version,
        executable_sha256: &executable_sha256,
        settings: &settings,
    };
    super::record(&mut tx, service, &Event::new(Kind::ProcessStarted, &started)?).await?;
    tx.commit().await?;
    record_lapses(pool, service).await?;
    let instance = Instance { id, service, pool: pool.clone() };
    let seen = instance.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(SEEN_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if let Err(e) = seen.seen().await {
                tracing::warn!(error = %e, "cannot record that this process still runs");
            }
        }
    });
    Ok(instance)
}

impl Instance {
    async fn seen(&self) -> Result<(), AppError> {
        sqlx::query!("UPDATE events.processes SET seen_at = now() WHERE instance = $1", self.id)
            .execute(&self.pool)
            .await?;
        record_lapses(&self.pool, self.service).await?;
        Ok(())
    }

    /// Records that this process stops cleanly (the last thing it does).
    pub async fn stopped(&self) -> Result<(), AppError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query!("UPDATE events.processes SET stopped_at = now() WHERE instance = $1", self.id)
            .execute(&mut *tx)
            .await?;
        #[derive(Serialize)]
        struct Stopped {
            instance: Uuid,
        }
        let event = Event::new(Kind::ProcessStopped, &Stopped { instance: self.id })?;
        super::record(&mut tx, self.service, &event).await?;
        tx.commit().await?;
        Ok(())
    }
}

#[derive(Serialize)]
struct Lapse {
    instance: Uuid,
    service: String,
    host: String,
    started_at: String,
    last_seen_at: String,
    /// `process_gone` (its machine has no such process any more) or `not_seen`.
    found_by: &'static str,
}

/// Records, once each, the processes that stopped without stopping cleanly: those of this
/// machine whose process is gone, and any not seen for [`LAPSE`].
pub async fn record_lapses(pool: &PgPool, service: &str) -> Result<usize, AppError> {
    let here = host();
    let mut tx = pool.begin().await?;
    let candidates = sqlx::query!(
        r#"SELECT instance, service, host, pid, started_at, seen_at, now() - seen_at > make_interval(secs => $1) AS "lapsed!"
             FROM events.processes
            WHERE stopped_at IS NULL AND lapse_recorded_at IS NULL
            FOR UPDATE SKIP LOCKED"#,
        LAPSE.as_secs_f64()
    )
    .fetch_all(&mut *tx)
    .await?;
    let mut events = Vec::new();
    let mut lapsed = Vec::new();
    for row in candidates {
        let gone = row.host == here && !process_runs(row.pid);
        if !(gone || row.lapsed) {
            continue;
        }
        let lapse = Lapse {
            instance: row.instance,
            service: row.service,
            host: row.host,
            started_at: super::chain::stamp(row.started_at),
            last_seen_at: super::chain::stamp(row.seen_at),
            found_by: if gone { "process_gone" } else { "not_seen" },
        };
        events.push(Event::new(Kind::Unavailability, &lapse)?);
        lapsed.push(row.instance);
    }
    if lapsed.is_empty() {
        return Ok(0);
    }
    sqlx::query!("UPDATE events.processes SET lapse_recorded_at = now() WHERE instance = ANY($1)", &lapsed)
        .execute(&mut *tx)
        .await?;
    super::record_all(&mut tx, service, &events).await?;
    tx.commit().await?;
    Ok(lapsed.len())
}

/// Whether process `pid` of this machine still runs (a pid reused since is taken as alive, and
/// found after [`LAPSE`] instead).
fn process_runs(pid: i32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The settings a start records: every `LOTTO_*` variable the environment sets (the value of
/// any whose name says it holds a secret replaced by `(set)`), and the shared settings in force.
pub fn settings(config: &crate::config::Config) -> serde_json::Value {
    let secret =
        |name: &str| ["SECRET", "KEY", "PASSWORD", "TOKEN", "CODE"].iter().any(|word| name.contains(word));
    let mut environment: Vec<(String, String)> = std::env::vars()
        .filter(|(name, _)| name.starts_with("LOTTO_"))
        .map(|(name, value)| if secret(&name) { (name, "(set)".to_owned()) } else { (name, value) })
        .collect();
    environment.sort();
    serde_json::json!({
        "environment": environment.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect::<serde_json::Map<_, _>>(),
        "listen": config.listen.to_string(),
        "db_max_connections": config.db_max_connections,
        "body_limit_bytes": config.body_limit_bytes,
        "request_timeout_ms": u64::try_from(config.request_timeout.as_millis()).unwrap_or(u64::MAX),
        "access_token_ttl_s": config.access_token_ttl.as_secs(),
        "metrics_listen": config.metrics_listen.map(|a| a.to_string()),
    })
}

/// What every process does with the log as it starts: runs a chainer
/// ([`super::chain::spawn_chainer`]) and the chain's watch ([`super::watch::spawn_watch`]) and records its start (and any process found gone) beside
/// its start-up, not before it: hashing the executable takes a while (a debug build is hundreds
/// of megabytes), and the process listens meanwhile. Call [`Running::stopped`] as it stops
/// cleanly.
pub fn run(pool: &PgPool, service: &'static str, config: &crate::config::Config) -> Running {
    super::chain::spawn_chainer(pool.clone(), super::chain::CHAIN_EVERY);
    super::watch::spawn_watch(pool.clone(), super::watch::WATCH_EVERY);
    let (pool, settings) = (pool.clone(), settings(config));
    Running(tokio::spawn(async move {
        match started(&pool, service, settings).await {
            Ok(instance) => Some(instance),
            Err(e) => {
                tracing::warn!(error = %e, "this process's start could not be recorded in the significant-events log");
                None
            }
        }
    }))
}

/// A process whose start is being (or has been) recorded.
#[derive(Debug)]
pub struct Running(tokio::task::JoinHandle<Option<Instance>>);

impl Running {
    /// Records that this process stops cleanly, once its start is recorded (the last thing it
    /// does).
    pub async fn stopped(self) -> Result<(), AppError> {
        match self.0.await {
            Ok(Some(instance)) => instance.stopped().await,
            _ => Ok(()),
        }
    }
}

/// This machine's name.
pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn executable_sha256() -> String {
    use sha2::Digest;
    let digest = std::env::current_exe().and_then(std::fs::File::open).and_then(|mut file| {
        let mut hasher = sha2::Sha256::new();
        std::io::copy(&mut file, &mut hasher)?;
        Ok(hasher.finalize())
    });
    digest.map(hex::encode).unwrap_or_else(|e| format!("unreadable: {e}"))
}
