//! What a game service asks the ledger about accounts: a player's wallet (remembered, since it
//! never changes) and the game's own accounts, opened at start if they are not there yet.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::http::Method;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::AppError;
use crate::auth::TokenKeys;
use crate::upstream::Upstream;

/// How many players' wallet ids are remembered before the memory starts over.
const CACHE_SIZE: usize = 100_000;

/// A game service's view of the ledger's accounts. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Wallets {
    ledger: Upstream,
    tokens: TokenKeys,
    service: &'static str,
    known: Arc<Mutex<HashMap<String, Uuid>>>,
    /// Accounts this process has opened or found open (accounts are never removed).
    opened: Arc<Mutex<HashSet<Uuid>>>,
}

impl Wallets {
    /// `service` names the caller in its service tokens.
    pub fn new(ledger: Upstream, tokens: TokenKeys, service: &'static str) -> Wallets {
        Wallets { ledger, tokens, service, known: Arc::default(), opened: Arc::default() }
    }

    /// The player's USD wallet, as the ledger knows it.
    pub async fn wallet_of(&self, player: &str) -> Result<Uuid, AppError> {
        if let Some(wallet) = self.known.lock().map_err(AppError::internal)?.get(player) {
            return Ok(*wallet);
        }
        let token = self.tokens.service_token(self.service)?;
        let page: Value = self
            .ledger
            .call::<(), Value>(
                Method::GET,
                &format!("/v1/accounts?owner={player}&limit=50"),
                &token,
                None,
                None,
            )
            .await?;
        let wallet = page["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["kind"] == "player_wallet" && a["currency"] == "USD")
            .and_then(|a| a["id"].as_str()?.parse().ok())
            .ok_or_else(|| AppError::unprocessable("wallet_not_found", "this player has no USD wallet"))?;
        let mut known = self.known.lock().map_err(AppError::internal)?;
        if known.len() >= CACHE_SIZE {
            known.clear();
        }
        known.insert(player.to_owned(), wallet);
        Ok(wallet)
    }

    /// Opens each `(id, kind)` account for `owner` in USD unless it exists (the ledger's account
    /// creation is idempotent by id); one this process has opened before is not asked again.
    pub async fn open_accounts(&self, owner: &str, accounts: &[(Uuid, &str)]) -> Result<(), AppError> {
        let token = self.tokens.service_token(self.service)?;
        for (id, kind) in accounts {
            if self.opened.lock().map_err(AppError::internal)?.contains(id) {
                continue;
            }
            let body = json!({"id": id, "kind": kind, "owner": owner, "currency": "USD"});
            let _: Value = self.ledger.call(Method::POST, "/v1/accounts", &token, Some(&body), None).await?;
            let mut opened = self.opened.lock().map_err(AppError::internal)?;
            if opened.len() >= CACHE_SIZE {
                opened.clear();
            }
            opened.insert(*id);
        }
        Ok(())
    }

    /// An account's posted balance, in cents.
    pub async fn balance(&self, account: Uuid) -> Result<i64, AppError> {
        let token = self.tokens.service_token(self.service)?;
        let found: Value = self
            .ledger
            .call::<(), Value>(Method::GET, &format!("/v1/accounts/{account}"), &token, None, None)
            .await?;
        found["balance"]["posted"].as_i64().ok_or_else(|| AppError::internal("an account without a balance"))
    }
}
