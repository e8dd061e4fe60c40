//! The first step past one Postgres primary (ADR 0021): the ledger split by player over two
//! databases behind a directory, measured beside one.
//!
//! Each shard is a whole ledger (its own database and service) holding half the players' wallets
//! and its own house accounts; a stake goes to the shard the directory names for its player, so
//! every stake stays one atomic transfer on one shard. The directory here is the table of the
//! players' shards, read once and held by the router as the gateway would cache it (an entry never
//! changes once given). At the end each house's takings on the second shard are swept to the
//! settlement shard as the ADR's two-step transfer (one id, applied once on each side), and the
//! books of both shards must balance and mirror each other.
//!
//! On this machine both shards share one Postgres and two cores, so the figure shows what the
//! split costs (the routing, a second pool), not what a second primary on its own host would add.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use platform::auth::TokenKeys;
use platform::client::{Retry, ServiceClient};
use platform::testing::closed_loop;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{Figure, HOUSES, WALLETS, fund_wallets, start_ledger};

const SHARDS: usize = 2;

/// One shard: its ledger's client, its players' wallets and its house accounts.
struct Shard {
    client: ServiceClient,
    wallets: Vec<Uuid>,
    houses: Vec<Uuid>,
}

/// Stakes spread over the players of two ledgers, each routed to its player's shard; then the
/// sweep and the books of both checked. `clients` in all, as the one-ledger figure had.
pub(crate) async fn two_ledgers(
    server: &str,
    clients: usize,
    duration: Duration,
    tokens: &TokenKeys,
) -> Figure {
    println!("starting {SHARDS} ledgers on their own databases, {} wallets each ...", WALLETS / SHARDS);
    let mut shards = Vec::new();
    for n in 0..SHARDS {
        let base =
            start_ledger(server, &format!("lotto_bench_shard{n}"), clients / SHARDS, tokens.clone()).await;
        let client = ServiceClient::with_timeout(base, Duration::from_secs(30))
            .unwrap()
            .as_service(tokens.clone(), "bench");
        let (wallets, houses) = fund_wallets(&client, WALLETS / SHARDS, HOUSES / SHARDS).await;
        shards.push(Shard { client, wallets, houses });
    }
    // The directory: player p's wallet is the (p / SHARDS)th of shard p % SHARDS.
    let directory: Vec<(usize, Uuid)> =
        (0..WALLETS).map(|p| (p % SHARDS, shards[p % SHARDS].wallets[p / SHARDS])).collect();
    let (shards, directory) = (Arc::new(shards), Arc::new(directory));

    println!("running spread stakes through {SHARDS} ledgers for {} s ...", duration.as_secs());
    let sent = Arc::new(AtomicUsize::new(0));
    let routed = (Arc::clone(&shards), Arc::clone(&directory));
    let run = closed_loop(clients, duration, move |i| {
        let n = sent.fetch_add(1, Ordering::Relaxed);
        let (shards, directory) = (Arc::clone(&routed.0), Arc::clone(&routed.1));
        async move {
            let (shard, wallet) = directory[(i * 7919 + n) % WALLETS];
            let shard = &shards[shard];
            let house = shard.houses[(i * 31 + n) % shard.houses.len()];
            let body = super::transfer(wallet, house);
            let reply: Result<serde::de::IgnoredAny, _> =
                shard.client.post("/v1/transfers", &body, Retry::Never).await;
            if let Err(e) = reply {
                panic!("a stake on shard failed: {e}");
            }
            1
        }
    })
    .await;

    sweep_to_settlement(&shards).await;
    Figure {
        name: "spread, two ledgers behind a directory",
        per_second: run.per_second(),
        unit: "tr/s",
        p50_ms: Some(run.percentile_ms(0.5)),
        p99_ms: Some(run.percentile_ms(0.99)),
        cpu_ms: Some(run.own_and_postgres_cpu_ms_per_unit()),
    }
}

/// Sweeps the second shard's house takings to the settlement shard (the first), as ADR 0021's
/// two-step transfer: on the second shard, every house to its "due to settlement" account; on the
/// first, the same total from its "due from shard 1" account to the settlement house, under the
/// same transfer id. Each shard's books must balance, and the two "due" accounts mirror each other.
async fn sweep_to_settlement(shards: &[Shard]) {
    let (settlement, other) = (&shards[0], &shards[1]);
    let due_to = create_account(&other.client, "house_revenue", "due to settlement shard 0").await;
    let due_from = create_account(&settlement.client, "house_revenue", "due from shard 1").await;
    let settlement_house = settlement.houses[0];
    let mut total = 0i64;
    let mut transfers = Vec::new();
    for house in &other.houses {
        let account: Value = other.client.get(&format!("/v1/accounts/{house}")).await.unwrap();
        let takings = account["balance"]["posted"].as_i64().unwrap();
        if takings > 0 {
            total += takings;
            transfers
                .push(json!({"id": Uuid::now_v7(), "debit_account_id": house, "credit_account_id": due_to,
                                  "amount": takings, "currency": "USD"}));
        }
    }
    let _: Value = other
        .client
        .post("/v1/transfers/batch", &json!({ "transfers": transfers }), Retry::Safe)
        .await
        .unwrap();
    // The second step, under one id: sent twice, as a retry after a lost answer would, and applied once.
    let step = json!({"id": Uuid::now_v7(), "debit_account_id": due_from, "credit_account_id": settlement_house,
                      "amount": total, "currency": "USD"});
    for _ in 0..2 {
        let _: Value = settlement.client.post("/v1/transfers", &step, Retry::Safe).await.unwrap();
    }
    let owed: Value = other.client.get(&format!("/v1/accounts/{due_to}")).await.unwrap();
    let claimed: Value = settlement.client.get(&format!("/v1/accounts/{due_from}")).await.unwrap();
    assert_eq!(owed["balance"]["posted"].as_i64(), Some(total), "the second shard owes what it swept");
    assert_eq!(claimed["balance"]["posted"].as_i64(), Some(-total), "the settlement shard claims it once");
    for (n, shard) in shards.iter().enumerate() {
        let trial: Value = shard.client.get("/v1/reports/trial-balance").await.unwrap();
        assert_eq!(trial["balanced"], json!(true), "shard {n}'s books are unbalanced: {trial}");
    }
    println!("swept {total} cents of shard 1's takings to the settlement shard; both shards' books balance");
}

async fn create_account(client: &ServiceClient, kind: &str, owner: &str) -> Uuid {
    let body = json!({"kind": kind, "owner": owner, "currency": "USD"});
    let account: Value = client.post("/v1/accounts", &body, Retry::Safe).await.unwrap();
    account["id"].as_str().unwrap().parse().unwrap()
}
