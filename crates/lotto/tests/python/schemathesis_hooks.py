"""A check for the bounded schemathesis run (crates/lotto/tests/schemathesis.rs).

`valid_form_accepted`: a request generated to fit openapi.yaml must not be refused for its form.
The server answers 400 or 422 with a stable `code`; for a request the contract calls valid, the
only codes allowed are the rules below, which no JSON schema can state (they depend on other
fields, on the platform's state or on the calendar). Any other code means the server checks a
limit, range, pattern or format the contract does not declare.
"""

import schemathesis

RULES = {
    # Against the platform's state or another request.
    "insufficient_funds",
    "limit_reached",
    "deposit_limit_exceeded",
    "not_a_winner",
    "retailer_not_found",  # a pack shipped to a retailer the platform does not have
    "account_not_found",  # money moved to or from an account the ledger does not have
    "hold_not_found",  # a hold posted or voided that the ledger does not have
    "vendor_file_not_found",
    "vendor_file_refused",
    "results_mismatch",
    "multiplier_not_in_drum",
    # Against the operator's settings (LOTTO_*), which the contract does not know.
    "invalid_odds_multiple",  # up to the house's odds multiple
    "invalid_limits",  # a blackjack table's wagers within the house's, the least at most the most
    "invalid_board_count",  # up to the slip's boards, marked and quick picks together
    "draws_out_of_range",  # up to the consecutive drawings a ticket may enter
    # Between fields, or against the calendar and the clock.
    "weak_password",  # guessability (zxcvbn), and not containing the login
    "invalid_date_of_birth",  # in the past, and at most 120 years ago
    "under_age",  # 18 on the day (K.A.R. 111-5-24(c))
    "not_a_draw_day",  # Powerball draws Monday, Wednesday and Saturday
    "invalid_window",  # `from` before `to`, and at most so many days apart
    "invalid_period",  # the significant-events log's `from` before its `to`
    "same_account",  # debit and credit differ
    "invalid_grand_prize",  # the cash value at most the advertised prize
    "invalid_transfer",  # new (accounts, amount, currency) or ending a hold, not both
    "invalid_money_limit",  # a period for loss and wager limits, none for a single stake
    "invalid_time_limit",  # at most the period's own length in minutes
    "invalid_metadata",  # at most so many bytes once serialized
    "code_and_recovery_code",  # a staff login's second factor: a code or a recovery code, not both
    "invalid_exclusion_list",  # an entry's legal name is matched with its date of birth: both or no name
    # Check digits (Luhn): the form is declared, the digit's agreement cannot be.
    "invalid_serial",
    "invalid_barcode",
    # No text may hold U+0000 (the contract's description says so: Postgres text cannot).
    "nul_in_text",
    # Between a body's fields, or between the body and the Idempotency-Key header.
    "idempotency_key_mismatch",  # a body's `id` and the header name different requests
    "missing_field",  # a batch's transfer with no `id` and no header to derive one from
    "missing_idempotency_key",  # an `id` in the body, or the header: one of the two
    "invalid_timeout",  # only a pending transfer has a timeout
    "cut_out_of_range",  # the cut card leaves 52 cards either side of the shoe's decks
    "invalid_bet",  # a craps bet's number, dice or halves as its kind takes them (a split's differ)
    "no_spots",  # a blackjack round with a wager on at least one spot
    "invalid_max_spots",  # a blackjack table's spots, up to what its decks allow
    "too_many_spots",  # a round's spots, up to its table's
    "spots_not_allowed",  # a Keno option's spot counts (Castle Keno rules)
    "invalid_time_zone",  # a name the IANA time zone database knows
    # Unicode's categories, NFKC and scripts (UTS #39), which an ECMA-262 pattern cannot state.
    "invalid_email_characters",  # no invisible or control characters, full-width letters, or mixed scripts
    # Against the table's state, and the house's table limits (settings).
    "shooter_needs_line_bet",
    "no_such_bet",  # a bet taken down, reduced or called on or off that is not on the layout
    "bet_not_allowed_now",  # e.g. odds behind a line bet with no point, a come bet on the come-out
    "contract_bet",  # a pass or come bet with its point set cannot be taken down or reduced
    "dont_bet_locked",  # a don't bet taken down or reduced is not raised again until the come-out
    "odds_over_multiple",  # odds up to the table's multiple of the line bet they stand behind
    "amount_not_in_units",  # units that pay whole cents, by the bet and the point (odds, buy, lay)
    "action_not_allowed",  # a blackjack hand's move as its cards allow (split, double, surrender)
    "no_such_spot",  # a blackjack move on a spot the round has no hand on
    "royal_match_needs_six_decks",  # side wagers a table offers by its deck count
    "blazing_sevens_need_six_decks",
    "account_limit_reached",  # the most one ledger account may hold
    "wager_out_of_range",
    "stake_out_of_range",
    "side_wager_out_of_range",
}

# The one-object move bodies (a blackjack action, a craps bet or change) state per kind the fields
# each needs (`if`/`then` in openapi.yaml), so a move the contract calls valid is never refused as
# `invalid_body`: no operation is excused from that any more.


@schemathesis.check
def valid_form_accepted(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    # A CSV file's lines are not a JSON schema's to describe (`invalid_exclusion_list` names the
    # line); the contract gives the header and the columns in words.
    if case.media_type == "text/csv":
        return None
    if response.status_code not in (400, 422):
        return None
    try:
        code = response.json().get("code")
    except ValueError:
        code = None
    if code not in RULES:
        raise AssertionError(
            f"a request that fits the contract was refused for its form: {response.status_code} "
            f"{code!r}; declare the constraint in openapi.yaml (or list the rule, with why, in "
            f"schemathesis_hooks.py)\n{response.text[:400]}"
        )
    return None
