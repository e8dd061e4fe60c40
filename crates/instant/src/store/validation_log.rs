//! Every scan's log row, written through a group commit: one statement for the attempts that
//! arrive together.

use platform::AppError;
use platform::group_commit::BatchWrite;
use sqlx::PgConnection;

/// One logged attempt.
#[derive(Debug)]
pub struct LoggedScan {
    pub terminal_id: String,
    pub retailer_id: Option<String>,
    pub barcode: String,
    /// `winner`, `not_a_winner`, or the refusal's code.
    pub result: &'static str,
    pub prize_cents: i64,
}

/// Writes logged attempts, many to a statement.
#[derive(Debug)]
pub struct ValidationLog;

impl BatchWrite for ValidationLog {
    type Job = LoggedScan;
    type Output = ();

    async fn write_batch(&self, conn: &mut PgConnection, jobs: &[LoggedScan]) -> Result<Vec<()>, AppError> {
        let terminals: Vec<&str> = jobs.iter().map(|j| j.terminal_id.as_str()).collect();
        let retailers: Vec<Option<&str>> = jobs.iter().map(|j| j.retailer_id.as_deref()).collect();
        let barcodes: Vec<&str> = jobs.iter().map(|j| j.barcode.as_str()).collect();
        let results: Vec<&str> = jobs.iter().map(|j| j.result).collect();
        let prizes: Vec<i64> = jobs.iter().map(|j| j.prize_cents).collect();
        // The scan log commits asynchronously (ADR 0005): nothing a scan answers depends on it, and
        // only a crash of Postgres itself, not of this service, can lose its last fraction of a
        // second. Payments, lockouts and pack moves commit synchronously as everything else does.
        sqlx::query!("SET LOCAL synchronous_commit = off").execute(&mut *conn).await?;
        // The retailers' array holds NULLs (a terminal without one), which the macro's own
        // check of a text[] parameter does not allow for, so that one is bound unchecked.
        sqlx::query!(
            "INSERT INTO validations (terminal_id, retailer_id, barcode, result, prize_cents)
             SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])",
            &terminals as &[&str],
            &retailers as _,
            &barcodes as &[&str],
            &results as &[&str],
            &prizes
        )
        .execute(&mut *conn)
        .await?;
        Ok(vec![(); jobs.len()])
    }
}
