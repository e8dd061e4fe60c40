//! Every problem code the platform answers with, its HTTP status, and what it means: the one
//! list a front end (and `docs/errors.md`'s table, checked against it by a test) reads.
//!
//! A code is stable: front ends branch on it, never on the wording of `detail`. Tests check every
//! problem they meet against this table (`crate::testing::send`), so a new code cannot ship
//! without a line here. A code listed twice is answered with either status: `account_not_found`
//! is 404 when the account is named in the path and 422 when a transfer names it, and so on.

/// A problem code's name: one of the constants below, so an error made with a code that is not
/// in the catalogue does not compile. (A code relayed from another service or from `domain`
/// arrives as text: [`crate::AppError::relayed`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeName(&'static str);

impl CodeName {
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

/// One problem code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub status: u16,
    pub meaning: &'static str,
}

const fn code(name: CodeName, status: u16, meaning: &'static str) -> Code {
    Code { code: name.0, status, meaning }
}

// The codes of the player's identity, location, links and the staff's controls (issue 49).
mod identity;
pub use identity::*;

pub const ACCOUNT_CLOSED: CodeName = CodeName("account_closed");
pub const ACCOUNT_LIMIT_REACHED: CodeName = CodeName("account_limit_reached");
pub const ACCOUNT_LOCKED: CodeName = CodeName("account_locked");
pub const ACCOUNT_NOT_FOUND: CodeName = CodeName("account_not_found");
pub const ACTION_NOT_ALLOWED: CodeName = CodeName("action_not_allowed");
pub const ALREADY_PAID: CodeName = CodeName("already_paid");
pub const AMOUNT_EXCEEDS_HOLD: CodeName = CodeName("amount_exceeds_hold");
pub const AMOUNT_NOT_IN_UNITS: CodeName = CodeName("amount_not_in_units");
pub const AMOUNT_TOO_LARGE: CodeName = CodeName("amount_too_large");
pub const APPEND_ONLY: CodeName = CodeName("append_only");
pub const BET_NOT_ALLOWED_NOW: CodeName = CodeName("bet_not_allowed_now");
pub const BLAZING_SEVENS_NEED_SIX_DECKS: CodeName = CodeName("blazing_sevens_need_six_decks");
pub const BODY_TIMEOUT: CodeName = CodeName("body_timeout");
pub const BODY_TOO_LARGE: CodeName = CodeName("body_too_large");
pub const CLAIM_AT_OFFICE: CodeName = CodeName("claim_at_office");
pub const CLAIM_EXPIRED: CodeName = CodeName("claim_expired");
pub const CLAIM_RELEASED: CodeName = CodeName("claim_released");
pub const CLAIMANT_TIN_REQUIRED: CodeName = CodeName("claimant_tin_required");
pub const CONCURRENT_UPDATE: CodeName = CodeName("concurrent_update");
pub const CONTRACT_BET: CodeName = CodeName("contract_bet");
pub const CURRENCY_MISMATCH: CodeName = CodeName("currency_mismatch");
pub const CUT_OUT_OF_RANGE: CodeName = CodeName("cut_out_of_range");
pub const DECISION_PENDING: CodeName = CodeName("decision_pending");
pub const DEPOSIT_LIMIT_EXCEEDED: CodeName = CodeName("deposit_limit_exceeded");
pub const DONT_BET_LOCKED: CodeName = CodeName("dont_bet_locked");
pub const DRAW_NOT_FOUND: CodeName = CodeName("draw_not_found");
pub const DRAWING_NOT_CERTIFIED: CodeName = CodeName("drawing_not_certified");
pub const DRAWING_NOT_CLOSED: CodeName = CodeName("drawing_not_closed");
pub const DRAWING_NOT_FOUND: CodeName = CodeName("drawing_not_found");
pub const DRAWING_NOT_SETTLED: CodeName = CodeName("drawing_not_settled");
pub const DRAWING_SETTLED: CodeName = CodeName("drawing_settled");
pub const DRAWS_OUT_OF_RANGE: CodeName = CodeName("draws_out_of_range");
pub const DUPLICATE_SPOT: CodeName = CodeName("duplicate_spot");
pub const DUPLICATE_TRANSFER_ID: CodeName = CodeName("duplicate_transfer_id");
pub const DUPLICATE_WHITE: CodeName = CodeName("duplicate_white");
pub const EVENT_MISMATCH: CodeName = CodeName("event_mismatch");
pub const EXCLUDED_BY_LIST: CodeName = CodeName("excluded_by_list");
pub const EXCLUSION_ENTRY_NOT_FOUND: CodeName = CodeName("exclusion_entry_not_found");
pub const EXCLUSION_IN_FORCE: CodeName = CodeName("exclusion_in_force");
pub const FORBIDDEN: CodeName = CodeName("forbidden");
pub const GAME_NOT_FOUND: CodeName = CodeName("game_not_found");
pub const HEADERS_TOO_LARGE: CodeName = CodeName("headers_too_large");
pub const HOLD_ALREADY_ENDED: CodeName = CodeName("hold_already_ended");
pub const HOLD_EXPIRED: CodeName = CodeName("hold_expired");
pub const HOLD_NOT_EXPIRED: CodeName = CodeName("hold_not_expired");
pub const HOLD_NOT_FOUND: CodeName = CodeName("hold_not_found");
pub const IDEMPOTENCY_CONFLICT: CodeName = CodeName("idempotency_conflict");
pub const IDEMPOTENCY_KEY_MISMATCH: CodeName = CodeName("idempotency_key_mismatch");
pub const INSUFFICIENT_FUNDS: CodeName = CodeName("insufficient_funds");
pub const INTERNAL: CodeName = CodeName("internal");
pub const INVALID_ADDRESS: CodeName = CodeName("invalid_address");
pub const INVALID_AMOUNT: CodeName = CodeName("invalid_amount");
pub const INVALID_BARCODE: CodeName = CodeName("invalid_barcode");
pub const INVALID_BATCH: CodeName = CodeName("invalid_batch");
pub const INVALID_BET: CodeName = CodeName("invalid_bet");
pub const INVALID_BOARD_COUNT: CodeName = CodeName("invalid_board_count");
pub const INVALID_BODY: CodeName = CodeName("invalid_body");
pub const INVALID_CLAIMANT: CodeName = CodeName("invalid_claimant");
pub const INVALID_CREDENTIALS: CodeName = CodeName("invalid_credentials");
pub const INVALID_CURRENCY: CodeName = CodeName("invalid_currency");
pub const INVALID_CURSOR: CodeName = CodeName("invalid_cursor");
pub const INVALID_DATE_OF_BIRTH: CodeName = CodeName("invalid_date_of_birth");
pub const INVALID_DECKS: CodeName = CodeName("invalid_decks");
pub const INVALID_EMAIL: CodeName = CodeName("invalid_email");
pub const INVALID_EMAIL_CHARACTERS: CodeName = CodeName("invalid_email_characters");
pub const INVALID_EXCLUSION_LIST: CodeName = CodeName("invalid_exclusion_list");
pub const INVALID_GRAND_PRIZE: CodeName = CodeName("invalid_grand_prize");
pub const INVALID_IDEMPOTENCY_KEY: CodeName = CodeName("invalid_idempotency_key");
pub const INVALID_INTERVAL: CodeName = CodeName("invalid_interval");
pub const INVALID_LABEL: CodeName = CodeName("invalid_label");
pub const INVALID_LIMIT: CodeName = CodeName("invalid_limit");
pub const INVALID_LIMITS: CodeName = CodeName("invalid_limits");
pub const INVALID_MAX_SPOTS: CodeName = CodeName("invalid_max_spots");
pub const INVALID_METADATA: CodeName = CodeName("invalid_metadata");
pub const INVALID_MONEY_LIMIT: CodeName = CodeName("invalid_money_limit");
pub const INVALID_NAME: CodeName = CodeName("invalid_name");
pub const INVALID_ODDS_MULTIPLE: CodeName = CodeName("invalid_odds_multiple");
pub const INVALID_OWNER: CodeName = CodeName("invalid_owner");
pub const INVALID_PATH: CodeName = CodeName("invalid_path");
pub const INVALID_PAYMENT_METHOD: CodeName = CodeName("invalid_payment_method");
pub const INVALID_QUERY: CodeName = CodeName("invalid_query");
pub const INVALID_REFRESH_TOKEN: CodeName = CodeName("invalid_refresh_token");
pub const INVALID_RETAILER: CodeName = CodeName("invalid_retailer");
pub const INVALID_ROLE: CodeName = CodeName("invalid_role");
pub const INVALID_SERIAL: CodeName = CodeName("invalid_serial");
pub const INVALID_SIGNATURE: CodeName = CodeName("invalid_signature");
pub const INVALID_TIME_LIMIT: CodeName = CodeName("invalid_time_limit");
pub const INVALID_TIME_ZONE: CodeName = CodeName("invalid_time_zone");
pub const INVALID_TIMEOUT: CodeName = CodeName("invalid_timeout");
pub const INVALID_TOKEN: CodeName = CodeName("invalid_token");
pub const INVALID_TRANSFER: CodeName = CodeName("invalid_transfer");
pub const INVALID_USERNAME: CodeName = CodeName("invalid_username");
pub const INVALID_VIRN: CodeName = CodeName("invalid_virn");
pub const INVALID_WINDOW: CodeName = CodeName("invalid_window");
pub const KEY_REVOKED: CodeName = CodeName("key_revoked");
pub const LIMIT_REACHED: CodeName = CodeName("limit_reached");
pub const LINK_EXPIRED: CodeName = CodeName("link_expired");
pub const LINK_FOR_ANOTHER_ACCOUNT: CodeName = CodeName("link_for_another_account");
pub const LINK_UNKNOWN: CodeName = CodeName("link_unknown");
pub const LINK_USED: CodeName = CodeName("link_used");
pub const MALFORMED_JSON: CodeName = CodeName("malformed_json");
pub const MALFORMED_REQUEST: CodeName = CodeName("malformed_request");
pub const METHOD_NOT_ALLOWED: CodeName = CodeName("method_not_allowed");
pub const MISSING_FIELD: CodeName = CodeName("missing_field");
pub const MISSING_IDEMPOTENCY_KEY: CodeName = CodeName("missing_idempotency_key");
pub const MULTIPLIER_NOT_IN_DRUM: CodeName = CodeName("multiplier_not_in_drum");
pub const NOT_CLOSED: CodeName = CodeName("not_closed");
pub const NOT_EXCLUDED: CodeName = CodeName("not_excluded");
pub const NO_SESSION: CodeName = CodeName("no_session");
pub const NO_SPOTS: CodeName = CodeName("no_spots");
pub const NO_SUCH_BET: CodeName = CodeName("no_such_bet");
pub const NO_SUCH_SPOT: CodeName = CodeName("no_such_spot");
pub const NOT_A_DRAW_DAY: CodeName = CodeName("not_a_draw_day");
pub const NOT_A_WINNER: CodeName = CodeName("not_a_winner");
pub const NUL_IN_TEXT: CodeName = CodeName("nul_in_text");
pub const ODDS_OVER_MULTIPLE: CodeName = CodeName("odds_over_multiple");
pub const ON_BREAK: CodeName = CodeName("on_break");
pub const ONLINE_SALES_OFF: CodeName = CodeName("online_sales_off");
pub const OUT_OF_TURN: CodeName = CodeName("out_of_turn");
pub const PACK_NOT_ACTIVE: CodeName = CodeName("pack_not_active");
pub const PACK_NOT_AT_RETAILER: CodeName = CodeName("pack_not_at_retailer");
pub const PACK_NOT_FOUND: CodeName = CodeName("pack_not_found");
pub const PACK_NOT_PRINTED: CodeName = CodeName("pack_not_printed");
pub const PACK_NOT_RETURNABLE: CodeName = CodeName("pack_not_returnable");
pub const PACK_NOT_SHIPPED: CodeName = CodeName("pack_not_shipped");
pub const PACK_STOLEN: CodeName = CodeName("pack_stolen");
pub const PAID_TO_WALLET: CodeName = CodeName("paid_to_wallet");
pub const PAYMENT_NOT_FOUND: CodeName = CodeName("payment_not_found");
pub const PLAY_OVER_MULTIPLE: CodeName = CodeName("play_over_multiple");
pub const PLAY_SUSPENDED: CodeName = CodeName("play_suspended");
pub const PLAY_UNDER_ANTE: CodeName = CodeName("play_under_ante");
pub const PLAYER_NOT_FOUND: CodeName = CodeName("player_not_found");
pub const POWERBALL_OUT_OF_RANGE: CodeName = CodeName("powerball_out_of_range");
pub const PRINT_JOB_FINISHED: CodeName = CodeName("print_job_finished");
pub const PRINT_JOB_NOT_FOUND: CodeName = CodeName("print_job_not_found");
pub const PRINT_RUN_CANCELLED: CodeName = CodeName("print_run_cancelled");
pub const PRINT_RUN_NOT_FOUND: CodeName = CodeName("print_run_not_found");
pub const PRINTER_FILE_GONE: CodeName = CodeName("printer_file_gone");
pub const RATE_LIMITED: CodeName = CodeName("rate_limited");
pub const REALITY_CHECK_DUE: CodeName = CodeName("reality_check_due");
pub const RECEIPT_NOT_FOUND: CodeName = CodeName("receipt_not_found");
pub const REFRESH_TOKEN_REUSED: CodeName = CodeName("refresh_token_reused");
pub const RESULTS_ARE_DRAWN: CodeName = CodeName("results_are_drawn");
pub const RESULTS_MISMATCH: CodeName = CodeName("results_mismatch");
pub const RESULTS_STAND: CodeName = CodeName("results_stand");
pub const RETAILER_NOT_FOUND: CodeName = CodeName("retailer_not_found");
pub const ROLL_IN_PROGRESS: CodeName = CodeName("roll_in_progress");
pub const ROUND_IN_PLAY: CodeName = CodeName("round_in_play");
pub const ROUND_NOT_FOUND: CodeName = CodeName("round_not_found");
pub const ROUND_NOT_IN_PLAY: CodeName = CodeName("round_not_in_play");
pub const ROUTE_NOT_FOUND: CodeName = CodeName("route_not_found");
pub const ROYAL_MATCH_NEEDS_SIX_DECKS: CodeName = CodeName("royal_match_needs_six_decks");
pub const SALES_CLOSED: CodeName = CodeName("sales_closed");
pub const SAME_ACCOUNT: CodeName = CodeName("same_account");
pub const SECOND_OPERATOR_REQUIRED: CodeName = CodeName("second_operator_required");
pub const SELF_EXCLUDED: CodeName = CodeName("self_excluded");
pub const SESSION_ENDED: CodeName = CodeName("session_ended");
pub const SESSION_EXPIRED: CodeName = CodeName("session_expired");
pub const SESSION_IDLE: CodeName = CodeName("session_idle");
pub const SESSION_NOT_FOUND: CodeName = CodeName("session_not_found");
pub const SHOOTER_NEEDS_LINE_BET: CodeName = CodeName("shooter_needs_line_bet");
pub const SIDE_WAGER_OUT_OF_RANGE: CodeName = CodeName("side_wager_out_of_range");
pub const SPOT_OUT_OF_RANGE: CodeName = CodeName("spot_out_of_range");
pub const SPOTS_NOT_ALLOWED: CodeName = CodeName("spots_not_allowed");
pub const STAKE_OUT_OF_RANGE: CodeName = CodeName("stake_out_of_range");
pub const STAKE_REFUSED: CodeName = CodeName("stake_refused");
pub const STALE_STEP: CodeName = CodeName("stale_step");
pub const TABLE_NOT_FOUND: CodeName = CodeName("table_not_found");
pub const TERMINAL_LOCKED: CodeName = CodeName("terminal_locked");
pub const TERMINAL_NOT_FOUND: CodeName = CodeName("terminal_not_found");
pub const TICKET_NOT_FOUND: CodeName = CodeName("ticket_not_found");
pub const TOKEN_EXPIRED: CodeName = CodeName("token_expired");
pub const TOO_MANY_SPOTS: CodeName = CodeName("too_many_spots");
pub const TOO_MANY_STREAMS: CodeName = CodeName("too_many_streams");
pub const TRANSFER_NOT_FOUND: CodeName = CodeName("transfer_not_found");
pub const UNAUTHENTICATED: CodeName = CodeName("unauthenticated");
pub const UNAVAILABLE: CodeName = CodeName("unavailable");
pub const UNDER_AGE: CodeName = CodeName("under_age");
pub const UNKNOWN_EVENT: CodeName = CodeName("unknown_event");
pub const UNKNOWN_GAME: CodeName = CodeName("unknown_game");
pub const UNREADABLE_BODY: CodeName = CodeName("unreadable_body");
pub const UNSUPPORTED_CURRENCY: CodeName = CodeName("unsupported_currency");
pub const UNSUPPORTED_MEDIA_TYPE: CodeName = CodeName("unsupported_media_type");
pub const UPSTREAM_UNAVAILABLE: CodeName = CodeName("upstream_unavailable");
pub const URI_TOO_LONG: CodeName = CodeName("uri_too_long");
pub const USERNAME_TAKEN: CodeName = CodeName("username_taken");
pub const VENDOR_FILE_NOT_FOUND: CodeName = CodeName("vendor_file_not_found");
pub const VENDOR_FILE_REFUSED: CodeName = CodeName("vendor_file_refused");
pub const WAGER_OUT_OF_RANGE: CodeName = CodeName("wager_out_of_range");
pub const WALLET_NOT_FOUND: CodeName = CodeName("wallet_not_found");
pub const WEAK_PASSWORD: CodeName = CodeName("weak_password");
pub const WHITE_COUNT: CodeName = CodeName("white_count");
pub const WHITE_OUT_OF_RANGE: CodeName = CodeName("white_out_of_range");
pub const WITHDRAWAL_ABANDONED: CodeName = CodeName("withdrawal_abandoned");
pub const WRONG_VIRN: CodeName = CodeName("wrong_virn");

/// Every code, by status then name.
pub const ALL: &[Code] = &[
    // 400: the request itself is malformed.
    code(IDEMPOTENCY_KEY_MISMATCH, 400, "the body's id and the Idempotency-Key name different requests"),
    code(INVALID_CURSOR, 400, "a page cursor that this list did not give"),
    code(INVALID_IDEMPOTENCY_KEY, 400, "an Idempotency-Key that is not 1 to 255 visible characters"),
    code(INVALID_LIMIT, 400, "a page size outside its range"),
    code(INVALID_PATH, 400, "a path parameter of the wrong form"),
    code(INVALID_QUERY, 400, "a query parameter of the wrong form, or an unknown one"),
    code(MALFORMED_JSON, 400, "the body is not JSON"),
    code(
        MALFORMED_REQUEST,
        400,
        "the request line or a header breaks HTTP's syntax (a control character in a header value)",
    ),
    code(MISSING_IDEMPOTENCY_KEY, 400, "a request that moves money or deals needs an Idempotency-Key"),
    code(NO_SESSION, 400, "a logout without a session"),
    code(UNREADABLE_BODY, 400, "the body could not be read"),
    // 401: who is calling is not established.
    code(CODE_ALREADY_USED, 401, "a second factor's code taken before (each time step once)"),
    code(INVALID_CREDENTIALS, 401, "wrong username, email, password or API key"),
    code(INVALID_REFRESH_TOKEN, 401, "a refresh token the platform never issued"),
    code(INVALID_SIGNATURE, 401, "a webhook whose signature or timestamp does not verify"),
    code(INVALID_TOKEN, 401, "an access token that does not verify"),
    code(KEY_REVOKED, 401, "a terminal API key that has been revoked"),
    code(
        REFRESH_TOKEN_REUSED,
        401,
        "a refresh token used a second time: its session is ended (theft detection)",
    ),
    code(SECOND_FACTOR_INVALID, 401, "a second factor's code or recovery code that is not the one expected"),
    code(SECOND_FACTOR_REQUIRED, 401, "a staff login without its second factor's code"),
    code(SESSION_ENDED, 401, "the session was ended (logout, self-exclusion, a new password)"),
    code(SESSION_EXPIRED, 401, "the session reached its end (LOTTO_SESSION_MAX_S after its login)"),
    code(SESSION_IDLE, 401, "the session ended after the idle timeout without a request"),
    code(TOKEN_EXPIRED, 401, "the access token has expired"),
    code(UNAUTHENTICATED, 401, "no access token"),
    // 403: established, and not allowed.
    code(
        ACCOUNT_CLOSED,
        403,
        "the player closed their account: no play or deposits until it reopens (withdrawals go on)",
    ),
    code(ACCOUNT_LOCKED, 403, "too many failed logins: locked for a while"),
    code(
        DEPOSITS_BLOCKED,
        403,
        "five deposits failed within 10 minutes: deposits stop until an operator clears it",
    ),
    code(EMAIL_NOT_VERIFIED, 403, "the player's address is not yet confirmed by its mailed link"),
    code(EXCLUDED_BY_LIST, 403, "the person is on a state's or the operator's exclusion list"),
    code(FORBIDDEN, 403, "the caller's role may not do this"),
    code(
        IDENTITY_NOT_VERIFIED,
        403,
        "no deposit and no stake before the player's identity is verified (PUT /v1/me/identity)",
    ),
    code(
        LINK_FOR_ANOTHER_ACCOUNT,
        403,
        "a one-time link opened by another player than the one it was sent to",
    ),
    code(
        LOCATION_EXPIRED,
        403,
        "the login's last location check is older than the limit (20 minutes): check again",
    ),
    code(
        LOCATION_OUTSIDE,
        403,
        "the login's last location check did not place the device in the jurisdiction",
    ),
    code(LOCATION_REQUIRED, 403, "no online stake without a location check of this login from this address"),
    code(ON_BREAK, 403, "the player is taking a break (a time-out) from play"),
    code(ONLINE_SALES_OFF, 403, "this lottery sells Powerball at terminals only"),
    code(SECOND_FACTOR_ENROLMENT_REQUIRED, 403, "a staff member who has not enrolled a second factor yet"),
    code(SECOND_FACTOR_LOCKED, 403, "too many wrong second-factor codes: locked for a while"),
    code(SELF_EXCLUDED, 403, "the player has excluded themself from play"),
    code(TERMINAL_LOCKED, 403, "too many wrong VIRNs from this terminal or its retailer"),
    // 404: the thing named does not exist (or is not the caller's).
    code(ACCOUNT_NOT_FOUND, 404, "no such ledger account"),
    code(ADJUSTMENT_NOT_FOUND, 404, "no such balance adjustment"),
    code(DRAW_NOT_FOUND, 404, "no such Keno draw"),
    code(DRAWING_NOT_FOUND, 404, "no such Powerball drawing on record"),
    code(EXCLUSION_ENTRY_NOT_FOUND, 404, "no such entry on the exclusion lists (or taken off already)"),
    code(GAME_NOT_FOUND, 404, "no such instant game"),
    code(IDENTITY_NOT_FOUND, 404, "the player has not submitted a player file"),
    code(LINK_UNKNOWN, 404, "a one-time link (address or password) the lottery never sent"),
    code(LOCATION_NOT_CHECKED, 404, "no location check in this login yet"),
    code(PACK_NOT_FOUND, 404, "no such pack (or not this retailer's)"),
    code(PAYMENT_NOT_FOUND, 404, "no such deposit or withdrawal"),
    code(PLAYER_NOT_FOUND, 404, "no such player"),
    code(PRINT_JOB_NOT_FOUND, 404, "no such print job"),
    code(PRINT_RUN_NOT_FOUND, 404, "no such print run with a printer's file"),
    code(RECEIPT_NOT_FOUND, 404, "no such counter receipt (or not this retailer's)"),
    code(RETAILER_NOT_FOUND, 404, "no such retailer"),
    code(ROUND_NOT_FOUND, 404, "no such blackjack round (or not the caller's)"),
    code(ROUTE_NOT_FOUND, 404, "no such route"),
    code(SESSION_NOT_FOUND, 404, "no such craps session (or not the caller's)"),
    code(TABLE_NOT_FOUND, 404, "no such blackjack table (or not the caller's)"),
    code(TERMINAL_NOT_FOUND, 404, "no such terminal"),
    code(
        TICKET_NOT_FOUND,
        404,
        "no such ticket (Keno, Powerball, or its serial), or no such ticket printed (instant)",
    ),
    code(TRANSFER_NOT_FOUND, 404, "no such ledger transfer"),
    code(UNKNOWN_GAME, 404, "a scanned barcode of a game this service does not run"),
    // 405, 409, 410, 413, 414, 415.
    code(METHOD_NOT_ALLOWED, 405, "the route does not take this method"),
    code(BODY_TIMEOUT, 408, "the request's body did not all arrive before the request's deadline"),
    code(ADJUSTMENT_DECIDED, 409, "the adjustment was approved or rejected already"),
    code(ALREADY_PAID, 409, "the ticket's prize has been paid"),
    code(APPEND_ONLY, 409, "the journal is append-only: a transfer is never changed"),
    code(CLAIM_AT_OFFICE, 409, "the prize is above the retailer limit: claimed at the lottery office"),
    code(CLAIM_EXPIRED, 409, "the prize's claim period has ended: it expired"),
    code(
        CLAIM_RELEASED,
        409,
        "the ledger refused this claim's payment and the ticket was released: claim it again",
    ),
    code(CONCURRENT_UPDATE, 409, "too many concurrent attempts on the same accounts: retry"),
    code(DECISION_PENDING, 409, "a blackjack decision on this step waits for its wager: send it again"),
    code(DRAWING_NOT_CERTIFIED, 409, "a Powerball drawing's prizes are payable once it is certified"),
    code(DRAWING_NOT_CLOSED, 409, "a Powerball drawing's results follow its close and frozen wager set"),
    code(DRAWING_NOT_SETTLED, 409, "only a settled Powerball drawing is certified"),
    code(DRAWING_SETTLED, 409, "a settled Powerball drawing's grand prize stands"),
    code(ENROLMENT_ALREADY_SHOWN, 409, "a second factor's secret shown already, not shown again"),
    code(EXCLUSION_IN_FORCE, 409, "a self-exclusion runs until its end (it does not end early) or for good"),
    code(HOLD_ALREADY_ENDED, 409, "the hold was posted or voided already"),
    code(IDEMPOTENCY_CONFLICT, 409, "this key was used for a different request"),
    code(
        IDENTITY_IN_PROGRESS,
        409,
        "the player's identity is being checked, or was decided: not submitted again",
    ),
    code(LIMIT_MAY_ONLY_LOWER, 409, "an operator lowers a limit or imposes one, never raises or lifts it"),
    code(NO_ENROLMENT, 409, "no second-factor enrolment waits for its code"),
    code(NOT_BLOCKED, 409, "the player's deposits are not stopped: nothing to clear"),
    code(NOT_CLOSED, 409, "the account is not closed: nothing to reopen"),
    code(NOT_EXCLUDED, 409, "the player has no self-exclusion to come back from"),
    code(NOT_IN_REVIEW, 409, "an operator decides only a player file the provider sent to review"),
    code(OUT_OF_TURN, 409, "a blackjack decision for a hand that is not in turn"),
    code(PACK_NOT_ACTIVE, 409, "the pack has not been activated (or, to settle, is not active)"),
    code(PACK_NOT_AT_RETAILER, 409, "the pack is not shipped, received or active (a theft report)"),
    code(PACK_NOT_PRINTED, 409, "the pack is not printed (shipping)"),
    code(PACK_NOT_RETURNABLE, 409, "the pack is not shipped or received (a return)"),
    code(
        PACK_NOT_SHIPPED,
        409,
        "the pack is not shipped (receipt), or neither shipped nor received (activation)",
    ),
    code(PACK_STOLEN, 409, "the ticket's pack was reported stolen: not paid at any counter or office"),
    code(PAID_TO_WALLET, 409, "an online ticket's prizes go to its wallet (from $600, the office)"),
    code(PRINT_JOB_FINISHED, 409, "the print job has succeeded or failed: nothing to cancel"),
    code(
        PRINT_RUN_CANCELLED,
        409,
        "a print run stopped by its job's cancellation (a print job's end, nothing of the run kept)",
    ),
    code(REALITY_CHECK_DUE, 409, "the session's reality check waits for the player: go on or stop first"),
    code(RESULTS_ARE_DRAWN, 409, "the drawing's results are drawn by the service, not entered"),
    code(RESULTS_MISMATCH, 409, "two operators' entries of the results disagree: both discarded, logged"),
    code(RESULTS_STAND, 409, "the drawing's results already stand"),
    code(ROLL_IN_PROGRESS, 409, "another request on this craps session is being settled: retry"),
    code(ROUND_IN_PLAY, 409, "the table has a round in play"),
    code(ROUND_NOT_IN_PLAY, 409, "the round is not waiting for a decision"),
    code(SALES_CLOSED, 409, "the drawing's sales have closed"),
    code(SECOND_FACTOR_ENROLLED, 409, "a second factor is enrolled already"),
    code(SECOND_OPERATOR_REQUIRED, 409, "dual control: a second operator enters the results or approves"),
    code(STALE_STEP, 409, "the decision names a step the round has passed"),
    code(USERNAME_TAKEN, 409, "a staff member with this username exists"),
    code(
        WITHDRAWAL_ABANDONED,
        409,
        "a withdrawal with this key could not be recorded and its hold was released: use a new key",
    ),
    code(LINK_EXPIRED, 410, "a one-time link past its 30 minutes"),
    code(LINK_USED, 410, "a one-time link used already (or made worthless by a newer one's use)"),
    code(PRINTER_FILE_GONE, 410, "the run's printer's file was downloaded once and is not kept"),
    code(BODY_TOO_LARGE, 413, "the body is larger than the limit"),
    code(URI_TOO_LONG, 414, "the path and query are longer than 8 KiB"),
    code(UNSUPPORTED_MEDIA_TYPE, 415, "the body is not application/json"),
    // 422: well formed, and the rules say no; 429: too many.
    code(ACCOUNT_LIMIT_REACHED, 422, "an account's balance would pass what one account may hold"),
    code(ACCOUNT_NOT_FOUND, 422, "a transfer names an account that does not exist"),
    code(ACTION_NOT_ALLOWED, 422, "the blackjack rules do not allow this decision now"),
    code(AMOUNT_EXCEEDS_HOLD, 422, "a hold posted for more than it holds"),
    code(
        AMOUNT_NOT_IN_UNITS,
        422,
        "a craps bet not in the units its odds pay whole cents on (a place 6 in sixes of cents)",
    ),
    code(AMOUNT_TOO_LARGE, 422, "more than one transfer may move"),
    code(
        BET_NOT_ALLOWED_NOW,
        422,
        "a craps bet the rules do not allow at this point of the game (111-501-44(c), -45)",
    ),
    code(BLAZING_SEVENS_NEED_SIX_DECKS, 422, "the Blazing 7's is offered at six-deck tables only"),
    code(CLAIMANT_TIN_REQUIRED, 422, "a prize that needs a W-2G needs the claimant's TIN"),
    code(CODE_AND_RECOVERY_CODE, 422, "a staff login with both a code and a recovery code"),
    code(
        CONTRACT_BET,
        422,
        "a pass, come or put bet whose point is set cannot be removed or reduced (111-501-45(d))",
    ),
    code(CURRENCY_MISMATCH, 422, "the accounts of a transfer hold different currencies"),
    code(CUT_OUT_OF_RANGE, 422, "the cut card is too near either end of the shoe"),
    code(DEPOSIT_LIMIT_EXCEEDED, 422, "the deposit passes the player's own limit"),
    code(
        DONT_BET_LOCKED,
        422,
        "a don't bet removed or reduced cannot be replaced until the next come-out (111-501-45(e))",
    ),
    code(DRAWS_OUT_OF_RANGE, 422, "a Keno or Powerball ticket enters 1 to the most consecutive draws"),
    code(DUPLICATE_SPOT, 422, "a Keno number marked twice"),
    code(DUPLICATE_TRANSFER_ID, 422, "two transfers of one batch with the same id"),
    code(DUPLICATE_WHITE, 422, "a Powerball white number marked twice"),
    code(EVENT_MISMATCH, 422, "a payment event that does not match its payment"),
    code(HOLD_EXPIRED, 422, "the hold expired"),
    code(HOLD_NOT_EXPIRED, 422, "a hold expired by the sweeper before its time"),
    code(HOLD_NOT_FOUND, 422, "no such hold"),
    code(INSUFFICIENT_FUNDS, 422, "the balance does not cover it"),
    code(INVALID_ADDRESS, 422, "a retailer's address of the wrong length"),
    code(INVALID_AMOUNT, 422, "an amount that is not a positive number of cents"),
    code(INVALID_BARCODE, 422, "a barcode not well formed, or its check digit wrong"),
    code(INVALID_BATCH, 422, "a batch that is empty or too large"),
    code(INVALID_BET, 422, "a craps bet on a number it cannot be on"),
    code(INVALID_BOARD_COUNT, 422, "a Powerball slip of no boards, or more than a slip holds"),
    code(INVALID_BODY, 422, "a body field of the wrong type, or an unknown one"),
    code(INVALID_CLAIMANT, 422, "the claimant's name or TIN is not well formed"),
    code(INVALID_CURRENCY, 422, "not an ISO 4217 currency code"),
    code(INVALID_DATE_OF_BIRTH, 422, "a date of birth that cannot be"),
    code(INVALID_DECKS, 422, "a blackjack table deals from 6 decks or 2"),
    code(INVALID_EMAIL, 422, "not an email address"),
    code(
        INVALID_EMAIL_CHARACTERS,
        422,
        "an email holding invisible or control characters, full-width letters, or look-alike letters of two scripts in one part",
    ),
    code(
        INVALID_EXCLUSION_LIST,
        422,
        "an exclusion-list entry or file of the wrong form (its line and field are named)",
    ),
    code(INVALID_GRAND_PRIZE, 422, "a grand prize that is not positive, or a cash value above it"),
    code(INVALID_IDENTITY, 422, "a player file field missing, too long, or not of its form"),
    code(INVALID_INTERVAL, 422, "a reality-check interval other than 15, 30 or 60 minutes"),
    code(INVALID_LABEL, 422, "a terminal label of the wrong length"),
    code(INVALID_LIMITS, 422, "a table's limits outside the house's, or not whole dollars"),
    code(INVALID_LOCATION_PACKET, 422, "a location packet not of its form"),
    code(INVALID_MAX_SPOTS, 422, "more spots than the table's shoe always serves"),
    code(INVALID_METADATA, 422, "transfer metadata that is not a small JSON object"),
    code(
        INVALID_MONEY_LIMIT,
        422,
        "a money limit of the wrong form: a period where it has none, an amount or delay out of range",
    ),
    code(INVALID_NAME, 422, "a retailer name of the wrong length"),
    code(INVALID_ODDS_MULTIPLE, 422, "a craps table's odds multiple outside 1 to the house's"),
    code(INVALID_OWNER, 422, "an account owner of the wrong form"),
    code(INVALID_PAYMENT_METHOD, 422, "a payment method that is not 1 to 200 characters"),
    code(INVALID_REASON, 422, "a staff override needs its reason: 1 to 2,000 characters, not only spaces"),
    code(INVALID_RETAILER, 422, "a retailer id that is not 1 to 64 visible characters"),
    code(INVALID_ROLE, 422, "staff of a role that does not exist here"),
    code(INVALID_SERIAL, 422, "a ticket serial not 19 digits, or its check digit wrong"),
    code(INVALID_TIME_LIMIT, 422, "a time limit outside 1 minute to its window's length"),
    code(INVALID_TIME_ZONE, 422, "a time zone that is not an IANA name (America/Chicago)"),
    code(INVALID_TIMEOUT, 422, "a hold's timeout out of range"),
    code(INVALID_TRANSFER, 422, "a transfer of the wrong form"),
    code(INVALID_USERNAME, 422, "a username of the wrong form"),
    code(INVALID_VIRN, 422, "a VIRN that is not twelve digits (a misread: not counted toward the lockout)"),
    code(INVALID_WINDOW, 422, "a report window whose start is not before its end"),
    code(
        LIMIT_REACHED,
        422,
        "a stake that would pass one of the player's limits (loss, wager, single stake, time played)",
    ),
    code(MISSING_FIELD, 422, "a required body field is absent"),
    code(MULTIPLIER_NOT_IN_DRUM, 422, "a Power Play multiplier that is not a ball of the drawing's drum"),
    code(NO_SPOTS, 422, "a blackjack round without a spot"),
    code(NO_SUCH_BET, 422, "a craps change names a bet not on the layout"),
    code(NO_SUCH_SPOT, 422, "a blackjack decision for a spot not played"),
    code(NOT_A_DRAW_DAY, 422, "a day without a drawing"),
    code(NOT_A_WINNER, 422, "the ticket wins nothing"),
    code(NUL_IN_TEXT, 422, "text with a NUL character"),
    code(
        ODDS_OVER_MULTIPLE,
        422,
        "craps odds over the table's multiple of the bet behind them (111-501-45(s)-(u))",
    ),
    code(
        PLAY_OVER_MULTIPLE,
        422,
        "an I Luv Suits play wager above what the hand allows (1x, 2x with five of a suit, 3x with six or seven)",
    ),
    code(
        PLAY_SUSPENDED,
        422,
        "a stake from a wallet whose player is on a break, excluded or has closed the account",
    ),
    code(PLAY_UNDER_ANTE, 422, "an I Luv Suits play wager below the ante"),
    code(PO_BOX_ADDRESS, 422, "a residential address is needed: not a PO box"),
    code(POWERBALL_OUT_OF_RANGE, 422, "a Powerball outside 1 to 26"),
    code(RETAILER_NOT_FOUND, 422, "a pack assigned to a retailer that does not exist"),
    code(ROYAL_MATCH_NEEDS_SIX_DECKS, 422, "Royal Match is offered at six-deck tables only"),
    code(SAME_ACCOUNT, 422, "a transfer from an account to itself"),
    code(
        SHOOTER_NEEDS_LINE_BET,
        422,
        "a come-out roll without the shooter's pass or don't pass bet (111-501-44(a)(8))",
    ),
    code(
        SIDE_WAGER_OUT_OF_RANGE,
        422,
        "an I Luv Suits Flush Rush or Super Flush Rush wager outside the table's limits",
    ),
    code(SPOT_OUT_OF_RANGE, 422, "a Keno number outside 1 to 80"),
    code(SPOTS_NOT_ALLOWED, 422, "a number of Keno spots the option does not allow"),
    code(STAKE_OUT_OF_RANGE, 422, "a Keno stake outside the allowed tickets"),
    code(STAKE_REFUSED, 422, "the stake could not be taken (the ledger's own code when it gives one)"),
    code(TOO_MANY_SPOTS, 422, "more blackjack spots than the table allows"),
    code(UNDER_AGE, 422, "a player under the minimum age"),
    code(UNKNOWN_EVENT, 422, "a payment webhook of an event type the platform does not handle"),
    code(UNSUPPORTED_CURRENCY, 422, "payments are in USD only"),
    code(
        VENDOR_FILE_NOT_FOUND,
        422,
        "no such file in the vendor inbox (a plain file name, delivered there first)",
    ),
    code(
        VENDOR_FILE_REFUSED,
        422,
        "a printing vendor's validation file refused whole (a print job's error, with every reason)",
    ),
    code(WAGER_OUT_OF_RANGE, 422, "a blackjack wager or an I Luv Suits ante outside the table's limits"),
    code(WALLET_NOT_FOUND, 422, "the player has no wallet"),
    code(WEAK_PASSWORD, 422, "a password too easy to guess"),
    code(WHITE_COUNT, 422, "a Powerball board without exactly five white numbers"),
    code(WHITE_OUT_OF_RANGE, 422, "a Powerball white number outside 1 to 69"),
    code(WRONG_VIRN, 422, "the VIRN does not match the ticket (counts toward the lockout)"),
    code(RATE_LIMITED, 429, "too many requests: see Retry-After"),
    code(TOO_MANY_STREAMS, 429, "this address holds as many live streams open as it may: close one"),
    code(HEADERS_TOO_LARGE, 431, "the request's headers are larger than the server reads"),
    // 5xx: ours, or a dependency's; retrying later is safe.
    code(INTERNAL, 500, "a fault of ours; it has been logged"),
    code(UNAVAILABLE, 503, "the database or a service is unavailable: retry with the same key"),
    code(UPSTREAM_UNAVAILABLE, 503, "a service behind the gateway did not answer"),
];

/// True when `code` is answered with `status` somewhere in the platform.
pub fn is_listed(code: &str, status: u16) -> bool {
    ALL.iter().any(|c| c.code == code && c.status == status)
}

/// The table as `docs/errors.md` shows it.
pub fn markdown_table() -> String {
    let mut table = String::from("| status | code | meaning |\n|---|---|---|\n");
    for c in ALL {
        table.push_str(&format!("| {} | `{}` | {} |\n", c.status, c.code, c.meaning));
    }
    table
}

#[cfg(test)]
mod tests;
