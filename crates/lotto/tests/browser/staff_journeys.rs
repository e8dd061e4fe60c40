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
