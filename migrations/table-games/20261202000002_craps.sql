-- Craps sessions (K.A.R. 111-501-44, -45): a player's table, its layout and puck as the domain's
-- session, and every roll. A roll is a saga (DESIGN §4): under the session's row lock the changes
-- are checked, the dice thrown and the result recorded as `pending` (so a crash resumes with the
-- same roll); its money moves in one ledger batch with no lock held; then the session moves on
-- and the roll is written to `craps_rolls` and chained in the audit log.
CREATE TABLE craps_sessions (
    id                   uuid PRIMARY KEY,
    player_id            text NOT NULL,
    wallet_account_id    uuid NOT NULL,
    session              jsonb NOT NULL,
    rolls                integer NOT NULL DEFAULT 0,
    pending              jsonb,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX craps_sessions_by_player ON craps_sessions (player_id, created_at);
CREATE INDEX craps_sessions_pending ON craps_sessions (updated_at) WHERE pending IS NOT NULL;

-- Every request that moved money on a session: its changes to the layout, the roll if it threw
-- one (`report`), the money, and the wallet before and after. `key` is the request's
-- Idempotency-Key: a retry answers the same row.
CREATE TABLE craps_rolls (
    session_id           uuid NOT NULL REFERENCES craps_sessions (id),
    seq                  integer NOT NULL,
    key                  text NOT NULL,
    player_id            text NOT NULL,
    changes              jsonb NOT NULL,
    report               jsonb,
    money                jsonb NOT NULL,
    balance_before_cents bigint NOT NULL,
    balance_after_cents  bigint NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, key)
);
CREATE INDEX craps_rolls_by_player ON craps_rolls (player_id, created_at);
