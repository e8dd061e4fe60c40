//! `lotto`: the whole platform in one process, on a Postgres it finds or starts itself.
//!
//! `cargo run --release` (this is the workspace's default binary) starts every service that
//! exists, mounted on one HTTP listener, and prints where it listens. Production runs each
//! service's own binary instead; this is the embedded default (DESIGN §1).

mod postgres;

use anyhow::Context;
use platform::auth::TokenKeys;
use platform::config::Config;
use platform::http::Readiness;

const USAGE: &str = "usage: lotto [serve]

Runs every service of the platform in one process.
Configuration is by environment variable; see README.md (Configuration).";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] | ["serve"] => serve().await,
        ["help" | "--help" | "-h"] => {
            say(USAGE);
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

/// The banner goes to stdout, where a user (or a test) reads where to connect.
#[allow(clippy::print_stdout)]
fn say(line: &str) {
    println!("{line}");
}

async fn serve() -> anyhow::Result<()> {
    platform::telemetry::init_tracing();
    let config = Config::from_env()?;
    let database = postgres::locate(config.database_url.as_deref()).await?;
    let result = run_services(&config, &database).await;
    if let Some(cluster) = &database.private {
        cluster.stop();
    }
    result
}

async fn run_services(config: &Config, database: &postgres::Database) -> anyhow::Result<()> {
    let ledger_pool = ledger::connect(&database.url, config).await.context("starting the ledger")?;
    ledger::holds::spawn_hold_sweeper(ledger_pool.clone(), config.hold_sweep_interval);

    let tokens = match config.token_secret {
        Some(_) => config.token_keys()?,
        None => {
            tracing::warn!(
                "LOTTO_TOKEN_SECRET is not set: tokens are signed with a random key and die with this process"
            );
            TokenKeys::random()
        }
    };
    let api = ledger::api_routes(ledger::LedgerState { pool: ledger_pool.clone(), tokens });
    let readiness = Readiness::default().with_pool(ledger::SCHEMA, ledger_pool);
    let app = platform::http::app(api, readiness, config.into());

    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {} (set LOTTO_LISTEN)", config.listen))?;
    let addr = listener.local_addr()?;
    say(&format!("lotto: database: {}", database.source));
    say("lotto: services: ledger");
    say(&format!("lotto listening on http://{addr}"));
    platform::http::serve(listener, app, platform::http::shutdown_signal()).await?;
    say("lotto: stopped");
    Ok(())
}
