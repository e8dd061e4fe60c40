-- Deposits and withdrawals through a payment provider (issue 11, defect 4; DESIGN §2). A
-- payment is an intent until the provider's signed webhook reports its outcome; each provider
-- event is applied once.
CREATE TABLE payments (
    id             uuid PRIMARY KEY,            -- also the ledger transfer (deposit) or hold (withdrawal)
    player_id      uuid NOT NULL REFERENCES players (id),
    kind           text NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
    amount         bigint NOT NULL CHECK (amount > 0),
    currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    payment_method text NOT NULL CHECK (length(payment_method) BETWEEN 1 AND 200),
    state          text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
    failure        text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_by_player ON payments (player_id, kind, created_at);

CREATE TABLE payment_events (
    event_id    text PRIMARY KEY CHECK (length(event_id) BETWEEN 1 AND 200),
    payment_id  uuid NOT NULL REFERENCES payments (id),
    type        text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- Deposits credited at once before intents existed count against limits as succeeded payments.
INSERT INTO payments (id, player_id, kind, amount, currency, payment_method, state, created_at, updated_at)
SELECT transfer_id, player_id, 'deposit', amount, 'USD', 'credited before intents', 'succeeded', created_at, created_at
  FROM player_deposits;
DROP TABLE player_deposits;
