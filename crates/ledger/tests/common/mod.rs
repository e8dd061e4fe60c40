//! Shared test harness: the ledger router on a fresh database of its own, called without a socket.
#![allow(dead_code)]

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use ledger::LedgerState;
use platform::auth::{Role, TokenKeys};
use platform::http::Limits;
use platform::testing::Reply;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

pub struct TestApp {
    pub router: Router,
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// Sent with every request that carries no Authorization of its own.
    pub service_token: String,
}

impl TestApp {
    pub async fn new() -> TestApp {
        Self::with_limits(Limits::default()).await
    }

    pub async fn with_limits(limits: Limits) -> TestApp {
        Self::with(limits, ledger::ReportSettings::default()).await
    }

    /// The ledger with its gaming days and report clock as given.
    pub async fn with_reports(reports: ledger::ReportSettings) -> TestApp {
        Self::with(Limits::default(), reports).await
    }

    async fn with(limits: Limits, reports: ledger::ReportSettings) -> TestApp {
        platform::telemetry::init_tracing_or("ledger", "warn");
        let url = platform::testing::fresh_database().await.expect("fresh database");
        let config = platform::config::Config::default();
        let pool = ledger::connect(&url, &config).await.expect("connect and migrate");
        let tokens = TokenKeys::random();
        let router =
            ledger::router(LedgerState::new(pool.clone(), tokens.clone()).with_reports(reports), limits);
        let service_token = tokens.service_token("ledger-tests").unwrap();
        TestApp { router, pool, tokens, service_token }
    }

    /// A token for `sub` in `role`.
    pub fn token(&self, sub: &str, role: Role) -> String {
        self.tokens.issue(sub, role, None, std::time::Duration::from_secs(60)).unwrap()
    }

    pub async fn send(&self, mut request: Request<Body>) -> Reply {
        if !request.headers().contains_key("authorization") {
            let value = format!("Bearer {}", self.service_token).parse().unwrap();
            request.headers_mut().insert("authorization", value);
        }
        platform::testing::send(&self.router, request).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Request::get(path).body(Body::empty()).unwrap()).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.post_raw(path, body.to_string(), None).await
    }

    pub async fn post_with_key(&self, path: &str, key: &str, body: Value) -> Reply {
        self.post_raw(path, body.to_string(), Some(key)).await
    }

    pub async fn post_raw(&self, path: &str, body: String, key: Option<&str>) -> Reply {
        let mut request = Request::post(path).header("content-type", "application/json");
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        self.send(request.body(Body::from(body)).unwrap()).await
    }

    /// Creates an account and returns its id.
    pub async fn account(&self, kind: &str, owner: &str) -> Uuid {
        let reply = self.post("/v1/accounts", json!({"kind": kind, "owner": owner, "currency": "USD"})).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        reply.body["id"].as_str().unwrap().parse().unwrap()
    }

    /// A player wallet funded with `cents` by a deposit.
    pub async fn funded_wallet(&self, owner: &str, cents: i64) -> Uuid {
        let wallet = self.account("player_wallet", owner).await;
        if cents > 0 {
            self.deposit(wallet, cents).await;
        }
        wallet
    }

    pub async fn deposit(&self, account: Uuid, cents: i64) {
        let reply = self
            .post(
                "/v1/deposits",
                json!({"id": Uuid::now_v7(), "account_id": account, "amount": cents, "currency": "USD"}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    }

    pub async fn balance(&self, account: Uuid) -> Value {
        let reply = self.get(&format!("/v1/accounts/{account}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        reply.body["balance"].clone()
    }

    pub async fn posted(&self, account: Uuid) -> i64 {
        self.balance(account).await["posted"].as_i64().unwrap()
    }

    pub async fn transfer_count(&self) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM transfers").fetch_one(&self.pool).await.unwrap()
    }

    /// The invariants every test that moves money ends with: each currency's debits equal its
    /// credits, the balance counters equal a replay of the journal, and no account that may not
    /// go negative is below zero.
    pub async fn assert_ledger_consistent(&self) {
        let trial = self.get("/v1/reports/trial-balance").await;
        assert_eq!(trial.body["balanced"], json!(true), "trial balance: {}", trial.body);
        for currency in trial.body["currencies"].as_array().unwrap() {
            let net: i64 =
                currency["by_kind"].as_array().unwrap().iter().map(|k| k["posted"].as_i64().unwrap()).sum();
            assert_eq!(net, 0, "balances of {} do not sum to zero", currency["currency"]);
        }
        let check = self.get("/v1/reports/journal-check").await;
        assert_eq!(check.body["consistent"], json!(true), "journal check: {}", check.body);
        let overdrawn: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (SELECT a.id FROM accounts a JOIN balances b ON b.account_id = a.id
              WHERE a.no_negative GROUP BY a.id
             HAVING sum(b.credits_posted - b.debits_posted - b.debits_pending) < 0) x",
        )
        .fetch_one(&self.pool)
        .await
        .unwrap();
        assert_eq!(overdrawn, 0, "an account that may not go negative is negative");
    }
}

pub fn transfer(debit: Uuid, credit: Uuid, amount: i64) -> Value {
    json!({"id": Uuid::now_v7(), "debit_account_id": debit, "credit_account_id": credit,
           "amount": amount, "currency": "USD"})
}
