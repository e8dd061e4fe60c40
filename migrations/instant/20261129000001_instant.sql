-- Instant and pull-tab tickets: print runs, packs (books) and every ticket printed.

CREATE TABLE print_runs (
    id          uuid PRIMARY KEY,
    game        integer NOT NULL,
    tickets     bigint NOT NULL,
    pools       integer NOT NULL,
    first_book  integer NOT NULL,
    last_book   integer NOT NULL,
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- A pack is one book of a game; it moves only forward.
CREATE TABLE packs (
    game         integer NOT NULL,
    book         integer NOT NULL,
    print_run    uuid NOT NULL REFERENCES print_runs (id),
    state        text NOT NULL CHECK (state IN ('printed', 'assigned', 'active', 'settled')),
    retailer_id  text,
    assigned_at  timestamptz,
    activated_at timestamptz,
    settled_at   timestamptz,
    PRIMARY KEY (game, book)
);

-- Every ticket. The VIRN is stored only as HMAC-SHA256 under a key the database does not hold,
-- so a copy of the database cannot claim a prize; the barcode is the ticket's place, and says
-- nothing of the prize. The face is what the player uncovers: windows of symbol indexes.
CREATE TABLE tickets (
    game        integer NOT NULL,
    book        integer NOT NULL,
    ticket      integer NOT NULL,
    prize_row   smallint,
    prize_cents bigint NOT NULL DEFAULT 0,
    virn_hash   bytea NOT NULL,
    face        text NOT NULL,
    paid_at     timestamptz,
    PRIMARY KEY (game, book, ticket)
);

-- Winners printed and paid per prize row: the public "prizes remaining" without counting tickets.
CREATE TABLE prize_counts (
    game      integer NOT NULL,
    prize_row smallint NOT NULL,
    printed   bigint NOT NULL DEFAULT 0,
    paid      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (game, prize_row)
);
