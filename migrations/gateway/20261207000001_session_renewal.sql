-- Sessions that last as long as their player plays (issue 32 §2): renewed by rotating refresh
-- tokens, ended after a stretch without a request.

-- When the session last made a request (written a few seconds late, in batches, by the replica
-- that served it), and the retailer a terminal's session acts for (its tokens name it).
ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE sessions ADD COLUMN org text;

-- Opaque refresh tokens, kept only as their SHA-256. Each is used once: its use issues the next.
-- A token used a second time means two holders (one a thief): the whole session ends.
CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES sessions (id),
    issued_at  timestamptz NOT NULL DEFAULT now(),
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_by_session ON refresh_tokens (session_id);
