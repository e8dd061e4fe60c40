-- The house's pass over abandoned craps sessions (bets on the layout, nothing pending, idle) reads
-- this index instead of every session.
CREATE INDEX craps_sessions_idle_with_bets ON craps_sessions (updated_at)
    WHERE pending IS NULL AND jsonb_array_length(session->'bets') > 0;
