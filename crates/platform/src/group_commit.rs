//! Group commit: small writes that arrive together share one transaction, and so one WAL flush
//! (or, with [`BatchRun`], one call to another service).
//!
//! A busy service making one tiny transaction per request spends most of its database time
//! committing. A [`GroupCommit`] runs one writer task that takes every job waiting in its queue
//! (up to a batch size), writes them all in one transaction and answers each caller. Callers
//! still wait for their own write to be durable before answering, so nothing is acknowledged that
//! a crash could lose. When a batch fails, each of its jobs is written again alone, so one bad job
//! never fails the others.

use std::future::Future;
use std::sync::Arc;
use tracing::Instrument;

use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use tokio::sync::{mpsc, oneshot};

use crate::AppError;

/// What a group-committed writer writes: a batch of jobs, inside one transaction.
pub trait BatchWrite: Send + Sync + 'static {
    type Job: Send + Sync + 'static;
    type Output: Send + 'static;

    /// Writes `jobs` on `conn` (inside a transaction the caller commits); one output per job,
    /// in order.
    fn write_batch<'c>(
        &'c self,
        conn: &'c mut PgConnection,
        jobs: &'c [Self::Job],
    ) -> impl Future<Output = Result<Vec<Self::Output>, AppError>> + Send + 'c;
}

/// Any work that is cheaper done for many jobs at once: a [`BatchWrite`] in one transaction, or
/// one call to another service carrying many requests.
pub trait BatchRun: Send + Sync + 'static {
    type Job: Send + Sync + 'static;
    type Output: Send + 'static;

    /// Runs `jobs` together, all or nothing; one output per job, in order.
    fn run_batch<'a>(
        &'a self,
        jobs: &'a [Self::Job],
    ) -> impl Future<Output = Result<Vec<Self::Output>, AppError>> + Send + 'a;
}

/// A [`BatchWrite`] run in a transaction of its own.
#[derive(Debug)]
pub struct InTransaction<W> {
    pool: PgPool,
    writer: W,
}

/// Every write of a group commit finds its rows by key (a batch's keys joined to their table),
/// so its plans may not scan a table nor hash it. A statement is planned once per connection for
/// all its later runs (a generic plan); one planned while a table looked small (a fresh database,
/// or one not yet analysed) would otherwise scan that table at every run however large it grew:
/// craps claims did, reading every version of every session each time (ADR 0010, session 14).
/// The ledger's `create_transfers` is planned under the same settings.
///
/// One trap these settings do not close: a statement naming the state its rows must be in
/// (`t.state = 'drawn'`) lets the planner prove the predicate of a partial index of unfinished
/// rows and read that whole index once instead of each row by its key, a plan that costs more
/// with every unfinished (or dead) row. Such conditions are written `(t.state = 'drawn') IS
/// TRUE`, the same test in a form no index predicate is proved from.
///
/// The settings are sent with the `BEGIN`, in one round trip.
const BEGIN_BY_KEY_ONLY: &str = "BEGIN; SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off";

impl<W: BatchWrite> BatchRun for InTransaction<W> {
    type Job = W::Job;
    type Output = W::Output;

    async fn run_batch(&self, jobs: &[W::Job]) -> Result<Vec<W::Output>, AppError> {
        let mut tx = self.pool.begin_with(BEGIN_BY_KEY_ONLY).await?;
        let outputs = self.writer.write_batch(&mut tx, jobs).await?;
        tx.commit().await?;
        Ok(outputs)
    }
}

/// A [`BatchWrite`] whose batch is one statement, and so atomic by itself: sent without a
/// transaction, on a connection of a [`crate::db::by_key_pool`] (planned under the same settings
/// as [`InTransaction`]'s), in one round trip where a transaction takes three. Its writer must
/// run exactly one statement per batch: a second would commit apart from the first.
///
/// The connection is kept from one batch to the next (the writer runs one batch at a time):
/// given back to a pool, the driver tests it with a round trip of its own. A batch that fails
/// gives it up, so a connection the server dropped is replaced at the next batch.
#[derive(Debug)]
pub struct OneStatement<W> {
    by_key: PgPool,
    held: tokio::sync::Mutex<Option<PoolConnection<Postgres>>>,
    writer: W,
}

impl<W: BatchWrite> BatchRun for OneStatement<W> {
    type Job = W::Job;
    type Output = W::Output;

    async fn run_batch(&self, jobs: &[W::Job]) -> Result<Vec<W::Output>, AppError> {
        let mut held = self.held.lock().await;
        let mut conn = match held.take() {
            Some(conn) => conn,
            None => self.by_key.acquire().await?,
        };
        let outputs = self.writer.write_batch(&mut conn, jobs).await?;
        *held = Some(conn);
        Ok(outputs)
    }
}

/// The plan `sql` (a group-committed write) gets when it is planned once for all its runs (a
/// generic plan) under the settings its transaction runs with, as `EXPLAIN` prints it: for tests
/// that a write finds its rows by key on a fresh database, where a plan trap is made. Nothing is
/// written (the statement is only prepared and explained, and the transaction rolled back).
pub async fn generic_plan(pool: &PgPool, sql: &str) -> Result<Vec<String>, sqlx::Error> {
    let params = (1..=32).take_while(|n| sql.contains(&format!("${n}"))).count();
    let mut tx = pool.begin_with(BEGIN_BY_KEY_ONLY).await?;
    sqlx::raw_sql("SET LOCAL plan_cache_mode = force_generic_plan").execute(&mut *tx).await?;
    sqlx::raw_sql(&format!("PREPARE generic_plan_probe AS {sql}")).execute(&mut *tx).await?;
    let nulls = vec!["NULL"; params].join(", ");
    let plan: Vec<String> = sqlx::query_scalar(&format!("EXPLAIN EXECUTE generic_plan_probe({nulls})"))
        .fetch_all(&mut *tx)
        .await?;
    sqlx::raw_sql("DEALLOCATE generic_plan_probe").execute(&mut *tx).await?;
    tx.rollback().await?;
    Ok(plan)
}

type Reply<O> = oneshot::Sender<Result<O, AppError>>;

/// A handle to the writer task; cheap to clone. The task ends when the last handle is dropped.
pub struct GroupCommit<W: BatchRun> {
    /// Each job with its answer's channel and the span of the request that queued it.
    queue: mpsc::Sender<(W::Job, Reply<W::Output>, tracing::Span)>,
}

impl<W: BatchRun> Clone for GroupCommit<W> {
    fn clone(&self) -> Self {
        GroupCommit { queue: self.queue.clone() }
    }
}

impl<W: BatchRun> std::fmt::Debug for GroupCommit<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

impl<W: BatchWrite> GroupCommit<InTransaction<W>> {
    /// Starts the writer task; at most `max_batch` jobs share a transaction.
    pub fn spawn(pool: PgPool, writer: W, max_batch: usize) -> Self {
        GroupCommit::spawn_runner(InTransaction { pool, writer }, max_batch)
    }
}

impl<W: BatchWrite> GroupCommit<OneStatement<W>> {
    /// Starts the writer task of a one-statement writer on `by_key` (a
    /// [`crate::db::by_key_pool`]); at most `max_batch` jobs share its statement.
    pub fn spawn_one_statement(by_key: PgPool, writer: W, max_batch: usize) -> Self {
        GroupCommit::spawn_runner(
            OneStatement { by_key, held: tokio::sync::Mutex::new(None), writer },
            max_batch,
        )
    }
}

impl<W: BatchRun> GroupCommit<W> {
    /// Starts a task running queued jobs `max_batch` at a time with `runner`.
    pub fn spawn_runner(runner: W, max_batch: usize) -> Self {
        let (queue, mut jobs) =
            mpsc::channel::<(W::Job, Reply<W::Output>, tracing::Span)>(max_batch.saturating_mul(4).max(16));
        let runner = Arc::new(runner);
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(max_batch);
            while jobs.recv_many(&mut batch, max_batch.max(1)).await > 0 {
                // The batch's span: in the trace of the request whose job came first (alone, as
                // most are when the load is light, the batch is that request's step), and
                // linked to each other request whose job it carries.
                let first = batch.first().map_or_else(tracing::Span::none, |(_, _, from)| from.clone());
                let span = tracing::info_span!(
                    target: crate::telemetry::traces::TARGET,
                    parent: &first,
                    "group_commit",
                    jobs = batch.len()
                );
                let (mut work, mut replies) =
                    (Vec::with_capacity(batch.len()), Vec::with_capacity(batch.len()));
                for (n, (job, reply, from)) in batch.drain(..).enumerate() {
                    if n > 0 {
                        span.follows_from(&from);
                    }
                    work.push(job);
                    replies.push(reply);
                }
                run_and_answer(&*runner, work, replies).instrument(span).await;
            }
        });
        GroupCommit { queue }
    }

    /// Queues `job` and waits until its batch is committed.
    pub async fn submit(&self, job: W::Job) -> Result<W::Output, AppError> {
        let (reply, answer) = oneshot::channel();
        let from = tracing::Span::current();
        self.queue
            .send((job, reply, from))
            .await
            .map_err(|_| AppError::unavailable("the writer has stopped"))?;
        answer.await.map_err(|_| AppError::unavailable("the writer has stopped"))?
    }
}

async fn run_and_answer<W: BatchRun>(runner: &W, jobs: Vec<W::Job>, replies: Vec<Reply<W::Output>>) {
    match runner.run_batch(&jobs).await {
        Ok(outputs) if outputs.len() == jobs.len() => {
            for (reply, output) in replies.into_iter().zip(outputs) {
                let _ = reply.send(Ok(output));
            }
        }
        Ok(_) => {
            for reply in replies {
                let _ =
                    reply.send(Err(AppError::internal("a batch runner answered the wrong number of jobs")));
            }
        }
        Err(_) if jobs.len() > 1 => {
            // Find the job that failed: every job alone, each with its own answer.
            for (job, reply) in jobs.into_iter().zip(replies) {
                let one = [job];
                let answer = runner.run_batch(&one).await.and_then(|mut outputs| {
                    outputs.pop().ok_or_else(|| AppError::internal("a batch runner answered no output"))
                });
                let _ = reply.send(answer);
            }
        }
        Err(e) => {
            if let Some(reply) = replies.into_iter().next() {
                let _ = reply.send(Err(e));
            }
        }
    }
}
