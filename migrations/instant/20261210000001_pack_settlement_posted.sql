-- A pack's settlement is recorded first and its money moved after, so the pack's row is not
-- locked while the ledger works (issue 33 §2). `settlement_posted_at` says the money moved; a
-- settled pack without it is posted again (the transfer's id is the pack's, so once) by the
-- next request for it or the settlement pass. Packs settled before moved their money in the
-- same transaction.
ALTER TABLE packs ADD COLUMN settlement_posted_at timestamptz;
UPDATE packs SET settlement_posted_at = settled_at WHERE state = 'settled';
