//! The wallet: a double-entry, append-only ledger on Postgres (architecture §3).
//!
//! - [`model`]: the API's types and their validation;
//! - [`books`]: the trial balance's imbalance sampled as a metric;
//! - [`store`]: every query, and the stored function that applies transfers atomically;
//! - [`routes`]: the HTTP handlers;
//! - [`holds`]: the sweeper that expires two-phase holds;
//! - [`metrics`]: what each call applied and refused, as metrics;
//! - [`daily`]: the daily reports, made once for each gaming day from the journal.
//!
//! Every route needs a bearer token: services and operators write; auditors read; a player
//! reads only accounts they own (others' look absent); retailers have nothing here.
//!
//! [`api_routes`] is the bare API, for the `lotto` process to merge with other services;
//! [`router`] is the whole service (API plus health, metrics and limits), which tests call
//! without a socket and the `ledger` binary serves.

platform::floor!(books);
platform::floor!(daily);
platform::floor!(holds);
platform::floor!(metrics);
platform::floor!(model);
platform::floor!(routes);
platform::floor!(store);

pub use books::spawn_imbalance_gauge;
pub use daily::{ReportSettings, spawn_report_maker};
pub use holds::spawn_hold_sweeper;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post, put};
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::db::DbError;
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use sqlx::PgPool;
use sqlx::migrate::Migrator;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "ledger";

/// The service's migrations, from `migrations/ledger/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/ledger");

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct LedgerState {
    pub pool: PgPool,
    /// Verifies the token of every request (architecture §7).
    pub tokens: TokenKeys,
    /// When gaming days end and their reports are made.
    pub reports: ReportSettings,
}

impl LedgerState {
    /// The ledger on `pool`, its gaming days ending at the default hour on the system clock.
    pub fn new(pool: PgPool, tokens: TokenKeys) -> LedgerState {
        LedgerState { pool, tokens, reports: ReportSettings::default() }
    }

    pub fn with_reports(self, reports: ReportSettings) -> LedgerState {
        LedgerState { reports, ..self }
    }
}

impl FromRef<LedgerState> for TokenKeys {
    fn from_ref(state: &LedgerState) -> TokenKeys {
        state.tokens.clone()
    }
}

/// Connects to `database_url`, in the `ledger` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the ledger: the one list the router is built from, and which the gateway's
/// authorization matrix test checks it covers.
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<LedgerState>)> {
    vec![
        (Method::POST, "/v1/accounts", post(routes::create_account)),
        (Method::GET, "/v1/accounts", get(routes::list_accounts)),
        (Method::GET, "/v1/accounts/{id}", get(routes::get_account)),
        (Method::GET, "/v1/accounts/{id}/transfers", get(routes::account_history)),
        (Method::GET, "/v1/accounts/{id}/limits", get(routes::account_limits)),
        (Method::PUT, "/v1/accounts/{id}/limits", put(routes::set_account_limit)),
        (Method::GET, "/v1/accounts/{id}/activity", get(routes::account_activity)),
        (Method::GET, "/v1/accounts/{id}/statement", get(routes::account_statement)),
        (Method::GET, "/v1/accounts/{id}/activity/totals", get(routes::account_activity_totals)),
        (Method::PUT, "/v1/accounts/{id}/suspension", put(routes::suspend)),
        (Method::POST, "/v1/transfers", post(routes::create_transfer)),
        (Method::POST, "/v1/transfers/batch", post(routes::create_batch)),
        (Method::GET, "/v1/transfers/{id}", get(routes::get_transfer)),
        (Method::POST, "/v1/deposits", post(routes::deposit)),
        (Method::POST, "/v1/withdrawals", post(routes::withdraw)),
        (Method::GET, "/v1/reports/trial-balance", get(routes::trial_balance)),
        (Method::GET, "/v1/reports/journal-check", get(routes::journal_check)),
        (Method::GET, "/v1/reports/large-wins", get(routes::large_wins)),
        (Method::GET, "/v1/reports/daily", get(routes::daily::daily_reports)),
        (Method::GET, "/v1/reports/daily/{day}", get(routes::daily::daily_report)),
        (Method::GET, "/v1/reports/daily/{day}/accounts", get(routes::daily::daily_accounts)),
    ]
}

/// The ledger's API routes alone.
pub fn api_routes(state: LedgerState) -> Router {
    platform::http::routes_from(route_table()).with_state(state)
}

/// The ledger's part of the public API description.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(
        routes::create_account, routes::list_accounts, routes::get_account, routes::account_history,
        routes::account_limits, routes::set_account_limit, routes::account_activity,
        routes::account_activity_totals, routes::account_statement,
        routes::suspend,
        routes::create_transfer, routes::create_batch, routes::get_transfer, routes::deposit, routes::withdraw,
        routes::trial_balance, routes::journal_check, routes::large_wins,
        routes::daily::daily_reports, routes::daily::daily_report, routes::daily::daily_accounts,
    ),
    components(schemas(platform::Problem, routes::daily::ReportFormat), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "ledger", description = "The wallet: accounts, transfers, holds and reports"))
)]
#[derive(Debug)]
pub struct LedgerApi;

/// The whole ledger service.
pub fn router(state: LedgerState, limits: Limits) -> Router {
    let readiness = Readiness::default().with_pool(SCHEMA, state.pool.clone());
    platform::http::app(api_routes(state), readiness, limits)
}
