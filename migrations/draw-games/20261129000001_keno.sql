-- Castle Keno tickets played at once ("play now"), and the hash-chained audit log of outcomes.

-- A ticket is a saga (DESIGN §4): open -> staked -> drawn -> settled, or open -> refused when the
-- stake could not be taken. Each step is idempotent; the recovery worker finishes any ticket left
-- between steps, never drawing twice (the numbers are stored before any payout).
CREATE TABLE keno_tickets (
    id                uuid PRIMARY KEY,
    player_id         text NOT NULL,
    wallet_account_id uuid NOT NULL,
    option            text NOT NULL,
    spots             smallint[] NOT NULL,
    tickets           integer NOT NULL CHECK (tickets > 0),
    stake_cents       bigint NOT NULL CHECK (stake_cents > 0),
    state             text NOT NULL CHECK (state IN ('open', 'staked', 'drawn', 'settled', 'refused')),
    draw_numbers      smallint[],
    hits              integer,
    payout_cents      bigint CHECK (payout_cents >= 0),
    refusal           text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((state IN ('drawn', 'settled')) = (draw_numbers IS NOT NULL))
);
CREATE INDEX keno_tickets_by_player ON keno_tickets (player_id, created_at);
CREATE INDEX keno_tickets_unfinished ON keno_tickets (updated_at) WHERE state IN ('open', 'staked', 'drawn');

-- Every outcome, chained: hash = sha256(prev_hash || record), record being the canonical JSON.
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
