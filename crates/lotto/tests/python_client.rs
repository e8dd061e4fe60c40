//! The contract as a client developer meets it (issue 36): a Python client generated from
//! `openapi.yaml` by openapi-python-client (installed from PyPI by `.ci/run`, as a developer
//! installs it) must come out whole, and a first session written against it alone plays a
//! blackjack round and a craps roll against `lotto` started as a user starts it. What the
//! session reports is then checked against the API, and the books against the ledger.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::Lotto;
use serde_json::Value;

/// The one warning the generator may give: it does not take `text/csv` bodies, so the exclusion
/// list's file import (`POST /v1/exclusion-list/import`, an operator's upload) is left out.
const KNOWN_GAP: &str = "Unsupported content type text/csv";

/// Generates the client into `dir/lotto_api` and answers what the generator said.
fn generate(dir: &Path) -> String {
    let contract = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openapi.yaml");
    let out = Command::new("openapi-python-client")
        .args(["generate", "--meta", "none", "--overwrite", "--path"])
        .arg(&contract)
        .arg("--output-path")
        .arg(dir.join("lotto_api"))
        .output()
        .expect("openapi-python-client is installed (.ci/run installs it with pip)");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    said
}

#[tokio::test]
async fn a_generated_python_client_plays_a_blackjack_round_and_a_craps_roll() {
    let dir = platform::config::scratch_dir("python-client");
    std::fs::create_dir_all(&dir).unwrap();
    let said = generate(&dir);
    // Every schema and every operation came out, but the one named above.
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| {
            let l = l.to_lowercase();
            (l.starts_with("warning")
                || l.starts_with("unable")
                || l.contains("cannot")
                || l.contains("could not"))
                && !l.starts_with("warning(s) encountered")
                && !l.starts_with("warning parsing post /v1/exclusion-list/import")
        })
        .collect();
    assert!(warnings.is_empty(), "the generator left parts out:\n{said}");
    assert!(
        !said.contains("Warning(s)") || said.contains(KNOWN_GAP),
        "the generator warned of something else:\n{said}"
    );

    let url = platform::testing::fresh_database().await.unwrap();
    let lotto = Lotto::start(&[("DATABASE_URL", url.clone())], Duration::from_secs(60));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/play_with_generated_client.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .arg("lotto_api")
        .arg(&lotto.base_url)
        .arg("pia@example.com")
        .arg(common::mail_reader())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();

    // What the generated client read is what the API says, and the money is right.
    let http = reqwest::Client::new();
    let credentials =
        serde_json::json!({"email": "pia@example.com", "password": "correct horse battery staple"});
    let token = common::log_in(&http, &lotto.base_url, credentials).await;
    let token = token.as_str();
    let get = |path: String| {
        let request = http.get(format!("{}{path}", lotto.base_url)).bearer_auth(token);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let round = get(format!("/v1/blackjack/rounds/{}", report["round"].as_str().unwrap())).await;
    assert_eq!((round["state"].as_str(), report["round_state"].as_str()), (Some("settled"), Some("settled")));
    assert_eq!(round["returned_cents"], report["returned_cents"], "{round}");
    assert_eq!(report["staked_cents"], 1_000, "{report}");
    let session = get(format!("/v1/craps/sessions/{}", report["craps_session"].as_str().unwrap())).await;
    assert_eq!(session["rolls"], 1, "{session}");
    let dice = report["dice"].as_array().unwrap();
    let total: u64 = dice.iter().map(|d| d.as_u64().unwrap()).sum();
    assert_eq!(report["total"].as_u64(), Some(total), "{report}");
    // The pass bet is decided on 2, 3, 7, 11, 12 on the come-out and stays on a point.
    let decided = [2, 3, 7, 11, 12].contains(&total);
    assert_eq!(report["pass_bet"].as_array().unwrap().len(), usize::from(decided), "{report}");
    assert_eq!(report["on_layout_cents"], if decided { 0 } else { 500 }, "{report}");
    let wallet = get("/v1/me/wallet".to_owned()).await;
    let returned = round["returned_cents"].as_i64().unwrap();
    let pass_returned: i64 =
        report["pass_bet"].as_array().unwrap().iter().map(|o| o["returned_cents"].as_i64().unwrap()).sum();
    assert_eq!(
        wallet["balance"]["posted"].as_i64(),
        Some(10_000 - 1_000 + returned - 500 + pass_returned),
        "{wallet} {report}"
    );
    assert_eq!(report["balance_after_cents"], wallet["balance"]["posted"], "{report}");
    lotto.terminate();
}
