//! The mixed load the chaos and failover tests put on a running `lotto`, and what they check
//! after it: every game played at once by several players and a till, every client retrying
//! with the same idempotency key until answered, as a real one would; then the money checked to
//! the cent and every acknowledged request looked for.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use domain::instant::print_run::print_run_pools;
use platform::auth::{Role, TokenKeys};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};
use tokio::sync::RwLock;
use tokio::task::JoinHandle;

pub const VIRN_KEY: &str = "chaos-test-virn-key-0123456789abcdef0123";
pub const WEBHOOK_SECRET: &str = "chaos-test-webhook-key-0123456789abcdef";

/// Where `lotto` listens now (it moves when a test restarts it).
pub type Base = Arc<RwLock<String>>;

/// What the load did, shared by its tasks.
#[derive(Default)]
pub struct Tally {
    /// Requests sent, retries included.
    pub sent: AtomicUsize,
    /// Requests sent again because no answer came (the process or the database was down) or
    /// the answer was 503.
    pub retried: AtomicUsize,
    /// Requests answered 429 (the rate limit) and sent again after its Retry-After.
    pub slowed: AtomicUsize,
    /// Set when the disturbance is over: the players play on until then.
    pub done: AtomicBool,
    /// Every acknowledged request that created something: (what, id), to be found afterwards.
    pub acknowledged: Mutex<Vec<(&'static str, String)>>,
    /// Each acknowledged money request: when its answered attempt was sent, and when answered.
    pub writes: Mutex<Vec<(Instant, Instant)>>,
}

impl Tally {
    pub fn acknowledge(&self, what: &'static str, id: &Value) {
        if let Some(id) = id.as_str() {
            self.acknowledged.lock().unwrap().push((what, id.to_owned()));
        }
    }

    /// The acknowledged writes answered from `from` to `to`.
    pub fn writes_between(&self, from: Instant, to: Instant) -> usize {
        self.writes.lock().unwrap().iter().filter(|(_, answered)| *answered >= from && *answered < to).count()
    }

    /// The time from `since` to the first acknowledged write sent after it.
    pub fn first_write_after(&self, since: Instant) -> Option<Duration> {
        let writes = self.writes.lock().unwrap();
        writes
            .iter()
            .filter(|(sent, _)| *sent > since)
            .map(|(_, answered)| *answered)
            .min()
            .map(|at| at - since)
    }
}

/// One client of the load: an HTTP client, where `lotto` is, and the tally.
#[derive(Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub base: Base,
    pub tally: Arc<Tally>,
}

impl Client {
    /// Sends until an answer other than 503 comes: a connection refused or reset, no answer in
    /// time, or a load balancer's 502 or 504 (the replica behind it died with the request) is
    /// sent again with the same request, which is what the idempotency key is for; a 429 is sent
    /// again after its Retry-After, as a well-behaved client does.
    pub async fn until_answered(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        for _ in 0..1_200 {
            let url = format!("{}{path}", self.base.read().await);
            let mut request =
                self.http.request(method.clone(), url).bearer_auth(token).timeout(Duration::from_secs(20));
            if let Some(key) = key {
                request = request.header("idempotency-key", key);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            self.tally.sent.fetch_add(1, Ordering::Relaxed);
            let sent = Instant::now();
            match request.send().await {
                // Slowed down: wait as long as the server says, and send the same again.
                Ok(response) if response.status().as_u16() == 429 => {
                    let wait =
                        response.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok());
                    self.tally.slowed.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_secs(wait.unwrap_or(1))).await;
                }
                Ok(response) if !matches!(response.status().as_u16(), 502..=504) => {
                    let status = response.status().as_u16();
                    let body = response.json().await.unwrap_or(Value::Null);
                    assert!(status < 500, "{method} {path}: {status} {body}");
                    if key.is_some() && (200..300).contains(&status) {
                        self.tally.writes.lock().unwrap().push((sent, Instant::now()));
                    }
                    return (status, body);
                }
                _ => {
                    self.tally.retried.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        panic!("{method} {path} never answered");
    }
}

/// An instant run printed beforehand on the database at `url` with a seed the test keeps, its
/// packs sold to one shop; returns the winners' barcodes and VIRNs (prizes a till may pay).
pub async fn instant_winners(url: &str, keys: &TokenKeys, draw_interval: Duration) -> Vec<Value> {
    let mut options = assembly::Options::for_tests().unwrap();
    options.tokens = keys.clone();
    // The draw schedule is fixed by the first start: this one's must be the `lotto` below's.
    options.draws.keno.draw_interval = draw_interval;
    options.instant =
        instant::InstantSettings::with_key(platform::config::Secret::new(VIRN_KEY.as_bytes().to_vec()));
    let assembly = assembly::Assembly::start(url, options).await.unwrap();
    let state = assembly.instant.clone();
    let pool = state.pool.clone();
    let game = state.game(283).unwrap().clone();
    let run =
        instant::store_print_run_with(&state, &game, "chaos", ChaCha20Rng::seed_from_u64(5)).await.unwrap();
    sqlx::query("UPDATE packs SET state = 'active', retailer_id = 'shop-chaos', activated_at = now()")
        .execute(&pool)
        .await
        .unwrap();
    for (_, pool) in assembly.pools() {
        pool.close().await;
    }
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut winners = Vec::new();
    for pool in print_run_pools(&game, run.first_book, &mut rng) {
        for t in pool.unwrap() {
            if t.prize_row.is_some_and(|r| game.prizes[r].value_cents <= 59_900) {
                winners.push(json!({"barcode": t.barcode, "virn": t.virn}));
            }
        }
    }
    winners
}

/// `count` players registered and funded with $5,000 each through the sandbox provider.
pub async fn funded_players(client: &Client, count: usize) -> Vec<String> {
    let base = client.base.read().await.clone();
    let started = Instant::now();
    // Registered, confirmed, verified and located all at once: each takes a dozen requests.
    let tokens = futures_util::future::join_all((0..count).map(|i| {
        let (http, base) = (client.http.clone(), base.clone());
        async move {
            super::player(&http, &base, &format!("p{i}@example.com"), "correct horse battery staple").await
        }
    }))
    .await;
    let mut players = Vec::new();
    for token in tokens {
        let deposit = json!({"amount": 500_000, "currency": "USD"});
        let post = reqwest::Method::POST;
        let (status, intent) =
            client.until_answered(post, "/v1/me/deposits", &token, Some("fund"), Some(&deposit)).await;
        assert_eq!(status, 202, "{intent}");
        players.push(token);
    }
    for token in &players {
        for _ in 0..200 {
            let (_, wallet) =
                client.until_answered(reqwest::Method::GET, "/v1/me/wallet", token, None, None).await;
            if wallet["balance"]["posted"] == 500_000 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    println!("{count} players registered, verified, located and funded in {:.1?}", started.elapsed());
    players
}

/// The load: each player plays Keno at once, joins scheduled draws, plays blackjack, I Luv Suits
/// and craps, at least `at_least` times and on until the tally says the disturbance is over; a
/// till claims instant prizes.
pub fn start(
    client: &Client,
    players: &[String],
    winners: &[Value],
    keys: &TokenKeys,
    at_least: usize,
) -> Vec<JoinHandle<()>> {
    let mut load = Vec::new();
    for (n, token) in players.iter().cloned().enumerate() {
        let client = client.clone();
        load.push(tokio::spawn(async move { play(&client, n, &token, at_least).await }));
    }
    let till = keys
        .issue_for("till-chaos", Role::Retailer, None, Some("shop-chaos"), Duration::from_secs(3600))
        .unwrap();
    let (client, winners) = (client.clone(), winners.to_vec());
    load.push(tokio::spawn(async move {
        for (n, ticket) in winners.iter().take(100).enumerate() {
            // Retried with the same key after a kill: the same receipt, paid once.
            let key = format!("claim-{n}");
            let post = reqwest::Method::POST;
            let (status, receipt) =
                client.until_answered(post, "/v1/instant/claims", &till, Some(&key), Some(ticket)).await;
            // 201 when this request paid it, 200 when a retry after a kill finds it paid.
            assert!(matches!(status, 200 | 201) && receipt["payment"] == "paid", "{status} {receipt}");
            client.tally.acknowledge("instant receipt", &receipt["receipt_id"]);
        }
    }));
    load
}

async fn play(client: &Client, n: usize, token: &str, at_least: usize) {
    let post = || reqwest::Method::POST;
    let mut rng = ChaCha20Rng::seed_from_u64(n as u64);
    let (_, table) =
        client.until_answered(post(), "/v1/blackjack/tables", token, None, Some(&json!({"decks": 6}))).await;
    let table = table["id"].as_str().unwrap().to_owned();
    for play in 0.. {
        if play >= at_least && client.tally.done.load(Ordering::Relaxed) {
            break;
        }
        let key = format!("p{n}-{play}");
        if play % 10 == 9 {
            payment(client, token, &key, play % 20 == 9).await;
            continue;
        }
        match rng.random_range(0..5) {
            0 => {
                let ticket = json!({"option": "bet", "spots": [1 + play % 70, 20, 33, 47, 61], "tickets": 1 + play % 3});
                let (status, body) =
                    client.until_answered(post(), "/v1/keno/tickets", token, Some(&key), Some(&ticket)).await;
                if status < 300 {
                    client.tally.acknowledge("keno ticket", &body["id"]);
                }
            }
            1 => {
                let ticket = json!({"option": "top_or_bottom", "draws": 1});
                let (status, body) = client
                    .until_answered(post(), "/v1/keno/draw-tickets", token, Some(&key), Some(&ticket))
                    .await;
                if status < 300 {
                    client.tally.acknowledge("keno draw ticket", &body["id"]);
                }
            }
            2 => i_luv_suits(client, token, &key, &mut rng).await,
            3 => {
                // Craps: a session of the player's, a field bet and a pass line bet when the puck
                // is off, one roll; the same key again after a kill.
                let (status, session) =
                    client.until_answered(post(), "/v1/craps/sessions", token, None, Some(&json!({}))).await;
                let id =
                    session["id"].as_str().unwrap_or_else(|| panic!("a craps session: {status} {session}"));
                let path = format!("/v1/craps/sessions/{id}/rolls");
                let bets = json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 500}, {"change": "place", "bet": "field", "amount_cents": 100}]});
                let (status, _) = client.until_answered(post(), &path, token, Some(&key), Some(&bets)).await;
                if status < 300 {
                    client.tally.acknowledge(
                        "craps roll",
                        &json!(format!("{}/{key}", session["id"].as_str().unwrap())),
                    );
                }
            }
            _ => blackjack(client, token, &table, &key, &mut rng).await,
        }
    }
}

/// A deposit of $10 or a withdrawal of $5 through the sandbox provider (its webhook comes back
/// to the gateway that asked it, unless that replica dies first: the payment then stays pending).
async fn payment(client: &Client, token: &str, key: &str, deposit: bool) {
    let path = if deposit { "/v1/me/deposits" } else { "/v1/me/withdrawals" };
    let amount = if deposit { 1_000 } else { 500 };
    let body = json!({"amount": amount, "currency": "USD"});
    let (mut status, mut payment) =
        client.until_answered(reqwest::Method::POST, path, token, Some(key), Some(&body)).await;
    // A withdrawal whose intent could not be recorded (its database lost mid-request) was
    // abandoned and its hold released: nothing moved, and the answer says to ask again with a
    // new key, as a client does.
    if status == 409 && payment["code"] == "withdrawal_abandoned" {
        let again = format!("{key}-again");
        (status, payment) =
            client.until_answered(reqwest::Method::POST, path, token, Some(&again), Some(&body)).await;
    }
    assert!(matches!(status, 200 | 202), "{path}: {status} {payment}");
    client.tally.acknowledge("payment", &payment["id"]);
}

/// I Luv Suits: the wagers, then a fold or a play sent until it is answered.
async fn i_luv_suits(client: &Client, token: &str, key: &str, rng: &mut ChaCha20Rng) {
    let wagers = json!({"ante_cents": 500, "flush_rush_cents": 100});
    let (status, round) = client
        .until_answered(reqwest::Method::POST, "/v1/i-luv-suits/rounds", token, Some(key), Some(&wagers))
        .await;
    if status != 201 && status != 200 {
        return;
    }
    client.tally.acknowledge("I Luv Suits round", &round["id"]);
    let decision =
        if rng.random_bool(0.7) { json!({"decision": "play"}) } else { json!({"decision": "fold"}) };
    let path = format!("/v1/i-luv-suits/rounds/{}/decision", round["id"].as_str().unwrap());
    for _ in 0..5 {
        let (status, _) =
            client.until_answered(reqwest::Method::POST, &path, token, None, Some(&decision)).await;
        if status == 200 || status == 409 {
            break;
        }
    }
}

/// Blackjack: a round's wagers, then decisions until it ends; a decision that may have applied
/// before a crash is read back.
async fn blackjack(client: &Client, token: &str, table: &str, key: &str, rng: &mut ChaCha20Rng) {
    let path = format!("/v1/blackjack/tables/{table}/rounds");
    let bets = json!({"spots": [{"wager": 500, "trilux": 100}]});
    let (status, mut round) =
        client.until_answered(reqwest::Method::POST, &path, token, Some(key), Some(&bets)).await;
    if status == 409 {
        return; // a round abandoned by an earlier crash is still in play
    }
    client.tally.acknowledge("blackjack round", &round["id"]);
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
        let (status, next) =
            client.until_answered(reqwest::Method::POST, &path, token, None, Some(&decision)).await;
        round = if status == 200 {
            next
        } else {
            let path = format!("/v1/blackjack/rounds/{}", round["id"].as_str().unwrap());
            client.until_answered(reqwest::Method::GET, &path, token, None, None).await.1
        };
    }
}

/// Waits until the workers have finished what the disturbance interrupted, then checks the money
/// to the cent and looks for every acknowledged request; returns a line of what was checked.
pub async fn settled_and_checked(client: &Client, url: &str, keys: &TokenKeys) -> String {
    // Recovery: the workers finish what the crashes interrupted.
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let mut settled = false;
    for _ in 0..300 {
        let unfinished: i64 = sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM draws.keno_tickets WHERE state NOT IN ('settled', 'refused'))
                  + (SELECT count(*) FROM draws.keno_draw_tickets WHERE state = 'open')
                  + (SELECT count(*) FROM tables.bj_rounds WHERE state IN ('open', 'playing', 'settling'))
                  + (SELECT count(*) FROM tables.ils_rounds WHERE state IN ('open', 'settling') OR pending IS NOT NULL)
                  + (SELECT count(*) FROM tables.craps_sessions WHERE pending IS NOT NULL)
                  + (SELECT count(*) FROM gateway.payments WHERE state = 'settling')
                  + (SELECT count(*) FROM draws.pb_tickets WHERE state = 'open')
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
    let base_url = client.base.read().await.clone();
    let http = client.http.clone();
    let get = |path: &str| {
        let request = http.get(format!("{base_url}{path}")).bearer_auth(&service);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let mut invariants = 0;
    assert_eq!(get("/v1/reports/trial-balance").await["balanced"], true);
    assert_eq!(get("/v1/reports/journal-check").await["consistent"], true);
    // The day's report (issue 50): every player account that moved money reconciles with the
    // ledger's counters, and its lines add up to its totals. The day of the play as the
    // database stamped it (a process on a shifted clock may count it over already).
    let day = domain::reports::GamingDays::default().day_of(chrono::Utc::now());
    let report = get(&format!("/v1/reports/daily/{day}")).await;
    assert_eq!(report["accounts_unreconciled"], json!(0), "{report:#}");
    assert!(report["accounts_active"].as_i64().is_some_and(|n| n > 0), "{report:#}");
    let handle: i64 =
        report["lines"].as_array().unwrap().iter().map(|l| l["figures"]["handle"].as_i64().unwrap()).sum();
    assert_eq!(report["totals"]["handle"].as_i64().unwrap(), handle);
    assert!(handle > 0, "{report:#}");
    invariants += 3;
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
    // Payments: a deposit credited once if it succeeded and never otherwise; a withdrawal's hold
    // placed once, and then: posted once if it succeeded (or, when its hold had ended first, the
    // money withdrawn once, late), voided once if it failed, neither if not yet reported (its
    // provider's replica died with the request).
    let wrong = scalar(
        "WITH late AS (SELECT t.metadata->>'payment' AS payment, count(*) AS n FROM ledger.transfers t
                        WHERE t.kind = 'posted' AND t.metadata->>'kind' = 'withdrawal' GROUP BY 1),
              moved AS (
             SELECT p.kind, p.state,
                    (SELECT count(*) FROM ledger.transfers t WHERE t.id = p.id) AS own,
                    (SELECT count(*) FROM ledger.transfers t WHERE t.pending_id = p.id AND t.kind = 'post_pending') AS posted,
                    (SELECT count(*) FROM ledger.transfers t
                      WHERE t.pending_id = p.id AND t.kind IN ('void_pending', 'expire_pending')) AS ended,
                    coalesce(l.n, 0) AS late
               FROM gateway.payments p LEFT JOIN late l ON l.payment = p.id::text)
         SELECT count(*) FROM moved
          WHERE CASE WHEN kind = 'deposit' THEN own <> CASE WHEN state = 'succeeded' THEN 1 ELSE 0 END
                ELSE own <> 1
                  OR (state = 'succeeded' AND (posted, ended, late) NOT IN ((1, 0, 0), (0, 1, 1)))
                  OR (state = 'failed' AND (posted, ended, late) <> (0, 1, 0))
                  OR (state IN ('pending', 'settling') AND (posted, late) <> (0, 0)) END",
    )
    .await;
    assert_eq!(wrong, 0, "payments moved other than once");
    let undecided = scalar("SELECT count(*) FROM tables.ils_rounds WHERE state = 'deciding'").await;
    assert_eq!(undecided, 0, "an I Luv Suits round was left without its decision");
    // Nothing in escrow without a round or draw to hold it for.
    let escrowed = scalar(
        "SELECT coalesce(sum(b.credits_posted - b.debits_posted), 0)::bigint FROM ledger.balances b
           JOIN ledger.accounts a ON a.id = b.account_id WHERE a.kind = 'game_escrow'",
    )
    .await;
    // Craps bets still on a layout (a pass line waiting for its point) and Powerball tickets
    // sold are the only stakes held (no drawing settles in these tests: that is an hour after
    // its close).
    let on_layouts = scalar(
        "SELECT coalesce(sum((b->>'amount_cents')::bigint), 0)::bigint
           FROM tables.craps_sessions s, jsonb_array_elements(s.session->'bets') b",
    )
    .await;
    let powerball =
        scalar("SELECT coalesce(sum(cost_cents), 0)::bigint FROM draws.pb_tickets WHERE state = 'sold'")
            .await;
    assert_eq!(
        escrowed,
        on_layouts + powerball,
        "stakes in escrow other than the bets on craps layouts and the Powerball tickets"
    );
    // Instant: no ticket paid twice, every ticket marked paid paid once (its game `instant-<n>`
    // in the journal since issue 48, its bare number before).
    let wrong = scalar(
        "SELECT count(*) FROM instant.tickets k
          WHERE (SELECT count(*) FROM ledger.transfers t
                  WHERE t.metadata->>'book' = k.book::text AND t.metadata->>'ticket' = k.ticket::text
                    AND t.metadata->>'game' IN ('instant-' || k.game, k.game::text))
                <> CASE WHEN k.payment IN ('done', 'confirmed') THEN 1 ELSE 0 END",
    )
    .await;
    assert_eq!(wrong, 0, "instant tickets paid other than once");
    // The significant-events log (issue 50): every payment settled and every instant prize paid
    // has its one event, written with it (none for what did not happen), and the chain verifies.
    let wrong = scalar(
        "WITH recorded AS (SELECT kind, details FROM events.pending UNION ALL SELECT kind, details FROM events.log),
              told AS (SELECT details::jsonb->>'payment' AS payment, count(*) AS n FROM recorded
                        WHERE kind IN ('deposit', 'deposit_failed', 'withdrawal', 'withdrawal_failed') GROUP BY 1)
         SELECT count(*) FROM gateway.payments p LEFT JOIN told t ON t.payment = p.id::text
          WHERE coalesce(t.n, 0) <> CASE WHEN p.state IN ('succeeded', 'failed') THEN 1 ELSE 0 END",
    )
    .await;
    assert_eq!(wrong, 0, "payments settled without their one significant event");
    let wrong = scalar(
        "WITH recorded AS (SELECT kind, details FROM events.pending UNION ALL SELECT kind, details FROM events.log),
              told AS (SELECT details::jsonb->>'payment' AS payment, count(*) AS n FROM recorded
                        WHERE kind = 'prize_paid' GROUP BY 1)
         SELECT count(*) FROM instant.tickets k LEFT JOIN told t ON t.payment = k.payment_id::text
          WHERE coalesce(t.n, 0) <> CASE WHEN k.payment IN ('done', 'confirmed') THEN 1 ELSE 0 END",
    )
    .await;
    assert_eq!(wrong, 0, "instant prizes paid without their one significant event");
    // Chained here, or by the processes' own chainers (whichever holds the chain's lock).
    let mut log = platform::events::chain::verify(&pool).await.unwrap();
    // (Draws go on meanwhile, so an event or two may be seconds old and waiting: none older.)
    let recent = |log: &platform::events::chain::LogCheck| {
        log.oldest_pending_at.is_none_or(|at| chrono::Utc::now() - at < chrono::Duration::seconds(5))
    };
    for _ in 0..100 {
        if recent(&log) {
            break;
        }
        platform::events::chain::chain_all(&pool, None).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        log = platform::events::chain::verify(&pool).await.unwrap();
    }
    assert!(log.intact && recent(&log), "the significant-events log: {log:?}");
    invariants += 12;
    let paid = scalar("SELECT count(*) FROM instant.tickets WHERE payment IN ('done', 'confirmed')").await;
    let rounds = scalar("SELECT count(*) FROM tables.bj_rounds").await;
    let suits = scalar("SELECT count(*) FROM tables.ils_rounds").await;
    let rolls = scalar("SELECT count(*) FROM tables.craps_rolls").await;
    let payments = scalar("SELECT count(*) FROM gateway.payments").await;
    let tickets = scalar(
        "SELECT (SELECT count(*) FROM draws.keno_tickets) + (SELECT count(*) FROM draws.keno_draw_tickets)",
    )
    .await;
    // Every acknowledged request is there (a commit acknowledged is never lost, RPO 0).
    let acknowledged = client.tally.acknowledged.lock().unwrap().clone();
    for (what, id) in &acknowledged {
        let found: i64 = match *what {
            "keno ticket" => {
                sqlx::query_scalar("SELECT count(*) FROM draws.keno_tickets WHERE id::text = $1")
            }
            "keno draw ticket" => {
                sqlx::query_scalar("SELECT count(*) FROM draws.keno_draw_tickets WHERE id::text = $1")
            }
            "blackjack round" => {
                sqlx::query_scalar("SELECT count(*) FROM tables.bj_rounds WHERE id::text = $1")
            }
            "I Luv Suits round" => {
                sqlx::query_scalar("SELECT count(*) FROM tables.ils_rounds WHERE id::text = $1")
            }
            "craps roll" => sqlx::query_scalar(
                "SELECT count(*) FROM tables.craps_rolls WHERE session_id::text || '/' || key = $1",
            ),
            "payment" => sqlx::query_scalar("SELECT count(*) FROM gateway.payments WHERE id::text = $1"),
            // Its printed serial: 18 digits and a check digit, in groups.
            "powerball ticket" => sqlx::query_scalar(
                "SELECT count(*) FROM draws.pb_tickets WHERE serial::text = left(replace($1, '-', ''), 18)",
            ),
            _ => sqlx::query_scalar("SELECT count(*) FROM instant.claim_receipts WHERE id::text = $1"),
        }
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(found, 1, "acknowledged {what} {id} found {found} times");
    }
    invariants += 1;
    pool.close().await;
    format!(
        "{} requests ({} sent again, {} after a 429), {} acknowledged and found once each, {tickets} keno tickets, {rounds} blackjack rounds, \
         {suits} I Luv Suits rounds, {rolls} craps rolls, {paid} instant prizes, {payments} payments; {invariants} invariants hold",
        client.tally.sent.load(Ordering::Relaxed),
        client.tally.retried.load(Ordering::Relaxed),
        client.tally.slowed.load(Ordering::Relaxed),
        acknowledged.len()
    )
}
