-- A game session ends when it goes idle (issue 50): no stake and no request of its logins for
-- the idle timeout. A worker finds those still open by their last stake and ends each once,
-- recording what was staked and won in it.
CREATE INDEX game_sessions_open ON game_sessions (last_played_at) WHERE ended_at IS NULL;
