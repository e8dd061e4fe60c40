-- The player file (issue 49 §KYC): who the player is, as an identity provider verified it
-- (UK Gambling Commission LCCP 17.1.1; N.J.A.C. 13:69O-1.3). The last four of the SSN are kept
-- encrypted (ChaCha20-Poly1305 under LOTTO_IDENTITY_KEY; Illinois iLottery 1770.185). The API
-- checks each field's form; the table holds them trimmed.
CREATE TABLE player_identities (
    player_id        uuid PRIMARY KEY REFERENCES players (id),
    legal_name       text NOT NULL CHECK (length(legal_name) BETWEEN 1 AND 200),
    address_line1    text NOT NULL CHECK (length(address_line1) BETWEEN 1 AND 200),
    address_line2    text CHECK (length(address_line2) <= 200),
    city             text NOT NULL CHECK (length(city) BETWEEN 1 AND 100),
    region           text NOT NULL CHECK (length(region) BETWEEN 1 AND 50),
    postal_code      text NOT NULL CHECK (length(postal_code) BETWEEN 1 AND 12),
    phone            text NOT NULL CHECK (length(phone) BETWEEN 1 AND 20),
    ssn_last4        bytea,                          -- nonce || ciphertext; NULL: not given
    state            text NOT NULL CHECK (state IN
                         ('pending', 'verified', 'refused', 'review', 'resubmission_requested', 'unverified')),
    provider_session text,
    verification_url text,
    submitted_at     timestamptz NOT NULL DEFAULT now(),
    -- The decision in force: by whom (the provider, or an operator by hand), when the provider
    -- says it was made (an older delivery never overrides a newer decision), and why.
    decided_by       text,
    decided_at       timestamptz,
    reason           text,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX player_identities_in_review ON player_identities (submitted_at) WHERE state = 'review';
CREATE UNIQUE INDEX player_identities_by_session ON player_identities (provider_session);

-- The provider's webhook deliveries taken, by the event's id: a delivery that comes twice is
-- taken once.
CREATE TABLE identity_events (
    id          text PRIMARY KEY,
    session     text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
