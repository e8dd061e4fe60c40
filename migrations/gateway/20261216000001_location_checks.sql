-- Location checks (issue 49 §Location; the US iLottery and iGaming geolocation rules): an online
-- stake needs, in the login it is made in, a check by the geolocation provider that placed the
-- device in the jurisdiction, taken from the address the login's requests now come from and not
-- older than LOTTO_LOCATION_MAX_AGE_S. Every check is kept with its result.
CREATE TABLE location_checks (
    id           uuid PRIMARY KEY,
    session_id   uuid NOT NULL,
    player_id    uuid NOT NULL REFERENCES players (id),
    ip           text CHECK (length(ip) <= 45),      -- NULL: the address was not known
    result       text NOT NULL CHECK (result IN ('inside', 'outside', 'blocked')),
    jurisdiction text NOT NULL CHECK (length(jurisdiction) BETWEEN 1 AND 20),
    reason       text NOT NULL CHECK (length(reason) <= 500),
    provider_ref text NOT NULL CHECK (length(provider_ref) <= 200),
    checked_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX location_checks_by_session ON location_checks (session_id, checked_at DESC);
CREATE INDEX location_checks_by_player ON location_checks (player_id, checked_at DESC);
