//! Instant and pull-tab tickets (issue 6), first part: the games' definitions, checked at start
//! and public, and print runs generated and stored in one go.
//!
//! - [`games`]: the definitions the service carries, and `GET /v1/instant/games`;
//! - [`print_runs`]: `POST /v1/instant/games/{number}/print-runs` and the storage of a run with
//!   COPY, each VIRN stored only as its HMAC under `LOTTO_VIRN_KEY`.
//!
//! - [`packs`]: packs assigned and activated, and tickets validated at retailers' terminals.
//!
//! Paying prizes, office claims and pack settlement are the next part of the issue.

pub mod games;
pub mod packs;
pub mod print_runs;

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
use domain::instant::{GameDefinition, Report};
use platform::AppError;
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::db::DbError;
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use sqlx::PgPool;
use sqlx::migrate::Migrator;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "instant";

/// The service's migrations, from `migrations/instant/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/instant");

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct InstantState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// Every game this service runs, with what loading its definition found.
    pub games: Arc<Vec<(GameDefinition, Report)>>,
    /// The key VIRNs are hashed under (`LOTTO_VIRN_KEY`); never stored in the database.
    pub virn_key: Arc<Vec<u8>>,
    /// The largest prize a retailer pays (`LOTTO_RETAILER_PAY_LIMIT_CENTS`, $599 by default);
    /// larger ones are claimed at the lottery office.
    pub retailer_limit_cents: i64,
    /// The ledger, where prizes are paid from each game's prize liability; without it (a print
    /// benchmark) claims answer 503.
    pub ledger: Option<LedgerLink>,
}

/// The instant games' accounts in the ledger.
#[derive(Debug, Clone)]
pub struct LedgerLink {
    pub ledger: platform::upstream::Upstream,
    pub wallets: platform::wallets::Wallets,
    /// Funds each print run's prize liability.
    pub house_account: uuid::Uuid,
}

/// Namespace of the ids this service derives (its accounts, ledger transfers).
pub const INSTANT_NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x696e_7374_616e_4000_8000_6c6f_7474_6f21);

/// A game's prize liability account: funded when a run is printed, paying its prizes.
pub fn liability_account(game: u32) -> uuid::Uuid {
    uuid::Uuid::new_v5(&INSTANT_NAMESPACE, format!("instant/{game}/prize-liability").as_bytes())
}

/// A retailer's settlement account: credited with the prizes it pays, debited when packs settle.
pub fn retailer_account(retailer: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(&INSTANT_NAMESPACE, format!("instant/retailer/{retailer}").as_bytes())
}

impl FromRef<InstantState> for TokenKeys {
    fn from_ref(state: &InstantState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl InstantState {
    /// The service with the games of `games/instant/` and the VIRN key from `LOTTO_VIRN_KEY`
    /// (32 bytes or more). Without it a random key is made, and tickets printed by this process
    /// cannot be validated by another: fine for a demonstration, refused by the production
    /// binary (see `main.rs`).
    pub fn new(pool: PgPool, tokens: TokenKeys) -> Result<Self, AppError> {
        let games = games::carried().map_err(|e| AppError::internal(e.to_string()))?;
        Ok(InstantState::with_games(pool, tokens, games, virn_key_from_env(false)?))
    }

    pub fn with_games(
        pool: PgPool,
        tokens: TokenKeys,
        games: Vec<(GameDefinition, Report)>,
        virn_key: Vec<u8>,
    ) -> Self {
        let retailer_limit_cents =
            platform::config::env_or("LOTTO_RETAILER_PAY_LIMIT_CENTS", 59_900i64).unwrap_or(59_900);
        InstantState {
            pool,
            tokens,
            games: Arc::new(games),
            virn_key: Arc::new(virn_key),
            retailer_limit_cents,
            ledger: None,
        }
    }

    /// Connects the ledger: opens the house and every game's prize liability account.
    pub async fn with_ledger(mut self, ledger: platform::upstream::Upstream) -> Result<Self, AppError> {
        let wallets = platform::wallets::Wallets::new(ledger.clone(), self.tokens.clone(), "instant");
        let house_account = uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/house");
        let mut accounts = vec![(house_account, "house_revenue")];
        accounts.extend(self.games.iter().map(|(g, _)| (liability_account(g.number), "prize_liability")));
        wallets.open_accounts("instant", &accounts).await?;
        self.ledger = Some(LedgerLink { ledger, wallets, house_account });
        Ok(self)
    }

    pub fn service_token(&self) -> Result<String, AppError> {
        self.tokens.service_token("instant")
    }

    pub fn game(&self, number: u32) -> Result<&GameDefinition, AppError> {
        self.games
            .iter()
            .map(|(g, _)| g)
            .find(|g| g.number == number)
            .ok_or_else(|| AppError::not_found("game_not_found", format!("no instant game {number}")))
    }
}

/// `LOTTO_VIRN_KEY`, or (unless `required`) a random key with a warning.
pub fn virn_key_from_env(required: bool) -> Result<Vec<u8>, AppError> {
    match std::env::var("LOTTO_VIRN_KEY") {
        Ok(key) if key.len() >= 32 => Ok(key.into_bytes()),
        Ok(_) => Err(AppError::internal("LOTTO_VIRN_KEY must be at least 32 bytes")),
        Err(_) if required => Err(AppError::internal("LOTTO_VIRN_KEY must be set")),
        Err(_) => {
            tracing::warn!("LOTTO_VIRN_KEY is not set: tickets printed now validate only in this process");
            Ok(platform::auth::random_bytes::<32>().to_vec())
        }
    }
}

/// Connects to `database_url`, in the `instant` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the service (see the ledger's `route_table` for why a table).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<InstantState>)> {
    vec![
        (Method::GET, "/v1/instant/games", get(games::list_games)),
        (Method::POST, "/v1/instant/games/{number}/print-runs", post(print_runs::create_print_run)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/assign", post(packs::assign)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/activate", post(packs::activate)),
        (Method::POST, "/v1/instant/validations", post(packs::validate)),
        (Method::POST, "/v1/instant/claims", post(packs::claim)),
    ]
}

pub fn api_routes(state: InstantState) -> Router {
    platform::http::routes_from(route_table()).with_state(state)
}

/// The whole service.
pub fn router(state: InstantState, limits: Limits) -> Router {
    let readiness = Readiness::default().with_pool(SCHEMA, state.pool.clone());
    platform::http::app(api_routes(state), readiness, limits)
}

/// The service's part of the public API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(games::list_games, print_runs::create_print_run, packs::assign, packs::activate, packs::validate, packs::claim),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "instant", description = "Instant and pull-tab tickets: games, print runs, packs, validation"))
)]
pub struct InstantApi;
