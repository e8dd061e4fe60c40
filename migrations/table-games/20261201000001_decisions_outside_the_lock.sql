-- A decision that adds a wager is recorded as `pending` (the round's row claims the step) before
-- the wager is taken in the ledger, and applied after, so no row lock is held across a call to
-- the ledger (ADR 0004). A round whose cards are done waits in `settling` while its settlement
-- is paid, outside any transaction; it still holds its table until `settled`.
ALTER TABLE bj_rounds ADD COLUMN pending jsonb;

ALTER TABLE bj_rounds DROP CONSTRAINT bj_rounds_state_check;
ALTER TABLE bj_rounds ADD CONSTRAINT bj_rounds_state_check
    CHECK (state IN ('open', 'playing', 'settling', 'settled', 'refused', 'voided'));
ALTER TABLE bj_rounds DROP CONSTRAINT bj_rounds_check;
ALTER TABLE bj_rounds ADD CONSTRAINT bj_rounds_check
    CHECK (state = 'voided' OR (state IN ('playing', 'settling', 'settled')) = (round IS NOT NULL));
ALTER TABLE bj_rounds ADD CONSTRAINT bj_rounds_pending_in_play CHECK (pending IS NULL OR state = 'playing');

DROP INDEX bj_rounds_one_in_play;
CREATE UNIQUE INDEX bj_rounds_one_in_play ON bj_rounds (table_id) WHERE state IN ('open', 'playing', 'settling');
CREATE INDEX bj_rounds_settling ON bj_rounds (updated_at) WHERE state = 'settling' OR pending IS NOT NULL;
