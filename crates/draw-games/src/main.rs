//! The draw-games service alone: `DATABASE_URL`, `LOTTO_TOKEN_SECRET` and `LOTTO_LEDGER_URL`.

use anyhow::Context;
use platform::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("draw-games");
    let config = Config::from_env()?;
    let settings = draw_games::DrawSettings::from_env()?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run draw-games alone")?;
    let ledger_url = std::env::var("LOTTO_LEDGER_URL").context("LOTTO_LEDGER_URL must name the ledger")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = draw_games::connect(&url, &config.alone(draw_games::HELD_APART)?).await?;
    // Its start, and its stop, in the significant-events log; and its share of chaining it.
    let instance = platform::events::lifecycle::run(&pool, draw_games::SCHEMA, &config);
    let gauged = pool.clone();
    let ledger = platform::upstream::Upstream::remote("ledger", &ledger_url, config.request_timeout)?;
    let state = draw_games::DrawsState::start(pool, tokens, settings, ledger).await?;
    draw_games::spawn_workers(state.clone());
    let app = draw_games::router(state, (&config).into());
    platform::metrics::spawn_resource_gauges(
        vec![(draw_games::SCHEMA, gauged)],
        std::time::Duration::from_secs(5),
    );
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "draw-games listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}
