//! Print jobs as stored: queued, taken by a worker under a lease it renews with each pool's
//! progress, then succeeded (with its run), failed or cancelled.

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

use super::{JobSource, JobState};

/// How long a running job's lease lasts without progress before another worker takes it up.
pub const LEASE_SECONDS: f64 = 120.0;

/// A print job's row.
#[derive(Debug, Clone)]
pub struct PrintJobRow {
    pub id: Uuid,
    pub game: i32,
    pub state: JobState,
    pub tickets_total: i64,
    pub tickets_generated: i64,
    pub tickets_stored: i64,
    pub file_written: bool,
    pub attempts: i32,
    pub cancel_requested: bool,
    pub print_run: Option<Uuid>,
    pub error: Option<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub source: JobSource,
    pub vendor_file: Option<String>,
}

/// Queues a job for `game`'s whole order of `tickets`: generated, or imported from the vendor's
/// file `vendor_file` (a name in the vendor inbox).
pub async fn insert(
    pool: &PgPool,
    id: Uuid,
    game: i32,
    tickets: i64,
    created_by: &str,
    vendor_file: Option<&str>,
) -> Result<PrintJobRow, AppError> {
    Ok(sqlx::query_as!(
        PrintJobRow,
        r#"INSERT INTO print_jobs (id, game, state, tickets_total, created_by, source, vendor_file)
           VALUES ($1, $2, 'queued', $3, $4, CASE WHEN $5::text IS NULL THEN 'generated' ELSE 'vendor_file' END, $5)
           RETURNING id, game, state AS "state: JobState", tickets_total, tickets_generated, tickets_stored,
                     file_written, attempts, cancel_requested, print_run, error, created_by, created_at, started_at,
                     finished_at, source AS "source: JobSource", vendor_file"#,
        id,
        game,
        tickets,
        created_by,
        vendor_file
    )
    .fetch_one(pool)
    .await?)
}

/// Job `id`.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<PrintJobRow>, AppError> {
    Ok(sqlx::query_as!(
        PrintJobRow,
        r#"SELECT id, game, state AS "state: JobState", tickets_total, tickets_generated, tickets_stored,
                  file_written, attempts, cancel_requested, print_run, error, created_by, created_at, started_at,
                  finished_at, source AS "source: JobSource", vendor_file
             FROM print_jobs WHERE id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?)
}

/// The newest `limit` jobs.
pub async fn list(
    pool: &PgPool,
    after: Option<platform::TimeIdCursor>,
    limit: i64,
) -> Result<Vec<PrintJobRow>, AppError> {
    Ok(sqlx::query_as!(
        PrintJobRow,
        r#"SELECT id, game, state AS "state: JobState", tickets_total, tickets_generated, tickets_stored,
                  file_written, attempts, cancel_requested, print_run, error, created_by, created_at, started_at,
                  finished_at, source AS "source: JobSource", vendor_file
             FROM print_jobs WHERE ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
            ORDER BY created_at DESC, id DESC LIMIT $1"#,
        limit,
        after.map(|c| c.at),
        after.map(|c| c.id)
    )
    .fetch_all(pool)
    .await?)
}

/// Takes job `id` (when given) or the oldest waiting job: queued, or running with its lease run
/// out (its worker died; its transaction died with it). Starts it again from nothing.
pub async fn take(pool: &PgPool, id: Option<Uuid>) -> Result<Option<PrintJobRow>, AppError> {
    Ok(sqlx::query_as!(
        PrintJobRow,
        r#"UPDATE print_jobs SET state = 'running', attempts = attempts + 1, tickets_generated = 0, tickets_stored = 0,
                  lease_until = now() + make_interval(secs => $2), started_at = now()
            WHERE id = (SELECT id FROM print_jobs
                         WHERE (state = 'queued' OR (state = 'running' AND lease_until < now()))
                           AND ($1::uuid IS NULL OR id = $1)
                         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, game, state AS "state: JobState", tickets_total, tickets_generated, tickets_stored,
                      file_written, attempts, cancel_requested, print_run, error, created_by, created_at, started_at,
                      finished_at, source AS "source: JobSource", vendor_file"#,
        id,
        LEASE_SECONDS
    )
    .fetch_optional(pool)
    .await?)
}

/// A connection of its own for a running job's progress, outside the pool: the run's transaction
/// holds a pooled connection for its whole length, and a pool of one must not wait on itself.
#[derive(Debug)]
pub struct ProgressLine(PgConnection);

impl ProgressLine {
    pub async fn open(pool: &PgPool) -> Result<ProgressLine, AppError> {
        Ok(ProgressLine(PgConnection::connect_with(&pool.connect_options()).await?))
    }

    /// Records the job's progress and renews its lease; returns whether a cancel was asked.
    pub async fn report(&mut self, id: Uuid, generated: i64, stored: i64) -> Result<bool, AppError> {
        progress(&mut self.0, id, generated, stored).await
    }
}

async fn progress(conn: &mut PgConnection, id: Uuid, generated: i64, stored: i64) -> Result<bool, AppError> {
    let cancel = sqlx::query_scalar!(
        "UPDATE print_jobs SET tickets_generated = $2, tickets_stored = $3, lease_until = now() + make_interval(secs => $4)
          WHERE id = $1 AND state = 'running' RETURNING cancel_requested",
        id,
        generated,
        stored,
        LEASE_SECONDS
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(cancel.unwrap_or(true))
}

/// Running → `state` (succeeded with its run, failed with its error, or cancelled).
pub async fn finish(
    pool: &PgPool,
    id: Uuid,
    state: JobState,
    print_run: Option<Uuid>,
    error: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE print_jobs SET state = $2, print_run = $3, error = $4, finished_at = now(), lease_until = NULL,
                file_written = ($2 = 'succeeded'),
                tickets_stored = CASE WHEN $2 = 'succeeded' THEN tickets_total ELSE tickets_stored END
          WHERE id = $1 AND state = 'running'",
        id,
        state as JobState,
        print_run,
        error
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Asks job `id` to stop: a queued job is cancelled at once, a running one at its next pool.
/// Returns the job as it stands; none when there is no such job.
pub async fn request_cancel(pool: &PgPool, id: Uuid) -> Result<Option<PrintJobRow>, AppError> {
    sqlx::query!(
        "UPDATE print_jobs SET cancel_requested = true,
                state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
                finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END
          WHERE id = $1 AND state IN ('queued', 'running')",
        id
    )
    .execute(pool)
    .await?;
    get(pool, id).await
}

/// How many jobs there are of each source and state (the print-job gauges of
/// `platform::metrics`); a pair with none is not listed.
pub async fn count_by_source_and_state(pool: &PgPool) -> Result<Vec<(JobSource, JobState, i64)>, AppError> {
    let rows = sqlx::query!(
        r#"SELECT source AS "source: JobSource", state AS "state: JobState", count(*) AS "jobs!"
             FROM print_jobs GROUP BY source, state"#
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| (r.source, r.state, r.jobs)).collect())
}
