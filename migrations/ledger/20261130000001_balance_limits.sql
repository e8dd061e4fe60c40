-- No balance can overflow (issue 11, defect 3). Every transfer is at most $10,000,000,000
-- (`domain::Amount::MAX_CENTS`, checked by the service), and each of a balance row's lifetime
-- totals at most $10,000,000,000,000 (`Amount::MAX_ROW_TOTAL_CENTS`), checked here by the same
-- UPDATE that posts. An account has at most 64 rows, so an account's totals stay below 6.4e16 and
-- its balance and the reports that sum it can never leave 64 bits. NOT VALID: the limit binds every
-- change from now on without refusing to migrate a database that already holds a larger row.
ALTER TABLE balances ADD CONSTRAINT balances_within_limit CHECK (
    debits_posted <= 1000000000000000 AND credits_posted <= 1000000000000000
    AND debits_pending <= 1000000000000000 AND credits_pending <= 1000000000000000
) NOT VALID;
