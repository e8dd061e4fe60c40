-- A game's announced end of sales, and the expiry of its unclaimed prizes (issue 50 §Prizes
-- that expire): a prize may be claimed until the claim period after the end of sales ends;
-- then what the game's prize liability still holds moves, once, to the unclaimed account.
CREATE TABLE sales_ends (
    game          integer PRIMARY KEY,
    ends_on       date NOT NULL,
    announced_at  timestamptz NOT NULL DEFAULT now(),
    announced_by  text NOT NULL,
    -- set when the expiry begins (no claim is taken after), the amount when it is read from
    -- the ledger, and the end when the money has moved
    expiring_at   timestamptz,
    expired_cents bigint CHECK (expired_cents >= 0),
    expired_at    timestamptz,
    CHECK (expired_cents IS NULL OR expiring_at IS NOT NULL),
    CHECK (expired_at IS NULL OR expired_cents IS NOT NULL)
);
