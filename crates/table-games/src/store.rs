//! What the games' stores share: their grouped writes' one shape (each row once per statement,
//! the ids written back), for [`crate::grouped`]'s writers. SQL itself stays in each game's
//! store; this runs what they build.

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
