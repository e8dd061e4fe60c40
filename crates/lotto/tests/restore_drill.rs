//! The restore drill (issue 34, ADR 0013 §7): backups that restore. `lotto` runs its mixed load
//! on the replicated layout, whose primary archives its WAL to pgBackRest all along; a full
//! backup is taken under the load; when the load has settled, a named restore point is marked,
//! and play goes on after it. The newest backup is then restored into a new cluster up to that
//! point (`lotto cluster restore`), a second `lotto` started on it, and:
//!
//! - every account's balance (and each kind's) equals the source's at the restore point, read
//!   before a `lotto` runs on the restored cluster (its draws go on at once), and the restored
//!   ledger's trial balance balances and its counters equal its journal;
//! - every audit chain (draws, tables, instant) verifies and ends on the head the source's had;
//! - nothing played after the restore point is there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::cluster::Cluster;
use common::mixed::{self, Client, Tally, VIRN_KEY, WEBHOOK_SECRET};
use common::{Lotto, SECRET};
use platform::auth::TokenKeys;
use serde_json::{Value, json};
use tokio::sync::RwLock;

/// What must be the same in the source at the restore point and in the restored cluster, read
/// from the database (the restored one before a `lotto` runs on it: its draws go on at once).
#[derive(Debug, PartialEq)]
struct Books {
    /// Each account kind's posted balance.
    by_kind: Vec<(String, i64)>,
    /// Every account's posted debits and credits, as one digest.
    balances: String,
    /// Each audit chain's records and head hash.
    chains: Vec<(&'static str, i64, Option<String>)>,
    keno_tickets: i64,
}

async fn books(url: &str) -> Books {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let by_kind = sqlx::query_as(
        "SELECT a.kind, sum(b.credits_posted - b.debits_posted)::bigint
           FROM ledger.accounts a JOIN ledger.balances b ON b.account_id = a.id GROUP BY a.kind ORDER BY a.kind",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let balances = sqlx::query_scalar(
        "SELECT md5(string_agg(account_id || ':' || debits_posted || ':' || credits_posted, ',' ORDER BY account_id))
           FROM ledger.balances",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let keno_tickets =
        sqlx::query_scalar("SELECT count(*) FROM draws.keno_tickets").fetch_one(&pool).await.unwrap();
    pool.close().await;
    let mut chains = Vec::new();
    for schema in ["draws", "tables", "instant"] {
        let options: sqlx::postgres::PgConnectOptions = url.parse().unwrap();
        let pool = sqlx::PgPool::connect_with(options.options([("search_path", schema)])).await.unwrap();
        let chain = platform::audit::verify(&pool).await.unwrap();
        assert!(chain.intact, "the {schema} chain is broken: {chain:?}");
        chains.push((schema, chain.records, chain.head_hash));
        pool.close().await;
    }
    Books { by_kind, balances, chains, keno_tickets }
}

/// The ledger as the `lotto` on it answers: its trial balance balanced and its counters equal
/// to its journal. Answers the trial balance.
async fn served_books(lotto: &str, http: &reqwest::Client, keys: &TokenKeys) -> Value {
    let service = keys.service_token("restore-drill").unwrap();
    let get = |path: &str| http.get(format!("{lotto}{path}")).bearer_auth(&service).send();
    let trial_balance: Value = get("/v1/reports/trial-balance").await.unwrap().json().await.unwrap();
    assert_eq!(trial_balance["balanced"], true, "{trial_balance}");
    // The whole journal replayed: on a process just started (draws to catch up, the log to
    // chain) it may outrun the request's deadline, answered 503 "retrying it is safe": retried.
    let mut journal = Value::Null;
    for _ in 0..5 {
        journal = get("/v1/reports/journal-check").await.unwrap().json().await.unwrap();
        if journal["code"] != "unavailable" {
            break;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    assert_eq!(journal["consistent"], true, "{journal}");
    trial_balance
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_restores_to_a_named_moment_with_every_cent_and_every_chain() {
    let (cluster, url) = Cluster::start();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let winners = mixed::instant_winners(&url, &keys, Duration::from_secs(3)).await;
    let secrets = cluster.dir.join("secrets").display().to_string();
    let env = [
        ("DATABASE_URL", url.clone()),
        ("LOTTO_SECRETS_DIR", secrets.clone()),
        ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned()),
        ("LOTTO_VIRN_KEY", VIRN_KEY.to_owned()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
    ];
    let source = Lotto::start(&env, Duration::from_secs(60));
    let http = reqwest::Client::new();
    let client = Client {
        http: http.clone(),
        base: Arc::new(RwLock::new(source.base_url.clone())),
        tally: Arc::new(Tally::default()),
    };
    let players = mixed::funded_players(&client, 4).await;
    let load = mixed::start(&client, &players, &winners, &keys, 10);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let backup = cluster.run("backup");
    client.tally.done.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    let checked = mixed::settled_and_checked(&client, &url, &keys).await;

    // The moment to come back to, and play after it. Keno draws go on every 3 s with nobody
    // playing (they move no money but extend the draws' chain), so the books are read on
    // either side of the point: what is restored must be one of the two.
    let trial_balance = served_books(&source.base_url, &http, &keys).await;
    let before_point = books(&url).await;
    cluster.run("restore-point drill");
    let at_point = books(&url).await;
    for (n, token) in players.iter().enumerate() {
        let ticket = json!({"option": "bet", "spots": [7, 14, 21], "tickets": 1});
        let key = format!("after-{n}");
        let post = reqwest::Method::POST;
        let (status, body) =
            client.until_answered(post, "/v1/keno/tickets", token, Some(&key), Some(&ticket)).await;
        assert!(status < 300, "{status} {body}");
    }
    let after = books(&url).await;
    assert_ne!(after.balances, at_point.balances, "the play after the restore point moved money");

    let into = cluster.dir.join("restored-drill");
    let port = common::free_port();
    let said = cluster.run(&format!("restore drill {} {port}", into.display()));
    let restored_url =
        said.lines().find_map(|l| l.strip_prefix("DATABASE_URL=")).expect("it says the URL").to_owned();
    let restored_env = [("DATABASE_URL", restored_url.clone()), ("LOTTO_SECRETS_DIR", secrets)];
    let back = books(&restored_url).await;
    let restored = Lotto::start(&restored_env, Duration::from_secs(60));
    served_books(&restored.base_url, &http, &keys).await;
    println!(
        "restore drill: {checked}\nbackup:\n{backup}\nat the restore point and restored: {} cents posted each side, balances {} and {}, \
         chains {:?} and {:?}, {} and {} keno tickets (after the point, not restored: {})",
        trial_balance["currencies"][0]["debits_posted"],
        at_point.balances,
        back.balances,
        at_point.chains,
        back.chains,
        at_point.keno_tickets,
        back.keno_tickets,
        after.keno_tickets
    );
    assert_eq!(back.balances, at_point.balances, "the restored money is the source's at the point");
    assert!(
        back == at_point || back == before_point,
        "the restored books are the source's at the restore point: {back:?}, not {before_point:?} or {at_point:?}"
    );
    restored.terminate();
    source.terminate();
}
