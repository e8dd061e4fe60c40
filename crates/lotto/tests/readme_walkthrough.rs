//! The README's instant walk-through, run verbatim (issue 14): the block after
//! `<!-- walkthrough: instant -->` is taken from README.md as it stands and run with bash against
//! a fresh `lotto` process, as a newcomer would run it: print run, printer's file, ticket, scan,
//! claim, receipt, the shop's and the operator's reads. The one line replaced is the definition
//! of `lotto` (`cargo run --release` there, this build's binary here), so the test does not build
//! the release profile; everything else is the README's text.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::process::Command;
use std::time::Duration;

use common::Lotto;

/// The README's block after `marker`, without its fences.
fn walkthrough(readme: &str, marker: &str) -> String {
    let after = readme.split_once(marker).unwrap_or_else(|| panic!("README.md has no {marker}")).1;
    let body = after.trim_start().strip_prefix("```sh\n").expect("the marker is followed by a ```sh block");
    body.split_once("\n```").expect("the block is closed").0.to_owned()
}

#[tokio::test]
async fn the_readme_instant_walkthrough_runs_verbatim() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let script = walkthrough(&readme, "<!-- walkthrough: instant -->");
    let definition = "lotto() { cargo run -q --release -- \"$@\"; }";
    assert_eq!(script.matches(definition).count(), 1, "the walk-through defines `lotto` as expected");
    let script =
        script.replace(definition, &format!("lotto() {{ {:?} \"$@\"; }}", env!("CARGO_BIN_EXE_lotto")));

    // A fresh machine: a database of its own, and a directory of its own for the files the
    // walk-through and lotto write (.lotto/printer-files, run.age, tickets.txt).
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("readme-walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    let lotto = Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_INSTANT_SCALE", "100".to_owned()),
            ("LOTTO_PRINTER_FILE_DIR", dir.join(".lotto/printer-files").display().to_string()),
            ("LOTTO_VENDOR_FILE_DIR", dir.join(".lotto/vendor-files").display().to_string()),
        ],
        Duration::from_secs(60),
    );
    let ran = tokio::task::spawn_blocking({
        let (dir, base) = (dir.clone(), lotto.base_url.clone());
        move || {
            Command::new("bash")
                .args(["-euo", "pipefail", "-c", &script])
                .current_dir(&dir)
                .env("LOTTO_URL", base)
                .env("DATABASE_URL", url)
                .env("LOTTO_LOG", "warn")
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
        assert!(out.contains(shown), "the walk-through did not show {shown:?}:\n{out}\n{err}");
    }
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
