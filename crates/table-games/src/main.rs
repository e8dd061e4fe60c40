//! The table-games service alone: `DATABASE_URL`, `LOTTO_TOKEN_SECRET` and `LOTTO_LEDGER_URL`.

use anyhow::Context;
use platform::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("table-games");
    let config = Config::from_env()?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run table-games alone")?;
    let ledger_url = std::env::var("LOTTO_LEDGER_URL").context("LOTTO_LEDGER_URL must name the ledger")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = table_games::connect(&url, &config.alone(table_games::HELD_APART)?).await?;
    // Its start, and its stop, in the significant-events log; and its share of chaining it.
    let instance = platform::events::lifecycle::run(&pool, table_games::SCHEMA, &config);
    let gauged = pool.clone();
    let ledger = platform::upstream::Upstream::remote("ledger", &ledger_url, config.request_timeout)?;
    let state =
        table_games::TablesState::start(pool, tokens, table_games::TableSettings::from_env()?, ledger)
            .await?;
    table_games::spawn_recovery(state.clone(), std::time::Duration::from_secs(5));
    let writers = state.kit.writers_pool().clone();
    let app = table_games::router(state, (&config).into());
    platform::metrics::spawn_resource_gauges(
        vec![(table_games::SCHEMA, gauged), ("tables/writers", writers)],
        std::time::Duration::from_secs(5),
    );
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "table-games listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}
