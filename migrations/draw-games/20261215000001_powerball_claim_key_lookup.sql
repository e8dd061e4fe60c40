-- A claim found by the request that made it (the terminal and its Idempotency-Key), before the
-- ticket is judged: copies of one request are answered its receipt, and the key sent with
-- another ticket is a conflict (issue 47 §4).
CREATE INDEX pb_claims_by_request_key ON pb_claims (request_key) WHERE request_key IS NOT NULL;
