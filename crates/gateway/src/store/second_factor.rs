//! The staff's second factor as stored (`staff`'s TOTP columns, `staff_recovery_codes`),
//! checked against the schema at build time ([`crate::saga::second_factor`]).

use chrono::{DateTime, Utc};
use platform::AppError;
use sqlx::PgConnection;
use uuid::Uuid;

/// A staff member's second factor as kept.
#[derive(Debug)]
pub struct FactorRow {
    pub username: String,
    /// The enrolled secret, sealed; `None` before enrolment.
    pub secret: Option<Vec<u8>>,
    /// The last time step a code was taken for.
    pub last_step: Option<i64>,
    /// A secret shown and not yet confirmed, sealed, and until when it may be.
    pub pending: Option<Vec<u8>>,
    pub pending_until: Option<DateTime<Utc>>,
    pub locked_until: Option<DateTime<Utc>>,
}

/// Staff member `staff`'s second factor, locked in `conn`'s transaction.
pub async fn lock(conn: &mut PgConnection, staff: Uuid) -> Result<Option<FactorRow>, AppError> {
    Ok(sqlx::query_as!(
        FactorRow,
        "SELECT username, totp_secret AS secret, totp_last_step AS last_step, totp_pending AS pending,
                totp_pending_until AS pending_until, code_locked_until AS locked_until
           FROM staff WHERE id = $1 FOR UPDATE",
        staff,
    )
    .fetch_optional(conn)
    .await?)
}

/// An enrolment shown: its sealed secret, confirmable until `until`.
pub async fn begin_enrolment(
    conn: &mut PgConnection,
    staff: Uuid,
    sealed: &[u8],
    until: DateTime<Utc>,
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE staff SET totp_pending = $2, totp_pending_until = $3 WHERE id = $1",
        staff,
        sealed,
        until,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The enrolment shown confirmed with the code of `step`: the secret in force, its recovery
/// codes (their digests) replacing any before.
pub async fn confirm_enrolment(
    conn: &mut PgConnection,
    staff: Uuid,
    step: i64,
    recovery_digests: &[Vec<u8>],
) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE staff SET totp_secret = totp_pending, totp_enrolled_at = now(), totp_last_step = $2,
                totp_pending = NULL, totp_pending_until = NULL, code_failures = 0, code_locked_until = NULL
          WHERE id = $1",
        staff,
        step,
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!("DELETE FROM staff_recovery_codes WHERE staff_id = $1", staff).execute(&mut *conn).await?;
    sqlx::query!(
        "INSERT INTO staff_recovery_codes (staff_id, code_digest) SELECT $1, unnest($2::bytea[])",
        staff,
        recovery_digests,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// A code of `step` taken: no code of that step or before is taken again; the count of wrong
/// codes starts again.
pub async fn code_taken(conn: &mut PgConnection, staff: Uuid, step: Option<i64>) -> Result<(), AppError> {
    sqlx::query!(
        "UPDATE staff SET totp_last_step = coalesce($2, totp_last_step), code_failures = 0,
                code_locked_until = NULL
          WHERE id = $1",
        staff,
        step,
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// A wrong code counted, locking the second factor for `minutes` from the `after`th in a row;
/// until when it is locked, if it is.
pub async fn code_refused(
    conn: &mut PgConnection,
    staff: Uuid,
    after: i32,
    minutes: i32,
) -> Result<Option<DateTime<Utc>>, AppError> {
    Ok(sqlx::query_scalar!(
        "UPDATE staff SET
                code_failures = CASE WHEN code_failures + 1 >= $2 THEN 0 ELSE code_failures + 1 END,
                code_locked_until = CASE WHEN code_failures + 1 >= $2
                                         THEN now() + make_interval(mins => $3) END
          WHERE id = $1
         RETURNING code_locked_until",
        staff,
        after,
        minutes,
    )
    .fetch_one(conn)
    .await?)
}

/// Recovery code `digest` of `staff` used, if it was one of theirs not used before.
pub async fn use_recovery_code(
    conn: &mut PgConnection,
    staff: Uuid,
    digest: &[u8],
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "UPDATE staff_recovery_codes SET used_at = now()
          WHERE staff_id = $1 AND code_digest = $2 AND used_at IS NULL",
        staff,
        digest,
    )
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}
