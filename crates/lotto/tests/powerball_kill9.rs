//! Powerball killed between the close and the certification (issue 13): the real `lotto`
//! process, on a clock shifted to meet a drawing's close (`LOTTO_CLOCK_OFFSET_SECONDS`), sells
//! slips at a terminal and online until sales close, and is SIGKILLed at random moments through
//! the close and export, the drawing of the results and the settlement, and the payment of online
//! prizes after `lotto verify-draw` certifies it; restarted each time. Then every step happened
//! exactly once: the wagers moved from escrow once, the prize total once, each online prize paid
//! once, the export certified against the settlement, the ledger balanced.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::print_stdout)]

mod common;

use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, Utc};
use common::{Lotto, SECRET};
use platform::auth::{Role, TokenKeys};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde_json::{Value, json};

const WEBHOOK_SECRET: &str = "powerball-kill9-webhook-key-0123456789ab";

/// `lotto` with the draws' clock shifted so that "now" is `now_at` (the real now, give or take
/// the start); returns the process and the offset it runs with.
fn start_at(env: &[(&str, String)], now_at: DateTime<Utc>) -> (Lotto, i64) {
    let offset = (now_at - Utc::now()).num_seconds();
    let mut env = env.to_vec();
    env.push(("LOTTO_CLOCK_OFFSET_SECONDS", offset.to_string()));
    (Lotto::start(&env, Duration::from_secs(60)), offset)
}

/// Sleeps until the shifted clock (real now + `offset`) reaches `at`.
async fn until_shifted(offset: i64, at: DateTime<Utc>) {
    let now = Utc::now() + chrono::Duration::seconds(offset);
    if let Ok(wait) = (at - now).to_std() {
        tokio::time::sleep(wait).await;
    }
}

/// Polls the drawing's row until `sql` (a boolean over `pb_draws` for the date) holds.
async fn until_drawing(pool: &sqlx::PgPool, date: chrono::NaiveDate, sql: &str, what: &str) {
    for _ in 0..600 {
        let holds: Option<bool> =
            sqlx::query_scalar(&format!("SELECT {sql} FROM draws.pb_draws WHERE draw_date = $1"))
                .bind(date)
                .fetch_optional(pool)
                .await
                .unwrap();
        if holds == Some(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the drawing never got {what}");
}

#[tokio::test]
async fn killed_between_the_close_and_the_certification_the_drawing_settles_and_pays_once() {
    let url = platform::testing::fresh_database().await.unwrap();
    let keys = TokenKeys::from_secret(SECRET.as_bytes()).unwrap();
    let exports = platform::config::scratch_dir("powerball-kill9");
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    // A drawing a day or more ahead: its close, and its drawing an hour later.
    let drawing =
        domain::powerball::schedule::Timetable::default().next_open(Utc::now() + chrono::Duration::days(1));
    let date = drawing.date;
    let env = [
        ("DATABASE_URL", url.clone()),
        ("LOTTO_POWERBALL_RESULTS", "drawn".to_owned()),
        ("LOTTO_POWERBALL_ONLINE", "true".to_owned()),
        ("LOTTO_POWERBALL_EXPORT_DIR", exports.display().to_string()),
        ("LOTTO_PAYMENTS_WEBHOOK_SECRET", WEBHOOK_SECRET.to_owned()),
        ("LOTTO_SANDBOX_DELAY_MS", "20".to_owned()),
    ];
    let (lotto, offset) = start_at(&env, drawing.sales_close - chrono::Duration::seconds(30));
    let http = reqwest::Client::new();
    let base = lotto.base_url.clone();

    // Two players with money, and a till.
    let mut players = Vec::new();
    for i in 0..2 {
        let token =
            common::player(&http, &base, &format!("pb{i}@example.com"), "correct horse battery staple").await;
        let intent = http
            .post(format!("{base}/v1/me/deposits"))
            .bearer_auth(&token)
            .header("idempotency-key", "fund")
            .json(&json!({"amount": 500_000, "currency": "USD"}))
            .send()
            .await
            .unwrap();
        assert_eq!(intent.status(), 202);
        common::until_posted(&http, &base, &token, 500_000).await;
        players.push(token);
    }
    let till =
        keys.issue_for("till-pb", Role::Retailer, None, Some("shop-pb"), Duration::from_secs(7200)).unwrap();
    // The operator advertises the grand prize before the close (a drawing without one waits).
    let operator = keys.issue("ops-pb", Role::Operator, None, Duration::from_secs(7200)).unwrap();
    let advertised = http
        .put(format!("{base}/v1/powerball/draws/{date}/grand-prize"))
        .bearer_auth(&operator)
        .json(&json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64}))
        .send()
        .await
        .unwrap();
    assert_eq!(advertised.status(), 200, "{}", advertised.text().await.unwrap());

    // Sales until three seconds before the close: slips of ten quick picks with Power Play.
    let (mut sold_terminal, mut sold_online) = (0, 0);
    let stop = drawing.sales_close - chrono::Duration::seconds(3);
    let mut n = 0;
    while Utc::now() + chrono::Duration::seconds(offset) < stop && n < 60 {
        n += 1;
        let slip = json!({"quick_picks": 10, "power_play": true});
        let (path, token) = if n % 2 == 0 {
            ("/v1/powerball/retail/tickets", till.clone())
        } else {
            ("/v1/powerball/tickets", players[n % 4 / 2].clone())
        };
        let sold = http
            .post(format!("{base}{path}"))
            .bearer_auth(&token)
            .header("idempotency-key", format!("slip-{n}"))
            .json(&slip)
            .send()
            .await
            .unwrap();
        let status = sold.status().as_u16();
        let body: Value = sold.json().await.unwrap();
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["drawings"][0]["draw_date"].as_str(), Some(date.to_string().as_str()), "{body}");
        if n % 2 == 0 { sold_terminal += 1 } else { sold_online += 1 }
    }
    assert!(
        sold_terminal >= 5 && sold_online >= 5,
        "too few sales before the close: {sold_terminal} {sold_online}"
    );

    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut kills = 0;
    // Killed at the close, and again while the new leader closes and exports.
    until_shifted(offset, drawing.sales_close + chrono::Duration::milliseconds(rng.random_range(0..1_500)))
        .await;
    lotto.kill();
    kills += 1;
    let lotto = Lotto::start(&env_with(&env, offset), Duration::from_secs(60));
    tokio::time::sleep(Duration::from_millis(rng.random_range(50..800))).await;
    lotto.kill();
    kills += 1;
    let lotto = Lotto::start(&env_with(&env, offset), Duration::from_secs(60));
    until_drawing(&pool, date, "export_sha256 IS NOT NULL", "closed and exported").await;

    // An hour on, to the drawing: killed as the results are drawn and the winners found.
    lotto.kill();
    kills += 1;
    let (lotto, offset) = start_at(&env, drawing.drawing - chrono::Duration::seconds(4));
    until_shifted(offset, drawing.drawing + chrono::Duration::milliseconds(rng.random_range(0..1_200))).await;
    lotto.kill();
    kills += 1;
    let lotto = Lotto::start(&env_with(&env, offset), Duration::from_secs(60));
    until_drawing(&pool, date, "state = 'settled'", "settled").await;

    // The independent recount certifies it; killed while the online prizes are paid.
    let verified = Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["verify-draw", &date.to_string()])
        .env("DATABASE_URL", &url)
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&verified.stdout).into_owned();
    assert!(verified.status.success(), "{said}{}", String::from_utf8_lossy(&verified.stderr));
    tokio::time::sleep(Duration::from_millis(rng.random_range(0..400))).await;
    lotto.kill();
    kills += 1;
    let lotto = Lotto::start(&env_with(&env, offset), Duration::from_secs(60));
    until_drawing(&pool, date, "state = 'certified' AND online_paid_at IS NOT NULL", "certified and paid")
        .await;

    // Exactly once, every step.
    let scalar = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>(sql).bind(date).fetch_one(&pool).await.unwrap() }
    };
    let wagers = scalar("SELECT wagers_cents FROM draws.pb_draws WHERE draw_date = $1").await;
    let sold = scalar("SELECT coalesce(sum(cost_cents), 0)::bigint FROM draws.pb_tickets WHERE first_draw = $1 AND state = 'sold'").await;
    assert_eq!(wagers, sold, "the frozen wagers are every sale's");
    let moved = scalar(
        "SELECT coalesce(sum(amount), 0)::bigint FROM ledger.transfers
          WHERE metadata->>'game' = 'powerball' AND metadata->>'draw_date' = $1::text AND metadata->>'serial' IS NULL",
    )
    .await;
    let prizes = scalar(
        "SELECT coalesce(sum(total_cents), 0)::bigint FROM draws.pb_prize_tables WHERE draw_date = $1",
    )
    .await;
    assert_eq!(moved, wagers + prizes, "the wagers moved once and the prize total once");
    let winners =
        scalar("SELECT coalesce(sum(prize_cents), 0)::bigint FROM draws.pb_winners WHERE draw_date = $1")
            .await;
    assert_eq!(winners, prizes, "the prize table is its winners'");
    let wrong = scalar(
        "SELECT count(*) FROM draws.pb_winners w
          WHERE w.draw_date = $1 AND w.online AND w.prize_cents <= 59900
            AND (SELECT coalesce(sum(amount), 0) FROM ledger.transfers t
                  WHERE t.metadata->>'draw_date' = $1::text AND t.metadata->>'serial' = w.serial::text)
                <> (SELECT sum(prize_cents) FROM draws.pb_winners v
                     WHERE v.draw_date = $1 AND v.serial = w.serial)",
    )
    .await;
    assert_eq!(wrong, 0, "an online prize paid other than once");
    let online_paid = scalar(
        "SELECT coalesce(sum(amount), 0)::bigint FROM ledger.transfers
          WHERE metadata->>'draw_date' = $1::text AND metadata->>'serial' IS NOT NULL",
    )
    .await;
    let service = keys.service_token("pb-kill9").unwrap();
    let get = |path: &str| {
        let request = http.get(format!("{}{path}", lotto.base_url)).bearer_auth(&service);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    assert_eq!(get("/v1/reports/trial-balance").await["balanced"], true);
    assert_eq!(get("/v1/reports/journal-check").await["consistent"], true);
    assert_eq!(get("/v1/draws/audit/verify").await["intact"], true);
    let shown = get(&format!("/v1/powerball/draws/{date}")).await;
    println!(
        "powerball kill -9: {kills} kills survived; {} plays, {wagers} cents wagered, {winners} cents won ({online_paid} paid online); {}",
        scalar("SELECT plays FROM draws.pb_draws WHERE draw_date = $1").await,
        said.trim()
    );
    assert_eq!(shown["state"], "certified", "{shown}");
    lotto.terminate();
}

/// `env` with the clock offset a restart keeps.
fn env_with<'a>(env: &[(&'a str, String)], offset: i64) -> Vec<(&'a str, String)> {
    let mut env = env.to_vec();
    env.push(("LOTTO_CLOCK_OFFSET_SECONDS", offset.to_string()));
    env
}
