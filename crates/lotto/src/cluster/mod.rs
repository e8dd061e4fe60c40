//! `lotto cluster`: the replicated Postgres of ADR 0013 on one machine, from Debian's packages
//! (`etcd-server`, `patroni`, `haproxy`), for an operator to try and for the failover tests.
//!
//! - `start` brings up whatever of the layout is not running (etcd, three Patroni members with
//!   their Postgres, HAProxy), waits until a primary serves writes through HAProxy's one address
//!   and a standby is named synchronous (only it may be promoted), creates the `lotto` database
//!   and prints `DATABASE_URL=...`. Run again after a member was lost, it starts that member
//!   again, which rejoins as a standby.
//! - `status` prints each member's role and state as Patroni sees them.
//! - `kill <member|primary>` kills a member's Patroni and Postgres at once (SIGKILL), as the loss
//!   of its machine would; `kill etcd` loses the consensus store.
//! - `cut <member|primary>` cuts a member off the network (root only; see [`partition`]);
//!   `heal` ends every cut.
//! - `stop` stops everything (Patroni stops its Postgres cleanly).
//! - `backup` takes a full backup with pgBackRest (the WAL is archived all along);
//!   `restore-point <name>` marks a moment; `restore <name|latest> <dir> <port>` restores the
//!   newest backup into a new cluster up to that moment and starts it alone (the restore drill).
//!
//! The layout lives in `LOTTO_CLUSTER_DIR` (default `.lotto/cluster`), its ports from
//! `LOTTO_CLUSTER_PORT` (default 5440; see [`layout`]), kept in the directory by the first start.

mod backup;
mod layout;
mod partition;
mod process;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use layout::{Layout, MEMBERS};
use platform::config::env_or;
use process::{Daemon, RunAs};
use serde_json::Value;

/// Runs `lotto cluster <args>`.
pub async fn command(args: &[&str]) -> anyhow::Result<()> {
    let layout = open()?;
    match args {
        ["start"] => start(&layout).await,
        ["status"] => status(&layout).await,
        ["kill", "etcd"] => {
            let pid = etcd(&layout).pid().context("etcd is not running")?;
            process::kill_tree(pid);
            say("killed etcd");
            Ok(())
        }
        ["kill", member] => kill(&layout, member).await,
        ["cut", which] => {
            let member = member_named(&layout, which).await?;
            partition::cut(&layout, member)?;
            say(&format!("cut {} off the network", MEMBERS[member]));
            Ok(())
        }
        ["heal"] => {
            say(&format!("healed: {:?}", partition::heal(&layout)?));
            Ok(())
        }
        ["stop"] => stop(&layout),
        ["backup"] => {
            say(&backup::full(&layout, RunAs::postgres_if_root()?)?);
            Ok(())
        }
        ["restore-point", name] => restore_point(&layout, name).await,
        ["restore", target, into, port] => restore(&layout, target, Path::new(into), port.parse()?).await,
        _ => bail!(
            "usage: lotto cluster start|status|stop|kill <member1|member2|member3|primary|etcd>|\
             cut <member1|member2|member3|primary>|heal|backup|restore-point <name>|restore <name|latest> <empty directory> <port>"
        ),
    }
}

/// The layout in `LOTTO_CLUSTER_DIR`: its base port as the first start chose it.
fn open() -> anyhow::Result<Layout> {
    let dir: PathBuf = env_or("LOTTO_CLUSTER_DIR", PathBuf::from(".lotto/cluster"))?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = dir.canonicalize()?;
    let kept = dir.join("base-port");
    let base_port = match std::fs::read_to_string(&kept) {
        Ok(port) => port.trim().parse().with_context(|| format!("{} is not a port", kept.display()))?,
        Err(_) => {
            let port: u16 = env_or("LOTTO_CLUSTER_PORT", layout::DEFAULT_BASE_PORT)?;
            std::fs::write(&kept, format!("{port}\n"))?;
            port
        }
    };
    Ok(Layout { dir, base_port })
}

fn etcd(layout: &Layout) -> Daemon {
    Daemon { dir: layout.dir.clone(), name: "etcd" }
}

fn haproxy(layout: &Layout) -> Daemon {
    Daemon { dir: layout.dir.clone(), name: "haproxy" }
}

fn patroni(layout: &Layout, member: usize) -> Daemon {
    Daemon { dir: layout.member_dir(member), name: "patroni" }
}

/// How long `start` waits for the layout to serve writes.
const READY_WITHIN: Duration = Duration::from_secs(120);

/// Starts every Patroni member not running (each in its own group, by which a network cut finds
/// what it sends: see `partition`); the members started.
fn start_members(layout: &Layout, run_as: Option<RunAs>, bin_dir: &Path) -> anyhow::Result<Vec<usize>> {
    let mut started = Vec::new();
    for member in 0..MEMBERS.len() {
        let daemon = patroni(layout, member);
        if daemon.pid().is_some() {
            continue;
        }
        free(&[layout.rest_port(member), layout.postgres_port(member)])?;
        std::fs::create_dir_all(&daemon.dir)?;
        let config = daemon.dir.join("patroni.yml");
        std::fs::write(&config, layout.patroni_config(member, bin_dir))?;
        std::fs::create_dir_all(layout.socket_dir(member))?;
        let member_as = run_as.map(|user| RunAs { gid: layout.member_gid(member), ..user });
        if let Some(user) = member_as {
            user.own(&daemon.dir)?;
            user.own(&layout.socket_dir(member))?;
        }
        daemon.start("patroni", &[config.display().to_string()], member_as)?;
        started.push(member);
    }
    Ok(started)
}

/// Starts the layout (etcd, the Patroni members, HAProxy) and waits until it serves writes.
async fn start(layout: &Layout) -> anyhow::Result<()> {
    let run_as = RunAs::postgres_if_root()?;
    let bin_dir = crate::postgres::find_postgres_bin_dir().context("no PostgreSQL server installed")?;
    let http = reqwest::Client::builder().timeout(Duration::from_secs(1)).build()?;
    let deadline = Instant::now() + READY_WITHIN;

    backup::prepare(layout, run_as)?;
    if etcd(layout).pid().is_none() {
        free(&[layout.etcd_port()])?;
    }
    etcd(layout).start("etcd", &layout.etcd_args(), None)?;
    let health = format!("http://127.0.0.1:{}/health", layout.etcd_port());
    wait_for("etcd", deadline, &etcd(layout).log(), || async {
        get_json(&http, &health).await.is_some_and(|(_, body)| body["health"] == "true")
    })
    .await?;

    let started = start_members(layout, run_as, &bin_dir)?;
    let config = layout.dir.join("haproxy.cfg");
    std::fs::write(&config, layout.haproxy_config())?;
    if haproxy(layout).pid().is_none() {
        let fronts = (0..layout::SERVICES.len()).map(|s| layout.service_front_port(s));
        free(&std::iter::once(layout.proxy_port()).chain(fronts).collect::<Vec<_>>())?;
    }
    haproxy(layout).start(
        "haproxy",
        &["-db".to_owned(), "-f".to_owned(), config.display().to_string()],
        None,
    )?;

    // Each member started here runs its Postgres (a rejoining one as a standby)...
    for member in started {
        let url = format!("http://127.0.0.1:{}/health", layout.rest_port(member));
        wait_for(MEMBERS[member], deadline, &patroni(layout, member).log(), || async {
            get_json(&http, &url).await.is_some_and(|(status, _)| status == 200)
        })
        .await?;
    }
    // ...and a primary takes writes through HAProxy, its commits held by a synchronous standby.
    let url = layout.url("postgres");
    wait_for("a primary behind HAProxy", deadline, &haproxy(layout).log(), || async {
        platform::db::ensure_database(&layout.url("lotto")).await.is_ok() && writable(&url).await
    })
    .await?;
    // ...and a standby is named synchronous: until one is, no standby may be promoted (it might
    // lack a commit), so a primary lost or cut off meanwhile would not be replaced.
    wait_for("a synchronous standby", deadline, &patroni(layout, 0).log(), || async {
        synchronous_standby(&http, layout).await.is_some()
    })
    .await?;
    backup::create_stanza(layout, run_as)?;
    say(&format!("DATABASE_URL={}", layout.url("lotto")));
    say(&format!(
        "clients: http://127.0.0.1:{}/ (start lotto replicas with LOTTO_LISTEN=127.0.0.1:{})",
        layout.front_port(),
        (0..layout::REPLICAS).map(|r| layout.replica_port(r).to_string()).collect::<Vec<_>>().join(" and ")
    ));
    say(&fronts_of_services_apart(layout));
    Ok(())
}

/// Where each service run apart listens, and the front that passes to it.
fn fronts_of_services_apart(layout: &Layout) -> String {
    let each = layout::SERVICES.iter().enumerate().map(|(s, name)| {
        let replicas = (0..layout::REPLICAS).map(|r| layout.service_replica_port(s, r).to_string());
        format!(
            "{name} 127.0.0.1:{} ({})",
            layout.service_front_port(s),
            replicas.collect::<Vec<_>>().join(", ")
        )
    });
    format!("services run apart: {}", each.collect::<Vec<_>>().join("; "))
}

/// The standby the consensus store names synchronous for the current leader (the only one
/// Patroni may promote), read from etcd itself: the members' REST APIs answer from a view up to
/// a loop old, which just after a promotion still names the standby of before.
async fn synchronous_standby(http: &reqwest::Client, layout: &Layout) -> Option<String> {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let url = format!("http://127.0.0.1:{}/v3/kv/range", layout.etcd_port());
    let mut values = Vec::new();
    for key in ["leader", "sync"] {
        let body = serde_json::json!({"key": b64.encode(format!("/lotto/lotto/{key}"))});
        let answer: Value = http.post(&url).json(&body).send().await.ok()?.json().await.ok()?;
        let value = b64.decode(answer["kvs"][0]["value"].as_str()?).ok()?;
        values.push(String::from_utf8(value).ok()?);
    }
    let sync: Value = serde_json::from_str(&values[1]).ok()?;
    (sync["leader"] == values[0].as_str()).then(|| sync["sync_standby"].as_str().map(str::to_owned)).flatten()
}

/// Fails, naming the port, when something this layout did not start listens on one of `ports`
/// (another layout on the same ports, most likely).
fn free(ports: &[u16]) -> anyhow::Result<()> {
    for port in ports {
        if std::net::TcpListener::bind(("127.0.0.1", *port)).is_err() {
            bail!(
                "port {port} is taken by a process this layout did not start: stop the other layout \
                 (lotto cluster stop with its LOTTO_CLUSTER_DIR) or choose other ports (LOTTO_CLUSTER_PORT)"
            );
        }
    }
    Ok(())
}

/// True when a transaction through `url` commits (in strict synchronous mode, only once a
/// standby has it).
async fn writable(url: &str) -> bool {
    use sqlx::Connection;
    let Ok(mut conn) = sqlx::PgConnection::connect(url).await else {
        return false;
    };
    let committed =
        tokio::time::timeout(Duration::from_secs(3), sqlx::query("SELECT txid_current()").execute(&mut conn))
            .await;
    matches!(committed, Ok(Ok(_)))
}

/// Polls `ready` every 200 ms until it holds; past `deadline`, fails naming `log`.
async fn wait_for<F, Fut>(what: &str, deadline: Instant, log: &Path, ready: F) -> anyhow::Result<()>
where
    F: Fn() -> Fut,
    Fut: Future<Output = bool>,
{
    while !ready().await {
        if Instant::now() > deadline {
            bail!("{what} was not ready within {} s; see {}", READY_WITHIN.as_secs(), log.display());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok(())
}

async fn get_json(http: &reqwest::Client, url: &str) -> Option<(u16, Value)> {
    let response = http.get(url).send().await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.unwrap_or(Value::Null)))
}

/// Each member's role and state, as its Patroni says.
async fn members(layout: &Layout) -> anyhow::Result<Vec<(usize, Option<Value>)>> {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(1)).build()?;
    let mut found = Vec::new();
    for member in 0..MEMBERS.len() {
        let url = format!("http://127.0.0.1:{}/patroni", layout.rest_port(member));
        found.push((member, get_json(&http, &url).await.map(|(_, body)| body)));
    }
    Ok(found)
}

async fn status(layout: &Layout) -> anyhow::Result<()> {
    say(&format!(
        "HAProxy on 127.0.0.1:{} for Postgres, 127.0.0.1:{} for clients of the lotto replicas on {} ({})",
        layout.proxy_port(),
        layout.front_port(),
        (0..layout::REPLICAS).map(|r| layout.replica_port(r).to_string()).collect::<Vec<_>>().join(", "),
        running(haproxy(layout).pid())
    ));
    say(&fronts_of_services_apart(layout));
    say(&format!("etcd on 127.0.0.1:{} ({})", layout.etcd_port(), running(etcd(layout).pid())));
    for (member, seen) in members(layout).await? {
        let (role, state) = seen.map_or(("-".to_owned(), "not answering".to_owned()), |s| {
            (s["role"].as_str().unwrap_or("?").to_owned(), s["state"].as_str().unwrap_or("?").to_owned())
        });
        say(&format!(
            "{} on 127.0.0.1:{}: {role}, {state} (patroni {})",
            MEMBERS[member],
            layout.postgres_port(member),
            running(patroni(layout, member).pid())
        ));
    }
    Ok(())
}

/// Marks this moment in the WAL as `name` (a restore can stop there) and has the segment
/// holding it archived at once.
async fn restore_point(layout: &Layout, name: &str) -> anyhow::Result<()> {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(&layout.url("postgres")).await?;
    let at: String = sqlx::query_scalar("SELECT pg_create_restore_point($1)::text")
        .bind(name)
        .fetch_one(&mut conn)
        .await?;
    sqlx::query("SELECT pg_switch_wal()").execute(&mut conn).await?;
    say(&format!("restore point {name} at {at}"));
    Ok(())
}

/// Restores into a new cluster on `port` (see [`backup::restore`]) and waits for it to serve.
async fn restore(layout: &Layout, target: &str, into: &Path, port: u16) -> anyhow::Result<()> {
    let bin_dir = crate::postgres::find_postgres_bin_dir().context("no PostgreSQL server installed")?;
    std::fs::create_dir_all(into)?;
    let into = into.canonicalize()?;
    let url = backup::restore(layout, RunAs::postgres_if_root()?, &bin_dir, target, &into, port)?;
    backup::promoted(&url).await?;
    say(&format!("DATABASE_URL={url}"));
    Ok(())
}

fn running(pid: Option<u32>) -> String {
    pid.map_or("not running".to_owned(), |pid| format!("pid {pid}"))
}

/// The member `which` names: `member1`..`member3`, or `primary` (the one that says it is).
async fn member_named(layout: &Layout, which: &str) -> anyhow::Result<usize> {
    if which == "primary" {
        let seen = members(layout).await?;
        seen.iter()
            .find(|(_, s)| s.as_ref().is_some_and(|s| s["role"] == "master" || s["role"] == "primary"))
            .map(|(m, _)| *m)
            .context("no member says it is the primary")
    } else {
        MEMBERS.iter().position(|m| *m == which).with_context(|| format!("no member {which}"))
    }
}

/// Kills a member (or the current primary) outright: Patroni, its Postgres and every backend.
async fn kill(layout: &Layout, which: &str) -> anyhow::Result<()> {
    let member = member_named(layout, which).await?;
    let daemon = patroni(layout, member);
    if let Some(pid) = daemon.pid() {
        process::kill_tree(pid);
    }
    // Patroni starts its Postgres apart from itself (so that it outlives a Patroni restart).
    let postmaster = std::fs::read_to_string(layout.member_dir(member).join("data/postmaster.pid"))
        .ok()
        .and_then(|pid| pid.lines().next()?.trim().parse().ok());
    if let Some(pid) = postmaster.filter(|pid| process::alive(*pid)) {
        process::kill_tree(pid);
    }
    say(&format!("killed {}", MEMBERS[member]));
    Ok(())
}

fn stop(layout: &Layout) -> anyhow::Result<()> {
    partition::heal(layout)?;
    haproxy(layout).terminate();
    let members: Vec<Daemon> = (0..MEMBERS.len()).map(|m| patroni(layout, m)).collect();
    for daemon in &members {
        daemon.terminate();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while members.iter().any(|d| d.pid().is_some()) {
        if Instant::now() > deadline {
            bail!("the Patroni members did not stop within 60 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    etcd(layout).terminate();
    if let Some(bin_dir) = crate::postgres::find_postgres_bin_dir() {
        backup::stop_restored(layout, RunAs::postgres_if_root()?, &bin_dir);
    }
    // The sockets' directories (their sockets went with their servers).
    let _ = std::fs::remove_dir_all(layout.sockets_dir());
    say("stopped");
    Ok(())
}

fn say(line: &str) {
    crate::say(line);
}
