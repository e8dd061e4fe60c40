//! Every problem code the platform answers with, its HTTP status, and what it means: the one
//! list a front end (and the README's error table, checked against it by a test) reads.
//!
//! A code is stable: front ends branch on it, never on the wording of `detail`. Tests check every
//! problem they meet against this table (`crate::testing::send`), so a new code cannot ship
//! without a line here. A code listed twice is answered with either status: `account_not_found`
//! is 404 when the account is named in the path and 422 when a transfer names it, and so on.

/// One problem code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub status: u16,
    pub meaning: &'static str,
}

const fn code(code: &'static str, status: u16, meaning: &'static str) -> Code {
    Code { code, status, meaning }
}

/// Every code, by status then name.
pub const ALL: &[Code] = &[
    // 400: the request itself is malformed.
    code("idempotency_key_mismatch", 400, "the body's id and the Idempotency-Key name different requests"),
    code("invalid_cursor", 400, "a page cursor that this list did not give"),
    code("invalid_idempotency_key", 400, "an Idempotency-Key that is not 1 to 255 visible characters"),
    code("invalid_limit", 400, "a page size outside its range"),
    code("invalid_path", 400, "a path parameter of the wrong form"),
    code("invalid_query", 400, "a query parameter of the wrong form, or an unknown one"),
    code("malformed_json", 400, "the body is not JSON"),
    code(
        "malformed_request",
        400,
        "the request line or a header breaks HTTP's syntax (a control character in a header value)",
    ),
    code("missing_idempotency_key", 400, "a request that moves money or deals needs an Idempotency-Key"),
    code("no_session", 400, "a logout without a session"),
    code("unreadable_body", 400, "the body could not be read"),
    // 401: who is calling is not established.
    code("invalid_credentials", 401, "wrong username, email, password or API key"),
    code("invalid_refresh_token", 401, "a refresh token the platform never issued"),
    code("invalid_signature", 401, "a webhook whose signature or timestamp does not verify"),
    code("invalid_token", 401, "an access token that does not verify"),
    code("key_revoked", 401, "a terminal API key that has been revoked"),
    code(
        "refresh_token_reused",
        401,
        "a refresh token used a second time: its session is ended (theft detection)",
    ),
    code("session_ended", 401, "the session was ended (logout, self-exclusion, a new password)"),
    code("session_expired", 401, "the session reached its end (LOTTO_SESSION_MAX_S after its login)"),
    code("session_idle", 401, "the session ended after the idle timeout without a request"),
    code("token_expired", 401, "the access token has expired"),
    code("unauthenticated", 401, "no access token"),
    // 403: established, and not allowed.
    code("account_locked", 403, "too many failed logins: locked for a while"),
    code("forbidden", 403, "the caller's role may not do this"),
    code("online_sales_off", 403, "this lottery sells Powerball at terminals only"),
    code("self_excluded", 403, "the player has excluded themself from play"),
    code("terminal_locked", 403, "too many wrong VIRNs from this terminal or its retailer"),
    // 404: the thing named does not exist (or is not the caller's).
    code("account_not_found", 404, "no such ledger account"),
    code("draw_not_found", 404, "no such Keno draw"),
    code("drawing_not_found", 404, "no such Powerball drawing on record"),
    code("game_not_found", 404, "no such instant game"),
    code("pack_not_found", 404, "no such pack (or not this retailer's)"),
    code("payment_not_found", 404, "no such deposit or withdrawal"),
    code("player_not_found", 404, "no such player"),
    code("print_job_not_found", 404, "no such print job"),
    code("print_run_not_found", 404, "no such print run with a printer's file"),
    code("receipt_not_found", 404, "no such counter receipt (or not this retailer's)"),
    code("retailer_not_found", 404, "no such retailer"),
    code("round_not_found", 404, "no such blackjack round (or not the caller's)"),
    code("route_not_found", 404, "no such route"),
    code("session_not_found", 404, "no such craps session (or not the caller's)"),
    code("table_not_found", 404, "no such blackjack table (or not the caller's)"),
    code("terminal_not_found", 404, "no such terminal"),
    code(
        "ticket_not_found",
        404,
        "no such ticket (Keno, Powerball, or its serial), or no such ticket printed (instant)",
    ),
    code("transfer_not_found", 404, "no such ledger transfer"),
    code("unknown_game", 404, "a scanned barcode of a game this service does not run"),
    // 405, 409, 410, 413, 414, 415.
    code("method_not_allowed", 405, "the route does not take this method"),
    code("body_timeout", 408, "the request's body did not all arrive before the request's deadline"),
    code("already_paid", 409, "the ticket's prize has been paid"),
    code("append_only", 409, "the journal is append-only: a transfer is never changed"),
    code("claim_at_office", 409, "the prize is above the retailer limit: claimed at the lottery office"),
    code("claim_expired", 409, "the prize's claim period has ended: it expired"),
    code(
        "claim_released",
        409,
        "the ledger refused this claim's payment and the ticket was released: claim it again",
    ),
    code("concurrent_update", 409, "too many concurrent attempts on the same accounts: retry"),
    code("decision_pending", 409, "a blackjack decision on this step waits for its wager: send it again"),
    code("drawing_not_certified", 409, "a Powerball drawing's prizes are payable once it is certified"),
    code("drawing_not_closed", 409, "a Powerball drawing's results follow its close and frozen wager set"),
    code("drawing_not_settled", 409, "only a settled Powerball drawing is certified"),
    code("drawing_settled", 409, "a settled Powerball drawing's grand prize stands"),
    code("email_taken", 409, "an account with this email exists"),
    code("hold_already_ended", 409, "the hold was posted or voided already"),
    code("idempotency_conflict", 409, "this key was used for a different request"),
    code("out_of_turn", 409, "a blackjack decision for a hand that is not in turn"),
    code("pack_not_active", 409, "the pack has not been activated (or, to settle, is not active)"),
    code("pack_not_at_retailer", 409, "the pack is not shipped, received or active (a theft report)"),
    code("pack_not_printed", 409, "the pack is not printed (shipping)"),
    code("pack_not_returnable", 409, "the pack is not shipped or received (a return)"),
    code(
        "pack_not_shipped",
        409,
        "the pack is not shipped (receipt), or neither shipped nor received (activation)",
    ),
    code("pack_stolen", 409, "the ticket's pack was reported stolen: not paid at any counter or office"),
    code("paid_to_wallet", 409, "an online ticket's prizes go to its wallet (from $600, the office)"),
    code("print_job_finished", 409, "the print job has succeeded or failed: nothing to cancel"),
    code("results_are_drawn", 409, "the drawing's results are drawn by the service, not entered"),
    code("results_mismatch", 409, "two operators' entries of the results disagree: both discarded, logged"),
    code("results_stand", 409, "the drawing's results already stand"),
    code("roll_in_progress", 409, "another request on this craps session is being settled: retry"),
    code("round_in_play", 409, "the table has a round in play"),
    code("round_not_in_play", 409, "the round is not waiting for a decision"),
    code("sales_closed", 409, "the drawing's sales have closed"),
    code("second_operator_required", 409, "results wait for a different operator's entry (dual control)"),
    code("stale_step", 409, "the decision names a step the round has passed"),
    code("username_taken", 409, "a staff member with this username exists"),
    code("printer_file_gone", 410, "the run's printer's file was downloaded once and is not kept"),
    code("body_too_large", 413, "the body is larger than the limit"),
    code("uri_too_long", 414, "the path and query are longer than 8 KiB"),
    code("unsupported_media_type", 415, "the body is not application/json"),
    // 422: well formed, and the rules say no; 429: too many.
    code("account_limit_reached", 422, "an account's balance would pass what one account may hold"),
    code("account_not_found", 422, "a transfer names an account that does not exist"),
    code("action_not_allowed", 422, "the blackjack rules do not allow this decision now"),
    code("amount_exceeds_hold", 422, "a hold posted for more than it holds"),
    code(
        "amount_not_in_units",
        422,
        "a craps bet not in the units its odds pay whole cents on (a place 6 in sixes of cents)",
    ),
    code("amount_too_large", 422, "more than one transfer may move"),
    code(
        "bet_not_allowed_now",
        422,
        "a craps bet the rules do not allow at this point of the game (111-501-44(c), -45)",
    ),
    code("blazing_sevens_need_six_decks", 422, "the Blazing 7's is offered at six-deck tables only"),
    code("claimant_tin_required", 422, "a prize that needs a W-2G needs the claimant's TIN"),
    code(
        "contract_bet",
        422,
        "a pass, come or put bet whose point is set cannot be removed or reduced (111-501-45(d))",
    ),
    code("currency_mismatch", 422, "the accounts of a transfer hold different currencies"),
    code("cut_out_of_range", 422, "the cut card is too near either end of the shoe"),
    code("deposit_limit_exceeded", 422, "the deposit passes the player's own limit"),
    code(
        "dont_bet_locked",
        422,
        "a don't bet removed or reduced cannot be replaced until the next come-out (111-501-45(e))",
    ),
    code("draws_out_of_range", 422, "a Keno or Powerball ticket enters 1 to the most consecutive draws"),
    code("duplicate_spot", 422, "a Keno number marked twice"),
    code("duplicate_transfer_id", 422, "two transfers of one batch with the same id"),
    code("duplicate_white", 422, "a Powerball white number marked twice"),
    code("event_mismatch", 422, "a payment event that does not match its payment"),
    code("hold_expired", 422, "the hold expired"),
    code("hold_not_expired", 422, "a hold expired by the sweeper before its time"),
    code("hold_not_found", 422, "no such hold"),
    code("insufficient_funds", 422, "the balance does not cover it"),
    code("invalid_address", 422, "a retailer's address of the wrong length"),
    code("invalid_amount", 422, "an amount that is not a positive number of cents"),
    code("invalid_barcode", 422, "a barcode not well formed, or its check digit wrong"),
    code("invalid_batch", 422, "a batch that is empty or too large"),
    code("invalid_bet", 422, "a craps bet on a number it cannot be on"),
    code("invalid_board_count", 422, "a Powerball slip of no boards, or more than a slip holds"),
    code("invalid_body", 422, "a body field of the wrong type, or an unknown one"),
    code("invalid_claimant", 422, "the claimant's name or TIN is not well formed"),
    code("invalid_currency", 422, "not an ISO 4217 currency code"),
    code("invalid_date_of_birth", 422, "a date of birth that cannot be"),
    code("invalid_decks", 422, "a blackjack table deals from 6 decks or 2"),
    code("invalid_email", 422, "not an email address"),
    code("invalid_grand_prize", 422, "a grand prize that is not positive, or a cash value above it"),
    code("invalid_label", 422, "a terminal label of the wrong length"),
    code("invalid_limits", 422, "a table's limits outside the house's, or not whole dollars"),
    code("invalid_max_spots", 422, "more spots than the table's shoe always serves"),
    code("invalid_metadata", 422, "transfer metadata that is not a small JSON object"),
    code("invalid_name", 422, "a retailer name of the wrong length"),
    code("invalid_odds_multiple", 422, "a craps table's odds multiple outside 1 to the house's"),
    code("invalid_owner", 422, "an account owner of the wrong form"),
    code("invalid_retailer", 422, "a retailer id that is not 1 to 64 visible characters"),
    code("invalid_role", 422, "staff of a role that does not exist here"),
    code("invalid_serial", 422, "a ticket serial not 19 digits, or its check digit wrong"),
    code("invalid_timeout", 422, "a hold's timeout out of range"),
    code("invalid_transfer", 422, "a transfer of the wrong form"),
    code("invalid_username", 422, "a username of the wrong form"),
    code("invalid_virn", 422, "a VIRN that is not twelve digits (a misread: not counted toward the lockout)"),
    code("invalid_window", 422, "a report window whose start is not before its end"),
    code("missing_field", 422, "a required body field is absent"),
    code("multiplier_not_in_drum", 422, "a Power Play multiplier that is not a ball of the drawing's drum"),
    code("no_spots", 422, "a blackjack round without a spot"),
    code("no_such_bet", 422, "a craps change names a bet not on the layout"),
    code("no_such_spot", 422, "a blackjack decision for a spot not played"),
    code("not_a_draw_day", 422, "a day without a drawing"),
    code("not_a_winner", 422, "the ticket wins nothing"),
    code("nul_in_text", 422, "text with a NUL character"),
    code(
        "odds_over_multiple",
        422,
        "craps odds over the table's multiple of the bet behind them (111-501-45(s)-(u))",
    ),
    code(
        "play_over_multiple",
        422,
        "an I Luv Suits play wager above what the hand allows (1x, 2x with five of a suit, 3x with six or seven)",
    ),
    code("play_under_ante", 422, "an I Luv Suits play wager below the ante"),
    code("powerball_out_of_range", 422, "a Powerball outside 1 to 26"),
    code("retailer_not_found", 422, "a pack assigned to a retailer that does not exist"),
    code("royal_match_needs_six_decks", 422, "Royal Match is offered at six-deck tables only"),
    code("same_account", 422, "a transfer from an account to itself"),
    code(
        "shooter_needs_line_bet",
        422,
        "a come-out roll without the shooter's pass or don't pass bet (111-501-44(a)(8))",
    ),
    code(
        "side_wager_out_of_range",
        422,
        "an I Luv Suits Flush Rush or Super Flush Rush wager outside the table's limits",
    ),
    code("spot_out_of_range", 422, "a Keno number outside 1 to 80"),
    code("spots_not_allowed", 422, "a number of Keno spots the option does not allow"),
    code("stake_out_of_range", 422, "a Keno stake outside the allowed tickets"),
    code("stake_refused", 422, "the stake could not be taken (the ledger's own code when it gives one)"),
    code("too_many_spots", 422, "more blackjack spots than the table allows"),
    code("under_age", 422, "a player under the minimum age"),
    code("unknown_event", 422, "a payment webhook of an event type the platform does not handle"),
    code("unsupported_currency", 422, "payments are in USD only"),
    code(
        "vendor_file_not_found",
        422,
        "no such file in the vendor inbox (a plain file name, delivered there first)",
    ),
    code("wager_out_of_range", 422, "a blackjack wager or an I Luv Suits ante outside the table's limits"),
    code("wallet_not_found", 422, "the player has no wallet"),
    code("weak_password", 422, "a password too easy to guess"),
    code("white_count", 422, "a Powerball board without exactly five white numbers"),
    code("white_out_of_range", 422, "a Powerball white number outside 1 to 69"),
    code("wrong_virn", 422, "the VIRN does not match the ticket (counts toward the lockout)"),
    code("rate_limited", 429, "too many requests: see Retry-After"),
    code("too_many_streams", 429, "this address holds as many live streams open as it may: close one"),
    code("headers_too_large", 431, "the request's headers are larger than the server reads"),
    // 5xx: ours, or a dependency's; retrying later is safe.
    code("internal", 500, "a fault of ours; it has been logged"),
    code("unavailable", 503, "the database or a service is unavailable: retry with the same key"),
    code("upstream_unavailable", 503, "a service behind the gateway did not answer"),
];

/// True when `code` is answered with `status` somewhere in the platform.
pub fn is_listed(code: &str, status: u16) -> bool {
    ALL.iter().any(|c| c.code == code && c.status == status)
}

/// The table as the README shows it.
pub fn markdown_table() -> String {
    let mut table = String::from("| status | code | meaning |\n|---|---|---|\n");
    for c in ALL {
        table.push_str(&format!("| {} | `{}` | {} |\n", c.status, c.code, c.meaning));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_and_status_is_listed_once_in_order() {
        for pair in ALL.windows(2) {
            assert!((pair[0].status, pair[0].code) < (pair[1].status, pair[1].code), "{pair:?}");
        }
        for c in ALL {
            assert!(c.code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", c.code);
            assert!((400..600).contains(&c.status), "{}", c.code);
        }
    }

    /// The README's error table is this one (`UPDATE_README=1` rewrites it).
    #[test]
    fn the_readme_lists_every_code() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).unwrap_or_default();
        let (begin, end) = ("<!-- error-codes:begin -->\n", "<!-- error-codes:end -->");
        let start = readme.find(begin).map(|i| i + begin.len());
        let stop = readme.find(end);
        let (Some(start), Some(stop)) = (start, stop) else {
            panic!("README.md has no error-code table between {begin:?} and {end:?}");
        };
        let table = markdown_table();
        if std::env::var("UPDATE_README").is_ok() {
            let updated = format!("{}{table}{}", &readme[..start], &readme[stop..]);
            std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{e}"));
            return;
        }
        assert_eq!(
            &readme[start..stop],
            table,
            "README.md's error table differs: UPDATE_README=1 cargo test -p platform"
        );
    }
}
