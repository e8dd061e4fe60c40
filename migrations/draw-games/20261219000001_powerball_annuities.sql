-- The annuity (issue 50, ADR 0019): a grand prize taken as an annuity is 30 payments, recorded
-- with its claim. The first is paid with the claim; each later one on its date, once, from the
-- game's annuity liability account, by the scheduler's leader (after downtime too: every payment
-- whose date has passed). Each row is that year's W-2G record: the amount, the tax withheld, the
-- payment net of it.
CREATE TABLE pb_annuity_payments (
    claim_id        uuid NOT NULL REFERENCES pb_claims (id) ON DELETE CASCADE,
    number          smallint NOT NULL CHECK (number BETWEEN 1 AND 30),
    due_on          date NOT NULL,
    amount_cents    bigint NOT NULL CHECK (amount_cents > 0),
    withheld_cents  bigint NOT NULL CHECK (withheld_cents >= 0),
    net_cents       bigint NOT NULL CHECK (net_cents >= 0 AND net_cents + withheld_cents = amount_cents),
    w2g             boolean NOT NULL,
    paid_at         timestamptz,
    PRIMARY KEY (claim_id, number)
);
CREATE INDEX pb_annuity_payments_due ON pb_annuity_payments (due_on) WHERE paid_at IS NULL;
