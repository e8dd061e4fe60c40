//! The gateway in front of a real ledger, both on one fresh database, called without a socket.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use gateway::GatewayState;
use gateway::rate_limit::{Quota, RateLimiter};
use platform::auth::{Role, TokenKeys};
use platform::http::Limits;
use platform::testing::Reply;
use platform::upstream::Upstream;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

pub struct TestGateway {
    pub router: Router,
    pub state: GatewayState,
    pub ledger_pool: PgPool,
    pub tokens: TokenKeys,
    /// The test's database, for reaching a service's own schema.
    pub url: String,
    /// The payment provider, kept for as long as the gateway it reports to.
    pub sandbox: gateway::sandbox::Sandbox,
}

/// A logged-in identity.
#[derive(Debug, Clone)]
pub struct Login {
    pub token: String,
    pub subject: String,
}

pub const PASSWORD: &str = "correct horse battery staple";

/// What the test's payment provider signs its webhooks with.
pub const WEBHOOK_SECRET: &str = assembly::TEST_WEBHOOK_SECRET;

impl TestGateway {
    pub async fn new() -> TestGateway {
        Self::with_quota(Quota { per_minute: 1_000_000, burst: 1_000_000 }).await
    }

    pub async fn with_quota(quota: Quota) -> TestGateway {
        Self::with_quotas(quota, quota).await
    }

    /// Per identity and per address.
    pub async fn with_quotas(per_identity: Quota, per_address: Quota) -> TestGateway {
        let platform = assembly::Assembly::for_tests(assembly::Options::for_tests().unwrap()).await.unwrap();
        let mut state = platform.gateway.clone();
        // Drawn from the buckets every replica shares, as a deployed gateway's are.
        state.limiter = Arc::new(RateLimiter::shared(state.pool.clone(), per_identity, per_address));
        // The sandbox provider answers at once; its webhooks come back to this gateway.
        let router = gateway::router(state.clone(), Limits::default());
        platform.sandbox.deliver_to(Upstream::local("gateway", router.clone()));
        let (ledger_pool, tokens, url, sandbox) =
            (platform.ledger_pool, platform.tokens, platform.url, platform.sandbox);
        TestGateway { router, state, ledger_pool, tokens, url, sandbox }
    }

    /// Another replica of this gateway: its own process memory (rate-limit allowances, the
    /// ended sessions it learns of from the database every second, as a deployed one does), the
    /// same database and services.
    pub fn replica(&self) -> TestGateway {
        let mut state = self.state.clone();
        let (per_identity, per_address) = (state.limiter.per_identity, state.limiter.per_address);
        state.limiter = Arc::new(RateLimiter::shared(state.pool.clone(), per_identity, per_address));
        state.ended_sessions = gateway::auth::EndedSessions::default();
        state.ended_sessions.spawn_refresher(state.pool.clone(), Duration::from_secs(1));
        TestGateway {
            router: gateway::router(state.clone(), Limits::default()),
            state,
            ledger_pool: self.ledger_pool.clone(),
            tokens: self.tokens.clone(),
            url: self.url.clone(),
            sandbox: self.sandbox.clone(),
        }
    }

    pub async fn send(&self, request: Request<Body>) -> Reply {
        platform::testing::send(&self.router, request).await
    }

    /// An operator's print run of instant game `number`, followed from its 202 until its job has
    /// succeeded; the finished job.
    pub async fn print_run(&self, operator: &str, number: u32) -> Value {
        let path = format!("/v1/instant/games/{number}/print-runs");
        let started = self.call("POST", &path, Some(operator), Some(serde_json::json!({}))).await;
        assert_eq!(started.status.as_u16(), 202, "{}", started.body);
        let job = format!("/v1/instant/print-jobs/{}", started.body["id"].as_str().unwrap());
        for _ in 0..1_200 {
            let now = self.call("GET", &job, Some(operator), None).await;
            match now.body["state"].as_str() {
                Some("succeeded") => return now.body,
                Some("queued" | "running") => tokio::time::sleep(Duration::from_millis(50)).await,
                _ => panic!("the print job did not succeed: {}", now.body),
            }
        }
        panic!("the print job did not finish in a minute");
    }

    /// A request as `token` (None: anonymous).
    pub async fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Reply {
        let mut builder =
            Request::builder().method(method).uri(path).header("content-type", "application/json");
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        self.send(builder.body(body).unwrap()).await
    }

    pub async fn register(&self, email: &str) -> Reply {
        self.call(
            "POST",
            "/v1/players",
            None,
            Some(json!({"email": email, "password": PASSWORD, "date_of_birth": "1990-05-17"})),
        )
        .await
    }

    pub async fn login(&self, body: Value) -> Reply {
        self.call("POST", "/v1/sessions", None, Some(body)).await
    }

    /// A deposit intent with `key` (the provider confirms it shortly after).
    pub async fn deposit(&self, token: &str, key: &str, body: Value) -> Reply {
        let request = Request::post("/v1/me/deposits")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap();
        self.send(request).await
    }

    /// The payment once the provider has reported its outcome.
    pub async fn settled_payment(&self, token: &str, id: &str) -> Value {
        for _ in 0..200 {
            let payment = self.call("GET", &format!("/v1/me/payments/{id}"), Some(token), None).await;
            assert_eq!(payment.status, StatusCode::OK, "{}", payment.body);
            if payment.body["state"] != "pending" {
                return payment.body;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("payment {id} is still pending");
    }

    /// Money into a player's wallet through the provider, confirmed.
    pub async fn fund(&self, token: &str, cents: i64) {
        let intent = self.deposit(token, &new_id(), json!({"amount": cents, "currency": "USD"})).await;
        assert_eq!(intent.status, StatusCode::ACCEPTED, "{}", intent.body);
        let payment = self.settled_payment(token, intent.body["id"].as_str().unwrap()).await;
        assert_eq!(payment["state"], "succeeded", "{payment}");
    }

    /// A registered, logged-in player.
    pub async fn player(&self, email: &str) -> Login {
        let reply = self.register(email).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        let login = self.login(json!({"email": email, "password": PASSWORD})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        Login {
            token: login.body["access_token"].as_str().unwrap().to_owned(),
            subject: reply.body["id"].as_str().unwrap().to_owned(),
        }
    }

    /// A staff member created directly, logged in.
    pub async fn staff(&self, username: &str, role: Role) -> Login {
        let id = gateway::create_staff(
            &self.state.pool,
            &self.state.passwords,
            username,
            PASSWORD.into(),
            role,
            None,
        )
        .await
        .unwrap();
        let login = self.login(json!({"username": username, "password": PASSWORD})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        Login { token: login.body["access_token"].as_str().unwrap().to_owned(), subject: id.to_string() }
    }

    /// A retailer with one terminal, logged in with its API key.
    pub async fn terminal(&self, operator: &Login) -> (Login, String) {
        let retailer = self
            .call(
                "POST",
                "/v1/retailers",
                Some(&operator.token),
                Some(json!({"name": "Corner Store", "address": "12 Main St, Topeka KS"})),
            )
            .await;
        assert_eq!(retailer.status, StatusCode::CREATED, "{}", retailer.body);
        let path = format!("/v1/retailers/{}/terminals", retailer.body["id"].as_str().unwrap());
        let terminal =
            self.call("POST", &path, Some(&operator.token), Some(json!({"label": "till 1"}))).await;
        assert_eq!(terminal.status, StatusCode::CREATED, "{}", terminal.body);
        assert_eq!(terminal.headers["cache-control"], "no-store", "an API key is never cached");
        let key = terminal.body["api_key"].as_str().unwrap().to_owned();
        let login = self.login(json!({"api_key": key})).await;
        assert_eq!(login.status, StatusCode::CREATED, "{}", login.body);
        (
            Login {
                token: login.body["access_token"].as_str().unwrap().to_owned(),
                subject: terminal.body["id"].as_str().unwrap().to_owned(),
            },
            key,
        )
    }

    pub fn service_token(&self) -> String {
        self.tokens.service_token("tests").unwrap()
    }

    /// Every currency balances in the ledger behind the gateway.
    pub async fn assert_ledger_balanced(&self) {
        let trial = self.call("GET", "/v1/reports/trial-balance", Some(&self.service_token()), None).await;
        assert_eq!(trial.body["balanced"], true, "{}", trial.body);
        let check = self.call("GET", "/v1/reports/journal-check", Some(&self.service_token()), None).await;
        assert_eq!(check.body["consistent"], true, "{}", check.body);
    }
}

pub fn new_id() -> String {
    Uuid::now_v7().to_string()
}

/// A stake as a client sends it: with a key of its own.
pub async fn play(gw: &TestGateway, player: &Login, path: &str, body: Value) -> Reply {
    let request = Request::post(path)
        .header("authorization", format!("Bearer {}", player.token))
        .header("content-type", "application/json")
        .header("idempotency-key", new_id())
        .body(Body::from(body.to_string()))
        .unwrap();
    gw.send(request).await
}

/// The player's wallet balance, in cents.
pub async fn balance(gw: &TestGateway, player: &Login) -> i64 {
    let wallet = gw.call("GET", "/v1/me/wallet", Some(&player.token), None).await;
    assert_eq!(wallet.status, 200, "{}", wallet.body);
    wallet.body["balance"]["posted"].as_i64().unwrap()
}
