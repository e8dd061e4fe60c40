-- Pack settlement (what the retailer owed, kept with the pack) and prizes paid at the lottery
-- office, with the tax record each needs.

ALTER TABLE packs
    ADD COLUMN sales_cents      bigint,
    ADD COLUMN commission_cents bigint,
    ADD COLUMN owed_cents       bigint;
CREATE INDEX packs_active_since ON packs (activated_at) WHERE state = 'active';

-- One row per prize paid at the office. The claimant's full taxpayer number is not kept here
-- (it goes on the W-2G filed from the office's tax system); the last four digits identify it.
CREATE TABLE office_claims (
    id               uuid PRIMARY KEY,
    game             integer NOT NULL,
    book             integer NOT NULL,
    ticket           integer NOT NULL,
    prize_cents      bigint NOT NULL,
    withheld_cents   bigint NOT NULL,
    net_cents        bigint NOT NULL CHECK (net_cents + withheld_cents = prize_cents),
    w2g              boolean NOT NULL,
    claimant_name    text NOT NULL,
    claimant_address text,
    tin_last4        text,
    paid_by          text NOT NULL,
    paid_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (game, book, ticket)
);
CREATE INDEX office_claims_w2g ON office_claims (paid_at) WHERE w2g;
