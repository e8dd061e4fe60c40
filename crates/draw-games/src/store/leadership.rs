//! The draw scheduler's leadership lock: a session-level advisory lock, one for every draw game.

use platform::AppError;
use sqlx::PgConnection;

/// Tries the scheduler's session-level advisory lock on `conn` (a connection taken out of the
/// pool, so the lock never travels with a pooled connection); true when this connection holds it.
pub async fn try_lead(conn: &mut PgConnection) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        r#"SELECT pg_try_advisory_lock(hashtext(current_schema() || '.draw_scheduler')) AS "held!""#
    )
    .fetch_one(&mut *conn)
    .await?)
}

/// Checks that `conn` is still connected (so a lock it holds is still held).
pub async fn still_connected(conn: &mut PgConnection) -> Result<(), AppError> {
    sqlx::query!("SELECT 1 AS alive").fetch_one(&mut *conn).await?;
    Ok(())
}
