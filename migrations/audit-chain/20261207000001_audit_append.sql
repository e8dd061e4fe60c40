-- The audit chain appended in one call (ADR 0010, session 16): what `platform::audit::append_all`
-- did in three round trips (take the chain's lock, read its head, insert the records) done by
-- the database in one, so a group-committed write can chain its records in the same statement
-- that makes them. The chain is unchanged: `hash = sha256(prev_hash || record)`, the record's
-- UTF-8 bytes, the first `prev_hash` 32 zero bytes; appends are serialised by the same
-- transaction-level advisory lock, and the head is read after the lock is held (each statement
-- of a PL/pgSQL function reads with a snapshot of its own), so two appenders never fork it.
-- Answers each new record's hash, in order; no records, nothing locked or written.
-- The same function is created in each schema that keeps a chain (draws, instant, tables): each
-- service owns its schema and migrates it alone.
CREATE FUNCTION audit_append(p_kinds text[], p_subjects uuid[], p_records text[])
RETURNS bytea[] LANGUAGE plpgsql AS $$
DECLARE
    head_seq bigint;
    prev bytea;
    hashes bytea[] := '{}';
    prevs bytea[] := '{}';
    n integer := coalesce(cardinality(p_records), 0);
BEGIN
    IF n = 0 THEN
        RETURN hashes;
    END IF;
    IF cardinality(p_kinds) <> n OR cardinality(p_subjects) <> n THEN
        RAISE EXCEPTION 'audit_append: % kinds and % subjects for % records',
            cardinality(p_kinds), cardinality(p_subjects), n;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext(current_schema() || '.audit_log'));
    SELECT a.seq, a.hash INTO head_seq, prev FROM audit_log a ORDER BY a.seq DESC LIMIT 1;
    IF NOT FOUND THEN
        head_seq := 0;
        prev := decode(repeat('00', 32), 'hex');
    END IF;
    FOR i IN 1 .. n LOOP
        prevs := prevs || prev;
        prev := sha256(prev || convert_to(p_records[i], 'UTF8'));
        hashes := hashes || prev;
    END LOOP;
    INSERT INTO audit_log (seq, kind, subject, record, prev_hash, hash)
    SELECT head_seq + r.n, p_kinds[r.n], p_subjects[r.n], p_records[r.n], prevs[r.n], hashes[r.n]
      FROM generate_series(1, n) AS r(n);
    RETURN hashes;
END $$;
