//! The whole platform assembled in one process: every service started on one database, each
//! mounted behind the gateway and called without a socket (`platform::upstream::Upstream::local`).
//!
//! This is the one place the services are wired together. `lotto` runs it with the settings of
//! the environment; the tests and benchmarks of every crate run it with [`Options::for_tests`]
//! (or change a field of it), so a service added to the platform is added here once and every
//! harness has it.

use std::time::Duration;

use anyhow::Context;
use axum::Router;
use domain::instant::{GameDefinition, Report};
use draw_games::DrawsState;
use gateway::GatewayState;
use gateway::Payments;
use gateway::sandbox::Sandbox;
use instant::{InstantSettings, InstantState};
use platform::auth::TokenKeys;
use platform::config::{Config, Secret};
use platform::http::Readiness;
use platform::secrets::KeptSecrets;
use platform::upstream::Upstream;
use platform::webhook::WebhookSecret;
use sqlx::PgPool;
use table_games::TablesState;

/// What the platform is assembled with.
#[derive(Debug, Clone)]
pub struct Options {
    pub config: Config,
    pub tokens: TokenKeys,
    /// The instant games to run (the carried definitions, or a scaled copy for tests).
    pub instant_games: Vec<(GameDefinition, Report)>,
    pub instant: InstantSettings,
    /// Castle Keno's and Powerball's settings.
    pub draws: draw_games::DrawSettings,
    /// The table games' posted limits.
    pub tables: table_games::TableSettings,
    /// When gaming days end and the ledger makes their reports.
    pub reports: ledger::ReportSettings,
    pub gateway: gateway::GatewaySettings,
    /// What the sandbox payment provider signs its webhooks with.
    pub webhook_secret: WebhookSecret,
    /// How long the sandbox waits before confirming a payment.
    pub sandbox_delay: Duration,
    /// What the sandbox identity provider signs its webhooks with.
    pub identity_secret: WebhookSecret,
    /// The key the player file's sensitive parts are sealed with.
    pub identity_key: Secret,
}

/// The VIRN key of every test and benchmark: tests replay seeded print runs, so the key is fixed.
pub const TEST_VIRN_KEY: &[u8] = b"a test key of thirty-two bytes!!";

/// The webhook secret of every test's sandbox provider.
pub const TEST_WEBHOOK_SECRET: &str = "the sandbox provider's test secret, 32+ bytes";

/// The identity webhook secret of every test's sandbox provider.
pub const TEST_IDENTITY_WEBHOOK_SECRET: &str = "the sandbox identity provider's test secret";

impl Options {
    /// Tests and benchmarks: default settings but no identity gate, random token keys, the instant games scaled to
    /// pools of 3,000 tickets (a hundredth of the winners) so a print run is quick, a fixed VIRN
    /// key, a sandbox provider that confirms at once, and Powerball sold online too.
    pub fn for_tests() -> anyhow::Result<Options> {
        Ok(Options {
            config: Config::default(),
            tokens: TokenKeys::random(),
            instant_games: instant::games::carried_scaled(3_000, 100)?,
            instant: InstantSettings::with_key(Secret::new(TEST_VIRN_KEY.to_vec())),
            draws: draw_games::DrawSettings {
                keno: draw_games::KenoSettings::default(),
                // Tests sell online, and write each run's exports where nothing else does.
                powerball: draw_games::PowerballSettings {
                    online_sales: true,
                    export_dir: platform::config::scratch_dir("powerball"),
                    ..draw_games::PowerballSettings::default()
                },
                clock_offset_seconds: 0,
                max_streams: draw_games::config::DEFAULT_MAX_STREAMS,
            },
            tables: table_games::TableSettings::default(),
            reports: ledger::ReportSettings::default(),
            // The in-process tests of the games, limits and payments play with players nobody
            // verified or located; the identity and location tests ask for the gates (as
            // `lotto`'s defaults have them), and every test that starts `lotto` or a gateway
            // process verifies and locates its players.
            gateway: gateway::GatewaySettings {
                identity_required: false,
                location_required: false,
                ..gateway::GatewaySettings::default()
            },
            webhook_secret: WebhookSecret::new(TEST_WEBHOOK_SECRET),
            sandbox_delay: Duration::ZERO,
            identity_secret: WebhookSecret::new(TEST_IDENTITY_WEBHOOK_SECRET),
            identity_key: Secret::new(b"the player files' test key".to_vec()),
        })
    }

    /// The same with the games' full print runs (benchmarks measure those).
    pub fn with_full_games(mut self) -> anyhow::Result<Options> {
        self.instant_games = instant::games::carried()?;
        Ok(self)
    }

    /// `lotto`: the settings of the environment, each service's read once here, at start; the
    /// secrets it does not give come from `kept` (made once, then the same at every start).
    pub fn from_env(config: Config, kept: &KeptSecrets) -> anyhow::Result<Options> {
        // `lotto` runs the sandbox providers in its process: never a production's.
        if std::env::var("LOTTO_ENVIRONMENT").is_ok_and(|e| e.trim().eq_ignore_ascii_case("production")) {
            anyhow::bail!(
                "LOTTO_ENVIRONMENT=production: `lotto` runs the sandbox payment and identity providers, which \
                 approve on request; run the services apart (deploy/) with the real providers configured"
            );
        }
        let tokens = TokenKeys::from_secret(kept.secret("LOTTO_TOKEN_SECRET", "token-secret")?.expose())
            .map_err(|reason| anyhow::anyhow!("LOTTO_TOKEN_SECRET: {reason}"))?;
        let webhook_secret = WebhookSecret::new(
            kept.secret("LOTTO_PAYMENTS_WEBHOOK_SECRET", "payments-webhook-secret")?.expose().to_vec(),
        );
        let identity_secret = WebhookSecret::new(
            kept.secret("LOTTO_IDENTITY_WEBHOOK_SECRET", "identity-webhook-secret")?.expose().to_vec(),
        );
        let identity_key = kept.secret("LOTTO_IDENTITY_KEY", "identity-key")?;
        // A demonstration's smaller runs: pools of 300,000 tickets become a `scale`-th of that,
        // each prize row a `scale`-th of its winners (at least one).
        let scale: u64 = platform::config::env_or("LOTTO_INSTANT_SCALE", 1u64)?;
        let instant_games = match scale {
            1 => instant::games::carried(),
            10 | 100 | 1_000 => instant::games::carried_scaled(300_000 / scale, scale),
            _ => anyhow::bail!("LOTTO_INSTANT_SCALE is 1 (the games as ordered), 10, 100 or 1000"),
        }
        .context("a carried instant game is malformed")?;
        Ok(Options {
            instant_games,
            instant: InstantSettings::from_env(kept)?,
            draws: draw_games::DrawSettings::from_env()?,
            tables: table_games::TableSettings::from_env()?,
            reports: ledger::ReportSettings::from_env()?,
            gateway: {
                // `lotto` is local mode: a front end's dev server on this machine may call it.
                let mut gateway = gateway::GatewaySettings::from_env()?;
                if std::env::var_os("LOTTO_CORS_ORIGINS").is_none() {
                    gateway.cors = gateway::cors::CorsOrigins::Local;
                }
                gateway
            },
            webhook_secret,
            sandbox_delay: Duration::from_millis(platform::config::env_or(
                "LOTTO_SANDBOX_DELAY_MS",
                1_000u64,
            )?),
            identity_secret,
            identity_key,
            config,
            tokens,
        })
    }
}

/// How the process's connection budget is shared among the pools, in the order ledger,
/// draw-games, table-games, instant, gateway (after the connections they hold apart; the table
/// games write through their ten writers, so their pool mostly reads): of the default 24, 4, 3,
/// 2, 2 and 1.
pub const POOL_WEIGHTS: [u32; 5] = [4, 3, 2, 2, 2];

/// Every service of the platform, started on one database.
#[derive(Debug, Clone)]
pub struct Assembly {
    /// The database every service's schema lives in.
    pub url: String,
    pub config: Config,
    pub tokens: TokenKeys,
    pub ledger_pool: PgPool,
    /// The ledger's API, as the other services call it.
    pub ledger: Router,
    pub draws: DrawsState,
    pub tables: TablesState,
    pub instant: InstantState,
    /// The gateway, with every service and the sandbox payment provider behind it.
    pub gateway: GatewayState,
    /// The sandbox payment provider; [`Assembly::gateway_router`] points its webhooks back.
    pub sandbox: Sandbox,
    /// When gaming days end and the ledger makes their reports.
    pub reports: ledger::ReportSettings,
}

impl Assembly {
    /// Connects and migrates every service's schema on `url`, opens their ledger accounts and
    /// mounts them behind the gateway.
    pub async fn start(url: &str, options: Options) -> anyhow::Result<Assembly> {
        let Options {
            config,
            tokens,
            instant_games,
            instant,
            draws: draw_settings,
            tables: table_settings,
            reports,
            gateway: gateway_settings,
            webhook_secret,
            sandbox_delay,
            identity_secret,
            identity_key,
        } = options;
        // One budget for the whole process: what the services hold apart from their pools
        // first, the rest shared by weight (the ledger takes part in every money move).
        platform::db::check_budget(url, config.db_max_connections).await?;
        let held_apart = table_games::HELD_APART + draw_games::HELD_APART + instant::HELD_APART;
        let shares = platform::db::split_budget(config.db_max_connections, held_apart, &POOL_WEIGHTS)
            .map_err(|reason| anyhow::anyhow!("LOTTO_DB_MAX_CONNECTIONS: {reason}"))?;
        let share = |i: usize| config.with_pool(shares.get(i).copied().unwrap_or(1));
        let ledger_pool = ledger::connect(url, &share(0)).await.context("starting the ledger")?;
        let ledger = ledger::api_routes(
            ledger::LedgerState::new(ledger_pool.clone(), tokens.clone()).with_reports(reports.clone()),
        );
        let ledger_upstream = || Upstream::local("ledger", ledger.clone());
        let draws_pool = draw_games::connect(url, &share(1)).await.context("starting draw-games")?;
        let draws = DrawsState::start(draws_pool, tokens.clone(), draw_settings, ledger_upstream())
            .await
            .context("opening the draw games' ledger accounts")?;
        let tables_pool = table_games::connect(url, &share(2)).await.context("starting table-games")?;
        let tables = TablesState::start(tables_pool, tokens.clone(), table_settings, ledger_upstream())
            .await
            .context("opening the table games' ledger accounts")?;
        let instant_pool = instant::connect(url, &share(3)).await.context("starting instant")?;
        let instant =
            InstantState::start(instant_pool, tokens.clone(), instant_games, instant, ledger_upstream())
                .await
                .context("opening the instant games' ledger accounts")?;
        let gateway_pool = gateway::connect(url, &share(4)).await.context("starting the gateway")?;
        let (sandbox, payments, identity, location) = sandbox_providers(
            webhook_secret,
            sandbox_delay,
            identity_secret,
            identity_key,
            &gateway_settings,
        );
        let gateway =
            GatewayState::new(gateway_pool, tokens.clone(), ledger_upstream(), &config, &gateway_settings)
                .with_draws(Upstream::local("draw-games", draw_games::api_routes(draws.clone())))
                .with_tables(Upstream::local("table-games", table_games::api_routes(tables.clone())))
                .with_instant(Upstream::local("instant", instant::api_routes(instant.clone())))
                .with_payments(payments)
                .with_identity(identity)
                .with_location(location);
        Ok(Assembly {
            url: url.to_owned(),
            config,
            tokens,
            ledger_pool,
            ledger,
            draws,
            tables,
            instant,
            gateway,
            sandbox,
            reports,
        })
    }

    /// On a fresh test database (`platform::testing::fresh_database`).
    #[cfg(feature = "testing")]
    pub async fn for_tests(options: Options) -> anyhow::Result<Assembly> {
        platform::telemetry::init_tracing_or("lotto", "warn");
        let url = platform::testing::fresh_database().await?;
        Assembly::start(&url, options).await
    }

    /// The ledger as a service calls it.
    pub fn ledger_upstream(&self) -> Upstream {
        Upstream::local("ledger", self.ledger.clone())
    }

    /// The gateway's API for `state` (the assembled one, or a test's changed copy), with the
    /// sandbox's webhooks delivered to it.
    pub fn gateway_routes(&self, state: GatewayState) -> Router {
        let api = gateway::api_routes(state);
        self.sandbox.deliver_to(Upstream::local("gateway", api.clone()));
        // The sandbox identity provider's hosted pages, where players' browsers open them.
        api.merge(self.sandbox.hosted_pages())
    }

    /// Every pool of the process, by name, for the gauges of its connections.
    pub fn pools(&self) -> Vec<(&'static str, PgPool)> {
        vec![
            (gateway::SCHEMA, self.gateway.pool.clone()),
            (ledger::SCHEMA, self.ledger_pool.clone()),
            (draw_games::SCHEMA, self.draws.pool.clone()),
            (table_games::SCHEMA, self.tables.pool.clone()),
            ("tables/writers", self.tables.kit.writers_pool().clone()),
            (instant::SCHEMA, self.instant.pool.clone()),
        ]
    }

    /// Every service's database, for `/readyz`.
    pub fn readiness(&self) -> Readiness {
        Readiness::default()
            .with_pool(gateway::SCHEMA, self.gateway.pool.clone())
            .with_pool(ledger::SCHEMA, self.ledger_pool.clone())
            .with_pool(draw_games::SCHEMA, self.draws.pool.clone())
            .with_pool(table_games::SCHEMA, self.tables.pool.clone())
            .with_pool(instant::SCHEMA, self.instant.pool.clone())
    }

    /// Every service's background work: the ledger's hold sweeper, report maker and books' gauge, the draw scheduler and
    /// recoveries, the instant workers, the blackjack recovery, the gateway's session workers.
    pub fn spawn_workers(&self) {
        ledger::spawn_hold_sweeper(self.ledger_pool.clone(), self.config.hold_sweep_interval);
        ledger::spawn_report_maker(self.ledger_pool.clone(), self.reports.clone());
        ledger::spawn_imbalance_gauge(self.ledger_pool.clone(), Duration::from_secs(60));
        draw_games::spawn_workers(self.draws.clone());
        instant::spawn_workers(self.instant.clone());
        table_games::spawn_recovery(self.tables.clone(), Duration::from_secs(5));
        self.gateway.spawn_workers();
        platform::metrics::spawn_resource_gauges(self.pools(), Duration::from_secs(5));
    }
}

/// The sandbox providers `lotto` runs in its process: payments (each confirmed after `delay`
/// through the gateway's signed webhook), identity (its hosted pages where players open them,
/// at the gateway's public address) and geolocation, and the gateway's settings for each.
fn sandbox_providers(
    webhook_secret: WebhookSecret,
    delay: Duration,
    identity_secret: WebhookSecret,
    identity_key: Secret,
    settings: &gateway::GatewaySettings,
) -> (Sandbox, Payments, gateway::Identity, gateway::Location) {
    let sandbox = Sandbox::new(webhook_secret.clone(), delay)
        .with_identity(identity_secret.clone(), &settings.mail.site);
    let payments = Payments::with_provider(
        Upstream::local("payments", sandbox.router()),
        webhook_secret,
        &settings.payments,
    );
    let identity = gateway::Identity::with_provider(
        Upstream::local("identity", sandbox.router()),
        "sandbox",
        vec![identity_secret],
        identity_key,
    )
    .requiring(settings.identity_required);
    let location =
        gateway::Location::with_provider(Upstream::local("location", sandbox.router()), "sandbox", settings);
    (sandbox, payments, identity, location)
}
