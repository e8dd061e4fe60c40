//! The audit chain appended by the schema's `audit_append` (one round trip) is the chain
//! `platform::audit::verify` recomputes in Rust: records with text beyond ASCII hash as their
//! UTF-8 bytes, and appenders racing from many connections never fork the chain.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Casino;
use platform::audit::{Entry, append_all, verify};
use serde_json::json;
use uuid::Uuid;

#[tokio::test]
async fn appenders_racing_on_many_connections_make_one_chain_that_verifies() {
    let casino = Casino::new().await;
    let pool = casino.state.pool.clone();
    let before = verify(&pool).await.unwrap().records;
    let tasks: Vec<_> = (0..8)
        .map(|writer| {
            let pool = pool.clone();
            tokio::spawn(async move {
                for batch in 0..10 {
                    let entries: Vec<Entry> = (0..3)
                        .map(|i| {
                            let record =
                                json!({"writer": writer, "batch": batch, "i": i, "note": "mise à €5 — ♣♦"});
                            Entry::new("test.append", Uuid::now_v7(), &record).unwrap()
                        })
                        .collect();
                    let mut tx = pool.begin().await.unwrap();
                    let hashes = append_all(&mut tx, &entries).await.unwrap();
                    assert_eq!(hashes.len(), 3);
                    tx.commit().await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let mut conn = pool.acquire().await.unwrap();
    assert!(append_all(&mut conn, &[]).await.unwrap().is_empty(), "nothing to chain, nothing chained");
    let report = verify(&pool).await.unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.records - before, 8 * 10 * 3);
}
