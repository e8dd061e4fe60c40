//! The `lotto` command started the way a user starts it: a real process, a real socket, a real
//! Postgres (the one named by DATABASE_URL, or a private cluster it starts itself).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::{Lotto, SECRET};

use platform::auth::{Role, TokenKeys};
use platform::client::{Retry, ServiceClient};
use serde_json::{Value, json};

async fn exercise_ledger(base: &str) {
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let client = ServiceClient::new(base).unwrap().as_service(keys, "lotto-tests");
    let http = reqwest::Client::new();
    assert_eq!(http.get(format!("{base}/readyz")).send().await.unwrap().status(), 200);
    let new_account = json!({"kind": "player_wallet", "owner": "smoke", "currency": "USD"});
    let account: Value = client.post("/v1/accounts", &new_account, Retry::Never).await.unwrap();
    let id = account["id"].as_str().unwrap();
    let deposit = json!({"account_id": id, "amount": 1234, "currency": "USD"});
    let _: Value = client.post_idempotent("/v1/deposits", &format!("smoke-{id}"), &deposit).await.unwrap();
    let fetched: Value = client.get(&format!("/v1/accounts/{id}")).await.unwrap();
    assert_eq!(fetched["balance"]["posted"], 1234);
    let trial: Value = client.get("/v1/reports/trial-balance").await.unwrap();
    assert_eq!(trial["balanced"], true);
}

#[tokio::test]
async fn lotto_serves_the_ledger_on_database_url_and_stops_on_sigterm() {
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(&[("DATABASE_URL", url)], Duration::from_secs(60));
    exercise_ledger(&lotto.base_url).await;
    let said = lotto.terminate();
    assert!(said.iter().any(|l| l == "lotto: stopped"), "{said:?}");
}

#[tokio::test]
async fn lotto_refuses_a_bad_setting_with_a_clear_message() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_lotto")).env("LOTTO_LISTEN", "not-an-address").output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("LOTTO_LISTEN"), "{stderr}");
    // Its sandbox payment and identity providers approve on request: never in production.
    let url = platform::testing::fresh_database().await.unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .env("DATABASE_URL", &url)
        .env("LOTTO_ENVIRONMENT", "production")
        .current_dir(std::env::temp_dir())
        .env("LOTTO_LISTEN", format!("127.0.0.1:{}", common::free_port()))
        .env("LOTTO_METRICS_LISTEN", format!("127.0.0.1:{}", common::free_port()))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("LOTTO_ENVIRONMENT=production") && stderr.contains("sandbox"), "{stderr}");
}

/// With no DATABASE_URL and no server at the local address, lotto makes and runs its own cluster.
#[tokio::test]
async fn lotto_starts_a_private_postgres_when_none_is_running() {
    let data_dir = std::env::temp_dir().join(format!("lotto-private-pg-{}", uuid_like()));
    let port = common::free_port();
    let lotto = Lotto::start(
        &[
            ("LOTTO_LOCAL_POSTGRES", "postgres://postgres@127.0.0.1:1".to_owned()),
            ("LOTTO_DATA_DIR", data_dir.to_string_lossy().into_owned()),
            ("LOTTO_PRIVATE_PG_PORT", port.to_string()),
        ],
        Duration::from_secs(120),
    );
    assert!(data_dir.join("PG_VERSION").is_file(), "no cluster in {}", data_dir.display());
    exercise_ledger(&lotto.base_url).await;
    lotto.terminate();
    // The cluster was stopped with the platform.
    assert!(!data_dir.join("postmaster.pid").exists(), "the private Postgres is still running");
    let _ = std::fs::remove_dir_all(&data_dir);
}

fn uuid_like() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    )
}

/// The first operator is made with `lotto admin create-operator`, then logs in through the gateway.
#[tokio::test]
async fn the_first_operator_is_created_by_the_admin_command() {
    let url = platform::testing::fresh_database().await.unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", "root-op"])
        .env("DATABASE_URL", &url)
        .env("LOTTO_LOG", "warn")
        .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("operator root-op created"));

    let lotto = Lotto::start(&[("DATABASE_URL", url.clone())], Duration::from_secs(60));
    // The password alone asks for the second factor's enrolment, which the console then does.
    let http = reqwest::Client::new();
    let bare = json!({"username": "root-op", "password": "a long admin password"});
    let refused = http.post(format!("{}/v1/sessions", lotto.base_url)).json(&bare).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    let refused: Value = refused.json().await.unwrap();
    assert_eq!(refused["code"], "second_factor_enrolment_required", "{refused}");
    let token = common::staff_session(&http, &lotto.base_url, "root-op", "a long admin password").await;
    let me: Value = http
        .get(format!("{}/v1/me", lotto.base_url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["role"], "operator", "{me}");
    let again = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", "root-op"])
        .env("DATABASE_URL", &url)
        .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
        .output()
        .unwrap();
    assert!(!again.status.success(), "a taken username is refused");
    lotto.terminate();
}

/// The process is killed after a Keno ticket's stake was taken and before its draw paid it; the
/// draw's sales close while it is down. Restarted, the scheduler catches up: the ticket is
/// settled once and the books balance.
#[tokio::test]
async fn a_crash_between_stake_and_payout_settles_the_ticket_once_after_restart() {
    let url = platform::testing::fresh_database().await.unwrap();
    let env = [("DATABASE_URL", url.clone()), ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned())];
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let service =
        ServiceClient::new(lotto.base_url.as_str()).unwrap().as_service(keys.clone(), "lotto-tests");
    let player = format!("crash-{}", uuid::Uuid::now_v7());
    let wallet: Value = service
        .post(
            "/v1/accounts",
            &json!({"kind": "player_wallet", "owner": player, "currency": "USD"}),
            Retry::Never,
        )
        .await
        .unwrap();
    let wallet = wallet["id"].as_str().unwrap().to_owned();
    let deposit = json!({"account_id": wallet, "amount": 1_000, "currency": "USD"});
    let _: Value = service.post_idempotent("/v1/deposits", "crash-deposit", &deposit).await.unwrap();
    let token = keys.issue(&player, Role::Player, None, Duration::from_secs(600)).unwrap();

    let http = reqwest::Client::new();
    let bought = http
        .post(format!("{}/v1/keno/draw-tickets", lotto.base_url))
        .bearer_auth(&token)
        .header("idempotency-key", "crash-ticket")
        .json(&json!({"option": "bet", "spots": [3, 13, 23, 33, 43, 53, 63, 73], "tickets": 1, "draws": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(bought.status(), 201);
    let ticket: Value = bought.json().await.unwrap();
    let last_draw = ticket["entries"][1]["draw_number"].as_i64().unwrap();
    let last_close: chrono::DateTime<chrono::Utc> =
        ticket["entries"][1]["sales_close_at"].as_str().unwrap().parse().unwrap();
    lotto.kill();

    let db = sqlx::PgPool::connect(&url).await.unwrap();
    let paid_at_crash: bool = sqlx::query_scalar(
        "SELECT paid FROM draws.keno_entries WHERE ticket_id = $1::uuid AND draw_number = $2",
    )
    .bind(ticket["id"].as_str().unwrap())
    .bind(last_draw)
    .fetch_one(&db)
    .await
    .unwrap();
    assert!(!paid_at_crash, "killed after the stake, before the last draw paid");
    let balance_at_crash: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(credits_posted - debits_posted), 0)::bigint FROM ledger.balances WHERE account_id = $1::uuid",
    )
    .bind(&wallet)
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(balance_at_crash, 800, "the stake for both draws left the wallet before the crash");

    // Down until the last draw's sales have closed.
    let wait = (last_close - chrono::Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(500);
    tokio::time::sleep(wait).await;
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let service = ServiceClient::new(lotto.base_url.as_str()).unwrap().as_service(keys, "lotto-tests");
    let id = ticket["id"].as_str().unwrap();
    let settled = loop {
        let now: Value = service.get(&format!("/v1/keno/draw-tickets/{id}")).await.unwrap();
        if now["entries"].as_array().unwrap().iter().all(|e| e["draw_state"] == "settled") {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let won: i64 =
        settled["entries"].as_array().unwrap().iter().map(|e| e["payout_cents"].as_i64().unwrap()).sum();
    let account: Value = service.get(&format!("/v1/accounts/{wallet}")).await.unwrap();
    assert_eq!(account["balance"]["posted"].as_i64(), Some(800 + won), "staked once, paid once");
    let draws_chained: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM draws.audit_log WHERE kind = 'keno.draw' AND (record::jsonb ->> 'draw')::bigint = $1",
    )
    .bind(last_draw)
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(draws_chained, 1, "the missed draw was drawn once");
    let trial: Value = service.get("/v1/reports/trial-balance").await.unwrap();
    assert_eq!(trial["balanced"], true);
    let chain: Value = service.get("/v1/draws/audit/verify").await.unwrap();
    assert_eq!(chain["intact"], true);
    lotto.terminate();
}

/// A newcomer's first deposit, over the socket: registered, logged in, the intent answered 202,
/// the sandbox provider's signed webhook crediting the wallet a moment later; a declined card
/// credits nothing.
#[tokio::test]
async fn a_players_deposit_is_confirmed_by_the_sandbox_provider() {
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(
        &[("DATABASE_URL", url), ("LOTTO_SANDBOX_DELAY_MS", "200".to_owned())],
        Duration::from_secs(60),
    );
    let base = &lotto.base_url;
    let http = reqwest::Client::new();
    let email = "newcomer@example.com";
    let token = common::player(&http, base, email, "a long and unusual passphrase").await;
    let deposit = |key: &'static str, body: Value| {
        http.post(format!("{base}/v1/me/deposits"))
            .bearer_auth(&token)
            .header("idempotency-key", key)
            .json(&body)
            .send()
    };
    let ok = deposit("first", json!({"amount": 5_000, "currency": "USD"})).await.unwrap();
    assert_eq!(ok.status(), 202);
    let ok: Value = ok.json().await.unwrap();
    let no: Value =
        deposit("declined", json!({"amount": 700, "currency": "USD", "payment_method": "sandbox_decline"}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    for (payment, expected) in [(&ok, "succeeded"), (&no, "failed")] {
        let path = format!("{base}/v1/me/payments/{}", payment["id"].as_str().unwrap());
        let mut state = String::new();
        for _ in 0..100 {
            let seen: Value = http.get(&path).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
            state = seen["state"].as_str().unwrap().to_owned();
            if state != "pending" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(state, expected);
    }
    let wallet: Value = http
        .get(format!("{base}/v1/me/wallet"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(wallet["balance"]["posted"], 5_000);
    lotto.terminate();
}

/// `lotto print-run` as an operator runs it against a running `lotto`: it starts the job, shows
/// its progress, and on Ctrl-C cancels it, keeping nothing of the run.
#[tokio::test]
async fn lotto_print_run_follows_the_job_and_ctrl_c_cancels_it() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(&[("DATABASE_URL", url.clone())], Duration::from_secs(60));
    let made = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", "ops"])
        .env("DATABASE_URL", &url)
        .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    // The operator enrolled a second factor at the first login; the command takes its code.
    common::staff_session(&reqwest::Client::new(), &lotto.base_url, "ops", "a long admin password").await;
    let mut run = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["print-run", "286"])
        .env("LOTTO_URL", &lotto.base_url)
        .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
        .env("LOTTO_OPERATOR_CODE", common::recovery_code(&lotto.base_url, "ops"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = run.id().to_string();
    let mut lines = BufReader::new(run.stdout.take().unwrap()).lines().map_while(Result::ok);
    let mut said = Vec::new();
    // Its output is not a terminal: a plain line for each change, until the run is under way.
    for line in lines.by_ref() {
        let under_way = line.starts_with("running:");
        said.push(line);
        if under_way {
            break;
        }
    }
    assert!(said[0].contains("1200000 tickets"), "{said:?}");
    let interrupted = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(interrupted.success());
    said.extend(lines);
    let status = run.wait().unwrap();
    assert!(!status.success(), "a cancelled run exits 1: {said:?}");
    assert!(said.iter().any(|l| l == "print run cancelled: nothing of it was kept"), "{said:?}");
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let (state, tickets): (String, i64) = sqlx::query_as(
        "SELECT (SELECT state FROM instant.print_jobs), (SELECT count(*) FROM instant.tickets)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((state.as_str(), tickets), ("cancelled", 0));
    lotto.terminate();
}

/// `lotto printer-file` as a printer runs it on a downloaded file: the lottery's signature checked
/// with the published key, the file decrypted with the printer's identity, every ticket printed
/// as a person sees it; a changed file fails its signature.
#[tokio::test]
async fn lotto_printer_file_prints_the_tickets_of_a_signed_file() {
    use age::secrecy::ExposeSecret;
    let platform = assembly::Assembly::for_tests(assembly::Options::for_tests().unwrap()).await.unwrap();
    let state = platform.instant.clone();
    let game = state.game(283).unwrap().clone();
    let run = instant::store_print_run(&state, &game, "olga").await.unwrap();
    let taken = instant::take_printer_file(&state.pool, run.id, "olga").await.unwrap();
    let instant::PrinterFileTaken::Now { path, signature, .. } = taken else { panic!("{taken:?}") };
    let dir = std::env::temp_dir().join(format!("lotto-printer-{}", run.id));
    std::fs::create_dir_all(&dir).unwrap();
    let identity = dir.join("printer-identity.txt");
    let secret = state.settings.demo_printer_identity.as_ref().unwrap().0.to_string();
    std::fs::write(&identity, format!("# the printer's key\n{}\n", secret.expose_secret())).unwrap();
    let key = state.settings.printer.verifying_key_hex();
    let printed = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["printer-file", &path, identity.to_str().unwrap(), &hex::encode(&signature), &key])
        .output()
        .unwrap();
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    let out = String::from_utf8(printed.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "signature: the lottery's, and the file is as it signed it");
    assert_eq!(lines.len(), 1 + 24_000);
    assert!(lines[1].starts_with("book 000000 ticket 000  barcode 283-000000-000-"), "{}", lines[1]);
    assert!(lines[1].contains("VIRN "), "{}", lines[1]);
    // Each face read as its player reads it: exactly the run's winners win, as much as they won.
    let winners: i64 = sqlx::query_scalar("SELECT count(*) FROM tickets WHERE prize_row IS NOT NULL")
        .fetch_one(&state.pool)
        .await
        .unwrap();
    let count = |what: &str| i64::try_from(lines.iter().filter(|l| l.contains(what)).count()).unwrap();
    assert_eq!(count("  wins "), winners);
    assert_eq!(count("  no win  "), 24_000 - winners);

    let mut changed = std::fs::read(&path).unwrap();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    let tampered = dir.join("tampered.age");
    std::fs::write(&tampered, changed).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args([
            "printer-file",
            tampered.to_str().unwrap(),
            identity.to_str().unwrap(),
            &hex::encode(&signature),
            &key,
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("signature does not verify"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A connection budget the server could never hold is refused at start, saying which setting to
/// change (issue 32 §4).
#[tokio::test]
async fn lotto_refuses_a_connection_budget_the_server_cannot_hold() {
    let url = platform::testing::fresh_database().await.unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .env("DATABASE_URL", &url)
        .env("LOTTO_LISTEN", "127.0.0.1:0")
        .env("LOTTO_SECRETS_DIR", platform::config::scratch_dir("budget-secrets"))
        .env("LOTTO_DB_MAX_CONNECTIONS", "5000")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("LOTTO_DB_MAX_CONNECTIONS=5000 cannot fit") && stderr.contains("max_connections"),
        "{stderr}"
    );
}

/// The whole process holds no more connections than its budget, under load as when idle, and
/// its metrics show each pool's connections in use and idle.
#[tokio::test]
async fn lotto_holds_no_more_connections_than_its_budget_and_shows_each_pool() {
    let url = platform::testing::fresh_database().await.unwrap();
    let metrics_port = common::free_port();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_DB_MAX_CONNECTIONS", "20".to_owned()),
            ("LOTTO_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}")),
        ],
        Duration::from_secs(60),
    );
    let http = reqwest::Client::new();
    let base = lotto.base_url.clone();
    // Forty players at once: registration, a login, a deposit intent and a Keno play each.
    let plays = (0..40).map(|i| {
        let (http, base) = (http.clone(), base.clone());
        async move {
            let token =
                common::player(&http, &base, &format!("p{i}@example.com"), "correct horse battery").await;
            let _ = http
                .post(format!("{base}/v1/me/deposits"))
                .bearer_auth(&token)
                .header("idempotency-key", format!("d{i}"))
                .json(&json!({"amount": 1_000, "currency": "USD"}))
                .send()
                .await
                .unwrap();
            http.get(format!("{base}/v1/keno/draws")).send().await.unwrap().status()
        }
    });
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let database: String = sqlx::query_scalar("SELECT current_database()").fetch_one(&pool).await.unwrap();
    let watch = async {
        let mut most = 0i64;
        for _ in 0..40 {
            let held: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'lotto/%'",
            )
            .bind(&database)
            .fetch_one(&pool)
            .await
            .unwrap();
            most = most.max(held);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        most
    };
    let (_, most) = tokio::join!(futures_util::future::join_all(plays), watch);
    assert!(most > 0 && most <= 20, "{most} connections held by a process with a budget of 20");
    // Scraped as Prometheus would, again until the deposits' webhooks have posted them (they
    // arrive after the load, from the payment provider; on a busy machine a few seconds later).
    let mut text = String::new();
    for _ in 0..60 {
        text = http
            .get(format!("http://127.0.0.1:{metrics_port}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains("ledger_transfers_total{game=\"none\",money=\"payment\"") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    for pool in ["gateway", "ledger", "draws", "tables", "tables/writers", "instant"] {
        assert!(
            text.contains(&format!("db_pool_connections{{pool=\"{pool}\",state=\"in_use\"}}")),
            "no gauge for {pool}:\n{text}"
        );
    }
    let max: f64 = text
        .lines()
        .filter(|l| l.starts_with("db_pool_max_connections{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert!(max <= 20.0, "the pools' sizes add up to {max}, over the budget of 20");
    println!("most connections held under load: {most} (budget 20; the pools' sizes add up to {max})");
    scrape_is_well_formed(&text);
    lotto.terminate();
}

/// Issue 51: the scrape passes Prometheus' own linter (`promtool check metrics`, Debian's
/// `prometheus`), every family in it is one `platform::metrics` lists (with that type), latency
/// is a real histogram, and the families the load above must have made are there.
fn scrape_is_well_formed(text: &str) {
    use std::io::Write;
    let mut promtool = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool (Debian's prometheus) is installed");
    promtool.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let checked = promtool.wait_with_output().unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&checked.stdout), String::from_utf8_lossy(&checked.stderr));
    assert!(checked.status.success() && said.trim().is_empty(), "promtool check metrics: {said}\n{text}");
    let mut families = Vec::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("# TYPE ")) {
        let (name, kind) = line.split_once(' ').unwrap();
        let listed = platform::metrics::CATALOGUE.iter().find(|m| m.name == name);
        assert_eq!(
            listed.map(|m| m.kind.as_str()),
            Some(kind),
            "{name} ({kind}) is not in the catalogue as such"
        );
        families.push(name.to_owned());
    }
    for made in [
        "http_requests_total",
        "http_request_duration_seconds",
        "upstream_requests_total",
        "process_open_fds",
        "db_pool_acquire_seconds",
        "print_jobs",
    ] {
        assert!(families.iter().any(|f| f == made), "no {made} in the scrape:\n{text}");
    }
    assert!(text.contains("http_request_duration_seconds_bucket{"), "latency is not a histogram:\n{text}");
    // The chain's watch walked the significant-events chain at the start, and found it intact.
    assert!(text.contains("audit_chain_intact{chain=\"events\"} 1"), "the chain was not walked:\n{text}");
    assert!(
        text.contains("ledger_transfers_total{game=\"none\",money=\"payment\",channel=\"none\"}"),
        "deposits not counted:\n{text}"
    );
}

/// Issue 47 §5: a refusal from the command prints its message, never a backtrace, whatever
/// `RUST_BACKTRACE` says (a taken username, a connection budget too small); and with JSON logs
/// every line the process prints, its banner included, is a JSON object.
#[tokio::test]
async fn a_refusal_is_its_message_alone_and_json_logs_hold_only_json() {
    let url = platform::testing::fresh_database().await.unwrap();
    common::create_operator(&url, "olga", "a long admin password");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lotto"));
        command
            .args(args)
            .env("DATABASE_URL", &url)
            .env("LOTTO_LOG", "warn")
            .env("LOTTO_ADMIN_PASSWORD", "a long admin password")
            .env("RUST_BACKTRACE", "full")
            .env("LOTTO_SECRETS_DIR", platform::config::scratch_dir("refusal-secrets"));
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    let taken = run(&["admin", "create-operator", "olga"], &[]);
    let budget = run(&[], &[("LOTTO_DB_MAX_CONNECTIONS", "5000"), ("LOTTO_LISTEN", "127.0.0.1:0")]);
    for (out, said) in [(taken, "lotto: that username is taken"), (budget, "lotto: ")] {
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with(said), "{stderr}");
        assert!(
            !stderr.contains("backtrace") && !stderr.contains("Error: ") && !stderr.contains("   0: "),
            "{stderr}"
        );
    }

    // JSON logs: every line on either stream is JSON, the banner too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .env("DATABASE_URL", &url)
        .env("LOTTO_LISTEN", "127.0.0.1:0")
        .env("LOTTO_LOG_FORMAT", "json")
        .env("LOTTO_SECRETS_DIR", platform::config::scratch_dir("json-secrets"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut banner = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let json: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        let message = json["message"].as_str().unwrap_or_default().to_owned();
        banner.push(message.clone());
        if message.starts_with("lotto listening on ") {
            break;
        }
    }
    assert!(banner.iter().any(|m| m.starts_with("lotto: database:")), "{banner:?}");
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    for line in String::from_utf8_lossy(&out.stderr)
        .lines()
        .chain(lines.map_while(Result::ok).collect::<Vec<_>>().iter().map(String::as_str))
    {
        assert!(serde_json::from_str::<Value>(line).is_ok(), "not JSON: {line}");
    }
}

/// The dashboard of `deploy/grafana/`.
fn deployment_dashboard() -> Value {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/grafana/lotto-dashboard.json");
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// Issue 51: a real Prometheus (Debian's) scrapes a running `lotto` every second and evaluates
/// deploy/prometheus/alerts.yml; every query of the dashboard (deploy/grafana/) returns data
/// from it once a player has played; a Keno draw held past its close (the draws' table locked, so
/// the scheduler can draw nothing) fires `LottoDrawLate` in Prometheus' own alerts API, and the
/// draws caught up once it is released resolve it.
#[tokio::test]
async fn prometheus_sees_a_late_draw_fire_its_alert_and_resolve() {
    let url = platform::testing::fresh_database().await.unwrap();
    let metrics_port = common::free_port();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}")),
            ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "3".to_owned()),
        ],
        Duration::from_secs(60),
    );
    let dir = std::env::temp_dir().join(format!("lotto-prometheus-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/prometheus/alerts.yml");
    let config = format!(
        "global: {{scrape_interval: 1s, evaluation_interval: 1s}}\nrule_files: [{rules:?}]\n\
         scrape_configs:\n  - job_name: lotto\n    static_configs: [{{targets: [\"127.0.0.1:{metrics_port}\"]}}]\n"
    );
    std::fs::write(dir.join("prometheus.yml"), config).unwrap();
    let port = common::free_port();
    let mut prometheus = Command::new("prometheus")
        .arg(format!("--config.file={}", dir.join("prometheus.yml").display()))
        .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("prometheus.log")).unwrap())
        .spawn()
        .expect("prometheus (Debian's) is installed");
    let http = reqwest::Client::new();
    let api = format!("http://127.0.0.1:{port}/api/v1");
    let query = |q: &str| {
        let (http, url) = (http.clone(), format!("{api}/query"));
        let q = q.to_owned();
        async move {
            let answer =
                http.get(url).query(&[("query", q)]).send().await.ok()?.json::<Value>().await.ok()?;
            answer["data"]["result"].as_array().cloned()
        }
    };
    let late_alert = || {
        let (http, url) = (http.clone(), format!("{api}/alerts"));
        async move {
            let answer = http.get(url).send().await.ok()?.json::<Value>().await.ok()?;
            answer["data"]["alerts"]
                .as_array()?
                .iter()
                .find(|a| a["labels"]["alertname"] == "LottoDrawLate")
                .map(|a| a["state"].as_str().unwrap_or_default().to_owned())
        }
    };
    // Scraped, and the draws drawn on time: no alert.
    let mut drawn = false;
    for _ in 0..60 {
        drawn = query("draw_last_drawn_close_timestamp_seconds").await.is_some_and(|r| !r.is_empty());
        if drawn {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert!(
        drawn,
        "Prometheus never scraped a drawn draw: {}",
        std::fs::read_to_string(dir.join("prometheus.log")).unwrap()
    );
    assert_eq!(late_alert().await, None, "draws on time raise no alert");

    // Play: a funded player's Keno tickets (stakes, some prizes) and one refused for its funds;
    // then every query of the dashboard returns data from this Prometheus.
    let base = lotto.base_url.clone();
    let token = common::player(&http, &base, "dash@example.com", "correct horse battery staple").await;
    let deposit = http
        .post(format!("{base}/v1/me/deposits"))
        .bearer_auth(&token)
        .header("idempotency-key", "fund")
        .json(&json!({"amount": 2_000, "currency": "USD"}))
        .send()
        .await
        .unwrap();
    assert_eq!(deposit.status(), 202);
    for _ in 0..100 {
        let wallet = http.get(format!("{base}/v1/me/wallet")).bearer_auth(&token).send().await.unwrap();
        if wallet.json::<Value>().await.unwrap()["balance"]["posted"] == 2_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let play = |key: String, tickets: u32| {
        let request = http
            .post(format!("{base}/v1/keno/tickets"))
            .bearer_auth(&token)
            .header("idempotency-key", key)
            .json(&json!({"option": "bet", "spots": [7], "tickets": tickets}));
        async move { request.send().await.unwrap().status().as_u16() }
    };
    for i in 0..20 {
        assert_eq!(play(format!("t{i}"), 1).await, 201);
    }
    assert_eq!(play("too-much".to_owned(), 100).await, 422, "a stake past the wallet's balance is refused");
    tokio::time::sleep(Duration::from_secs(4)).await;
    for panel in deployment_dashboard()["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            let runnable =
                expr.replace("$__rate_interval", "1m").replace("$job", "lotto").replace("$instance", ".*");
            let result = query(&runnable).await.unwrap_or_default();
            assert!(!result.is_empty(), "{}: {runnable} returns nothing", panel["title"]);
        }
    }

    // The draws' table locked: the scheduler can draw nothing past the last close.
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut hold = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE draws.keno_draws IN ACCESS EXCLUSIVE MODE").execute(&mut *hold).await.unwrap();
    let held = std::time::Instant::now();
    let mut state = None;
    while held.elapsed() < Duration::from_secs(150) && state.as_deref() != Some("firing") {
        tokio::time::sleep(Duration::from_secs(1)).await;
        state = late_alert().await;
    }
    assert_eq!(state.as_deref(), Some("firing"), "no late-draw alert fired in {:?}", held.elapsed());
    let fired_after = held.elapsed();
    hold.rollback().await.unwrap();
    let released = std::time::Instant::now();
    while released.elapsed() < Duration::from_secs(60) && late_alert().await.is_some() {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    assert_eq!(late_alert().await, None, "the alert did not resolve once the draws caught up");
    println!(
        "LottoDrawLate fired {:.0} s after the draws were held (interval 3 s, grace 30 s, for 30 s) and resolved {:.0} s after their release",
        fired_after.as_secs_f64(),
        released.elapsed().as_secs_f64()
    );
    let _ = prometheus.kill();
    let _ = prometheus.wait();
    let _ = std::fs::remove_dir_all(&dir);
    lotto.terminate();
}
