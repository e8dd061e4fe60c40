//! The casino every table-games test plays in: the whole platform assembled on a real Postgres,
//! the table-games router called without a socket, the real ledger beside it.

#![allow(dead_code)]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use platform::auth::{Role, TokenKeys};
use platform::http::Limits;
use platform::testing::{Reply, send};
use serde_json::{Value, json};
use table_games::TablesState;
use uuid::Uuid;

pub struct Casino {
    pub router: axum::Router,
    pub ledger: axum::Router,
    pub state: TablesState,
    pub tokens: TokenKeys,
}

impl Casino {
    pub async fn new() -> Casino {
        Casino::with(assembly::Options::for_tests().unwrap()).await
    }

    /// A casino whose house settings are `options`'.
    pub async fn with(options: assembly::Options) -> Casino {
        let platform = assembly::Assembly::for_tests(options).await.unwrap();
        let (ledger, state, tokens) = (platform.ledger, platform.tables, platform.tokens);
        let router = table_games::router(state.clone(), Limits::default());
        Casino { router, ledger, state, tokens }
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

    /// A player with a funded wallet: (token, wallet).
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
        let deposit = json!({"id": Uuid::now_v7(), "account_id": wallet, "amount": cents, "currency": "USD"});
        assert_eq!(self.ledger_call("POST", "/v1/deposits", Some(deposit)).await.status, StatusCode::CREATED);
        (self.tokens.issue(&player, Role::Player, None, Duration::from_secs(600)).unwrap(), wallet)
    }

    pub async fn balance(&self, account: Uuid) -> i64 {
        self.ledger_call("GET", &format!("/v1/accounts/{account}"), None).await.body["balance"]["posted"]
            .as_i64()
            .unwrap()
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut request =
            Request::builder().method(method).uri(path).header("content-type", "application/json");
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        send(
            &self.router,
            request.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string()))).unwrap(),
        )
        .await
    }

    /// Every account balances and no wager is left in either game's escrow.
    pub async fn assert_books_balance(&self) {
        let trial = self.ledger_call("GET", "/v1/reports/trial-balance", None).await;
        assert_eq!(trial.body["balanced"], true, "{}", trial.body);
        assert_eq!(
            self.balance(self.state.blackjack.escrow_account).await,
            0,
            "no blackjack wager left in escrow"
        );
        let escrow = self.state.i_luv_suits.escrow_account;
        assert_eq!(self.balance(escrow).await, 0, "no I Luv Suits wager left in escrow");
    }
}
