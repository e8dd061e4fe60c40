-- Mail to players (issue 49): written in the same transaction as what it tells, sent by a worker.
-- With no relay configured (local mode) a message is kept here as delivered: the console and the
-- tests read it. A worker claims a message for a minute at a time (`next_attempt_at` moved on),
-- so several replicas send each message once; a failure is tried again with a growing wait.
CREATE TABLE mail_outbox (
    id              uuid PRIMARY KEY,
    recipient       text NOT NULL,
    player_id       uuid REFERENCES players (id),
    kind            text NOT NULL,
    subject         text NOT NULL,
    body            text NOT NULL,
    state           text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'kept', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    sent_at         timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE state = 'queued';
CREATE INDEX mail_outbox_by_recipient ON mail_outbox (recipient, created_at);

-- One-time links (an address verified, a password reset): the token is random and shown only
-- in the mail; only its SHA-256 is kept. Used once, within its life.
CREATE TABLE one_time_links (
    token_hash bytea PRIMARY KEY,
    purpose    text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    player_id  uuid NOT NULL REFERENCES players (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX one_time_links_by_player ON one_time_links (player_id, purpose);

-- When a player proved the address; NULL: not yet (players before this were never asked).
ALTER TABLE players ADD COLUMN email_verified_at timestamptz;
-- The player's choice to be told of every login by mail (on by default, N.J.A.C. 13:69O-1.4).
ALTER TABLE players ADD COLUMN login_notices boolean NOT NULL DEFAULT true;
