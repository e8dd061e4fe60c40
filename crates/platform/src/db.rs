//! Postgres pools: each service owns one schema (DESIGN §1), and its pool sees only that schema.
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
    Sql(#[from] sqlx::Error),
}

/// Parses a URL, keeping the driver's statement logs at debug (they are noise at info).
pub fn parse_url(url: &str) -> Result<PgConnectOptions, DbError> {
    let options = PgConnectOptions::from_str(url).map_err(DbError::Url)?;
    Ok(options.log_statements(tracing::log::LevelFilter::Debug))
}

/// How long a pooled connection may sit idle before it is tested again on its way out.
const IDLE_BEFORE_TEST: Duration = Duration::from_secs(2);

/// Connects a pool bound to `schema` and runs `migrator` in it.
pub async fn connect(
    url: &str,
    schema: &'static str,
    migrator: &Migrator,
    max_connections: u32,
) -> Result<PgPool, DbError> {
    let options = parse_url(url)?.options([("search_path", schema)]);
    {
        let mut conn = PgConnection::connect_with(&options).await.map_err(DbError::Connect)?;
        // Quoted so the schema name is an identifier, never SQL.
        sqlx::query(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"")).execute(&mut conn).await?;
        conn.close().await?;
    }
    let pool = pool_options(max_connections).connect_with(options).await.map_err(DbError::Connect)?;
    migrator.run(&pool).await.map_err(|source| DbError::Migrate { schema: schema.to_owned(), source })?;
    Ok(pool)
}

/// How every pool of the platform hands out its connections.
fn pool_options(max_connections: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
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
    let options = (*pool.connect_options()).clone().options(BY_KEY_ONLY);
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
