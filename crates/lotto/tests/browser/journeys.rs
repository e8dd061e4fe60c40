//! The journeys: what a player, a retailer and an operator do in the web client, each checked
//! against what the API says afterwards.

use std::time::Duration;

use serde_json::{Value, json};

use crate::Context;
use crate::webdriver::{Browser, ENTER};

pub const STAFF_PASSWORD: &str = "a long admin password for the browser";
pub(crate) const PLAYER_PASSWORD: &str = "correct horse battery staple";
/// The password a player sets after forgetting hers.
pub(crate) const NEW_PASSWORD: &str = "a new and different passphrase";

/// Cents as the page shows them ("$1,234.05").
pub(crate) fn dollars(cents: i64) -> String {
    let whole = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("${grouped}.{:02}", cents % 100)
}

/// An instant (RFC 3339) as the page shows it: the lottery's zone, labelled
/// ("Dec 6, 2026, 6:05 PM CST"), as `Intl` writes it in en-US.
fn central(at: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|t| t.with_timezone(&domain::text::LOTTERY_ZONE).format("%b %-d, %Y, %-I:%M %p %Z").to_string())
        .unwrap_or_else(|e| format!("not a time: {at} ({e})"))
}

pub(crate) async fn api(
    ctx: &Context,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> Value {
    let mut request = ctx.http.request(method, format!("{}{path}", ctx.base));
    if !token.is_empty() {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.header("idempotency-key", uuid::Uuid::new_v4().to_string()).json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

pub(crate) async fn get(ctx: &Context, path: &str, token: &str) -> Value {
    api(ctx, reqwest::Method::GET, path, token, None).await
}

pub(crate) async fn post(ctx: &Context, path: &str, token: &str, body: Value) -> Value {
    api(ctx, reqwest::Method::POST, path, token, Some(body)).await
}

/// A picture of the screen as it is now, named for what it shows (the end of a journey has its
/// own, taken by the runner).
pub(crate) async fn shot(ctx: &Context, browser: &Browser, screen: &str) -> Result<(), String> {
    crate::picture(ctx, browser, &format!("screen-{screen}")).await
}

/// The page's own session token for `area` (what the page sends), to check its work by the API.
async fn page_token(browser: &Browser, area: &str) -> Result<String, String> {
    browser
        .script(&format!(
            "return (JSON.parse(sessionStorage.getItem('lotto.{area}.session') || 'null') || {{}}).access"
        ))
        .await?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("the page holds no {area} session"))
}

/// A player registered, with `cents` deposited through the sandbox, by the API.
pub(crate) async fn funded_player(ctx: &Context, email: &str, cents: i64) -> String {
    let token = crate::common::player(&ctx.http, &ctx.base, email, PLAYER_PASSWORD).await;
    let intent = post(ctx, "/v1/me/deposits", &token, json!({"amount": cents, "currency": "USD"})).await;
    let id = intent["id"].as_str().unwrap().to_owned();
    for _ in 0..100 {
        if get(ctx, &format!("/v1/me/payments/{id}"), &token).await["state"] == "succeeded" {
            return token;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the sandbox did not confirm the deposit");
}

/// An operator (made with `lotto admin create-operator`, as the README does) and its token.
pub(crate) async fn operator(ctx: &Context, username: &str) -> String {
    crate::common::create_operator(&ctx.database_url, username, STAFF_PASSWORD);
    crate::common::staff_session(&ctx.http, &ctx.base, username, STAFF_PASSWORD).await
}

/// Staff member `username` (enrolled by [`operator`]) logs in to the console with their
/// password and one of their recovery codes.
pub(crate) async fn console_login(ctx: &Context, browser: &Browser, username: &str) -> Result<(), String> {
    browser.goto(&format!("{}/#/console", ctx.base)).await?;
    browser.fill("#staff-username", username).await?;
    browser.fill("#staff-password", STAFF_PASSWORD).await?;
    browser.fill("#staff-code", &crate::common::recovery_code(&ctx.base, username)).await?;
    browser.click_button("Log in").await
}

/// The link in the last message of `kind` mailed to `email`, as an operator reads the outbox,
/// pointed at this test's server (the message names the configured public address).
async fn mailed_link(ctx: &Context, email: &str, kind: &str) -> Result<String, String> {
    let op = operator(ctx, &format!("mail-{}", uuid::Uuid::now_v7().simple())).await;
    let page = get(ctx, &format!("/v1/mail?recipient={email}&limit=50"), &op).await;
    let items = page["items"].as_array().cloned().unwrap_or_default();
    let body = items
        .iter()
        .find(|m| m["kind"] == kind)
        .and_then(|m| m["body"].as_str())
        .ok_or_else(|| format!("no {kind} message to {email}: {page}"))?;
    let at = body.find("/#/").ok_or_else(|| format!("no link in {body:?}"))?;
    let path = body[at..].split_whitespace().next().unwrap_or_default();
    Ok(format!("{}{path}", ctx.base))
}

/// Forgot the password: the page asks for a link, the mailed link opens the page that sets a
/// new one (every session ended, nobody logged in), and the new password logs in.
pub async fn player_resets_a_forgotten_password(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let token = crate::common::player(&ctx.http, &ctx.base, "flo@example.com", PLAYER_PASSWORD).await;
    browser.goto(&format!("{}/#/play", ctx.base)).await?;
    browser.click(&browser.find("a[href='#/forgot-password']").await?).await?;
    browser.fill("#forgot-email", "flo@example.com").await?;
    browser.click_button("Send me a link").await?;
    browser.wait_text("[data-testid=forgot-said]", "If flo@example.com has an account").await?;
    shot(ctx, browser, "player-forgot-password").await?;
    let link = mailed_link(ctx, "flo@example.com", "reset_password").await?;
    browser.goto(&link).await?;
    browser.fill("#reset-password", NEW_PASSWORD).await?;
    browser.click_button("Set the new password").await?;
    browser.wait_text("[data-testid=reset-said]", "every device was logged out").await?;
    let before = ctx
        .http
        .get(format!("{}/v1/me", ctx.base))
        .bearer_auth(&token)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if before.status() != 401 {
        return Err(format!("the session before the reset still answers {}", before.status()));
    }
    browser.click(&browser.find("[data-testid=reset-said] a").await?).await?;
    browser.fill("#login-email", "flo@example.com").await?;
    browser.fill("#login-password", NEW_PASSWORD).await?;
    browser.click_button("Log in").await?;
    browser.find("[data-testid=balance]").await.map(|_| ())
}

/// An operator verifies by hand a player file the identity provider sent to review: the
/// console's queue shows it, a reason is required, and the player's identity is then verified.
pub async fn operator_decides_an_identity_review(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let token =
        crate::common::unverified_player(&ctx.http, &ctx.base, "rex@example.com", PLAYER_PASSWORD).await;
    let link = mailed_link(ctx, "rex@example.com", "verify_email").await?;
    let at = link.find("token=").ok_or("no token")?;
    let confirmed = post(ctx, "/v1/email-verifications", "", json!({"token": &link[at + 6..]})).await;
    if confirmed["email"] != "rex@example.com" {
        return Err(format!("the address was not confirmed: {confirmed}"));
    }
    let file = json!({"legal_name": "Rex Ortiz", "phone": "316 555 0199",
        "address": {"line1": "300 N Main St", "city": "Wichita", "region": "KS", "postal_code": "67202"}});
    let sent = api(ctx, reqwest::Method::PUT, "/v1/me/identity", &token, Some(file)).await;
    let url = sent["verification_url"].as_str().ok_or_else(|| format!("no page: {sent}"))?;
    let page = &url[url.find("/sandbox/").ok_or("not the sandbox's page")?..];
    ctx.http.get(format!("{}{page}/review", ctx.base)).send().await.map_err(|e| e.to_string())?;
    for _ in 0..100 {
        if get(ctx, "/v1/me/identity", &token).await["state"] == "review" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    operator(ctx, "kyc-desk").await;
    console_login(ctx, browser, "kyc-desk").await?;
    browser.click_button("Players").await?;
    browser.wait_text("[data-testid=identity-reviews]", "Rex Ortiz").await?;
    shot(ctx, browser, "console-identity-review").await?;
    let reason = browser.find("[data-testid=identity-reviews] input").await?;
    let id = browser.attribute(&reason, "id").await?.unwrap_or_default();
    browser.fill(&format!("#{id}"), "a driving licence and a utility bill seen by video call").await?;
    browser.click_button("Verify").await?;
    browser.wait_text("[data-testid=identity-reviews]", "None waiting").await?;
    let now = get(ctx, "/v1/me/identity", &token).await;
    if now["state"] != "verified"
        || now["reason"] != "a driving licence and a utility bill seen by video call"
    {
        return Err(format!("the decision is not on the file: {now}"));
    }
    Ok(())
}

/// A fresh session of a registered player, by the API.
async fn log_in(ctx: &Context, email: &str, password: &str) -> String {
    crate::common::log_in(&ctx.http, &ctx.base, json!({"email": email, "password": password})).await
}

async fn log_in_player(ctx: &Context, browser: &Browser, email: &str) -> Result<(), String> {
    browser.goto(&format!("{}/#/play", ctx.base)).await?;
    browser.fill("#login-email", email).await?;
    browser.fill("#login-password", PLAYER_PASSWORD).await?;
    browser.click_button("Log in").await?;
    browser.find("[data-testid=balance]").await.map(|_| ())
}

/// Registers at the page, deposits $50 through the sandbox, picks five numbers on the wall and
/// plays them now: the page shows the draw, the hits and the prize the API recorded, and the
/// balance the ledger holds.
pub async fn player_keno(ctx: &Context, browser: &Browser) -> Result<(), String> {
    browser.goto(&format!("{}/#/play", ctx.base)).await?;
    browser.fill("#login-email", "kim@example.com").await?;
    browser.fill("#login-password", PLAYER_PASSWORD).await?;
    // A date field takes the digits as a keyboard user types them (month, day, year).
    browser.fill("#register-born", "05171990").await?;
    shot(ctx, browser, "player-login-register").await?;
    browser.click_button("Register and log in").await?;
    browser.wait_text("[data-testid=balance]", "$0.00").await?;
    browser.wait_text("[data-testid=last-login]", "Your first login").await?;
    // A new player is invited to set limits before playing; "Not now" puts it away.
    browser.wait_text("[data-testid=limits-invitation]", "set limits").await?;
    browser.click_button("Not now").await?;
    // The address is confirmed by the link mailed to it (read from the outbox, as the
    // console does with no relay configured), opened where the player is logged in.
    browser.wait_text("[data-testid=unconfirmed-address]", "kim@example.com").await?;
    let link = mailed_link(ctx, "kim@example.com", "verify_email").await?;
    browser.goto(&link).await?;
    browser.wait_text("[data-testid=verify-email]", "kim@example.com is confirmed").await?;
    browser.click(&browser.find("[data-testid=verify-email] a").await?).await?;
    browser.wait_text("[data-testid=balance]", "$0.00").await?;
    if !browser.all("[data-testid=unconfirmed-address]").await?.is_empty() {
        return Err("the page still asks to confirm a confirmed address".into());
    }
    // Her identity checked before money: the file sent, the provider's page (the sandbox's,
    // which decides on request) opened and approved, the page told by the signed webhook.
    for (field, text) in [
        ("#id-name", "Kim Park"),
        ("#id-line1", "1200 SW Harrison St"),
        ("#id-city", "Topeka"),
        ("#id-postal", "66612"),
        ("#id-phone", "785 555 0123"),
    ] {
        browser.fill(field, text).await?;
    }
    browser.click_button("Verify my identity").await?;
    browser.wait_text("[data-testid=identity-state]", "waiting for you to finish the check").await?;
    let link = browser.find("[data-testid=identity-link]").await?;
    let href = browser.attribute(&link, "href").await?.unwrap_or_default();
    let page = href
        .find("/sandbox/")
        .map(|at| &href[at..])
        .ok_or_else(|| format!("not the sandbox's page: {href}"))?;
    browser.goto(&format!("{}{page}", ctx.base)).await?;
    browser.click(&browser.find("a[href$='/approve']").await?).await?;
    browser.wait_text("[data-outcome]", "Decided: Approve").await?;
    browser.goto(&format!("{}/#/play", ctx.base)).await?;
    browser.wait_text("[data-testid=identity-state]", "Identity check: verified").await?;
    browser.fill("#amount", "50").await?;
    browser.click_button("Deposit").await?;
    browser.wait_text("[data-testid=payment-state]", "succeeded").await?;
    browser.wait_text("[data-testid=balance]", "$50.00").await?;
    shot(ctx, browser, "player-wallet").await?;

    browser.click_button("Castle Keno").await?;
    browser.wait_text("[data-testid=countdown]", ":").await?;
    for n in [3, 11, 19, 41, 80] {
        let number = browser.find(&format!("button[data-number=\"{n}\"]")).await?;
        browser.click(&number).await?;
        if browser.attribute(&number, "aria-pressed").await?.as_deref() != Some("true") {
            return Err(format!("number {n} is not shown as picked"));
        }
    }
    // As a player changes the count: the "1" deleted stays deleted (it once sprang back, and the
    // "2" typed after it bought 12 tickets), then the new count typed.
    let count = browser.find("#keno-tickets").await?;
    browser.click(&count).await?;
    browser.keys("\u{E010}\u{E003}").await?; // End, Backspace
    let left = browser.script("return document.querySelector('#keno-tickets').value").await?;
    if left != json!("") {
        return Err(format!("the emptied tickets field shows {left}"));
    }
    browser.keys("2").await?;
    browser.click_button("Play now").await?;
    let shown = browser.wait_text("[data-testid=keno-result]", "won").await?;
    // The picture once the twentieth rock has struck (20 rocks 120 ms apart, each flag 650 ms).
    tokio::time::sleep(Duration::from_secs(3)).await;
    shot(ctx, browser, "player-keno-wall").await?;

    let token = page_token(browser, "player").await?;
    let tickets = get(ctx, "/v1/keno/tickets", &token).await;
    let ticket = &tickets["items"][0];
    if ticket["spots"] != json!([3, 11, 19, 41, 80]) || ticket["stake_cents"] != 200 {
        return Err(format!("the API recorded another ticket: {ticket}"));
    }
    let payout = ticket["payout_cents"].as_i64().ok_or("the ticket is not settled")?;
    let hits = ticket["hits"].as_i64().unwrap_or(0);
    if !shown.contains(&format!("Hits {hits}, won {}", dollars(payout))) {
        return Err(format!("the page shows {shown:?}; the API says {hits} hits and {payout} cents"));
    }
    let numbers: Vec<String> =
        ticket["draw_numbers"].as_array().unwrap().iter().map(|n| n.to_string()).collect();
    if !shown.contains(&numbers.join(" ")) {
        return Err(format!("the page does not show the draw {numbers:?}: {shown:?}"));
    }
    let balance = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap();
    if balance != 5_000 - 200 + payout {
        return Err(format!("the wallet holds {balance} cents after a 200-cent ticket winning {payout}"));
    }
    browser.wait_text("[data-testid=balance]", &dollars(balance)).await?;
    castle_wall(browser, &numbers).await?;
    // Beside the wall, the pay table of a 5-spot bet for the two tickets, the catch marked.
    let tables = get(ctx, "/v1/keno/paytables", "").await;
    let bet = tables.as_array().unwrap().iter().find(|t| t["option"] == "bet").unwrap();
    let five = bet["cells"].as_array().unwrap().iter().filter(|c| c[0] == 5);
    let pays = browser.wait_text("[data-testid=keno-pays]", "5 spots, 2 × $1").await?;
    for cell in five {
        let line = format!("{}\t{}", cell[1], dollars(2 * cell[2].as_i64().unwrap()));
        if !pays.lines().any(|l| l.replace(' ', "\t") == line || l == line.replace('\t', " ")) {
            return Err(format!("the pay table beside the wall lacks {line:?}: {pays:?}"));
        }
    }
    if payout > 0 {
        let marked =
            browser.wait_text("[data-testid=keno-pays] tr[aria-current=true]", &dollars(payout)).await?;
        if !marked.starts_with(&hits.to_string()) {
            return Err(format!("the marked catch {marked:?} is not the ticket's {hits} hits"));
        }
    }

    // Play responsibly: a single-stake limit of $1 set on the page, the day's activity shown, and
    // the same $2 play refused in words.
    let limits = browser.find("#tab-limits").await?;
    browser.click(&limits).await?;
    browser.select("#play-limit-kind", "single_stake").await?;
    browser.fill("#play-limit-amount", "1").await?;
    browser.click_button("Save play limit").await?;
    browser.wait_text("#panel-limits", "Single stake: $1.00").await?;
    // The operator's help line, a time limit, and the statement's days as a CSV file.
    browser.wait_text("[data-testid=help-line]", "1-800").await?;
    browser.fill("#time-limit-minutes", "120").await?;
    browser.click_button("Save time limit").await?;
    browser.wait_text("ul[aria-label=\"Your time limits\"]", "24 hours: 120 min").await?;
    browser.click_button("Prepare CSV").await?;
    browser.wait_text("[data-testid=statement-csv]", "Download statement-").await?;
    let today = "table[aria-label=\"Your activity\"] tbody tr:first-child";
    browser.wait_text(&format!("{today} td:nth-of-type(1)"), "$50.00").await?;
    browser.wait_text(&format!("{today} td:nth-of-type(3)"), "$2.00").await?;
    browser.wait_text(&format!("{today} td:nth-of-type(4)"), &dollars(payout)).await?;
    shot(ctx, browser, "player-play-limits").await?;
    browser.click_button("Castle Keno").await?;
    let three = browser.find("button[data-number=\"3\"]").await?;
    if browser.attribute(&three, "aria-pressed").await?.as_deref() != Some("true") {
        browser.click(&three).await?;
    }
    browser.fill("#keno-tickets", "2").await?;
    browser.click_button("Play now").await?;
    browser.wait_text("[data-code=limit_reached]", "more than your single-stake limit of $1.00").await?;
    shot(ctx, browser, "player-keno-limit-refusal").await?;
    // The refusal is the one error the console shows (Chromium logs every 4xx it loads); reading
    // the log empties it, so the runner's own check sees only what came after.
    let errors = browser.console_errors().await?;
    if errors.len() != 1 || !errors[0].contains("/v1/keno/tickets") || !errors[0].contains("422") {
        return Err(format!("the console shows more than the one refusal: {errors:#?}"));
    }

    // The game session's clock is on the page; its reality check, once due (brought forward
    // here: the shortest interval is 15 minutes), stops the next play with a dialog that only
    // the player's choice closes.
    browser.wait_text("[data-testid=play-clock]", "staked $2.00").await?;
    let pool = sqlx::PgPool::connect(&ctx.database_url).await.map_err(|e| e.to_string())?;
    sqlx::query("UPDATE gateway.game_sessions SET reality_check_at = now() - interval '1 second' WHERE ended_at IS NULL")
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
    // The field is controlled by the page: a clear the page redraws over leaves the old "2"
    // before the "1" (a $21 play, once, refused by the $1 limit). Filled until it says 1.
    for _ in 0..5 {
        browser.fill("#keno-tickets", "1").await?;
        if browser.script("return document.querySelector('#keno-tickets').value").await? == json!("1") {
            break;
        }
    }
    browser.click_button("Play now").await?;
    browser.wait_text("[data-testid=reality-check]", "You have played for").await?;
    shot(ctx, browser, "player-reality-check").await?;
    browser.keys("\u{E00C}").await?; // Escape: the dialog stays
    let open = browser.script("return document.querySelector('[data-testid=reality-check]').open").await?;
    if open != json!(true) {
        return Err("Escape closed the reality check".to_owned());
    }
    browser.click_button("Keep playing").await?;
    // The dialog closes once the answer is taken; until then the page behind it is inert.
    let closed = "return document.querySelector('[data-testid=reality-check]').open === false";
    for _ in 0..50 {
        if browser.script(closed).await? == json!(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser.click_button("Play now").await?;
    browser.wait_text("[data-testid=play-clock]", "staked $3.00").await?;
    let errors = browser.console_errors().await?;
    if errors.len() != 1 || !errors[0].contains("/v1/keno/tickets") || !errors[0].contains("409") {
        return Err(format!("the console shows more than the reality check: {errors:#?}"));
    }

    // Issue 47 §2: a check due is the player's, so reloading the page does not skip it: the
    // reloaded page opens the dialog before any play.
    sqlx::query("UPDATE gateway.game_sessions SET reality_check_at = now() - interval '1 second' WHERE ended_at IS NULL")
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
    browser.script("location.reload(); return true").await?;
    browser.wait_text("[data-testid=reality-check]", "You have played for").await?;
    browser.click_button("Keep playing").await?;
    for _ in 0..50 {
        if browser.script(closed).await? == json!(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser.wait_text("[data-testid=play-clock]", "staked $3.00").await?;
    Ok(())
}

/// Logs in, opens a six-deck table, wagers $10 and plays the round to its end pressing only the
/// buttons the round allows (stand when it may): the page's result is the API's.
pub async fn player_blackjack(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "lee@example.com", 10_000).await;
    log_in_player(ctx, browser, "lee@example.com").await?;
    browser.click_button("Blackjack").await?;
    browser.wait_text("[data-testid=meter]", "$").await?;
    // How to play, in the player's words, a click away.
    browser.wait_text("details summary", "How to play blackjack").await?;
    browser.fill("#bj-wager", "10").await?;
    browser.click_button("Deal").await?;
    browser.find("[data-testid=bj-round]").await?;
    shot(ctx, browser, "player-blackjack-table").await?;
    for _ in 0..20 {
        if !browser.all("[data-testid=bj-result]").await?.is_empty() {
            break;
        }
        let buttons = browser.all("[aria-label=Decisions] button").await?;
        let mut choice = None;
        for preferred in ["stand", "decline_insurance", "even_money", "hit"] {
            for button in &buttons {
                if choice.is_none()
                    && browser.attribute(button, "data-action").await?.as_deref() == Some(preferred)
                {
                    choice = Some(button.clone());
                }
            }
        }
        match choice {
            Some(button) if browser.enabled(&button).await? => browser.click(&button).await?,
            _ => {}
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let shown = browser.wait_text("[data-testid=bj-result]", "Round over").await?;
    if !browser.all("[aria-label=Decisions] button").await?.is_empty() {
        return Err("a settled round still offers decisions".to_owned());
    }
    let token = page_token(browser, "player").await?;
    let recall = get(ctx, "/v1/blackjack/recall", &token).await;
    let round = &recall[0];
    if round["state"] != "settled" {
        return Err(format!("the API's round is not settled: {round}"));
    }
    let returned = round["returned_cents"].as_i64().unwrap_or(0);
    if !shown.contains(&format!("returned {}", dollars(returned))) {
        return Err(format!("the page shows {shown:?}; the API returned {returned} cents"));
    }
    Ok(())
}

/// Logs in, places an ante and a Flush Rush wager at the I Luv Suits table, sees seven cards with
/// the dealer's face down, plays the most the hand allows (folds a two-card flush), and reads the
/// dealer's hand and the result: the page's figures are the API's, and the wallet the ledger's.
pub async fn player_i_luv_suits(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "ivy@example.com", 10_000).await;
    log_in_player(ctx, browser, "ivy@example.com").await?;
    browser.click_button("I Luv Suits").await?;
    browser.wait_text("[data-testid=ils-meter]", "$1,0").await?;
    browser.wait_text("details summary", "How to play I Luv Suits").await?;
    browser.fill("#ils-ante", "10").await?;
    browser.fill("#ils-flush-rush", "2").await?;
    browser.click_button("Deal").await?;
    browser.find("[data-testid=ils-round]").await?;
    let token = page_token(browser, "player").await?;
    let dealt = &get(ctx, "/v1/i-luv-suits/recall", &token).await[0];
    if dealt["state"] != "deciding" || dealt["dealer"] != Value::Null {
        return Err(format!("the API's round is not waiting with the dealer's cards hidden: {dealt}"));
    }
    let flush = browser.wait_text("[data-testid=ils-flush]", "Best flush").await?;
    let length = dealt["player"]["flush_length"].as_i64().unwrap_or(0);
    if !flush.contains(&format!("({length} cards)")) {
        return Err(format!("the page shows {flush:?}; the API's best flush has {length} cards"));
    }
    // The best flush is shown as cards (each read out as "queen of diamonds"), not as "QD 5D".
    let shown = browser.all("[data-testid=ils-flush] .card").await?.len();
    let codes = dealt["player"]["flush"].as_array().cloned().unwrap_or_default();
    if shown != codes.len() || codes.iter().any(|c| flush.contains(c.as_str().unwrap_or("?"))) {
        return Err(format!("the best flush is {flush:?} ({shown} cards drawn); the API's is {codes:?}"));
    }
    if browser.all("[aria-label=\"Dealer's cards\"] .card.back").await?.len() != 7 {
        return Err("the dealer's seven cards are not shown face down".to_owned());
    }
    shot(ctx, browser, "player-i-luv-suits-table").await?;
    let decision = if length >= 3 { "play" } else { "fold" };
    let button = browser.find(&format!("[aria-label=Decision] button[data-action={decision}]")).await?;
    browser.click(&button).await?;
    let shown = browser.wait_text("[data-testid=ils-result]", "returned").await?;
    let round = &get(ctx, "/v1/i-luv-suits/recall", &token).await[0];
    if round["state"] != "settled" || round["dealer"]["cards"].as_array().map(Vec::len) != Some(7) {
        return Err(format!("the API's round is not settled with the dealer's hand shown: {round}"));
    }
    let (staked, returned) =
        (round["staked_cents"].as_i64().unwrap_or(0), round["returned_cents"].as_i64().unwrap_or(0));
    if !shown.contains(&format!("Staked {}, returned {}", dollars(staked), dollars(returned))) {
        return Err(format!(
            "the page shows {shown:?}; the API staked {staked} and returned {returned} cents"
        ));
    }
    let expected_stake = if decision == "play" {
        1_200 + round["decision"]["play_cents"].as_i64().unwrap_or(0)
    } else {
        1_200
    };
    if staked != expected_stake {
        return Err(format!("the round staked {staked} cents, not {expected_stake}"));
    }
    let balance = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap();
    if balance != 10_000 - staked + returned {
        return Err(format!(
            "the wallet holds {balance} cents after staking {staked} and getting {returned} back"
        ));
    }
    browser.wait_text("[data-testid=balance]", &dollars(balance)).await?;
    shot(ctx, browser, "player-i-luv-suits-settled").await?;
    Ok(())
}

/// A craps session with odds, on the drawn layout: a $10 chip on the pass line and $12 typed for
/// a place 6 (off on the come-out, as the rules say); rolled until a point is set, then $10 odds
/// behind the pass line and the place 6 called off; rolled until the line is decided. Each roll's
/// dice on the page are the API's, the bet called off is never decided while off, the line and
/// its odds are decided together in words, and the wallet is the ledger's.
pub async fn player_craps(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "cal@example.com", 20_000).await;
    log_in_player(ctx, browser, "cal@example.com").await?;
    browser.click_button("Craps").await?;
    browser.click_button("Sit down at a table").await?;
    browser.wait_text("[data-testid=craps-puck]", "puck off").await?;
    // A refusal that cites a rule with nested brackets reads as words, with no fragment of it.
    browser.click_button("Roll the dice").await?;
    let refused = browser.wait_text("[role=alert]", "The shooter must have a pass or don't pass bet").await?;
    if refused.contains(')') || refused.contains("111-") {
        return Err(format!("the refusal shows a rule's number or a fragment of it: {refused:?}"));
    }
    // The refused roll is the one error the page met (the browser logs a 422 answer).
    let errors = browser.console_errors().await?;
    if errors.len() != 1 || !errors[0].contains("/rolls") {
        return Err(format!("the page met more than the refused roll: {errors:#?}"));
    }
    // Each area says what it pays, from the API's pay tables.
    browser.wait_text("button[data-spot='field']", "pays 2 to 1 on 2, 12; 1 to 1 on 3, 4, 9, 10, 11").await?;
    browser.wait_text("button[data-spot='place-6']", "pays 7 to 6").await?;
    let token = page_token(browser, "player").await?;
    let pass_line = async || -> Result<(), String> {
        let ten = browser.find("button[data-chip='1000']").await?;
        browser.click(&ten).await?;
        let pass = browser.find("button[data-spot='pass']").await?;
        browser.click(&pass).await?;
        browser.wait_text("[data-testid=craps-layout]", "Pass line: $10.00 (working)").await.map(|_| ())
    };
    pass_line().await?;
    browser.fill("#craps-other", "12").await?;
    let six = browser.find("button[data-spot='place-6']").await?;
    browser.click(&six).await?;
    browser.wait_text("[data-testid=craps-layout]", "Place 6: $12.00 (off)").await?;
    browser.wait_text("button[data-spot='place-6']", "$12.00 OFF").await?;
    // One roll: the page shows the API's dice; answers the API's roll.
    let roll = async || -> Result<Value, String> {
        let before = get(ctx, "/v1/craps/recall", &token).await[0]["created_at"].clone();
        let button = browser.find("button[data-action=roll]").await?;
        browser.click(&button).await?;
        let mut recall = get(ctx, "/v1/craps/recall", &token).await;
        for _ in 0..50 {
            if recall[0]["created_at"] != before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            recall = get(ctx, "/v1/craps/recall", &token).await;
        }
        let last = recall[0].clone();
        let (d1, d2) = (
            last["roll"]["roll"]["die1"].as_i64().unwrap_or(0),
            last["roll"]["roll"]["die2"].as_i64().unwrap_or(0),
        );
        browser.wait_text("[data-testid=craps-dice]", &format!("Rolled {d1} and {d2}: {}", d1 + d2)).await?;
        Ok(last)
    };
    let decided = |last: &Value, bet: &str| {
        last["roll"]["outcomes"].as_array().is_some_and(|o| o.iter().any(|o| o["bet"] == bet))
    };
    // Rolled until a point is set (a pass line decided on the come-out is made again).
    let mut point = None;
    for _ in 0..100 {
        let last = roll().await?;
        if decided(&last, "place") {
            return Err(format!("the place 6 was decided on a come-out roll, where it is off: {last}"));
        }
        if let Some(p) = last["roll"]["point_after"].as_i64() {
            point = Some(p);
            break;
        }
        if decided(&last, "pass") {
            pass_line().await?;
        }
    }
    let point = point.ok_or("no point in 100 come-out rolls")?;
    browser.wait_text("[data-testid=craps-puck]", &format!("Point: {point} (puck on)")).await?;
    // 45(d), (f): the pass line now stays until decided and always works, so neither taking it
    // down nor calling it off is offered; the place 6 may be either.
    let layout = browser
        .wait_text("[data-testid=craps-layout]", "Pass line: $10.00 (working) · stays until decided")
        .await?;
    if layout.contains("Take down Pass line") || layout.contains("Call off Pass line") {
        return Err(format!("moves the rules do not allow are offered on the pass line: {layout:?}"));
    }
    if !layout.contains("Take down Place 6") {
        return Err(format!("the place 6 cannot be taken down: {layout:?}"));
    }
    // A chip chosen again: the typed amount gives way to it.
    let ten = browser.find("button[data-chip='1000']").await?;
    browser.click(&ten).await?;
    browser.click_button("Odds behind the pass line").await?;
    browser.wait_text("[data-testid=craps-layout]", "Odds behind the pass line: $10.00 (working)").await?;
    browser.click_button("Call off Place 6 (keep it, not decided until called on)").await?;
    browser.wait_text("[data-testid=craps-layout]", "Place 6: $12.00 (off)").await?;
    let id =
        get(ctx, "/v1/craps/recall", &token).await[0]["session_id"].as_str().unwrap_or_default().to_owned();
    let bets = get(ctx, &format!("/v1/craps/sessions/{id}"), &token).await["bets"].clone();
    let odds = bets.as_array().and_then(|b| b.iter().find(|b| b["bet"] == "pass_odds")).cloned();
    let place = bets.as_array().and_then(|b| b.iter().find(|b| b["bet"] == "place")).cloned();
    if odds.as_ref().map(|o| &o["amount_cents"]) != Some(&json!(1000))
        || place.as_ref().map(|p| (&p["working"], &p["works"])) != Some((&json!(false), &json!(false)))
    {
        return Err(format!("the API's layout is not the page's (odds $10, place 6 off): {bets}"));
    }
    shot(ctx, browser, "player-craps-odds").await?;
    for _ in 0..200 {
        let last = roll().await?;
        if decided(&last, "place") {
            return Err(format!("the place 6 was decided while called off: {last}"));
        }
        if decided(&last, "pass") {
            if !decided(&last, "pass_odds") {
                return Err(format!("the odds were not decided with the pass line: {last}"));
            }
            let after = last["balance_after_cents"].as_i64().unwrap_or(-1);
            let wallet =
                get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap_or(-2);
            if after != wallet {
                return Err(format!(
                    "the roll says the wallet holds {after} cents; the ledger says {wallet}"
                ));
            }
            browser.wait_text("[data-testid=craps-balance]", &dollars(after)).await?;
            // What the roll cost (or won) is said, though the wallet paid for the bets before it.
            let net = last["money"]["winnings_cents"].as_i64().unwrap_or(0)
                - last["money"]["lost_cents"].as_i64().unwrap_or(0);
            let words = match net {
                n if n < 0 => format!("This roll cost you {}", dollars(-n)),
                n if n > 0 => format!("This roll won you {}", dollars(n)),
                _ => "This roll won and lost nothing".to_owned(),
            };
            browser.wait_text("[data-testid=craps-net]", &words).await?;
            let said = browser.wait_text("[data-testid=craps-outcomes]", "Pass line $10.00").await?;
            if !said.contains("Odds behind the pass line $10.00")
                || !(said.contains(" won ") || said.contains(" lost"))
            {
                return Err(format!("the roll's outcomes are not said in words: {said:?}"));
            }
            shot(ctx, browser, "player-craps-decided").await?;
            // Recall says the same roll in words: the dice, the line and its odds decided.
            let (d1, d2) = (
                last["roll"]["roll"]["die1"].as_i64().unwrap_or(0),
                last["roll"]["roll"]["die2"].as_i64().unwrap_or(0),
            );
            browser.click_button("Recall").await?;
            let recalled = browser
                .wait_text(
                    "[data-testid=recall-craps] > li:first-child",
                    &format!("rolled {d1} and {d2}: {}", d1 + d2),
                )
                .await?;
            if !recalled.contains("Pass line $10.00")
                || !recalled.contains("Odds behind the pass line $10.00")
            {
                return Err(format!("recall does not say what the roll decided: {recalled:?}"));
            }
            return shot(ctx, browser, "player-recall").await;
        }
    }
    Err("the pass line was not decided in 200 rolls".to_owned())
}

/// Waits while Powerball sales are closed: for six minutes before each drawing, three evenings
/// a week, a run that falls there waits for them to resume.
async fn powerball_on_sale(ctx: &Context, token: &str) {
    let next = get(ctx, "/v1/powerball/draws/next", token).await;
    if next["sales_open"] == false {
        let resumes: chrono::DateTime<chrono::Utc> = next["resumes_at"].as_str().unwrap().parse().unwrap();
        let wait = (resumes - chrono::Utc::now()).to_std().unwrap_or_default();
        tokio::time::sleep(wait + Duration::from_secs(2)).await;
    }
}

/// A retailer's till sells a Powerball slip of two quick picks and shows the ticket to print
/// (serial, boards, drawing) as the API recorded it, sold at that terminal; the same ticket
/// brought back before its drawing is refused payment in words.
pub async fn retailer_sells_powerball(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let op = operator(ctx, "pb-desk").await;
    let retailer = post(ctx, "/v1/retailers", &op, json!({"name": "Powerball Corner"})).await;
    let retailer = retailer["id"].as_str().unwrap().to_owned();
    let terminal =
        post(ctx, &format!("/v1/retailers/{retailer}/terminals"), &op, json!({"label": "lotto till"})).await;
    let api_key = terminal["api_key"].as_str().unwrap().to_owned();
    powerball_on_sale(ctx, &op).await;
    browser.goto(&format!("{}/#/till", ctx.base)).await?;
    browser.fill("#till-key", &api_key).await?;
    browser.click_button("Start the till").await?;
    browser.wait_text(".till-place", "Powerball Corner").await?;
    browser.click_button("Powerball").await?;
    browser.wait_text("[data-testid=powerball-next]", "Next drawing").await?;
    browser.fill("#pb-quick", "2").await?;
    browser.wait_text("[data-testid=slip-cost]", "$4.00").await?;
    browser.click_button("Buy for $4.00").await?;
    let printed = browser.wait_text("[data-testid=powerball-ticket]", "Serial").await?;
    let serial = printed
        .split_whitespace()
        .skip_while(|w| *w != "Serial")
        .nth(1)
        .ok_or_else(|| format!("no serial on the ticket: {printed:?}"))?
        .to_owned();
    let ticket = get(ctx, &format!("/v1/powerball/tickets/{serial}"), &op).await;
    if ticket["channel"] != "terminal" || ticket["cost_cents"] != 400 || ticket["state"] != "sold" {
        return Err(format!("the ticket on the till is not the one sold there: {ticket}"));
    }
    let first =
        ticket["boards"][0]["whites"].as_array().unwrap().iter().map(|w| w.to_string()).collect::<Vec<_>>();
    for white in &first {
        if !printed.contains(white.as_str()) {
            return Err(format!("board 1's {white} is not on the printed ticket: {printed:?}"));
        }
    }
    shot(ctx, browser, "till-powerball-ticket").await?;
    // Before its drawing nothing is payable: refused, said in words.
    browser.fill("#pb-pay-serial", &serial).await?;
    browser.click_button("Pay").await?;
    let problem = browser.find("#panel-powerball .problem").await?;
    let refused = browser.text(&problem).await?;
    if refused.contains('_') || !browser.all("[data-testid=powerball-paid]").await?.is_empty() {
        return Err(format!("a ticket before its drawing was not refused in words: {refused:?}"));
    }
    // The one error the browser logs is that refused claim.
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !e.contains("/v1/powerball/retail/claims")) {
        return Err(format!("the page logged console errors: {logged:#?}"));
    }
    // Issue 47 §4: the day's close-out has the Powerball sold here beside the instant figures.
    browser.click_button("Today").await?;
    browser.wait_text("[data-testid=till-day]", "Powerball tickets sold today\n1 · $4.00").await?;
    browser.click_button("Close out the day").await?;
    let closed = browser.wait_text("[data-testid=close-out]", "END OF DAY CLOSE-OUT").await?;
    if !closed.contains("Powerball tickets sold today: 1 · $4.00")
        || !closed.contains("Powerball prizes paid here: 0 · $0.00")
    {
        return Err(format!("the close-out does not have the day's Powerball: {closed:?}"));
    }
    Ok(())
}

/// Buys Powerball online: a board marked on the page and a quick pick, with Power Play, for two
/// drawings. The slip's price, the ticket's serial, boards and drawings on the page are the API's,
/// the wallet is short by the price, and the ticket is found again by its serial.
pub async fn player_powerball(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let token = funded_player(ctx, "pia@example.com", 5_000).await;
    powerball_on_sale(ctx, &token).await;
    log_in_player(ctx, browser, "pia@example.com").await?;
    // The login before this one (the API's, just now) is shown, in the page's local time.
    browser.wait_text("[data-testid=last-login]", "Last login").await?;
    let before = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap();
    browser.click_button("Powerball").await?;
    let banner = browser.wait_text("[data-testid=powerball-next]", "Next drawing").await?;
    // The banner leads with the jackpot, or says it is not yet announced.
    let next = get(ctx, "/v1/powerball/draws/next", &token).await;
    let lead = match next["advertised_cents"].as_i64() {
        Some(cents) => format!("Estimated jackpot {}", dollars(cents)),
        None => "Jackpot not yet announced".to_owned(),
    };
    if !banner.starts_with(&lead) {
        return Err(format!("the banner does not lead with {lead:?}: {banner:?}"));
    }
    for white in [5, 12, 23, 34, 69] {
        let ball = browser.find(&format!("button[data-white='{white}']")).await?;
        browser.click(&ball).await?;
    }
    // A sixth white is not taken: a board has five.
    let sixth = browser.find("button[data-white='40']").await?;
    browser.click(&sixth).await?;
    if browser.attribute(&sixth, "aria-pressed").await?.as_deref() != Some("false") {
        return Err("a sixth white ball was marked".to_owned());
    }
    let red = browser.find("button[data-powerball='7']").await?;
    browser.click(&red).await?;
    browser.click_button("Add this board to the slip").await?;
    browser.wait_text("[data-testid=slip-boards]", "Remove board 1").await?;
    browser.fill("#pb-quick", "1").await?;
    browser.fill("#pb-draws", "2").await?;
    let power_play = browser.find("#pb-power-play").await?;
    browser.click(&power_play).await?;
    // Two plays at $2 + $1 Power Play, for two drawings.
    browser.wait_text("[data-testid=slip-cost]", "$12.00").await?;
    shot(ctx, browser, "player-powerball-slip").await?;
    browser.click_button("Buy for $12.00").await?;
    let serial_element = browser.find("[data-testid=ticket-serial]").await?;
    let serial = browser.text(&serial_element).await?;
    let ticket = get(ctx, &format!("/v1/powerball/tickets/{serial}"), &token).await;
    if ticket["cost_cents"] != 1_200 || ticket["boards"].as_array().map(Vec::len) != Some(2) {
        return Err(format!("the API's ticket is not the slip bought: {ticket}"));
    }
    let marked = &ticket["boards"][0];
    if marked["whites"] != json!([5, 12, 23, 34, 69])
        || marked["powerball"] != 7
        || marked["quick_pick"] != false
    {
        return Err(format!("the marked board was not sold as marked: {ticket}"));
    }
    let first_drawing = ticket["drawings"][0]["draw_date"].as_str().unwrap_or_default().to_owned();
    browser.wait_text("[data-testid=powerball-ticket]", &first_drawing).await?;
    browser.wait_text("[data-testid=powerball-ticket]", "(quick pick)").await?;
    let after = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap();
    if before - after != 1_200 {
        return Err(format!("the wallet went from {before} to {after} cents for a $12.00 ticket"));
    }
    browser.wait_text("[data-testid=balance]", &dollars(after)).await?;
    // Found again by the serial printed on it, with dashes as typed.
    browser.fill("#pb-serial", &serial).await?;
    browser.click_button("Check").await?;
    browser.wait_text("section[aria-label='That ticket']", &serial).await?;
    shot(ctx, browser, "player-powerball-ticket").await?;
    // The player's own tickets, as the API lists them: this one, awaiting its drawings.
    let mine = browser.wait_text("[data-testid=my-powerball-tickets]", &serial).await?;
    let listed = get(ctx, "/v1/powerball/tickets", &token).await;
    if listed["items"][0]["serial"] != serial.as_str() || !mine.contains("awaiting drawings") {
        return Err(format!("the ticket list is not the API's: {mine:?} {listed}"));
    }
    let show = browser.find(&format!("button[data-show='{serial}']")).await?;
    browser.click(&show).await?;
    browser.wait_text(&format!("section[aria-label='Ticket {serial}']"), "(quick pick)").await?;
    shot(ctx, browser, "player-powerball-my-tickets").await?;
    // One board, a quick pick, in one press.
    let before_quick = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap();
    browser.click_button("Quick pick: one board for $2.00").await?;
    browser.wait_text("[data-testid=balance]", &dollars(before_quick - 200)).await?;
    let quick = get(ctx, "/v1/powerball/tickets", &token).await["items"][0].clone();
    if quick["serial"] == serial.as_str()
        || quick["cost_cents"] != 200
        || quick["boards"].as_array().map(Vec::len) != Some(1)
        || quick["boards"][0]["quick_pick"] != true
    {
        return Err(format!("the one-board quick pick is not a $2 ticket of one quick pick: {quick}"));
    }
    // No prize paid at the office yet: the wallet's W-2G records say so.
    browser.click_button("Wallet").await?;
    browser.wait_text("section[aria-labelledby=office-prizes-title]", "None yet").await?;
    Ok(())
}

/// At a phone's width, with the keyboard: logs in (Tab, Enter), moves between the player's tabs
/// with the arrow keys, sets a deposit limit and reads the recall page; nothing is wider than
/// the screen.
pub async fn player_phone_keyboard(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "max@example.com", 2_000).await;
    browser.goto(&format!("{}/#/play", ctx.base)).await?;
    let email = browser.find("#login-email").await?;
    browser.click(&email).await?;
    browser.keys("max@example.com\t").await?;
    if browser.focused_id().await? != "login-password" {
        return Err("Tab from the email does not reach the password".to_owned());
    }
    browser.keys(&format!("{PLAYER_PASSWORD}{ENTER}")).await?;
    browser.wait_text("[data-testid=balance]", "$20.00").await?;

    let wallet_tab = browser.find("#tab-wallet").await?;
    browser.click(&wallet_tab).await?;
    browser.keys(&"\u{E014}".repeat(7)).await?; // ArrowRight seven times
    if browser.focused_id().await? != "tab-limits" {
        return Err("the arrow keys do not move along the tabs".to_owned());
    }
    let limits = browser.find("#tab-limits").await?;
    if browser.attribute(&limits, "aria-selected").await?.as_deref() != Some("true") {
        return Err("the focused tab is not the selected one".to_owned());
    }
    browser.fill("#limit-amount", "25").await?;
    browser.click_button("Save limit").await?;
    browser.wait_text("#panel-limits", "daily: $25.00").await?;
    shot(ctx, browser, "player-limits-phone").await?;
    let token = page_token(browser, "player").await?;
    let set = get(ctx, "/v1/me/deposit-limits", &token).await;
    if !set.as_array().unwrap().iter().any(|l| l["period"] == "daily" && l["amount"] == 2_500) {
        return Err(format!("the API does not hold the daily limit: {set}"));
    }
    // Issue 47 §6: the player chooses how often the reality check comes, on the page.
    browser.select("#reality-check-interval", "15").await?;
    browser.click_button("Save reality check").await?;
    browser.wait_text("[data-testid=reality-check-saved]", "every 15 minutes").await?;
    let session = get(ctx, "/v1/me/play-session", &token).await;
    if session["interval_minutes"] != 15 {
        return Err(format!("the API does not hold the reality-check interval: {session}"));
    }
    // Back to the tabs (Shift+Tab from the field would do the same), then ArrowLeft: Recall.
    let limits = browser.find("#tab-limits").await?;
    browser.click(&limits).await?;
    browser.keys("\u{E012}").await?;
    browser.wait_text("#panel-recall", "Game recall").await?;
    shot(ctx, browser, "player-recall-phone").await?;
    let fits = browser.script("return document.documentElement.scrollWidth <= window.innerWidth").await?;
    if fits != Value::Bool(true) {
        return Err("the page is wider than a phone's screen".to_owned());
    }
    Ok(())
}

/// The shop's side: an operator prints game 283 and ships a pack holding a $1 winner (read off
/// the printer's file as the printer would); at the till the pack is received and activated,
/// the barcode comes in as a keyboard-wedge scanner types it (digits, then Enter moves on to the
/// VIRN), the ticket is validated and paid, and the receipt printed; the API holds one claim.
pub async fn retailer_pays(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let op = operator(ctx, "till-desk").await;
    let retailer =
        post(ctx, "/v1/retailers", &op, json!({"name": "Browser Corner", "address": "9 Elm St, Wichita KS"}))
            .await;
    let retailer = retailer["id"].as_str().unwrap().to_owned();
    let terminal =
        post(ctx, &format!("/v1/retailers/{retailer}/terminals"), &op, json!({"label": "till 1"})).await;
    let api_key = terminal["api_key"].as_str().unwrap().to_owned();
    let winner = printed_winner(ctx, &op).await;
    let shipped = post(
        ctx,
        &format!("/v1/instant/packs/283/{}/ship", winner.book),
        &op,
        json!({"retailer_id": retailer}),
    )
    .await;
    if shipped["state"] != "shipped" {
        return Err(format!("the pack was not shipped: {shipped}"));
    }

    browser.goto(&format!("{}/#/till", ctx.base)).await?;
    browser.fill("#till-key", &api_key).await?;
    shot(ctx, browser, "till-login").await?;
    browser.click_button("Start the till").await?;
    // The till names its shop and itself, not their ids.
    let header = browser.wait_text(".till-place", "Browser Corner").await?;
    if !header.contains("9 Elm St, Wichita KS") || !header.contains("till 1") || header.contains(&retailer) {
        return Err(format!("the till's header does not name the shop and the till: {header:?}"));
    }
    // The pack scanned in by one of its tickets, as a scanner types it: on sale at once.
    browser.click_button("Packs").await?;
    let pack_scan = browser.find("#pack-scan").await?;
    browser.click(&pack_scan).await?;
    browser.keys(&format!("{}{ENTER}", winner.scan)).await?;
    browser
        .wait_text("[data-testid=pack-scan-said]", &format!("book {}: received and on sale", winner.book))
        .await?;
    browser.wait_text("#panel-packs", "on sale").await?;
    shot(ctx, browser, "till-packs").await?;

    browser.click_button("Counter").await?;
    // A mistyped VIRN first: refused in words (no code), with the attempts the terminal has left.
    browser.fill("#scan", &winner.scan).await?;
    browser.fill("#virn", &format!("000000000000{ENTER}")).await?;
    let refused = browser.wait_text("[role=alert]", "attempts left before this terminal is locked").await?;
    if refused.contains("wrong_virn") || refused.contains("111-") {
        return Err(format!("the till shows a code or a rule number: {refused:?}"));
    }
    // The one error the browser logs is that refused validation (422, said in words).
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !(e.contains("/v1/instant/validations") && e.contains("422"))) {
        return Err(format!("the page logged console errors: {logged:#?}"));
    }
    // The clerk starts again, as at the counter.
    browser.click_button("Next ticket").await?;
    let scan = browser.find("#scan").await?;
    browser.click(&scan).await?;
    browser.keys(&format!("{}{ENTER}", winner.scan)).await?;
    if browser.focused_id().await? != "virn" {
        return Err("the scanner's Enter does not move on to the VIRN".to_owned());
    }
    browser.keys(&format!("{}{ENTER}", winner.virn)).await?;
    browser.wait_text("[data-testid=validation]", "Winner: $1.00").await?;
    browser.click_button("Pay").await?;
    let receipt = browser.wait_text("[data-testid=receipt]", "PAID").await?;
    if !receipt.contains("INSTANT PRIZE PAID") {
        return Err(format!("the receipt does not say what it paid: {receipt:?}"));
    }
    // The receipt handed to the player names the shop, its address and the till (issue 32 §7).
    if !["Browser Corner", "9 Elm St, Wichita KS", "Terminal  till 1"].iter().all(|n| receipt.contains(n))
        || receipt.contains(&retailer)
    {
        return Err(format!("the receipt does not name the shop and the till: {receipt:?}"));
    }
    // The server prints the receipt's time in the lottery's zone, labelled, as the page shows times.
    if !(receipt.contains(" CST") || receipt.contains(" CDT")) || receipt.contains(" UTC") {
        return Err(format!("the receipt's time is not central time, labelled: {receipt:?}"));
    }
    shot(ctx, browser, "till-counter-receipt").await?;
    let till = page_token(browser, "till").await?;
    let claims = get(ctx, "/v1/instant/claims", &till).await;
    let paid: Vec<&Value> =
        claims["items"].as_array().unwrap().iter().filter(|c| c["paid_cents"] == 100).collect();
    if paid.len() != 1 {
        return Err(format!("the API holds {} paid claims, not one: {claims}", paid.len()));
    }
    browser.click_button("Receipts").await?;
    browser.wait_text("#panel-receipts", "$1.00").await?;
    // The last receipt printed again, as the API keeps it, marked a copy.
    let id = paid[0]["receipt_id"].as_str().unwrap_or_default().to_owned();
    let reprint = browser.find(&format!("button[data-receipt='{id}']")).await?;
    browser.click(&reprint).await?;
    let copy = browser.wait_text("[data-testid=receipt-copy]", "COPY").await?;
    let first_line = receipt.lines().find(|l| l.contains("INSTANT PRIZE PAID")).unwrap_or_default();
    if !copy.contains(&id) || !copy.contains(first_line) {
        return Err(format!("the reprint is not receipt {id}: {copy:?}"));
    }
    shot(ctx, browser, "till-receipt-reprint").await?;
    // The day: the prize paid here, as the shop's statement since midnight says; then closed out.
    browser.click_button("Today").await?;
    browser.wait_text("[data-testid=till-day]", "Instant prizes paid here\n1 · $1.00").await?;
    browser.click_button("Close out the day").await?;
    let closed = browser.wait_text("[data-testid=close-out]", "END OF DAY CLOSE-OUT").await?;
    if !closed.contains("Browser Corner") || !closed.contains("Instant prizes paid here: 1 · $1.00") {
        return Err(format!("the close-out does not name the shop and the day's prizes: {closed:?}"));
    }
    shot(ctx, browser, "till-close-out").await
}

/// The operator logs in, watches a Keno draw arrive live, verifies both audit chains, follows a
/// print run's job to its end, and opens the PAR charts: one bar per spot count, as the math.
pub async fn operator_console(ctx: &Context, browser: &Browser) -> Result<(), String> {
    // The first login after the second factor shipped: the console enrols an authenticator app
    // (the secret shown once, as a QR code), a code from it confirms, the recovery codes shown.
    crate::common::create_operator(&ctx.database_url, "console-op", STAFF_PASSWORD);
    browser.goto(&format!("{}/#/console", ctx.base)).await?;
    browser.fill("#staff-username", "console-op").await?;
    browser.fill("#staff-password", STAFF_PASSWORD).await?;
    browser.click_button("Log in").await?;
    browser.click_button("Show my QR code").await?;
    // The password alone was refused (403, the enrolment asked for): the one error logged.
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !(e.contains("/v1/sessions") && e.contains("403"))) {
        return Err(format!("the page logged console errors: {logged:#?}"));
    }
    let qr = browser.find("[data-testid=enrolment-qr]").await?;
    let source = browser.attribute(&qr, "src").await?.unwrap_or_default();
    if !source.starts_with("data:image/svg+xml") {
        return Err(format!("no QR code shown: {source:.80}"));
    }
    let secret = browser.text(&browser.find("[data-testid=enrolment-secret]").await?).await?;
    shot(ctx, browser, "console-enrolment").await?;
    browser.fill("#enrol-code", &crate::common::totp_code(secret.trim())).await?;
    browser.click_button("Confirm").await?;
    browser.wait_text("[data-testid=recovery-codes]", "Your recovery codes").await?;
    let codes = browser.all("[data-testid=recovery-codes] li").await?;
    if codes.len() != 10 {
        return Err(format!("{} recovery codes shown, not 10", codes.len()));
    }
    browser.click_button("I have kept them: open the console").await?;
    browser.wait_text("[data-testid=console-who]", "logged in as console-op").await?;
    // Logged out, then in again with the password and the app's next code.
    browser.click_button("Log out").await?;
    browser.fill("#staff-username", "console-op").await?;
    browser.fill("#staff-password", STAFF_PASSWORD).await?;
    browser.fill("#staff-code", &crate::common::totp_code_ahead(secret.trim(), 1)).await?;
    shot(ctx, browser, "console-login").await?;
    browser.click_button("Log in").await?;
    browser.wait_text("#panel-draws", "Live: new results").await?;
    // Draws come every 10 s here: one is drawn while the page watches, and its numbers are the API's.
    // The newest drawn draw's number, not how many of the newest 20 are drawn: once the run has
    // made more than 20, that count stays the same as new draws push old ones out of the page.
    let newest_drawn =
        |page: &Value| page["items"].as_array().unwrap().iter().find(|d| d["numbers"].is_array()).cloned();
    let before = newest_drawn(&get(ctx, "/v1/keno/draws?limit=20", "").await);
    let number_before = before.as_ref().and_then(|d| d["number"].as_i64()).unwrap_or(0);
    let mut shown = String::new();
    // Up to 60 s: on a machine busy with the other journeys a scheduled draw has come late.
    for _ in 0..120 {
        let draws = get(ctx, "/v1/keno/draws?limit=20", "").await;
        if let Some(newest) = newest_drawn(&draws)
            && newest["number"].as_i64().unwrap_or(0) > number_before
        {
            let numbers: Vec<String> =
                newest["numbers"].as_array().unwrap().iter().map(|n| n.to_string()).collect();
            shown = browser.wait_text("[data-testid=keno-draws]", &numbers.join(" ")).await?;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if shown.is_empty() {
        return Err("no Keno draw was drawn in 60 s".to_owned());
    }
    shot(ctx, browser, "console-draws-live").await?;

    browser.click_button("Audit").await?;
    browser.click_button("Verify the audit chains").await?;
    let audit = browser.wait_text("[data-testid=audit]", "Table games").await?;
    if audit.matches("intact").count() != 2 {
        return Err(format!("the audit chains are not both intact: {audit:?}"));
    }
    shot(ctx, browser, "console-audit").await?;

    browser.click_button("Print runs").await?;
    browser.click_button("Print game 228").await?;
    let mut job = String::new();
    for _ in 0..240 {
        job = browser.wait_text("[data-testid=print-job]", "Game 228").await?;
        if job.contains("succeeded") || job.contains("failed") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if !job.contains("succeeded") {
        return Err(format!("the print job did not succeed: {job:?}"));
    }
    shot(ctx, browser, "console-print-run").await?;

    browser.click_button("PAR sheets").await?;
    let math = get(ctx, "/v1/keno/math", "").await;
    let rows = math.as_array().unwrap().iter().filter(|r| r["option"] == "bet").count();
    // The chart (Chart.js on a canvas) with its figures beside it: a line per spot count, each
    // the API's return.
    let first = math.as_array().unwrap().iter().find(|r| r["option"] == "bet").unwrap();
    let figure = "[data-testid=par-keno] figure:first-child";
    let expected =
        format!("{}\t{:.2}%", first["spots"], first["return_to_player_decimal"].as_f64().unwrap() * 100.0);
    for _ in 0..50 {
        let drawn = browser.all(&format!("{figure} canvas")).await?.len();
        let lines = browser.all(&format!("{figure} tbody tr")).await?;
        if drawn == 1 && lines.len() == rows {
            let said = browser.text(&lines[0]).await?;
            if said.replace(' ', "\t") != expected {
                return Err(format!("the chart's first figure says {said:?}, the API {expected:?}"));
            }
            return par_sections(ctx, browser).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("the Keno chart does not show a canvas and a figure for each of the {rows} spot counts"))
}

/// Castle Keno looks like its rules (issue 47 §6): a castle wall of 80 granite blocks in two
/// halves; each of the 20 numbers drawn a rock striking its block in the draw's order, a flag
/// unfurling on it, read out by a screen reader; no motion for a person who asked for less.
async fn castle_wall(browser: &Browser, drawn: &[String]) -> Result<(), String> {
    let halves = browser.all("[data-testid=castle-wall] .keno-half").await?;
    let blocks = browser.all("[data-testid=castle-wall] .keno-half .keno-number").await?;
    let flags = browser.all("[data-testid=castle-wall] .keno-number.drawn .flag").await?;
    if halves.len() != 2 || blocks.len() != 80 || flags.len() != 20 {
        return Err(format!(
            "the wall has {} halves, {} blocks, {} flags; the rules draw 2, 80 and one for each of 20 rocks",
            halves.len(),
            blocks.len(),
            flags.len()
        ));
    }
    for (i, n) in drawn.iter().enumerate() {
        let block = browser.find(&format!("[data-testid=castle-wall] button[data-number='{n}']")).await?;
        let order = browser.attribute(&block, "data-order").await?;
        let said = browser.attribute(&block, "aria-label").await?.unwrap_or_default();
        if order.as_deref() != Some(i.to_string().as_str())
            || !said.contains(&format!("struck by rock {}", i + 1))
        {
            return Err(format!("block {n}, drawn {}th, has order {order:?} and reads {said:?}", i + 1));
        }
    }
    let motion = "return getComputedStyle(document.querySelector('[data-testid=castle-wall] .drawn .flag')).animationName";
    let moving = browser.script(motion).await?;
    browser.reduce_motion(true).await?;
    let still = browser.script(motion).await?;
    browser.reduce_motion(false).await?;
    if moving != json!("unfurl") || still != json!("none") {
        return Err(format!("the flag's animation is {moving} and, with reduced motion, {still}"));
    }
    Ok(())
}

/// The PAR sheets beyond Keno (issue 47 §6): options and games by name, the instant games'
/// demonstration scale said and no bar cut off by the axis, and I Luv Suits' and craps' sections
/// with the API's figures.
async fn par_sections(ctx: &Context, browser: &Browser) -> Result<(), String> {
    browser.wait_text("#par-option", "Bet (pick 1-15)").await?;
    let games = get(ctx, "/v1/instant/games", "").await;
    let games = games.as_array().cloned().unwrap_or_default();
    let name = format!("{} {}", games[0]["number"], games[0]["name"].as_str().unwrap_or("?"));
    browser.wait_text("[data-testid=par-instant]", &name).await?;
    browser.wait_text("[data-testid=par-instant-scale]", "Demonstration print scale").await?;
    let highest = games.iter().filter_map(|g| g["payout_percent"].as_f64()).fold(0.0, f64::max) / 100.0;
    let canvas = browser.find("[data-testid=par-instant] canvas").await?;
    let axis: f64 =
        browser.attribute(&canvas, "data-axis-max").await?.unwrap_or_default().parse().unwrap_or(0.0);
    if highest <= 1.0 || axis < highest {
        return Err(format!(
            "the payout axis ends at {axis} below the highest payout {highest} (or none passes 100%)"
        ));
    }
    let ils = get(ctx, "/v1/i-luv-suits/math", "").await;
    let side = &ils["side_wagers"][0];
    let side_words = format!("{:.2}%", side["return_to_player"]["decimal"].as_f64().unwrap_or(0.0) * 100.0);
    browser.wait_text("[data-testid=par-i-luv-suits]", &side_words).await?;
    let craps = get(ctx, "/v1/craps/math", "").await;
    let pass = &craps["wagers"][0];
    browser
        .wait_text(
            "[data-testid=par-craps]",
            &format!("{:.2}%", pass["house_edge"]["decimal"].as_f64().unwrap_or(0.0) * 100.0),
        )
        .await?;
    shot(ctx, browser, "console-par-charts").await
}

/// A winning ticket as the printer's file shows it.
struct Winner {
    book: u32,
    /// The 13 digits a keyboard-wedge scanner types.
    scan: String,
    virn: String,
}

/// A print run of game 283 followed to its end, its printer's file downloaded and read with
/// `lotto printer-file` (as the README's walk-through does), and its first $1 winner.
async fn printed_winner(ctx: &Context, op: &str) -> Winner {
    winner_in(&printed_run(ctx, op).await, "wins $1.00")
}

/// A new print run of game 283 (Hit $10), its printer file read as `lotto printer-file` prints
/// it: one line per ticket, with its barcode, VIRN and what its face wins.
async fn printed_run(ctx: &Context, op: &str) -> String {
    let job = post(ctx, "/v1/instant/games/283/print-runs", op, json!({})).await;
    let job = format!("/v1/instant/print-jobs/{}", job["id"].as_str().unwrap());
    let mut run = None;
    for _ in 0..600 {
        let now = get(ctx, &job, op).await;
        if now["state"] == "succeeded" {
            run = now["print_run"].as_str().map(str::to_owned);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let run = run.expect("the print run did not succeed in two minutes");
    let file = ctx
        .http
        .get(format!("{}/v1/instant/print-runs/{run}/printer-file", ctx.base))
        .bearer_auth(op)
        .send()
        .await
        .unwrap();
    let signature = file.headers()["x-lotto-signature"].to_str().unwrap().to_owned();
    let path = ctx.dir.join(format!("run-{run}.age"));
    std::fs::write(&path, file.bytes().await.unwrap()).unwrap();
    let signer = get(ctx, "/v1/instant/keys", "").await["signing_key"].as_str().unwrap().to_owned();
    let identity = ctx.dir.join(".lotto/secrets/printer-identity.txt");
    let read = std::process::Command::new(env!("CARGO_BIN_EXE_lotto"))
        .arg("printer-file")
        .arg(&path)
        .arg(&identity)
        .args([&signature, &signer])
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
    let tickets = String::from_utf8(read.stdout).unwrap();
    // Every ticket's VIRN, among the secrets the logs must never hold.
    for line in tickets.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [_, _, _, _, _, _, _, _, a, b, c, ..] = fields[..] {
            let virn = format!("{a}{b}{c}");
            if virn.len() == 12 && virn.bytes().all(|d| d.is_ascii_digit()) {
                crate::common::hand_out(&virn);
            }
        }
    }
    tickets
}

/// The first ticket of a printed run whose face `wins` exactly that (say, "wins $1.00").
fn winner_in(tickets: &str, wins: &str) -> Winner {
    winners_in(tickets, wins).into_iter().next().unwrap_or_else(|| panic!("no ticket in the run {wins}"))
}

/// Every ticket of a printed run whose face `wins` exactly that.
fn winners_in(tickets: &str, wins: &str) -> Vec<Winner> {
    let face = format!("{wins}  face");
    tickets
        .lines()
        .filter(|l| l.contains(&face))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            Winner {
                book: fields[1].parse().unwrap(),
                scan: fields[6].trim_matches(|c| c == '(' || c == ')').to_owned(),
                virn: format!("{}{}{}", fields[8], fields[9], fields[10]),
            }
        })
        .collect()
}

/// Deals at the blackjack tab until a round waits for a decision; answers the round's id.
async fn deal_until_in_play(browser: &Browser) -> Result<String, String> {
    for _ in 0..20 {
        browser.fill("#bj-wager", "5").await?;
        browser.click_button("Deal").await?;
        browser.find("[data-testid=bj-round]").await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if !browser.all("[aria-label=Decisions] button").await?.is_empty() {
            let id = browser
                .script("return document.querySelector('[data-testid=bj-round]').dataset.round")
                .await?;
            return id.as_str().map(str::to_owned).ok_or_else(|| "the round shows no id".to_owned());
        }
    }
    Err("twenty deals and none left a decision".to_owned())
}

/// Presses the decision that ends the hand soonest (stand, or no insurance first) until the
/// round is over.
async fn stand_to_the_end(browser: &Browser) -> Result<String, String> {
    for _ in 0..20 {
        if !browser.all("[data-testid=bj-result]").await?.is_empty() {
            break;
        }
        for preferred in ["decline_insurance", "even_money", "stand"] {
            let buttons =
                browser.all(&format!("[aria-label=Decisions] button[data-action={preferred}]")).await?;
            if let Some(button) = buttons.first() {
                if browser.enabled(button).await? {
                    browser.click(button).await?;
                }
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    browser.wait_text("[data-testid=bj-result]", "Round over").await
}

/// With access tokens of 4 seconds and an idle timeout of 12 (a `lotto` of its own): a hand dealt,
/// the token left to expire twice over, then Stand plays on (the page renewed it unseen); a hand
/// dealt and left past the idle timeout: the page says in words that the player was logged out
/// for inactivity; logged in again, the hand is shown where it was, at its own table, and played
/// to the end (issue 32 §2).
pub async fn player_session_survives_renewal_and_idle_timeout(
    ctx: &Context,
    browser: &Browser,
) -> Result<(), String> {
    let url = platform::testing::fresh_database().await.map_err(|e| e.to_string())?;
    let lotto = crate::common::Lotto::start(
        &[
            ("DATABASE_URL", url.clone()),
            ("LOTTO_ACCESS_TOKEN_TTL_S", "4".to_owned()),
            ("LOTTO_IDLE_TIMEOUT_S", "12".to_owned()),
        ],
        Duration::from_secs(60),
    );
    let here = ctx.beside(&lotto.base_url, &url);
    funded_player(&here, "ned@example.com", 10_000).await;
    log_in_player(&here, browser, "ned@example.com").await?;
    browser.click_button("Blackjack").await?;
    deal_until_in_play(browser).await?;
    // Past two lifetimes of the access token, with no request: Stand still plays.
    tokio::time::sleep(Duration::from_secs(9)).await;
    stand_to_the_end(browser).await?;
    if !browser.all("#login-email").await?.is_empty() {
        return Err("the player was sent to the login form while playing".to_owned());
    }

    // A hand left alone past the idle timeout.
    let left = deal_until_in_play(browser).await?;
    let notice = browser.wait_text("[data-testid=session-ended]", "without activity").await?;
    if !notice.contains("log in again to continue where you left off") {
        return Err(format!("the page said {notice:?}"));
    }
    shot(&here, browser, "player-logged-out-idle").await?;
    // The one error the browser logs is the renewal the server refused (401, said in words).
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !(e.contains("/v1/sessions/refresh") && e.contains("401"))) {
        return Err(format!("the page logged console errors: {logged:#?}"));
    }

    // Back again: the hand is shown where it was and finished at its own table.
    log_in_player(&here, browser, "ned@example.com").await?;
    browser.wait_text("[data-testid=in-play]", "a blackjack hand").await?;
    let shown =
        browser.script("return document.querySelector('[data-testid=bj-round]')?.dataset.round").await?;
    if shown.as_str() != Some(left.as_str()) {
        return Err(format!("the page shows round {shown}, not the one left in play ({left})"));
    }
    stand_to_the_end(browser).await?;
    let pool = sqlx::PgPool::connect(&url).await.map_err(|e| e.to_string())?;
    let (tables, unsettled): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM tables.bj_tables), (SELECT count(*) FROM tables.bj_rounds WHERE state <> 'settled')",
    )
    .fetch_one(&pool)
    .await
    .map_err(|e| e.to_string())?;
    if (tables, unsettled) != (1, 0) {
        return Err(format!(
            "{tables} tables and {unsettled} unsettled rounds: the hand was not taken up at its table"
        ));
    }
    lotto.terminate();
    Ok(())
}

/// A player with a ticket for future Keno draws closes the account on the "play responsibly"
/// page: the page logs out, the ticket is refunded, a deposit is refused in words, and a day
/// after asking the account may reopen.
pub async fn player_closes_the_account_and_asks_to_reopen(
    ctx: &Context,
    browser: &Browser,
) -> Result<(), String> {
    let token = funded_player(ctx, "cleo@example.com", 2_000).await;
    let ticket =
        post(ctx, "/v1/keno/draw-tickets", &token, json!({"option": "bet", "spots": [7], "draws": 3})).await;
    let ticket = ticket["id"].as_str().ok_or(format!("no draw ticket: {ticket}"))?.to_owned();
    log_in_player(ctx, browser, "cleo@example.com").await?;
    let limits = browser.find("#tab-limits").await?;
    browser.click(&limits).await?;
    browser.click_button("Close my account…").await?;
    shot(ctx, browser, "player-closure-confirm").await?;
    browser.click_button("Yes, close my account").await?;
    browser.find("#login-email").await?;

    // By the API: the ticket's future draws refunded, the account closed.
    let token = log_in(ctx, "cleo@example.com", PLAYER_PASSWORD).await;
    let voided = get(ctx, &format!("/v1/keno/draw-tickets/{ticket}"), &token).await;
    if voided["voided"]["reason"] != "closure" {
        return Err(format!("the ticket was not refunded at the closure: {voided}"));
    }
    let me = get(ctx, "/v1/me", &token).await;
    if me["player"]["standing"] != "closed" {
        return Err(format!("the account is not closed: {me}"));
    }

    // Back on the page: the balance (the draws not yet drawn refunded) is there to withdraw, a
    // deposit is refused in words, and the player asks to reopen.
    let balance = get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap_or(0);
    log_in_player(ctx, browser, "cleo@example.com").await?;
    browser.wait_text("[data-testid=balance]", &dollars(balance)).await?;
    // The page comes back on the tab it was left on.
    let wallet = browser.find("#tab-wallet").await?;
    browser.click(&wallet).await?;
    browser.fill("#amount", "5").await?;
    browser.click_button("Deposit").await?;
    browser.wait_text("[data-code=account_closed]", "closed").await?;
    let errors = browser.console_errors().await?;
    if errors.len() != 1 || !errors[0].contains("/v1/me/deposits") {
        return Err(format!("the console shows more than the refused deposit: {errors:#?}"));
    }
    let limits = browser.find("#tab-limits").await?;
    browser.click(&limits).await?;
    browser.wait_text("[data-testid=standing]", "Your account is closed.").await?;
    browser.click_button("Ask to reopen my account (in 24 hours)").await?;
    browser.wait_text("[data-testid=standing]", "you may play again from").await?;
    shot(ctx, browser, "player-closure-reopen").await?;
    let me = get(ctx, "/v1/me", &token).await;
    let resumes = me["player"]["play_resumes_at"].as_str().ok_or(format!("no reopening on record: {me}"))?;
    let resumes: chrono::DateTime<chrono::Utc> = resumes.parse().map_err(|e| format!("{resumes}: {e}"))?;
    let wait = resumes - chrono::Utc::now();
    if wait < chrono::Duration::hours(23) || wait > chrono::Duration::hours(24) {
        return Err(format!("the account reopens {wait} from now, not a day after the request"));
    }
    Ok(())
}

/// The operator keeps the exclusion lists in the console: a player entered by hand is excluded
/// at once (the player's session ended), a file with a bad line is refused naming it, a good
/// file is taken whole, the entry is taken off again, and a dormant account shows its balance.
pub async fn operator_keeps_the_exclusion_lists(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let lena = funded_player(ctx, "lena@example.com", 1_500).await;
    // Dormant: an account without a login for four years (the default is three).
    funded_player(ctx, "dora@example.com", 700).await;
    let pool = sqlx::PgPool::connect(&ctx.database_url).await.map_err(|e| e.to_string())?;
    sqlx::query("UPDATE gateway.players SET last_login_at = now() - interval '4 years' WHERE email = 'dora@example.com'")
        .execute(&pool)
        .await
        .map_err(|e| e.to_string())?;
    operator(ctx, "protection-op").await;
    console_login(ctx, browser, "protection-op").await?;
    // The console names who is logged in.
    browser.wait_text("[data-testid=console-who]", "logged in as protection-op (operator)").await?;
    browser.click_button("Player protection").await?;
    browser.wait_text("[data-testid=dormant-accounts]", "dora@example.com").await?;
    browser.wait_text("[data-testid=dormant-accounts] tfoot", "$7.00").await?;

    browser.fill("#exclusion-reference", "OP-1").await?;
    browser.fill("#exclusion-email", "Lena@Example.com").await?;
    browser.click_button("Put on the list").await?;
    browser
        .wait_text("[data-testid=exclusion-outcome]", "1 added, 0 replaced; 1 player excluded now.")
        .await?;
    browser.wait_text("[data-testid=exclusion-entries]", "lena@example.com").await?;
    let me = get(ctx, "/v1/me", &lena).await;
    if me["code"] != "session_ended" {
        return Err(format!("the listed player's session goes on: {me}"));
    }

    let bad = ctx.dir.join("state-list-bad.csv");
    let good = ctx.dir.join("state-list.csv");
    std::fs::write(&bad, "source,reference,email,date_of_birth,ends_on\nstate,KS-1,a@example.com,,\nstate,KS-2,b@example.com,1970-31-12,\n")
        .map_err(|e| e.to_string())?;
    std::fs::write(&good, "source,reference,email,date_of_birth,ends_on\nstate,KS-1,a@example.com,,\nstate,KS-2,b@example.com,1970-12-31,2030-01-01\n")
        .map_err(|e| e.to_string())?;
    let file = browser.find("#exclusion-file").await?;
    browser.type_into(&file, &bad.display().to_string()).await?;
    browser.click_button("Import state-list-bad.csv (2 lines)").await?;
    browser.wait_text("[data-code=invalid_exclusion_list]", "Line 3: `date_of_birth`").await?;
    let errors = browser.console_errors().await?;
    if errors.len() != 1 || !errors[0].contains("/v1/exclusion-list/import") {
        return Err(format!("the console shows more than the refused file: {errors:#?}"));
    }
    let file = browser.find("#exclusion-file").await?;
    browser.type_into(&file, &good.display().to_string()).await?;
    browser.click_button("Import state-list.csv (2 lines)").await?;
    browser
        .wait_text(
            "[data-testid=exclusion-outcome]",
            "state-list.csv: 2 added, 0 replaced; 0 players excluded now.",
        )
        .await?;
    browser.wait_text("[data-testid=exclusion-entries]", "2030-01-01").await?;
    browser.wait_text("[data-testid=exclusion-entries]", "by protection-op").await?;
    browser.script("document.querySelector('[data-testid=exclusion-entries]').scrollIntoView()").await?;
    shot(ctx, browser, "console-exclusion-lists").await?;

    browser.click_button("Take OP-1 off").await?;
    browser.click_button("Yes, take OP-1 off the list").await?;
    browser
        .wait_text("[data-testid=exclusion-outcome]", "OP-1 taken off the list; 1 player may play again.")
        .await?;
    let lena = log_in(ctx, "lena@example.com", PLAYER_PASSWORD).await;
    let me = get(ctx, "/v1/me", &lena).await;
    if me["player"]["standing"] != "active" {
        return Err(format!("the player taken off the list may not play: {me}"));
    }
    let list = get(ctx, "/v1/exclusion-list", &page_token(browser, "staff").await?).await;
    let references: Vec<&str> =
        list.as_array().unwrap().iter().filter_map(|e| e["reference"].as_str()).collect();
    if references != ["KS-2", "KS-1"] && references != ["KS-1", "KS-2"] {
        return Err(format!("the lists hold {references:?}"));
    }
    // The player looked up by part of an email: every player at the domain listed, one chosen
    // (standing, the $15.00 deposited in the last 30 days); a part only one email holds opens it.
    browser.click_button("Players").await?;
    browser.fill("#lookup-email", "@EXAMPLE.com").await?;
    browser.click_button("Find the player").await?;
    let found = browser.wait_text("[data-testid=player-matches]", "lena@example.com").await?;
    if !found.contains("dora@example.com") {
        return Err(format!("part of an email does not find every player holding it: {found:?}"));
    }
    browser.click_button("lena@example.com").await?;
    browser.wait_text("[data-testid=player-standing]", "active").await?;
    browser.fill("#lookup-email", "ENA@exam").await?;
    browser.click_button("Find the player").await?;
    browser.wait_text("[data-testid=player-standing]", "active").await?;
    let row =
        browser.wait_text("[data-testid=player-statement] tbody tr:nth-child(3)", "Last 30 days").await?;
    if !row.contains("$15.00") {
        return Err(format!("the player's last 30 days do not show the $15.00 deposited: {row:?}"));
    }
    shot(ctx, browser, "console-player-lookup").await
}

/// The drawing day before the next one on sale (Monday, Wednesday or Saturday): its sales closed.
async fn last_draw_day(ctx: &Context) -> String {
    use chrono::Datelike;
    let next = get(ctx, "/v1/powerball/draws/next", "").await;
    let mut day: chrono::NaiveDate = next["draw_date"].as_str().unwrap().parse().unwrap();
    loop {
        day = day.pred_opt().unwrap();
        if matches!(day.weekday(), chrono::Weekday::Mon | chrono::Weekday::Wed | chrono::Weekday::Sat) {
            return day.to_string();
        }
    }
}

/// Logs `username` in at the console and opens the Powerball desk on drawing `date`.
async fn console_powerball(
    ctx: &Context,
    browser: &Browser,
    username: &str,
    date: &str,
) -> Result<(), String> {
    console_login(ctx, browser, username).await?;
    browser.click_button("Powerball").await?;
    let open = browser.find(&format!("button[data-open='{date}']")).await?;
    browser.click(&open).await?;
    browser.wait_text("#pb-drawing-title", date).await.map(|_| ())
}

/// One operator's entry of the results on the open drawing's form.
async fn enter_results(browser: &Browser, whites: [u8; 5], powerball: u8) -> Result<(), String> {
    for (i, white) in whites.iter().enumerate() {
        browser.fill(&format!("#pb-white-{}", i + 1), &white.to_string()).await?;
    }
    browser.fill("#pb-red", &powerball.to_string()).await?;
    browser.select("#pb-multiplier", "3").await?;
    // What the form holds is what the operator typed, before it is sent.
    let held = browser
        .script("return [1,2,3,4,5].map(i => document.querySelector('#pb-white-' + i).value).concat([document.querySelector('#pb-red').value, document.querySelector('#pb-multiplier').value]).join(' ')")
        .await?;
    let typed = format!("{} {powerball} 3", whites.map(|w| w.to_string()).join(" "));
    if held.as_str() != Some(typed.as_str()) {
        return Err(format!("the results form holds {held} after {typed} was typed"));
    }
    browser.click_button("Enter the results").await
}

/// Two operators at the console enter a past drawing's official results (dual control): the
/// grand prize set on the page holds the drawing and the scheduler closes it; the first entry
/// waits; a second operator's different entry is refused in words and both are discarded; two
/// agreeing entries make the results stand, as the API then says. Settled, the drawing is
/// certified by `lotto verify-draw` (the control system's recount) and the page shows its prize
/// table.
pub async fn operator_enters_powerball_results(ctx: &Context, browser: &Browser) -> Result<(), String> {
    operator(ctx, "pb-first").await;
    let op = operator(ctx, "pb-second").await;
    powerball_on_sale(ctx, &op).await;
    let date = last_draw_day(ctx).await;
    console_powerball(ctx, browser, "pb-first", &date).await?;
    browser.wait_text("[data-testid=pb-drawing]", "Not on record yet").await?;
    browser.fill("#pb-advertised", "20000000").await?;
    browser.fill("#pb-cash", "9500000").await?;
    browser.click_button("Set the grand prize").await?;
    // The scheduler closes it (its sales closed days ago) and freezes its wager set.
    for _ in 0..6 {
        if browser.wait_text("[data-testid=pb-state]", "sales closed").await.is_ok() {
            break;
        }
    }
    let whites = [4, 18, 27, 41, 66];
    enter_results(browser, whites, 9).await?;
    browser.wait_text("[data-testid=pb-entry-said]", "waits for a different operator").await?;
    shot(ctx, browser, "console-powerball-first-entry").await?;
    browser.click_button("Log out").await?;

    // The second operator reads a different Powerball: refused, both entries discarded.
    console_powerball(ctx, browser, "pb-second", &date).await?;
    enter_results(browser, whites, 10).await?;
    let refused = browser.wait_text("[data-testid=pb-entry] .problem", "disagree").await?;
    shot(ctx, browser, "console-powerball-disagreement").await?;
    let stood = get(ctx, &format!("/v1/powerball/draws/{date}"), &op).await;
    if !stood["results"].is_null() || stood["state"] != "closed" {
        return Err(format!("results stood after a disagreement ({refused:?}): {stood}"));
    }
    enter_results(browser, whites, 9).await?;
    browser.wait_text("[data-testid=pb-entry-said]", "waits for a different operator").await?;
    browser.click_button("Log out").await?;

    console_powerball(ctx, browser, "pb-first", &date).await?;
    enter_results(browser, whites, 9).await?;
    browser.wait_text("[data-testid=pb-entry-said]", "the results stand").await?;
    let stood = get(ctx, &format!("/v1/powerball/draws/{date}"), &op).await;
    if stood["results"] != json!({"whites": whites, "powerball": 9, "multiplier": 3}) {
        return Err(format!("the results that stand are not the two entries': {stood}"));
    }

    // Settled by the scheduler, then certified by the control system's recount.
    let mut state = String::new();
    for _ in 0..120 {
        state = get(ctx, &format!("/v1/powerball/draws/{date}"), &op).await["state"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if state == "settled" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if state != "settled" {
        return Err(format!("the drawing did not settle: {state}"));
    }
    browser.wait_text("[data-testid=pb-drawing]", &format!("lotto verify-draw {date}")).await?;
    let verified = std::process::Command::new(env!("CARGO_BIN_EXE_lotto"))
        .args(["verify-draw", &date])
        .env("DATABASE_URL", &ctx.database_url)
        .env("LOTTO_LOG", "warn")
        .output()
        .unwrap();
    if !verified.status.success() {
        return Err(format!("lotto verify-draw failed: {}", String::from_utf8_lossy(&verified.stderr)));
    }
    let table = browser.wait_text("[data-testid=pb-prize-table]", "Powerball only").await?;
    browser.wait_text("[data-testid=pb-state]", "certified").await?;
    shot(ctx, browser, "console-powerball-certified").await?;
    // The one error the browser logs is the refused (disagreeing) entry.
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !e.contains(&format!("/v1/powerball/draws/{date}/results"))) {
        return Err(format!("the page logged console errors: {logged:#?}\n{table}"));
    }
    Ok(())
}

/// The wallet's history as a statement: after a deposit, a Keno play and a cash-out (by the
/// API), the page lists every line the API lists, newest first, in words (no `castle_keno`, no
/// `posted`), with the balance after each, the newest line's the wallet's; days without activity
/// say so; the CSV holds the same lines.
pub async fn player_reads_the_wallet_history(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let token = funded_player(ctx, "hal@example.com", 5_000).await;
    let played =
        post(ctx, "/v1/keno/tickets", &token, json!({"option": "bet", "spots": [7, 17], "tickets": 1})).await;
    if played["stake_cents"] != 100 {
        return Err(format!("the Keno play was not taken: {played}"));
    }
    let out = post(ctx, "/v1/me/withdrawals", &token, json!({"amount": 1_000, "currency": "USD"})).await;
    let payment = out["id"].as_str().ok_or_else(|| format!("no cash-out: {out}"))?.to_owned();
    for _ in 0..100 {
        if get(ctx, &format!("/v1/me/payments/{payment}"), &token).await["state"] != "pending" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A deposit the provider declines moves no money, and stays in the player's history.
    let declined = post(
        ctx,
        "/v1/me/deposits",
        &token,
        json!({"amount": 2_500, "currency": "USD", "payment_method": "sandbox_decline"}),
    )
    .await;
    let declined = declined["id"].as_str().ok_or_else(|| format!("no deposit: {declined}"))?.to_owned();
    for _ in 0..100 {
        if get(ctx, &format!("/v1/me/payments/{declined}"), &token).await["state"] == "failed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let listed = get(ctx, "/v1/me/wallet/entries?limit=500", &token).await;
    let lines = listed["items"].as_array().unwrap().clone();
    let posted = get(ctx, "/v1/me/wallet", &token).await["balance"]["posted"].as_i64().unwrap();
    log_in_player(ctx, browser, "hal@example.com").await?;
    let table = browser.wait_text("[data-testid=wallet-history]", "Deposit").await?;
    let rows = browser.all("[data-testid=wallet-history] tbody tr").await?;
    if rows.len() != lines.len() {
        return Err(format!("the page lists {} lines, the API {}: {table}", rows.len(), lines.len()));
    }
    let newest = browser.text(&rows[0]).await?;
    if !newest.ends_with(&dollars(posted)) {
        return Err(format!(
            "the newest line {newest:?} does not end at the wallet's balance {}",
            dollars(posted)
        ));
    }
    let oldest = browser.text(rows.last().unwrap()).await?;
    // Times in the lottery's zone, labelled, whatever the browser's own zone (UTC here).
    let first = lines.last().and_then(|l| l["created_at"].as_str()).unwrap_or_default();
    if !oldest.replace('\u{202f}', " ").contains(&central(first)) {
        return Err(format!("the oldest line {oldest:?} does not read {first} as {}", central(first)));
    }
    for words in ["Castle Keno: stake", "Cash-out requested (held)"] {
        if !table.contains(words) {
            return Err(format!("{words:?} is not in the history: {table}"));
        }
    }
    if !oldest.contains("Deposit") || table.contains("castle_keno") || table.contains("posted") {
        return Err(format!("the history is not newest first in words: {table}"));
    }
    let payments = browser.wait_text("[data-testid=payments]", "declined").await?;
    let first = payments.lines().find(|l| l.contains("Deposit")).unwrap_or_default();
    if !first.contains("$25.00") || !first.contains("declined") {
        return Err(format!("the declined $25.00 deposit is not the newest payment listed: {payments:?}"));
    }
    shot(ctx, browser, "player-wallet-history").await?;
    // The CSV: a header and the same lines.
    browser.click_button("Prepare CSV").await?;
    let link = browser.find("[data-testid=history-csv]").await?;
    let href = browser.attribute(&link, "href").await?.unwrap_or_default();
    let csv = browser
        .script(&format!("return decodeURIComponent({:?}.split(',').slice(1).join(','));", href))
        .await?;
    let csv = csv.as_str().unwrap_or_default();
    if !csv.starts_with("time,what,kind,amount,balance_after,transfer\n")
        || csv.lines().count() != lines.len() + 1
    {
        return Err(format!("the CSV is not the {} lines: {csv}", lines.len()));
    }
    // Days with nothing in them say so.
    browser.fill("#history-from", "01/01/2020").await?;
    browser.fill("#history-to", "01/31/2020").await?;
    browser.click_button("Show these days").await?;
    browser.wait_text("#panel-wallet", "Nothing in these days").await.map(|_| ())
}

/// Two printed packs of game 228 (printed here by a print run when none is left).
async fn printed_packs(ctx: &Context, op: &str) -> Vec<i64> {
    let books = |listed: &Value| -> Vec<i64> {
        listed["items"].as_array().unwrap().iter().filter_map(|p| p["book"].as_i64()).collect()
    };
    let printed = get(ctx, "/v1/instant/packs?game=228&state=printed&limit=2", op).await;
    if books(&printed).len() == 2 {
        return books(&printed);
    }
    let job = post(ctx, "/v1/instant/games/228/print-runs", op, json!({})).await;
    let job = format!("/v1/instant/print-jobs/{}", job["id"].as_str().unwrap());
    for _ in 0..600 {
        if get(ctx, &job, op).await["state"] == "succeeded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    books(&get(ctx, "/v1/instant/packs?game=228&state=printed&limit=2", op).await)
}

/// The console's retail screens: a retailer added and renamed, a terminal made (its key shown
/// once, and it logs in at the API) and revoked (its key refused); a printed pack shipped to the
/// retailer and reported stolen, another shipped and taken back unsold; each as the API then says.
pub async fn operator_keeps_retailers_terminals_and_packs(
    ctx: &Context,
    browser: &Browser,
) -> Result<(), String> {
    let op = operator(ctx, "retail-op").await;
    let books = printed_packs(ctx, &op).await;
    let [stolen, returned] = books[..] else {
        return Err(format!("two printed packs of game 228 were not found: {books:?}"));
    };
    console_login(ctx, browser, "retail-op").await?;
    browser.click_button("Retailers").await?;
    browser.fill("#retailer-name", "Prairie Market").await?;
    browser.fill("#retailer-address", "1 Main St, Salina KS").await?;
    browser.click_button("Add the retailer").await?;
    browser.wait_text("#retailer-title", "Prairie Market").await?;
    browser.fill("#retailer-rename", "Prairie Market & Deli").await?;
    browser.click_button("Save name and address").await?;
    browser.wait_text("[data-testid=retailers]", "Prairie Market & Deli").await?;
    let listed = get(ctx, "/v1/retailers", &op).await;
    let retailer = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Prairie Market & Deli" && r["address"] == "1 Main St, Salina KS")
        .ok_or_else(|| format!("the retailer is not as the page made it: {listed}"))?["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // A terminal: its key shown once, and it works at the API.
    browser.fill("#terminal-label", "front till").await?;
    browser.click_button("Add a terminal").await?;
    let key_element = browser.find("[data-testid=api-key]").await?;
    let key = browser.text(&key_element).await?;
    let session = ctx
        .http
        .post(format!("{}/v1/sessions", ctx.base))
        .json(&json!({"api_key": key}))
        .send()
        .await
        .unwrap();
    if session.status() != 201 {
        return Err(format!("the key shown does not log the till in: {}", session.status()));
    }
    browser.wait_text("[data-testid=terminals]", &format!("lk_{}_", &key[3..15])).await?;
    shot(ctx, browser, "console-retailer-terminal-key").await?;
    browser.click_button("I have entered it: hide the key").await?;
    if !browser.all("[data-testid=api-key]").await?.is_empty() {
        return Err("the key is still on the page after it was hidden".to_owned());
    }
    browser.click_button("Revoke front till").await?;
    browser.click_button("Revoke front till now").await?;
    browser.wait_text("[data-testid=terminals]", "revoked").await?;
    let refused: Value = ctx
        .http
        .post(format!("{}/v1/sessions", ctx.base))
        .json(&json!({"api_key": key}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    if refused["code"] != "key_revoked" {
        return Err(format!("a revoked key still logs in: {refused}"));
    }

    // Packs: shipped to the retailer, one reported stolen, one taken back unsold. Another shop
    // of the same name is told apart by its address where a retailer is chosen.
    post(
        ctx,
        "/v1/retailers",
        &op,
        json!({"name": "Prairie Market & Deli", "address": "77 Oak Ave, Hays KS"}),
    )
    .await;
    browser.click_button("Packs").await?;
    browser.fill("#packs-game", "228").await?;
    let choices =
        browser.wait_text(&format!("tr[data-pack='228-{stolen}'] select"), "77 Oak Ave, Hays KS").await?;
    if !choices.contains("Prairie Market & Deli · 1 Main St, Salina KS")
        || !choices.contains("Prairie Market & Deli · 77 Oak Ave, Hays KS")
    {
        return Err(format!("the two shops of one name are not told apart: {choices:?}"));
    }
    for book in [stolen, returned] {
        let row = format!("tr[data-pack='228-{book}']");
        browser.select(&format!("{row} select"), &retailer).await?;
        let ship = browser.find(&format!("{row} button[type=submit]")).await?;
        browser.click(&ship).await?;
        browser.wait_text(&row, "shipped, not yet received").await?;
    }
    browser.click_button(&format!("Report game 228 book {stolen} stolen")).await?;
    browser
        .click_button(&format!("Report game 228 book {stolen} stolen: refuse its tickets everywhere"))
        .await?;
    browser.wait_text(&format!("tr[data-pack='228-{stolen}']"), "reported stolen").await?;
    browser.click_button(&format!("Take back game 228 book {returned} unsold")).await?;
    browser.click_button(&format!("Return game 228 book {returned}: its tickets never pay")).await?;
    browser.wait_text(&format!("tr[data-pack='228-{returned}']"), "returned unsold").await?;
    shot(ctx, browser, "console-packs").await?;
    let theirs = get(ctx, &format!("/v1/instant/packs?retailer_id={retailer}"), &op).await;
    let states: Vec<(i64, String)> = theirs["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["book"].as_i64().unwrap(), p["state"].as_str().unwrap().to_owned()))
        .collect();
    let mut expected = vec![(stolen, "stolen".to_owned()), (returned, "returned".to_owned())];
    expected.sort();
    if states != expected {
        return Err(format!("the retailer's packs are {states:?}, not {expected:?}"));
    }
    // The retailer's own page lists them too.
    browser.click_button("Retailers").await?;
    let open = browser.find(&format!("button[data-retailer='{retailer}']")).await?;
    browser.click(&open).await?;
    browser.wait_text("[data-testid=retailer-packs]", "reported stolen").await?;
    shot(ctx, browser, "console-retailer").await
}

/// The lottery office pays two instant tickets of one pack on the console's Office claims tab: a
/// $1.00 prize (no W-2G), and a $1,000 prize, refused in words without the claimant's taxpayer
/// number (it makes a W-2G), then paid with the W-2G recorded and nothing withheld (not over
/// $5,000). The office's records list both as the API does, and the W-2G records alone the one.
pub async fn operator_pays_a_prize_at_the_office(ctx: &Context, browser: &Browser) -> Result<(), String> {
    let op = operator(ctx, "office-op").await;
    let tickets = printed_run(ctx, &op).await;
    let large = winner_in(&tickets, "wins $1,000.00");
    let small = winners_in(&tickets, "wins $1.00")
        .into_iter()
        .find(|w| w.book == large.book)
        .ok_or("no $1 winner in the $1,000 winner's pack")?;
    // A retailer has the pack on sale, as its till would put it (by the API).
    let retailer = post(ctx, "/v1/retailers", &op, json!({"name": "Office Corner"})).await;
    let retailer = retailer["id"].as_str().unwrap().to_owned();
    let terminal =
        post(ctx, &format!("/v1/retailers/{retailer}/terminals"), &op, json!({"label": "t"})).await;
    let till = crate::common::log_in(&ctx.http, &ctx.base, json!({"api_key": terminal["api_key"]})).await;
    let pack = format!("/v1/instant/packs/283/{}", large.book);
    post(ctx, &format!("{pack}/ship"), &op, json!({"retailer_id": retailer})).await;
    api(ctx, reqwest::Method::POST, &format!("{pack}/receive"), &till, None).await;
    let active = api(ctx, reqwest::Method::POST, &format!("{pack}/activate"), &till, None).await;
    if active["state"] != "active" {
        return Err(format!("the pack is not on sale: {active}"));
    }

    console_login(ctx, browser, "office-op").await?;
    browser.click_button("Office claims").await?;
    // The small prize: paid, no W-2G, no taxpayer number asked.
    browser.fill("#office-barcode", &small.scan).await?;
    browser.fill("#office-virn", &small.virn).await?;
    browser.fill("#office-name", "Sam Small").await?;
    browser.click_button("Pay the ticket").await?;
    browser.wait_text("[data-testid=office-paid]", "not required").await?;
    // The large one: a W-2G needs the claimant's taxpayer number; refused in words without it.
    browser.fill("#office-barcode", &large.scan).await?;
    browser.fill("#office-virn", &large.virn).await?;
    browser.fill("#office-name", "Robin Claimant").await?;
    browser.fill("#office-address", "1 Main St, Topeka KS").await?;
    browser.click_button("Pay the ticket").await?;
    // Said in words (the console names the code beneath, for the operator's records).
    let refused = browser.wait_text("#instant-office-title ~ .problem", "taxpayer").await?;
    if refused.lines().next().is_none_or(|said| said.contains('_')) {
        return Err(format!("the refusal is not in words: {refused:?}"));
    }
    let logged = browser.console_errors().await?;
    if logged.iter().any(|e| !e.contains("/v1/instant/office-claims")) {
        return Err(format!("the page logged console errors: {logged:#?}"));
    }
    browser.fill("#office-tin", "6789").await?;
    browser.click_button("Pay the ticket").await?;
    let paid = browser.wait_text("[data-testid=office-paid]", "recorded for Robin Claimant").await?;
    if !paid.contains("$1,000.00") || !paid.contains("Withheld\n$0.00") {
        return Err(format!("the office's answer is not a $1,000 prize with nothing withheld: {paid:?}"));
    }
    let listed = get(ctx, "/v1/instant/office-claims", &op).await;
    let listed = listed.as_array().cloned().unwrap_or_default();
    let record = |name: &str| listed.iter().find(|c| c["claimant_name"] == name).cloned();
    let (Some(big), Some(little)) = (record("Robin Claimant"), record("Sam Small")) else {
        return Err(format!("the API has not both office claims: {listed:?}"));
    };
    if big["prize_cents"] != 100_000
        || big["net_cents"] != 100_000
        || big["w2g"] != true
        || big["tin_last4"] != "6789"
    {
        return Err(format!("the API's record is not the prize paid: {big}"));
    }
    if little["prize_cents"] != 100 || little["w2g"] != false {
        return Err(format!("the API's record of the $1.00 prize: {little}"));
    }
    let (big_barcode, little_barcode) =
        (big["barcode"].as_str().unwrap_or_default(), little["barcode"].as_str().unwrap_or_default());
    let records = browser.wait_text("[data-testid=office-records]", big_barcode).await?;
    if !records.contains(little_barcode) || !records.contains("Robin Claimant") || !records.contains("6789") {
        return Err(format!("the office's records are not the two prizes paid: {records:?}"));
    }
    // The W-2G records alone: the $1,000 prize, not the $1.00 one.
    let only = browser.find("#office-w2g-only").await?;
    browser.click(&only).await?;
    let mut rows = Vec::new();
    for _ in 0..50 {
        rows = browser.all("[data-testid=office-records] tbody tr").await?;
        if rows.len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let only_row = match &rows[..] {
        [row] => browser.text(row).await?,
        _ => return Err(format!("the W-2G records show {} lines, not one", rows.len())),
    };
    if !only_row.contains(big_barcode) {
        return Err(format!("the W-2G record shown is not the $1,000 prize's: {only_row:?}"));
    }
    // The annuities' schedules are listed beneath (none claimed in this run: the drawings the
    // browser run settles have no grand prize winner).
    let annuities = browser.wait_text("[data-testid=annuities]", "Annuities").await?;
    if !annuities.contains("None.") {
        return Err(format!("the annuities section does not list the run's (none): {annuities:?}"));
    }
    shot(ctx, browser, "console-office-claims").await
}
