//! A database that goes away is a retry-safe 503, never a 500 (issue 11, defect 10): a
//! connection the server ended, a statement the server cancelled, and a write a standby refused
//! (a read-only transaction stands for one), on a real Postgres.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use axum::http::StatusCode;
use platform::AppError;
use sqlx::{Connection, PgConnection};

#[tokio::test]
async fn a_dropped_connection_and_a_cancelled_statement_are_503_unavailable() {
    let url = platform::testing::fresh_database().await.unwrap();
    let mut victim = PgConnection::connect(&url).await.unwrap();
    let mut admin = PgConnection::connect(&url).await.unwrap();
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()").fetch_one(&mut victim).await.unwrap();
    sqlx::query("SELECT pg_terminate_backend($1)").bind(pid).execute(&mut admin).await.unwrap();
    let dropped = sqlx::query("SELECT 1").execute(&mut victim).await.unwrap_err();
    let answer = AppError::from(dropped);
    assert_eq!((answer.status(), answer.code()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"));

    sqlx::query("SET statement_timeout = 20").execute(&mut admin).await.unwrap();
    let cancelled = sqlx::query("SELECT pg_sleep(2)").execute(&mut admin).await.unwrap_err();
    let answer = AppError::from(cancelled);
    assert_eq!((answer.status(), answer.code()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"));

    // A write sent to a standby (here: a read-only transaction stands for one) is retried later,
    // when the address leads to the new primary.
    let mut tx = admin.begin().await.unwrap();
    sqlx::query("SET TRANSACTION READ ONLY").execute(&mut *tx).await.unwrap();
    let read_only = sqlx::query("CREATE TEMP TABLE t (x int)").execute(&mut *tx).await.unwrap_err();
    let answer = AppError::from(read_only);
    assert_eq!((answer.status(), answer.code()), (StatusCode::SERVICE_UNAVAILABLE, "unavailable"));
    tx.rollback().await.unwrap();

    // A statement the database refuses is still ours to fix: a 500, not a retry.
    let refused = sqlx::query("SELECT * FROM no_such_table").execute(&mut admin).await.unwrap_err();
    assert_eq!(AppError::from(refused).status(), StatusCode::INTERNAL_SERVER_ERROR);
}
