//! The gateway: the platform's front door (DESIGN §7, §8).
//!
//! - [`sessions`]: login (players, staff, terminals), logout, and the session check;
//! - [`players`]: registration, the player's own wallet and history, deposit limits and
//!   self-exclusion;
//! - [`payments`]: deposits and withdrawals through a payment provider, confirmed by its signed
//!   webhook; the sandbox provider `lotto` runs;
//! - [`admin`]: staff, retailers and terminal API keys;
//! - [`credentials`]: argon2id passwords and API-key digests;
//! - [`rate_limit`]: per-identity and per-address limits;
//! - [`cors`]: which browser origins may call the API (preflights answered);
//! - [`web_client`]: the web client's pages, embedded, served at `/`;
//!
//! Paths the gateway does not own are passed to the service that does ([`LEDGER_PREFIXES`]),
//! after the gateway has checked the token, the session and the role; the service checks the
//! token again itself.

pub mod admin;
pub mod config;
pub mod cors;
pub mod credentials;
pub mod payments;
pub mod players;
pub mod rate_limit;
pub mod renewal;
pub mod sessions;
pub mod store;
pub mod web_client;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{FromRef, Request, State};
use axum::http::Method;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, any, delete, get, patch, post, put};
use platform::AppError;
use platform::auth::{Role, TokenKeys};
use platform::config::Config;
use platform::db::DbError;
use platform::http::{Limits, Readiness};
use platform::openapi::BearerAuth;
use sqlx::PgPool;
use sqlx::migrate::Migrator;

pub use crate::config::GatewaySettings;
use crate::rate_limit::{Quota, RateLimiter, StreamsPerAddress};
use crate::sessions::{Authenticated, EndedSessions};
use platform::upstream::Upstream;

/// The Postgres schema this service owns.
pub const SCHEMA: &str = "gateway";

/// The gateway's migrations, from `migrations/gateway/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations/gateway");

/// Path prefixes owned by the ledger; reached through the gateway by operators, auditors and services.
pub const LEDGER_PREFIXES: [&str; 5] =
    ["/v1/accounts", "/v1/transfers", "/v1/deposits", "/v1/withdrawals", "/v1/reports"];

/// Who may pass through to the ledger (the ledger refines: auditors only read).
const LEDGER_ROLES: &[Role] = &[Role::Operator, Role::Auditor, Role::Service];

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
    pub activity: renewal::Activity,
    /// The payment provider: deposits and withdrawals.
    pub payments: payments::Payments,
    pub limiter: Arc<RateLimiter>,
    /// The live streams each client address holds open through this replica.
    pub streams: Arc<StreamsPerAddress>,
    /// How long sessions and their tokens last.
    pub sessions: renewal::SessionPolicy,
    pub body_limit: usize,
    /// The origins a browser may call the API from.
    pub cors: cors::CorsOrigins,
}

impl FromRef<GatewayState> for TokenKeys {
    fn from_ref(state: &GatewayState) -> TokenKeys {
        state.tokens.clone()
    }
}

impl GatewayState {
    /// A state with the rate limits of `settings` (requests per minute per replica).
    pub fn new(
        pool: PgPool,
        tokens: TokenKeys,
        ledger: Upstream,
        config: &Config,
        settings: &GatewaySettings,
    ) -> Self {
        let (per_identity, per_address) = (settings.rate_per_identity, settings.rate_per_address);
        GatewayState {
            pool,
            ledger: ledger_api::LedgerClient::new(ledger, tokens.clone(), "gateway"),
            tokens,
            draws: None,
            tables: None,
            instant: None,
            ended_sessions: EndedSessions::default(),
            activity: renewal::Activity::default(),
            payments: payments::Payments::none(),
            limiter: Arc::new(RateLimiter::new(
                Quota { per_minute: per_identity, burst: per_identity.div_ceil(4).max(10) },
                Quota { per_minute: per_address, burst: per_address.div_ceil(4).max(10) },
            )),
            streams: StreamsPerAddress::new(settings.max_streams_per_address),
            sessions: renewal::SessionPolicy {
                access_ttl: config.access_token_ttl,
                idle_timeout: settings.idle_timeout,
                lifetime: settings.session_lifetime,
            },
            body_limit: config.body_limit_bytes,
            cors: settings.cors.clone(),
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
    pub fn with_payments(mut self, payments: payments::Payments) -> Self {
        self.payments = payments;
        self
    }

    /// Routes the instant service's paths to `instant`.
    #[must_use]
    pub fn with_instant(mut self, instant: Upstream) -> Self {
        self.instant = Some(instant);
        self
    }

    /// The gateway's background work: the ended sessions read every second, the sessions' last
    /// requests written every second (the idle timeout judges on them), and every 5 s the
    /// payments a webhook left settling finished ([`payments::finish_settling`]).
    pub fn spawn_workers(&self) {
        self.ended_sessions.spawn_refresher(self.pool.clone(), Duration::from_secs(1));
        self.activity.spawn_flusher(self.pool.clone(), Duration::from_secs(1));
        let state = self.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_secs(5));
            loop {
                ticker.tick().await;
                match payments::finish_settling(&state, Duration::from_secs(5)).await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(finished = n, "finished payments left settling"),
                    Err(e) => tracing::warn!(error = %e, "finishing settling payments failed; will retry"),
                }
            }
        });
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

/// Every route the gateway itself answers: the one list the router is built from, and which the
/// authorization matrix test checks it covers. Services' routes are passed through (below).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<GatewayState>)> {
    vec![
        (Method::POST, "/v1/players", post(players::register)),
        (Method::GET, "/v1/players/{id}", get(players::get_player)),
        (Method::POST, "/v1/sessions", post(sessions::login)),
        (Method::POST, "/v1/sessions/refresh", post(renewal::refresh)),
        (Method::DELETE, "/v1/sessions/current", delete(sessions::logout)),
        (Method::GET, "/v1/me", get(players::me)),
        (Method::GET, "/v1/me/wallet", get(players::wallet)),
        (Method::GET, "/v1/me/wallet/transfers", get(players::wallet_history)),
        (Method::POST, "/v1/me/deposits", post(payments::deposit)),
        (Method::POST, "/v1/me/withdrawals", post(payments::withdraw)),
        (Method::GET, "/v1/me/payments/{id}", get(payments::get_payment)),
        (Method::POST, "/v1/payments/webhook", post(payments::webhook)),
        (Method::GET, "/v1/me/deposit-limits", get(players::get_limits)),
        (Method::PUT, "/v1/me/deposit-limits", put(players::set_limit)),
        (Method::POST, "/v1/me/self-exclusion", post(players::self_exclude)),
        (Method::POST, "/v1/staff", post(admin::add_staff)),
        (Method::GET, "/v1/staff", get(admin::list_staff)),
        (Method::POST, "/v1/retailers", post(admin::add_retailer)),
        (Method::GET, "/v1/retailers", get(admin::list_retailers)),
        (Method::PATCH, "/v1/retailers/{id}", patch(admin::change_retailer)),
        (Method::POST, "/v1/retailers/{id}/terminals", post(admin::add_terminal)),
        (Method::DELETE, "/v1/terminals/{id}", delete(admin::revoke_terminal)),
        (Method::GET, "/openapi.yaml", get(openapi_yaml)),
        // The draw-games service's routes, passed through under the gateway's role rules.
        (Method::POST, "/v1/keno/tickets", post(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/tickets", get(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/tickets/{id}", get(for_readers::<DRAWS>)),
        (Method::POST, "/v1/keno/draw-tickets", post(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/draw-tickets", get(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/draw-tickets/{id}", get(for_readers::<DRAWS>)),
        (Method::GET, "/v1/keno/draws", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/draws/{number}", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/paytables", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/math", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/math", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws/next", get(for_anyone::<DRAWS>)),
        (Method::PUT, "/v1/powerball/draws/{date}/grand-prize", put(for_operators::<DRAWS>)),
        (Method::PUT, "/v1/powerball/draws/{date}/results-mode", put(for_operators::<DRAWS>)),
        (Method::POST, "/v1/powerball/draws/{date}/results", post(for_operators::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws/{date}", get(for_anyone::<DRAWS>)),
        (Method::POST, "/v1/powerball/tickets", post(for_players::<DRAWS>)),
        (Method::POST, "/v1/powerball/retail/tickets", post(for_retailers::<DRAWS>)),
        (Method::GET, "/v1/powerball/tickets/{serial}", get(for_ticket_holders::<DRAWS>)),
        (Method::POST, "/v1/powerball/retail/claims", post(for_retailers::<DRAWS>)),
        (Method::POST, "/v1/powerball/office-claims", post(for_operators::<DRAWS>)),
        (Method::GET, "/v1/draws/audit/verify", get(for_staff::<DRAWS>)),
        (Method::GET, "/v1/draws/live", get(live_stream)),
        (Method::POST, "/v1/blackjack/tables", post(for_players::<TABLES>)),
        (Method::POST, "/v1/blackjack/tables/{id}/rounds", post(for_players::<TABLES>)),
        (Method::GET, "/v1/blackjack/rounds/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/blackjack/rounds/{id}/actions", post(for_players::<TABLES>)),
        (Method::GET, "/v1/blackjack/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/blackjack/progressive", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/blackjack/math", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/tables/audit/verify", get(for_staff::<TABLES>)),
        (Method::POST, "/v1/i-luv-suits/rounds", post(for_players::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/rounds/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/i-luv-suits/rounds/{id}/decision", post(for_players::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/table", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/math", get(for_anyone::<TABLES>)),
        (Method::POST, "/v1/craps/sessions", post(for_players::<TABLES>)),
        (Method::GET, "/v1/craps/sessions/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/craps/sessions/{id}/rolls", post(for_players::<TABLES>)),
        (Method::POST, "/v1/craps/sessions/{id}/bets", post(for_players::<TABLES>)),
        (Method::GET, "/v1/craps/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/craps/math", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/tables/in-play", get(for_players::<TABLES>)),
        (Method::GET, "/v1/instant/games", get(for_anyone::<INSTANT>)),
        (Method::POST, "/v1/instant/games/{number}/print-runs", post(for_operators::<INSTANT>)),
        (Method::POST, "/v1/instant/games/{number}/vendor-runs", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/print-runs/{id}/printer-file", get(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/keys", get(for_anyone::<INSTANT>)),
        (Method::GET, "/v1/instant/print-jobs", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/print-jobs/{id}", get(for_staff::<INSTANT>)),
        (Method::POST, "/v1/instant/print-jobs/{id}/cancel", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/packs", get(for_counter_readers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/ship", post(ship_pack)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/receive", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/activate", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/settle", post(for_pack_holders::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/return", post(for_operators::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/stolen", post(for_pack_holders::<INSTANT>)),
        (Method::POST, "/v1/instant/validations", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/claims", post(for_retailers::<INSTANT>)),
        (Method::GET, "/v1/instant/claims", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/receipts/{id}", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/retailers/{id}/statement", get(for_counter_readers::<INSTANT>)),
        (Method::POST, "/v1/instant/office-claims", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/office-claims", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/liability", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/validations/by-retailer", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/reports/unusual-validations", get(for_staff::<INSTANT>)),
    ]
}

/// The public API contract, as committed at the repository's root. A test generates it from the
/// code ([`openapi_document`]) and fails when the two differ, so what is served is what runs.
pub const OPENAPI_YAML: &str = include_str!("../../../openapi.yaml");

async fn openapi_yaml() -> impl IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}

/// The gateway's own routes, for the API description.
#[derive(Debug, utoipa::OpenApi)]
#[openapi(
    paths(
        players::register, players::get_player, sessions::login, renewal::refresh, sessions::logout, players::me,
        players::wallet, players::wallet_history, payments::deposit, payments::withdraw,
        payments::get_payment, payments::webhook, players::get_limits, players::set_limit,
        players::self_exclude, admin::add_staff, admin::list_staff, admin::add_retailer, admin::list_retailers,
        admin::change_retailer,
        admin::add_terminal, admin::revoke_terminal,
    ),
    components(schemas(platform::Problem), responses(platform::openapi::Refused)),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Registration, the player's own wallet, deposits and withdrawals"),
        (name = "sessions", description = "Logging in (players, staff, terminals) and out"),
        (name = "responsible gaming", description = "Deposit limits and self-exclusion"),
        (name = "administration", description = "Staff, retailers and terminal keys (operators)"),
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
    doc.info = utoipa::openapi::InfoBuilder::new()
        .title("lotto platform API")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some(
            "The public API of the lottery and casino platform, served by the gateway. Amounts are \
             integer minor units with a currency; every error is application/problem+json with a \
             stable `code`; every POST that moves money takes an idempotency key.",
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
            .route(prefix, any(pass_to_ledger))
            .route(&format!("{prefix}/{{*rest}}"), any(pass_to_ledger));
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

/// The game services the gateway routes to, as const parameters of the handlers below.
const DRAWS: u8 = 0;
const TABLES: u8 = 1;
const INSTANT: u8 = 2;

/// Passes a request to game service `S`.
async fn to_service<const S: u8>(state: &GatewayState, request: Request) -> Response {
    let (upstream, name) = match S {
        DRAWS => (&state.draws, "draw-games"),
        TABLES => (&state.tables, "table-games"),
        _ => (&state.instant, "instant"),
    };
    match upstream {
        Some(service) => service.forward(request, state.body_limit).await,
        None => AppError::unavailable(format!("the {name} service is not configured here")).into_response(),
    }
}

/// Playing, and listing one's own tickets or rounds: players.
async fn for_players<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player])?;
    Ok(to_service::<S>(&state, request).await)
}

/// One ticket or round: its player (the service checks it is theirs), staff and services.
async fn for_readers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A ticket read by its serial: its online player, the retailer whose terminal sold it (the
/// service checks either), staff and services.
async fn for_ticket_holders<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Player, Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A retailer's records (packs, receipts, statement): its own terminals (the service keeps each
/// to its own retailer's), staff and services.
async fn for_counter_readers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer, Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// Draws, pay tables, meters and the math: public.
async fn for_anyone<const S: u8>(State(state): State<GatewayState>, request: Request) -> Response {
    to_service::<S>(&state, request).await
}

/// Live results: public, at most `LOTTO_MAX_STREAMS_PER_ADDRESS` streams open from one client
/// address (429 `too_many_streams` beyond), each counted until its answer's body is dropped,
/// which is when the client goes or the stream ends.
async fn live_stream(State(state): State<GatewayState>, request: Request) -> Response {
    let permit = match rate_limit::client_address(&request) {
        Some(address) => match state.streams.open(address) {
            Some(permit) => Some(permit),
            None => {
                return AppError::new(
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    "too_many_streams",
                    format!(
                        "this address has {} live streams open, the most it may; close one first",
                        state.streams.per_address
                    ),
                )
                .with_header(axum::http::header::RETRY_AFTER, axum::http::HeaderValue::from_static("15"))
                .into_response();
            }
        },
        // Not over a socket (a test's in-process call): nothing to count by.
        None => None,
    };
    let response = to_service::<DRAWS>(&state, request).await;
    response.map(|body| {
        axum::body::Body::new(http_body_util::BodyExt::map_frame(body, move |frame| {
            let _held = &permit;
            frame
        }))
    })
}

/// Running the games (print runs): operators.
async fn for_operators<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A pack shipped: operators, to a retailer that exists (retailers are the gateway's).
async fn ship_pack(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator])?;
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, state.body_limit).await.map_err(|_| {
        AppError::new(axum::http::StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", "the body is too large")
    })?;
    // A body that is not an assignment is the service's to refuse, with its own problem.
    if let Some(retailer) = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|body| body.get("retailer_id").and_then(|r| r.as_str()).map(str::to_owned))
    {
        let known = match retailer.parse::<uuid::Uuid>() {
            Ok(id) => store::staff::retailer_exists(&state.pool, id).await?,
            Err(_) => false,
        };
        if !known {
            return Err(AppError::unprocessable("retailer_not_found", "no retailer has that id"));
        }
    }
    let request = Request::from_parts(parts, axum::body::Body::from(bytes));
    Ok(to_service::<INSTANT>(&state, request).await)
}

/// The counter (packs, validation): retailers' terminals.
async fn for_retailers<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer])?;
    Ok(to_service::<S>(&state, request).await)
}

/// A pack's settlement: its retailer's terminal (the service checks it is theirs) or operators.
async fn for_pack_holders<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Retailer, Role::Operator])?;
    Ok(to_service::<S>(&state, request).await)
}

/// The audit chains and the operators' reports: operators, auditors and services.
async fn for_staff<const S: u8>(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(&[Role::Operator, Role::Auditor, Role::Service])?;
    Ok(to_service::<S>(&state, request).await)
}

/// Passes a request to the ledger once its caller is known and allowed there.
async fn pass_to_ledger(
    State(state): State<GatewayState>,
    caller: Authenticated,
    request: Request,
) -> Result<Response, AppError> {
    caller.require(LEDGER_ROLES)?;
    Ok(state.ledger.upstream().forward(request, state.body_limit).await.into_response())
}
