//! The web client in a real browser (issue 15): Debian's Chromium, headless, driven through
//! chromedriver (WebDriver) against a `lotto` process started as a user starts it, on a fresh
//! database. Each scenario is a user's journey through the pages, checked against what the API
//! then says, with a screenshot saved; every scenario fails if the page logged a console error.
//!
//! It runs as its own harness (`harness = false`): the scenarios share one `lotto` and one
//! chromedriver, run one after another (each in a fresh browser profile), and the run prints
//! each one's time. Screenshots go to `$CARGO_TARGET_TMPDIR/screenshots/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout, clippy::print_stderr)]

#[path = "../common/mod.rs"]
mod common;
mod journeys;
mod logs;
mod staff_journeys;
mod webdriver;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::{Duration, Instant};

use common::Lotto;
use webdriver::{Browser, Driver};

/// What every scenario may use: the platform's address, an HTTP client to check what the page
/// did, and where files go.
#[derive(Debug)]
pub struct Context {
    pub base: String,
    pub http: reqwest::Client,
    pub database_url: String,
    pub dir: PathBuf,
    /// Where each screen's picture goes.
    pub screenshots: PathBuf,
    /// axe-core's script (from the web client's npm toolchain), run on every screen pictured.
    pub axe: String,
    /// Other `lotto` processes a journey started (on a clock of their own), kept running until
    /// the run ends: the page the journey ends on is still being served when it is pictured.
    pub kept: std::sync::Mutex<Vec<Lotto>>,
}

impl Context {
    /// The same run's context for another `lotto` a journey started (at `base`, on `database_url`).
    pub fn beside(&self, base: &str, database_url: &str) -> Context {
        Context {
            base: base.to_owned(),
            http: self.http.clone(),
            database_url: database_url.to_owned(),
            dir: self.dir.clone(),
            screenshots: self.screenshots.clone(),
            axe: self.axe.clone(),
            kept: std::sync::Mutex::default(),
        }
    }
}

/// axe-core as the web client's toolchain installs it (`npm ci` in `web/`, run here if it was not).
fn axe_core() -> String {
    let web = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let script = web.join("node_modules/axe-core/axe.min.js");
    if !script.is_file() {
        let installed = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&web)
            .status()
            .unwrap_or_else(|e| panic!("npm, to install axe-core in web/: {e}"));
        assert!(installed.success(), "npm ci in web/ failed");
    }
    std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("{}: {e}", script.display()))
}

/// The other width every screen is pictured at: a phone's beside a desktop's, and the reverse.
fn other_size(width: u32) -> (u32, u32) {
    if width < 500 { (1280, 900) } else { (390, 844) }
}

/// The tallest picture, in CSS pixels: a longer page is cut there.
const TALLEST_PICTURE: u32 = 4_000;

/// Pictures of the page as it is now at the journey's width and at the other, as
/// `{stem}-{width}.png`, each of the whole page from its top (the window made as tall as the
/// page, up to [`TALLEST_PICTURE`]: what a phone scrolls to is seen too), checked by axe-core
/// for serious or critical violations and for anything wider than the screen outside a frame
/// that scrolls; the page is left at the journey's size.
pub async fn picture(context: &Context, browser: &Browser, stem: &str) -> Result<(), String> {
    let (width, _) = browser.size;
    let mut violations = Vec::new();
    for (w, h) in [browser.size, other_size(width)] {
        browser.emulate(w, h).await?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let tall = browser.page_height().await?.clamp(h, TALLEST_PICTURE.max(h));
        if tall > h {
            browser.emulate(w, tall).await?;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let path = context.screenshots.join(format!("{stem}-{w}.png"));
        browser.screenshot(&path).await?;
        let wide = browser.overflowing(w).await?;
        if !wide.is_empty() {
            violations.push(format!("{w} px: wider than the screen: {wide:?}"));
        }
        violations.extend(
            browser.accessibility_violations(&context.axe).await?.into_iter().map(|v| format!("{w} px: {v}")),
        );
    }
    browser.restore_size().await?;
    if violations.is_empty() { Ok(()) } else { Err(format!("axe-core finds on {stem}: {violations:#?}")) }
}

type Journey = for<'a> fn(&'a Context, &'a Browser) -> Pin<Box<dyn Future<Output = Result<(), String>> + 'a>>;

/// (name, window width, window height, the journey).
const JOURNEYS: &[(&str, u32, u32, Journey)] = &[
    ("player_registers_deposits_and_plays_keno", 1280, 900, |c, b| Box::pin(journeys::player_keno(c, b))),
    ("operator_decides_an_identity_check_sent_to_review", 1280, 900, |c, b| {
        Box::pin(journeys::operator_decides_an_identity_review(c, b))
    }),
    ("two_operators_adjust_a_balance_maker_and_checker", 1280, 900, |c, b| {
        Box::pin(staff_journeys::two_operators_adjust_a_balance(c, b))
    }),
    ("operator_finds_exports_and_checks_the_event_log", 1280, 900, |c, b| {
        Box::pin(staff_journeys::an_operator_finds_exports_and_checks_the_event_log(c, b))
    }),
    ("operator_reads_the_daily_reports_and_downloads_a_day", 1280, 1000, |c, b| {
        Box::pin(staff_journeys::an_operator_reads_the_daily_reports(c, b))
    }),
    ("player_resets_a_forgotten_password_by_the_mailed_link", 1280, 900, |c, b| {
        Box::pin(journeys::player_resets_a_forgotten_password(c, b))
    }),
    ("player_plays_a_blackjack_round_to_the_end", 1280, 900, |c, b| {
        Box::pin(journeys::player_blackjack(c, b))
    }),
    ("player_plays_i_luv_suits_to_the_showdown", 1280, 900, |c, b| {
        Box::pin(journeys::player_i_luv_suits(c, b))
    }),
    ("player_bets_and_rolls_at_a_craps_table", 1280, 900, |c, b| Box::pin(journeys::player_craps(c, b))),
    ("player_buys_powerball_online_and_checks_the_ticket", 1280, 1000, |c, b| {
        Box::pin(journeys::player_powerball(c, b))
    }),
    ("player_reads_the_wallet_history_newest_first_and_downloads_it", 1280, 900, |c, b| {
        Box::pin(journeys::player_reads_the_wallet_history(c, b))
    }),
    ("player_keeps_a_hand_through_renewals_and_finds_it_after_an_idle_logout", 1280, 900, |c, b| {
        Box::pin(journeys::player_session_survives_renewal_and_idle_timeout(c, b))
    }),
    ("player_sets_limits_and_recalls_games_by_keyboard_at_phone_width", 390, 844, |c, b| {
        Box::pin(journeys::player_phone_keyboard(c, b))
    }),
    ("player_closes_the_account_and_asks_to_reopen", 1280, 900, |c, b| {
        Box::pin(journeys::player_closes_the_account_and_asks_to_reopen(c, b))
    }),
    ("retailer_scans_validates_and_pays_a_ticket", 1280, 900, |c, b| Box::pin(journeys::retailer_pays(c, b))),
    ("retailer_sells_powerball_and_keeps_an_early_ticket_unpaid", 1280, 1000, |c, b| {
        Box::pin(journeys::retailer_sells_powerball(c, b))
    }),
    ("operator_sees_live_draws_verifies_audit_and_opens_par_charts", 1280, 1000, |c, b| {
        Box::pin(journeys::operator_console(c, b))
    }),
    ("operator_enters_powerball_results_with_a_second_operator_and_certifies", 1280, 1000, |c, b| {
        Box::pin(journeys::operator_enters_powerball_results(c, b))
    }),
    ("operator_keeps_retailers_terminals_and_packs", 1280, 1000, |c, b| {
        Box::pin(journeys::operator_keeps_retailers_terminals_and_packs(c, b))
    }),
    ("operator_pays_a_prize_at_the_office_with_its_w2g", 1280, 1000, |c, b| {
        Box::pin(journeys::operator_pays_a_prize_at_the_office(c, b))
    }),
    ("operator_keeps_the_exclusion_lists_and_sees_dormant_accounts", 1280, 1000, |c, b| {
        Box::pin(journeys::operator_keeps_the_exclusion_lists(c, b))
    }),
    ("operator_pays_a_grand_prize_as_an_annuity_and_reads_its_schedule", 1280, 1000, |c, b| {
        Box::pin(staff_journeys::an_operator_pays_a_grand_prize_as_an_annuity(c, b))
    }),
];

#[tokio::main]
async fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let screenshots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&screenshots).unwrap();
    let url = platform::testing::fresh_database().await.unwrap();
    let dir = platform::config::scratch_dir("browser-tests");
    std::fs::create_dir_all(&dir).unwrap();
    // What lotto logs, as JSON lines at `info` (a line per request), scanned at the end.
    let log = dir.join("lotto.log");
    let lotto = Lotto::start_logging(
        &[
            ("LOTTO_LOG", "info,sqlx=warn".to_owned()),
            ("LOTTO_LOG_FORMAT", "json".to_owned()),
            ("DATABASE_URL", url.clone()),
            ("LOTTO_INSTANT_SCALE", "100".to_owned()),
            ("LOTTO_KENO_DRAW_INTERVAL_SECONDS", "10".to_owned()),
            ("LOTTO_POWERBALL_ONLINE", "true".to_owned()),
            ("LOTTO_PRINTER_FILE_DIR", dir.join(".lotto/printer-files").display().to_string()),
            ("LOTTO_VENDOR_FILE_DIR", dir.join(".lotto/vendor-files").display().to_string()),
            ("LOTTO_SECRETS_DIR", dir.join(".lotto/secrets").display().to_string()),
            ("LOTTO_POWERBALL_EXPORT_DIR", dir.join(".lotto/powerball").display().to_string()),
            ("LOTTO_ADMIN_PASSWORD", journeys::STAFF_PASSWORD.to_owned()),
        ],
        Duration::from_secs(60),
        std::fs::File::create(&log).unwrap(),
    );
    let driver = Driver::start().await.unwrap_or_else(|e| panic!("{e}"));
    let context = Context {
        base: lotto.base_url.clone(),
        http: reqwest::Client::new(),
        database_url: url,
        dir,
        screenshots: screenshots.clone(),
        axe: axe_core(),
        kept: std::sync::Mutex::default(),
    };
    let started = Instant::now();
    let mut failed = Vec::new();
    let mut ran = 0;
    println!("\nrunning {} browser tests (Chromium headless through chromedriver)", JOURNEYS.len());
    for (name, width, height, journey) in JOURNEYS {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        ran += 1;
        let began = Instant::now();
        let browser = Browser::open(&driver, *width, *height).await.unwrap_or_else(|e| panic!("{e}"));
        let mut outcome = journey(&context, &browser).await;
        // The screen the journey ends on, at its width and at the other, checked by axe-core.
        let shot = screenshots.join(format!("{name}-{width}.png"));
        if let Err(e) = picture(&context, &browser, name).await {
            outcome = outcome.and(Err(e));
        }
        match browser.console_errors().await {
            Ok(errors) if !errors.is_empty() => {
                outcome = outcome.and(Err(format!("the page logged console errors: {errors:#?}")));
            }
            Ok(_) => {}
            Err(e) => outcome = outcome.and(Err(format!("cannot read the console: {e}"))),
        }
        browser.close().await;
        let seconds = began.elapsed().as_secs_f64();
        match outcome {
            Ok(()) => println!("test {name} ... ok ({seconds:.1} s, {})", shot.display()),
            Err(e) => {
                println!("test {name} ... FAILED ({seconds:.1} s, {})\n    {e}", shot.display());
                failed.push(*name);
            }
        }
    }
    drop(driver);
    drop(context.kept);
    drop(lotto);
    ran += 1;
    if let Err(e) = logs::nothing_secret(&log, &context.dir, filter.is_none()) {
        println!("test the_run_logs_json_lines_and_no_secret ... FAILED\n    {e}");
        failed.push("the_run_logs_json_lines_and_no_secret");
    } else {
        println!("test the_run_logs_json_lines_and_no_secret ... ok");
    }
    let total = started.elapsed().as_secs_f64();
    if failed.is_empty() {
        println!("\ntest result: ok. {ran} passed; 0 failed; finished in {total:.1}s\n");
    } else {
        println!(
            "\ntest result: FAILED. {} passed; {} failed ({failed:?}); finished in {total:.1}s\n",
            ran - failed.len(),
            failed.len()
        );
        std::process::exit(1);
    }
}
