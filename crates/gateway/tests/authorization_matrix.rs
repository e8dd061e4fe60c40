//! The authorization matrix: every route the gateway answers or passes through, called by every
//! kind of caller, with the exact status each must get. A route without a row fails the test, so
//! the matrix grows with every new route. Every answer is also checked against the schema the
//! contract declares for its status (issue 15): what a generated client expects is what comes.

// Tests stop at the first surprise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeSet, HashMap};

use axum::body::Body;
use axum::http::Request;
use chrono::Utc;
use common::{Login, PASSWORD, TestGateway, new_id};
use domain::reports::GamingDays;
use platform::auth::Role;
use serde_json::{Value, json};

/// The callers, in the order of each row's expected statuses.
const WHO: [&str; 7] = ["anonymous", "player", "other player", "retailer", "operator", "auditor", "service"];

/// (method, route, expected status for each caller in [`WHO`] order).
const MATRIX: &[(&str, &str, [u16; 7])] = &[
    // The gateway's own routes.
    ("POST", "/v1/players", [202, 202, 202, 202, 202, 202, 202]),
    // A mailed link is the credential: one never sent is unknown to everyone.
    ("POST", "/v1/email-verifications", [404, 404, 404, 404, 404, 404, 404]),
    ("POST", "/v1/email-verifications/resend", [202, 202, 202, 202, 202, 202, 202]),
    ("POST", "/v1/password-resets", [202, 202, 202, 202, 202, 202, 202]),
    ("POST", "/v1/password-resets/complete", [404, 404, 404, 404, 404, 404, 404]),
    ("PUT", "/v1/me/login-notices", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/mail", [401, 403, 403, 403, 200, 200, 403]),
    // Nothing stopped: the operator is told so.
    ("POST", "/v1/players/{id}/deposit-block/clear", [401, 403, 403, 403, 409, 403, 403]),
    // Only an operator proposes an adjustment; one nobody proposed is not found.
    ("POST", "/v1/players/{id}/adjustments", [401, 403, 403, 403, 201, 403, 403]),
    ("GET", "/v1/adjustments", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/adjustments/{id}", [401, 403, 403, 403, 404, 404, 403]),
    ("POST", "/v1/adjustments/{id}/approval", [401, 403, 403, 403, 404, 403, 403]),
    ("POST", "/v1/adjustments/{id}/rejection", [401, 403, 403, 403, 404, 403, 403]),
    // The significant-events log: operators and auditors read it.
    ("GET", "/v1/events", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/events/export", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/events/chain", [401, 403, 403, 403, 200, 200, 403]),
    ("POST", "/v1/events/export-check", [401, 403, 403, 403, 200, 200, 403]),
    // A PO box is refused before anything else is asked.
    ("PUT", "/v1/me/identity", [401, 422, 422, 403, 403, 403, 403]),
    ("GET", "/v1/me/identity", [401, 404, 404, 403, 403, 403, 403]),
    ("POST", "/v1/identity/webhook", [401, 401, 401, 401, 401, 401, 401]),
    ("GET", "/v1/identity/reviews", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/players/{id}/identity", [401, 403, 403, 403, 404, 404, 403]),
    ("POST", "/v1/players/{id}/identity/decision", [401, 403, 403, 403, 404, 403, 403]),
    ("POST", "/v1/me/location-checks", [401, 201, 201, 403, 403, 403, 403]),
    ("GET", "/v1/me/location", [401, 404, 404, 403, 403, 403, 403]),
    ("GET", "/v1/players/{id}/location-checks", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/players", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/players/matches", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/players/{id}", [401, 403, 403, 403, 200, 200, 403]),
    ("POST", "/v1/sessions", [201, 201, 201, 201, 201, 201, 201]),
    // A refresh token is the credential, whoever else calls: one never issued is refused.
    ("POST", "/v1/sessions/refresh", [401, 401, 401, 401, 401, 401, 401]),
    ("POST", "/v1/staff/second-factor/enrolment", [401, 401, 401, 401, 401, 401, 401]),
    ("POST", "/v1/staff/second-factor/enrolment/confirm", [401, 401, 401, 401, 401, 401, 401]),
    ("GET", "/v1/me", [401, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/me/wallet", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/me/wallet/transfers", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/me/wallet/entries", [401, 200, 200, 403, 403, 403, 403]),
    ("POST", "/v1/me/deposits", [401, 202, 202, 403, 403, 403, 403]),
    ("POST", "/v1/me/withdrawals", [401, 202, 202, 403, 403, 403, 403]),
    ("GET", "/v1/me/payments", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/me/payments/{id}", [401, 200, 404, 403, 403, 403, 403]),
    ("POST", "/v1/payments/webhook", [401, 401, 401, 401, 401, 401, 401]),
    ("GET", "/v1/me/deposit-limits", [401, 200, 200, 403, 403, 403, 403]),
    ("PUT", "/v1/me/deposit-limits", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/me/limits", [401, 200, 200, 403, 403, 403, 403]),
    ("PUT", "/v1/me/limits", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/players/{id}/limits", [401, 403, 403, 403, 200, 200, 403]),
    ("PUT", "/v1/players/{id}/limits", [401, 403, 403, 403, 200, 403, 403]),
    ("GET", "/v1/me/play-session", [401, 200, 200, 403, 403, 403, 403]),
    ("POST", "/v1/me/reality-check", [401, 200, 200, 403, 403, 403, 403]),
    ("PUT", "/v1/me/reality-check", [401, 200, 200, 403, 403, 403, 403]),
    ("PUT", "/v1/me/time-limits", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/responsible-gaming", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/exclusion-list", [401, 403, 403, 403, 200, 200, 403]),
    ("GET", "/v1/dormant-accounts", [401, 403, 403, 403, 200, 200, 403]),
    // Names nobody who plays here (a match would end the operator's fixture player's sessions).
    ("POST", "/v1/exclusion-list", [401, 403, 403, 403, 201, 403, 403]),
    ("POST", "/v1/exclusion-list/import", [401, 403, 403, 403, 201, 403, 403]),
    ("DELETE", "/v1/exclusion-list/{id}", [401, 403, 403, 403, 200, 403, 403]),
    // Neither excluded nor closed: nothing to come back from.
    ("POST", "/v1/me/self-exclusion/return", [401, 409, 409, 403, 403, 403, 403]),
    ("POST", "/v1/me/reopening", [401, 409, 409, 403, 403, 403, 403]),
    ("GET", "/v1/me/statement", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/me/statement.csv", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/players/{id}/statement", [401, 403, 403, 403, 200, 200, 403]),
    ("POST", "/v1/staff", [401, 403, 403, 403, 201, 403, 403]),
    ("GET", "/v1/staff", [401, 403, 403, 403, 200, 200, 403]),
    ("POST", "/v1/retailers", [401, 403, 403, 403, 201, 403, 403]),
    ("GET", "/v1/retailers", [401, 403, 403, 403, 200, 200, 403]),
    ("PATCH", "/v1/retailers/{id}", [401, 403, 403, 403, 200, 403, 403]),
    ("GET", "/v1/retailers/{id}/terminals", [401, 403, 403, 403, 200, 200, 403]),
    ("POST", "/v1/retailers/{id}/terminals", [401, 403, 403, 403, 201, 403, 403]),
    ("DELETE", "/v1/terminals/{id}", [401, 403, 403, 403, 204, 403, 403]),
    ("GET", "/openapi.yaml", [200, 200, 200, 200, 200, 200, 200]),
    // The draw-games service's routes, through the gateway.
    ("POST", "/v1/keno/tickets", [401, 201, 201, 403, 403, 403, 403]),
    ("GET", "/v1/keno/tickets", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/keno/tickets/{id}", [401, 200, 404, 403, 200, 200, 200]),
    ("POST", "/v1/keno/draw-tickets", [401, 201, 201, 403, 403, 403, 403]),
    ("GET", "/v1/keno/draw-tickets", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/keno/draw-tickets/{id}", [401, 200, 404, 403, 200, 200, 200]),
    ("GET", "/v1/keno/draws", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/keno/draws/{number}", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/keno/paytables", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/keno/math", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/powerball/math", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/powerball/draws/next", [200, 200, 200, 200, 200, 200, 200]),
    ("PUT", "/v1/powerball/draws/{date}/grand-prize", [401, 403, 403, 403, 200, 403, 403]),
    ("PUT", "/v1/powerball/draws/{date}/results-mode", [401, 403, 403, 403, 200, 403, 403]),
    // Results follow the close: next week's drawing is still on sale.
    ("POST", "/v1/powerball/draws/{date}/results", [401, 403, 403, 403, 409, 403, 403]),
    ("GET", "/v1/powerball/draws", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/powerball/draws/{date}", [200, 200, 200, 200, 200, 200, 200]),
    ("POST", "/v1/powerball/tickets", [401, 201, 201, 403, 403, 403, 403]),
    ("GET", "/v1/powerball/tickets", [401, 200, 200, 403, 403, 403, 403]),
    ("POST", "/v1/powerball/retail/tickets", [401, 403, 403, 201, 403, 403, 403]),
    // Ann's online ticket: hers, staff's and services'; not another player's or a retailer's.
    ("GET", "/v1/powerball/tickets/{serial}", [401, 200, 404, 404, 200, 200, 200]),
    // Claims of Ann's ticket: its drawing is not certified yet.
    ("POST", "/v1/powerball/retail/claims", [401, 403, 403, 409, 403, 403, 403]),
    ("GET", "/v1/powerball/retail/day", [401, 403, 403, 200, 403, 403, 403]),
    ("POST", "/v1/powerball/office-claims", [401, 403, 403, 403, 409, 403, 403]),
    ("GET", "/v1/powerball/office-claims", [401, 200, 200, 403, 200, 200, 200]),
    ("GET", "/v1/powerball/annuities", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/draws/audit/verify", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/draws/live", [200, 200, 200, 200, 200, 200, 200]),
    ("POST", "/v1/draws/players/{player}/void-future-tickets", [401, 403, 403, 403, 200, 403, 403]),
    // The table-games service's routes, through the gateway.
    ("POST", "/v1/blackjack/tables", [401, 201, 201, 403, 403, 403, 403]),
    ("POST", "/v1/blackjack/tables/{id}/rounds", [401, 201, 404, 403, 403, 403, 403]),
    ("GET", "/v1/blackjack/rounds/{id}", [401, 200, 404, 403, 200, 200, 200]),
    ("POST", "/v1/blackjack/rounds/{id}/actions", [401, 200, 404, 403, 403, 403, 403]),
    ("GET", "/v1/blackjack/recall", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/blackjack/progressive", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/blackjack/math", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/tables/audit/verify", [401, 403, 403, 403, 200, 200, 200]),
    ("POST", "/v1/i-luv-suits/rounds", [401, 201, 201, 403, 403, 403, 403]),
    // Ann's round, dealt and waiting for her decision: hers, staff's and services' to read.
    ("GET", "/v1/i-luv-suits/rounds/{id}", [401, 200, 404, 403, 200, 200, 200]),
    ("POST", "/v1/i-luv-suits/rounds/{id}/decision", [401, 200, 404, 403, 403, 403, 403]),
    ("GET", "/v1/i-luv-suits/recall", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/i-luv-suits/table", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/i-luv-suits/math", [200, 200, 200, 200, 200, 200, 200]),
    ("POST", "/v1/craps/sessions", [401, 201, 201, 403, 403, 403, 403]),
    // Ann's session: hers, staff's and services' to read; hers alone to play.
    ("GET", "/v1/craps/sessions/{id}", [401, 200, 404, 403, 200, 200, 200]),
    ("POST", "/v1/craps/sessions/{id}/rolls", [401, 201, 404, 403, 403, 403, 403]),
    ("POST", "/v1/craps/sessions/{id}/bets", [401, 201, 404, 403, 403, 403, 403]),
    ("GET", "/v1/craps/recall", [401, 200, 200, 403, 403, 403, 403]),
    ("GET", "/v1/craps/math", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/tables/in-play", [401, 200, 200, 403, 403, 403, 403]),
    // The instant service's routes, through the gateway.
    ("GET", "/v1/instant/games", [200, 200, 200, 200, 200, 200, 200]),
    ("POST", "/v1/instant/games/{number}/print-runs", [401, 403, 403, 403, 202, 403, 403]),
    // No vendor has delivered this file: the operator gets past the gateway and is told so.
    ("POST", "/v1/instant/games/{number}/vendor-runs", [401, 403, 403, 403, 422, 403, 403]),
    // The fixture's run's file, downloaded by the operator's row once: the row is its second ask.
    ("GET", "/v1/instant/print-runs/{id}/printer-file", [401, 403, 403, 403, 410, 403, 403]),
    ("GET", "/v1/instant/keys", [200, 200, 200, 200, 200, 200, 200]),
    ("GET", "/v1/instant/print-jobs", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/instant/print-jobs/{id}", [401, 403, 403, 403, 200, 200, 200]),
    // The fixture's job has succeeded: nothing to cancel.
    ("POST", "/v1/instant/print-jobs/{id}/cancel", [401, 403, 403, 403, 409, 403, 403]),
    // The operator's print run above made the books; book 0 goes to the terminal's retailer.
    ("POST", "/v1/instant/packs/{game}/{book}/ship", [401, 403, 403, 403, 200, 403, 403]),
    ("POST", "/v1/instant/packs/{game}/{book}/receive", [401, 403, 403, 200, 403, 403, 403]),
    ("POST", "/v1/instant/packs/{game}/{book}/activate", [401, 403, 403, 200, 403, 403, 403]),
    // The retailer's till settles its pack; the operator asking again gets the same settlement.
    ("POST", "/v1/instant/packs/{game}/{book}/settle", [401, 403, 403, 200, 200, 403, 403]),
    // Settled, the pack can be neither returned nor reported stolen.
    ("POST", "/v1/instant/packs/{game}/{book}/return", [401, 403, 403, 403, 409, 403, 403]),
    ("POST", "/v1/instant/packs/{game}/{book}/stolen", [401, 403, 403, 409, 409, 403, 403]),
    ("GET", "/v1/instant/packs", [401, 403, 403, 200, 200, 200, 200]),
    ("GET", "/v1/instant/retailers/{id}/statement", [401, 403, 403, 200, 200, 200, 200]),
    // A made-up VIRN: the terminal gets past the gateway and is told the number is wrong.
    ("POST", "/v1/instant/validations", [401, 403, 403, 422, 403, 403, 403]),
    ("POST", "/v1/instant/claims", [401, 403, 403, 422, 403, 403, 403]),
    ("GET", "/v1/instant/claims", [401, 403, 403, 200, 200, 200, 200]),
    // A receipt nobody was given.
    ("GET", "/v1/instant/receipts/{id}", [401, 403, 403, 404, 404, 404, 404]),
    ("POST", "/v1/instant/office-claims", [401, 403, 403, 403, 422, 403, 403]),
    ("GET", "/v1/instant/office-claims", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/instant/liability", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/instant/sales-ends", [401, 403, 403, 403, 200, 200, 200]),
    ("PUT", "/v1/instant/games/{number}/sales-end", [401, 403, 403, 403, 200, 403, 403]),
    // A terminal reads its own retailer's.
    ("GET", "/v1/instant/validations/by-retailer", [401, 403, 403, 200, 200, 200, 200]),
    ("GET", "/v1/instant/reports/unusual-validations", [401, 403, 403, 403, 200, 200, 200]),
    // The ledger's routes, through the gateway (players use /v1/me/wallet instead).
    ("POST", "/v1/accounts", [401, 403, 403, 403, 201, 403, 201]),
    ("GET", "/v1/accounts", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}/transfers", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}/limits", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}/activity", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}/activity/totals", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/accounts/{id}/statement", [401, 403, 403, 403, 200, 200, 200]),
    // Limits are set through the gateway's own routes (which apply the player's and the
    // operator's rules); the ledger takes them from services only.
    ("PUT", "/v1/accounts/{id}/limits", [401, 403, 403, 403, 403, 403, 200]),
    ("PUT", "/v1/accounts/{id}/suspension", [401, 403, 403, 403, 403, 403, 200]),
    ("POST", "/v1/transfers", [401, 403, 403, 403, 201, 403, 201]),
    ("POST", "/v1/transfers/batch", [401, 403, 403, 403, 201, 403, 201]),
    ("GET", "/v1/transfers/{id}", [401, 403, 403, 403, 200, 200, 200]),
    ("POST", "/v1/deposits", [401, 403, 403, 403, 201, 403, 201]),
    ("POST", "/v1/withdrawals", [401, 403, 403, 403, 201, 403, 201]),
    ("GET", "/v1/reports/trial-balance", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/reports/journal-check", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/reports/large-wins", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/reports/daily", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/reports/daily/{day}", [401, 403, 403, 403, 200, 200, 200]),
    ("GET", "/v1/reports/daily/{day}/accounts", [401, 403, 403, 403, 200, 200, 200]),
    // Last: these end the caller's session (each caller uses a session of its own for them).
    ("POST", "/v1/me/self-exclusion", [401, 200, 200, 403, 403, 403, 403]),
    ("POST", "/v1/me/time-out", [401, 200, 200, 403, 403, 403, 403]),
    ("POST", "/v1/me/closure", [401, 200, 200, 403, 403, 403, 403]),
    ("DELETE", "/v1/sessions/current", [401, 204, 204, 204, 204, 204, 400]),
];

/// What the rows refer to.
struct Fixture {
    player: Login,
    player_wallet: String,
    house: String,
    transfer: String,
    retailer: String,
    spare_terminals: Vec<String>,
    keno_ticket: String,
    draw_ticket: String,
    draw_number: i64,
    /// Ann's table with no round in play, and her round waiting for a decision.
    bj_table: String,
    bj_round: String,
    ils_round: String,
    craps_session: String,
    /// Ann's deposit.
    payment: String,
    /// Ann's Powerball ticket, bought online.
    powerball_serial: String,
    /// The print job of the run whose packs the instant rows use, and the run.
    print_job: String,
    print_run: String,
    /// An entry on the operator's exclusion list that names nobody who plays here.
    exclusion_entry: String,
}

/// The concrete path and body of a row, for one caller.
/// A Powerball draw day a week or more away, whose sales are surely open.
fn a_powerball_draw_next_week() -> chrono::NaiveDate {
    let later = Utc::now() + chrono::Duration::days(7);
    domain::powerball::schedule::Timetable::default().next_open(later).date
}

fn request_for(fx: &Fixture, method: &str, route: &str, caller: usize) -> (String, Option<Value>) {
    let transfer = |from: &str, to: &str| json!({"id": new_id(), "debit_account_id": from, "credit_account_id": to, "amount": 1, "currency": "USD"});
    let path = route
        .replace("/v1/players/{id}", &format!("/v1/players/{}", fx.player.subject))
        .replace("/v1/accounts/{id}", &format!("/v1/accounts/{}", fx.player_wallet))
        .replace("/v1/transfers/{id}", &format!("/v1/transfers/{}", fx.transfer))
        .replace("/v1/retailers/{id}", &format!("/v1/retailers/{}", fx.retailer))
        .replace("/v1/terminals/{id}", &format!("/v1/terminals/{}", fx.spare_terminals[caller]))
        .replace("/v1/keno/tickets/{id}", &format!("/v1/keno/tickets/{}", fx.keno_ticket))
        .replace("/v1/keno/draw-tickets/{id}", &format!("/v1/keno/draw-tickets/{}", fx.draw_ticket))
        .replace("/v1/keno/draws/{number}", &format!("/v1/keno/draws/{}", fx.draw_number))
        .replace("/v1/blackjack/tables/{id}", &format!("/v1/blackjack/tables/{}", fx.bj_table))
        .replace("/v1/blackjack/rounds/{id}", &format!("/v1/blackjack/rounds/{}", fx.bj_round))
        .replace("/v1/craps/sessions/{id}", &format!("/v1/craps/sessions/{}", fx.craps_session))
        .replace("/v1/i-luv-suits/rounds/{id}", &format!("/v1/i-luv-suits/rounds/{}", fx.ils_round))
        .replace("/v1/adjustments/{id}", &format!("/v1/adjustments/{}", new_id()))
        .replace("/v1/exclusion-list/{id}", &format!("/v1/exclusion-list/{}", fx.exclusion_entry))
        .replace("/v1/draws/players/{player}", &format!("/v1/draws/players/{}", uuid::Uuid::new_v4()))
        .replace("/v1/me/payments/{id}", &format!("/v1/me/payments/{}", fx.payment))
        // today's gaming day: its report so far
        .replace(
            "/v1/reports/daily/{day}",
            &format!("/v1/reports/daily/{}", GamingDays::default().day_of(Utc::now())),
        )
        .replace("/v1/instant/games/{number}", "/v1/instant/games/283")
        .replace("/v1/instant/packs/{game}/{book}", "/v1/instant/packs/283/0")
        .replace("/v1/instant/retailers/{id}", &format!("/v1/instant/retailers/{}", fx.retailer))
        .replace("/v1/instant/receipts/{id}", &format!("/v1/instant/receipts/{}", new_id()))
        .replace("/v1/instant/print-jobs/{id}", &format!("/v1/instant/print-jobs/{}", fx.print_job))
        .replace("/v1/instant/print-runs/{id}", &format!("/v1/instant/print-runs/{}", fx.print_run))
        .replace("/v1/powerball/tickets/{serial}", &format!("/v1/powerball/tickets/{}", fx.powerball_serial))
        .replace(
            "/v1/powerball/draws/{date}",
            &format!("/v1/powerball/draws/{}", a_powerball_draw_next_week()),
        );
    let path = if route == "/v1/events/export" {
        format!("{path}?from=2026-01-01T00:00:00Z&to=2999-01-01T00:00:00Z")
    } else {
        path
    };
    let body = match (method, route) {
        ("POST", "/v1/players") => Some(
            json!({"email": format!("{}@example.com", new_id()), "password": PASSWORD, "date_of_birth": "1980-01-01"}),
        ),
        ("POST", "/v1/sessions") => Some(json!({"email": "ann@example.com", "password": PASSWORD})),
        ("POST", "/v1/email-verifications") => Some(json!({"token": "ol_never_sent"})),
        ("POST", "/v1/email-verifications/resend" | "/v1/password-resets") => {
            Some(json!({"email": "ann@example.com"}))
        }
        ("POST", "/v1/password-resets/complete") => {
            Some(json!({"token": "ol_never_sent", "password": PASSWORD}))
        }
        ("PUT", "/v1/me/login-notices") => Some(json!({"enabled": true})),
        ("POST", "/v1/players/{id}/deposit-block/clear") => Some(json!({"reason": "checked with the bank"})),
        ("POST", "/v1/me/location-checks") => Some(json!({"packet": "sandbox_inside"})),
        ("POST", "/v1/players/{id}/adjustments") => {
            Some(json!({"direction": "credit", "amount_cents": 100, "reason": "goodwill"}))
        }
        ("POST", "/v1/adjustments/{id}/rejection") => Some(json!({"reason": "not needed"})),
        ("PUT", "/v1/me/identity") => Some(json!({"legal_name": "Ann Lee", "phone": "785 555 0100",
            "address": {"line1": "PO Box 12", "city": "Topeka", "region": "KS", "postal_code": "66601"}})),
        ("POST", "/v1/players/{id}/identity/decision") => {
            Some(json!({"decision": "verified", "reason": "documents seen"}))
        }
        ("POST", "/v1/sessions/refresh") => Some(json!({"refresh_token": "rt_never_issued"})),
        // A staff member's password is what enrols, whoever calls: one that is no one's is
        // refused alike (a real member's wrong password would lock them).
        ("POST", "/v1/staff/second-factor/enrolment") => {
            Some(json!({"username": "nobody-at-all", "password": PASSWORD}))
        }
        ("POST", "/v1/staff/second-factor/enrolment/confirm") => {
            Some(json!({"username": "nobody-at-all", "password": PASSWORD, "code": "123456"}))
        }
        ("POST", "/v1/me/deposits" | "/v1/me/withdrawals") => Some(json!({"amount": 100, "currency": "USD"})),
        ("POST", "/v1/payments/webhook") => Some(json!({"id": new_id(), "type": "payment.succeeded",
            "payment_id": fx.payment, "amount": 10_000, "currency": "USD"})),
        ("PUT", "/v1/me/deposit-limits") => Some(json!({"period": "monthly", "amount": 1_000_000})),
        ("PUT", "/v1/me/limits") => {
            Some(json!({"kind": "wager", "period": "monthly", "amount": 100_000_000}))
        }
        // A fresh limit each time it is imposed (an operator only lowers one): the single stake's.
        ("PUT", "/v1/players/{id}/limits") => Some(json!({"kind": "single_stake", "period": null,
            "amount": 100_000_000 - i64::try_from(caller).unwrap(), "reason": "the help line asked"})),
        ("POST", "/v1/me/time-out") => Some(json!({"period": "24_hours"})),
        ("PUT", "/v1/me/time-limits") => Some(json!({"period": "monthly", "minutes": 43_200})),
        ("POST", "/v1/exclusion-list/import") => Some(Value::String(format!(
            "source,reference,email,date_of_birth,ends_on\noperator,{},nobody@example.com,,\n",
            new_id()
        ))),
        ("POST", "/v1/exclusion-list") => {
            Some(json!({"source": "operator", "reference": new_id(), "email": "nobody@example.com"}))
        }
        ("POST", "/v1/draws/players/{player}/void-future-tickets") => Some(json!({"reason": "time_out"})),
        ("POST", "/v1/me/reality-check") => Some(json!({"decision": "continue"})),
        ("PUT", "/v1/me/reality-check") => Some(json!({"interval_minutes": 60})),
        ("PUT", "/v1/accounts/{id}/suspension") => {
            Some(json!({"until": "2020-01-01T00:00:00Z", "reason": "time_out"}))
        }
        ("PUT", "/v1/accounts/{id}/limits") => Some(json!({"kind": "wager", "period": "monthly",
            "source": "operator", "cents": 100_000_000, "raise_delay_seconds": 86_400})),
        ("PUT", "/v1/powerball/draws/{date}/grand-prize") => {
            Some(json!({"advertised_cents": 2_000_000_000, "cash_value_cents": 900_000_000}))
        }
        ("PUT", "/v1/powerball/draws/{date}/results-mode") => Some(json!({"results_mode": "entered"})),
        ("POST", "/v1/powerball/draws/{date}/results") => {
            Some(json!({"whites": [1, 2, 3, 4, 5], "powerball": 6, "multiplier": 2}))
        }
        ("POST", "/v1/powerball/tickets" | "/v1/powerball/retail/tickets") => {
            Some(json!({"quick_picks": 2, "power_play": true}))
        }
        ("POST", "/v1/powerball/retail/claims") => Some(json!({"serial": fx.powerball_serial})),
        ("POST", "/v1/powerball/office-claims") => {
            Some(json!({"serial": fx.powerball_serial, "claimant": {"name": "Ann", "tin_last4": "1234"}}))
        }
        ("POST", "/v1/me/self-exclusion") => Some(json!({"period": "6_months"})),
        ("POST", "/v1/staff") => Some(
            json!({"username": format!("s{}", &new_id()[24..]), "password": PASSWORD, "role": "auditor"}),
        ),
        ("POST", "/v1/retailers") => Some(json!({"name": "Shop"})),
        ("PATCH", "/v1/retailers/{id}") => Some(json!({"address": "1 Side St"})),
        ("POST", "/v1/retailers/{id}/terminals") => Some(json!({"label": "till"})),
        ("POST", "/v1/accounts") => {
            Some(json!({"kind": "house_revenue", "owner": "casino", "currency": "USD"}))
        }
        ("POST", "/v1/transfers") => Some(transfer(&fx.house, &fx.player_wallet)),
        ("POST", "/v1/transfers/batch") => {
            Some(json!({"transfers": [transfer(&fx.house, &fx.player_wallet)]}))
        }
        ("POST", "/v1/deposits") => {
            Some(json!({"id": new_id(), "account_id": fx.player_wallet, "amount": 1, "currency": "USD"}))
        }
        ("POST", "/v1/keno/tickets") => Some(json!({"option": "bet", "spots": [7, 17, 27]})),
        ("POST", "/v1/keno/draw-tickets") => Some(json!({"option": "bet", "spots": [7, 17], "draws": 2})),
        ("POST", "/v1/blackjack/tables") => Some(json!({"decks": 6})),
        ("POST", "/v1/instant/games/{number}/vendor-runs") => Some(json!({"file": "never-delivered.age"})),
        // Far off: nothing of the fixture's game expires.
        ("PUT", "/v1/instant/games/{number}/sales-end") => Some(json!({"ends_on": "2099-12-31"})),
        ("POST", "/v1/instant/packs/{game}/{book}/ship") => Some(json!({"retailer_id": fx.retailer})),
        ("POST", "/v1/instant/validations" | "/v1/instant/claims") => {
            Some(json!({"barcode": domain::instant::print_run::barcode(283, 0, 0), "virn": "123456789012"}))
        }
        ("POST", "/v1/instant/office-claims") => Some(json!({
            "barcode": domain::instant::print_run::barcode(283, 0, 0), "virn": "123456789012",
            "claimant": {"name": "Pat Doe", "tin_last4": "1234"}})),
        ("POST", "/v1/blackjack/tables/{id}/rounds") => Some(json!({"spots": [{"wager": 100}]})),
        ("POST", "/v1/blackjack/rounds/{id}/actions") => Some(json!({"step": 0, "action": "stand"})),
        ("POST", "/v1/i-luv-suits/rounds") => Some(json!({"ante_cents": 500})),
        ("POST", "/v1/craps/sessions") => Some(json!({})),
        ("POST", "/v1/craps/sessions/{id}/rolls") => {
            Some(json!({"changes": [{"change": "place", "bet": "pass", "amount_cents": 100}]}))
        }
        ("POST", "/v1/craps/sessions/{id}/bets") => {
            Some(json!({"changes": [{"change": "place", "bet": "field", "amount_cents": 100}]}))
        }
        ("POST", "/v1/i-luv-suits/rounds/{id}/decision") => Some(json!({"decision": "fold"})),
        ("POST", "/v1/withdrawals") => {
            Some(json!({"id": new_id(), "account_id": fx.player_wallet, "amount": 1, "currency": "USD"}))
        }
        _ => None,
    };
    let path = match (method, route) {
        ("GET", "/v1/accounts") => format!("{path}?owner={}", fx.player.subject),
        ("GET", "/v1/players") => format!("{path}?email=Ann@example.com"),
        ("GET", "/v1/players/matches") => format!("{path}?part=ann"),
        ("GET", "/v1/accounts/{id}/activity" | "/v1/accounts/{id}/statement") => {
            format!("{path}?from=2026-01-01&to=2026-12-31&time_zone=America/Chicago")
        }
        ("GET", "/v1/accounts/{id}/activity/totals") => format!("{path}?since=2026-01-01T00:00:00Z"),
        ("GET", "/v1/me/statement" | "/v1/me/statement.csv" | "/v1/players/{id}/statement") => {
            format!("{path}?from=2026-01-01&to=2026-12-31")
        }
        _ => path,
    };
    (path, body)
}

/// A fresh session for each caller but staff (None for anonymous).
async fn callers(
    gw: &TestGateway,
    [operator, auditor]: [String; 2],
    terminal_key: &str,
    player: &str,
    other: &str,
) -> Vec<Option<String>> {
    let token =
        |reply: platform::testing::Reply| Some(reply.body["access_token"].as_str().unwrap().to_owned());
    vec![
        None,
        token(gw.login(json!({"email": player, "password": PASSWORD})).await),
        token(gw.login(json!({"email": other, "password": PASSWORD})).await),
        token(gw.login(json!({"api_key": terminal_key})).await),
        Some(operator),
        Some(auditor),
        Some(gw.service_token()),
    ]
}

/// The contract as the code generates it, with a validator per declared answer.
struct Contract {
    doc: Value,
    validators: HashMap<String, Option<jsonschema::Validator>>,
}

/// A JSON pointer's segment, escaped (RFC 6901) and made safe in a URI fragment.
fn pointer_segment(segment: &str) -> String {
    let escaped = segment.replace('~', "~0").replace('/', "~1");
    escaped
        .chars()
        .map(|c| match c {
            'a'..='z'
            | 'A'..='Z'
            | '0'..='9'
            | '-'
            | '.'
            | '_'
            | '~'
            | '+'
            | '!'
            | '$'
            | '&'
            | '('
            | ')'
            | '*'
            | ','
            | ';'
            | '='
            | ':'
            | '@' => c.to_string(),
            other => other.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
        })
        .collect()
}

impl Contract {
    fn new() -> Contract {
        let doc = serde_json::to_value(gateway::openapi_document(vec![
            <ledger::LedgerApi as utoipa::OpenApi>::openapi(),
            <draw_games::DrawGamesApi as utoipa::OpenApi>::openapi(),
            <table_games::TableGamesApi as utoipa::OpenApi>::openapi(),
            <instant::InstantApi as utoipa::OpenApi>::openapi(),
        ]))
        .unwrap();
        Contract { doc, validators: HashMap::new() }
    }

    /// Where the contract declares the JSON schema of `route`'s `status` answer, if it does.
    fn schema_of(&self, method: &str, route: &str, status: u16) -> Option<String> {
        let method = method.to_lowercase();
        let responses = self.doc["paths"][route][&method]["responses"].as_object()?;
        let key = [status.to_string(), format!("{}XX", status / 100), "default".to_owned()]
            .into_iter()
            .find(|k| responses.contains_key(k))?;
        let (mut response, mut at) =
            (&responses[&key], format!("#/paths/{}/{method}/responses/{key}", pointer_segment(route)));
        if let Some(shared) = response["$ref"].as_str() {
            let name = shared.rsplit('/').next()?;
            response = &self.doc["components"]["responses"][name];
            at = format!("#/components/responses/{}", pointer_segment(name));
        }
        // A JSON document (`application/json`, `application/problem+json`); JSON lines are not one.
        let (media, content) = response["content"]
            .as_object()?
            .iter()
            .find(|(m, _)| m.as_str() == "application/json" || m.ends_with("+json"))?;
        content.get("schema")?;
        Some(format!("{at}/content/{}/schema", pointer_segment(media)))
    }

    /// The reasons `body` is not what the contract declares for this answer (none when it is,
    /// or when the answer declares no JSON body).
    fn check(&mut self, method: &str, route: &str, status: u16, body: &Value) -> Vec<String> {
        let Some(pointer) = self.schema_of(method, route, status) else { return Vec::new() };
        let doc = &self.doc;
        let validator = self.validators.entry(pointer.clone()).or_insert_with(|| {
            // The whole contract is the root, so every reference inside resolves.
            let mut root = doc.clone();
            root["$ref"] = Value::String(pointer.clone());
            Some(jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{pointer}: {e}")))
        });
        validator
            .as_ref()
            .map(|v| {
                v.iter_errors(body)
                    .map(|e| {
                        let said: String = e.to_string().chars().take(300).collect();
                        format!("{said} at {}", e.instance_path())
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[tokio::test]
async fn every_route_answers_every_caller_as_the_matrix_says() {
    // Every route the platform has must have a row, and every row must be a route.
    let mut routes: BTreeSet<(String, String)> =
        gateway::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())).collect();
    routes.extend(ledger::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(draw_games::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(table_games::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    routes.extend(instant::route_table().iter().map(|(m, p, _)| (m.to_string(), (*p).to_owned())));
    let rows: BTreeSet<(String, String)> =
        MATRIX.iter().map(|(m, p, _)| ((*m).to_owned(), (*p).to_owned())).collect();
    let missing: Vec<_> = routes.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&routes).collect();
    assert!(missing.is_empty(), "routes without a row in the authorization matrix: {missing:?}");
    assert!(stale.is_empty(), "matrix rows for routes that do not exist: {stale:?}");

    let gw = TestGateway::new().await;
    let operator = gw.staff("olga", Role::Operator).await;
    let auditor = gw.staff("audrey", Role::Auditor).await;
    // Staff log in with a second factor, each code once: their sessions are kept across the
    // rows, and the logout row logs them in again with the codes their second factor gave.
    let (olga, audrey) = (gw.enrolled("olga").await, gw.enrolled("audrey").await);
    let player = gw.player("ann@example.com").await;
    gw.player("bob@example.com").await;
    let (_, terminal_key) = gw.terminal(&operator).await;
    // Players who will self-exclude in the last rows.
    gw.register("cy@example.com").await;
    gw.register("di@example.com").await;

    let service = gw.service_token();
    let me = gw.call("GET", "/v1/me", Some(&player.token), None).await;
    let player_wallet = me.body["player"]["wallet_account_id"].as_str().unwrap().to_owned();
    let house = gw
        .call(
            "POST",
            "/v1/accounts",
            Some(&service),
            Some(json!({"kind": "house_revenue", "owner": "casino", "currency": "USD"})),
        )
        .await;
    let house = house.body["id"].as_str().unwrap().to_owned();
    let seed = json!({"id": new_id(), "debit_account_id": house, "credit_account_id": player_wallet, "amount": 1_000, "currency": "USD"});
    let transfer = gw.call("POST", "/v1/transfers", Some(&service), Some(seed)).await;
    let retailers = gw.call("GET", "/v1/retailers", Some(&operator.token), None).await;
    let retailer = retailers.body["items"][0]["id"].as_str().unwrap().to_owned();
    let mut spare_terminals = Vec::new();
    for _ in WHO {
        let t = gw
            .call(
                "POST",
                &format!("/v1/retailers/{retailer}/terminals"),
                Some(&operator.token),
                Some(json!({"label": "spare"})),
            )
            .await;
        spare_terminals.push(t.body["id"].as_str().unwrap().to_owned());
    }
    // Both players can afford Keno tickets, and Ann has one to read.
    let mut payments = Vec::new();
    for email in ["ann@example.com", "bob@example.com"] {
        let login = gw.login(json!({"email": email, "password": PASSWORD})).await;
        let token = login.body["access_token"].as_str().unwrap();
        let intent = gw.deposit(token, &new_id(), json!({"amount": 10_000, "currency": "USD"})).await;
        assert_eq!(intent.status.as_u16(), 202, "{}", intent.body);
        let id = intent.body["id"].as_str().unwrap().to_owned();
        assert_eq!(gw.settled_payment(token, &id).await["state"], "succeeded");
        payments.push(id);
    }
    let ticket = Request::post("/v1/keno/tickets")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .header("idempotency-key", new_id())
        .body(Body::from(json!({"option": "top_or_bottom"}).to_string()))
        .unwrap();
    let ticket = gw.send(ticket).await;
    assert_eq!(ticket.status.as_u16(), 201, "{}", ticket.body);
    let draw_ticket = Request::post("/v1/keno/draw-tickets")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .header("idempotency-key", new_id())
        .body(Body::from(json!({"option": "top_or_bottom"}).to_string()))
        .unwrap();
    let draw_ticket = gw.send(draw_ticket).await;
    assert_eq!(draw_ticket.status.as_u16(), 201, "{}", draw_ticket.body);
    // Blackjack: two tables of Ann's; on the first, a round dealt from a stacked shoe (her 10 6
    // against the dealer's 9) waits for her decision.
    let mut bj_tables = Vec::new();
    for _ in 0..2 {
        let table = Request::post("/v1/blackjack/tables")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {}", player.token))
            .body(Body::from(json!({"decks": 6}).to_string()))
            .unwrap();
        let table = gw.send(table).await;
        assert_eq!(table.status.as_u16(), 201, "{}", table.body);
        bj_tables.push(table.body["id"].as_str().unwrap().to_owned());
    }
    let tables_pool = table_games::connect(&gw.url, &platform::config::Config::default()).await.unwrap();
    let mut cards: Vec<domain::cards::Card> =
        ["10S", "9H", "6D", "7C"].iter().map(|c| c.parse().unwrap()).collect();
    cards.resize(312, "2C".parse().unwrap());
    let shoe = domain::cards::Shoe::stacked(domain::cards::Decks::Six, cards, 260).unwrap();
    sqlx::query("UPDATE bj_tables SET shoe = $2 WHERE id = $1::uuid")
        .bind(&bj_tables[0])
        .bind(serde_json::to_value(&shoe).unwrap())
        .execute(&tables_pool)
        .await
        .unwrap();
    let round = Request::post(format!("/v1/blackjack/tables/{}/rounds", bj_tables[0]))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .header("idempotency-key", new_id())
        .body(Body::from(json!({"spots": [{"wager": 100}]}).to_string()))
        .unwrap();
    let round = gw.send(round).await;
    assert_eq!(
        (round.status.as_u16(), round.body["state"].as_str()),
        (201, Some("playing")),
        "{}",
        round.body
    );
    // I Luv Suits: a round of Ann's, dealt and waiting for her decision.
    let ils_round = Request::post("/v1/i-luv-suits/rounds")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .header("idempotency-key", new_id())
        .body(Body::from(json!({"ante_cents": 500}).to_string()))
        .unwrap();
    let ils_round = gw.send(ils_round).await;
    assert_eq!(
        (ils_round.status.as_u16(), ils_round.body["state"].as_str()),
        (201, Some("deciding")),
        "{}",
        ils_round.body
    );
    // Craps: a session of Ann's.
    let craps = Request::post("/v1/craps/sessions")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .body(Body::from(json!({}).to_string()))
        .unwrap();
    let craps = gw.send(craps).await;
    assert_eq!(craps.status.as_u16(), 201, "{}", craps.body);
    // Ann buys a Powerball ticket online; next week's drawing is on record for its public read.
    let powerball = Request::post("/v1/powerball/tickets")
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {}", player.token))
        .header("idempotency-key", new_id())
        .body(Body::from(json!({"quick_picks": 1}).to_string()))
        .unwrap();
    let powerball = gw.send(powerball).await;
    assert_eq!(powerball.status.as_u16(), 201, "{}", powerball.body);
    let grand_prize = json!({"advertised_cents": 2_000_000_000, "cash_value_cents": 900_000_000});
    let next_week = format!("/v1/powerball/draws/{}/grand-prize", a_powerball_draw_next_week());
    let set = gw.call("PUT", &next_week, Some(&operator.token), Some(grand_prize)).await;
    assert_eq!(set.status.as_u16(), 200, "{}", set.body);
    // The instant run whose packs the rows move, printed to the end first.
    let job = gw.print_run(&operator.token, 283).await;
    let run = job["print_run"].as_str().unwrap().to_owned();
    let file = gw
        .call("GET", &format!("/v1/instant/print-runs/{run}/printer-file"), Some(&operator.token), None)
        .await;
    assert_eq!(file.status.as_u16(), 200);
    let entry = json!({"source": "operator", "reference": new_id(), "email": "nobody@example.com"});
    let entry = gw.call("POST", "/v1/exclusion-list", Some(&operator.token), Some(entry)).await;
    assert_eq!(entry.status.as_u16(), 201, "{}", entry.body);
    let entries = gw.call("GET", "/v1/exclusion-list", Some(&operator.token), None).await;
    let fx = Fixture {
        exclusion_entry: entries.body[0]["id"].as_str().unwrap().to_owned(),
        print_run: run,
        print_job: job["id"].as_str().unwrap().to_owned(),
        powerball_serial: powerball.body["serial"].as_str().unwrap().to_owned(),
        player,
        player_wallet,
        house,
        transfer: transfer.body["id"].as_str().unwrap().to_owned(),
        retailer,
        spare_terminals,
        keno_ticket: ticket.body["id"].as_str().unwrap().to_owned(),
        draw_ticket: draw_ticket.body["id"].as_str().unwrap().to_owned(),
        draw_number: draw_ticket.body["entries"][0]["draw_number"].as_i64().unwrap(),
        bj_table: bj_tables[1].clone(),
        bj_round: round.body["id"].as_str().unwrap().to_owned(),
        ils_round: ils_round.body["id"].as_str().unwrap().to_owned(),
        craps_session: craps.body["id"].as_str().unwrap().to_owned(),
        payment: payments[0].clone(),
    };

    let mut failures = Vec::new();
    let mut contract = Contract::new();
    for (method, route, expected) in MATRIX {
        // The session-ending rows run on sessions of their own, and self-exclusion on players of its own.
        let (player_email, other_email) = if *route == "/v1/me/self-exclusion" {
            ("cy@example.com", "di@example.com")
        } else {
            ("ann@example.com", "bob@example.com")
        };
        let staff = if *route == "/v1/sessions/current" {
            [gw.staff_login("olga", &olga, 0).await.token, gw.staff_login("audrey", &audrey, 0).await.token]
        } else {
            [operator.token.clone(), auditor.token.clone()]
        };
        let tokens = callers(&gw, staff, &terminal_key, player_email, other_email).await;
        for (caller, token) in tokens.iter().enumerate() {
            let (path, body) = request_for(&fx, method, route, caller);
            // The list import is a CSV file (it takes only `text/csv` or JSON rows).
            let content_type =
                if *route == "/v1/exclusion-list/import" { "text/csv" } else { "application/json" };
            let mut request =
                Request::builder().method(*method).uri(&path).header("content-type", content_type);
            if let Some(token) = token {
                request = request.header("authorization", format!("Bearer {token}"));
            }
            if matches!(*route, "/v1/me/deposits" | "/v1/me/withdrawals" | "/v1/players/{id}/adjustments")
                || *method == "POST"
                    && (route.starts_with("/v1/keno/")
                        || route.starts_with("/v1/blackjack/tables/")
                        || *route == "/v1/i-luv-suits/rounds"
                        || route.starts_with("/v1/craps/sessions/{id}/")
                        || route.ends_with("/tickets")
                        || *route == "/v1/instant/claims"
                        || *route == "/v1/powerball/retail/claims")
            {
                request = request.header("idempotency-key", new_id());
            }
            // A JSON string is a file sent as it is (an exclusion list's CSV).
            let body = body.map_or_else(Body::empty, |b| match b {
                Value::String(text) => Body::from(text),
                b => Body::from(b.to_string()),
            });
            let reply = gw.send(request.body(body).unwrap()).await;
            for wrong in contract.check(method, route, reply.status.as_u16(), &reply.body) {
                failures.push(format!(
                    "{method} {route} as {}: {} answer not as the contract says: {wrong}",
                    WHO[caller],
                    reply.status.as_u16()
                ));
            }
            if reply.status.as_u16() != expected[caller] {
                failures.push(format!(
                    "{method} {route} as {}: expected {}, got {} {}",
                    WHO[caller],
                    expected[caller],
                    reply.status.as_u16(),
                    reply.body
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} cells differ:\n{}", failures.len(), failures.join("\n"));
    gw.assert_ledger_balanced().await;
}
