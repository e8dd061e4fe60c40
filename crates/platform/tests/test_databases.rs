//! The suite cleans up after itself (issue 32 §5): a test process's first database drops those
//! of processes that have ended, so runs of the suite do not pile databases up on the server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlx::{Connection, PgConnection};

#[tokio::test]
async fn databases_of_ended_test_processes_are_dropped_by_the_next() {
    let admin = platform::db::parse_url(&platform::testing::server_url()).unwrap();
    let mut conn = PgConnection::connect_with(&admin).await.unwrap();
    // A process that has ended, and a database named as it would have named one.
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    let pid = ended.id();
    ended.wait().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let left = format!("lotto_test_{now}_{pid}_leftover");
    sqlx::query(&format!("CREATE DATABASE \"{left}\"")).execute(&mut conn).await.unwrap();
    assert!(exists(&mut conn, &left).await);

    let url = platform::testing::fresh_database().await.unwrap();
    assert!(!exists(&mut conn, &left).await, "the ended process's database is dropped");
    // This process's own stays while it runs.
    let own = url.rsplit('/').next().unwrap().to_owned();
    assert!(own.contains(&format!("_{}_", std::process::id())), "{own}");
    assert!(exists(&mut conn, &own).await);
    conn.close().await.unwrap();
}

async fn exists(conn: &mut PgConnection, name: &str) -> bool {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
        .bind(name)
        .fetch_one(conn)
        .await
        .unwrap()
}
