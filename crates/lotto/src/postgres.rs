//! Finding a Postgres to run on, so `cargo run` works on a bare machine without docker.
//!
//! In order:
//! 1. `DATABASE_URL`, when set (its database is created if missing);
//! 2. the local server at `LOTTO_LOCAL_POSTGRES` (default `postgres://postgres@127.0.0.1:5432`),
//!    database `lotto`, created if missing;
//! 3. a private cluster of our own, made with the PostgreSQL installed on the machine, in
//!    `LOTTO_DATA_DIR` (default `./.lotto/pgdata`) on port `LOTTO_PRIVATE_PG_PORT` (default 54329).
//!    Postgres refuses to run as root, so when we are root the cluster belongs to the `postgres`
//!    user and its commands run through `runuser`;
//! 4. otherwise we stop with a message that says how to get Postgres.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use platform::config::env_or;

/// The database the platform will use.
#[derive(Debug)]
pub struct Database {
    pub url: String,
    /// How it was found, for the start-up banner.
    pub source: String,
    /// Set when we started a private cluster, which we stop on shutdown.
    pub private: Option<PrivateCluster>,
}

/// A Postgres cluster this process started.
#[derive(Debug)]
pub struct PrivateCluster {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    run_as: Option<String>,
}

impl PrivateCluster {
    /// Stops the cluster (fast shutdown: connections are closed, committed work is kept).
    pub fn stop(&self) {
        let status = self
            .command("pg_ctl", &["-D", &self.data_dir.to_string_lossy(), "-m", "fast", "-w", "stop"])
            .status();
        if !matches!(status, Ok(s) if s.success()) {
            tracing::warn!(data_dir = %self.data_dir.display(), "could not stop the private Postgres");
        }
    }

    fn command(&self, program: &str, args: &[&str]) -> Command {
        let exe = self.bin_dir.join(program);
        match &self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                cmd.arg("-u").arg(user).arg("--").arg(exe).args(args);
                cmd
            }
            None => {
                let mut cmd = Command::new(exe);
                cmd.args(args);
                cmd
            }
        }
    }
}

/// Finds or starts a database, in the order the module documents.
pub async fn locate(database_url: Option<&str>) -> anyhow::Result<Database> {
    if let Some(url) = database_url {
        platform::db::ensure_database(url).await.with_context(|| "DATABASE_URL is set but unusable")?;
        return Ok(Database { url: url.to_owned(), source: "DATABASE_URL".to_owned(), private: None });
    }
    let local: String = env_or("LOTTO_LOCAL_POSTGRES", "postgres://postgres@127.0.0.1:5432".to_owned())?;
    let url = format!("{}/lotto", local.trim_end_matches('/'));
    match platform::db::ensure_database(&url).await {
        Ok(()) => {
            return Ok(Database { url, source: format!("local Postgres at {local}"), private: None });
        }
        Err(e) => tracing::info!(error = %e, "no usable local Postgres; starting a private one"),
    }
    start_private_cluster().await
}

async fn start_private_cluster() -> anyhow::Result<Database> {
    let Some(bin_dir) = find_postgres_bin_dir() else {
        bail!(
            "no Postgres found. Either set DATABASE_URL, run a server on 127.0.0.1:5432 \
             (user postgres, trust auth), or install PostgreSQL (Debian: `apt-get install -y postgresql`) \
             so lotto can start a private one."
        );
    };
    let data_dir: PathBuf = env_or("LOTTO_DATA_DIR", PathBuf::from(".lotto/pgdata"))?;
    let port: u16 = env_or("LOTTO_PRIVATE_PG_PORT", 54329u16)?;
    std::fs::create_dir_all(&data_dir).with_context(|| format!("cannot create {}", data_dir.display()))?;
    let data_dir = data_dir.canonicalize()?;
    let run_as = running_as_root().then(|| "postgres".to_owned());
    let cluster = PrivateCluster { bin_dir, data_dir, run_as };
    let dir = cluster.data_dir.to_string_lossy().into_owned();

    if let Some(user) = &cluster.run_as {
        let status =
            Command::new("chown").arg("-R").arg(format!("{user}:")).arg(&cluster.data_dir).status()?;
        if !status.success() {
            bail!("cannot hand {} to user {user}; create that user or run lotto as a normal user", dir);
        }
    }
    if !cluster.data_dir.join("PG_VERSION").exists() {
        tracing::info!(data_dir = %dir, "initialising a private Postgres cluster");
        let out = cluster
            .command(
                "initdb",
                &["-D", &dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-instructions"],
            )
            .output()
            .context("cannot run initdb")?;
        if !out.status.success() {
            bail!("initdb failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    let running = cluster.command("pg_ctl", &["-D", &dir, "status"]).output()?.status.success();
    if !running {
        let options = format!("-p {port} -k {dir} -c listen_addresses=127.0.0.1");
        let log = format!("{dir}/postgres.log");
        let out = cluster
            .command("pg_ctl", &["-D", &dir, "-o", &options, "-l", &log, "-w", "-t", "60", "start"])
            .output()
            .context("cannot run pg_ctl")?;
        if !out.status.success() {
            bail!("the private Postgres did not start; see {log}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    let url = format!("postgres://postgres@127.0.0.1:{port}/lotto");
    platform::db::ensure_database(&url).await?;
    Ok(Database { url, source: format!("private Postgres in {dir} on port {port}"), private: Some(cluster) })
}

/// The directory holding `initdb` and `pg_ctl`: from `pg_config`, else the newest Debian install.
pub fn find_postgres_bin_dir() -> Option<PathBuf> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has_tools(&dir) {
            return Some(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| has_tools(bin))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}
