//! Backups of the replicated layout with pgBackRest (Debian's `pgbackrest`): the WAL archived
//! continuously from whichever member is the primary, full backups on demand, and a restore to
//! a new cluster at a named moment, for the restore drill of ADR 0013 §7.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};

use super::layout::Layout;
use super::process::RunAs;

/// Runs pgBackRest `args` with the layout's configuration, as the user Postgres runs as.
fn pgbackrest(layout: &Layout, run_as: Option<RunAs>, args: &[&str]) -> anyhow::Result<String> {
    let mut command = Command::new("pgbackrest");
    command.arg(format!("--config={}", layout.pgbackrest_conf().display())).arg("--stanza=lotto").args(args);
    as_user(&mut command, run_as);
    let out = command.output().context("cannot run pgbackrest (is it installed?)")?;
    if !out.status.success() {
        bail!(
            "pgbackrest {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn as_user(command: &mut Command, run_as: Option<RunAs>) {
    use std::os::unix::process::CommandExt;
    if let Some(user) = run_as {
        command.uid(user.uid).gid(user.gid);
    }
}

/// Writes pgBackRest's configuration and repository (before the members start: they archive
/// into it from their first segment).
pub fn prepare(layout: &Layout, run_as: Option<RunAs>) -> anyhow::Result<()> {
    let conf = layout.pgbackrest_conf();
    let dir = conf.parent().context("the configuration has a directory")?;
    std::fs::create_dir_all(dir.join("repo"))?;
    std::fs::write(&conf, layout.pgbackrest_config())?;
    if let Some(user) = run_as {
        user.own(dir)?;
    }
    Ok(())
}

/// Creates the stanza once a primary runs (a second time changes nothing).
pub fn create_stanza(layout: &Layout, run_as: Option<RunAs>) -> anyhow::Result<()> {
    pgbackrest(layout, run_as, &["stanza-create"]).map(drop)
}

/// A full backup from the current primary; returns pgBackRest's account of the repository.
pub fn full(layout: &Layout, run_as: Option<RunAs>) -> anyhow::Result<String> {
    pgbackrest(layout, run_as, &["--type=full", "backup"])?;
    pgbackrest(layout, run_as, &["info"])
}

/// Restores the newest backup into `into` and replays the archived WAL up to the restore point
/// `target` (or to the end of the archive for `latest`), then starts it alone on `port`, as a
/// new primary of its own, not archiving into the layout's repository nor waiting for standbys.
pub fn restore(
    layout: &Layout,
    run_as: Option<RunAs>,
    bin_dir: &Path,
    target: &str,
    into: &Path,
    port: u16,
) -> anyhow::Result<String> {
    if into.join("PG_VERSION").exists() {
        bail!("{} already holds a cluster; restore into an empty directory", into.display());
    }
    std::fs::create_dir_all(into)?;
    if let Some(user) = run_as {
        user.own(into)?;
    }
    let path = format!("--pg1-path={}", into.display());
    let mut args = vec![path.as_str(), "--target-action=promote"];
    let target_arg = format!("--target={target}");
    if target != "latest" {
        args.extend(["--type=name", target_arg.as_str()]);
    }
    args.push("restore");
    pgbackrest(layout, run_as, &args)?;
    // Its socket beside the members' (a deep `into` would pass a socket path's 107 bytes).
    let socket = layout.sockets_dir().join(format!("restored-{port}"));
    std::fs::create_dir_all(&socket)?;
    if let Some(user) = run_as {
        user.own(&socket)?;
    }
    // Alone: no synchronous standby to wait for (the backup's settings name the members', and
    // a commit would wait for them for ever).
    let options = format!(
        "-p {port} -k {dir} -c listen_addresses=127.0.0.1 -c archive_mode=off -c hot_standby=on \
         -c synchronous_standby_names=",
        dir = socket.display()
    );
    let log = into.join("restored.log");
    let mut command = Command::new(bin_dir.join("pg_ctl"));
    command.args(["-D", &into.display().to_string(), "-o", &options, "-l", &log.display().to_string()]);
    command.args(["-w", "-t", "300", "start"]);
    as_user(&mut command, run_as);
    let out = command.output().context("cannot run pg_ctl")?;
    if !out.status.success() {
        bail!(
            "the restored cluster did not start; see {}: {}",
            log.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Kept in the layout's list, so that `lotto cluster stop` stops it too.
    let mut restored = std::fs::read_to_string(layout.dir.join(RESTORED)).unwrap_or_default();
    restored.push_str(&format!("{}\n", into.display()));
    std::fs::write(layout.dir.join(RESTORED), restored)?;
    Ok(format!("postgres://postgres@127.0.0.1:{port}/lotto"))
}

/// The file listing the clusters restored from the layout's backups.
const RESTORED: &str = "restored-clusters";

/// Stops every cluster restored from the layout's backups (fast: connections closed).
pub fn stop_restored(layout: &Layout, run_as: Option<RunAs>, bin_dir: &Path) {
    let restored = std::fs::read_to_string(layout.dir.join(RESTORED)).unwrap_or_default();
    for dir in restored.lines().filter(|dir| Path::new(dir).join("postmaster.pid").exists()) {
        let mut command = Command::new(bin_dir.join("pg_ctl"));
        command.args(["-D", dir, "-m", "fast", "-w", "stop"]);
        as_user(&mut command, run_as);
        if !command.output().is_ok_and(|out| out.status.success()) {
            tracing::warn!(dir, "could not stop a restored cluster");
        }
    }
}

/// Waits until the restored cluster has left recovery (it promotes itself at the target).
pub async fn promoted(url: &str) -> anyhow::Result<()> {
    use sqlx::Connection;
    for _ in 0..600 {
        if let Ok(mut conn) = sqlx::PgConnection::connect(url).await {
            let recovering: Result<bool, _> =
                sqlx::query_scalar("SELECT pg_is_in_recovery()").fetch_one(&mut conn).await;
            if matches!(recovering, Ok(false)) {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the restored cluster was still recovering after 60 s")
}
