//! `lotto verify-events` and `lotto events ...`: the significant-events log's file checks and
//! its keeping (ADR 0019), from the operator's shell.

use anyhow::Context;
use platform::config::Config;
use platform::events::{archive, chain};

use crate::{postgres, say};

/// `lotto verify-events <file>`: an export checked on its own (no database): every event
/// follows the one before, hashes to what it says, and the count and the hashes at both ends
/// are the header's. Exit status 1 when it is not intact.
pub fn verify_file(file: &str) -> anyhow::Result<()> {
    let check =
        archive::check_file(std::path::Path::new(file)).map_err(|e| anyhow::anyhow!("{}", e.detail()))?;
    let range = match (check.first_seq, check.last_seq) {
        (Some(first), Some(last)) => format!("events {first} to {last}"),
        _ => "no events".to_owned(),
    };
    say(&format!(
        "{file}: {} ({range}, {} events)",
        if check.intact { "intact" } else { "NOT intact" },
        check.events
    ));
    say(&format!("  hash before the first: {}", check.prev_hash.as_deref().unwrap_or("-")));
    say(&format!("  hash of the last:      {}", check.last_hash.as_deref().unwrap_or("-")));
    if let Some(problem) = &check.problem {
        say(&format!("  {problem}"));
        std::process::exit(1);
    }
    Ok(())
}

/// `lotto events verify|seal <YYYY-MM>|archive <YYYY-MM> <file>|restore <file>`.
pub async fn command(args: &[&str]) -> anyhow::Result<()> {
    platform::telemetry::init_tracing("lotto");
    let config = Config::from_env()?;
    let database = postgres::locate(config.database_url.as_deref()).await?;
    let result = async {
        let pool = gateway::connect(&database.url, &config.with_pool(2)).await?;
        let refused = |e: platform::AppError| anyhow::anyhow!("{}", e.detail());
        match args {
            ["verify"] => {
                chain::chain_all(&pool, None).await.map_err(refused)?;
                let check = chain::verify(&pool).await.map_err(refused)?;
                say(&serde_json::to_string_pretty(&check)?);
                if !check.intact {
                    anyhow::bail!("the log is not intact from event {:?}", check.first_broken_seq);
                }
            }
            ["seal", month] => {
                let seal = archive::seal(&pool, "lotto", month_named(month)?, None).await.map_err(refused)?;
                say(&serde_json::to_string_pretty(&seal)?);
            }
            ["archive", month, file] => {
                let sha256 =
                    archive::archive(&pool, "lotto", month_named(month)?, std::path::Path::new(file))
                        .await
                        .map_err(refused)?;
                say(&format!("{month} archived to {file} (SHA-256 {sha256}) and dropped from the database"));
            }
            ["restore", file] => {
                let seal =
                    archive::restore(&pool, "lotto", std::path::Path::new(file)).await.map_err(refused)?;
                say(&format!("{} restored from {file}: {} events", seal.month.format("%Y-%m"), seal.events));
            }
            _ => anyhow::bail!(
                "usage: lotto events verify | seal <YYYY-MM> | archive <YYYY-MM> <file> | restore <file>"
            ),
        }
        anyhow::Ok(())
    }
    .await;
    if let Some(cluster) = &database.private {
        cluster.stop();
    }
    result
}

/// `YYYY-MM` as its first day.
fn month_named(month: &str) -> anyhow::Result<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").context("a month is YYYY-MM")
}
