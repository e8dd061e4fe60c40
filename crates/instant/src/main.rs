//! The instant service alone: `DATABASE_URL`, `LOTTO_TOKEN_SECRET`, `LOTTO_VIRN_KEY`,
//! `LOTTO_SIGNING_KEY` and `LOTTO_LEDGER_URL` (and the settings of `instant::config`).

use anyhow::Context;
use platform::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("instant");
    let config = Config::from_env()?;
    // In production the keys must outlive the process (tickets are validated long after
    // printing) and be every replica's: they are given, never made here.
    let settings = instant::InstantSettings::from_env(&platform::secrets::KeptSecrets::service_from_env()?)?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run instant alone")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = instant::connect(&url, &config.alone(instant::HELD_APART)?).await?;
    // Its start, and its stop, in the significant-events log; and its share of chaining it.
    let instance = platform::events::lifecycle::run(&pool, instant::SCHEMA, &config);
    let gauged = pool.clone();
    let games = instant::games::carried().context("a game definition is malformed")?;
    let ledger_url = std::env::var("LOTTO_LEDGER_URL").context("LOTTO_LEDGER_URL must name the ledger")?;
    let ledger = platform::upstream::Upstream::remote("ledger", &ledger_url, config.request_timeout)?;
    let state = instant::InstantState::start(pool, tokens, games, settings, ledger).await?;
    instant::spawn_workers(state.clone());
    let app = instant::router(state, (&config).into());
    platform::metrics::spawn_resource_gauges(
        vec![(instant::SCHEMA, gauged)],
        std::time::Duration::from_secs(5),
    );
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "instant listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}
