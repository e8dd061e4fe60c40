//! Chaos (issue 11): the real `lotto` process under a bounded load of every game (Keno played at
//! once and in scheduled draws, blackjack and I Luv Suits rounds, craps rolls, instant prizes claimed at a till), killed with
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
//! - every audit chain verifies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Lotto, SECRET};
use domain::instant::print_run::{pool_counts, print_pool};
use platform::auth::{Role, TokenKeys};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};
use tokio::sync::RwLock;

const VIRN_KEY: &str = "chaos-test-virn-key-0123456789abcdef0123";
const WEBHOOK_SECRET: &str = "chaos-test-webhook-key-0123456789abcdef";

/// Requests sent, retries included.
static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Requests sent again because the process was down (or answered 503) when they were sent.
static RETRIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Set when the killer is done: the players play on until then, so every kill meets load (a
/// fixed number of plays could finish before the first kill on a fast, idle machine).
static KILLER_DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Where `lotto` listens now (it moves at every restart).
type Base = Arc<RwLock<String>>;

/// Sends until an answer comes: a connection refused or reset (the process is down) is retried
/// with the same request, which is what the idempotency key is for.
async fn until_answered(
    http: &reqwest::Client,
    base: &Base,
    method: reqwest::Method,
    path: &str,
    token: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    for _ in 0..600 {
        let url = format!("{}{path}", base.read().await);
        let mut request =
            http.request(method.clone(), url).bearer_auth(token).timeout(Duration::from_secs(20));
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match request.send().await {
            Ok(response) if response.status().as_u16() != 503 => {
                let status = response.status().as_u16();
                let body = response.json().await.unwrap_or(Value::Null);
                assert!(status < 500, "{method} {path}: {status} {body}");
                return (status, body);
            }
            _ => {
                RETRIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    panic!("{method} {path} never answered");
}

#[tokio::test]
async fn killed_at_random_under_load_the_platform_recovers_with_every_cent_in_place() {
    let url = platform::testing::fresh_database().await.unwrap();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();

    // An instant run printed beforehand with a seed the test keeps, so it knows the VIRNs; its
    // packs sold to one shop.
    let winners = {
        let mut options = assembly::Options::for_tests().unwrap();
        options.tokens = keys.clone();
        // The draw schedule is fixed by the first start: this one's must be the `lotto` below's.
        options.draws.keno.draw_interval = Duration::from_secs(3);
        options.instant =
            instant::InstantSettings::with_key(platform::config::Secret::new(VIRN_KEY.as_bytes().to_vec()));
        let state = assembly::Assembly::start(&url, options).await.unwrap().instant;
        let pool = state.pool.clone();
        let game = state.game(283).unwrap().clone();
        let run = instant::store_print_run_with(&state, &game, "chaos", ChaCha20Rng::seed_from_u64(5))
            .await
            .unwrap();
        sqlx::query("UPDATE packs SET state = 'active', retailer_id = 'shop-chaos', activated_at = now()")
            .execute(&pool)
            .await
            .unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let mut winners = Vec::new();
        for (p, counts) in pool_counts(&game).iter().enumerate() {
            for t in print_pool(&game, run.first_book, u32::try_from(p).unwrap(), counts, &mut rng).unwrap() {
                if t.prize_row.is_some_and(|r| game.prizes[r].value_cents <= 59_900) {
                    winners.push(json!({"barcode": t.barcode, "virn": t.virn}));
                }
            }
        }
        winners
    };

    let env = [
        ("DATABASE_URL", url.clone()),
        ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned()),
        ("LOTTO_VIRN_KEY", VIRN_KEY.to_owned()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
        ("LOTTO_BJ_ABANDONED_AFTER_SECONDS", "3".to_owned()),
    ];
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let base: Base = Arc::new(RwLock::new(lotto.base_url.clone()));
    let http = reqwest::Client::new();

    // Players, registered and funded through the sandbox provider.
    let mut players = Vec::new();
    for i in 0..6 {
        let email = format!("p{i}@example.com");
        let token = common::player(&http, &lotto.base_url, &email, "correct horse battery staple").await;
        let deposit = json!({"amount": 500_000, "currency": "USD"});
        let (status, intent) = until_answered(
            &http,
            &base,
            reqwest::Method::POST,
            "/v1/me/deposits",
            &token,
            Some("fund"),
            Some(&deposit),
        )
        .await;
        assert_eq!(status, 202, "{intent}");
        players.push(token);
    }
    for token in &players {
        for _ in 0..200 {
            let wallet: Value = http
                .get(format!("{}/v1/me/wallet", lotto.base_url))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if wallet["balance"]["posted"] == 500_000 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    // The load: each player plays Keno at once, joins scheduled draws, and plays blackjack; a till
    // claims instant prizes. Each player plays at least 50 times, and on until the killer is done.
    let mut load = Vec::new();
    for (n, token) in players.iter().cloned().enumerate() {
        let (http, base) = (http.clone(), Arc::clone(&base));
        load.push(tokio::spawn(async move {
            let mut rng = ChaCha20Rng::seed_from_u64(n as u64);
            let (_, table) = until_answered(&http, &base, reqwest::Method::POST, "/v1/blackjack/tables", &token, None, Some(&json!({"decks": 6}))).await;
            let table = table["id"].as_str().unwrap().to_owned();
            for play in 0.. {
                if play >= 50 && KILLER_DONE.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                let key = format!("p{n}-{play}");
                match rng.random_range(0..5) {
                    0 => {
                        let ticket = json!({"option": "bet", "spots": [1 + play % 70, 20, 33, 47, 61], "tickets": 1 + play % 3});
                        until_answered(&http, &base, reqwest::Method::POST, "/v1/keno/tickets", &token, Some(&key), Some(&ticket)).await;
                    }
                    1 => {
                        let ticket = json!({"option": "top_or_bottom", "draws": 1});
                        until_answered(&http, &base, reqwest::Method::POST, "/v1/keno/draw-tickets", &token, Some(&key), Some(&ticket)).await;
                    }
                    3 => {
                        // Craps: a session of the player's, a field bet and a pass line bet when
                        // the puck is off, one roll; the same key again after a kill.
                        let (_, session) = until_answered(&http, &base, reqwest::Method::POST, "/v1/craps/sessions", &token, None, Some(&json!({}))).await;
                        let path = format!("/v1/craps/sessions/{}/rolls", session["id"].as_str().unwrap());
                        let bets = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 500}, {"change": "place", "bet": "field", "amount_cents": 100}]});
                        until_answered(&http, &base, reqwest::Method::POST, &path, &token, Some(&key), Some(&bets)).await;
                    }
                    2 => {
                        // I Luv Suits: the wagers, then a fold or a play sent until it is answered;
                        // a play that may have applied before a crash is read back.
                        let wagers = json!({"ante_cents": 500, "flush_rush_cents": 100});
                        let (status, round) = until_answered(&http, &base, reqwest::Method::POST, "/v1/i-luv-suits/rounds", &token, Some(&key), Some(&wagers)).await;
                        if status != 201 && status != 200 {
                            continue;
                        }
                        let decision = if rng.random_bool(0.7) { json!({"decision": "play"}) } else { json!({"decision": "fold"}) };
                        let path = format!("/v1/i-luv-suits/rounds/{}/decision", round["id"].as_str().unwrap());
                        for _ in 0..5 {
                            let (status, _) = until_answered(&http, &base, reqwest::Method::POST, &path, &token, None, Some(&decision)).await;
                            if status == 200 || status == 409 {
                                break;
                            }
                        }
                    }
                    _ => {
                        let path = format!("/v1/blackjack/tables/{table}/rounds");
                        let bets = json!({"spots": [{"wager": 500, "trilux": 100}]});
                        let (status, mut round) = until_answered(&http, &base, reqwest::Method::POST, &path, &token, Some(&key), Some(&bets)).await;
                        if status == 409 {
                            continue; // a round abandoned by an earlier crash is still in play
                        }
                        for _ in 0..10 {
                            if round["state"] != "playing" {
                                break;
                            }
                            let mut decision = if round["round"]["phase"] == "insurance" {
                                json!({"action": "decline_insurance", "spot": 0})
                            } else {
                                json!({"action": if rng.random_bool(0.3) { "hit" } else { "stand" }})
                            };
                            decision["step"] = round["step"].clone();
                            let path = format!("/v1/blackjack/rounds/{}/actions", round["id"].as_str().unwrap());
                            let (status, next) = until_answered(&http, &base, reqwest::Method::POST, &path, &token, None, Some(&decision)).await;
                            round = if status == 200 {
                                next
                            } else {
                                // A decision that may have applied before the crash: read the round.
                                let path = format!("/v1/blackjack/rounds/{}", round["id"].as_str().unwrap());
                                until_answered(&http, &base, reqwest::Method::GET, &path, &token, None, None).await.1
                            };
                        }
                    }
                }
            }
        }));
    }
    let till = keys
        .issue_for("till-chaos", Role::Retailer, None, Some("shop-chaos"), Duration::from_secs(3600))
        .unwrap();
    {
        let (http, base, winners) = (http.clone(), Arc::clone(&base), winners.clone());
        load.push(tokio::spawn(async move {
            for (n, ticket) in winners.iter().take(100).enumerate() {
                // Retried with the same key after a kill: the same receipt, paid once.
                let key = format!("claim-{n}");
                let (status, receipt) = until_answered(
                    &http,
                    &base,
                    reqwest::Method::POST,
                    "/v1/instant/claims",
                    &till,
                    Some(&key),
                    Some(ticket),
                )
                .await;
                // 201 when this request paid it, 200 when a retry after a kill finds it paid.
                assert!(matches!(status, 200 | 201) && receipt["payment"] == "paid", "{status} {receipt}");
            }
        }));
    }

    // The killer: SIGKILL at a random moment, restart, three times over.
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let mut lotto = lotto;
    let kills = 5;
    for _ in 0..kills {
        tokio::time::sleep(Duration::from_millis(rng.random_range(800..2_500))).await;
        lotto.kill();
        tokio::time::sleep(Duration::from_millis(rng.random_range(100..1_500))).await;
        lotto = Lotto::start(&env, Duration::from_secs(60));
        *base.write().await = lotto.base_url.clone();
    }
    KILLER_DONE.store(true, std::sync::atomic::Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }

    // Recovery: the workers finish what the crashes interrupted.
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut settled = false;
    for _ in 0..300 {
        let unfinished: i64 = sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM draws.keno_tickets WHERE state NOT IN ('settled', 'refused'))
                  + (SELECT count(*) FROM draws.keno_draw_tickets WHERE state = 'open')
                  + (SELECT count(*) FROM tables.bj_rounds WHERE state IN ('open', 'playing', 'settling'))
                  + (SELECT count(*) FROM tables.ils_rounds WHERE state IN ('open', 'settling') OR pending IS NOT NULL)
                  + (SELECT count(*) FROM tables.craps_sessions WHERE pending IS NOT NULL)
                  + (SELECT count(*) FROM draws.keno_entries e JOIN draws.keno_draws d ON d.number = e.draw_number
                      WHERE d.state <> 'settled')",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        if unfinished == 0 {
            settled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(settled, "something interrupted by the crashes was never finished");

    let service = keys.service_token("chaos").unwrap();
    let base_url = lotto.base_url.clone();
    let get = |path: &str| {
        let request = http.get(format!("{base_url}{path}")).bearer_auth(&service);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let mut invariants = 0;
    assert_eq!(get("/v1/reports/trial-balance").await["balanced"], true);
    assert_eq!(get("/v1/reports/journal-check").await["consistent"], true);
    invariants += 2;
    for chain in ["/v1/draws/audit/verify", "/v1/tables/audit/verify"] {
        assert_eq!(get(chain).await["intact"], true, "{chain}");
        invariants += 1;
    }
    let scalar = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await.unwrap() }
    };
    // Keno at once: the stake taken once and the prize paid once, for exactly the settled ones.
    let wrong = scalar(
        "SELECT count(*) FROM draws.keno_tickets k
          WHERE (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'ticket' = k.id::text AND t.debit_account_id = k.wallet_account_id)
                <> CASE WHEN k.state = 'settled' THEN k.stake_cents ELSE 0 END
             OR (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'ticket' = k.id::text AND t.credit_account_id = k.wallet_account_id)
                <> CASE WHEN k.state = 'settled' THEN k.payout_cents ELSE 0 END",
    )
    .await;
    assert_eq!(wrong, 0, "Keno tickets charged or paid other than once");
    // Scheduled Keno: staked once; every entry paid its prize once.
    let wrong = scalar(
        "SELECT count(*) FROM draws.keno_draw_tickets k
          WHERE (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'ticket' = k.id::text AND t.debit_account_id = k.wallet_account_id)
                <> CASE WHEN k.state = 'staked' THEN k.stake_cents * k.draws ELSE 0 END
             OR (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'ticket' = k.id::text AND t.credit_account_id = k.wallet_account_id)
                <> (SELECT coalesce(sum(payout_cents), 0) FROM draws.keno_entries e WHERE e.ticket_id = k.id)",
    )
    .await;
    assert_eq!(wrong, 0, "scheduled Keno tickets charged or paid other than once");
    // Blackjack: each round's wallet debits are its stakes and its credits what it returned.
    let wrong = scalar(
        "SELECT count(*) FROM tables.bj_rounds r
          WHERE (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = r.id::text AND t.debit_account_id = r.wallet_account_id)
                <> coalesce(r.staked_cents, 0)
             OR (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = r.id::text AND t.credit_account_id = r.wallet_account_id)
                <> coalesce(r.returned_cents, 0) + coalesce(r.pot_prize_cents, 0)",
    )
    .await;
    if wrong != 0 {
        // Say which rounds, so a failure can be read without the database.
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT concat_ws(' ', r.id, r.state, r.staked_cents, r.returned_cents, r.pot_prize_cents, d.sum, c.sum)
               FROM tables.bj_rounds r,
                    LATERAL (SELECT coalesce(sum(amount), 0) AS sum FROM ledger.transfers t
                              WHERE t.metadata->>'round' = r.id::text AND t.debit_account_id = r.wallet_account_id) d,
                    LATERAL (SELECT coalesce(sum(amount), 0) AS sum FROM ledger.transfers t
                              WHERE t.metadata->>'round' = r.id::text AND t.credit_account_id = r.wallet_account_id) c
              WHERE d.sum <> coalesce(r.staked_cents, 0)
                 OR c.sum <> coalesce(r.returned_cents, 0) + coalesce(r.pot_prize_cents, 0)",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        println!("blackjack rounds off (id state staked returned pot debited credited): {rows:#?}");
    }
    assert_eq!(wrong, 0, "blackjack rounds charged or paid other than their wagers and returns");
    // I Luv Suits: the same, for every round a player finished deciding.
    let wrong = scalar(
        "SELECT count(*) FROM tables.ils_rounds r
          WHERE (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = r.id::text AND t.debit_account_id = r.wallet_account_id)
                <> coalesce(r.staked_cents, 0)
             OR (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = r.id::text AND t.credit_account_id = r.wallet_account_id)
                <> coalesce(r.returned_cents, 0)",
    )
    .await;
    assert_eq!(wrong, 0, "I Luv Suits rounds charged or paid other than their wagers and returns");
    // Craps: every recorded request moved exactly its money, and nothing else moved for a session.
    // A request moves the wallet's net with the house as one transfer (`Legs::WalletNet`), or,
    // when that net is nothing, its stake and what it paid back as two.
    let wrong = scalar(
        "WITH r AS (
             SELECT session_id,
                    (money->>'staked_cents')::bigint + greatest((money->>'commission_cents')::bigint, 0) AS stake,
                    (money->>'returned_cents')::bigint + (money->>'winnings_cents')::bigint
                      + (money->>'taken_down_cents')::bigint + greatest(-(money->>'commission_cents')::bigint, 0) AS paid
               FROM tables.craps_rolls),
         expected AS (
             SELECT session_id,
                    sum(CASE WHEN paid = stake THEN stake ELSE greatest(stake - paid, 0) END) AS debited,
                    sum(CASE WHEN paid = stake THEN paid ELSE greatest(paid - stake, 0) END) AS credited
               FROM r GROUP BY session_id)
         SELECT count(*) FROM tables.craps_sessions s LEFT JOIN expected e ON e.session_id = s.id
          WHERE (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = s.id::text AND t.debit_account_id = s.wallet_account_id)
                <> coalesce(e.debited, 0)
             OR (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'round' = s.id::text AND t.credit_account_id = s.wallet_account_id)
                <> coalesce(e.credited, 0)",
    )
    .await;
    assert_eq!(wrong, 0, "craps rolls charged or paid other than their records");
    let undecided = scalar("SELECT count(*) FROM tables.ils_rounds WHERE state = 'deciding'").await;
    assert_eq!(undecided, 0, "an I Luv Suits round was left without its decision");
    // Nothing in escrow without a round or draw to hold it for.
    let escrowed = scalar(
        "SELECT coalesce(sum(b.credits_posted - b.debits_posted), 0)::bigint FROM ledger.balances b
           JOIN ledger.accounts a ON a.id = b.account_id WHERE a.kind = 'game_escrow'",
    )
    .await;
    // Craps bets still on a layout (a pass line waiting for its point) are the only stakes held.
    let on_layouts = scalar(
        "SELECT coalesce(sum((b->>'amount_cents')::bigint), 0)::bigint
           FROM tables.craps_sessions s, jsonb_array_elements(s.session->'bets') b",
    )
    .await;
    assert_eq!(escrowed, on_layouts, "stakes in escrow other than the bets on craps layouts");
    // Instant: no ticket paid twice, every ticket marked paid paid once.
    let wrong = scalar(
        "SELECT count(*) FROM instant.tickets k
          WHERE (SELECT count(*) FROM ledger.transfers t
                  WHERE t.metadata->>'book' = k.book::text AND t.metadata->>'ticket' = k.ticket::text
                    AND t.metadata->>'game' = k.game::text)
                <> CASE WHEN k.payment IN ('done', 'confirmed') THEN 1 ELSE 0 END",
    )
    .await;
    assert_eq!(wrong, 0, "instant tickets paid other than once");
    invariants += 8;
    let paid = scalar("SELECT count(*) FROM instant.tickets WHERE payment IN ('done', 'confirmed')").await;
    let rounds = scalar("SELECT count(*) FROM tables.bj_rounds").await;
    let suits = scalar("SELECT count(*) FROM tables.ils_rounds").await;
    let rolls = scalar("SELECT count(*) FROM tables.craps_rolls").await;
    let tickets = scalar(
        "SELECT (SELECT count(*) FROM draws.keno_tickets) + (SELECT count(*) FROM draws.keno_draw_tickets)",
    )
    .await;
    let retried = RETRIES.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "chaos: {} requests ({retried} sent again after a kill), {kills} kills survived, {tickets} keno tickets, {rounds} blackjack rounds, {suits} I Luv Suits rounds, {rolls} craps rolls, {paid} instant prizes; {invariants} invariants hold",
        SENT.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(retried > 0, "no request met a kill: the load finished before the chaos began");
    lotto.terminate();
}
