-- A round that cannot be finished (its shoe has no card left for it) is voided: every wager
-- returned. It may have cards (voided in play) or none (voided at the deal).
ALTER TABLE bj_rounds DROP CONSTRAINT bj_rounds_state_check;
ALTER TABLE bj_rounds DROP CONSTRAINT bj_rounds_check;
ALTER TABLE bj_rounds ADD CONSTRAINT bj_rounds_state_check
    CHECK (state IN ('open', 'playing', 'settled', 'refused', 'voided'));
ALTER TABLE bj_rounds ADD CONSTRAINT bj_rounds_check
    CHECK (state = 'voided' OR (state IN ('playing', 'settled')) = (round IS NOT NULL));
