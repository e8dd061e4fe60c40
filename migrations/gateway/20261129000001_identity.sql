-- The gateway's identities: players, staff (operators and auditors), retailers and their
-- terminals, login sessions, and players' responsible-gaming settings.

CREATE TABLE players (
    id                  uuid PRIMARY KEY,
    email               text NOT NULL UNIQUE CHECK (email = lower(email)),
    password_hash       text NOT NULL,                 -- argon2id, PHC string
    date_of_birth       date NOT NULL,
    wallet_account_id   uuid NOT NULL,                 -- the player's wallet in the ledger
    failed_logins       integer NOT NULL DEFAULT 0,
    locked_until        timestamptz,
    last_login_at       timestamptz,
    self_excluded_until timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE staff (
    id            uuid PRIMARY KEY,
    username      text NOT NULL UNIQUE CHECK (username = lower(username)),
    password_hash text NOT NULL,
    role          text NOT NULL CHECK (role IN ('operator', 'auditor')),
    failed_logins integer NOT NULL DEFAULT 0,
    locked_until  timestamptz,
    last_login_at timestamptz,
    created_by    uuid REFERENCES staff (id),
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE retailers (
    id         uuid PRIMARY KEY,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A terminal's API key is shown once; only its SHA-256 is kept. The prefix finds the row.
CREATE TABLE terminals (
    id          uuid PRIMARY KEY,
    retailer_id uuid NOT NULL REFERENCES retailers (id),
    label       text NOT NULL CHECK (length(label) BETWEEN 1 AND 200),
    key_prefix  text NOT NULL UNIQUE,
    key_hash    bytea NOT NULL,
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
    id         uuid PRIMARY KEY,
    subject    text NOT NULL,
    role       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    ended_at   timestamptz,
    end_reason text
);
CREATE INDEX sessions_by_subject ON sessions (subject) WHERE ended_at IS NULL;
CREATE INDEX sessions_recently_ended ON sessions (ended_at) WHERE ended_at IS NOT NULL;

-- A limit takes effect at once when lowered; a raise waits 24 hours in pending_amount.
CREATE TABLE deposit_limits (
    player_id      uuid NOT NULL REFERENCES players (id),
    period         text NOT NULL CHECK (period IN ('daily', 'weekly', 'monthly')),
    amount         bigint CHECK (amount > 0),          -- NULL: no limit
    pending_amount bigint CHECK (pending_amount > 0),
    pending_none   boolean NOT NULL DEFAULT false,     -- a pending removal of the limit
    pending_from   timestamptz,
    PRIMARY KEY (player_id, period)
);

-- Deposits a player made through the gateway, counted against their limits.
CREATE TABLE player_deposits (
    transfer_id uuid PRIMARY KEY,                      -- the ledger transfer's id
    player_id   uuid NOT NULL REFERENCES players (id),
    amount      bigint NOT NULL CHECK (amount > 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX player_deposits_by_player ON player_deposits (player_id, created_at);
