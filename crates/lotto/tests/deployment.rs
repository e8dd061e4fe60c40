//! The deployments, tested without a docker engine or a cluster (issue 11): every service of
//! `docker-compose.yml`, and every Deployment of the Kubernetes manifests `deploy/` lists, is
//! started from its own binary as its own process, with exactly the environment the file gives
//! it (the secrets given as the files say to make them, hosts mapped to ports on 127.0.0.1, the
//! Postgres being the tests' own), in the order of compose's `depends_on` (Kubernetes has none:
//! its pods are started together and restarted until they are ready, and so are these); once
//! each answers its health check, one flow of every game is played through the gateway. Each
//! process runs as its container runs it (issue 32): as the image's user 10001 when the test runs
//! as root, in the working directory `/`, which it cannot write; the directories it writes are
//! the files' volumes, each a directory of the test's owned by that user.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use serde_norway::Value as Yaml;

/// One service of the file: its command and its environment, compose variables resolved.
#[derive(Debug)]
struct Service {
    name: String,
    command: Vec<String>,
    environment: BTreeMap<String, String>,
    depends_on: Vec<String>,
    health_path: String,
    /// Where its volumes are mounted: the only places it may write.
    volumes: Vec<String>,
}

/// The directories each binary writes, by the variable that names each: every one must be set
/// and lie on a volume (the containers' root file system is read-only, or not theirs).
const WRITES: [(&str, &[&str]); 2] = [
    ("instant", &["LOTTO_PRINTER_FILE_DIR", "LOTTO_VENDOR_FILE_DIR", "LOTTO_SECRETS_DIR"]),
    ("draw-games", &["LOTTO_POWERBALL_EXPORT_DIR"]),
];

/// The user the image runs as (the Dockerfile's `USER`, the manifests' `runAsUser`).
const IMAGE_USER: u32 = 10001;

/// `${NAME:?message}` and `${NAME:-default}` as compose resolves them, from `given`.
fn interpolate(value: &str, given: &BTreeMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').map(|e| start + e).expect("an unclosed ${");
        let expr = &rest[start + 2..end];
        let (name, fallback) = match expr.find([':', '-', '?']) {
            Some(i) => (&expr[..i], Some(&expr[i..])),
            None => (expr, None),
        };
        match (given.get(name), fallback) {
            (Some(v), _) => out.push_str(v),
            (None, Some(f)) if f.starts_with(":-") => out.push_str(&f[2..]),
            (None, _) => panic!("docker-compose.yml needs {name}, which the test does not give"),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn services(given: &BTreeMap<&str, String>) -> Vec<Service> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docker-compose.yml");
    let mut doc: Yaml = serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc.apply_merge().unwrap();
    let mut out = Vec::new();
    for (name, service) in doc["services"].as_mapping().unwrap() {
        let name = name.as_str().unwrap().to_owned();
        // Postgres is the test's own; a service of an optional profile (the monitoring one's
        // Prometheus) is not started by `docker compose up`.
        if name == "postgres" || !service["profiles"].is_null() {
            continue;
        }
        let mut service = service.clone();
        service.apply_merge().unwrap();
        let command: Vec<String> = service["command"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let mut environment = BTreeMap::new();
        let mut env = service["environment"].clone();
        env.apply_merge().unwrap();
        for (k, v) in env.as_mapping().unwrap() {
            let v = match v {
                Yaml::String(s) => s.clone(),
                other => serde_norway::to_string(other).unwrap().trim().to_owned(),
            };
            environment.insert(k.as_str().unwrap().to_owned(), interpolate(&v, given));
        }
        let depends_on = service["depends_on"]
            .as_mapping()
            .map(|m| m.keys().map(|k| k.as_str().unwrap().to_owned()).filter(|k| k != "postgres").collect())
            .unwrap_or_default();
        let test: Vec<String> = service["healthcheck"]["test"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let url = test.last().unwrap();
        let health_path = url[url.find("8080").unwrap() + 4..].to_owned();
        let volumes = service["volumes"]
            .as_sequence()
            .map(|v| v.iter().map(|m| m.as_str().unwrap().split(':').nth(1).unwrap().to_owned()).collect())
            .unwrap_or_default();
        out.push(Service { name, command, environment, depends_on, health_path, volumes });
    }
    out
}

/// The Deployments of the manifests `deploy/kustomization.yaml` lists. A `secretKeyRef` is looked
/// up as `<secret>/<key>` in `given`; one the test does not give fails the test.
fn deployments(given: &BTreeMap<&str, String>) -> Vec<Service> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
    let kustomization: Yaml =
        serde_norway::from_str(&std::fs::read_to_string(dir.join("kustomization.yaml")).unwrap()).unwrap();
    let mut out = Vec::new();
    for file in kustomization["resources"].as_sequence().unwrap() {
        let text = std::fs::read_to_string(dir.join(file.as_str().unwrap())).unwrap();
        for doc in serde_norway::Deserializer::from_str(&text) {
            let doc = Yaml::deserialize(doc).unwrap();
            if doc["kind"].as_str() != Some("Deployment") {
                continue;
            }
            let name = doc["metadata"]["name"].as_str().unwrap().to_owned();
            let container = &doc["spec"]["template"]["spec"]["containers"][0];
            let command: Vec<String> = container["command"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_owned())
                .collect();
            let mut environment = BTreeMap::new();
            for var in container["env"].as_sequence().unwrap() {
                let key = var["name"].as_str().unwrap().to_owned();
                let value = match var["value"].as_str() {
                    Some(v) => v.to_owned(),
                    None => {
                        let secret = &var["valueFrom"]["secretKeyRef"];
                        let reference = format!(
                            "{}/{}",
                            secret["name"].as_str().unwrap(),
                            secret["key"].as_str().unwrap()
                        );
                        given
                            .get(reference.as_str())
                            .unwrap_or_else(|| {
                                panic!("{name}: secret {reference} is not one the README makes")
                            })
                            .clone()
                    }
                };
                environment.insert(key, value);
            }
            let health_path = container["readinessProbe"]["httpGet"]["path"].as_str().unwrap().to_owned();
            let volumes = container["volumeMounts"]
                .as_sequence()
                .map(|v| v.iter().map(|m| m["mountPath"].as_str().unwrap().to_owned()).collect())
                .unwrap_or_default();
            out.push(Service { name, command, environment, depends_on: Vec::new(), health_path, volumes });
        }
    }
    out
}

/// The processes of the deployment, killed when the test ends, however it ends, and the
/// directory of their volumes, removed then.
struct Processes(Vec<(String, Child)>, PathBuf);

impl Drop for Processes {
    fn drop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.1);
    }
}

async fn post(
    http: &reqwest::Client,
    url: String,
    token: Option<&str>,
    key: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut request = http.post(url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Logs in at the gateway with `credentials` and returns the access token.
async fn session(http: &reqwest::Client, gw: &str, credentials: Value) -> String {
    let (status, login) = post(http, format!("{gw}/v1/sessions"), None, None, credentials).await;
    assert_eq!(status, 201, "{login}");
    login["access_token"].as_str().unwrap().to_owned()
}

async fn get(http: &reqwest::Client, url: String, token: &str) -> (u16, Value) {
    let response = http.get(url).bearer_auth(token).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Whether this test runs as root, and so may start the services as the image's user.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A directory for each volume of `services`, owned by the image's user as a volume mounted on
/// the image's `/var/lib/lotto` is (Kubernetes: `fsGroup`); the volume's mount path in a
/// variable becomes this directory.
fn volume_dirs(services: &[Service]) -> (PathBuf, BTreeMap<(String, String), PathBuf>) {
    use std::os::unix::fs::PermissionsExt;
    let root = std::env::temp_dir().join(format!("lotto-volumes-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut dirs = BTreeMap::new();
    for service in services {
        for (i, mount) in service.volumes.iter().enumerate() {
            let dir = root.join(format!("{}-{i}", service.name));
            std::fs::create_dir(&dir).unwrap();
            if running_as_root() {
                std::os::unix::fs::chown(&dir, Some(IMAGE_USER), Some(IMAGE_USER)).unwrap();
            }
            dirs.insert((service.name.clone(), mount.clone()), dir);
        }
    }
    (root, dirs)
}

/// Every directory a service writes is named and on one of its volumes.
fn assert_writes_go_to_volumes(services: &[Service]) {
    for (binary, variables) in WRITES {
        for service in services.iter().filter(|s| s.command[0] == binary) {
            for variable in variables.iter() {
                let path = service.environment.get(*variable).unwrap_or_else(|| {
                    panic!(
                        "{}: {variable} is not set, so it writes under the working directory /",
                        service.name
                    )
                });
                assert!(
                    service.volumes.iter().any(|v| Path::new(path).starts_with(v)),
                    "{}: {variable}={path} is on none of its volumes {:?}",
                    service.name,
                    service.volumes
                );
            }
        }
    }
}

/// Starts `services` (in `depends_on` order; a process that exits while its dependencies come up
/// is started again, as Kubernetes restarts a pod) and waits until each is healthy. Each runs as
/// the containers run it: as the image's unprivileged user (when the test may switch to it), in
/// the image's working directory `/`, able to write only its volumes. Returns the processes, each
/// service's port, the volumes' directories and how many times a process was started again.
async fn start(
    services: &[Service],
    database: &str,
    bin: &Path,
) -> (Processes, BTreeMap<String, u16>, BTreeMap<(String, String), PathBuf>, usize) {
    use std::os::unix::process::CommandExt;
    assert_writes_go_to_volumes(services);
    let ports: BTreeMap<String, u16> =
        services.iter().map(|s| (s.name.clone(), common::free_port())).collect();
    let (volumes_root, volumes) = volume_dirs(services);
    let http = reqwest::Client::new();
    let mut processes = Processes(Vec::new(), volumes_root);
    let spawn = |service: &Service| {
        let mut command = Command::new(bin.join(&service.command[0]));
        command
            .args(&service.command[1..])
            .env_clear()
            .current_dir("/")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if running_as_root() {
            command.uid(IMAGE_USER).gid(IMAGE_USER);
        }
        for (key, value) in &service.environment {
            let mut value = value.clone();
            if key == "DATABASE_URL" {
                value = database.to_owned();
            }
            if key == "LOTTO_LISTEN" {
                value = format!("127.0.0.1:{}", ports[&service.name]);
            }
            // Where players reach a published service (the sandbox's identity pages).
            if key == "LOTTO_PUBLIC_URL" {
                value = format!("http://127.0.0.1:{}", ports[&service.name]);
            }
            if key == "LOTTO_METRICS_LISTEN" {
                value = format!("127.0.0.1:{}", common::free_port());
            }
            for (host, port) in &ports {
                value = value.replace(&format!("http://{host}:8080"), &format!("http://127.0.0.1:{port}"));
            }
            for ((name, mount), dir) in &volumes {
                if name == &service.name && Path::new(&value).starts_with(mount) {
                    value = dir.join(Path::new(&value).strip_prefix(mount).unwrap()).display().to_string();
                }
            }
            command.env(key, value);
        }
        command.env("LOTTO_LOG", "error");
        command.spawn().unwrap_or_else(|e| panic!("{}: {e}", service.name))
    };
    let mut order: Vec<&Service> = Vec::new();
    while order.len() < services.len() {
        let next = services
            .iter()
            .find(|s| {
                !order.iter().any(|o| o.name == s.name)
                    && s.depends_on.iter().all(|d| order.iter().any(|o| &o.name == d))
            })
            .expect("a cycle in depends_on");
        order.push(next);
    }
    let mut waiting: Vec<&Service> = Vec::new();
    let mut restarts = 0;
    for service in order {
        processes.0.push((service.name.clone(), spawn(service)));
        waiting.push(service);
        // Compose waits for a service's dependencies to be healthy before starting it.
        if !service.depends_on.is_empty() || waiting.len() == services.len() {
            for _ in 0..600 {
                let mut all = true;
                for pending in &waiting {
                    let url = format!("http://127.0.0.1:{}{}", ports[&pending.name], pending.health_path);
                    if http.get(&url).send().await.is_ok_and(|r| r.status().is_success()) {
                        continue;
                    }
                    all = false;
                    let (_, child) = processes.0.iter_mut().find(|(n, _)| n == &pending.name).unwrap();
                    if child.try_wait().unwrap().is_some() {
                        restarts += 1;
                        assert!(
                            restarts < 30,
                            "{} keeps exiting at start (its stderr is above)",
                            pending.name
                        );
                        *child = spawn(pending);
                    }
                }
                if all {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            waiting.clear();
        }
    }
    for (name, port) in &ports {
        let service = services.iter().find(|s| &s.name == name).unwrap();
        let url = format!("http://127.0.0.1:{port}{}", service.health_path);
        assert!(http.get(&url).send().await.is_ok_and(|r| r.status().is_success()), "{name} is not healthy");
    }
    (processes, ports, volumes, restarts)
}

fn secrets() -> BTreeMap<&'static str, String> {
    use age::secrecy::ExposeSecret;
    let random = || hex::encode(platform::auth::random_bytes::<32>());
    let (token, virn, payments, signing) = (random(), random(), random(), random());
    let (identity_webhook, identity_key) = (random(), random());
    let printer = age::x25519::Identity::generate().to_public().to_string();
    let lottery = age::x25519::Identity::generate().to_string().expose_secret().to_owned();
    [
        // As docker-compose.yml's header exports them.
        ("LOTTO_TOKEN_SECRET", token.clone()),
        ("LOTTO_VIRN_KEY", virn.clone()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", payments.clone()),
        ("LOTTO_SIGNING_KEY", signing.clone()),
        ("LOTTO_IDENTITY_WEBHOOK_SECRET", identity_webhook.clone()),
        ("LOTTO_IDENTITY_KEY", identity_key.clone()),
        // As deploy/README.md creates them.
        ("lotto-secrets/token-secret", token),
        ("lotto-secrets/virn-key", virn),
        ("lotto-secrets/payments-webhook-secret", payments),
        ("lotto-secrets/signing-key", signing),
        ("lotto-secrets/identity-webhook-secret", identity_webhook),
        ("lotto-secrets/identity-key", identity_key),
        ("lotto-secrets/printer-recipient", printer),
        ("lotto-secrets/lottery-identity", lottery),
        // The database's own secret (CloudNativePG makes it); replaced by the test's database.
        ("lotto-db-app/uri", "postgres://from-the-operator".to_owned()),
    ]
    .into_iter()
    .collect()
}

/// Issue 47 §5: every service of the compose file that connects to its Postgres has a
/// connection budget, and together they fit what the server takes (`max_connections` as its
/// command sets it, less the 3 reserved for superusers): five services at their default of 12
/// per core exceeded 100 on any host of four cores or more.
#[test]
fn the_compose_files_connection_budgets_fit_its_postgres() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docker-compose.yml");
    let doc: Yaml = serde_norway::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let command: Vec<&str> = doc["services"]["postgres"]["command"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let max: u32 = command
        .iter()
        .find_map(|c| c.strip_prefix("max_connections="))
        .expect("the Postgres command sets max_connections")
        .parse()
        .unwrap();
    let mut total = 0;
    for service in services(&secrets()) {
        // The payment provider's sandbox keeps nothing in Postgres.
        if service.command == ["lotto", "payments-sandbox"] {
            continue;
        }
        let budget: u32 = service
            .environment
            .get("LOTTO_DB_MAX_CONNECTIONS")
            .unwrap_or_else(|| panic!("{} has no LOTTO_DB_MAX_CONNECTIONS", service.name))
            .parse()
            .unwrap();
        total += budget;
    }
    assert!(
        total <= max - 3,
        "the services' budgets add up to {total}, more than the {} clients Postgres takes",
        max - 3
    );
}

#[tokio::test]
async fn every_service_of_the_compose_file_starts_apart_and_plays_through_the_gateway() {
    let database = platform::testing::fresh_database().await.unwrap();
    let services = services(&secrets());
    let bin = common::binaries();
    let (processes, ports, volumes, _) = start(&services, &database, &bin).await;
    let names: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
    assert!(
        ["ledger", "draw-games", "table-games", "instant", "payments", "gateway"]
            .iter()
            .all(|s| names.contains(s)),
        "{names:?}"
    );
    play_every_game(&format!("http://127.0.0.1:{}", ports["gateway"]), &bin, &database).await;
    // instant, without the printer's and the lottery's keys, kept demonstration keys on its volume.
    let instant = &volumes[&("instant".to_owned(), "/var/lib/lotto".to_owned())];
    assert!(instant.join("secrets/printer-identity.txt").is_file(), "{}", instant.display());
    drop(processes);
}

#[tokio::test]
async fn every_deployment_of_the_kubernetes_manifests_starts_apart_and_plays_through_the_gateway() {
    let database = platform::testing::fresh_database().await.unwrap();
    let services = deployments(&secrets());
    let bin = common::binaries();
    let (processes, ports, _, restarts) = start(&services, &database, &bin).await;
    // The pods start together: a service that needs the ledger at its start waits for it
    // (`open_accounts_at_start`) instead of exiting until Kubernetes happens to restart it late.
    assert_eq!(restarts, 0, "a service exited while the others came up (its stderr is above)");
    play_every_game(&format!("http://127.0.0.1:{}", ports["gateway"]), &bin, &database).await;
    drop(processes);
}

/// A newcomer's day through the gateway at `gw`: an operator, a funded player, Keno, blackjack,
/// an instant scan at a till, a withdrawal, and the books balanced.
async fn play_every_game(gw: &str, bin: &Path, database: &str) {
    let http = reqwest::Client::new();
    // The first operator, as the README makes one.
    let made = Command::new(bin.join("lotto"))
        .args(["admin", "create-operator", "ops"])
        .env_clear()
        .env("DATABASE_URL", database)
        .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let operator = common::staff_session(&http, gw, "ops", "a long admin password").await;

    // A player, funded through the payment provider's signed webhook (across three processes).
    let ann = common::player_read_by(&http, gw, &operator, "ann@example.com", "correct horse battery").await;
    let (status, deposit) = post(
        &http,
        format!("{gw}/v1/me/deposits"),
        Some(&ann),
        Some("d1"),
        json!({"amount": 20_000, "currency": "USD"}),
    )
    .await;
    assert_eq!(status, 202, "{deposit}");
    let mut state = Value::Null;
    for _ in 0..100 {
        state = get(&http, format!("{gw}/v1/me/payments/{}", deposit["id"].as_str().unwrap()), &ann).await.1
            ["state"]
            .clone();
        if state != "pending" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state, "succeeded");

    // Castle Keno, played at once.
    let (status, ticket) = post(
        &http,
        format!("{gw}/v1/keno/tickets"),
        Some(&ann),
        Some("k1"),
        json!({"option": "bet", "spots": [3, 11, 19, 27, 35], "tickets": 1}),
    )
    .await;
    assert_eq!((status, ticket["state"].as_str()), (201, Some("settled")), "{ticket}");

    // Blackjack: a table, a round, stand until it settles.
    let (status, table) =
        post(&http, format!("{gw}/v1/blackjack/tables"), Some(&ann), None, json!({"decks": 6})).await;
    assert_eq!(status, 201, "{table}");
    let (status, mut round) = post(
        &http,
        format!("{gw}/v1/blackjack/tables/{}/rounds", table["id"].as_str().unwrap()),
        Some(&ann),
        Some("r1"),
        json!({"spots": [{"wager": 500}]}),
    )
    .await;
    assert_eq!(status, 201, "{round}");
    for _ in 0..8 {
        if round["state"] != "playing" {
            break;
        }
        let action = if round["round"]["phase"] == "insurance" {
            json!({"action": "decline_insurance", "spot": 0})
        } else {
            json!({"action": "stand"})
        };
        let mut body = action;
        body["step"] = round["step"].clone();
        round = post(
            &http,
            format!("{gw}/v1/blackjack/rounds/{}/actions", round["id"].as_str().unwrap()),
            Some(&ann),
            None,
            body,
        )
        .await
        .1;
    }
    assert_eq!(round["state"], "settled", "{round}");

    // Instant: the games are public; a terminal scans a ticket that was never printed.
    let (status, games) = get(&http, format!("{gw}/v1/instant/games"), &ann).await;
    assert_eq!((status, games.as_array().map(Vec::len)), (200, Some(5)), "{games}");
    let (_, shop) =
        post(&http, format!("{gw}/v1/retailers"), Some(&operator), None, json!({"name": "Corner Store"}))
            .await;
    let (_, terminal) = post(
        &http,
        format!("{gw}/v1/retailers/{}/terminals", shop["id"].as_str().unwrap()),
        Some(&operator),
        None,
        json!({"label": "till 1"}),
    )
    .await;
    let till = session(&http, gw, json!({"api_key": terminal["api_key"]})).await;
    let (status, scan) = post(
        &http,
        format!("{gw}/v1/instant/validations"),
        Some(&till),
        None,
        json!({"barcode": domain::instant::print_run::barcode(283, 0, 0), "virn": "000000000000"}),
    )
    .await;
    assert_eq!((status, scan["code"].as_str()), (404, Some("ticket_not_found")), "{scan}");

    // Cash out, and the books.
    let (status, withdrawal) = post(
        &http,
        format!("{gw}/v1/me/withdrawals"),
        Some(&ann),
        Some("w1"),
        json!({"amount": 1_000, "currency": "USD"}),
    )
    .await;
    assert_eq!(status, 202, "{withdrawal}");
    let (status, trial) = get(&http, format!("{gw}/v1/reports/trial-balance"), &operator).await;
    assert_eq!((status, trial["balanced"].clone()), (200, json!(true)), "{trial}");
}

/// Each service refuses to start with a placeholder secret, as the file's old defaults were.
#[test]
fn a_service_refuses_a_placeholder_secret() {
    let bin = common::binaries();
    let out = Command::new(bin.join("ledger"))
        .env_clear()
        .env("DATABASE_URL", "postgres://postgres@127.0.0.1:1/none")
        .env("LOTTO_TOKEN_SECRET", "please-set-LOTTO_TOKEN_SECRET-to-32-random-bytes")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("LOTTO_TOKEN_SECRET") && stderr.contains("placeholder"), "{stderr}");
}

/// Issue 51: the alert rules pass Prometheus' own check and their unit tests (each alert with a
/// series that fires it and one that does not: `promtool`, Debian's `prometheus`), and the
/// PrometheusRule the manifests ship holds the same groups as the rules file.
#[test]
fn the_alert_rules_are_checked_tested_and_shipped_as_they_are() {
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy");
    for args in [["check", "rules", "prometheus/alerts.yml"], ["test", "rules", "prometheus/alerts_test.yml"]]
    {
        let ran =
            Command::new("promtool").args(args).current_dir(&deploy).output().expect("promtool is installed");
        let said =
            format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
        assert!(ran.status.success() && said.contains("SUCCESS"), "promtool {}: {said}", args.join(" "));
    }
    let read = |file: &str| -> Yaml {
        serde_norway::from_str(&std::fs::read_to_string(deploy.join(file)).unwrap()).unwrap()
    };
    let (rules, shipped) = (read("prometheus/alerts.yml"), read("prometheus-rule.yaml"));
    assert_eq!(
        shipped["spec"]["groups"], rules["groups"],
        "prometheus-rule.yaml's groups are not alerts.yml's"
    );
}

/// docker-compose.yml's optional Prometheus (`--profile monitoring`): its configuration passes
/// `promtool check config` (the alert rules beside it included) and scrapes the metrics
/// listener of every service the file runs (the sandbox providers aside), where the file puts it.
#[test]
fn the_compose_files_prometheus_scrapes_every_service() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ran = Command::new("promtool")
        .args(["check", "config", "prometheus/compose.yml"])
        .current_dir(root.join("deploy"))
        .output()
        .expect("promtool is installed");
    let said = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success() && said.contains("1 rule files found"), "promtool check config: {said}");
    let read = |file: &str| -> Yaml {
        serde_norway::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap()
    };
    let (compose, config) = (read("docker-compose.yml"), read("deploy/prometheus/compose.yml"));
    assert_eq!(compose["x-env"]["LOTTO_METRICS_LISTEN"].as_str(), Some("0.0.0.0:9464"));
    let targets: Vec<&str> = config["scrape_configs"][0]["static_configs"][0]["targets"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    let services: Vec<String> = services(&secrets())
        .into_iter()
        .map(|s| s.name)
        .filter(|name| name != "payments")
        .map(|name| format!("{name}:9464"))
        .collect();
    assert_eq!(targets, services, "the scrape targets are not the compose file's services");
    assert_eq!(compose["services"]["prometheus"]["profiles"][0].as_str(), Some("monitoring"));
}

/// The dashboard `deploy/grafana/lotto-dashboard.json`: each panel with its queries.
fn dashboard() -> Value {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/grafana/lotto-dashboard.json");
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// Issue 51: the dashboard keeps the main rules of Grafana's dashboard linter: every panel has a
/// title and a unit, takes its data source from the `datasource` variable, and every query
/// selects by the `job` and `instance` variables and takes its rates over `$__rate_interval`.
/// (Each query returning data from a real Prometheus is `lotto_command`'s test.)
#[test]
fn the_dashboard_keeps_the_linters_rules() {
    let dashboard = dashboard();
    let variables: Vec<&str> = dashboard["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(variables, ["datasource", "job", "instance"]);
    let panels = dashboard["panels"].as_array().unwrap();
    assert!(panels.len() >= 10, "{} panels", panels.len());
    for panel in panels {
        let title = panel["title"].as_str().unwrap_or_default();
        assert!(!title.is_empty(), "a panel without a title: {panel}");
        assert!(
            panel["fieldConfig"]["defaults"]["unit"].as_str().is_some_and(|u| !u.is_empty()),
            "{title}: no unit"
        );
        assert_eq!(panel["datasource"]["uid"], "${datasource}", "{title}");
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            assert!(
                expr.contains(r#"job=~"$job", instance=~"$instance""#),
                "{title}: {expr} selects no job and instance"
            );
            for window in ["rate(", "increase("] {
                if expr.contains(window) {
                    assert!(expr.contains("[$__rate_interval]"), "{title}: {expr} has a fixed rate interval");
                }
            }
            assert_eq!(target["datasource"]["uid"], "${datasource}", "{title}");
        }
    }
}
