-- Play now, second shape (ADR 0003): a ticket is recorded already drawn, then one ledger batch
-- takes the stake and pays the prize; a refused ticket keeps the numbers it was never shown.
ALTER TABLE keno_tickets DROP CONSTRAINT keno_tickets_check;
ALTER TABLE keno_tickets ADD CONSTRAINT keno_tickets_drawn_have_numbers
    CHECK (state IN ('open', 'staked') OR draw_numbers IS NOT NULL);

-- Scheduled Castle Keno draws (DESIGN §6). Draw n's sales close at anchor + n * interval; the
-- schedule is fixed by the first start (LOTTO_KENO_DRAW_INTERVAL_SECONDS) and kept here, so the
-- numbering never shifts under tickets already sold.
CREATE TABLE keno_schedule (
    game             text PRIMARY KEY,
    anchor           timestamptz NOT NULL,
    interval_seconds integer NOT NULL CHECK (interval_seconds > 0)
);

-- A draw moves only forward: scheduled -> open -> closed -> drawn -> settled. Tickets join a
-- scheduled or open draw; `open` marks the next draw to close. Closing freezes the wager set
-- (count, total and a hash of the entries); the numbers are drawn only after the close commits.
CREATE TABLE keno_draws (
    number         bigint PRIMARY KEY,
    sales_close_at timestamptz NOT NULL UNIQUE,
    state          text NOT NULL CHECK (state IN ('scheduled', 'open', 'closed', 'drawn', 'settled')),
    entries        integer,
    wagers_cents   bigint,
    wager_set_hash bytea,
    numbers        smallint[],
    closed_at      timestamptz,
    drawn_at       timestamptz,
    settled_at     timestamptz,
    CHECK ((state IN ('drawn', 'settled')) = (numbers IS NOT NULL)),
    CHECK ((state IN ('scheduled', 'open')) = (wager_set_hash IS NULL))
);
CREATE INDEX keno_draws_unfinished ON keno_draws (number) WHERE state <> 'settled';

-- A ticket for the next draw or the next N consecutive draws: open -> staked (stake for every
-- draw in escrow, entries made) or refused (nothing moved).
CREATE TABLE keno_draw_tickets (
    id                uuid PRIMARY KEY,
    player_id         text NOT NULL,
    wallet_account_id uuid NOT NULL,
    option            text NOT NULL,
    spots             smallint[] NOT NULL,
    tickets           integer NOT NULL CHECK (tickets > 0),
    stake_cents       bigint NOT NULL CHECK (stake_cents > 0),
    draws             integer NOT NULL CHECK (draws > 0),
    first_draw        bigint REFERENCES keno_draws (number),
    state             text NOT NULL CHECK (state IN ('open', 'staked', 'refused')),
    refusal           text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((state = 'staked') = (first_draw IS NOT NULL))
);
CREATE INDEX keno_draw_tickets_by_player ON keno_draw_tickets (player_id, created_at);
CREATE INDEX keno_draw_tickets_open ON keno_draw_tickets (updated_at) WHERE state = 'open';

-- One ticket in one draw; what settlement needs is copied here so a draw settles from one table.
CREATE TABLE keno_entries (
    draw_number       bigint NOT NULL REFERENCES keno_draws (number),
    ticket_id         uuid NOT NULL REFERENCES keno_draw_tickets (id),
    wallet_account_id uuid NOT NULL,
    option            text NOT NULL,
    spots             smallint[] NOT NULL,
    tickets           integer NOT NULL,
    stake_cents       bigint NOT NULL,
    hits              integer,
    payout_cents      bigint,
    paid              boolean NOT NULL DEFAULT false,
    PRIMARY KEY (draw_number, ticket_id)
);
CREATE INDEX keno_entries_by_ticket ON keno_entries (ticket_id);
