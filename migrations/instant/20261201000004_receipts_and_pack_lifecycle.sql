-- The retailer's side of the counter (issue 14).
--
-- A claim paid at a terminal leaves a receipt: its id is the payment's, it names the ticket, the
-- prize, the time and the terminal, and it is found again by the claim's Idempotency-Key (a
-- retried claim answers the same receipt). Written in the transaction that reserves the ticket,
-- and removed with the reservation if the ledger refuses the payment.
CREATE TABLE claim_receipts (
    id              uuid PRIMARY KEY,
    retailer_id     text NOT NULL,
    idempotency_key text NOT NULL,
    terminal_id     text NOT NULL,
    game            integer NOT NULL,
    book            integer NOT NULL,
    ticket          integer NOT NULL,
    prize_cents     bigint NOT NULL,
    paid_cents      bigint NOT NULL,
    free_ticket     boolean NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (retailer_id, idempotency_key)
);
CREATE INDEX claim_receipts_by_retailer ON claim_receipts (retailer_id, created_at);

-- A pack's life as a lottery runs it: printed, shipped to a retailer, received (the terminal
-- confirms it arrived), activated, settled; or returned to the lottery unsold, or reported
-- stolen (its tickets are refused at every counter).
ALTER TABLE packs DROP CONSTRAINT packs_state_check;
UPDATE packs SET state = 'shipped' WHERE state = 'assigned';
ALTER TABLE packs ADD CONSTRAINT packs_state_check
    CHECK (state IN ('printed', 'shipped', 'received', 'active', 'settled', 'returned', 'stolen'));
ALTER TABLE packs RENAME COLUMN assigned_at TO shipped_at;
ALTER TABLE packs
    ADD COLUMN received_at timestamptz,
    ADD COLUMN returned_at timestamptz,
    ADD COLUMN stolen_at   timestamptz,
    ADD COLUMN stolen_reported_by text;
CREATE INDEX packs_by_retailer ON packs (retailer_id, state) WHERE retailer_id IS NOT NULL;
CREATE INDEX packs_settled ON packs (retailer_id, settled_at) WHERE state = 'settled';
