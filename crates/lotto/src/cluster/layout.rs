//! Where each engine of the replicated layout listens and keeps its files, and the settings
//! each is started with (ADR 0013).
//!
//! From one base port `B`: HAProxy (the one address clients use) on `B`, the Postgres members on
//! `B+1..=B+3`, their Patroni REST APIs on `B+11..=B+13`, etcd's clients on `B+21` and its peers
//! on `B+22`; and in front of the platform, HAProxy's HTTP address for clients on `B+30`, passing
//! to the `lotto` replicas (or the gateways run apart) an operator starts on `B+31..=B+32`
//! (`LOTTO_LISTEN`). For services run apart (each its own binary, two replicas of each), each
//! service has its front too, three ports on from the one before: the ledger on `B+33` (its
//! replicas on `B+34..=B+35`), draw-games on `B+36`, table-games on `B+39`, instant on `B+42`.

use std::path::{Path, PathBuf};

/// The Postgres members: three, so that after one is lost a synchronous standby still exists
/// and a commit is still acknowledged only once two machines hold it (ADR 0013, strict mode).
pub const MEMBERS: [&str; 3] = ["member1", "member2", "member3"];

/// The replicas each front passes to.
pub const REPLICAS: usize = 2;

/// The services with a front of their own, in the order of their ports. The first, the one
/// clients call, is the gateway or the whole platform in one `lotto` process.
pub const SERVICES: [&str; 5] = ["gateway", "ledger", "draw-games", "table-games", "instant"];

/// The base port when `LOTTO_CLUSTER_PORT` is unset (the platform's own Postgres keeps 5432).
pub const DEFAULT_BASE_PORT: u16 = 5440;

/// A member's offset among the ports (there are three).
fn offset(member: usize) -> u16 {
    u16::try_from(member).unwrap_or(u16::MAX)
}

/// One replicated layout on this machine: its directory and its ports.
#[derive(Debug, Clone)]
pub struct Layout {
    pub dir: PathBuf,
    pub base_port: u16,
}

impl Layout {
    /// The address every service connects to: HAProxy, which passes to the current primary.
    pub fn proxy_port(&self) -> u16 {
        self.base_port
    }

    /// The URL of `database` through HAProxy.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.proxy_port())
    }

    /// The address clients call: HAProxy in front of the `lotto` replicas (or the gateways).
    pub fn front_port(&self) -> u16 {
        self.service_front_port(0)
    }

    /// Where `lotto` replica `replica` (from 0) listens.
    pub fn replica_port(&self, replica: usize) -> u16 {
        self.service_replica_port(0, replica)
    }

    /// HAProxy's address in front of service `service` (an index of [`SERVICES`]).
    pub fn service_front_port(&self, service: usize) -> u16 {
        self.base_port + 30 + 3 * offset(service)
    }

    /// Where replica `replica` (from 0) of service `service` listens.
    pub fn service_replica_port(&self, service: usize, replica: usize) -> u16 {
        self.service_front_port(service) + 1 + offset(replica)
    }

    pub fn postgres_port(&self, member: usize) -> u16 {
        self.base_port + 1 + offset(member)
    }

    pub fn rest_port(&self, member: usize) -> u16 {
        self.base_port + 11 + offset(member)
    }

    pub fn etcd_port(&self) -> u16 {
        self.base_port + 21
    }

    fn etcd_peer_port(&self) -> u16 {
        self.base_port + 22
    }

    /// The group a member's processes run in when the layout runs as root: one of its own, by
    /// which a network cut finds what the member sends (see `partition`); from the base port,
    /// so that two layouts on one machine never share one.
    pub fn member_gid(&self, member: usize) -> u32 {
        100_000 + u32::from(self.base_port) * 4 + u32::from(offset(member))
    }

    /// Where the layout's Postgres servers keep their unix sockets: a short path of its own
    /// under `/tmp` (from the base port, as the ports are), because a socket's path may not
    /// pass 107 bytes and the layout's directory may be deep.
    pub fn sockets_dir(&self) -> PathBuf {
        PathBuf::from(format!("/tmp/lotto-cluster-{}", self.base_port))
    }

    /// Where a member's Postgres keeps its unix socket (see [`Layout::sockets_dir`]).
    pub fn socket_dir(&self, member: usize) -> PathBuf {
        self.sockets_dir().join(MEMBERS[member])
    }

    pub fn member_dir(&self, member: usize) -> PathBuf {
        self.dir.join(MEMBERS[member])
    }

    /// `etcd`'s arguments: one member, its data under the layout's directory. One etcd member
    /// is enough on one machine: the consensus store's own quorum is not what is under test.
    pub fn etcd_args(&self) -> Vec<String> {
        let client = format!("http://127.0.0.1:{}", self.etcd_port());
        let peer = format!("http://127.0.0.1:{}", self.etcd_peer_port());
        [
            ("name", "lotto-etcd".to_owned()),
            ("data-dir", self.dir.join("etcd").display().to_string()),
            ("listen-client-urls", client.clone()),
            ("advertise-client-urls", client),
            ("listen-peer-urls", peer.clone()),
            ("initial-advertise-peer-urls", peer.clone()),
            ("initial-cluster", format!("lotto-etcd={peer}")),
        ]
        .into_iter()
        .map(|(key, value)| format!("--{key}={value}"))
        .collect()
    }

    /// A member's Patroni configuration. The lease is tuned for seconds (`ttl` 6, `loop_wait`
    /// 1, `retry_timeout` 2: a dead primary is replaced in about 10 s, inside the two minutes
    /// of K.A.R. 112-110-9), and strict synchronous mode: a commit is acknowledged only once a
    /// standby holds it (RPO 0), and a primary with no standby left refuses writes rather than
    /// acknowledge what one machine alone holds.
    pub fn patroni_config(&self, member: usize, bin_dir: &Path) -> String {
        let dir = self.member_dir(member);
        let (pg, rest, etcd) = (self.postgres_port(member), self.rest_port(member), self.etcd_port());
        format!(
            r#"scope: lotto
namespace: /lotto/
name: {name}
log:
  level: INFO
restapi:
  listen: 127.0.0.1:{rest}
  connect_address: 127.0.0.1:{rest}
etcd3:
  hosts: 127.0.0.1:{etcd}
bootstrap:
  dcs:
    ttl: 6
    loop_wait: 1
    retry_timeout: 2
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: true
    failsafe_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 300
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        archive_mode: "on"
        archive_command: {archive}
        archive_timeout: 60
  initdb:
    - encoding: UTF8
    - auth: trust
postgresql:
  listen: 127.0.0.1:{pg}
  connect_address: 127.0.0.1:{pg}
  data_dir: {data}
  bin_dir: {bin}
  use_unix_socket: true
  pgpass: {dir}/pgpass
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: {socket}
"#,
            name = MEMBERS[member],
            data = dir.join("data").display(),
            bin = bin_dir.display(),
            dir = dir.display(),
            socket = self.socket_dir(member).display(),
            archive = self.archive_command(),
        )
    }

    /// The WAL archive: every segment the primary fills is pushed to pgBackRest's repository
    /// in the layout's directory, so that a backup and the WAL after it restore to any moment.
    fn archive_command(&self) -> String {
        // Run in the member's data directory: pgBackRest checks that it pushes the WAL of the
        // database its `pg1-path` names.
        format!(
            "'pgbackrest --config={} --stanza=lotto --pg1-path=$PWD archive-push %p'",
            self.pgbackrest_conf().display()
        )
    }

    pub fn pgbackrest_conf(&self) -> PathBuf {
        self.dir.join("backups").join("pgbackrest.conf")
    }

    /// pgBackRest's configuration: one repository (`backups/repo`), the three members as the
    /// stanza's hosts (it backs up from whichever is the primary).
    pub fn pgbackrest_config(&self) -> String {
        let backups = self.dir.join("backups");
        let members: String = (0..MEMBERS.len())
            .map(|m| {
                let dir = self.member_dir(m);
                let n = m + 1;
                format!(
                    "pg{n}-path={}\npg{n}-port={}\npg{n}-socket-path={}\n",
                    dir.join("data").display(),
                    self.postgres_port(m),
                    self.socket_dir(m).display()
                )
            })
            .collect();
        format!(
            "[global]
repo1-path={repo}
repo1-retention-full=2
log-path={backups}
lock-path={backups}
log-level-console=warn
log-level-file=info
start-fast=y

[lotto]
{members}",
            repo = backups.join("repo").display(),
            backups = backups.display(),
        )
    }

    /// HAProxy's configuration. For Postgres: TCP passed to the one member whose Patroni
    /// answers `GET /primary` with 200, checked every half second; a member marked down has its
    /// sessions cut (`on-marked-down shutdown-sessions`), so no client goes on talking to a
    /// demoted primary. In front of each service: HTTP spread over its replicas that answer
    /// `GET /readyz`. A caller's requests go to one replica while it lives (hashed on the bearer
    /// token, consistently: a caller moves only when its replica goes), so that what a replica
    /// remembers of a caller's round stays useful; the ledger's callers are the services, a few
    /// tokens, so its requests are spread in turn instead. A request whose connection a replica
    /// refused is sent to another (`redispatch`), one it accepted is never sent twice.
    pub fn haproxy_config(&self) -> String {
        let servers: String = (0..MEMBERS.len())
            .map(|m| {
                format!(
                    "  server {} 127.0.0.1:{} check port {}\n",
                    MEMBERS[m],
                    self.postgres_port(m),
                    self.rest_port(m)
                )
            })
            .collect();
        let fronts: String = SERVICES.iter().enumerate().map(|(s, name)| self.front(s, name)).collect();
        format!(
            "global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:{port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
{servers}{fronts}",
            port = self.proxy_port(),
        )
    }

    /// HAProxy's HTTP front of one service (see [`Layout::haproxy_config`]).
    fn front(&self, service: usize, name: &str) -> String {
        let replicas: String = (0..REPLICAS)
            .map(|r| {
                format!(
                    "  server {name}{} 127.0.0.1:{} check\n",
                    r + 1,
                    self.service_replica_port(service, r)
                )
            })
            .collect();
        let balance =
            if name == "ledger" { "roundrobin" } else { "hdr(authorization)\n  hash-type consistent" };
        format!(
            "listen {name}
  bind 127.0.0.1:{front}
  mode http
  timeout client 60s
  timeout server 60s
  balance {balance}
  option redispatch
  retries 3
  option httpchk GET /readyz
  default-server inter 1s fall 2 rise 2
{replicas}",
            front = self.service_front_port(service),
        )
    }
}
