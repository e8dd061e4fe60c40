//! The ledger alone, as production runs it: `DATABASE_URL` is required.

use anyhow::Context;
use platform::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    platform::telemetry::init_tracing("ledger");
    let config = Config::from_env()?;
    let url = config.database_url.clone().context("DATABASE_URL must be set to run the ledger alone")?;
    let tokens = config.token_keys()?;
    platform::db::check_budget(&url, config.db_max_connections).await?;
    let pool = ledger::connect(&url, &config.alone(0)?).await?;
    // Its start, and its stop, in the significant-events log; and its share of chaining it.
    let instance = platform::events::lifecycle::run(&pool, ledger::SCHEMA, &config);
    let gauged = pool.clone();
    ledger::spawn_hold_sweeper(pool.clone(), config.hold_sweep_interval);
    let reports = ledger::ReportSettings::from_env()?;
    ledger::spawn_report_maker(pool.clone(), reports.clone());
    ledger::spawn_imbalance_gauge(pool.clone(), std::time::Duration::from_secs(60));
    let app = ledger::router(ledger::LedgerState::new(pool, tokens).with_reports(reports), (&config).into());
    platform::metrics::spawn_resource_gauges(
        vec![(ledger::SCHEMA, gauged)],
        std::time::Duration::from_secs(5),
    );
    platform::http::spawn_metrics(&config).await?;
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(addr = %listener.local_addr()?, "ledger listening");
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    instance.stopped().await?;
    platform::telemetry::traces::shutdown();
    Ok(())
}
