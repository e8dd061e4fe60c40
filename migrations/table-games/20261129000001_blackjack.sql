-- Blackjack tables and rounds (K.A.R. 111-301-3, -5, -6), and the hash-chained audit log.

-- A player's table: its rules and its shoe. The shoe (every undealt card) never leaves the
-- server; a round locks its table row, so one round deals from a shoe at a time.
CREATE TABLE bj_tables (
    id                      uuid PRIMARY KEY,
    player_id               text NOT NULL,
    rules                   jsonb NOT NULL,
    shoe                    jsonb NOT NULL,
    shuffles                integer NOT NULL DEFAULT 1,
    created_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bj_tables_by_player ON bj_tables (player_id, created_at);

-- A round is a saga (DESIGN §4): open -> playing -> settled, or open -> refused when the stake
-- could not be taken. `step` counts applied decisions: an action names the step it acts on, so
-- of two concurrent actions exactly one applies. `round` is the domain's round, cards and all.
CREATE TABLE bj_rounds (
    id               uuid PRIMARY KEY,
    table_id         uuid NOT NULL REFERENCES bj_tables (id),
    player_id        text NOT NULL,
    wallet_account_id uuid NOT NULL,
    bets             jsonb NOT NULL,
    state            text NOT NULL CHECK (state IN ('open', 'playing', 'settled', 'refused')),
    step             integer NOT NULL DEFAULT 0,
    round            jsonb,
    actions          jsonb NOT NULL DEFAULT '[]',
    pot_at_deal_cents bigint,
    staked_cents     bigint,
    returned_cents   bigint,
    pot_prize_cents  bigint,
    balance_before_cents bigint,
    balance_after_cents  bigint,
    refusal          text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((state IN ('playing', 'settled')) = (round IS NOT NULL))
);
CREATE INDEX bj_rounds_by_player ON bj_rounds (player_id, created_at);
CREATE UNIQUE INDEX bj_rounds_one_in_play ON bj_rounds (table_id) WHERE state IN ('open', 'playing');

CREATE TABLE audit_log (
    seq        bigint PRIMARY KEY,
    kind       text NOT NULL,
    subject    uuid NOT NULL,
    record     text NOT NULL,
    prev_hash  bytea NOT NULL,
    hash       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'append_only' USING DETAIL = format('%s on %s is not allowed', TG_OP, TG_TABLE_NAME);
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
