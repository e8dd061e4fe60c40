-- A prize is paid as a saga: the ticket is reserved for its payee ('pending', committed), the
-- ledger moves the money under ids derived from the ticket ('done'), and exactly one of the
-- payee's requests is told to hand it over ('confirmed'). A crash or a ledger that does not
-- answer leaves it pending or done: the recovery pass moves the money, and the payee claiming
-- again is told to pay. A ledger refusal releases the ticket.
ALTER TABLE tickets
    ADD COLUMN payment_id uuid,
    ADD COLUMN paid_to    text,
    ADD COLUMN paid_cents bigint,
    ADD COLUMN payment    text CHECK (payment IN ('pending', 'done', 'confirmed'));
CREATE INDEX tickets_payments_open ON tickets (payment_id) WHERE payment IN ('pending', 'done');
