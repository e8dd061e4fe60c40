-- Validation at retailers' terminals: every attempt logged; wrong VIRNs counted per terminal.

CREATE TABLE terminal_failures (
    terminal_id  text PRIMARY KEY,
    failures     integer NOT NULL DEFAULT 0,
    locked_until timestamptz
);

CREATE TABLE validations (
    id          bigserial PRIMARY KEY,
    terminal_id text NOT NULL,
    retailer_id text,
    barcode     text NOT NULL,
    result      text NOT NULL,
    prize_cents bigint NOT NULL DEFAULT 0,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX validations_by_retailer ON validations (retailer_id, at);
