-- A game session is the player's, not one login's (issue 47 §2, ADR 0014 §3): its clock, its
-- totals and its next reality check are kept here, and every login of the player within the
-- idle window joins it. A check due binds all of them until the player answers it, so logging
-- in again, or reloading the page, never skips it.
CREATE TABLE game_sessions (
    id               uuid PRIMARY KEY,
    player_id        uuid NOT NULL REFERENCES players (id),
    started_at       timestamptz NOT NULL,
    -- The last stake: time played runs from the first stake to the last.
    last_played_at   timestamptz NOT NULL,
    reality_check_at timestamptz NOT NULL,
    -- The ledger's activity in the hour play started, before it: the session's figures are the
    -- activity since that hour less this.
    baseline_hour    timestamptz NOT NULL,
    baseline_staked  bigint NOT NULL,
    baseline_won     bigint NOT NULL,
    -- The player answered a reality check with "stop": no login joins it again.
    ended_at         timestamptz
);
CREATE INDEX game_sessions_by_player ON game_sessions (player_id, last_played_at);

ALTER TABLE sessions ADD COLUMN game_session_id uuid REFERENCES game_sessions (id);
CREATE INDEX sessions_by_game_session ON sessions (game_session_id) WHERE game_session_id IS NOT NULL;

-- Each login's clock so far becomes a game session of its own (its id the login's).
INSERT INTO game_sessions (id, player_id, started_at, last_played_at, reality_check_at,
                           baseline_hour, baseline_staked, baseline_won)
SELECT s.id, p.id, s.play_started_at, coalesce(s.last_played_at, s.play_started_at),
       coalesce(s.reality_check_at, s.play_started_at + make_interval(mins => p.reality_check_minutes)),
       coalesce(s.baseline_hour, date_trunc('hour', s.play_started_at)),
       coalesce(s.baseline_staked, 0), coalesce(s.baseline_won, 0)
  FROM sessions s JOIN players p ON p.id::text = s.subject
 WHERE s.play_started_at IS NOT NULL;
UPDATE sessions SET game_session_id = id WHERE play_started_at IS NOT NULL AND id IN (SELECT id FROM game_sessions);

DROP INDEX sessions_played_by_subject;
ALTER TABLE sessions
    DROP COLUMN play_started_at,
    DROP COLUMN reality_check_at,
    DROP COLUMN baseline_hour,
    DROP COLUMN baseline_staked,
    DROP COLUMN baseline_won,
    DROP COLUMN last_played_at;
