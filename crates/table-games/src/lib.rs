//! Table games (architecture §1, §4): blackjack with its side wagers and the Blazing 7's progressive,
//! played over the API, every cent moved by the ledger and every round in a hash-chained audit
//! log.
//!
//! - [`blackjack`]: tables, rounds (deal, decisions, settlement as a saga), game recall, the
//!   progressive meter and the math.
//! - [`craps`]: sessions at a table, one roll per request deciding every bet on the layout,
//!   recall and the math.
//! - [`i_luv_suits`]: rounds (wagers, deal, fold or play, settlement as a saga), game recall, the
//!   progressive meter and the math.
//! - [`in_play`]: a player's unfinished rounds and sessions, every game together.
//! - [`kit`]: what every game shares, naming none (the round driver every step of every game
//!   takes, ledger batches many rounds to a call, one-statement writers, remembered rows, the house's limits). Each game owns its state
//!   (`Game`: its accounts, limits and repository) and one repository module, the door its saga
//!   writes through.

pub mod blackjack;
pub mod craps;
pub mod i_luv_suits;
platform::floor!(in_play);
platform::floor!(kit);

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
use ledger_api::LedgerClient;
use platform::AppError;
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::db::DbError;
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use platform::upstream::Upstream;
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use uuid::Uuid;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "tables";

/// Connections the service holds apart from its pool: one per one-statement writer of every
/// game, once used. Counted in the process's budget.
pub const HELD_APART: u32 = blackjack::repository::Repository::WRITERS
    + i_luv_suits::repository::Repository::WRITERS
    + craps::repository::Repository::WRITERS;

/// The service's migrations, from `migrations/table-games/` (run with the audit chain's own,
/// `platform::audit::with_chain`).
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/table-games");

/// Namespace of the ids this service derives (rounds, ledger transfers, its accounts).
pub const TABLES_NAMESPACE: Uuid = Uuid::from_u128(0x7461_626c_6573_4000_8000_6c6f_7474_6f21);

/// What every handler shares: the service's own parts and each game's.
#[derive(Debug, Clone)]
pub struct TablesState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// The ledger: players' wallets, the games' accounts.
    pub ledger: LedgerClient,
    /// What the games share: ledger batches, writers (`kit`).
    pub kit: kit::Kit,
    pub blackjack: blackjack::Game,
    pub i_luv_suits: i_luv_suits::Game,
    pub craps: craps::Game,
}

/// The house's settings for every table game, read once at start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableSettings {
    pub house: kit::house::HouseLimits,
    /// How the games' shared machinery batches and remembers (the defaults; the benchmark
    /// turns each off to measure it).
    pub kit: kit::KitSettings,
    pub blackjack: blackjack::Limits,
    pub i_luv_suits: i_luv_suits::Limits,
    pub craps: craps::Limits,
}

impl TableSettings {
    pub fn from_env() -> Result<TableSettings, platform::config::ConfigError> {
        let house = kit::house::HouseLimits::from_env()?;
        Ok(TableSettings {
            house,
            kit: kit::KitSettings::default(),
            blackjack: blackjack::Limits::from_env(&house)?,
            i_luv_suits: i_luv_suits::Limits::from_env(&house)?,
            craps: craps::Limits::from_env(&house)?,
        })
    }
}

/// Converts a stored or recorded value to JSON (it is always representable).
pub fn json_of(value: &impl serde::Serialize) -> Result<serde_json::Value, AppError> {
    serde_json::to_value(value).map_err(AppError::internal)
}

/// Reads back a value this service stored.
pub fn from_json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, AppError> {
    serde_json::from_value(value).map_err(AppError::internal)
}

impl FromRef<TablesState> for TokenKeys {
    fn from_ref(state: &TablesState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl TablesState {
    /// Opens the games' accounts in the ledger if they are not there, and seeds each progressive
    /// pot once: the Blazing 7's with $10,000 (K.A.R. 111-301-5(j)(6)), I Luv Suits' with $1,000
    /// (111-301-76(i)(5)).
    pub async fn start(
        pool: PgPool,
        tokens: TokenKeys,
        settings: TableSettings,
        ledger: Upstream,
    ) -> Result<Self, AppError> {
        let ledger = LedgerClient::new(ledger, tokens.clone(), "table-games");
        let id = |name: &str| Uuid::new_v5(&TABLES_NAMESPACE, name.as_bytes());
        let kit = kit::Kit::spawn(&pool, ledger.clone(), HELD_APART, settings.kit);
        let state = TablesState {
            blackjack: blackjack::Game {
                escrow_account: id("blackjack/escrow"),
                house_account: id("blackjack/house"),
                pot_account: id("blackjack/blazing-7s-pot"),
                limits: settings.blackjack,
                repository: blackjack::repository::Repository::spawn(&kit),
            },
            i_luv_suits: i_luv_suits::Game {
                escrow_account: id("i-luv-suits/escrow"),
                house_account: id("i-luv-suits/house"),
                pot_account: id("i-luv-suits/progressive-pot"),
                limits: settings.i_luv_suits,
                repository: i_luv_suits::repository::Repository::spawn(&kit),
            },
            craps: craps::Game {
                escrow_account: id("craps/escrow"),
                house_account: id("craps/house"),
                limits: settings.craps,
                repository: craps::repository::Repository::spawn(&kit),
            },
            kit,
            pool,
            tokens,
            ledger,
        };
        state.blackjack.open_accounts(&state.ledger).await?;
        state.i_luv_suits.open_accounts(&state.ledger).await?;
        state.craps.open_accounts(&state.ledger).await?;
        Ok(state)
    }

    /// The same service calling another ledger (a test's unreachable one, say): its ledger
    /// batches go there too.
    #[must_use]
    pub fn with_ledger(&self, ledger: LedgerClient) -> TablesState {
        TablesState { kit: self.kit.with_ledger(ledger.clone()), ledger, ..self.clone() }
    }

    /// The same service with nothing remembered and no request in flight, writing through the
    /// same writers: as another process serving the same tables would be.
    #[must_use]
    pub fn as_another_process(&self) -> TablesState {
        let mut other = self.clone();
        other.blackjack.repository = self.blackjack.repository.with_fresh_memory();
        other.i_luv_suits.repository = self.i_luv_suits.repository.with_fresh_memory();
        other.craps.repository = self.craps.repository.with_fresh_memory();
        other
    }

    pub fn service_token(&self) -> Result<String, AppError> {
        self.tokens.service_token("table-games")
    }
}

/// Connects to `database_url`, in the `tables` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect_keeping_chain(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the service (see the ledger's `route_table` for why a table).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<TablesState>)> {
    vec![
        (Method::POST, "/v1/blackjack/tables", post(blackjack::routes::open_table)),
        (Method::POST, "/v1/blackjack/tables/{id}/rounds", post(blackjack::routes::deal)),
        (Method::GET, "/v1/blackjack/rounds/{id}", get(blackjack::routes::get_round)),
        (Method::POST, "/v1/blackjack/rounds/{id}/actions", post(blackjack::routes::act)),
        (Method::GET, "/v1/blackjack/recall", get(blackjack::routes::recall)),
        (Method::GET, "/v1/blackjack/progressive", get(blackjack::routes::progressive)),
        (Method::GET, "/v1/blackjack/math", get(blackjack::routes::math)),
        (Method::GET, "/v1/tables/audit/verify", get(blackjack::routes::verify_audit)),
        (Method::POST, "/v1/i-luv-suits/rounds", post(i_luv_suits::routes::place_wagers)),
        (Method::GET, "/v1/i-luv-suits/rounds/{id}", get(i_luv_suits::routes::get_round)),
        (Method::POST, "/v1/i-luv-suits/rounds/{id}/decision", post(i_luv_suits::routes::decide)),
        (Method::GET, "/v1/i-luv-suits/recall", get(i_luv_suits::routes::recall)),
        (Method::GET, "/v1/i-luv-suits/table", get(i_luv_suits::routes::table)),
        (Method::GET, "/v1/i-luv-suits/math", get(i_luv_suits::routes::math)),
        (Method::POST, "/v1/craps/sessions", post(craps::routes::open_session)),
        (Method::GET, "/v1/craps/sessions/{id}", get(craps::routes::get_session)),
        (Method::POST, "/v1/craps/sessions/{id}/rolls", post(craps::routes::roll)),
        (Method::POST, "/v1/craps/sessions/{id}/bets", post(craps::routes::change_bets)),
        (Method::GET, "/v1/craps/recall", get(craps::routes::recall)),
        (Method::GET, "/v1/craps/math", get(craps::routes::math)),
        (Method::GET, "/v1/tables/in-play", get(in_play::in_play)),
    ]
}

pub fn api_routes(state: TablesState) -> Router {
    platform::http::routes_from(route_table()).with_state(state)
}

/// The whole service.
pub fn router(state: TablesState, limits: Limits) -> Router {
    let readiness = Readiness::default().with_pool(SCHEMA, state.pool.clone());
    platform::http::app(api_routes(state), readiness, limits)
}

/// Every game's recovery pass, once: rounds and requests a crash left between steps for longer
/// than `older_than` finished ([`blackjack::recover`], [`i_luv_suits::recover`],
/// [`craps::recover`]), then rounds and sessions their players abandoned finished by the house
/// ([`blackjack::finish_abandoned`], [`i_luv_suits::finish_abandoned`],
/// [`craps::close_abandoned`]), each after its game's `abandoned_after`. A game whose pass fails
/// is logged and tried again at the next pass; the others go on. Answers how many it finished.
pub async fn recover_all(state: &TablesState, older_than: std::time::Duration) -> usize {
    let passes: [(&str, Result<usize, AppError>); 6] = [
        ("blackjack rounds", blackjack::recover(state, older_than).await),
        ("I Luv Suits rounds", i_luv_suits::recover(state, older_than).await),
        ("craps requests", craps::recover(state, older_than).await),
        (
            "abandoned blackjack rounds",
            blackjack::finish_abandoned(state, state.blackjack.limits.abandoned_after).await,
        ),
        (
            "abandoned I Luv Suits rounds",
            i_luv_suits::finish_abandoned(state, state.i_luv_suits.limits.abandoned_after).await,
        ),
        ("abandoned craps sessions", craps::close_abandoned(state, state.craps.limits.abandoned_after).await),
    ];
    let mut finished = 0usize;
    for (what, pass) in passes {
        match pass {
            Ok(0) => {}
            Ok(n) => {
                tracing::info!(finished = n, "finished {what}");
                finished = finished.saturating_add(n);
            }
            Err(e) => tracing::warn!(error = %e, "finishing {what} failed; will retry"),
        }
    }
    finished
}

/// Runs [`recover_all`] every `interval` on rounds left for 5 s.
pub fn spawn_recovery(state: TablesState, interval: std::time::Duration) -> tokio::task::JoinHandle<()> {
    let pool = state.pool.clone();
    platform::metrics::spawn_backlog_gauges(
        move || {
            let pool = pool.clone();
            async move { kit::store::backlogs(&pool).await }
        },
        std::time::Duration::from_secs(15),
    );
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            recover_all(&state, std::time::Duration::from_secs(5)).await;
        }
    })
}

/// The service's part of the public API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(
        blackjack::routes::open_table, blackjack::routes::deal, blackjack::routes::get_round, blackjack::routes::act, blackjack::routes::recall,
        blackjack::routes::progressive, blackjack::routes::math, blackjack::routes::verify_audit,
        i_luv_suits::routes::place_wagers, i_luv_suits::routes::get_round, i_luv_suits::routes::decide,
        i_luv_suits::routes::recall, i_luv_suits::routes::table, i_luv_suits::routes::math,
        craps::routes::open_session, craps::routes::get_session, craps::routes::roll, craps::routes::change_bets,
        craps::routes::recall, craps::routes::math, in_play::in_play
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags(
        (name = "tables", description = "Every table game together: a player's unfinished rounds and sessions"),
        (name = "blackjack", description = "Blackjack (K.A.R. 111-301) with its side wagers and the Blazing 7's progressive"),
        (name = "craps", description = "Craps (K.A.R. 111-501-44, -45) with its whole bet list, the hot shooter and power odds"),
        (name = "i-luv-suits", description = "I Luv Suits (K.A.R. 111-301-74 to -76) with Flush Rush, Super Flush Rush and the progressive")
    )
)]
pub struct TableGamesApi;
