-- Every request for a mailed link (a confirmation link asked again, a password reset), whether
-- or not the address has an account (issue 49 §Email): one committed row either way, so the two
-- answers take the same time (an unknown address used to be answered without writing anything,
-- 0.3 ms against 0.8 ms), and a record of who is asked about. The address is kept as a digest:
-- a stranger's typing is not kept.
CREATE TABLE link_requests (
    id           uuid PRIMARY KEY,
    purpose      text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    email_digest bytea NOT NULL,
    known        boolean NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
