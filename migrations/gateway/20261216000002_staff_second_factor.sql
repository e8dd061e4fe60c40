-- Staff log in with a second factor (issue 49 §Staff): a TOTP secret (RFC 6238: SHA-1, six
-- digits, 30-second steps) enrolled with an authenticator app, sealed under LOTTO_IDENTITY_KEY;
-- the last time step a code was taken for, so that no code is taken twice; wrong codes counted
-- and locked apart from the password's count; ten recovery codes, kept as digests, each used
-- once. An enrolment shown and not yet confirmed is kept apart, until it lapses.
ALTER TABLE staff
    ADD COLUMN totp_secret        bytea,
    ADD COLUMN totp_enrolled_at   timestamptz,
    ADD COLUMN totp_last_step     bigint,
    ADD COLUMN totp_pending       bytea,
    ADD COLUMN totp_pending_until timestamptz,
    ADD COLUMN code_failures      integer NOT NULL DEFAULT 0,
    ADD COLUMN code_locked_until  timestamptz;

CREATE TABLE staff_recovery_codes (
    staff_id    uuid NOT NULL REFERENCES staff (id),
    code_digest bytea NOT NULL,
    used_at     timestamptz,
    PRIMARY KEY (staff_id, code_digest)
);
