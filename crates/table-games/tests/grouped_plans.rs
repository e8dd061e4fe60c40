//! The table games' group-committed writes find their rows by key, in the plan a fresh database
//! gives them: each statement is planned once per connection for all its later runs, and a plan
//! made while the tables are empty is kept however large they grow. Plans that read every
//! session version, every roll of a session or every unfinished round at each write were made so
//! (ADR 0010, session 14); these are the plans the writers' transactions would make now.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Casino;
use platform::group_commit::generic_plan;
use platform::testing::reads_by_key;

#[tokio::test]
async fn every_grouped_write_reads_its_rows_by_key_on_a_fresh_database() {
    let casino = Casino::new().await;
    // Every game's grouped statements, as its repository lists them beside its writers.
    let statements = [
        table_games::blackjack::repository::Repository::GROUPED_STATEMENTS,
        table_games::i_luv_suits::repository::Repository::GROUPED_STATEMENTS,
        table_games::craps::repository::Repository::GROUPED_STATEMENTS,
    ];
    assert_eq!(statements.iter().map(|s| s.len()).sum::<usize>(), 8, "eight grouped statements read rows");
    for &(name, sql, indexes) in statements.into_iter().flatten() {
        let plan = generic_plan(&casino.state.pool, sql).await.unwrap();
        if let Err(e) = reads_by_key(&plan, indexes) {
            panic!("{name} {e}");
        }
    }
}

#[tokio::test]
async fn the_check_catches_a_write_that_reads_the_unfinished_rounds_whole() {
    let casino = Casino::new().await;
    // The decision claim as it was written before: its state named plainly, the planner reads
    // the partial index of unfinished rounds instead of each round by id.
    let before = table_games::i_luv_suits::store::CLAIM_DECISIONS.replace(
        "(r.state = 'deciding' AND r.pending IS NULL) IS TRUE",
        "r.state = 'deciding' AND r.pending IS NULL",
    );
    let plan = generic_plan(&casino.state.pool, &before).await.unwrap();
    let refused = reads_by_key(&plan, &["ils_rounds_pkey"]).unwrap_err();
    assert!(refused.contains("ils_rounds_unfinished"), "{refused}");
}

#[tokio::test]
async fn a_one_statement_writer_s_connections_plan_by_key_in_the_service_s_schema() {
    let casino = Casino::new().await;
    // The craps claim and finish are sent without a transaction, so the settings the writers'
    // transactions take with `BEGIN` must come with the connection itself.
    let by_key = platform::db::by_key_pool(&casino.state.pool, 1);
    let mut conn = by_key.acquire().await.unwrap();
    for (setting, value) in platform::db::BY_KEY_ONLY {
        let shown: String =
            sqlx::query_scalar(&format!("SHOW {setting}")).fetch_one(&mut *conn).await.unwrap();
        assert_eq!(shown, value, "{setting}");
    }
    let schema: String = sqlx::query_scalar("SELECT current_schema()").fetch_one(&mut *conn).await.unwrap();
    assert_eq!(schema, "tables");
}
