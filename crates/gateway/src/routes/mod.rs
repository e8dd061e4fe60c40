//! The gateway's handlers: each authorises its caller, extracts the request, makes one call
//! into [`crate::saga`] or [`crate::store`], and answers a view. The routes of the services
//! behind the gateway are passed through ([`pass`]) once the caller's role may use them.

pub mod adjustments;
pub mod events;
pub mod identity;
pub mod location;
mod pass;
pub mod payments;
pub mod players;
pub mod protection;
pub mod sessions;
pub mod staff;

use axum::http::Method;
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, delete, get, patch, post, put};

use crate::GatewayState;
use crate::OPENAPI_YAML;
pub(crate) use pass::pass_to_ledger;
use pass::*;

// Long by design (issue 33 §5): the route table, one line per route, the one list the router
// and the authorization matrix read.
/// Every route the gateway itself answers: the one list the router is built from, and which the
/// authorization matrix test checks it covers. Services' routes are passed through (below).
pub fn route_table() -> Vec<(Method, &'static str, MethodRouter<GatewayState>)> {
    vec![
        (Method::POST, "/v1/players", post(players::register)),
        (Method::GET, "/v1/players", get(players::find_player)),
        (Method::GET, "/v1/players/matches", get(players::match_players)),
        (Method::GET, "/v1/players/{id}", get(players::get_player)),
        (Method::POST, "/v1/email-verifications", post(players::verify_email)),
        (Method::POST, "/v1/email-verifications/resend", post(players::resend_verification)),
        (Method::POST, "/v1/password-resets", post(players::request_reset)),
        (Method::POST, "/v1/password-resets/complete", post(players::complete_reset)),
        (Method::PUT, "/v1/me/login-notices", put(players::set_login_notices)),
        (Method::GET, "/v1/mail", get(staff::mail_outbox)),
        (Method::POST, "/v1/players/{id}/deposit-block/clear", post(staff::clear_deposit_block)),
        (Method::POST, "/v1/players/{id}/adjustments", post(adjustments::propose)),
        (Method::GET, "/v1/adjustments", get(adjustments::list)),
        (Method::GET, "/v1/events", get(events::list)),
        (Method::GET, "/v1/events/export", get(events::export)),
        (Method::GET, "/v1/events/chain", get(events::chain)),
        (Method::POST, "/v1/events/export-check", post(events::check_export)),
        (Method::GET, "/v1/adjustments/{id}", get(adjustments::get_one)),
        (Method::POST, "/v1/adjustments/{id}/approval", post(adjustments::approve)),
        (Method::POST, "/v1/adjustments/{id}/rejection", post(adjustments::reject)),
        (Method::PUT, "/v1/me/identity", put(identity::submit)),
        (Method::GET, "/v1/me/identity", get(identity::mine)),
        (Method::POST, "/v1/identity/webhook", post(identity::webhook)),
        (Method::GET, "/v1/identity/reviews", get(identity::reviews)),
        (Method::GET, "/v1/players/{id}/identity", get(identity::of_player)),
        (Method::POST, "/v1/players/{id}/identity/decision", post(identity::decide)),
        (Method::POST, "/v1/me/location-checks", post(location::check)),
        (Method::GET, "/v1/me/location", get(location::mine)),
        (Method::GET, "/v1/players/{id}/location-checks", get(location::of_player)),
        (Method::POST, "/v1/sessions", post(sessions::login)),
        (Method::POST, "/v1/sessions/refresh", post(sessions::refresh)),
        (Method::POST, "/v1/staff/second-factor/enrolment", post(sessions::begin_enrolment)),
        (Method::POST, "/v1/staff/second-factor/enrolment/confirm", post(sessions::confirm_enrolment)),
        (Method::DELETE, "/v1/sessions/current", delete(sessions::logout)),
        (Method::GET, "/v1/me", get(players::me)),
        (Method::GET, "/v1/me/wallet", get(players::wallet)),
        (Method::GET, "/v1/me/wallet/transfers", get(players::wallet_history)),
        (Method::GET, "/v1/me/wallet/entries", get(players::wallet_entries)),
        (Method::POST, "/v1/me/deposits", post(payments::deposit)),
        (Method::POST, "/v1/me/withdrawals", post(payments::withdraw)),
        (Method::GET, "/v1/me/payments", get(payments::list_payments)),
        (Method::GET, "/v1/me/payments/{id}", get(payments::get_payment)),
        (Method::POST, "/v1/payments/webhook", post(payments::webhook)),
        (Method::GET, "/v1/me/deposit-limits", get(players::get_limits)),
        (Method::PUT, "/v1/me/deposit-limits", put(players::set_limit)),
        (Method::POST, "/v1/me/self-exclusion", post(players::self_exclude)),
        (Method::GET, "/v1/me/limits", get(protection::my_limits)),
        (Method::PUT, "/v1/me/limits", put(protection::set_my_limit)),
        (Method::GET, "/v1/players/{id}/limits", get(protection::player_limits)),
        (Method::PUT, "/v1/players/{id}/limits", put(protection::impose_limit)),
        (Method::POST, "/v1/me/time-out", post(protection::take_time_out)),
        (Method::PUT, "/v1/me/time-limits", put(protection::set_my_time_limit)),
        (Method::POST, "/v1/me/self-exclusion/return", post(protection::request_return)),
        (Method::POST, "/v1/me/closure", post(protection::close_account)),
        (Method::POST, "/v1/me/reopening", post(protection::request_reopen)),
        (Method::GET, "/v1/responsible-gaming", get(protection::responsible_gaming)),
        (Method::POST, "/v1/exclusion-list", post(protection::add_to_exclusion_list)),
        (Method::GET, "/v1/exclusion-list", get(protection::exclusion_list)),
        (Method::POST, "/v1/exclusion-list/import", post(protection::import_exclusion_list)),
        (Method::DELETE, "/v1/exclusion-list/{id}", delete(protection::remove_from_exclusion_list)),
        (Method::GET, "/v1/dormant-accounts", get(protection::dormant_accounts)),
        (Method::GET, "/v1/me/play-session", get(protection::my_play_session)),
        (Method::POST, "/v1/me/reality-check", post(protection::answer_reality_check)),
        (Method::PUT, "/v1/me/reality-check", put(protection::set_reality_check_interval)),
        (Method::GET, "/v1/me/statement", get(protection::my_statement)),
        (Method::GET, "/v1/me/statement.csv", get(protection::my_statement_csv)),
        (Method::GET, "/v1/players/{id}/statement", get(protection::player_statement)),
        (Method::POST, "/v1/staff", post(staff::add_staff)),
        (Method::GET, "/v1/staff", get(staff::list_staff)),
        (Method::POST, "/v1/retailers", post(staff::add_retailer)),
        (Method::GET, "/v1/retailers", get(staff::list_retailers)),
        (Method::PATCH, "/v1/retailers/{id}", patch(staff::change_retailer)),
        (Method::POST, "/v1/retailers/{id}/terminals", post(staff::add_terminal)),
        (Method::GET, "/v1/retailers/{id}/terminals", get(staff::list_terminals)),
        (Method::DELETE, "/v1/terminals/{id}", delete(staff::revoke_terminal)),
        (Method::GET, "/openapi.yaml", get(openapi_yaml)),
        // The draw-games service's routes, passed through under the gateway's role rules.
        (Method::POST, "/v1/keno/tickets", post(for_stakes::<DRAWS>)),
        (Method::GET, "/v1/keno/tickets", get(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/tickets/{id}", get(for_readers::<DRAWS>)),
        (Method::POST, "/v1/keno/draw-tickets", post(for_stakes::<DRAWS>)),
        (Method::GET, "/v1/keno/draw-tickets", get(for_players::<DRAWS>)),
        (Method::GET, "/v1/keno/draw-tickets/{id}", get(for_readers::<DRAWS>)),
        (Method::GET, "/v1/keno/draws", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/draws/{number}", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/paytables", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/keno/math", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/math", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws/next", get(for_anyone::<DRAWS>)),
        (Method::PUT, "/v1/powerball/draws/{date}/grand-prize", put(for_operators::<DRAWS>)),
        (Method::PUT, "/v1/powerball/draws/{date}/results-mode", put(for_operators::<DRAWS>)),
        (Method::POST, "/v1/powerball/draws/{date}/results", post(for_operators::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws", get(for_anyone::<DRAWS>)),
        (Method::GET, "/v1/powerball/draws/{date}", get(for_anyone::<DRAWS>)),
        (Method::POST, "/v1/powerball/tickets", post(for_stakes::<DRAWS>)),
        (Method::GET, "/v1/powerball/tickets", get(for_players::<DRAWS>)),
        (Method::POST, "/v1/powerball/retail/tickets", post(for_retailers::<DRAWS>)),
        (Method::GET, "/v1/powerball/tickets/{serial}", get(for_ticket_holders::<DRAWS>)),
        (Method::POST, "/v1/powerball/retail/claims", post(for_retailers::<DRAWS>)),
        (Method::GET, "/v1/powerball/retail/day", get(for_retailers::<DRAWS>)),
        (Method::POST, "/v1/powerball/office-claims", post(for_operators::<DRAWS>)),
        (Method::GET, "/v1/powerball/office-claims", get(for_readers::<DRAWS>)),
        (Method::GET, "/v1/draws/audit/verify", get(for_staff::<DRAWS>)),
        (Method::GET, "/v1/draws/live", get(live_stream)),
        (Method::POST, "/v1/draws/players/{player}/void-future-tickets", post(for_operators::<DRAWS>)),
        (Method::POST, "/v1/blackjack/tables", post(for_players::<TABLES>)),
        (Method::POST, "/v1/blackjack/tables/{id}/rounds", post(for_stakes::<TABLES>)),
        (Method::GET, "/v1/blackjack/rounds/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/blackjack/rounds/{id}/actions", post(for_round_decisions::<TABLES>)),
        (Method::GET, "/v1/blackjack/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/blackjack/progressive", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/blackjack/math", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/tables/audit/verify", get(for_staff::<TABLES>)),
        (Method::POST, "/v1/i-luv-suits/rounds", post(for_stakes::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/rounds/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/i-luv-suits/rounds/{id}/decision", post(for_round_decisions::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/table", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/i-luv-suits/math", get(for_anyone::<TABLES>)),
        (Method::POST, "/v1/craps/sessions", post(for_players::<TABLES>)),
        (Method::GET, "/v1/craps/sessions/{id}", get(for_readers::<TABLES>)),
        (Method::POST, "/v1/craps/sessions/{id}/rolls", post(for_stakes::<TABLES>)),
        (Method::POST, "/v1/craps/sessions/{id}/bets", post(for_stakes::<TABLES>)),
        (Method::GET, "/v1/craps/recall", get(for_players::<TABLES>)),
        (Method::GET, "/v1/craps/math", get(for_anyone::<TABLES>)),
        (Method::GET, "/v1/tables/in-play", get(for_players::<TABLES>)),
        (Method::GET, "/v1/instant/games", get(for_anyone::<INSTANT>)),
        (Method::POST, "/v1/instant/games/{number}/print-runs", post(for_operators::<INSTANT>)),
        (Method::POST, "/v1/instant/games/{number}/vendor-runs", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/print-runs/{id}/printer-file", get(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/keys", get(for_anyone::<INSTANT>)),
        (Method::GET, "/v1/instant/print-jobs", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/print-jobs/{id}", get(for_staff::<INSTANT>)),
        (Method::POST, "/v1/instant/print-jobs/{id}/cancel", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/packs", get(for_counter_readers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/ship", post(ship_pack)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/receive", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/activate", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/settle", post(for_pack_holders::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/return", post(for_operators::<INSTANT>)),
        (Method::POST, "/v1/instant/packs/{game}/{book}/stolen", post(for_pack_holders::<INSTANT>)),
        (Method::POST, "/v1/instant/validations", post(for_retailers::<INSTANT>)),
        (Method::POST, "/v1/instant/claims", post(for_retailers::<INSTANT>)),
        (Method::GET, "/v1/instant/claims", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/receipts/{id}", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/retailers/{id}/statement", get(for_counter_readers::<INSTANT>)),
        (Method::POST, "/v1/instant/office-claims", post(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/office-claims", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/liability", get(for_staff::<INSTANT>)),
        (Method::GET, "/v1/instant/sales-ends", get(for_staff::<INSTANT>)),
        (Method::PUT, "/v1/instant/games/{number}/sales-end", put(for_operators::<INSTANT>)),
        (Method::GET, "/v1/instant/validations/by-retailer", get(for_counter_readers::<INSTANT>)),
        (Method::GET, "/v1/instant/reports/unusual-validations", get(for_staff::<INSTANT>)),
    ]
}

async fn openapi_yaml() -> impl IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}
