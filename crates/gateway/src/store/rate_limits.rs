//! The rate-limit buckets every gateway replica shares (`rate_buckets`, `take_tokens`).

use sqlx::PgPool;

/// What a draw from a shared bucket gave: whole tokens granted, and what the bucket holds after.
#[derive(Debug, Clone, Copy)]
pub struct Drawn {
    pub granted: u32,
    pub tokens_left: f64,
}

/// Draws up to `want` tokens from `key`'s bucket, putting back `returned` unused ones first.
pub async fn take_tokens(
    pool: &PgPool,
    key: &str,
    per_second: f64,
    burst: f64,
    want: u32,
    returned: u32,
) -> Result<Drawn, sqlx::Error> {
    let want = i32::try_from(want).unwrap_or(i32::MAX);
    let returned = i32::try_from(returned).unwrap_or(i32::MAX);
    let row = sqlx::query!(
        r#"SELECT granted AS "granted!", tokens_left AS "tokens_left!" FROM take_tokens($1, $2, $3, $4, $5)"#,
        key,
        per_second,
        burst,
        want,
        returned
    )
    .fetch_one(pool)
    .await?;
    Ok(Drawn { granted: u32::try_from(row.granted).unwrap_or(0), tokens_left: row.tokens_left })
}
