-- Reality checks (ADR 0014 §3, issue 35): a game session starts at the first stake after a
-- login; at the player's interval (15, 30 or 60 minutes) the next stake waits until the player
-- has seen what the session took and paid, and chosen to go on or stop. The session's figures
-- are the ledger's activity since the hour play started, less what that hour held before
-- (`baseline_*`, read at the first stake).
ALTER TABLE players ADD COLUMN reality_check_minutes integer NOT NULL DEFAULT 60
    CHECK (reality_check_minutes IN (15, 30, 60));
ALTER TABLE sessions
    ADD COLUMN play_started_at timestamptz,
    ADD COLUMN reality_check_at timestamptz,
    ADD COLUMN baseline_hour timestamptz,
    ADD COLUMN baseline_staked bigint,
    ADD COLUMN baseline_won bigint;
