//! Chaos (issue 11): the real `lotto` process under a bounded load of every game (Keno played at
//! once and in scheduled draws, blackjack and I Luv Suits rounds, craps rolls, instant prizes
//! claimed at a till, deposits and withdrawals through the sandbox provider), killed with
//! SIGKILL at random moments and restarted, several times. Every client retries with the same
//! idempotency key until it gets an answer, as a real one would. After recovery:
//!
//! - the ledger balances and every account equals its journal;
//! - every Keno ticket is settled or refused, charged its stake exactly once and paid its prize
//!   exactly once; every scheduled ticket is staked once or refused;
//! - no blackjack or I Luv Suits round is left unfinished, each charged its wagers and paid its
//!   returns exactly once; every craps request moved exactly its recorded money; escrow holds
//!   nothing but the bets still on craps layouts;
//! - every instant ticket is paid at most once, and every ticket marked paid exactly once;
//! - every deposit credited once if it succeeded, every withdrawal held once and posted or
//!   voided once by its outcome;
//! - every acknowledged request is there (the load's checks: tests/common/mixed.rs);
//! - every audit chain verifies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::mixed::{self, Client, Tally, VIRN_KEY, WEBHOOK_SECRET};
use common::{Lotto, SECRET};
use platform::auth::TokenKeys;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use tokio::sync::RwLock;

#[tokio::test]
async fn killed_at_random_under_load_the_platform_recovers_with_every_cent_in_place() {
    let url = platform::testing::fresh_database().await.unwrap();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let winners = mixed::instant_winners(&url, &keys, Duration::from_secs(3)).await;

    let env = [
        ("DATABASE_URL", url.clone()),
        ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned()),
        ("LOTTO_VIRN_KEY", VIRN_KEY.to_owned()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
        ("LOTTO_BJ_ABANDONED_AFTER_SECONDS", "3".to_owned()),
    ];
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let client = Client {
        http: reqwest::Client::new(),
        base: Arc::new(RwLock::new(lotto.base_url.clone())),
        tally: Arc::new(Tally::default()),
    };
    let players = mixed::funded_players(&client, 6).await;
    let load = mixed::start(&client, &players, &winners, &keys, 50);

    // The killer: SIGKILL at a random moment, restart, five times over.
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let mut lotto = lotto;
    let kills = 5;
    for _ in 0..kills {
        tokio::time::sleep(Duration::from_millis(rng.random_range(800..2_500))).await;
        lotto.kill();
        tokio::time::sleep(Duration::from_millis(rng.random_range(100..1_500))).await;
        lotto = Lotto::start(&env, Duration::from_secs(60));
        *client.base.write().await = lotto.base_url.clone();
    }
    client.tally.done.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }

    let checked = mixed::settled_and_checked(&client, &url, &keys).await;
    println!("chaos: {kills} kills survived; {checked}");
    let retried = client.tally.retried.load(Ordering::Relaxed);
    assert!(retried > 0, "no request met a kill: the load finished before the chaos began");
    lotto.terminate();
}
