-- A craps request is found by its session and Idempotency-Key through one index whose key is
-- the pair as one value, so no plan can take the primary key (session_id, seq) for it instead.
-- With both indexes leading on `session_id`, a plan made while `craps_rolls` was empty (a fresh
-- database: plans are kept per connection) checked a claim's key by walking every roll of the
-- session along the primary key: a claim cost more with every roll of its session (ADR 0010,
-- session 14). The uuid's text has no '/', so the value is unique exactly when the pair is.
CREATE UNIQUE INDEX craps_rolls_by_request ON craps_rolls ((session_id::text || '/' || key));
ALTER TABLE craps_rolls DROP CONSTRAINT craps_rolls_session_id_key_key;
