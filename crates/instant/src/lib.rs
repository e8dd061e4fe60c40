//! Instant and pull-tab tickets (issue 6): from a game's definition and its print run to a prize
//! paid at the retailer's counter or the lottery office, and the packs settled with retailers.
//!
//! The service is built on floors (ADR 0006):
//! - [`routes`]: the handlers (authorise, extract, one call, a view);
//! - [`saga`]: the steps that move money and state: the scan's checks, a prize payment to its
//!   payee, packs moved and settled, print runs stored and funded;
//! - [`store`]: every SQL statement, and the typed states of packs and payments;
//! - [`views`]: the wire types;
//! - [`config`]: the settings, read once at start;
//! - [`games`]: the definitions the service carries.

pub mod config;
pub mod games;
pub mod printer_file;
platform::floor!(routes);
platform::floor!(saga);
platform::floor!(store);
platform::floor!(views);

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post, put};
use domain::instant::{GameDefinition, Report};
use ledger_api::{AccountKind, LedgerClient};
use platform::AppError;
use platform::auth::TokenKeys;
use platform::codes;
use platform::config::Config;
use platform::db::DbError;
use platform::group_commit::{GroupCommit, InTransaction};
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use platform::upstream::Upstream;
use sqlx::PgPool;
use sqlx::migrate::Migrator;

pub use config::InstantSettings;
/// A print run of a game stored by an operator (tickets, packs, liability), as the print-run job
/// stores it, and its printer file taken for download once: for callers in the same process
/// (the whole platform's tests, which need a run without the job's HTTP round trips).
pub use saga::print_run::{store_print_run, store_print_run_with};
pub use store::print_runs::{PrinterFileTaken, take_printer_file};

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "instant";

/// Connections the service holds apart from its pool: a print job's progress line, on a
/// connection of its own while a run is printed. Counted in the process's budget.
pub const HELD_APART: u32 = 1;

/// The service's migrations, from `migrations/instant/` (run with the audit chain's own,
/// `platform::audit::with_chain`).
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/instant");

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct InstantState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// Every game this service runs, with what loading its definition found.
    pub games: Arc<Vec<(GameDefinition, Report)>>,
    pub settings: InstantSettings,
    /// The ledger: the games' accounts, retailers' settlement accounts, every transfer.
    pub ledger: LedgerClient,
    pub accounts: InstantAccounts,
    /// Every scan's log row, group-committed.
    pub validation_log: GroupCommit<InTransaction<store::validation_log::ValidationLog>>,
}

/// The instant games' own accounts in the ledger (each game's prize liability besides:
/// [`liability_account`]).
#[derive(Debug, Clone)]
pub struct InstantAccounts {
    /// Funds each print run's prize liability; credited with what retailers owe for packs.
    pub house: uuid::Uuid,
    /// Prizes paid at the office, net of tax, to be paid out by check.
    pub office_payouts: uuid::Uuid,
    /// Tax withheld from office prizes, owed to the tax authority.
    pub withholding: uuid::Uuid,
    /// Prizes nobody claimed before their claim period ended (issue 50).
    pub unclaimed: uuid::Uuid,
}

/// Namespace of the ids this service derives (its accounts, ledger transfers).
pub const INSTANT_NAMESPACE: uuid::Uuid = uuid::Uuid::from_u128(0x696e_7374_616e_4000_8000_6c6f_7474_6f21);

/// A game's number as stored (a column of `integer`) as the number it is.
pub fn game_number(stored: i32) -> Result<u32, AppError> {
    u32::try_from(stored).map_err(AppError::internal)
}

/// A game's prize liability account: funded when a run is printed, paying its prizes.
pub fn liability_account(game: u32) -> uuid::Uuid {
    uuid::Uuid::new_v5(&INSTANT_NAMESPACE, format!("instant/{game}/prize-liability").as_bytes())
}

impl FromRef<InstantState> for TokenKeys {
    fn from_ref(state: &InstantState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl InstantState {
    /// The service with `games` and `settings`, its accounts opened in `ledger`.
    pub async fn start(
        pool: PgPool,
        tokens: TokenKeys,
        games: Vec<(GameDefinition, Report)>,
        settings: InstantSettings,
        ledger: Upstream,
    ) -> Result<Self, AppError> {
        let ledger = LedgerClient::new(ledger, tokens.clone(), "instant");
        let accounts = InstantAccounts {
            house: uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/house"),
            // Money leaving through the office: the ledger's clearing kind (ADR 0005).
            office_payouts: uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/office-payouts"),
            withholding: uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/tax-withheld"),
            unclaimed: uuid::Uuid::new_v5(&INSTANT_NAMESPACE, b"instant/unclaimed"),
        };
        let mut opened = vec![
            (accounts.house, AccountKind::HouseRevenue),
            (accounts.office_payouts, AccountKind::CashClearing),
            (accounts.withholding, AccountKind::CashClearing),
            // The lottery's again, as Powerball's unclaimed prizes are.
            (accounts.unclaimed, AccountKind::HouseRevenue),
        ];
        opened.extend(games.iter().map(|(g, _)| (liability_account(g.number), AccountKind::PrizeLiability)));
        ledger.open_accounts_at_start("instant", &opened).await?;
        Ok(InstantState {
            validation_log: GroupCommit::spawn(pool.clone(), store::validation_log::ValidationLog, 256),
            pool,
            tokens,
            games: Arc::new(games),
            settings,
            ledger,
            accounts,
        })
    }

    pub fn service_token(&self) -> Result<String, AppError> {
        self.tokens.service_token("instant")
    }

    pub fn game(&self, number: u32) -> Result<&GameDefinition, AppError> {
        self.games
            .iter()
            .map(|(g, _)| g)
            .find(|g| g.number == number)
            .ok_or_else(|| AppError::not_found(codes::GAME_NOT_FOUND, format!("no instant game {number}")))
    }
}

/// Connects to `database_url`, in the `instant` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect_keeping_chain(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the service (see the ledger's `route_table` for why a table).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<InstantState>)> {
    vec![
        (Method::GET, "/v1/instant/games", get(routes::list_games)),
        (Method::POST, "/v1/instant/games/{number}/print-runs", post(routes::create_print_run)),
        (Method::POST, "/v1/instant/games/{number}/vendor-runs", post(routes::import_vendor_run)),
        (Method::GET, "/v1/instant/print-runs/{id}/printer-file", get(routes::download_printer_file)),
        (Method::GET, "/v1/instant/keys", get(routes::keys)),
        (Method::GET, "/v1/instant/print-jobs", get(routes::list_print_jobs)),
        (Method::GET, "/v1/instant/print-jobs/{id}", get(routes::get_print_job)),
        (Method::POST, "/v1/instant/print-jobs/{id}/cancel", post(routes::cancel_print_job)),
        (Method::GET, "/v1/instant/packs", get(routes::packs::list_packs)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/ship", post(routes::packs::ship)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/receive", post(routes::packs::receive)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/activate", post(routes::packs::activate)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/settle", post(routes::packs::settle)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/return", post(routes::packs::return_pack)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/stolen", post(routes::packs::report_stolen)),
        (Method::POST, "/v1/instant/validations", post(routes::validate)),
        (Method::POST, "/v1/instant/claims", post(routes::counter::claim)),
        (Method::GET, "/v1/instant/claims", get(routes::counter::list_claims)),
        (Method::GET, "/v1/instant/receipts/{id}", get(routes::counter::get_receipt)),
        (Method::GET, "/v1/instant/retailers/{id}/statement", get(routes::counter::statement)),
        (Method::POST, "/v1/instant/office-claims", post(routes::create_office_claim)),
        (Method::GET, "/v1/instant/office-claims", get(routes::list_office_claims)),
        (Method::GET, "/v1/instant/liability", get(routes::reports::liability)),
        (Method::GET, "/v1/instant/sales-ends", get(routes::list_sales_ends)),
        (Method::PUT, "/v1/instant/games/{number}/sales-end", put(routes::end_sales)),
        (Method::GET, "/v1/instant/validations/by-retailer", get(routes::reports::validations_by_retailer)),
        (Method::GET, "/v1/instant/reports/unusual-validations", get(routes::reports::unusual_validations)),
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

/// Sets the gauge of print jobs for every source and state, 0 for a pair with none (a gauge
/// left at its last count would show a finished job as running for ever).
async fn sample_print_jobs(pool: &PgPool) {
    use store::{JobSource, JobState};
    match store::print_jobs::count_by_source_and_state(pool).await {
        Ok(counts) => {
            for source in JobSource::TEXTS {
                for state in JobState::TEXTS {
                    let jobs = counts
                        .iter()
                        .find(|(s, t, _)| s.as_str() == *source && t.as_str() == *state)
                        .map_or(0, |c| c.2);
                    platform::metrics::set_print_jobs(source, state, jobs);
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "counting the print jobs failed; will retry"),
    }
}

/// Starts the service's background work, every minute: finishing prize payments left pending
/// for 30 seconds (a crash, or a ledger that did not answer), funding print runs whose
/// liability did not move, and settling packs active for longer than `settle_after`.
pub fn spawn_workers(state: InstantState) {
    saga::jobs::spawn_print_jobs(state.clone(), std::time::Duration::from_secs(2));
    let pool = state.pool.clone();
    platform::metrics::spawn_backlog_gauges(
        move || {
            let pool = pool.clone();
            async move {
                // The print jobs by state are sampled with the backlogs, at the same pace.
                sample_print_jobs(&pool).await;
                store::backlogs(&pool).await
            }
        },
        std::time::Duration::from_secs(15),
    );
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            if let Err(e) =
                saga::payment::finish_pending_payments(&state, std::time::Duration::from_secs(30)).await
            {
                tracing::warn!(error = %e, "finishing pending prize payments failed; retried in a minute");
            }
            match saga::print_run::fund_unfunded(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(runs = n, "funded print runs' liabilities"),
                Err(e) => tracing::warn!(error = %e, "funding print runs failed; retried in a minute"),
            }
            match saga::sales::expire_due(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(games = n, "instant games' unclaimed prizes expired"),
                Err(e) => tracing::warn!(error = %e, "expiring unclaimed prizes failed; retried in a minute"),
            }
            match saga::packs::settle_due_packs(&state).await {
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
        routes::list_games, routes::create_print_run, routes::import_vendor_run, routes::download_printer_file, routes::keys,
        routes::list_print_jobs, routes::get_print_job,
        routes::cancel_print_job, routes::packs::list_packs, routes::packs::ship, routes::packs::receive,
        routes::packs::activate, routes::packs::settle, routes::packs::return_pack, routes::packs::report_stolen,
        routes::validate, routes::counter::claim, routes::counter::list_claims, routes::counter::get_receipt,
        routes::counter::statement, routes::create_office_claim, routes::list_office_claims,
        routes::reports::liability, routes::reports::validations_by_retailer, routes::reports::unusual_validations,
        routes::end_sales, routes::list_sales_ends,
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "instant", description = "Instant and pull-tab tickets: games, print runs, packs, validation"))
)]
pub struct InstantApi;
