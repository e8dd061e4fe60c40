-- A print run's prize liability is funded after the run commits, not inside its transaction
-- (issue 33 §2: no transaction open across a ledger call; a run whose commit failed had its
-- liability funded all the same, under an id nobody would use again). `liability_funded_at`
-- says the funding moved; a run without it is funded by the service's next pass (the transfer's
-- id is the run's, so once). Runs stored before funded theirs in the same transaction.
ALTER TABLE print_runs ADD COLUMN liability_funded_at timestamptz;
UPDATE print_runs SET liability_funded_at = created_at;
