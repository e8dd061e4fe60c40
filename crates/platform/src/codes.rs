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
// The codes of the regulator's records (issue 50).
mod records;
pub use records::*;

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

// Every code, by status then name, with its status and meaning.
mod catalogue;
pub use catalogue::ALL;

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
