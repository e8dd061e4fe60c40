//! What the draw games' benchmarks share: funded players, the Keno play-now load that is one
//! benchmark's figure and the other's reference, and the ledger batches a settlement's prizes
//! are, timed alone (the reference beside each settlement).

use std::sync::Arc;
use std::time::Duration;

use platform::auth::{Role, TokenKeys};
use platform::client::{Retry, ServiceClient};
use platform::testing::{LoadRun, closed_loop};
use serde_json::{Value, json};
use uuid::Uuid;

/// A player's access token and wallet id.
pub type Player = (String, String);

/// `count` players, each with a USD wallet holding $10,000,000 (wallets made and funded through
/// the ledger's API, tokens signed directly: registration's password hashing is not what is
/// measured).
pub async fn funded_players(setup: &ServiceClient, tokens: &TokenKeys, count: usize) -> Vec<Player> {
    let mut players = Vec::new();
    for _ in 0..count {
        let player = Uuid::now_v7().to_string();
        let new_wallet = json!({"kind": "player_wallet", "owner": player, "currency": "USD"});
        let wallet: Value = setup.post("/v1/accounts", &new_wallet, Retry::Safe).await.unwrap();
        let deposit = json!({"id": Uuid::now_v7(), "account_id": wallet["id"], "amount": 1_000_000_000, "currency": "USD"});
        let _: Value = setup.post("/v1/deposits", &deposit, Retry::Safe).await.unwrap();
        let token = tokens.issue(&player, Role::Player, None, Duration::from_secs(3600)).unwrap();
        players.push((token, wallet["id"].as_str().unwrap().to_owned()));
    }
    players
}

/// Each of `players` buying one $1 8-spot Keno play-now ticket after another through the
/// gateway at `base` for `duration`.
pub async fn keno_play_now(
    http: &reqwest::Client,
    base: &str,
    players: &Arc<Vec<Player>>,
    duration: Duration,
) -> LoadRun {
    let (http, url, players) = (http.clone(), format!("{base}/v1/keno/tickets"), Arc::clone(players));
    closed_loop(players.len(), duration, move |i| {
        let body = json!({"option": "bet", "spots": [3, 11, 19, 27, 35, 43, 51, 59], "tickets": 1});
        let post = http
            .post(&url)
            .bearer_auth(&players[i].0)
            .header("idempotency-key", Uuid::now_v7().to_string())
            .json(&body);
        succeeds(post)
    })
    .await
}

/// Sends `request`, which must succeed (the benchmark stops loudly otherwise); one unit done.
pub async fn succeeds(request: reqwest::RequestBuilder) -> u64 {
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert!(status.is_success(), "{status} {text}");
    1
}

/// Sends `prizes` (account credited, cents) from `from` again as bare ledger batches shaped as a
/// settlement sends them (`batches` calls of about equal size, `in_flight` at once, fresh ids)
/// and answers how long they took: the least a settlement paying these prizes must spend in the
/// ledger (issue 52).
pub async fn prizes_as_batches(
    ledger: &ledger_api::LedgerClient,
    from: Uuid,
    prizes: &[(Uuid, i64)],
    batches: usize,
    in_flight: usize,
    purpose: &ledger_api::Purpose,
) -> Duration {
    use futures_util::{StreamExt, TryStreamExt};
    let per_batch = prizes.len().div_ceil(batches.max(1)).max(1);
    let calls: Vec<Vec<ledger_api::NewTransfer>> = prizes
        .chunks(per_batch)
        .map(|chunk| {
            let new = |&(to, cents): &(Uuid, i64)| {
                ledger_api::NewTransfer::new(Uuid::now_v7(), from, to, cents, purpose.clone())
            };
            chunk.iter().map(new).collect()
        })
        .collect();
    let started = std::time::Instant::now();
    futures_util::stream::iter(calls)
        .map(|call| async move { ledger.batch(&call).await })
        .buffer_unordered(in_flight)
        .try_collect::<()>()
        .await
        .unwrap();
    started.elapsed()
}
