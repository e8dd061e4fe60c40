-- A claim remembers the request that made it (the terminal and its Idempotency-Key), so a till
-- that lost the answer and sends the claim again is answered the same receipt (issue 32 §5).
ALTER TABLE pb_claims ADD COLUMN request_key text;
