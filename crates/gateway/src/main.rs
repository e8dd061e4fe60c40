//! The gateway alone, as production runs it: `DATABASE_URL`, `LOTTO_TOKEN_SECRET` and
//! `LOTTO_LEDGER_URL` (the ledger's base URL) are required; `LOTTO_DRAWS_URL` names draw-games
//! `LOTTO_TABLES_URL` table-games and `LOTTO_INSTANT_URL` instant; `LOTTO_PAYMENTS_URL` the
//! payment provider, whose webhooks are signed with `LOTTO_PAYMENTS_WEBHOOK_SECRET`;
//! `LOTTO_IDENTITY_URL` the identity provider (see [`identity_from_env`]), required while
//! `LOTTO_IDENTITY_REQUIRED` is (its default): no money moves before a player is verified;
//! `LOTTO_LOCATION_URL` the geolocation provider (presented `LOTTO_LOCATION_API_KEY`), required
//! while `LOTTO_LOCATION_REQUIRED` is: no online stake without a location check.

use anyhow::Context;
use platform::config::Config;
use std::time::Duration;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("gateway");
    let config = Config::from_env()?;
    let settings = gateway::GatewaySettings::from_env()?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run the gateway alone")?;
    let ledger_url = std::env::var("LOTTO_LEDGER_URL").context("LOTTO_LEDGER_URL must name the ledger")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = gateway::connect(&url, &config.alone(0)?).await?;
    let instance = platform::events::lifecycle::run(&pool, gateway::SCHEMA, &config);
    let gauged = pool.clone();
    let ledger = platform::upstream::Upstream::remote("ledger", &ledger_url, config.request_timeout)?;
    let mut state = gateway::GatewayState::new(pool.clone(), tokens, ledger, &config, &settings);
    let remote = |name, url: &str| platform::upstream::Upstream::remote(name, url, config.request_timeout);
    if let Ok(url) = std::env::var("LOTTO_DRAWS_URL") {
        state = state.with_draws(remote("draw-games", &url)?);
    }
    if let Ok(url) = std::env::var("LOTTO_TABLES_URL") {
        state = state.with_tables(remote("table-games", &url)?);
    }
    if let Ok(url) = std::env::var("LOTTO_INSTANT_URL") {
        state = state.with_instant(remote("instant", &url)?);
    }
    if let Ok(url) = std::env::var("LOTTO_PAYMENTS_URL") {
        let secret = std::env::var("LOTTO_PAYMENTS_WEBHOOK_SECRET")
            .context("LOTTO_PAYMENTS_WEBHOOK_SECRET must be set with LOTTO_PAYMENTS_URL")?;
        let provider = remote("payments", &url)?;
        let secret = platform::webhook::WebhookSecret::new(platform::config::checked_secret(
            "LOTTO_PAYMENTS_WEBHOOK_SECRET",
            &secret,
        )?);
        state = state.with_payments(gateway::Payments::with_provider(provider, secret, &settings.payments));
    }
    match identity_from_env(&config)? {
        Some(identity) => state = state.with_identity(identity.requiring(settings.identity_required)),
        None if settings.identity_required => anyhow::bail!(
            "LOTTO_IDENTITY_URL must name the identity provider: no deposit and no stake is taken \
             before a player is verified (LOTTO_IDENTITY_REQUIRED=false turns the check off)"
        ),
        None => {}
    }
    match location_from_env(&config, &settings)? {
        Some(location) => state = state.with_location(location),
        None if settings.location_required => anyhow::bail!(
            "LOTTO_LOCATION_URL must name the geolocation provider: no online stake is taken without a \
             location check (LOTTO_LOCATION_REQUIRED=false turns the check off)"
        ),
        None => {}
    }
    state.spawn_workers();
    let app = gateway::router(state, (&config).into());
    platform::metrics::spawn_resource_gauges(vec![(gateway::SCHEMA, gauged)], Duration::from_secs(5));
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "gateway listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}

/// The identity provider at `LOTTO_IDENTITY_URL`, if one is named: its webhooks signed with
/// `LOTTO_IDENTITY_WEBHOOK_SECRET` (or, during a rotation, `LOTTO_IDENTITY_WEBHOOK_SECRET_PREVIOUS`),
/// the gateway presenting `LOTTO_IDENTITY_API_KEY` (`sandbox` by default), the player files'
/// sensitive parts sealed with `LOTTO_IDENTITY_KEY`.
fn identity_from_env(config: &Config) -> anyhow::Result<Option<gateway::Identity>> {
    let Ok(url) = std::env::var("LOTTO_IDENTITY_URL") else {
        return Ok(None);
    };
    let secret = |name: &'static str| -> anyhow::Result<Option<platform::webhook::WebhookSecret>> {
        match std::env::var(name) {
            Ok(value) if !value.is_empty() => Ok(Some(platform::webhook::WebhookSecret::new(
                platform::config::checked_secret(name, &value)?,
            ))),
            _ => Ok(None),
        }
    };
    let current = secret("LOTTO_IDENTITY_WEBHOOK_SECRET")?
        .context("LOTTO_IDENTITY_WEBHOOK_SECRET must be set with LOTTO_IDENTITY_URL")?;
    let secrets = std::iter::once(current).chain(secret("LOTTO_IDENTITY_WEBHOOK_SECRET_PREVIOUS")?).collect();
    let key = std::env::var("LOTTO_IDENTITY_KEY")
        .context("LOTTO_IDENTITY_KEY must be set with LOTTO_IDENTITY_URL")?;
    let key = platform::config::Secret::new(platform::config::checked_secret("LOTTO_IDENTITY_KEY", &key)?);
    let api_key = std::env::var("LOTTO_IDENTITY_API_KEY").unwrap_or_else(|_| "sandbox".to_owned());
    let provider = platform::upstream::Upstream::remote("identity", &url, config.request_timeout)?;
    Ok(Some(gateway::Identity::with_provider(provider, &api_key, secrets, key)))
}

/// The geolocation provider at `LOTTO_LOCATION_URL`, if one is named, the gateway presenting
/// `LOTTO_LOCATION_API_KEY` (`sandbox` by default).
fn location_from_env(
    config: &Config,
    settings: &gateway::GatewaySettings,
) -> anyhow::Result<Option<gateway::Location>> {
    let Ok(url) = std::env::var("LOTTO_LOCATION_URL") else {
        return Ok(None);
    };
    let provider = platform::upstream::Upstream::remote("location", &url, config.request_timeout)?;
    let api_key = std::env::var("LOTTO_LOCATION_API_KEY").unwrap_or_else(|_| "sandbox".to_owned());
    Ok(Some(gateway::Location::with_provider(provider, &api_key, settings)))
}
