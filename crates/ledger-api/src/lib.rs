//! The ledger's contract as every other service uses it (architecture §1, ADR 0006): money has one
//! home, and this is its front door.
//!
//! - [`AccountKind`]: what an account is for, the same enum the ledger serves;
//! - [`NewTransfer`]: a transfer built from typed values (never a hand-written JSON object), its
//!   [`Purpose`] (the game, the money, what it belongs to) kept in the journal;
//! - [`LedgerClient`]: the one client a game service holds: its own accounts opened at start, a
//!   player's wallet found (and remembered), balances read, transfers and atomic batches posted;
//! - [`LedgerError`]: what a call came to, separating a **refusal** (the ledger said no, with its
//!   stable code: nothing moved, do not retry) from **unavailable** (no answer: the money may or
//!   may not have moved, retry with the same ids).
//!
//! The wire format is the ledger's `openapi.yaml`; this crate changes nothing in it.

pub mod daily;
pub mod payout;
pub mod purpose;
pub mod wire;

pub use purpose::{Game, Money, Purpose};

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::http::Method;
use platform::AppError;
use platform::auth::TokenKeys;
use platform::codes;
use platform::upstream::Upstream;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

/// The path prefixes the ledger serves: what a gateway passes through to it.
pub const PATH_PREFIXES: [&str; 5] =
    ["/v1/accounts", "/v1/transfers", "/v1/deposits", "/v1/withdrawals", "/v1/reports"];

/// The ledger's cash deposit (`POST`): money in from outside into an account. The gateway holds
/// an operator's deposit into a player's wallet to the player's standing before it passes.
pub const CASH_DEPOSITS_PATH: &str = PATH_PREFIXES[2];

/// What an account is for (architecture §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccountKind {
    PlayerWallet,
    GameEscrow,
    HouseRevenue,
    PrizeLiability,
    ProgressivePot,
    RetailerSettlement,
    CashClearing,
    /// The operator's account for manual balance adjustments (a goodwill credit, a correction):
    /// neither a game nor cash, so player protection counts none of its moves (issue 49).
    Adjustments,
}

impl AccountKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountKind::PlayerWallet => "player_wallet",
            AccountKind::GameEscrow => "game_escrow",
            AccountKind::HouseRevenue => "house_revenue",
            AccountKind::PrizeLiability => "prize_liability",
            AccountKind::ProgressivePot => "progressive_pot",
            AccountKind::RetailerSettlement => "retailer_settlement",
            AccountKind::CashClearing => "cash_clearing",
            AccountKind::Adjustments => "adjustments",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(Value::String(s.to_owned())).ok()
    }
}

/// A retailer's settlement account, one per retailer for every game it sells or pays: sales it
/// makes are owed from it, prizes it pays are credited to it, and settlements clear it. (Its id
/// is derived as the instant service first derived it, so accounts opened then keep their id.)
pub fn retailer_account(retailer: &str) -> Uuid {
    const RETAILERS: Uuid = Uuid::from_u128(0x696e_7374_616e_4000_8000_6c6f_7474_6f21);
    Uuid::new_v5(&RETAILERS, format!("instant/retailer/{retailer}").as_bytes())
}

/// One transfer in US dollars: `amount` cents from `debit` to `credit`. Its `id` is its
/// idempotency key, derived by the caller from the round, ticket or payment it belongs to, so a
/// retry after a crash applies it once.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTransfer {
    pub id: Uuid,
    pub debit: Uuid,
    pub credit: Uuid,
    pub amount: i64,
    /// What the transfer is for, kept in the journal.
    pub purpose: Purpose,
    /// `(account, at_least)`: applied only if the account holds at least that many cents just
    /// before this transfer in its batch ([`wire::FundsCheck`]).
    pub funds_check: Option<(Uuid, i64)>,
}

impl NewTransfer {
    pub fn new(id: Uuid, debit: Uuid, credit: Uuid, amount: i64, purpose: Purpose) -> NewTransfer {
        NewTransfer { id, debit, credit, amount, purpose, funds_check: None }
    }

    /// The transfer, applied only if `account` holds at least `at_least` cents just before it.
    #[must_use]
    pub fn checking_funds(mut self, account: Uuid, at_least: i64) -> NewTransfer {
        self.funds_check = Some((account, at_least));
        self
    }

    /// The transfer as the ledger's `POST /v1/transfers` takes it.
    pub fn to_wire(&self) -> Value {
        let mut wire = json!({"id": self.id, "debit_account_id": self.debit, "credit_account_id": self.credit,
               "amount": self.amount, "currency": "USD", "metadata": self.purpose.to_metadata()});
        if let Some((account_id, at_least)) = self.funds_check {
            wire["check_funds"] = json!({"account_id": account_id, "at_least": at_least});
        }
        wire
    }
}

/// What a ledger call came to when it did not succeed.
#[derive(Debug, Clone)]
pub enum LedgerError {
    /// The ledger refused (insufficient funds, an account that does not exist, ...): nothing
    /// moved. Its problem carries the stable code.
    Refused(AppError),
    /// No answer, or a retryable one (503, 429, 409 `concurrent_update`): the transfer may or
    /// may not have been applied; send it again with the same id.
    Unavailable(AppError),
}

/// True when the ledger refused (its rules said no: nothing moved, and a retry will not change
/// that), as opposed to not answering, asking to slow down, or losing a race with another call
/// moving the same transfers (`concurrent_update`: that other call may be moving them now, so
/// nothing can be concluded; retry with the same ids). Taking a race for a refusal would let a
/// prize be released, or a round refused, while the other call's transfers land.
pub fn is_refusal(err: &AppError) -> bool {
    err.status().is_client_error() && !matches!(err.code(), "rate_limited" | "concurrent_update")
}

impl LedgerError {
    fn of(err: AppError) -> LedgerError {
        if is_refusal(&err) { LedgerError::Refused(err) } else { LedgerError::Unavailable(err) }
    }

    /// The refusal's stable code, or `unavailable`.
    pub fn code(&self) -> &str {
        match self {
            LedgerError::Refused(e) | LedgerError::Unavailable(e) => e.code(),
        }
    }
}

impl From<LedgerError> for AppError {
    fn from(err: LedgerError) -> AppError {
        match err {
            LedgerError::Refused(e) | LedgerError::Unavailable(e) => e,
        }
    }
}

/// How many players' wallet ids are remembered before the memory starts over.
const CACHE_SIZE: usize = 100_000;

/// A service's client of the ledger. Cheap to clone.
#[derive(Debug, Clone)]
pub struct LedgerClient {
    ledger: Upstream,
    tokens: TokenKeys,
    service: &'static str,
    known: Arc<Mutex<HashMap<String, Uuid>>>,
    /// Accounts this process has opened or found open (accounts are never removed).
    opened: Arc<Mutex<HashSet<Uuid>>>,
}

impl LedgerClient {
    /// The ledger at `ledger`, called with `service`'s tokens.
    pub fn new(ledger: Upstream, tokens: TokenKeys, service: &'static str) -> LedgerClient {
        LedgerClient { ledger, tokens, service, known: Arc::default(), opened: Arc::default() }
    }

    /// The same client (and what it remembers) presenting other tokens.
    #[must_use]
    pub fn with_tokens(&self, tokens: TokenKeys) -> LedgerClient {
        LedgerClient { tokens, ..self.clone() }
    }

    /// The upstream itself, for what is not money (readiness, pass-through).
    pub fn upstream(&self) -> &Upstream {
        &self.ledger
    }

    fn token(&self) -> Result<String, AppError> {
        self.tokens.service_token(self.service)
    }

    /// The player's USD wallet, as the ledger knows it.
    pub async fn wallet_of(&self, player: &str) -> Result<Uuid, AppError> {
        if let Some(wallet) = self.known.lock().map_err(AppError::internal)?.get(player) {
            return Ok(*wallet);
        }
        let path = format!("/v1/accounts?owner={player}&limit=50");
        let page: wire::Page<wire::Account> =
            self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await?;
        let wallet = page
            .items
            .iter()
            .find(|a| a.kind == AccountKind::PlayerWallet && a.currency.as_str() == "USD")
            .map(|a| a.id)
            .ok_or_else(|| {
                AppError::unprocessable(codes::WALLET_NOT_FOUND, "this player has no USD wallet")
            })?;
        let mut known = self.known.lock().map_err(AppError::internal)?;
        if known.len() >= CACHE_SIZE {
            known.clear();
        }
        known.insert(player.to_owned(), wallet);
        Ok(wallet)
    }

    /// Opens each `(id, kind)` account for `owner` in USD unless it exists (the ledger's account
    /// creation is idempotent by id); one this process has opened before is not asked again.
    pub async fn open_accounts(&self, owner: &str, accounts: &[(Uuid, AccountKind)]) -> Result<(), AppError> {
        let token = self.token()?;
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

    /// [`LedgerClient::open_accounts`] at a service's start, waiting up to a minute for a ledger
    /// that does not answer yet: replicas start in any order (a supervisor, Kubernetes), and a
    /// ledger slow to take its first calls is not a reason to exit. A refusal ends it at once
    /// ([`is_refusal`]).
    pub async fn open_accounts_at_start(
        &self,
        owner: &str,
        accounts: &[(Uuid, AccountKind)],
    ) -> Result<(), AppError> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            match self.open_accounts(owner, accounts).await {
                Err(e) if !is_refusal(&e) && std::time::Instant::now() < deadline => {
                    tracing::warn!(
                        owner,
                        code = e.code(),
                        "the ledger did not open the accounts; again in 1 s"
                    );
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
                done => return done,
            }
        }
    }

    /// Account `id` read with `bearer`, the caller's own token, so the ledger itself checks the
    /// account is theirs (a player's wallet).
    pub async fn account_as(&self, bearer: &str, id: Uuid) -> Result<wire::Account, AppError> {
        self.ledger.call::<(), _>(Method::GET, &format!("/v1/accounts/{id}"), bearer, None, None).await
    }

    /// A page of account `id`'s transfers in journal order after entry `after`, read with the
    /// caller's own token.
    pub async fn history_as(
        &self,
        bearer: &str,
        id: Uuid,
        after: Option<i64>,
        limit: i64,
    ) -> Result<wire::Page<wire::HistoryEntry>, AppError> {
        let mut path = format!("/v1/accounts/{id}/transfers?limit={limit}");
        if let Some(after) = after {
            path.push_str(&format!("&after={after}"));
        }
        self.ledger.call::<(), _>(Method::GET, &path, bearer, None, None).await
    }

    /// A page of account `id`'s transfers within the days `from` to `to` of `time_zone`, newest
    /// first, each with the posted balance after it; read with the caller's own token.
    pub async fn statement_as(
        &self,
        bearer: &str,
        id: Uuid,
        window: (chrono::NaiveDate, chrono::NaiveDate, &str),
        after: Option<i64>,
        limit: i64,
    ) -> Result<wire::Page<wire::StatementEntry>, AppError> {
        let (from, to, time_zone) = window;
        let mut path =
            format!("/v1/accounts/{id}/statement?from={from}&to={to}&time_zone={time_zone}&limit={limit}");
        if let Some(after) = after {
            path.push_str(&format!("&after={after}"));
        }
        self.ledger.call::<(), _>(Method::GET, &path, bearer, None, None).await
    }

    /// Large wins (credits of `at_least` cents or more to players' wallets from games) after
    /// journal place `after`, oldest first, at most 100; and the newest place.
    pub async fn large_wins(&self, after: i64, at_least: i64) -> Result<wire::LargeWins, AppError> {
        let path = format!("/v1/reports/large-wins?after={after}&at_least={at_least}&limit=100");
        self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await
    }

    /// Wallet `wallet`'s money limits, with what their windows have used (ADR 0014).
    pub async fn limits(&self, wallet: Uuid) -> Result<Vec<wire::MoneyLimit>, AppError> {
        let path = format!("/v1/accounts/{wallet}/limits");
        self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await
    }

    /// Sets one of wallet `wallet`'s money limits; answers them all after the change.
    pub async fn set_limit(
        &self,
        wallet: Uuid,
        change: &wire::LimitChange,
    ) -> Result<Vec<wire::MoneyLimit>, AppError> {
        let path = format!("/v1/accounts/{wallet}/limits");
        self.ledger.call(Method::PUT, &path, &self.token()?, Some(change), None).await
    }

    /// Wallet `wallet`'s activity per day and game, days `from` to `to` (inclusive) as they are
    /// in `time_zone`.
    pub async fn activity(
        &self,
        wallet: Uuid,
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
        time_zone: &str,
    ) -> Result<Vec<wire::ActivityLine>, AppError> {
        let path = format!("/v1/accounts/{wallet}/activity?from={from}&to={to}&time_zone={time_zone}");
        self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await
    }

    /// Wallet `wallet`'s activity summed from the hour `since` falls in to now.
    pub async fn activity_totals(
        &self,
        wallet: Uuid,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<wire::ActivityTotals, AppError> {
        let since = since.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        let path = format!("/v1/accounts/{wallet}/activity/totals?since={since}");
        self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await
    }

    /// Suspends play from wallet `wallet` as `suspension` says (replacing any suspension).
    pub async fn suspend(&self, wallet: Uuid, suspension: &wire::Suspension) -> Result<(), AppError> {
        let path = format!("/v1/accounts/{wallet}/suspension");
        self.ledger
            .call::<_, Value>(Method::PUT, &path, &self.token()?, Some(suspension), None)
            .await
            .map(|_| ())
    }

    /// Whether transfer `id` is in the journal.
    pub async fn transfer_exists(&self, id: Uuid) -> Result<bool, AppError> {
        let path = format!("/v1/transfers/{id}");
        match self.ledger.call::<(), wire::Transfer>(Method::GET, &path, &self.token()?, None, None).await {
            Ok(_) => Ok(true),
            Err(e) if e.code() == "transfer_not_found" => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// An account's posted balance, in cents.
    pub async fn balance(&self, account: Uuid) -> Result<i64, AppError> {
        let path = format!("/v1/accounts/{account}");
        let found: wire::Account =
            self.ledger.call::<(), _>(Method::GET, &path, &self.token()?, None, None).await?;
        Ok(found.balance.posted)
    }

    /// Posts one transfer.
    pub async fn transfer(&self, transfer: &NewTransfer) -> Result<(), LedgerError> {
        self.post("/v1/transfers", &transfer.to_wire()).await
    }

    /// Money in from the outside world (a payment provider confirmed it): cash clearing →
    /// `account`, under the idempotency id `id`.
    pub async fn deposit(
        &self,
        id: Uuid,
        account: Uuid,
        amount: i64,
        purpose: &Purpose,
    ) -> Result<(), LedgerError> {
        let metadata = purpose.to_metadata();
        let body = json!({"id": id, "account_id": account, "amount": amount, "currency": "USD", "metadata": metadata});
        self.post("/v1/deposits", &body).await
    }

    /// Money out to the outside world: `account` → cash clearing; held (a pending transfer that
    /// [`LedgerClient::post_hold`] or [`LedgerClient::void_hold`] ends, or that expires after
    /// `hold_seconds`) when `hold_seconds` is given.
    pub async fn withdraw(
        &self,
        id: Uuid,
        account: Uuid,
        amount: i64,
        purpose: &Purpose,
        hold_seconds: Option<i32>,
    ) -> Result<(), LedgerError> {
        let metadata = purpose.to_metadata();
        let mut body = json!({"id": id, "account_id": account, "amount": amount, "currency": "USD", "metadata": metadata});
        if let Some(seconds) = hold_seconds {
            body["pending"] = json!(true);
            body["timeout_seconds"] = json!(seconds);
        }
        self.post("/v1/withdrawals", &body).await
    }

    /// Completes the hold `hold` (all of it), as transfer `id`.
    pub async fn post_hold(&self, id: Uuid, hold: Uuid, purpose: &Purpose) -> Result<(), LedgerError> {
        let metadata = purpose.to_metadata();
        self.post("/v1/transfers", &json!({"id": id, "post_pending_id": hold, "metadata": metadata})).await
    }

    /// Releases the hold `hold`, as transfer `id`.
    pub async fn void_hold(&self, id: Uuid, hold: Uuid, purpose: &Purpose) -> Result<(), LedgerError> {
        let metadata = purpose.to_metadata();
        self.post("/v1/transfers", &json!({"id": id, "void_pending_id": hold, "metadata": metadata})).await
    }

    async fn post(&self, path: &str, body: &Value) -> Result<(), LedgerError> {
        let token = self.token().map_err(LedgerError::Unavailable)?;
        self.ledger
            .call::<_, Value>(Method::POST, path, &token, Some(body), None)
            .await
            .map(|_| ())
            .map_err(LedgerError::of)
    }

    /// Posts `transfers` as one atomic batch (all or none; funds checked in order). Transfers of
    /// no amount are left out; an empty batch moves nothing and asks nothing.
    pub async fn batch(&self, transfers: &[NewTransfer]) -> Result<(), LedgerError> {
        self.batch_reading(transfers, &[]).await.map(|_| ())
    }

    /// [`LedgerClient::batch`], answering the posted balances of `accounts` (in their order) as
    /// read just after it: one call where a batch and balance reads would take several. With
    /// nothing to move, the balances are read alone.
    pub async fn batch_reading(
        &self,
        transfers: &[NewTransfer],
        accounts: &[Uuid],
    ) -> Result<Vec<i64>, LedgerError> {
        let wire: Vec<Value> = transfers.iter().filter(|t| t.amount > 0).map(NewTransfer::to_wire).collect();
        if wire.is_empty() {
            let mut balances = Vec::with_capacity(accounts.len());
            for &account in accounts {
                balances.push(self.balance(account).await.map_err(LedgerError::Unavailable)?);
            }
            return Ok(balances);
        }
        let token = self.token().map_err(LedgerError::Unavailable)?;
        let body = json!({ "transfers": wire, "balances_of": accounts });
        let answer: wire::BatchResult = self
            .ledger
            .call(Method::POST, "/v1/transfers/batch", &token, Some(&body), None)
            .await
            .map_err(LedgerError::of)?;
        if answer.balances.len() != accounts.len() {
            return Err(LedgerError::Unavailable(AppError::internal("the ledger answered other balances")));
        }
        Ok(answer.balances.iter().map(|b| b.posted).collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_goes_on_the_wire_as_the_ledger_takes_it() {
        let (id, a, b) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let round = Uuid::now_v7();
        let purpose = Purpose::of(Game::Blackjack, Money::Stake).round(round);
        let wire = NewTransfer::new(id, a, b, 250, purpose).to_wire();
        assert_eq!(
            wire,
            json!({"id": id, "debit_account_id": a, "credit_account_id": b, "amount": 250, "currency": "USD",
                   "metadata": {"game": "blackjack", "money": "stake", "round": round}})
        );
        assert_eq!(AccountKind::parse("prize_liability"), Some(AccountKind::PrizeLiability));
        assert_eq!(serde_json::to_value(AccountKind::GameEscrow).unwrap(), json!("game_escrow"));
    }

    #[test]
    fn a_refusal_is_told_apart_from_an_unavailable_ledger() {
        let refused = LedgerError::of(AppError::unprocessable(codes::INSUFFICIENT_FUNDS, "no"));
        assert!(matches!(refused, LedgerError::Refused(_)));
        assert_eq!(refused.code(), "insufficient_funds");
        let limited = LedgerError::of(AppError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            codes::RATE_LIMITED,
            "slow",
        ));
        assert!(matches!(limited, LedgerError::Unavailable(_)));
        assert!(matches!(LedgerError::of(AppError::unavailable("down")), LedgerError::Unavailable(_)));
        let raced = LedgerError::of(AppError::conflict(codes::CONCURRENT_UPDATE, "retry"));
        assert!(matches!(raced, LedgerError::Unavailable(_)), "a lost race is not a refusal");
    }
}
