-- A player's standing (issue 35, ADR 0014 §4): beside the break and the fixed-term
-- self-exclusion, a permanent self-exclusion, the cooling-off before an exclusion's end lets
-- the player play again, the account closed by its player (and its reopening), and a match on
-- a state's or the operator's exclusion list. The gateway works out from these rows when play
-- may resume and tells the ledger (`wallet_suspensions`); the rows are the record.
ALTER TABLE players
    ADD COLUMN excluded_permanently boolean NOT NULL DEFAULT false,
    -- Asked for after a fixed-term exclusion ended; play resumes 24 hours later.
    ADD COLUMN return_requested_at timestamptz,
    ADD COLUMN closed_at timestamptz,
    -- Asked for after a closure; play resumes 24 hours later.
    ADD COLUMN reopen_requested_at timestamptz,
    -- The exclusion-list entry this player matched (see `exclusion_list`).
    ADD COLUMN listed_entry uuid,
    -- Set with a suspension until draw-games has voided and refunded the player's tickets for
    -- future draws; a worker asks again while it is set.
    ADD COLUMN voids_pending_since timestamptz;

-- Time limits: minutes played (the game sessions' clock, first to last stake of each) per
-- rolling 24 hours, 7 days and 30 days, kept beside the deposit limits and changed by the same
-- rule (a lowering at once, a raise or removal after 24 hours).
ALTER TABLE deposit_limits RENAME TO player_limits;
ALTER TABLE player_limits ADD COLUMN kind text NOT NULL DEFAULT 'deposit' CHECK (kind IN ('deposit', 'time'));
ALTER TABLE player_limits DROP CONSTRAINT deposit_limits_pkey;
ALTER TABLE player_limits ADD PRIMARY KEY (player_id, kind, period);
COMMENT ON COLUMN player_limits.amount IS 'cents for a deposit limit, minutes for a time limit; NULL: none';

-- The last stake of each game session: a session's time played runs from its first stake
-- (`play_started_at`) to its last.
ALTER TABLE sessions ADD COLUMN last_played_at timestamptz;
CREATE INDEX sessions_played_by_subject ON sessions (subject, play_started_at) WHERE play_started_at IS NOT NULL;

-- State and operator exclusion lists: people to refuse by their identifying details, imported
-- from a file or entered by an operator. Matched against every player within the hour and at
-- registration; every match is logged in `exclusion_matches`.
CREATE TABLE exclusion_list (
    id            uuid PRIMARY KEY,
    source        text NOT NULL CHECK (source IN ('state', 'operator')),
    -- The list's own reference for the person (unique within its source).
    reference     text NOT NULL,
    email         text NOT NULL,
    date_of_birth date,
    -- The last day of the exclusion; none: until taken off the list.
    ends_on       date,
    added_by      text NOT NULL,
    added_at      timestamptz NOT NULL DEFAULT now(),
    removed_at    timestamptz,
    UNIQUE (source, reference)
);
CREATE INDEX exclusion_list_by_email ON exclusion_list (email) WHERE removed_at IS NULL;

CREATE TABLE exclusion_matches (
    entry_id    uuid NOT NULL REFERENCES exclusion_list (id),
    -- The player matched, or none when a registration was refused.
    player_id   uuid REFERENCES players (id),
    email       text NOT NULL,
    -- `registration` (refused) or `account` (excluded).
    kind        text NOT NULL CHECK (kind IN ('registration', 'account')),
    matched_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX exclusion_matches_once ON exclusion_matches (entry_id, player_id) WHERE player_id IS NOT NULL;
