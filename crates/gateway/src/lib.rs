//! The gateway: the platform's front door (architecture §7, §8).
//!
//! The service is built on the floors every service has (architecture §1, ADR 0006):
//! - `routes`: the handlers (authorise, extract, one call, a view), and the services' routes
//!   passed through once the caller's role may use them;
//! - `saga`: registration, deposit limits and self-exclusion; deposits and withdrawals through a
//!   payment provider, settled by its signed webhook; logins, renewals and the idle timeout;
//!   staff, retailers and terminal keys;
//! - `store`: every SQL statement, returning typed rows; `views`: the wire types;
//! - [`config`]: the settings, read once at start.
//!
//! Beside them: [`auth`] (the session check every request passes), `credentials` (argon2id
//! passwords and API-key digests), `second_factor` (the staff's TOTP, its QR code, recovery
//! codes), `sealing` (secrets kept sealed in the database), [`rate_limit`] (per-identity and
//! per-address limits),
//! [`cors`] (which browser origins may call the API), [`sandbox`] (the payment provider `lotto`
//! runs) and `web_client` (the web client's pages, embedded, served at `/`).
//!
//! Paths the gateway does not own are passed to the service that does ([`LEDGER_PREFIXES`]),
//! after the gateway has checked the token, the session and the role; the service checks the
//! token again itself.

pub mod auth;
pub mod config;
pub mod cors;
pub mod credentials;
pub mod mail;
pub mod rate_limit;
mod routes;
mod saga;
pub mod sandbox;
mod sealing;
mod second_factor;
mod standing;
mod store;
mod views;
mod web_client;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::FromRef;
use axum::middleware;
use axum::routing::any;
use platform::AppError;
use platform::auth::{Role, TokenKeys};
use platform::config::Config;
use platform::db::DbError;
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use platform::upstream::Upstream;
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use uuid::Uuid;

use crate::auth::{Activity, EndedSessions};
pub use crate::config::{GatewaySettings, Identity, Location, Payments, SessionPolicy};
use crate::rate_limit::{Quota, RateLimiter, StreamsPerAddress};
pub use crate::routes::route_table;
pub use crate::saga::staff::create_staff;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "gateway";

/// Namespace of ids the gateway derives (payment intents and their ledger transfers).
pub const GATEWAY_NAMESPACE: Uuid = Uuid::from_u128(0x6761_7465_7761_7940_8000_6c6f_7474_6f21);

/// The gateway's migrations, from `migrations/gateway/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/gateway");

/// Path prefixes owned by the ledger; reached through the gateway by operators, auditors and services.
pub const LEDGER_PREFIXES: [&str; 5] = ledger_api::PATH_PREFIXES;

/// Who may pass through to the ledger (the ledger refines: auditors only read).
pub(crate) const LEDGER_ROLES: &[Role] = &[Role::Operator, Role::Auditor, Role::Service];

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct GatewayState {
    pub pool: PgPool,
    pub tokens: TokenKeys,
    /// The ledger: wallets opened, payments moved, a player's own wallet read with the player's
    /// token, and staff's requests passed through ([`ledger_api::LedgerClient::upstream`]).
    pub ledger: ledger_api::LedgerClient,
    /// The draw-games service (Castle Keno); `None` answers its routes with 503.
    pub draws: Option<Upstream>,
    /// The table-games service (blackjack); `None` answers its routes with 503.
    pub tables: Option<Upstream>,
    /// The instant service (instant and pull-tab tickets); `None` answers its routes with 503.
    pub instant: Option<Upstream>,
    pub ended_sessions: EndedSessions,
    /// The requests each session made through this replica, not yet written (idle timeouts).
    pub activity: Activity,
    /// The payment provider: deposits and withdrawals.
    pub payments: Payments,
    pub limiter: Arc<RateLimiter>,
    /// The live streams each client address holds open through this replica.
    pub streams: Arc<StreamsPerAddress>,
    /// How long sessions and their tokens last.
    pub sessions: SessionPolicy,
    pub body_limit: usize,
    /// The origins a browser may call the API from.
    pub cors: cors::CorsOrigins,
    /// The operator's time zone: the days of a player's statement.
    pub time_zone: chrono_tz::Tz,
    /// Dormancy, the help line, the exclusion lists' check.
    pub protection: config::ProtectionSettings,
    /// Password checks and hashes, bounded in number and memory.
    pub passwords: credentials::PasswordWork,
    /// How mail reaches players (the relay, or the outbox alone).
    pub mail: mail::Mail,
    /// The identity provider: players' files verified before money moves.
    pub identity: Identity,
    /// The geolocation provider: where a player is before an online stake.
    pub location: Location,
}

impl FromRef<GatewayState> for TokenKeys {
    fn from_ref(state: &GatewayState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl GatewayState {
    /// A state with the rate limits of `settings` (requests per minute, shared by every replica).
    pub fn new(
        pool: PgPool,
        tokens: TokenKeys,
        ledger: Upstream,
        config: &Config,
        settings: &GatewaySettings,
    ) -> Self {
        let (per_identity, per_address) = (settings.rate_per_identity, settings.rate_per_address);
        let limiter = Arc::new(RateLimiter::shared(
            pool.clone(),
            Quota { per_minute: per_identity, burst: per_identity.div_ceil(4).max(10) },
            Quota { per_minute: per_address, burst: per_address.div_ceil(4).max(10) },
        ));
        GatewayState {
            pool,
            ledger: ledger_api::LedgerClient::new(ledger, tokens.clone(), "gateway"),
            tokens,
            draws: None,
            tables: None,
            instant: None,
            ended_sessions: EndedSessions::default(),
            activity: Activity::default(),
            payments: Payments::none(),
            limiter,
            streams: StreamsPerAddress::new(settings.max_streams_per_address),
            sessions: SessionPolicy {
                access_ttl: config.access_token_ttl,
                idle_timeout: settings.idle_timeout,
                lifetime: settings.session_lifetime,
                lockout_after_failures: settings.lockout_after_failures,
                lockout: settings.lockout,
                staff_second_factor: settings.staff_second_factor,
            },
            body_limit: config.body_limit_bytes,
            cors: settings.cors.clone(),
            time_zone: settings.time_zone,
            protection: settings.protection.clone(),
            passwords: credentials::PasswordWork::new(settings.password_checks, settings.password_wait),
            mail: settings.mail.clone(),
            identity: Identity::none(),
            location: Location::none(settings),
        }
    }

    /// Routes the draw-games service's paths to `draws`.
    #[must_use]
    pub fn with_draws(mut self, draws: Upstream) -> Self {
        self.draws = Some(draws);
        self
    }

    /// Routes the table-games service's paths to `tables`.
    #[must_use]
    pub fn with_tables(mut self, tables: Upstream) -> Self {
        self.tables = Some(tables);
        self
    }

    /// The same gateway with its rate limits lifted (still checked, never reached): for load that
    /// comes from one address and one identity, as a benchmark's does.
    #[must_use]
    pub fn without_rate_limits(mut self) -> Self {
        let unlimited = Quota { per_minute: u32::MAX, burst: u32::MAX };
        self.limiter = Arc::new(RateLimiter::new(unlimited, unlimited));
        self
    }

    /// Takes deposits and withdrawals through `payments`' provider.
    #[must_use]
    pub fn with_payments(mut self, payments: Payments) -> Self {
        self.payments = payments;
        self
    }

    /// Checks where players are through `location`'s provider.
    #[must_use]
    pub fn with_location(mut self, location: Location) -> Self {
        self.location = location;
        self
    }

    /// Verifies players' identities through `identity`'s provider.
    #[must_use]
    pub fn with_identity(mut self, identity: Identity) -> Self {
        self.identity = identity;
        self
    }

    /// Routes the instant service's paths to `instant`.
    #[must_use]
    pub fn with_instant(mut self, instant: Upstream) -> Self {
        self.instant = Some(instant);
        self
    }

    /// The gateway's background work: the ended sessions read every second, the mail due sent
    /// every 2 s (with a relay configured), the sessions' last
    /// requests written every second (the idle timeout judges on them), and every 5 s the
    /// payments a webhook left settling finished ([`GatewayState::finish_settling_payments`]), the
    /// approved adjustments whose money a crash left unmoved finished, the large wins the ledger
    /// journaled told by mail, and
    /// the voids of future tickets a suspension left waiting asked for again, the game sessions
    /// gone idle ended, the accounts gone dormant marked; and every
    /// `LOTTO_EXCLUSION_LIST_CHECK_S` the exclusion lists matched against the players.
    pub fn spawn_workers(&self) {
        self.ended_sessions.spawn_refresher(self.pool.clone(), Duration::from_secs(1));
        self.activity.spawn_flusher(self.pool.clone(), Duration::from_secs(1));
        let pool = self.pool.clone();
        platform::metrics::spawn_backlog_gauges(
            move || {
                let pool = pool.clone();
                async move { store::backlogs(&pool).await }
            },
            Duration::from_secs(15),
        );
        if self.mail.relay.sends() {
            let state = self.clone();
            tokio::spawn(async move {
                let mut ticker = tokio::time::interval(Duration::from_secs(2));
                loop {
                    ticker.tick().await;
                    if let Err(e) = state.send_due_mail().await {
                        tracing::warn!(error = %e, "sending mail failed; will retry");
                    }
                }
            });
        }
        let state = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_secs(5));
            // The lists are matched at start, then every `exclusion_list_check`.
            let mut last_list_check = tokio::time::Instant::now() - state.protection.exclusion_list_check;
            loop {
                ticker.tick().await;
                let lists_due = last_list_check.elapsed() >= state.protection.exclusion_list_check;
                if lists_due {
                    last_list_check = tokio::time::Instant::now();
                }
                state.run_recurring_jobs(lists_due).await;
            }
        });
    }

    /// One pass of the recurring jobs of [`GatewayState::spawn_workers`], each logged when it
    /// did something or failed (it is tried again on the next pass).
    async fn run_recurring_jobs(&self, lists_due: bool) {
        fn logged(what: &str, done: Result<usize, AppError>) {
            match done {
                Ok(0) => {}
                Ok(count) => tracing::info!(count, "{what}"),
                Err(e) => tracing::warn!(error = %e, "{what}: failed; will retry"),
            }
        }
        logged(
            "finished payments left settling",
            self.finish_settling_payments(Duration::from_secs(5)).await,
        );
        if lists_due {
            match saga::exclusion_lists::apply(self).await {
                Ok((0, 0)) => {}
                Ok((matched, ended)) => tracing::info!(matched, ended, "exclusion lists applied"),
                Err(e) => tracing::warn!(error = %e, "applying the exclusion lists failed; will retry"),
            }
        }
        logged("large wins told by mail", self.tell_large_wins().await);
        logged(
            "finished approved adjustments left unmoved",
            self.finish_approved_adjustments(Duration::from_secs(10)).await,
        );
        logged(
            "identity checks left unfinished went back to unverified",
            saga::identity::expire_unfinished(self).await.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        );
        logged("accounts marked dormant", self.mark_dormant_accounts().await);
        logged("game sessions gone idle ended", self.end_idle_game_sessions().await);
        logged(
            "voided future tickets a suspension left waiting",
            saga::protection::finish_pending_voids(self, Duration::from_secs(10)).await,
        );
    }

    /// Marks dormant the accounts with no login for the dormancy period; returns how many.
    pub async fn mark_dormant_accounts(&self) -> Result<usize, AppError> {
        saga::exclusion_lists::mark_dormant(self).await
    }

    /// Ends every game session gone idle, recording what it staked and won; returns how many.
    pub async fn end_idle_game_sessions(&self) -> Result<usize, AppError> {
        saga::protection::end_idle_game_sessions(self).await
    }

    /// Finishes every payment left `settling` for longer than `older_than` (its webhook's process
    /// died, or the ledger was away, and the provider has not delivered again). Returns how many.
    pub async fn finish_settling_payments(&self, older_than: Duration) -> Result<usize, AppError> {
        saga::payments::finish_settling(self, older_than).await
    }

    /// Finishes every adjustment approved more than `older_than` ago whose money did not move
    /// (its approver's process died, or the ledger was away). Returns how many.
    pub async fn finish_approved_adjustments(&self, older_than: Duration) -> Result<usize, AppError> {
        saga::adjustments::finish_approving(self, older_than).await
    }

    /// One pass of the large-win mail ([`saga::mail::tell_large_wins`]). Returns how many wins
    /// it read.
    pub async fn tell_large_wins(&self) -> Result<usize, AppError> {
        saga::mail::tell_large_wins(self).await
    }

    /// One pass of the mail worker: the due messages this replica claims, sent to the relay.
    /// Returns how many went.
    pub async fn send_due_mail(&self) -> Result<usize, AppError> {
        saga::mail::send_due(self).await
    }

    /// The gateway's own token for calling services.
    pub fn service_token(&self) -> Result<String, AppError> {
        self.tokens.service_token("gateway")
    }
}

/// Connects to `database_url`, in the `gateway` schema, migrated.
pub async fn connect(database_url: &str, config: &Config) -> Result<PgPool, DbError> {
    platform::db::connect(database_url, SCHEMA, &MIGRATOR, config.db_max_connections).await
}

/// The public API contract, as committed at the repository's root. A test generates it from the
/// code ([`openapi_document`]) and fails when the two differ, so what is served is what runs.
pub const OPENAPI_YAML: &str = include_str!("../../../openapi.yaml");

/// The gateway's own routes, for the API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(
        routes::players::register, routes::players::verify_email, routes::players::resend_verification,
        routes::players::request_reset, routes::players::complete_reset, routes::players::set_login_notices,
        routes::staff::mail_outbox, routes::staff::clear_deposit_block, routes::adjustments::propose,
        routes::adjustments::list, routes::adjustments::get_one, routes::adjustments::approve,
        routes::adjustments::reject, routes::events::list, routes::events::export, routes::events::chain,
        routes::events::check_export, routes::identity::submit,
        routes::identity::mine, routes::identity::webhook, routes::identity::reviews, routes::identity::of_player,
        routes::identity::decide, routes::location::check, routes::location::mine, routes::location::of_player,
        routes::players::find_player, routes::players::match_players, routes::players::get_player, routes::sessions::login,
        routes::sessions::refresh, routes::sessions::begin_enrolment, routes::sessions::confirm_enrolment,
        routes::sessions::logout, routes::players::me, routes::players::wallet,
        routes::players::wallet_history, routes::players::wallet_entries, routes::payments::deposit, routes::payments::withdraw,
        routes::payments::list_payments, routes::payments::get_payment, routes::payments::webhook, routes::players::get_limits,
        routes::players::set_limit, routes::players::self_exclude, routes::staff::add_staff,
        routes::staff::list_staff, routes::staff::add_retailer, routes::staff::list_retailers,
        routes::staff::change_retailer, routes::staff::add_terminal, routes::staff::list_terminals, routes::staff::revoke_terminal,
        routes::protection::my_limits, routes::protection::set_my_limit, routes::protection::player_limits,
        routes::protection::impose_limit, routes::protection::my_statement, routes::protection::my_statement_csv,
        routes::protection::player_statement, routes::protection::take_time_out,
        routes::protection::my_play_session, routes::protection::answer_reality_check,
        routes::protection::set_reality_check_interval, routes::protection::set_my_time_limit,
        routes::protection::request_return, routes::protection::close_account, routes::protection::request_reopen,
        routes::protection::responsible_gaming, routes::protection::add_to_exclusion_list,
        routes::protection::exclusion_list, routes::protection::import_exclusion_list,
        routes::protection::remove_from_exclusion_list, routes::protection::dormant_accounts,
    ),
    components(
        schemas(platform::Problem, platform::events::Kind, platform::events::export::Format),
        responses(platform::openapi::Refused)
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Registration, the player's own wallet, deposits and withdrawals"),
        (name = "sessions", description = "Logging in (players, staff, terminals) and out"),
        (name = "responsible gaming", description = "Deposit, loss, wager and single-stake limits, and self-exclusion"),
        (name = "administration", description = "Staff, retailers and terminal keys (operators)"),
        (name = "records", description = "The significant-events log: found, exported and checked (operators and auditors)"),
    )
)]
pub struct GatewayApi;

/// The whole public API: the gateway's routes and those of the services behind it.
pub fn openapi_document(services: Vec<utoipa::openapi::OpenApi>) -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    let mut doc = GatewayApi::openapi();
    for service in services {
        doc.merge(service);
    }
    platform::openapi::declare_idempotency_key_form(&mut doc);
    doc.info = utoipa::openapi::InfoBuilder::new()
        .title("lotto platform API")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some(
            "The public API of the lottery and casino platform, served by the gateway. Amounts are \
             integer minor units with a currency; every error is application/problem+json with a \
             stable `code`; every POST that moves money takes an idempotency key. No text, in a \
             body, a path or a query, may hold U+0000 (refused 422 `nul_in_text`: the database \
             keeps text without it).",
        ))
        .license(Some(
            utoipa::openapi::LicenseBuilder::new()
                .name("Proprietary (Cargo.toml: UNLICENSED)")
                .identifier(Some("LicenseRef-Proprietary"))
                .build(),
        ))
        .build();
    doc.servers = Some(vec![
        utoipa::openapi::ServerBuilder::new()
            .url("http://localhost:8080")
            .description(Some("`lotto` on this machine (`cargo run --release`)"))
            .build(),
    ]);
    // A route that declares no bearer is public: said outright (`security: []`), so a client
    // generator or a linter need not guess.
    for item in doc.paths.paths.values_mut() {
        let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
        for operation in operations.into_iter().flatten() {
            operation.security.get_or_insert_with(Vec::new);
        }
    }
    doc
}

/// The gateway's routes, and the services' routes it passes through, with rate limits.
pub fn api_routes(state: GatewayState) -> Router {
    let mut router = platform::http::routes_from(route_table());
    for prefix in LEDGER_PREFIXES {
        router = router
            .route(prefix, any(routes::pass_to_ledger))
            .route(&format!("{prefix}/{{*rest}}"), any(routes::pass_to_ledger));
    }
    router
        .layer(middleware::from_fn_with_state(state.clone(), rate_limit::limit))
        .with_state(state)
        .merge(web_client::routes())
}

/// The whole app (`platform::http::app` around the API) with the browsers' CORS outermost, so a
/// preflight is answered before any route, limit or fallback sees it.
pub fn with_cors(app: Router, cors: &cors::CorsOrigins) -> Router {
    // Around the router as one service: a layer added to a router does not see the requests its
    // routes answer with 405, which is what a preflight's OPTIONS is to them.
    match cors.layer() {
        Some(layer) => Router::new().fallback_service(tower::Layer::layer(&layer, app)),
        None => app,
    }
}

/// The whole gateway service.
pub fn router(state: GatewayState, limits: Limits) -> Router {
    let readiness = Readiness::default().with_pool(SCHEMA, state.pool.clone());
    let cors = state.cors.clone();
    with_cors(platform::http::app(api_routes(state), readiness, limits), &cors)
}
