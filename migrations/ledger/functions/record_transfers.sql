-- A batch's new transfers into the journal, and the holds it opens (`create_transfers`, rule 4).
-- Inserting before the balances makes a concurrent request with the same id (or ending the same
-- hold) wait here for the first to commit and then fail on a unique index; the service runs it
-- again and gets the replay.
CREATE OR REPLACE FUNCTION record_transfers(fresh transfer_request[], p_batch uuid, has_pending boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO transfers (id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                           timeout_seconds, expires_at, batch_id, metadata)
    SELECT r.id, r.debit_account_id, r.credit_account_id, r.amount, r.currency, r.kind, r.pending_id,
           r.timeout_seconds,
           CASE WHEN r.kind = 'pending' THEN now() + make_interval(secs => r.timeout_seconds) END,
           p_batch, r.metadata
      FROM unnest(fresh) r ORDER BY r.idx;

    IF has_pending THEN
        INSERT INTO open_holds (transfer_id, expires_at)
        SELECT r.id, now() + make_interval(secs => r.timeout_seconds) FROM unnest(fresh) r WHERE r.kind = 'pending';
    END IF;
END $$;
