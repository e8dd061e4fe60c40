//! Postgres pools: each service owns one schema (architecture §1), and its pool sees only that schema.
//!
//! [`connect`] creates the schema if needed, runs the service's migrations into it (the
//! migration history table lives in the schema too, so services migrate independently), and
//! returns a pool whose connections have `search_path` set to the schema at start-up.

use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgConnection, PgPool};

/// Why a database could not be reached or prepared.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("invalid database URL: {0}")]
    Url(#[source] sqlx::Error),
    #[error("cannot connect to Postgres: {0}")]
    Connect(#[source] sqlx::Error),
    #[error("migrating schema {schema} failed: {source}")]
    Migrate { schema: String, source: sqlx::migrate::MigrateError },
    #[error("{0}")]
    Budget(String),
    #[error("{0}")]
    Sql(#[from] sqlx::Error),
}

/// Parses a URL, keeping the driver's statement logs at debug (they are noise at info).
pub fn parse_url(url: &str) -> Result<PgConnectOptions, DbError> {
    let options = PgConnectOptions::from_str(url).map_err(DbError::Url)?;
    Ok(options.log_statements(tracing::log::LevelFilter::Debug))
}

/// How long a pooled connection may sit idle before it is tested again on its way out.
const IDLE_BEFORE_TEST: Duration = Duration::from_secs(2);

/// How long an idle pooled connection is kept: an idle process gives its connections back to
/// the server within a minute, so replicas, consoles and migrations find room.
const IDLE_CLOSED_AFTER: Duration = Duration::from_secs(60);

/// The default connection budget of a process: a few connections per core (more only queue
/// inside Postgres, measured on two cores), twelve per core in all (24 on two cores), its pools
/// and its writers together; at least 20, so that `lotto` on one core has a few connections per
/// pool beside the 12 its writers and locks hold apart.
pub fn default_budget() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    u32::try_from(cores).unwrap_or(u32::MAX).saturating_mul(12).max(20)
}

/// Splits what is left of `budget` after `reserved` (connections held apart from the pools: the
/// one-statement writers, a scheduler's lock) among pools in proportion to `weights`, each at
/// least one; refused, saying why, when it cannot give each pool one.
pub fn split_budget(budget: u32, reserved: u32, weights: &[u32]) -> Result<Vec<u32>, String> {
    let pools = u32::try_from(weights.len()).unwrap_or(u32::MAX);
    let left = budget.checked_sub(reserved).filter(|left| *left >= pools).ok_or_else(|| {
        format!(
            "a budget of {budget} connections is too small: {reserved} are held apart from the pools and each of the \
             {pools} pools needs one (at least {})",
            reserved.saturating_add(pools)
        )
    })?;
    let total: u32 = weights.iter().sum::<u32>().max(1);
    let mut shares: Vec<u32> = weights
        .iter()
        .map(|w| u32::try_from(u64::from(left) * u64::from(*w) / u64::from(total)).unwrap_or(left).max(1))
        .collect();
    // What rounding left over goes one each to the pools in order; what the floor of one
    // overdrew comes off the largest.
    let (mut next, count) = (0, shares.len().max(1));
    while shares.iter().sum::<u32>() < left {
        if let Some(share) = shares.get_mut(next % count) {
            *share += 1;
        }
        next += 1;
    }
    while shares.iter().sum::<u32>() > left {
        if let Some(largest) = shares.iter_mut().max() {
            *largest -= 1;
        }
    }
    Ok(shares)
}

/// Checks `budget` against the server at `url`: refused when it could never fit
/// (`max_connections` less those reserved for superusers), with a warning when the connections
/// other clients hold now leave less room than it.
pub async fn check_budget(url: &str, budget: u32) -> Result<(), DbError> {
    let mut conn = PgConnection::connect_with(&parse_url(url)?).await.map_err(DbError::Connect)?;
    let (max, reserved, in_use) = connections(&mut conn).await?;
    conn.close().await?;
    let room = i64::from(max - reserved);
    if i64::from(budget) > room {
        return Err(DbError::Budget(format!(
            "LOTTO_DB_MAX_CONNECTIONS={budget} cannot fit: the server takes {max} connections, {reserved} of them \
             reserved for superusers, so {room} for clients; lower LOTTO_DB_MAX_CONNECTIONS or raise the server's \
             max_connections"
        )));
    }
    // This check's own connection is among those counted.
    let free = room - (in_use - 1);
    if i64::from(budget) > free {
        tracing::warn!(
            budget,
            free,
            max_connections = max,
            "the connection budget is more than the server has free now: other clients hold {}",
            in_use - 1
        );
    }
    Ok(())
}

/// The server's connections: `max_connections`, those of them reserved for superusers, and the
/// clients' connections now (`conn`'s own among them).
pub async fn connections(conn: &mut PgConnection) -> Result<(i32, i32, i64), DbError> {
    Ok(sqlx::query_as(
        "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
                (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')",
    )
    .fetch_one(conn)
    .await?)
}

/// Connects a pool bound to `schema` and runs `migrator` in it.
pub async fn connect(
    url: &str,
    schema: &'static str,
    migrator: &Migrator,
    max_connections: u32,
) -> Result<PgPool, DbError> {
    // Named for its service, so the server's view (pg_stat_activity) says whose it is.
    let options =
        parse_url(url)?.options([("search_path", schema)]).application_name(&format!("lotto/{schema}"));
    {
        let mut conn = PgConnection::connect_with(&options).await.map_err(DbError::Connect)?;
        // Quoted so the schema name is an identifier, never SQL.
        sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"")).execute(&mut conn).await?;
        conn.close().await?;
    }
    // The significant-events log every service writes to (crate::events), migrated by each.
    {
        let log_options = parse_url(url)?.options([("search_path", crate::events::SCHEMA)]);
        let mut conn = PgConnection::connect_with(&log_options).await.map_err(DbError::Connect)?;
        // Services starting together all create it: `IF NOT EXISTS` is no guard against another
        // session's create in flight, so one at a time (the lock ends with the connection).
        sqlx::query("SELECT pg_advisory_lock(hashtext('events.schema'))").execute(&mut conn).await?;
        sqlx::query("CREATE SCHEMA IF NOT EXISTS events").execute(&mut conn).await?;
        crate::events::migrate(&mut conn)
            .await
            .map_err(|source| DbError::Migrate { schema: crate::events::SCHEMA.to_owned(), source })?;
        conn.close().await?;
    }
    let pool = pool_options(max_connections).connect_with(options).await.map_err(DbError::Connect)?;
    migrator.run(&pool).await.map_err(|source| DbError::Migrate { schema: schema.to_owned(), source })?;
    Ok(pool)
}

/// [`connect`] for a service that keeps an audit chain: its migrations with the chain's
/// ([`crate::audit::with_chain`]).
pub async fn connect_keeping_chain(
    url: &str,
    schema: &'static str,
    migrator: &'static Migrator,
    max_connections: u32,
) -> Result<PgPool, DbError> {
    let migrator = crate::audit::with_chain(migrator)
        .await
        .map_err(|source| DbError::Migrate { schema: schema.to_owned(), source })?;
    connect(url, schema, &migrator, max_connections).await
}

/// How every pool of the platform hands out its connections.
fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        .idle_timeout(IDLE_CLOSED_AFTER)
        // The driver already tests every connection as it goes back to the pool; testing it
        // again as it comes out cost a round trip to Postgres per query (a sixth of a busy
        // service's time). Only a connection that sat idle (whose server may have gone away
        // meanwhile) is tested before use.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > IDLE_BEFORE_TEST {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
}

/// The settings under which a group-committed write is planned (see
/// [`crate::group_commit`]): its rows found by key, never by scanning or hashing a table.
pub const BY_KEY_ONLY: [(&str, &str); 3] =
    [("enable_seqscan", "off"), ("enable_hashjoin", "off"), ("enable_mergejoin", "off")];

/// A second pool on `pool`'s database and schema, of at most `max_connections`, whose
/// connections plan every statement under [`BY_KEY_ONLY`] from start-up: for group-committed
/// writes that are one statement, sent without a transaction (one round trip, where `BEGIN` with
/// the settings, the statement and `COMMIT` take three). Connects lazily.
pub fn by_key_pool(pool: &PgPool, max_connections: u32) -> PgPool {
    let name = format!("{}/writers", pool.connect_options().get_application_name().unwrap_or("lotto"));
    let options = (*pool.connect_options()).clone().options(BY_KEY_ONLY).application_name(&name);
    pool_options(max_connections).connect_lazy_with(options)
}

/// Creates the database named in `url` when it does not exist, connecting to `postgres` to do it.
pub async fn ensure_database(url: &str) -> Result<(), DbError> {
    let options = parse_url(url)?;
    let Some(name) = options.get_database().map(str::to_owned) else {
        return Ok(());
    };
    let admin = options.clone().database("postgres");
    let mut conn = PgConnection::connect_with(&admin).await.map_err(DbError::Connect)?;
    let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
        .bind(&name)
        .fetch_one(&mut conn)
        .await?;
    if !exists {
        let sql = format!("CREATE DATABASE \"{}\"", name.replace('"', "\"\""));
        match sqlx::query(&sql).execute(&mut conn).await {
            Ok(_) => tracing::info!(database = %name, "created database"),
            // Another process created it between our check and our CREATE.
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42P04") => {}
            Err(e) => return Err(e.into()),
        }
    }
    conn.close().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_budget_is_split_by_weight_and_never_overdrawn() {
        let shares = split_budget(24, 11, &[3, 2, 2, 2, 1]).unwrap();
        assert_eq!(shares.iter().sum::<u32>(), 13);
        assert!(shares.iter().all(|s| *s >= 1), "{shares:?}");
        assert!(shares[0] >= shares[4], "{shares:?}");
        assert_eq!(split_budget(16, 11, &[3, 2, 2, 2, 1]).unwrap(), vec![1, 1, 1, 1, 1]);
        let refused = split_budget(15, 11, &[3, 2, 2, 2, 1]).unwrap_err();
        assert!(refused.contains("at least 16"), "{refused}");
        assert_eq!(split_budget(10, 0, &[1]).unwrap(), vec![10]);
    }
}
