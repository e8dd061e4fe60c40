//! Draw games (architecture §1, §4, §6): Castle Keno played at once or in scheduled draws, and
//! Powerball sold at terminals and online and drawn on its central-time timetable, with every
//! cent moved by the ledger and every outcome in a hash-chained audit log.
//!
//! The service is built on floors (ADR 0006):
//! - [`routes`]: the handlers (authorise, extract, one call, a view);
//! - [`saga`]: play-now tickets, tickets for scheduled draws, and the leader that closes, draws
//!   and settles draws;
//! - [`store`]: every SQL statement, both ticket kinds on one load / list / recovery path, and
//!   the typed states of tickets and draws;
//! - [`views`]: the wire types; [`rules`]: rule errors and the options' names;
//! - [`config`]: the settings, read once at start;
//! - [`export`]: a Powerball drawing's frozen wager set read back and recounted, independently;
//! - [`certification`]: a drawing recounted from its export and certified, what `lotto
//!   verify-draw` runs.

pub mod certification;
pub mod config;
platform::floor!(export);
platform::floor!(routes);
platform::floor!(rules);
platform::floor!(saga);
platform::floor!(store);
platform::floor!(views);

use std::time::Duration;

use axum::Router;
use axum::extract::FromRef;
use axum::http::Method;
use axum::routing::{MethodRouter, get, post, put};
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
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use uuid::Uuid;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "draws";

/// Connections the service holds apart from its pool: the draw scheduler's leadership lock, on a
/// connection taken out of the pool. Counted in the process's budget.
pub const HELD_APART: u32 = 1;

/// The service's migrations, from `migrations/draw-games/` (run with the audit chain's own,
/// `platform::audit::with_chain`).
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/draw-games");

/// Namespace of the ids this service derives (ticket ids, ledger transfer ids, its accounts).
pub const DRAWS_NAMESPACE: Uuid = Uuid::from_u128(0x6472_6177_7367_4000_8000_6c6f_7474_6f21);

/// How many tickets share one ledger call (two transfers each at most, well under the ledger's
/// batch limit).
const LEDGER_BATCH_TICKETS: usize = 200;

pub use config::{DrawSettings, KenoSettings, PowerballSettings, ResultsMode};

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct DrawsState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// The ledger: players' wallets, the game's accounts, every transfer.
    pub ledger: LedgerClient,
    pub settings: DrawSettings,
    /// The game's escrow account in the ledger: stakes wait here until the ticket settles.
    pub escrow_account: Uuid,
    /// The house's account for Keno: it takes settled stakes and pays prizes.
    pub house_account: Uuid,
    /// The play-now saga's local writes, group-committed.
    pub ticket_writes: GroupCommit<InTransaction<store::keno::tickets::TicketWriter>>,
    /// Powerball sales' tickets and plays, group-committed.
    pub sale_writes: GroupCommit<InTransaction<store::powerball::sale_writes::SaleWriter>>,
    /// The play-now saga's ledger batches, many tickets to a ledger call.
    pub ledger_batches: GroupCommit<saga::LedgerBatches>,
    /// The time the service acts on (a test moves it by hand).
    pub clock: Clock,
    /// When each scheduled draw closes.
    pub schedule: store::keno::draws::Schedule,
    /// When Powerball is sold and drawn (111-5-24(g), (h)), central time.
    pub powerball: domain::powerball::schedule::Timetable,
    /// Powerball's accounts in the ledger.
    pub powerball_accounts: PowerballAccounts,
    /// Live results for watching screens: one poller per process, started by the first.
    pub live: routes::LiveFeed,
    /// A permit for each live-results stream open (`LOTTO_MAX_STREAMS`).
    pub live_streams: std::sync::Arc<tokio::sync::Semaphore>,
}

/// Powerball's accounts: sales wait in escrow until their drawing settles; the house takes the
/// wagers and funds the prizes, which wait in `prizes` until paid or, unclaimed, expire to
/// `unclaimed`.
#[derive(Debug, Clone, Copy)]
pub struct PowerballAccounts {
    pub escrow: Uuid,
    pub house: Uuid,
    pub prizes: Uuid,
    pub unclaimed: Uuid,
    /// Prizes paid at the office leave through here (paid out by check).
    pub office_payouts: Uuid,
    /// Tax withheld from office prizes, owed to the tax authority.
    pub withholding: Uuid,
    /// Grand prizes taken as an annuity: the payments after the first, owed until each is paid.
    pub annuities: Uuid,
}

impl PowerballAccounts {
    fn derived() -> Self {
        let id = |name: &str| Uuid::new_v5(&DRAWS_NAMESPACE, format!("powerball/{name}").as_bytes());
        PowerballAccounts {
            escrow: id("escrow"),
            house: id("house"),
            prizes: id("prizes"),
            unclaimed: id("unclaimed"),
            office_payouts: id("office-payouts"),
            withholding: id("tax-withheld"),
            annuities: id("annuities"),
        }
    }
}

impl FromRef<DrawsState> for TokenKeys {
    fn from_ref(state: &DrawsState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl DrawsState {
    /// A state with `settings`, whose game accounts are opened in the ledger if they are not
    /// there yet.
    pub async fn start(
        pool: PgPool,
        tokens: TokenKeys,
        settings: DrawSettings,
        ledger: Upstream,
    ) -> Result<Self, AppError> {
        let schedule = store::keno::draws::Schedule::load_or_create(
            &mut *pool.acquire().await?,
            settings.keno.draw_interval,
        )
        .await?;
        let escrow_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/escrow");
        let house_account = Uuid::new_v5(&DRAWS_NAMESPACE, b"keno/house");
        let ledger = LedgerClient::new(ledger, tokens.clone(), "draw-games");
        let ticket_writes = GroupCommit::spawn(pool.clone(), store::keno::tickets::TicketWriter, 256);
        let sale_writes = GroupCommit::spawn(pool.clone(), store::powerball::sale_writes::SaleWriter, 256);
        let ledger_batches =
            GroupCommit::spawn_runner(saga::LedgerBatches { ledger: ledger.clone() }, LEDGER_BATCH_TICKETS);
        let live_streams = std::sync::Arc::new(tokio::sync::Semaphore::new(settings.max_streams));
        let clock = settings.clock();
        let state = DrawsState {
            pool,
            tokens,
            ledger,
            settings,
            escrow_account,
            house_account,
            ticket_writes,
            sale_writes,
            ledger_batches,
            clock,
            schedule,
            powerball: domain::powerball::schedule::Timetable::default(),
            powerball_accounts: PowerballAccounts::derived(),
            live: routes::LiveFeed::default(),
            live_streams,
        };
        state
            .ledger
            .open_accounts_at_start(
                "castle-keno",
                &[(escrow_account, AccountKind::GameEscrow), (house_account, AccountKind::HouseRevenue)],
            )
            .await?;
        let pb = state.powerball_accounts;
        state
            .ledger
            .open_accounts_at_start(
                "powerball",
                &[
                    (pb.escrow, AccountKind::GameEscrow),
                    (pb.house, AccountKind::HouseRevenue),
                    (pb.prizes, AccountKind::PrizeLiability),
                    (pb.unclaimed, AccountKind::HouseRevenue),
                    (pb.office_payouts, AccountKind::CashClearing),
                    (pb.withholding, AccountKind::CashClearing),
                    (pb.annuities, AccountKind::PrizeLiability),
                ],
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
    platform::db::connect_keeping_chain(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// Every route of the service (see the ledger's `route_table` for why a table).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<DrawsState>)> {
    vec![
        (Method::POST, "/v1/keno/tickets", post(routes::play_now)),
        (Method::GET, "/v1/keno/tickets", get(routes::my_tickets)),
        (Method::GET, "/v1/keno/tickets/{id}", get(routes::get_ticket)),
        (Method::POST, "/v1/keno/draw-tickets", post(routes::buy)),
        (Method::GET, "/v1/keno/draw-tickets", get(routes::my_draw_tickets)),
        (Method::GET, "/v1/keno/draw-tickets/{id}", get(routes::get_draw_ticket)),
        (Method::GET, "/v1/keno/draws", get(routes::list_draws)),
        (Method::GET, "/v1/keno/draws/{number}", get(routes::get_draw)),
        (Method::GET, "/v1/keno/paytables", get(routes::paytables)),
        (Method::GET, "/v1/keno/math", get(routes::math)),
        (Method::GET, "/v1/powerball/math", get(routes::powerball_math)),
        (Method::GET, "/v1/powerball/draws/next", get(routes::next_powerball_draw)),
        (Method::PUT, "/v1/powerball/draws/{date}/grand-prize", put(routes::set_powerball_grand_prize)),
        (Method::PUT, "/v1/powerball/draws/{date}/results-mode", put(routes::set_powerball_results_mode)),
        (Method::POST, "/v1/powerball/draws/{date}/results", post(routes::enter_powerball_results)),
        (Method::GET, "/v1/powerball/draws", get(routes::list_powerball_draws)),
        (Method::GET, "/v1/powerball/draws/{date}", get(routes::get_powerball_draw)),
        (Method::POST, "/v1/powerball/tickets", post(routes::buy_powerball_online)),
        (Method::GET, "/v1/powerball/tickets", get(routes::my_powerball_tickets)),
        (Method::POST, "/v1/powerball/retail/tickets", post(routes::sell_powerball_at_terminal)),
        (Method::GET, "/v1/powerball/tickets/{serial}", get(routes::get_powerball_ticket)),
        (Method::POST, "/v1/powerball/retail/claims", post(routes::claim_powerball_at_terminal)),
        (Method::GET, "/v1/powerball/retail/day", get(routes::powerball_retail_day)),
        (Method::POST, "/v1/powerball/office-claims", post(routes::claim_powerball_at_office)),
        (Method::GET, "/v1/powerball/office-claims", get(routes::list_powerball_office_claims)),
        (Method::GET, "/v1/powerball/annuities", get(routes::list_powerball_annuities)),
        (Method::GET, "/v1/draws/audit/verify", get(routes::verify_audit)),
        (Method::GET, "/v1/draws/live", get(routes::live_draws)),
        (Method::POST, "/v1/draws/players/{player}/void-future-tickets", post(routes::void_future_tickets)),
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
    saga::scheduler::spawn_scheduler(state.clone(), Duration::from_secs(1));
    let pool = state.pool.clone();
    platform::metrics::spawn_backlog_gauges(
        move || {
            let pool = pool.clone();
            async move {
                // The advertised jackpot is sampled with the backlogs, at the same pace.
                sample_jackpot(&pool).await;
                store::backlogs(&pool).await
            }
        },
        Duration::from_secs(15),
    );
    spawn_recovery(state, Duration::from_secs(5));
}

/// Sets the gauge of Powerball's advertised grand prize for its next drawing, once one is set.
async fn sample_jackpot(pool: &PgPool) {
    match store::powerball::drawings::next_advertised_cents(pool).await {
        Ok(Some(cents)) => {
            platform::metrics::set_jackpot_advertised(ledger_api::Game::Powerball.label(), cents);
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "reading the advertised jackpot failed; will retry"),
    }
}

/// Runs [`saga::keno::play_now::recover`] and [`saga::keno::scheduled::recover`] every `interval`.
pub fn spawn_recovery(state: DrawsState, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        loop {
            ticker.tick().await;
            for (what, finished) in [
                ("play-now tickets", saga::keno::play_now::recover(&state, Duration::from_secs(5)).await),
                ("draw tickets", saga::keno::scheduled::recover(&state, Duration::from_secs(5)).await),
                ("powerball tickets", saga::powerball::sales::recover(&state, Duration::from_secs(5)).await),
                ("voided tickets' refunds", saga::voids::recover(&state, Duration::from_secs(5)).await),
                (
                    "powerball claims",
                    saga::powerball::claims::finish_pending_claims(&state, Duration::from_secs(5)).await,
                ),
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
        routes::play_now, routes::my_tickets, routes::get_ticket,
        routes::buy, routes::my_draw_tickets, routes::get_draw_ticket, routes::list_draws, routes::get_draw,
        routes::paytables, routes::math, routes::powerball_math, routes::next_powerball_draw,
        routes::set_powerball_grand_prize, routes::set_powerball_results_mode, routes::enter_powerball_results,
        routes::list_powerball_draws, routes::get_powerball_draw, routes::buy_powerball_online, routes::my_powerball_tickets,
        routes::sell_powerball_at_terminal, routes::get_powerball_ticket, routes::claim_powerball_at_terminal, routes::powerball_retail_day,
        routes::claim_powerball_at_office, routes::list_powerball_office_claims, routes::list_powerball_annuities,
        routes::verify_audit, routes::live_draws,
        routes::void_future_tickets
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags((name = "keno", description = "Castle Keno: tickets played at once or in scheduled draws, draws, pay tables and the math"),
         (name = "powerball", description = "Powerball (K.A.R. 111-5-22, 111-5-24): sales at terminals and online, drawings with entered or drawn results, certification, and the game's exact math"))
)]
pub struct DrawGamesApi;
