//! What staff do under dual control in the console (issue 49 §Staff), each checked against what
//! the API says afterwards.

use crate::Context;
use crate::journeys::{console_login, funded_player, get, operator, post, shot};
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
