-- Tickets for future draws voided when their player's break or exclusion starts (issue 35,
-- ADR 0014 §4): the entries in draws not yet closed (Keno) or drawings still on sale
-- (Powerball online) leave the wager set, and their stake goes back to the wallet in one
-- ledger transfer keyed to the ticket. A ticket is voided once: its later draws all go at once,
-- and a suspended wallet buys no more. The rows stay as the record (`refunded_at` set when the
-- transfer is in the journal; a crash in between is finished by the recovery pass).
CREATE TABLE voided_tickets (
    ticket_id         uuid PRIMARY KEY,
    game              text NOT NULL CHECK (game IN ('castle_keno', 'powerball')),
    player_id         text NOT NULL,
    wallet_account_id uuid NOT NULL,
    -- The draws taken out: Keno draw numbers or Powerball drawing dates, as text.
    draws             text[] NOT NULL CHECK (cardinality(draws) > 0),
    refund_cents      bigint NOT NULL CHECK (refund_cents > 0),
    reason            text NOT NULL,
    voided_at         timestamptz NOT NULL DEFAULT now(),
    refunded_at       timestamptz
);
CREATE INDEX voided_tickets_by_player ON voided_tickets (player_id, voided_at);
CREATE INDEX voided_tickets_unrefunded ON voided_tickets (voided_at) WHERE refunded_at IS NULL;

-- A player's online Powerball tickets, found when their play is suspended.
CREATE INDEX pb_tickets_online_by_buyer ON pb_tickets (seller) WHERE channel = 'online';
