-- Time-outs (ADR 0014 §4, issue 35): a short break the player takes (24 hours to 90 days),
-- beside the self-exclusion kept since the start. Either suspends the player's play in the
-- ledger (no stake is taken from the wallet) and ends every session at once; the player may log
-- in again to see when it ends and to withdraw.
ALTER TABLE players ADD COLUMN on_break_until timestamptz;
