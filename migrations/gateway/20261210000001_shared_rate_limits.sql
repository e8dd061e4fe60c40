-- Rate limits shared by every gateway replica (issue 34, ADR 0013 §5): one token bucket per key
-- (a client address or an identity) that each replica draws from in small allowances, so N
-- replicas admit the configured rate, not N times it.
--
-- UNLOGGED: a bucket is not worth a write-ahead log record, nor a wait for the synchronous
-- standby on every draw; after a crash or a failover the buckets start full again (a burst's
-- worth of leniency, once), which is the price of limits that cost no durable write.
CREATE UNLOGGED TABLE rate_buckets (
    key     text PRIMARY KEY,
    tokens  double precision NOT NULL,
    updated timestamptz NOT NULL
);

-- Draws up to `want` whole tokens from `key`'s bucket (refilled at `rate` per second up to
-- `burst` since it was last drawn from), after putting back `returned` tokens a replica drew and
-- did not use; says how many it granted and what the bucket holds after.
CREATE FUNCTION take_tokens(key text, rate double precision, burst double precision, want integer, returned integer,
                            OUT granted integer, OUT tokens_left double precision)
LANGUAGE plpgsql AS $$
DECLARE
    at timestamptz := clock_timestamp();
    held double precision;
BEGIN
    INSERT INTO rate_buckets AS b (key, tokens, updated) VALUES (take_tokens.key, take_tokens.burst, at)
        ON CONFLICT ON CONSTRAINT rate_buckets_pkey DO NOTHING;
    SELECT least(take_tokens.burst, b.tokens + take_tokens.returned
                 + greatest(extract(epoch FROM at - b.updated), 0) * take_tokens.rate)
      INTO held FROM rate_buckets b WHERE b.key = take_tokens.key FOR UPDATE;
    granted := least(take_tokens.want, floor(held))::integer;
    tokens_left := held - granted;
    UPDATE rate_buckets b SET tokens = tokens_left, updated = at WHERE b.key = take_tokens.key;
    -- A bucket idle past its refill is full: its row says nothing and goes, now and then.
    IF random() < 0.001 THEN
        DELETE FROM rate_buckets b WHERE b.updated < at - interval '1 hour';
    END IF;
END
$$;
