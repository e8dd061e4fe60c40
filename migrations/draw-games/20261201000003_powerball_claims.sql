-- Powerball claims (issue 13): a ticket's prizes in one drawing, paid once, at a terminal (up to
-- the retailer limit) or at the lottery office (any amount, with the W-2G and withholding rules
-- and, for the grand prize, the winner's election); and unclaimed prizes expired.
CREATE TABLE pb_claims (
    id              uuid PRIMARY KEY,
    serial          bigint NOT NULL,
    draw_date       date NOT NULL REFERENCES pb_draws (draw_date),
    -- The retailer whose terminal paid it, or 'office'.
    payee           text NOT NULL,
    prize_cents     bigint NOT NULL CHECK (prize_cents > 0),
    -- Paid now: the prize, or for the grand prize the cash share or the annuity's first payment.
    paid_cents      bigint NOT NULL CHECK (paid_cents > 0),
    withheld_cents  bigint NOT NULL DEFAULT 0 CHECK (withheld_cents >= 0),
    net_cents       bigint NOT NULL CHECK (net_cents >= 0),
    w2g             boolean NOT NULL DEFAULT false,
    election        text CHECK (election IN ('annuity', 'cash')),
    -- The grand prize taken as cash: its annuity share less the cash, back to the house.
    released_cents  bigint NOT NULL DEFAULT 0 CHECK (released_cents >= 0),
    claimant_name   text,
    tin_last4       text,
    paid_by         text NOT NULL,
    state           text NOT NULL CHECK (state IN ('pending', 'done', 'confirmed')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (serial, draw_date)
);
CREATE INDEX pb_claims_pending ON pb_claims (created_at) WHERE state = 'pending';

ALTER TABLE pb_draws ADD COLUMN expired_at timestamptz, ADD COLUMN expired_cents bigint;
ALTER TABLE pb_winners ADD COLUMN expired boolean NOT NULL DEFAULT false;
