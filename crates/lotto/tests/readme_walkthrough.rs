//! The walk-throughs the README links, run verbatim (issues 14 and 15): in `docs/walkthroughs.md`
//! the blocks after
//! `<!-- walkthrough: api -->` (accounts, money, Keno, live results, blackjack, the ledger, in
//! order, as one script), the block after `<!-- walkthrough: instant -->` and the one after
//! `<!-- walkthrough: powerball -->` (on a clock moved to just before a drawing's close) are taken
//! from the page as it stands and run with bash against a fresh `lotto` process, as a newcomer
//! would run them; the one after `<!-- walkthrough: cluster -->` (`docs/operations.md`) starts the replicated layout itself
//! (on free ports, `LOTTO_CLUSTER_PORT`), its replicas, a failover, a cut and a restore. The one line replaced is the definition of `lotto` (`cargo run --release` there,
//! this build's binary here), so the test does not build the release profile; everything else is
//! the README's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::Lotto;

/// A page of `docs/` as it stands (the README links each walk-through's page).
fn page(name: &str) -> String {
    let path = format!("{}/../../docs/{name}.md", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A page's blocks after each `marker`, without their fences, in order, as one script.
fn walkthrough(readme: &str, marker: &str) -> String {
    let blocks: Vec<&str> = readme
        .split(marker)
        .skip(1)
        .map(|after| {
            let body =
                after.trim_start().strip_prefix("```sh\n").expect("the marker is followed by a ```sh block");
            body.split_once("\n```").expect("the block is closed").0
        })
        .collect();
    assert!(!blocks.is_empty(), "the page has no {marker}");
    blocks.join("\n")
}

/// `script` with `lotto` defined as this build's binary instead of `cargo run --release`.
fn with_this_lotto(script: &str) -> String {
    let definition = "lotto() { cargo run -q --release -- \"$@\"; }";
    assert_eq!(script.matches(definition).count(), 1, "the walk-through defines `lotto` as expected");
    script.replace(definition, &format!("lotto() {{ {:?} \"$@\"; }}", env!("CARGO_BIN_EXE_lotto")))
}

/// Runs `script` with bash in `dir` against `lotto`; what it printed, or a failure with it all.
async fn run_walkthrough(script: String, dir: &std::path::Path, base: &str, url: &str) -> String {
    run_walkthrough_with(script, dir, base, url, Vec::new()).await
}

/// [`run_walkthrough`] with more of the environment a newcomer's shell would share with `lotto`.
async fn run_walkthrough_with(
    script: String,
    dir: &std::path::Path,
    base: &str,
    url: &str,
    env: Vec<(&'static str, String)>,
) -> String {
    let ran = tokio::task::spawn_blocking({
        let (dir, base, url) = (dir.to_owned(), base.to_owned(), url.to_owned());
        move || {
            Command::new("bash")
                .args(["-euo", "pipefail", "-c", &script])
                .current_dir(&dir)
                .env("LOTTO_URL", base)
                .env("DATABASE_URL", url)
                .env("LOTTO_LOG", "warn")
                .envs(env)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let out = String::from_utf8_lossy(&ran.stdout).into_owned();
    let err = String::from_utf8_lossy(&ran.stderr).into_owned();
    println!("{out}");
    assert!(ran.status.success(), "the walk-through stopped ({}):\n{out}\n{err}", ran.status);
    out
}

#[tokio::test]
async fn the_readme_api_walkthrough_runs_verbatim_and_again() {
    let readme = page("walkthroughs");
    let script = with_this_lotto(&walkthrough(&readme, "<!-- walkthrough: api -->"));
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("readme-api-walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    let lotto = Lotto::start(&[("DATABASE_URL", url.clone())], Duration::from_secs(60));
    let out = run_walkthrough(script.clone(), &dir, &lotto.base_url, &url).await;
    // What the README says each step shows.
    for shown in [
        "\"state\":\"succeeded\"",
        "{\"email\":\"ann@example.com\"}",
        "{\"state\":\"verified\",\"legal_name\":\"Ann Example\"}",
        "{\"result\":\"inside\",\"jurisdiction\":\"US-KS\"}",
        "{\"kind\":\"loss\",\"period\":\"daily\",\"cents\":10000,\"used\":0,\"left\":10000}",
        "204",
        "play_suspended",
        "\"state\":\"settled\"",
        "event: keno_open",
        "idempotent-replayed: true",
        "{\"transfers\":2,\"balances\":[{\"posted\":",
        "{\"amount\":300}\n{\"code\":\"insufficient_funds\"}",
        "\"balanced\":true",
    ] {
        assert!(out.contains(shown), "the walk-through did not show {shown:?}:\n{out}");
    }
    // A newcomer may run it again: names and keys taken the first time do not stop it.
    let again = run_walkthrough(script, &dir, &lotto.base_url, &url).await;
    assert!(again.contains("{\"code\":\"link_used\"}") && again.contains("\"balanced\":true"), "{again}");
    lotto.terminate();
}

#[tokio::test]
async fn the_readme_powerball_walkthrough_runs_verbatim_through_a_drawing() {
    let readme = page("walkthroughs");
    let script = with_this_lotto(&walkthrough(&readme, "<!-- walkthrough: powerball -->"));
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("readme-powerball-walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    // `lotto` as the README suggests for a demonstration: online sales on, and its draws clock
    // 45 seconds before a drawing's close (one a day or more ahead, so the shift is forward).
    let drawing = domain::powerball::schedule::Timetable::default()
        .next_open(chrono::Utc::now() + chrono::Duration::days(1));
    let offset = (drawing.sales_close - chrono::Duration::seconds(45) - chrono::Utc::now()).num_seconds();
    let exports = dir.join(".lotto/powerball-exports").display().to_string();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_POWERBALL_ONLINE", "true".to_owned()),
            ("LOTTO_CLOCK_OFFSET_SECONDS", offset.to_string()),
            ("LOTTO_POWERBALL_EXPORT_DIR", exports.clone()),
        ],
        Duration::from_secs(60),
    );
    let env = vec![("LOTTO_POWERBALL_EXPORT_DIR", exports)];
    let out = run_walkthrough_with(script, &dir, &lotto.base_url, &url, env).await;
    for shown in [
        "\"advertised_cents\":2000000000",
        "\"state\":\"closed\"",
        "awaiting_second_entry",
        "results_stand",
        "certified",
        "\"tier\":\"three_powerball\"",
        "\"prize_cents\":20000",
    ] {
        assert!(out.contains(shown), "the walk-through did not show {shown:?}:\n{out}");
    }
    // The till's day, on the draws' clock: the prize it paid (the slip's chosen board's $200,
    // and whatever its quick picks won beside it).
    let line = |start: &str| -> serde_json::Value {
        let found =
            out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start} in:\n{out}"));
        serde_json::from_str(found).unwrap()
    };
    let claim = line("{\"prize_cents\":");
    let day = line("{\"tickets_sold\":");
    assert!(claim["paid_cents"].as_i64().unwrap() >= 20_000, "{claim}");
    assert_eq!(day["prizes_paid_cents"], claim["paid_cents"], "the day's prizes are the one paid:\n{out}");
    lotto.terminate();
}

#[tokio::test]
async fn the_readme_instant_walkthrough_runs_verbatim() {
    let readme = page("walkthroughs");
    let script = with_this_lotto(&walkthrough(&readme, "<!-- walkthrough: instant -->"));

    // A fresh machine: a database of its own, and a directory of its own for the files the
    // walk-through and lotto write (.lotto/printer-files, .lotto/secrets, .lotto/walkthrough).
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("readme-walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_INSTANT_SCALE", "100".to_owned()),
            ("LOTTO_PRINTER_FILE_DIR", dir.join(".lotto/printer-files").display().to_string()),
            ("LOTTO_VENDOR_FILE_DIR", dir.join(".lotto/vendor-files").display().to_string()),
            ("LOTTO_SECRETS_DIR", dir.join(".lotto/secrets").display().to_string()),
        ],
        Duration::from_secs(60),
    );
    let out = run_walkthrough(script, &dir, &lotto.base_url, &url).await;
    // What the README says each step shows.
    for shown in [
        "signature: the lottery's, and the file is as it signed it",
        "\"winner\":true",
        "INSTANT PRIZE PAID",
        "Status    PAID",
        "idempotent-replayed: true",
        "already_paid",
        "\"owed_cents\"",
    ] {
        assert!(out.contains(shown), "the walk-through did not show {shown:?}:\n{out}");
    }
    // Issue 47 §5: nothing is left beside the repository's files: what the walk-through wrote
    // (every ticket's VIRN in clear among it) is under .lotto/, which git ignores.
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [".lotto"], "the walk-through left files in the working directory");
    assert!(dir.join(".lotto/walkthrough/tickets.txt").is_file());
    // `lotto` is local mode: a front end's dev server on this machine may call it from a browser.
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("{}/v1/keno/tickets", lotto.base_url))
        .header("origin", "http://localhost:5173")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization, content-type, idempotency-key")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    assert_eq!(preflight.headers()["access-control-allow-origin"], "http://localhost:5173");
    lotto.terminate();
}

/// What the cluster walk-through leaves if it stops half way: its layout (stopped as the README
/// stops it) and the replicas it started in the background (found by the base port in their
/// environment, which they inherit from the script).
struct ClusterLeftovers {
    dir: std::path::PathBuf,
    base_port: u16,
}

impl Drop for ClusterLeftovers {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_lotto"))
            .args(["cluster", "stop"])
            .env("LOTTO_CLUSTER_DIR", self.dir.join(".lotto/cluster"))
            .output();
        let marker = format!("LOTTO_CLUSTER_PORT={}", self.base_port);
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            if environ.split(|b| *b == 0).any(|var| var == marker.as_bytes())
                && let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>()
                && pid != std::process::id()
            {
                let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            }
        }
    }
}

#[tokio::test]
async fn the_readme_cluster_walkthrough_runs_verbatim() {
    let readme = page("operations");
    let script = with_this_lotto(&walkthrough(&readme, "<!-- walkthrough: cluster -->"));
    let dir = platform::config::scratch_dir("readme-cluster-walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    let base_port = common::cluster::free_ports();
    let leftovers = ClusterLeftovers { dir: dir.clone(), base_port };
    let url = format!("postgres://postgres@127.0.0.1:{base_port}/lotto");
    let front = format!("http://127.0.0.1:{}", base_port + 30);
    let env = vec![("LOTTO_CLUSTER_PORT", base_port.to_string())];
    let out = run_walkthrough_with(script, &dir, &front, &url, env).await;
    for shown in [
        format!("DATABASE_URL={url}"),
        "ready".to_owned(),
        "killed member".to_owned(),
        "cut member".to_owned(),
        "healed: [\"member".to_owned(),
        "restore point before-close at".to_owned(),
        format!("DATABASE_URL=postgres://postgres@127.0.0.1:{}/lotto", base_port + 50),
        "stopped".to_owned(),
    ] {
        assert!(out.contains(&shown), "the walk-through did not show {shown:?}:\n{out}");
    }
    let primaries = out.lines().filter(|l| l.starts_with("member") && l.contains(": master,")).count();
    assert_eq!(primaries, 1, "one primary in the status:\n{out}");
    drop(leftovers);
}
