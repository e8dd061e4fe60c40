//! Draw games (DESIGN §1, §4, §6): Castle Keno played at once or in scheduled draws, with every
//! cent moved by the ledger and every outcome in a hash-chained audit log.
//!
//! - [`play_now`]: buying a ticket that is drawn and settled at once, as an idempotent saga; the
//!   recovery of tickets a crash left half-done; reads of tickets;
//! - [`scheduled`]: tickets for the next draw or the next N draws, and public reads of draws;
//! - [`scheduler`]: the timetable, and the one leader that closes, draws and settles draws;
//! - [`rules`]: pay tables and the math (public), and rule errors as problems;
//! - [`audit`]: verifying the hash chain of every outcome.

pub mod audit;
pub mod play_now;
pub mod rules;
pub mod scheduled;
pub mod scheduler;

use std::time::Duration;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post};
use ledger_api::{AccountKind, LedgerClient};
use platform::AppError;
use platform::auth::TokenKeys;
use platform::clock::Clock;
use platform::config::Config;
use platform::db::DbError;
use platform::group_commit::{GroupCommit, InTransaction};
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use platform::upstream::Upstream;
use serde::Deserialize;
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

/// Seconds between scheduled draws by default (`LOTTO_KENO_DRAW_INTERVAL_SECONDS`).
pub const DEFAULT_DRAW_INTERVAL_SECONDS: u64 = 240;

/// How many play-now tickets share one ledger call (two transfers each at most, well under the
/// ledger's batch limit).
const LEDGER_BATCH_TICKETS: usize = 200;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// How many of the newest (1 to 100, default 20).
    pub limit: Option<i64>,
}

pub(crate) fn limit_of(query: &ListQuery) -> Result<i64, AppError> {
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(AppError::bad_request("invalid_limit", "limit must be 1 to 100"));
    }
    Ok(limit)
}

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct DrawsState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// The ledger: players' wallets, the game's accounts, every transfer.
    pub ledger: LedgerClient,
    pub max_tickets: u32,
    /// The game's escrow account in the ledger: stakes wait here until the ticket settles.
    pub escrow_account: Uuid,
    /// The house's account for Keno: it takes settled stakes and pays prizes.
    pub house_account: Uuid,
    /// The play-now saga's local writes, group-committed.
    pub ticket_writes: GroupCommit<InTransaction<play_now::TicketWriter>>,
    /// The play-now saga's ledger batches, many tickets to a ledger call.
    pub ledger_batches: GroupCommit<play_now::LedgerBatches>,
    /// The time the service acts on (a test moves it by hand).
    pub clock: Clock,
    /// When each scheduled draw closes.
    pub schedule: scheduler::Schedule,
    /// The most consecutive draws one ticket may join (`LOTTO_KENO_MAX_DRAWS`).
    pub max_draws: u32,
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
        // A ticket's prize is one ledger transfer: the largest must be one the ledger takes, or a
        // ticket could be staked and then never paid.
        if domain::keno::top_prize_cents().saturating_mul(i64::from(max_tickets)) > domain::Amount::MAX_CENTS
        {
            return Err(AppError::internal(format!(
                "LOTTO_KENO_MAX_TICKETS={max_tickets}: its top prize would be more than one transfer may move"
            )));
        }
        let max_draws = platform::config::env_or("LOTTO_KENO_MAX_DRAWS", scheduled::DEFAULT_MAX_DRAWS)
            .map_err(|e| AppError::internal(e.to_string()))?;
        let interval =
            platform::config::env_or("LOTTO_KENO_DRAW_INTERVAL_SECONDS", DEFAULT_DRAW_INTERVAL_SECONDS)
                .map_err(|e| AppError::internal(e.to_string()))?;
        let schedule =
            scheduler::Schedule::load_or_create(&mut *pool.acquire().await?, Duration::from_secs(interval))
                .await?;
        let escrow_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/escrow");
        let house_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/house");
        let ledger = LedgerClient::new(ledger, tokens.clone(), "draw-games");
        let ticket_writes = GroupCommit::spawn(pool.clone(), play_now::TicketWriter, 256);
        let ledger_batches = GroupCommit::spawn_runner(
            play_now::LedgerBatches { ledger: ledger.clone() },
            LEDGER_BATCH_TICKETS,
        );
        let state = DrawsState {
            pool,
            tokens,
            ledger,
            max_tickets,
            escrow_account,
            house_account,
            ticket_writes,
            ledger_batches,
            clock: Clock::system(),
            schedule,
            max_draws,
        };
        state
            .ledger
            .open_accounts(
                "castle-keno",
                &[(escrow_account, AccountKind::GameEscrow), (house_account, AccountKind::HouseRevenue)],
            )
            .await?;
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
        (Method::POST, "/v1/keno/tickets", post(play_now::play_now)),
        (Method::GET, "/v1/keno/tickets", get(play_now::my_tickets)),
        (Method::GET, "/v1/keno/tickets/{id}", get(play_now::get_ticket)),
        (Method::POST, "/v1/keno/draw-tickets", post(scheduled::buy)),
        (Method::GET, "/v1/keno/draw-tickets", get(scheduled::my_tickets)),
        (Method::GET, "/v1/keno/draw-tickets/{id}", get(scheduled::get_ticket)),
        (Method::GET, "/v1/keno/draws", get(scheduled::list_draws)),
        (Method::GET, "/v1/keno/draws/{number}", get(scheduled::get_draw)),
        (Method::GET, "/v1/keno/paytables", get(rules::paytables)),
        (Method::GET, "/v1/keno/math", get(rules::math)),
        (Method::GET, "/v1/draws/audit/verify", get(audit::verify_audit)),
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

/// Starts the service's background work: the draw scheduler (ticking every second; it acts
/// only while this process leads) and the recovery of purchases a crash left half-done.
pub fn spawn_workers(state: DrawsState) {
    scheduler::spawn_scheduler(state.clone(), Duration::from_secs(1));
    spawn_recovery(state, Duration::from_secs(5));
}

/// Runs [`play_now::recover`] and [`scheduled::recover`] every `interval`.
pub fn spawn_recovery(state: DrawsState, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            for (what, finished) in [
                ("play-now tickets", play_now::recover(&state, Duration::from_secs(5)).await),
                ("draw tickets", scheduled::recover(&state, Duration::from_secs(5)).await),
            ] {
                match finished {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(finished = n, what, "recovered keno purchases"),
                    Err(e) => tracing::warn!(error = %e, what, "keno recovery failed; will retry"),
                }
            }
        }
    })
}

/// The service's part of the public API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(
        play_now::play_now, play_now::my_tickets, play_now::get_ticket,
        scheduled::buy, scheduled::my_tickets, scheduled::get_ticket, scheduled::list_draws, scheduled::get_draw,
        rules::paytables, rules::math, audit::verify_audit
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "keno", description = "Castle Keno: tickets played at once or in scheduled draws, draws, pay tables and the math"))
)]
pub struct DrawGamesApi;
