//! Test support: every test gets a database of its own on the real local Postgres.
//!
//! `TEST_DATABASE_URL` names the server (default `postgres://postgres@127.0.0.1:5432/postgres`).
//! Databases are named `lotto_test_<unix seconds>_<random>`; ones left by earlier runs for more
//! than two hours (a test that panicked never drops its own) are dropped when a new one is made.

use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{Connection, PgConnection};

use crate::db::{DbError, parse_url};

/// The server tests run against.
pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// Creates an empty database and returns its URL.
pub async fn fresh_database() -> Result<String, DbError> {
    let admin = parse_url(&server_url())?;
    let mut conn = PgConnection::connect_with(&admin).await.map_err(DbError::Connect)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    drop_stale_databases(&mut conn, now).await?;
    let name = format!("lotto_test_{now}_{}", uuid::Uuid::new_v4().simple());
    sqlx::query(&format!("CREATE DATABASE \"{name}\"")).execute(&mut conn).await?;
    conn.close().await?;
    let mut url = server_url();
    let base = url.rfind('/').map_or(url.len(), |i| i.saturating_add(1));
    url.replace_range(base.., &name);
    Ok(url)
}

async fn drop_stale_databases(conn: &mut PgConnection, now: u64) -> Result<(), DbError> {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'lotto\\_test\\_%'")
            .fetch_all(&mut *conn)
            .await?;
    for name in names {
        let created = name.split('_').nth(2).and_then(|s| s.parse::<u64>().ok()).unwrap_or(now);
        if now.saturating_sub(created) > 2 * 3600 {
            // Best effort: another run may be dropping it at the same moment.
            let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                .execute(&mut *conn)
                .await;
        }
    }
    Ok(())
}
