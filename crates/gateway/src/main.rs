//! The gateway alone, as production runs it: `DATABASE_URL`, `LOTTO_TOKEN_SECRET` and
//! `LOTTO_LEDGER_URL` (the ledger's base URL) are required; `LOTTO_DRAWS_URL` names draw-games
//! `LOTTO_TABLES_URL` table-games and `LOTTO_INSTANT_URL` instant; `LOTTO_PAYMENTS_URL` the
//! payment provider, whose webhooks are signed with `LOTTO_PAYMENTS_WEBHOOK_SECRET`.

use anyhow::Context;
use platform::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing();
    let config = Config::from_env()?;
    let settings = gateway::GatewaySettings::from_env()?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run the gateway alone")?;
    let ledger_url = std::env::var("LOTTO_LEDGER_URL").context("LOTTO_LEDGER_URL must name the ledger")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = gateway::connect(&url, &config.alone(0)?).await?;
    let gauged = pool.clone();
    let ledger = platform::upstream::Upstream::remote("ledger", &ledger_url, config.request_timeout)?;
    let mut state = gateway::GatewayState::new(pool.clone(), tokens, ledger, &config, &settings);
    if let Ok(url) = std::env::var("LOTTO_DRAWS_URL") {
        state = state.with_draws(platform::upstream::Upstream::remote(
            "draw-games",
            &url,
            config.request_timeout,
        )?);
    }
    if let Ok(url) = std::env::var("LOTTO_TABLES_URL") {
        state = state.with_tables(platform::upstream::Upstream::remote(
            "table-games",
            &url,
            config.request_timeout,
        )?);
    }
    if let Ok(url) = std::env::var("LOTTO_INSTANT_URL") {
        state = state.with_instant(platform::upstream::Upstream::remote(
            "instant",
            &url,
            config.request_timeout,
        )?);
    }
    if let Ok(url) = std::env::var("LOTTO_PAYMENTS_URL") {
        let secret = std::env::var("LOTTO_PAYMENTS_WEBHOOK_SECRET")
            .context("LOTTO_PAYMENTS_WEBHOOK_SECRET must be set with LOTTO_PAYMENTS_URL")?;
        let provider = platform::upstream::Upstream::remote("payments", &url, config.request_timeout)?;
        let secret = platform::webhook::WebhookSecret::new(platform::config::checked_secret(
            "LOTTO_PAYMENTS_WEBHOOK_SECRET",
            &secret,
        )?);
        state = state.with_payments(gateway::Payments::with_provider(provider, secret, &settings.payments));
    }
    state.spawn_workers();
    let app = gateway::router(state, (&config).into());
    platform::http::spawn_pool_gauges(vec![(gateway::SCHEMA, gauged)], std::time::Duration::from_secs(5));
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "gateway listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    Ok(())
}
