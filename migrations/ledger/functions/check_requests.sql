-- A batch's requests as asked (`create_transfers`, rule 1): each id once and each hold it ends a
-- hold that exists (then `check_replays`).
CREATE OR REPLACE FUNCTION check_requests(reqs transfer_request[], has_holds boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    -- A batch of one cannot repeat an id.
    IF cardinality(reqs) > 1 THEN
        SELECT r.idx, r.id INTO bad FROM unnest(reqs) r
         WHERE r.id IN (SELECT x.id FROM unnest(reqs) x GROUP BY x.id HAVING count(*) > 1) ORDER BY r.idx LIMIT 1;
        IF FOUND THEN
            PERFORM refuse('duplicate_transfer_id', format('transfer id %s appears more than once in the batch', bad.id),
                           jsonb_build_object('index', bad.idx - 1, 'id', bad.id));
        END IF;
    END IF;

    IF has_holds THEN
        SELECT r.idx, r.pending_id INTO bad FROM unnest(reqs) r
         WHERE r.pending_id IS NOT NULL AND r.hold_amount IS NULL ORDER BY r.idx LIMIT 1;
        IF FOUND THEN
            PERFORM refuse('hold_not_found', format('no pending transfer %s', bad.pending_id),
                           jsonb_build_object('index', bad.idx - 1, 'pending_id', bad.pending_id));
        END IF;
    END IF;
END $$;
