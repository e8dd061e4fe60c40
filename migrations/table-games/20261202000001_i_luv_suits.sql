-- I Luv Suits rounds (K.A.R. 111-301-74 to -76), each a saga like a blackjack round (DESIGN §4):
-- open (wagers being taken) -> deciding (dealt, waiting for the player's fold or play) ->
-- settling (decided, being paid) -> settled; or open -> refused when the wagers could not be
-- taken. Every round deals from its own freshly shuffled deck, so there is no table row.
-- `deal` holds both hands from the moment they are dealt; the dealer's is shown only once the
-- round is settled. A play decision is recorded as `pending` (claiming the decision) before its
-- wager is taken in the ledger, and made the round's `decision` after.
CREATE TABLE ils_rounds (
    id                   uuid PRIMARY KEY,
    player_id            text NOT NULL,
    wallet_account_id    uuid NOT NULL,
    wagers               jsonb NOT NULL,
    rules                jsonb NOT NULL,
    state                text NOT NULL CHECK (state IN ('open', 'deciding', 'settling', 'settled', 'refused')),
    deal                 jsonb,
    pending              jsonb,
    decision             jsonb,
    pot_at_deal_cents    bigint,
    staked_cents         bigint,
    settlement           jsonb,
    returned_cents       bigint,
    balance_before_cents bigint,
    balance_after_cents  bigint,
    refusal              text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((state IN ('deciding', 'settling', 'settled')) = (deal IS NOT NULL)),
    CHECK ((state IN ('settling', 'settled')) = (decision IS NOT NULL)),
    CHECK (pending IS NULL OR state = 'deciding')
);
CREATE INDEX ils_rounds_by_player ON ils_rounds (player_id, created_at);
CREATE INDEX ils_rounds_unfinished ON ils_rounds (updated_at) WHERE state IN ('open', 'deciding', 'settling');
