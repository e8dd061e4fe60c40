//! Two `table-games` processes on one database, a player's requests taking turns between them
//! (issue 33 §1): every game's remembered rows, one-statement writers and requests in flight
//! are per process, so each request here reaches a process whose memory is behind the other's.
//! Each process is the service's own binary, started as a user starts it; the ledger is served
//! beside them on a socket. Every answer is checked against the stored row, and the books
//! against the ledger.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use platform::auth::{Role, TokenKeys};
use serde_json::{Value, json};
use uuid::Uuid;

const SECRET: &str = "two-processes-test-secret-0123456789abcdef";

/// A `table-games` process; killed when dropped.
struct Process {
    child: Child,
    url: String,
}

impl Process {
    fn start(database: &str, ledger: &str) -> Process {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(env!("CARGO_BIN_EXE_table-games"))
            .env("DATABASE_URL", database)
            .env("LOTTO_TOKEN_SECRET", SECRET)
            .env("LOTTO_LEDGER_URL", ledger)
            .env("LOTTO_LISTEN", format!("127.0.0.1:{port}"))
            .env("LOTTO_DB_MAX_CONNECTIONS", "16")
            .env("LOTTO_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("start table-games");
        Process { child, url: format!("http://127.0.0.1:{port}") }
    }

    async fn ready(&self, http: &reqwest::Client) {
        for _ in 0..300 {
            if http.get(format!("{}/readyz", self.url)).send().await.is_ok_and(|r| r.status() == 200) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("table-games at {} did not become ready", self.url);
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The two processes, the ledger, and a player with a funded wallet.
struct Tables {
    http: reqwest::Client,
    processes: [Process; 2],
    ledger: String,
    tokens: TokenKeys,
    player: String,
    wallet: Uuid,
}

impl Tables {
    async fn call(
        &self,
        process: usize,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        let url = format!("{}{path}", self.processes[process].url);
        let mut request = match method {
            "GET" => self.http.get(url),
            _ => self.http.post(url).json(&body),
        };
        request = request.bearer_auth(&self.player);
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        let answer = request.send().await.unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    async fn ledger_get(&self, path: &str) -> Value {
        let token = self.tokens.service_token("tests").unwrap();
        self.http
            .get(format!("{}{path}", self.ledger))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn wallet_balance(&self) -> i64 {
        self.ledger_get(&format!("/v1/accounts/{}", self.wallet)).await["balance"]["posted"].as_i64().unwrap()
    }
}

async fn tables() -> Tables {
    let database = platform::testing::fresh_database().await.unwrap();
    let tokens = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let config = platform::config::Config::default();
    let ledger_pool = ledger::connect(&database, &config).await.unwrap();
    let ledger = platform::testing::serve_on_loopback(ledger::router(
        ledger::LedgerState::new(ledger_pool, tokens.clone()),
        platform::http::Limits::default(),
    ))
    .await
    .unwrap();
    let http = reqwest::Client::new();
    // The first process migrates the schema and opens the games' accounts; the second finds them.
    let first = Process::start(&database, &ledger);
    first.ready(&http).await;
    let second = Process::start(&database, &ledger);
    second.ready(&http).await;
    let owner = Uuid::now_v7().to_string();
    let service = tokens.service_token("tests").unwrap();
    let wallet: Value = http
        .post(format!("{ledger}/v1/accounts"))
        .bearer_auth(&service)
        .json(&json!({"kind": "player_wallet", "owner": owner, "currency": "USD"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let wallet: Uuid = wallet["id"].as_str().unwrap().parse().unwrap();
    let deposit = json!({"id": Uuid::now_v7(), "account_id": wallet, "amount": 1_000_000, "currency": "USD"});
    let deposited =
        http.post(format!("{ledger}/v1/deposits")).bearer_auth(&service).json(&deposit).send().await;
    assert_eq!(deposited.unwrap().status(), 201);
    let player = tokens.issue(&owner, Role::Player, None, Duration::from_secs(600)).unwrap();
    Tables { http, processes: [first, second], ledger, tokens, player, wallet }
}

#[tokio::test]
async fn two_processes_serving_the_same_tables_take_turns_and_every_cent_balances() {
    let t = tables().await;
    let start = t.wallet_balance().await;
    let mut moved = 0i64;

    // Blackjack: the table opened by one process, each round dealt by one and every decision
    // taken by the other in turn, so each decision meets a process whose memory of the round
    // (if any) is a step behind.
    let (status, table) = t.call(0, "POST", "/v1/blackjack/tables", None, json!({"decks": 6})).await;
    assert_eq!(status, 201, "{table}");
    let table = table["id"].as_str().unwrap().to_owned();
    for n in 0..6usize {
        let dealer = n % 2;
        let path = format!("/v1/blackjack/tables/{table}/rounds");
        let (status, mut round) = t
            .call(
                dealer,
                "POST",
                &path,
                Some(&format!("bj-{n}")),
                json!({"spots": [{"wager": 500}, {"wager": 500}, {"wager": 500}]}),
            )
            .await;
        assert_eq!(status, 201, "{round}");
        let id = round["id"].as_str().unwrap().to_owned();
        let mut turn = dealer + 1;
        while round["state"] == "playing" {
            let step = round["step"].as_i64().unwrap();
            let actions = round["allowed_actions"].as_array().unwrap();
            // Three spots, and a hit where one is allowed on an even step: several decisions a
            // round, so the process that dealt it decides on a round it remembers a step behind.
            let hit = step % 2 == 0 && actions.iter().any(|a| a["action"] == "hit");
            let action = match actions.iter().find(|a| a["action"] == "stand") {
                Some(_) if hit => json!({"action": "hit"}),
                Some(_) => json!({"action": "stand"}),
                None => {
                    let decline = actions.iter().find(|a| a["action"] == "decline_insurance").unwrap();
                    json!({"action": "decline_insurance", "spot": decline["spot"]})
                }
            };
            let mut body = action;
            body["step"] = json!(step);
            let (status, next) =
                t.call(turn % 2, "POST", &format!("/v1/blackjack/rounds/{id}/actions"), None, body).await;
            assert_eq!(status, 200, "process {} at step {step}: {next}", turn % 2);
            assert_eq!(next["step"].as_i64().unwrap(), step + 1, "{next}");
            round = next;
            turn += 1;
        }
        assert_eq!(round["state"], "settled", "{round}");
        // Each process answers the round as it is stored.
        let (_, here) = t.call(0, "GET", &format!("/v1/blackjack/rounds/{id}"), None, Value::Null).await;
        let (_, there) = t.call(1, "GET", &format!("/v1/blackjack/rounds/{id}"), None, Value::Null).await;
        assert_eq!(here, there);
        assert_eq!(here["state"], "settled");
        moved +=
            round["balance_after_cents"].as_i64().unwrap() - round["balance_before_cents"].as_i64().unwrap();
    }

    // I Luv Suits: wagers through one process, the decision through the other, both ways.
    for n in 0..6usize {
        let (status, round) = t
            .call(
                n % 2,
                "POST",
                "/v1/i-luv-suits/rounds",
                Some(&format!("ils-{n}")),
                json!({"ante_cents": 500}),
            )
            .await;
        assert_eq!(status, 201, "{round}");
        let id = round["id"].as_str().unwrap().to_owned();
        let decision = if n % 3 == 0 { json!({"decision": "fold"}) } else { json!({"decision": "play"}) };
        let path = format!("/v1/i-luv-suits/rounds/{id}/decision");
        let (status, decided) = t.call((n + 1) % 2, "POST", &path, None, decision.clone()).await;
        assert_eq!(status, 200, "{decided}");
        assert_eq!(decided["state"], "settled", "{decided}");
        // The same decision sent again to the process that dealt it (which remembers the round
        // as dealt) answers the round as settled, deciding nothing twice.
        let (status, again) = t.call(n % 2, "POST", &path, None, decision).await;
        assert_eq!((status, &again["state"]), (200, &json!("settled")), "{again}");
        assert_eq!(again["balance_after_cents"], decided["balance_after_cents"]);
        moved += decided["balance_after_cents"].as_i64().unwrap()
            - decided["balance_before_cents"].as_i64().unwrap();
    }

    // Craps: one session, its requests alternating between the processes, each a request the
    // other process has not seen; every record counted once.
    let (status, session) = t.call(0, "POST", "/v1/craps/sessions", None, json!({})).await;
    assert_eq!(status, 201, "{session}");
    let mut layout = session.clone();
    let session = session["id"].as_str().unwrap().to_owned();
    for n in 0..12usize {
        let rolls = i64::try_from(n).unwrap();
        let mut changes = vec![];
        // The shooter keeps a pass line bet (111-501-44(a)(8)); a field bet now and then.
        if !layout["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "pass") {
            changes.push(json!({"change": "place", "bet": "pass", "amount_cents": 100}));
        }
        if n % 4 == 0 {
            changes.push(json!({"change": "place", "bet": "field", "amount_cents": 100}));
        }
        let body = json!({"changes": changes, "expected_rolls": rolls});
        let path = format!("/v1/craps/sessions/{session}/rolls");
        let (status, played) = t.call(n % 2, "POST", &path, Some(&format!("c-{n}")), body).await;
        assert_eq!(status, 201, "process {}: {played}", n % 2);
        assert_eq!(played["session"]["rolls"].as_i64().unwrap(), rolls + 1, "{played}");
        layout = played["session"].clone();
        let result = &played["result"];
        moved += result["balance_after_cents"].as_i64().unwrap()
            - result["balance_before_cents"].as_i64().unwrap();
    }

    // The wallet moved by exactly what the answers said, and the books balance.
    assert_eq!(t.wallet_balance().await - start, moved);
    let trial = t.ledger_get("/v1/reports/trial-balance").await;
    assert_eq!(trial["balanced"], true, "{trial}");
}
