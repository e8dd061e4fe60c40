-- Exclusion lists match a verified identity too (issue 49 §KYC), not only an email: the legal
-- name as a person reads it (`name_key`, `domain::text::name_match_key`) with the date of birth,
-- and the SSN's last four where both the entry and the file give them, kept as keyed digests
-- (HMAC-SHA-256 under LOTTO_IDENTITY_KEY) so they are compared without being kept in the clear.
-- A file submitted before this has no key until it is submitted again.
ALTER TABLE exclusion_list
    ADD COLUMN legal_name text CHECK (length(legal_name) <= 200),
    ADD COLUMN name_key   text,
    ADD COLUMN ssn_digest bytea;
CREATE INDEX exclusion_list_by_name ON exclusion_list (name_key, date_of_birth)
    WHERE removed_at IS NULL AND name_key IS NOT NULL;

ALTER TABLE player_identities
    ADD COLUMN name_key   text,
    ADD COLUMN ssn_digest bytea;
CREATE INDEX player_identities_by_name ON player_identities (name_key) WHERE state = 'verified';

-- A verification refused because the person is listed is logged as a match too.
ALTER TABLE exclusion_matches DROP CONSTRAINT exclusion_matches_kind_check;
ALTER TABLE exclusion_matches ADD CONSTRAINT exclusion_matches_kind_check
    CHECK (kind IN ('registration', 'account', 'verification'));
