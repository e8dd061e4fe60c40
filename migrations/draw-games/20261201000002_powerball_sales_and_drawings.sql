-- Powerball sales, drawings and winners (issue 13, ADR 0008).

-- A drawing's life: scheduled (on sale) → closed (wager set frozen and exported) → drawn
-- (results stand) → settled (winners found) → certified (an independent count agreed) or
-- disputed (it did not: the drawing stops there).
ALTER TABLE pb_draws DROP CONSTRAINT pb_draws_state_check;
ALTER TABLE pb_draws
    ADD CONSTRAINT pb_draws_state_check
        CHECK (state IN ('scheduled', 'closed', 'drawn', 'settled', 'certified', 'disputed')),
    ADD COLUMN results_mode    text NOT NULL DEFAULT 'entered' CHECK (results_mode IN ('entered', 'drawn')),
    ADD COLUMN tickets         bigint,
    ADD COLUMN plays           bigint,
    ADD COLUMN wagers_cents    bigint,
    ADD COLUMN export_file     text,
    ADD COLUMN export_sha256   bytea,
    ADD COLUMN closed_at       timestamptz,
    ADD COLUMN whites          smallint[],
    ADD COLUMN powerball       smallint,
    ADD COLUMN multiplier      smallint,
    ADD COLUMN results_at      timestamptz,
    ADD COLUMN settled_at      timestamptz,
    ADD COLUMN certified_at    timestamptz,
    ADD COLUMN online_paid_at  timestamptz,
    ADD COLUMN dispute         text;

-- A ticket sold at a terminal or online: the answer to a sale is its serial (18 random digits;
-- the check digit is computed, not stored). Its boards are kept here until its plays are placed
-- in their drawings.
CREATE TABLE pb_tickets (
    id             uuid PRIMARY KEY,
    serial         bigint NOT NULL UNIQUE CHECK (serial BETWEEN 100000000000000000 AND 999999999999999999),
    channel        text NOT NULL CHECK (channel IN ('terminal', 'online')),
    -- The retailer whose terminal sold it, or the player who bought it online.
    seller         text NOT NULL,
    -- Who asked: the terminal's or the player's login.
    sold_by        text NOT NULL,
    -- Charged for it: the retailer's settlement account or the player's wallet.
    debit_account  uuid NOT NULL,
    whites         smallint[] NOT NULL,
    powerballs     smallint[] NOT NULL,
    quick_picks    smallint NOT NULL,
    power_play     boolean NOT NULL,
    draws          smallint NOT NULL CHECK (draws > 0),
    cost_cents     bigint NOT NULL CHECK (cost_cents > 0),
    first_draw     date,
    state          text NOT NULL CHECK (state IN ('open', 'sold', 'refused')),
    refusal        text,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (cardinality(whites) = 5 * cardinality(powerballs))
);
CREATE INDEX pb_tickets_open ON pb_tickets (updated_at) WHERE state = 'open';

-- Every play of every drawing, partitioned by drawing so a settled drawing can be archived or
-- dropped as a unit; a drawing's partition is made with its row.
CREATE TABLE pb_plays (
    draw_date   date NOT NULL,
    serial      bigint NOT NULL,
    board       smallint NOT NULL,
    w1 smallint NOT NULL, w2 smallint NOT NULL, w3 smallint NOT NULL, w4 smallint NOT NULL, w5 smallint NOT NULL,
    powerball   smallint NOT NULL,
    power_play  boolean NOT NULL,
    online      boolean NOT NULL
) PARTITION BY LIST (draw_date);

-- The first and second operator's entries of a drawing's official results (dual control).
CREATE TABLE pb_result_entries (
    draw_date   date NOT NULL REFERENCES pb_draws (draw_date),
    entered_by  text NOT NULL,
    whites      smallint[] NOT NULL,
    powerball   smallint NOT NULL,
    multiplier  smallint NOT NULL,
    entered_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (draw_date, entered_by)
);

-- The winning plays of a settled drawing, found set-based.
CREATE TABLE pb_winners (
    draw_date   date NOT NULL,
    serial      bigint NOT NULL,
    board       smallint NOT NULL,
    tier        text NOT NULL,
    power_play  boolean NOT NULL,
    online      boolean NOT NULL,
    prize_cents bigint NOT NULL CHECK (prize_cents > 0),
    -- Set when the prize is paid (to a wallet at certification, or by a claim).
    paid_at     timestamptz,
    PRIMARY KEY (draw_date, serial, board)
);
CREATE INDEX pb_winners_by_serial ON pb_winners (serial);

-- A settled drawing's prize table: every tier with and without Power Play.
CREATE TABLE pb_prize_tables (
    draw_date   date NOT NULL REFERENCES pb_draws (draw_date),
    tier        text NOT NULL,
    power_play  boolean NOT NULL,
    winners     bigint NOT NULL,
    prize_cents bigint NOT NULL,
    total_cents bigint NOT NULL,
    PRIMARY KEY (draw_date, tier, power_play)
);
