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
