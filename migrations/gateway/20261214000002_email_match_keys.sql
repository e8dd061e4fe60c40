-- Addresses compared as a person reads them (issue 47 §3, ADR 0014 §5): `email_key` is
-- `domain::text::email_match_key` of the address (NFKC, case-folded, confusable skeletons,
-- `+tag` and dots dropped), computed by the gateway when a row is written. Lists and
-- re-registrations of a suspended player match on it with the date of birth. Rows written
-- before this have none until the gateway's next exclusion-list pass fills them in.
ALTER TABLE players ADD COLUMN email_key text;
ALTER TABLE exclusion_list ADD COLUMN email_key text;
CREATE INDEX players_by_email_key ON players (email_key, date_of_birth);
CREATE INDEX exclusion_list_by_email_key ON exclusion_list (email_key) WHERE removed_at IS NULL;
-- An operator's cash deposit finds the wallet's player (their standing refuses it while play is
-- suspended, issue 47 §4).
CREATE INDEX players_by_wallet ON players (wallet_account_id);
