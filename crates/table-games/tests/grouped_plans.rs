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
    let statements: [(&str, &str, &[&str]); 8] = [
        ("craps claim", table_games::craps::store::CLAIM, &["craps_sessions_pkey", "craps_rolls_by_request"]),
        ("craps finish", table_games::craps::store::FINISH, &["craps_sessions_pkey"]),
        ("I Luv Suits dealt", table_games::i_luv_suits::store::DEALT, &["ils_rounds_pkey"]),
        ("I Luv Suits decision", table_games::i_luv_suits::store::CLAIM_DECISIONS, &["ils_rounds_pkey"]),
        ("I Luv Suits settled", table_games::i_luv_suits::store::SETTLED, &["ils_rounds_pkey"]),
        ("blackjack dealt", table_games::blackjack::store::DEALT, &["bj_rounds_pkey", "bj_tables_pkey"]),
        ("blackjack decision", table_games::blackjack::store::DECIDED, &["bj_rounds_pkey", "bj_tables_pkey"]),
        ("blackjack settled", table_games::blackjack::store::SETTLED, &["bj_rounds_pkey"]),
    ];
    for (name, sql, indexes) in statements {
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
