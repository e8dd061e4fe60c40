//! What the Keno tests share: the draw-games service on a fresh database with a real ledger
//! mounted beside it, funded players, and the books' checks.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use draw_games::DrawsState;
use platform::auth::{Role, TokenKeys};
use platform::config::Config;
use platform::http::Limits;
use platform::testing::{Reply, send};
use platform::upstream::Upstream;
use serde_json::{Value, json};
use uuid::Uuid;

pub struct Game {
    pub router: axum::Router,
    pub ledger: axum::Router,
    pub state: DrawsState,
    pub tokens: TokenKeys,
    pub url: String,
}

impl Game {
    /// A second process on the same database: its own pool and state, the same ledger.
    pub async fn another_process(&self) -> DrawsState {
        let url = self.url.clone();
        let pool = draw_games::connect(&url, &Config::default()).await.unwrap();
        DrawsState::start(
            pool,
            self.tokens.clone(),
            self.state.settings.clone(),
            Upstream::local("ledger", self.ledger.clone()),
        )
        .await
        .unwrap()
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        let mut request = Request::get(path);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        send(&self.router, request.body(Body::empty()).unwrap()).await
    }

    pub async fn post(&self, path: &str, token: &str, key: &str, body: Value) -> Reply {
        let request = Request::post(path)
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", key)
            .body(Body::from(body.to_string()))
            .unwrap();
        send(&self.router, request).await
    }

    pub async fn new() -> Game {
        let platform = assembly::Assembly::for_tests(assembly::Options::for_tests().unwrap()).await.unwrap();
        let (ledger, state, tokens, url) = (platform.ledger, platform.draws, platform.tokens, platform.url);
        let router = draw_games::router(state.clone(), Limits::default());
        Game { router, ledger, state, tokens, url }
    }

    pub fn token(&self, sub: &str, role: Role) -> String {
        self.tokens.issue(sub, role, None, Duration::from_secs(60)).unwrap()
    }

    pub async fn ledger_call(&self, method: &str, path: &str, body: Option<Value>) -> Reply {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", format!("Bearer {}", self.tokens.service_token("tests").unwrap()))
            .header("content-type", "application/json")
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .unwrap();
        send(&self.ledger, request).await
    }

    /// A player with a wallet funded with `cents`; returns (player id, wallet id).
    pub async fn player(&self, cents: i64) -> (String, Uuid) {
        let player = Uuid::now_v7().to_string();
        let wallet = self
            .ledger_call(
                "POST",
                "/v1/accounts",
                Some(json!({"kind": "player_wallet", "owner": player, "currency": "USD"})),
            )
            .await;
        let wallet: Uuid = wallet.body["id"].as_str().unwrap().parse().unwrap();
        if cents > 0 {
            let deposit =
                json!({"id": Uuid::now_v7(), "account_id": wallet, "amount": cents, "currency": "USD"});
            assert_eq!(
                self.ledger_call("POST", "/v1/deposits", Some(deposit)).await.status,
                StatusCode::CREATED
            );
        }
        (player, wallet)
    }

    pub async fn balance(&self, account: Uuid) -> i64 {
        self.ledger_call("GET", &format!("/v1/accounts/{account}"), None).await.body["balance"]["posted"]
            .as_i64()
            .unwrap()
    }

    pub async fn play(&self, token: Option<&str>, key: Option<&str>, body: Value) -> Reply {
        let mut request = Request::post("/v1/keno/tickets").header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        send(&self.router, request.body(Body::from(body.to_string())).unwrap()).await
    }

    pub async fn assert_books_balance(&self) {
        let trial = self.ledger_call("GET", "/v1/reports/trial-balance", None).await;
        assert_eq!(trial.body["balanced"], true, "{}", trial.body);
        let check = self.ledger_call("GET", "/v1/reports/journal-check", None).await;
        assert_eq!(check.body["consistent"], true, "{}", check.body);
    }
}
