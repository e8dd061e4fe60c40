//! Draw games (DESIGN §1, §4, §6): Castle Keno played at once, with every cent moved by the
//! ledger and every outcome in a hash-chained audit log.
//!
//! - [`keno`]: buying a ticket that is drawn and settled at once, as an idempotent saga; the
//!   recovery worker that finishes tickets a crash left half-done; reads of tickets, pay tables
//!   and the math.
//!
//! Scheduled draws and multi-draw tickets are the next step (issue 4).

pub mod keno;

use std::time::Duration;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
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
pub const SCHEMA: &str = "draws";

/// The service's migrations, from `migrations/draw-games/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/draw-games");

/// Namespace of the ids this service derives (ticket ids, ledger transfer ids, its accounts).
pub const DRAWS_NAMESPACE: Uuid = Uuid::from_u128(0x6472_6177_7367_4000_8000_6c6f_7474_6f21);

/// The most $1 tickets one Keno ticket may stake (`LOTTO_KENO_MAX_TICKETS`).
pub const DEFAULT_MAX_TICKETS: u32 = 100;

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct DrawsState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    pub ledger: Upstream,
    pub max_tickets: u32,
    /// The game's escrow account in the ledger: stakes wait here until the ticket settles.
    pub escrow_account: Uuid,
    /// The house's account for Keno: it takes settled stakes and pays prizes.
    pub house_account: Uuid,
}

impl FromRef<DrawsState> for TokenKeys {
    fn from_ref(state: &DrawsState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl DrawsState {
    /// A state whose game accounts are opened in the ledger if they are not there yet.
    pub async fn new(pool: PgPool, tokens: TokenKeys, ledger: Upstream) -> Result<Self, AppError> {
        let max_tickets = platform::config::env_or("LOTTO_KENO_MAX_TICKETS", DEFAULT_MAX_TICKETS)
            .map_err(|e| AppError::internal(e.to_string()))?;
        let escrow_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/escrow");
        let house_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/house");
        let state = DrawsState { pool, tokens, ledger, max_tickets, escrow_account, house_account };
        for (id, kind) in [(escrow_account, "game_escrow"), (house_account, "house_revenue")] {
            let body = serde_json::json!({"id": id, "kind": kind, "owner": "castle-keno", "currency": "USD"});
            let _: serde_json::Value = state
                .ledger
                .call(Method::POST, "/v1/accounts", &state.service_token()?, Some(&body), None)
                .await?;
        }
        Ok(state)
    }

    pub fn service_token(&self) -> Result<String, AppError> {
        self.tokens.service_token("draw-games")
    }
}

/// Connects to `database_url`, in the `draws` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the service (see the ledger's `route_table` for why a table).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<DrawsState>)> {
    vec![
        (Method::POST, "/v1/keno/tickets", post(keno::play_now)),
        (Method::GET, "/v1/keno/tickets", get(keno::my_tickets)),
        (Method::GET, "/v1/keno/tickets/{id}", get(keno::get_ticket)),
        (Method::GET, "/v1/keno/paytables", get(keno::paytables)),
        (Method::GET, "/v1/keno/math", get(keno::math)),
        (Method::GET, "/v1/draws/audit/verify", get(keno::verify_audit)),
    ]
}

pub fn api_routes(state: DrawsState) -> Router {
    platform::http::routes_from(route_table()).with_state(state)
}

/// The whole service.
pub fn router(state: DrawsState, limits: Limits) -> Router {
    let readiness = Readiness::default().with_pool(SCHEMA, state.pool.clone());
    platform::http::app(api_routes(state), readiness, limits)
}

/// Runs [`keno::recover`] every `interval`.
pub fn spawn_recovery(state: DrawsState, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            match keno::recover(&state, Duration::from_secs(5)).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(finished = n, "recovered keno tickets"),
                Err(e) => tracing::warn!(error = %e, "keno recovery failed; will retry"),
            }
        }
    })
}

/// The service's part of the public API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(keno::play_now, keno::my_tickets, keno::get_ticket, keno::paytables, keno::math, keno::verify_audit),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "keno", description = "Castle Keno: tickets played at once, pay tables and the math"))
)]
pub struct DrawGamesApi;
