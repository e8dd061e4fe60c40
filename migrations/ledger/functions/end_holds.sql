-- Ends each hold a batch posts, voids or expires, once (`create_transfers`, rule 4): its
-- `open_holds` row locked (in key order), checked (not expired unless expiring it, expired if so,
-- not ended twice in the batch) and deleted.
CREATE OR REPLACE FUNCTION end_holds(fresh transfer_request[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    PERFORM 1 FROM open_holds o
     WHERE o.transfer_id IN (SELECT r.pending_id FROM unnest(fresh) r WHERE r.pending_id IS NOT NULL)
     ORDER BY o.transfer_id FOR UPDATE;
    SELECT r.idx, r.pending_id, r.kind, o.transfer_id AS open, o.expires_at INTO bad
      FROM unnest(fresh) r LEFT JOIN open_holds o ON o.transfer_id = r.pending_id
     WHERE r.pending_id IS NOT NULL
       AND (o.transfer_id IS NULL
            OR (r.kind = 'expire_pending') <> (o.expires_at <= now())
            OR r.pending_id IN (SELECT x.pending_id FROM unnest(fresh) x GROUP BY 1 HAVING count(*) > 1))
     ORDER BY r.idx LIMIT 1;
    IF FOUND THEN
        IF bad.open IS NOT NULL AND bad.kind <> 'expire_pending' AND bad.expires_at <= now() THEN
            PERFORM refuse('hold_expired', format('hold %s expired at %s', bad.pending_id, bad.expires_at),
                           jsonb_build_object('index', bad.idx - 1, 'pending_id', bad.pending_id));
        ELSIF bad.open IS NOT NULL AND bad.kind = 'expire_pending' AND bad.expires_at > now() THEN
            PERFORM refuse('hold_not_expired', format('hold %s expires at %s', bad.pending_id, bad.expires_at),
                           jsonb_build_object('index', bad.idx - 1, 'pending_id', bad.pending_id));
        END IF;
        PERFORM refuse('hold_already_ended', format('hold %s was already posted, voided or expired', bad.pending_id),
                       jsonb_build_object('index', bad.idx - 1, 'pending_id', bad.pending_id));
    END IF;
    DELETE FROM open_holds o WHERE o.transfer_id IN (SELECT r.pending_id FROM unnest(fresh) r);
END $$;
