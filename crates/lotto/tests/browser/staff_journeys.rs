//! What staff do under dual control in the console (issue 49 §Staff), each checked against what
//! the API says afterwards.

use reqwest::Method;
use serde_json::{Value, json};

use crate::Context;
use crate::journeys::{api, console_login, dollars, funded_player, get, operator, post, shot};
use crate::webdriver::Browser;

/// A goodwill credit: one operator proposes it from the player's file, saying why; the money
/// moves only when a second operator approves it from the queue (the first may not).
pub async fn two_operators_adjust_a_balance(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let player = funded_player(ctx, "gia@example.com", 5_000).await;
    let maker = operator(ctx, "adj-maker").await;
    operator(ctx, "adj-checker").await;

    console_login(ctx, browser, "adj-maker").await?;
    browser.click_button("Players").await?;
    browser.fill("#lookup-email", "gia@example").await?;
    browser.click_button("Find the player").await?;
    browser.wait_text("[data-testid=player-standing]", "active").await?;
    browser.select("#adjust-direction", "credit").await?;
    browser.fill("#adjust-amount", "12.50").await?;
    browser.fill("#adjust-reason", "goodwill: the game froze during her draw").await?;
    browser.click_button("Propose").await?;
    browser.wait_text("[data-testid=adjustment-proposed]", "waiting for a second operator").await?;
    shot(ctx, browser, "console-adjustment-proposed").await?;
    let waiting = get(ctx, "/v1/adjustments?state=proposed", &maker).await;
    let id =
        waiting["items"][0]["id"].as_str().ok_or_else(|| format!("nothing waits: {waiting}"))?.to_owned();
    let own = post(ctx, &format!("/v1/adjustments/{id}/approval"), &maker, serde_json::json!({})).await;
    if own["code"] != "second_operator_required" {
        return Err(format!("the proposer approved her own adjustment: {own}"));
    }
    let before = get(ctx, "/v1/me/wallet", &player).await;
    if before["balance"]["posted"] != 5_000 {
        return Err(format!("money moved before a second operator approved: {before}"));
    }
    browser.click_button("Log out").await?;

    console_login(ctx, browser, "adj-checker").await?;
    browser.click_button("Players").await?;
    let shown = browser.wait_text("[data-testid=adjustment-queue]", "gia@example.com").await?;
    if !shown.contains("Credit $12.50") || !shown.contains("adj-maker") || !shown.contains("the game froze") {
        return Err(format!("the queue does not say what, who and why: {shown:?}"));
    }
    shot(ctx, browser, "console-adjustment-queue").await?;
    browser.click_button("Approve").await?;
    browser.wait_text("[data-testid=adjustment-decided]", "the money has moved").await?;
    let after = get(ctx, "/v1/me/wallet", &player).await;
    if after["balance"]["posted"] != 6_250 {
        return Err(format!("the approved credit did not reach the wallet once: {after}"));
    }
    browser.click_button("Next").await?;
    browser.wait_text("[data-testid=adjustment-queue]", "None waiting").await.map(|_| ())
}

/// The regulator's records (issue 50): an operator finds what happened to a player in the
/// console's Records tab, narrows it to deposits, walks the chain, downloads a day's export and
/// has the console check the file against the chain.
pub async fn an_operator_finds_exports_and_checks_the_event_log(
    ctx: &Context,
    browser: &Browser,
) -> Result<(), String> {
    let player = funded_player(ctx, "rhea-records@example.com", 2_500).await;
    let me = get(ctx, "/v1/me", &player).await;
    let id = me["player"]["id"].as_str().ok_or_else(|| format!("no player id: {me}"))?.to_owned();
    operator(ctx, "rec-ops").await;
    console_login(ctx, browser, "rec-ops").await?;
    browser.click_button("Records").await?;
    browser.select("#events-subject", "player").await?;
    browser.fill("#events-value", &id).await?;
    browser.click_button("Find").await?;
    let shown = browser.wait_text("[data-testid=events]", "deposit").await?;
    if !shown.contains("registration") || !shown.contains("login") || !shown.contains("identity check") {
        return Err(format!("the player's events are not all shown: {shown:?}"));
    }
    browser.select("#events-kind", "deposit").await?;
    browser.click_button("Find").await?;
    browser.wait_text("[data-testid=events]", "2500").await?;
    let kinds = browser
        .script(
            "return [...document.querySelectorAll('[data-testid=events] tbody tr')].map(r => r.dataset.kind)",
        )
        .await?;
    if kinds != serde_json::json!(["deposit"]) {
        return Err(format!("narrowed to deposits, the table shows {kinds}"));
    }
    shot(ctx, browser, "console-records").await?;
    browser.click_button("Walk the chain").await?;
    browser.wait_text("[data-testid=events-chain]", "Intact").await?;
    browser.click_button("Prepare JSON lines").await?;
    let link = browser.find("[data-testid=events-download]").await?;
    let href = browser.attribute(&link, "href").await?.ok_or("the download has no address")?;
    let text = browser
        .script(&format!(
            "return decodeURIComponent({}.split(',').slice(1).join(','));",
            serde_json::json!(href)
        ))
        .await?;
    let text = text.as_str().ok_or("the download could not be read")?;
    if !text.starts_with("{\"export\":\"significant-events\"") {
        return Err(format!("the download is not an export: {}", &text[..text.len().min(200)]));
    }
    let file = std::env::temp_dir().join(format!("events-{}.jsonl", uuid::Uuid::now_v7()));
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    let input = browser.find("#events-file").await?;
    browser.type_into(&input, &file.display().to_string()).await?;
    let said = browser.wait_text("[data-testid=events-check-result]", "The file is intact").await;
    let _ = std::fs::remove_file(&file);
    let said = said?;
    if !said.contains("are the chain's, unaltered") {
        return Err(format!("the console did not match the file to the chain: {said:?}"));
    }
    Ok(())
}

/// The daily reports (issue 50): a player's deposit moved back a day in the journal (as a
/// lottery that had run a day longer would hold it) and a Keno play today. The operator opens
/// today's report (provisional, the play on its line, every account reconciled), the day before
/// (kept once opened: the deposit, no game), sees the kept days charted with their figures, and
/// downloads the day's CSV.
pub async fn an_operator_reads_the_daily_reports(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let player = funded_player(ctx, "dora-reports@example.com", 5_000).await;
    let me = get(ctx, "/v1/me", &player).await;
    let id = me["player"]["id"].as_str().ok_or_else(|| format!("no player id: {me}"))?.to_owned();
    let pool = sqlx::PgPool::connect(&ctx.database_url).await.map_err(|e| e.to_string())?;
    let mut conn = pool.acquire().await.map_err(|e| e.to_string())?;
    sqlx::raw_sql("SET session_replication_role = replica")
        .execute(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    sqlx::query(
        "UPDATE ledger.transfers SET created_at = created_at - interval '1 day'
          WHERE credit_account_id IN (SELECT id FROM ledger.accounts WHERE owner = $1 AND kind = 'player_wallet')",
    )
    .bind(&id)
    .execute(&mut *conn)
    .await
    .map_err(|e| e.to_string())?;
    sqlx::raw_sql("SET session_replication_role = DEFAULT")
        .execute(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    drop(conn);
    let played = post(
        ctx,
        "/v1/keno/tickets",
        &player,
        serde_json::json!({"option": "bet", "spots": [8], "tickets": 1}),
    )
    .await;
    if played["stake_cents"] != 100 {
        return Err(format!("the Keno play was not taken: {played}"));
    }
    operator(ctx, "report-ops").await;
    console_login(ctx, browser, "report-ops").await?;
    browser.click_button("Daily reports").await?;
    browser.wait_text("[data-testid=daily-reports]", "The day now open is").await?;
    browser.click_button("Today so far").await?;
    let today = browser.wait_text("[data-testid=daily-report]", "provisional").await?;
    let lines = browser.wait_text("[data-testid=report-lines]", "castle_keno").await?;
    if !lines.contains("online") || !lines.contains("Total") {
        return Err(format!("today's lines: {lines:?}"));
    }
    browser.wait_text("[data-testid=report-reconciliation]", "Every player account reconciles").await?;
    browser.click_button("Prepare CSV").await?;
    let link = browser.find("[data-testid=report-download]").await?;
    let href = browser.attribute(&link, "href").await?.ok_or("the download has no address")?;
    let csv = browser
        .script(&format!(
            "return decodeURIComponent({}.split(',').slice(1).join(','));",
            serde_json::json!(href)
        ))
        .await?;
    let csv = csv.as_str().ok_or("the download could not be read")?;
    if !csv.starts_with("gaming_day,game,channel,plays,handle")
        || !csv.contains(",castle_keno,online,")
        || !csv.contains(",total,,")
    {
        return Err(format!("the CSV: {csv:?} (the page said {today:?})"));
    }
    // The day before: over, so made and kept when opened.
    browser.click_button("The day before").await?;
    let before =
        browser.wait_text("[data-testid=report-reconciliation]", "Every player account reconciles").await?;
    let made = browser.wait_text("[data-testid=report-made]", "made").await?;
    if made.contains("figures so far") {
        return Err(format!("the day before is not kept: {made:?} {before:?}"));
    }
    browser.click_button("Show").await?;
    let days = browser.wait_text("[data-testid=report-days]", "all reconciled").await?;
    browser.find("figure.chart canvas").await?;
    shot(ctx, browser, "console-daily-reports").await?;
    // An instant game's end of sales, recorded in the Liability tab: its last claim day shown
    // (2099-12-31 is a Thursday: 180 days on, Tuesday 2100-06-29).
    browser.click_button("Liability").await?;
    browser.select("#sales-end-game", "228").await?;
    browser.fill("#sales-end-date", "12312099").await?;
    browser.click_button("Record the end of sales").await?;
    let ends = browser.wait_text("[data-testid=sales-ends-table]", "2100-06-29").await?;
    if !ends.contains("2099-12-31") || !ends.contains("claimable until the last day") {
        return Err(format!("the end of sales: {ends:?}"));
    }
    browser.click_button("Daily reports").await?;
    browser.click_button("Show").await?;
    browser.wait_text("[data-testid=report-days]", "all reconciled").await?;
    // The one day kept: the day before, whose only moves were the deposit moved back.
    let row = browser
        .script("return document.querySelector('[data-testid=report-days] tbody tr').innerText")
        .await?;
    if !row.as_str().is_some_and(|r| r.contains("1 active, all reconciled") && r.contains("$0.00")) {
        return Err(format!("the kept day: {row} (of {days:?})"));
    }
    Ok(())
}

/// A grand prize taken as an annuity (issue 50), on a `lotto` of its own whose draws' clock runs
/// to 45 seconds before a drawing's close (`LOTTO_CLOCK_OFFSET_SECONDS`, as the README's Powerball
/// walk-through runs it): a till sells a board, the drawing closes, two operators enter results
/// that match it and `lotto verify-draw` certifies them (all by the API and the command, as the
/// other journeys do at the console); then the operator pays the prize at the office in the
/// console, the annuity by default, and reads its schedule beneath: 30 payments, the first paid
/// and the rest owed, each as the API lists it, with its W-2G figures.
pub async fn an_operator_pays_a_grand_prize_as_an_annuity(
    main: &Context,
    browser: &Browser,
) -> Result<(), String> {
    let drawing = domain::powerball::schedule::Timetable::default()
        .next_open(chrono::Utc::now() + chrono::Duration::days(1));
    let offset = (drawing.sales_close - chrono::Duration::seconds(45) - chrono::Utc::now()).num_seconds();
    let database_url = platform::testing::fresh_database().await.map_err(|e| e.to_string())?;
    let lotto = crate::common::Lotto::start(
        &[
            ("DATABASE_URL", database_url.clone()),
            ("LOTTO_CLOCK_OFFSET_SECONDS", offset.to_string()),
            ("LOTTO_POWERBALL_EXPORT_DIR", main.dir.join(".lotto/powerball-annuity").display().to_string()),
            ("LOTTO_ADMIN_PASSWORD", crate::journeys::STAFF_PASSWORD.to_owned()),
        ],
        std::time::Duration::from_secs(60),
    );
    let ctx = &main.beside(&lotto.base_url, &database_url);
    main.kept.lock().map_err(|e| e.to_string())?.push(lotto);
    let date = drawing.date.to_string();
    let first = operator(ctx, "annuity-first").await;
    let second = operator(ctx, "annuity-second").await;
    let prize = json!({"advertised_cents": 2_000_000_000i64, "cash_value_cents": 950_000_000i64});
    let set =
        api(ctx, Method::PUT, &format!("/v1/powerball/draws/{date}/grand-prize"), &first, Some(prize)).await;
    if set["advertised_cents"] != 2_000_000_000i64 {
        return Err(format!("the grand prize was not set: {set}"));
    }
    let retailer = post(ctx, "/v1/retailers", &first, json!({"name": "Annuity Corner"})).await;
    let retailer = retailer["id"].as_str().unwrap_or_default().to_owned();
    let terminal =
        post(ctx, &format!("/v1/retailers/{retailer}/terminals"), &first, json!({"label": "till"})).await;
    let till = crate::common::log_in(&ctx.http, &ctx.base, json!({"api_key": terminal["api_key"]})).await;
    let (whites, red) = ([4, 18, 27, 41, 66], 9);
    let slip = json!({"boards": [{"whites": whites, "powerball": red}], "draws": 1});
    let ticket = post(ctx, "/v1/powerball/retail/tickets", &till, slip).await;
    let serial = ticket["serial"].as_str().ok_or_else(|| format!("no ticket sold: {ticket}"))?.to_owned();
    if ticket["drawings"][0]["draw_date"] != date.as_str() {
        return Err(format!("the ticket is not for the drawing {date}: {ticket}"));
    }

    // The close (45 s on), two agreeing entries, the recount's certificate.
    let drawing_path = format!("/v1/powerball/draws/{date}");
    until(ctx, &drawing_path, &first, |d| d["state"] != "scheduled").await?;
    let results = json!({"whites": whites, "powerball": red, "multiplier": 2});
    post(ctx, &format!("{drawing_path}/results"), &first, results.clone()).await;
    let stood = post(ctx, &format!("{drawing_path}/results"), &second, results).await;
    if stood["outcome"] != "results_stand" {
        return Err(format!("the second entry did not make the results stand: {stood}"));
    }
    until(ctx, &drawing_path, &first, |d| d["state"] == "settled").await?;
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["verify-draw", &date])
        .env("DATABASE_URL", &ctx.database_url)
        .env("LOTTO_LOG", "warn")
        .output()
        .map_err(|e| e.to_string())?;
    if !verified.status.success() {
        return Err(format!("lotto verify-draw failed: {}", String::from_utf8_lossy(&verified.stderr)));
    }

    // At the office, in the console: the annuity is the default election.
    console_login(ctx, browser, "annuity-first").await?;
    browser.click_button("Office claims").await?;
    browser.fill("#pb-claim-serial", &serial).await?;
    browser.fill("#pb-claim-name", "Ada Annuitant").await?;
    browser.fill("#pb-claim-tin", "4321").await?;
    browser.click_button("Pay the prize").await?;
    let paid = browser.wait_text("[data-testid=pb-office-paid]", "30 payments, the first paid now").await?;
    let listed = get(ctx, "/v1/powerball/annuities", &first).await;
    let annuity = listed
        .as_array()
        .and_then(|all| all.iter().find(|a| a["serial"] == serial.as_str()))
        .cloned()
        .ok_or_else(|| format!("the API lists no annuity for {serial}: {listed}"))?;
    let payments = annuity["payments"].as_array().cloned().unwrap_or_default();
    let cents = |v: &Value| v.as_i64().unwrap_or(-1);
    if payments.len() != 30
        || payments.iter().map(|p| cents(&p["amount_cents"])).sum::<i64>() != cents(&annuity["total_cents"])
        || annuity["paid_cents"] != payments[0]["amount_cents"]
        || !paid.contains(&dollars(cents(&payments[0]["amount_cents"])))
    {
        return Err(format!(
            "the annuity is not 30 payments adding up, the first paid ({paid:?}): {annuity}"
        ));
    }

    // The schedule beneath: its line, then its 30 payments as the API lists them.
    let line = format!("1 of 30 paid ({})", dollars(cents(&annuity["paid_cents"])));
    let section = browser.wait_text("[data-testid=annuities]", &serial).await?;
    if !section.contains(&line) || !section.contains(&dollars(cents(&annuity["owed_cents"]))) {
        return Err(format!("the schedule's line does not say {line:?} and what is owed: {section:?}"));
    }
    browser
        .click(
            &browser
                .find(&format!(
                    "details[data-claim='{}'] summary",
                    annuity["claim_id"].as_str().unwrap_or_default()
                ))
                .await?,
        )
        .await?;
    let rows = browser.all("[data-testid=annuity-payments] tbody tr").await?;
    if rows.len() != 30 {
        return Err(format!("the schedule shows {} payments, not 30", rows.len()));
    }
    for (row, payment) in rows.iter().zip(&payments) {
        let shown = browser.text(row).await?;
        let owed = payment["paid_at"].is_null();
        let expected = [
            payment["due_on"].as_str().unwrap_or("?").to_owned(),
            dollars(cents(&payment["amount_cents"])),
            dollars(cents(&payment["withheld_cents"])),
            dollars(cents(&payment["net_cents"])),
        ];
        if expected.iter().any(|e| !shown.contains(e.as_str())) || shown.ends_with("owed") != owed {
            return Err(format!(
                "payment {} is shown as {shown:?}, the API says {payment}",
                payment["number"]
            ));
        }
    }
    if !payments[1]["paid_at"].is_null() {
        return Err(format!("the second payment is paid already: {}", payments[1]));
    }
    shot(ctx, browser, "console-annuity-schedule").await
}

/// Reads `path` until `done` holds of it (a minute at most).
async fn until(ctx: &Context, path: &str, token: &str, done: impl Fn(&Value) -> bool) -> Result<(), String> {
    let mut last = Value::Null;
    for _ in 0..240 {
        last = get(ctx, path, token).await;
        if done(&last) {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    Err(format!("{path} did not come to pass: {last}"))
}
