-- A session counts the requests it has recorded: the next request's `seq`, and what a request
-- claims the session with (a conditional update, group-committed with other sessions' claims,
-- instead of a row lock held across several statements). Sessions already played count theirs.
ALTER TABLE craps_sessions ADD COLUMN requests integer NOT NULL DEFAULT 0;
UPDATE craps_sessions s
   SET requests = (SELECT coalesce(max(r.seq) + 1, 0) FROM craps_rolls r WHERE r.session_id = s.id);
