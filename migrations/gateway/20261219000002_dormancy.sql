-- An account marked dormant (issue 50): no login for the dormancy period
-- (LOTTO_DORMANT_AFTER_DAYS). A worker marks each once, with its significant event; the
-- player's next login clears it. The dormant accounts' list is still read from the last login.
ALTER TABLE players ADD COLUMN dormant_at timestamptz;
CREATE INDEX players_going_dormant ON players ((coalesce(last_login_at, created_at))) WHERE dormant_at IS NULL;
