//! The one-statement writers every game's steps are written by (ADR 0010): a batch of one kind
//! of step is one conditional statement on its own rows, sent without a transaction on a
//! connection planned by key ([`platform::db::by_key_pool`]), so a step keeps its order and
//! exclusivity with no lock held between statements. A row named twice in one batch is
//! written for the first job only; the other is answered "not written" and its caller reads
//! the row again. SQL stays in each game's store; this runs what they build.
//!
//! **The planner convention, checked.** A grouped statement finds each row by its key, never
//! through a scan or a partial index: its connection plans with scans and hash or merge joins
//! off ([`platform::db::BY_KEY_ONLY`]), and a condition on a row's state is written
//! `(...) IS TRUE`, so the planner cannot answer it from a partial index of unfinished rows
//! (which it would, on a fresh table, reading them all). Each game's repository lists its
//! grouped statements with the indexes they must use (`GROUPED_STATEMENTS`), and
//! `tests/grouped_plans.rs` explains every one on a fresh database and fails on any other plan:
//! a new writer is checked by being listed beside its game's others.

use std::collections::HashSet;

use platform::AppError;
use sqlx::PgConnection;
use uuid::Uuid;

/// A statement answering the ids of the rows it wrote.
pub type IdsWritten<'q> = sqlx::query::QueryScalar<'q, sqlx::Postgres, Uuid, sqlx::postgres::PgArguments>;

/// Writes `jobs` with `statement` in one statement (for a
/// [`platform::group_commit::OneStatement`] writer): only the first job naming each id is
/// written (a statement changes a row once); the others are answered as not written, so their
/// callers read the row again and decide anew. Answers, per job, whether its row was written.
pub async fn write_first_of_each<T>(
    conn: &mut PgConnection,
    jobs: &[T],
    id_of: impl Fn(&T) -> Uuid,
    statement: impl for<'r> Fn(&'r [&'r T]) -> Result<IdsWritten<'r>, AppError>,
) -> Result<Vec<bool>, AppError> {
    let mut seen = HashSet::new();
    let first: Vec<usize> = (0..jobs.len()).filter(|&i| seen.insert(id_of(&jobs[i]))).collect();
    let rows: Vec<&T> = first.iter().map(|&i| &jobs[i]).collect();
    let written: HashSet<Uuid> = statement(&rows)?.fetch_all(&mut *conn).await?.into_iter().collect();
    let mut applied = vec![false; jobs.len()];
    for i in first {
        applied[i] = written.contains(&id_of(&jobs[i]));
    }
    Ok(applied)
}

/// The work waiting between the table games' saga steps (`platform::metrics`' backlogs): rounds
/// settling or with a step pending, craps requests pending. The one read over every game's
/// rows, for the metrics: each through the partial index of its unfinished rows.
pub async fn backlogs(pool: &sqlx::PgPool) -> Result<Vec<platform::metrics::Backlog>, AppError> {
    Ok(sqlx::query_as!(
        platform::metrics::Backlog,
        r#"SELECT 'blackjack_round' AS "kind!", count(*) AS "waiting!", min(updated_at) AS oldest
             FROM bj_rounds WHERE state = 'settling' OR pending IS NOT NULL
           UNION ALL
           SELECT 'i_luv_suits_round', count(*), min(updated_at) FROM ils_rounds WHERE state = 'settling'
           UNION ALL
           SELECT 'craps_request', count(*), min(updated_at) FROM craps_sessions WHERE pending IS NOT NULL"#
    )
    .fetch_all(pool)
    .await?)
}
