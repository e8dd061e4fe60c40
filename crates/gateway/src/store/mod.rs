//! The gateway's store floor (architecture §1): every SQL statement of the gateway, by what it keeps.

pub mod adjustments;
pub mod exclusions;
pub mod identity;
pub mod location;
pub mod mail;
pub mod payments;
pub mod play;
pub mod players;
pub mod rate_limits;
pub mod second_factor;
pub mod sessions;
pub mod staff;

/// The work waiting between the gateway's saga steps (`platform::metrics`' backlogs): payments
/// a webhook left settling, mail queued to send.
pub async fn backlogs(pool: &sqlx::PgPool) -> Result<Vec<platform::metrics::Backlog>, platform::AppError> {
    Ok(sqlx::query_as!(
        platform::metrics::Backlog,
        r#"SELECT 'payment' AS "kind!", count(*) AS "waiting!", min(updated_at) AS oldest
             FROM payments WHERE state = 'settling'
           UNION ALL
           SELECT 'mail', count(*), min(created_at) FROM mail_outbox WHERE state = 'queued'"#
    )
    .fetch_all(pool)
    .await?)
}
