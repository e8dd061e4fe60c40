//! A restart forgets nothing (issue 32 §1): `lotto` started as a newcomer starts it, with no
//! secret in its environment, prints a run; stopped and started again, it validates and pays a
//! winner of that run at a till logged in before the restart, and the player's session goes on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::Lotto;
use serde_json::{Value, json};

const PASSWORD: &str = "a long admin password";

async fn call(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The secrets a newcomer's `lotto` makes, by file name.
const KEPT: [&str; 6] = [
    "token-secret",
    "virn-key",
    "payments-webhook-secret",
    "signing-key",
    "printer-identity.txt",
    "lottery-identity.txt",
];

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_ticket_printed_before_a_restart_is_paid_after_it_and_sessions_go_on() {
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("restart");
    let secrets = dir.join("secrets");
    let env = vec![
        ("DATABASE_URL", url.clone()),
        // A newcomer sets no secret (the harness's token secret is unset again: empty is unset).
        ("LOTTO_TOKEN_SECRET", String::new()),
        ("LOTTO_SECRETS_DIR", secrets.display().to_string()),
        ("LOTTO_PRINTER_FILE_DIR", dir.join("printer-files").display().to_string()),
        ("LOTTO_VENDOR_FILE_DIR", dir.join("vendor-files").display().to_string()),
        ("LOTTO_INSTANT_SCALE", "100".to_owned()),
    ];
    let made = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["admin", "create-operator", "ops"])
        .env("DATABASE_URL", &url)
        .env("LOTTO_LOG", "warn")
        .env("LOTTO_ADMIN_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));

    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let said = lotto.banner.join("\n");
    assert!(said.contains(&format!("kept in {}", secrets.display())), "it says where: {said}");
    let gw = lotto.base_url.clone();
    let http = reqwest::Client::new();
    let login = |body: Value| http.post(format!("{gw}/v1/sessions")).json(&body);
    let op = common::staff_session(&http, &gw, "ops", PASSWORD).await;
    let ann = common::player_read_by(&http, &gw, &op, "ann@example.com", "correct horse battery").await;
    let (_, shop) =
        call(http.post(format!("{gw}/v1/retailers")).bearer_auth(&op).json(&json!({"name": "Corner"}))).await;
    let shop = shop["id"].as_str().unwrap().to_owned();
    let (_, terminal) = call(
        http.post(format!("{gw}/v1/retailers/{shop}/terminals"))
            .bearer_auth(&op)
            .json(&json!({"label": "till 1"})),
    )
    .await;
    let (_, till) = call(login(json!({"api_key": terminal["api_key"]}))).await;
    let till = till["access_token"].as_str().unwrap().to_owned();

    // A print run, its printer's file read on the printer's side, one $1 winner picked.
    let (status, job) =
        call(http.post(format!("{gw}/v1/instant/games/283/print-runs")).bearer_auth(&op)).await;
    assert_eq!(status, 202, "{job}");
    let job = job["id"].as_str().unwrap().to_owned();
    let mut run = Value::Null;
    for _ in 0..600 {
        let (_, now) = call(http.get(format!("{gw}/v1/instant/print-jobs/{job}")).bearer_auth(&op)).await;
        if now["state"] != "queued" && now["state"] != "running" {
            assert_eq!(now["state"], "succeeded", "{now}");
            run = now["print_run"].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let run = run.as_str().expect("the run finished").to_owned();
    let file = http
        .get(format!("{gw}/v1/instant/print-runs/{run}/printer-file"))
        .bearer_auth(&op)
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), 200);
    let signature = file.headers()["x-lotto-signature"].to_str().unwrap().to_owned();
    let age_file = dir.join("run.age");
    std::fs::write(&age_file, file.bytes().await.unwrap()).unwrap();
    let (_, keys) = call(http.get(format!("{gw}/v1/instant/keys"))).await;
    let signer = keys["signing_key"].as_str().unwrap().to_owned();
    let read = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .arg("printer-file")
        .arg(&age_file)
        .arg(secrets.join("printer-identity.txt"))
        .args([&signature, &signer])
        .env("LOTTO_SECRETS_DIR", &secrets)
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let printed = String::from_utf8(read.stdout).unwrap();
    let line = printed.lines().find(|l| l.contains("wins $1.00  face")).expect("a $1 winner");
    let fields: Vec<&str> = line.split_whitespace().collect();
    let book: u32 = fields[1].parse().unwrap();
    let scan = fields[6].trim_matches(|c| c == '(' || c == ')').to_owned();
    let virn = format!("{}{}{}", fields[8], fields[9], fields[10]);
    let (status, shipped) = call(
        http.post(format!("{gw}/v1/instant/packs/283/{book}/ship"))
            .bearer_auth(&op)
            .json(&json!({"retailer_id": shop})),
    )
    .await;
    assert_eq!(status, 200, "{shipped}");

    // Stopped and started again, as a newcomer would (same directory, same settings).
    lotto.terminate();
    let lotto = Lotto::start(&env, Duration::from_secs(60));
    let gw = lotto.base_url.clone();

    // The tokens issued before still work: the player's session goes on, the till still scans.
    let (status, me) = call(http.get(format!("{gw}/v1/me")).bearer_auth(&ann)).await;
    assert_eq!(status, 200, "the player's session outlives the restart: {me}");
    let (_, keys_after) = call(http.get(format!("{gw}/v1/instant/keys"))).await;
    assert_eq!(keys_after, keys, "the lottery's keys are the same after the restart");
    for step in ["receive", "activate"] {
        let (status, pack) =
            call(http.post(format!("{gw}/v1/instant/packs/283/{book}/{step}")).bearer_auth(&till)).await;
        assert_eq!(status, 200, "{step}: {pack}");
    }
    let ticket = json!({"barcode": scan, "virn": virn});
    let (status, valid) =
        call(http.post(format!("{gw}/v1/instant/validations")).bearer_auth(&till).json(&ticket)).await;
    assert_eq!((status, valid["winner"].as_bool()), (200, Some(true)), "the VIRN key survived: {valid}");
    let (status, paid) = call(
        http.post(format!("{gw}/v1/instant/claims"))
            .bearer_auth(&till)
            .header("idempotency-key", format!("claim-{scan}"))
            .json(&ticket),
    )
    .await;
    assert_eq!((status, paid["paid_cents"].as_i64()), (201, Some(100)), "{paid}");
    let (_, trial) = call(http.get(format!("{gw}/v1/reports/trial-balance")).bearer_auth(&op)).await;
    assert_eq!(trial["balanced"], true, "{trial}");

    // Kept where it said, readable by its user only, and never printed.
    #[cfg(unix)]
    assert_eq!(mode(&secrets), 0o700);
    let banner = lotto.banner.join("\n");
    for name in KEPT {
        let path = secrets.join(name);
        #[cfg(unix)]
        assert_eq!(mode(&path), 0o600, "{name}");
        let text = std::fs::read_to_string(&path).unwrap();
        let key = text.trim().lines().last().unwrap();
        assert!(key.len() >= 32 && !banner.contains(key) && !said.contains(key), "{name} was printed");
    }
    let said_after = lotto.terminate().join("\n");
    for name in KEPT {
        let text = std::fs::read_to_string(secrets.join(name)).unwrap();
        assert!(!said_after.contains(text.trim()), "{name} was printed at the end");
    }
    // The demonstration keys are not kept in the directories whose files they protect.
    for inbox in ["printer-files", "vendor-files"] {
        let names: Vec<String> = std::fs::read_dir(dir.join(inbox))
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        assert!(names.iter().all(|n| !n.contains("identity")), "{inbox}: {names:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
