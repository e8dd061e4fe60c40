//! The journeys: what a player, a retailer and an operator do in the web client, each checked
//! against what the API says afterwards.

use std::time::Duration;

use serde_json::{Value, json};

use crate::Context;
use crate::webdriver::{Browser, ENTER};

pub const STAFF_PASSWORD: &str = "a long admin password for the browser";
const PLAYER_PASSWORD: &str = "correct horse battery staple";

/// Cents as the page shows them.
fn dollars(cents: i64) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

async fn api(ctx: &Context, method: reqwest::Method, path: &str, token: &str, body: Option<Value>) -> Value {
    let mut request = ctx.http.request(method, format!("{}{path}", ctx.base));
    if !token.is_empty() {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.header("idempotency-key", uuid::Uuid::new_v4().to_string()).json(&body);
    }
    request.send().await.unwrap().json().await.unwrap()
}

async fn get(ctx: &Context, path: &str, token: &str) -> Value {
    api(ctx, reqwest::Method::GET, path, token, None).await
}

async fn post(ctx: &Context, path: &str, token: &str, body: Value) -> Value {
    api(ctx, reqwest::Method::POST, path, token, Some(body)).await
}

/// A picture of the screen as it is now, named for what it shows (the end of a journey has its
/// own, taken by the runner).
async fn shot(ctx: &Context, browser: &Browser, screen: &str) -> Result<(), String> {
    browser.screenshot(&ctx.screenshots.join(format!("screen-{screen}.png"))).await
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
async fn funded_player(ctx: &Context, email: &str, cents: i64) -> String {
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
async fn operator(ctx: &Context, username: &str) -> String {
    crate::common::create_operator(&ctx.database_url, username, STAFF_PASSWORD);
    crate::common::log_in(&ctx.http, &ctx.base, json!({"username": username, "password": STAFF_PASSWORD}))
        .await
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
    // A new player is invited to set limits before playing; "Not now" puts it away.
    browser.wait_text("[data-testid=limits-invitation]", "set limits").await?;
    browser.click_button("Not now").await?;
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
    sqlx::query("UPDATE gateway.sessions SET reality_check_at = now() - interval '1 second' WHERE reality_check_at IS NOT NULL")
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
    Ok(())
}

/// Logs in, opens a six-deck table, wagers $10 and plays the round to its end pressing only the
/// buttons the round allows (stand when it may): the page's result is the API's.
pub async fn player_blackjack(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "lee@example.com", 10_000).await;
    log_in_player(ctx, browser, "lee@example.com").await?;
    browser.click_button("Blackjack").await?;
    browser.wait_text("[data-testid=meter]", "$").await?;
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

/// Logs in, sits down at a craps table, makes a pass line bet and a place 6 with the layout's
/// own controls, and rolls until the pass line is decided: the dice and outcomes the page shows
/// are the API's, and the balance the ledger's.
pub async fn player_craps(ctx: &Context, browser: &Browser) -> Result<(), String> {
    funded_player(ctx, "cal@example.com", 10_000).await;
    log_in_player(ctx, browser, "cal@example.com").await?;
    browser.click_button("Craps").await?;
    browser.click_button("Sit down at a table").await?;
    browser.wait_text("[data-testid=craps-puck]", "puck off").await?;
    browser.select("#craps-bet", "pass").await?;
    browser.fill("#craps-amount", "10").await?;
    browser.click_button("Place bet").await?;
    browser.wait_text("[data-testid=craps-layout]", "Pass line: $10.00").await?;
    browser.select("#craps-bet", "place").await?;
    browser.select("#craps-number", "6").await?;
    browser.fill("#craps-amount", "12").await?;
    browser.click_button("Place bet").await?;
    browser.wait_text("[data-testid=craps-layout]", "Place to win 6: $12.00").await?;
    let token = page_token(browser, "player").await?;
    for roll in 0..200 {
        let before = get(ctx, "/v1/craps/recall", &token).await[0]["created_at"].clone();
        let button = browser.find("button[data-action=roll]").await?;
        browser.click(&button).await?;
        // The API's newest roll once it is recorded, then the page showing that very roll.
        let mut recall = get(ctx, "/v1/craps/recall", &token).await;
        for _ in 0..50 {
            if recall[0]["created_at"] != before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            recall = get(ctx, "/v1/craps/recall", &token).await;
        }
        let last = &recall[0]["roll"];
        let (d1, d2) =
            (last["roll"]["die1"].as_i64().unwrap_or(0), last["roll"]["die2"].as_i64().unwrap_or(0));
        browser.wait_text("[data-testid=craps-dice]", &format!("Rolled {d1} and {d2}: {}", d1 + d2)).await?;
        if roll == 0 {
            shot(ctx, browser, "player-craps-layout").await?;
        }
        let pass_decided = last["outcomes"].as_array().is_some_and(|o| o.iter().any(|o| o["bet"] == "pass"));
        if pass_decided {
            let after = recall[0]["balance_after_cents"].as_i64().unwrap_or(-1);
            let wallet =
                get(ctx, "/v1/me/wallet", &token).await["balance"]["available"].as_i64().unwrap_or(-2);
            if after != wallet {
                return Err(format!(
                    "the roll says the wallet holds {after} cents; the ledger says {wallet}"
                ));
            }
            browser.wait_text("[data-testid=craps-balance]", &dollars(after)).await?;
            browser.wait_text("[data-testid=craps-outcomes]", "Pass line $10.00").await?;
            shot(ctx, browser, "player-craps-decided").await?;
            return Ok(());
        }
    }
    Err("the pass line was not decided in 200 rolls".to_owned())
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
    browser.keys("\u{E014}\u{E014}\u{E014}\u{E014}\u{E014}\u{E014}").await?; // ArrowRight six times
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
    browser.click_button("Packs").await?;
    browser.click_button(&format!("Receive pack {}", winner.book)).await?;
    browser.click_button(&format!("Activate pack {}", winner.book)).await?;
    browser.wait_text("#panel-packs", "active").await?;
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
    Ok(())
}

/// The operator logs in, watches a Keno draw arrive live, verifies both audit chains, follows a
/// print run's job to its end, and opens the PAR charts: one bar per spot count, as the math.
pub async fn operator_console(ctx: &Context, browser: &Browser) -> Result<(), String> {
    operator(ctx, "console-op").await;
    browser.goto(&format!("{}/#/console", ctx.base)).await?;
    browser.fill("#staff-username", "console-op").await?;
    browser.fill("#staff-password", STAFF_PASSWORD).await?;
    shot(ctx, browser, "console-login").await?;
    browser.click_button("Log in").await?;
    browser.wait_text("#panel-draws", "Live: new results").await?;
    // Draws come every 10 s here: one is drawn while the page watches, and its numbers are the API's.
    let newest_before = get(ctx, "/v1/keno/draws?limit=20", "").await;
    let drawn_before =
        newest_before["items"].as_array().unwrap().iter().filter(|d| d["numbers"].is_array()).count();
    let mut shown = String::new();
    for _ in 0..60 {
        let draws = get(ctx, "/v1/keno/draws?limit=20", "").await;
        let drawn: Vec<&Value> =
            draws["items"].as_array().unwrap().iter().filter(|d| d["numbers"].is_array()).collect();
        if drawn.len() > drawn_before
            && let Some(newest) = drawn.first()
        {
            let numbers: Vec<String> =
                newest["numbers"].as_array().unwrap().iter().map(|n| n.to_string()).collect();
            shown = browser.wait_text("[data-testid=keno-draws]", &numbers.join(" ")).await?;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if shown.is_empty() {
        return Err("no Keno draw was drawn in 30 s".to_owned());
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
    for _ in 0..50 {
        if browser.all("[data-testid=par-keno] figure:first-child rect").await?.len() == rows {
            return shot(ctx, browser, "console-par-charts").await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("the Keno chart does not show one bar for each of the {rows} spot counts"))
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
    let path = ctx.dir.join("run.age");
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
    let line = tickets.lines().find(|l| l.contains("wins $1.00  face")).expect("a $1 winner in the run");
    let fields: Vec<&str> = line.split_whitespace().collect();
    Winner {
        book: fields[1].parse().unwrap(),
        scan: fields[6].trim_matches(|c| c == '(' || c == ')').to_owned(),
        virn: format!("{}{}{}", fields[8], fields[9], fields[10]),
    }
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
    let here = Context {
        base: lotto.base_url.clone(),
        http: ctx.http.clone(),
        database_url: url.clone(),
        dir: ctx.dir.clone(),
        screenshots: ctx.screenshots.clone(),
    };
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
    browser.goto(&format!("{}/#/console", ctx.base)).await?;
    browser.fill("#staff-username", "protection-op").await?;
    browser.fill("#staff-password", STAFF_PASSWORD).await?;
    browser.click_button("Log in").await?;
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
    Ok(())
}
