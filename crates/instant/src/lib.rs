//! Instant and pull-tab tickets (issue 6): from a game's definition and its print run to a prize
//! paid at the retailer's counter or the lottery office, and the packs settled with retailers.
//!
//! - [`games`]: the definitions the service carries, and `GET /v1/instant/games`;
//! - [`print_runs`]: `POST /v1/instant/games/{number}/print-runs` and the storage of a run with
//!   COPY, each VIRN stored only as its HMAC under `LOTTO_VIRN_KEY`;
//! - [`packs`]: packs assigned, activated and settled (on request or after a time);
//! - [`counter`]: tickets validated and paid at retailers' terminals;
//! - [`office`]: prizes paid at the lottery office, with W-2G records and withholding;
//! - [`reports`]: prize liability and validations per retailer, for operators.

pub mod counter;
pub mod games;
pub mod office;
pub mod packs;
pub mod print_runs;
pub mod reports;

use ledger_api::AccountKind;
use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
use domain::instant::payout::TaxRules;
use domain::instant::{GameDefinition, Report};
use platform::AppError;
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::db::DbError;
use platform::group_commit::{GroupCommit, InTransaction};
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
    /// Every scan's log row, group-committed.
    pub validation_log: GroupCommit<InTransaction<counter::ValidationLog>>,
    /// The office's tax rules (`LOTTO_W2G_THRESHOLD_CENTS`, `LOTTO_W2G_PRICE_MULTIPLE`,
    /// `LOTTO_WITHHOLDING_THRESHOLD_CENTS`, `LOTTO_WITHHOLDING_BPS`).
    pub tax: TaxRules,
    /// The retailer's commission on a settled pack, in basis points
    /// (`LOTTO_RETAILER_COMMISSION_BPS`, 500 = 5% by default).
    pub commission_bps: i64,
    /// A pack active this long is settled without being asked
    /// (`LOTTO_PACK_SETTLE_AFTER_SECONDS`, 30 days by default).
    pub settle_after: std::time::Duration,
}

/// The instant games' accounts in the ledger.
#[derive(Debug, Clone)]
pub struct LedgerLink {
    /// The ledger: the game's accounts, retailers' settlement accounts, every transfer.
    pub ledger: ledger_api::LedgerClient,
    /// Funds each print run's prize liability; credited with what retailers owe for packs.
    pub house_account: uuid::Uuid,
    /// Prizes paid at the office, net of tax, to be paid out by check.
    pub office_payouts_account: uuid::Uuid,
    /// Tax withheld from office prizes, owed to the tax authority.
    pub withholding_account: uuid::Uuid,
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
        let retailer_limit_cents = setting("LOTTO_RETAILER_PAY_LIMIT_CENTS", 59_900i64);
        let defaults = TaxRules::default();
        let tax = TaxRules {
            w2g_threshold_cents: setting("LOTTO_W2G_THRESHOLD_CENTS", defaults.w2g_threshold_cents),
            w2g_price_multiple: setting("LOTTO_W2G_PRICE_MULTIPLE", defaults.w2g_price_multiple),
            withholding_threshold_cents: setting(
                "LOTTO_WITHHOLDING_THRESHOLD_CENTS",
                defaults.withholding_threshold_cents,
            ),
            withholding_bps: setting("LOTTO_WITHHOLDING_BPS", defaults.withholding_bps),
        };
        let settle_after = setting("LOTTO_PACK_SETTLE_AFTER_SECONDS", 30 * 24 * 3600u64);
        InstantState {
            validation_log: GroupCommit::spawn(pool.clone(), counter::ValidationLog, 256),
            pool,
            tokens,
            games: Arc::new(games),
            virn_key: Arc::new(virn_key),
            retailer_limit_cents,
            ledger: None,
            tax,
            commission_bps: setting("LOTTO_RETAILER_COMMISSION_BPS", 500i64),
            settle_after: std::time::Duration::from_secs(settle_after),
        }
    }

    /// Connects the ledger: opens the house and every game's prize liability account.
    pub async fn with_ledger(mut self, ledger: platform::upstream::Upstream) -> Result<Self, AppError> {
        let ledger = ledger_api::LedgerClient::new(ledger, self.tokens.clone(), "instant");
        let house_account = uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/house");
        // Money leaving through the office: the ledger's clearing kind (ADR 0005).
        let office_payouts_account = uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/office-payouts");
        let withholding_account = uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/tax-withheld");
        let mut accounts = vec![
            (house_account, AccountKind::HouseRevenue),
            (office_payouts_account, AccountKind::CashClearing),
            (withholding_account, AccountKind::CashClearing),
        ];
        accounts.extend(
            self.games.iter().map(|(g, _)| (liability_account(g.number), AccountKind::PrizeLiability)),
        );
        ledger.open_accounts("instant", &accounts).await?;
        self.ledger = Some(LedgerLink { ledger, house_account, office_payouts_account, withholding_account });
        Ok(self)
    }

    /// The ledger, or 503 where this process runs without it.
    pub fn ledger_link(&self) -> Result<&LedgerLink, AppError> {
        self.ledger.as_ref().ok_or_else(|| AppError::unavailable("the ledger is not connected here"))
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

/// A setting from the environment, or its default; a value that does not parse is reported and
/// the default kept, so a typo cannot stop the counter.
fn setting<T>(name: &'static str, default: T) -> T
where
    T: std::str::FromStr + Copy,
    T::Err: std::fmt::Display,
{
    platform::config::env_or(name, default).unwrap_or_else(|e| {
        tracing::error!(error = %e, "ignoring a malformed setting");
        default
    })
}

/// `LOTTO_VIRN_KEY`, or (unless `required`) a random key with a warning.
pub fn virn_key_from_env(required: bool) -> Result<Vec<u8>, AppError> {
    match std::env::var("LOTTO_VIRN_KEY") {
        Ok(key) => platform::config::checked_secret("LOTTO_VIRN_KEY", &key)
            .map_err(|e| AppError::internal(e.to_string())),
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
        (Method::POST, "/v1/instant/packs/{game}/{book}/settle", post(packs::settle)),
        (Method::POST, "/v1/instant/validations", post(counter::validate)),
        (Method::POST, "/v1/instant/claims", post(counter::claim)),
        (Method::POST, "/v1/instant/office-claims", post(office::create_office_claim)),
        (Method::GET, "/v1/instant/office-claims", get(office::list_office_claims)),
        (Method::GET, "/v1/instant/liability", get(reports::liability)),
        (Method::GET, "/v1/instant/validations/by-retailer", get(reports::validations_by_retailer)),
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

/// Starts the service's background work, every minute: finishing prize payments left pending
/// for 30 seconds (a crash, or a ledger that did not answer), and settling packs active for
/// longer than `settle_after`.
pub fn spawn_workers(state: InstantState) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            if let Err(e) = counter::finish_pending_payments(&state, std::time::Duration::from_secs(30)).await
            {
                tracing::warn!(error = %e, "finishing pending prize payments failed; retried in a minute");
            }
            match packs::settle_due_packs(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(packs = n, "settled packs active past their time"),
                Err(e) => tracing::warn!(error = %e, "settling due packs failed; retried in a minute"),
            }
        }
    });
}

/// The service's part of the public API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(
        games::list_games, print_runs::create_print_run, packs::assign, packs::activate, packs::settle,
        counter::validate, counter::claim, office::create_office_claim, office::list_office_claims,
        reports::liability, reports::validations_by_retailer,
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "instant", description = "Instant and pull-tab tickets: games, print runs, packs, validation"))
)]
pub struct InstantApi;
