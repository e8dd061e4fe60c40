-- A batch's requests as asked (`create_transfers`, rule 1): each id once, each hold it ends a
-- hold that exists, and a transfer sent again the same as the one the journal holds.
--
-- A replay is compared on what moves money (kind, accounts, amount, currency, hold, timeout),
-- not on its metadata: the metadata describes the money (`ledger_api::Purpose`), and a saga step
-- begun before an upgrade that describes it better is finished by sending its transfers again
-- under the same ids; the journal keeps the first description (issue 48 §2).
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

    SELECT r.idx, r.id INTO bad FROM unnest(reqs) r JOIN transfers t ON t.id = r.id
     WHERE (t.kind, t.debit_account_id, t.credit_account_id, t.amount, t.currency)
           IS DISTINCT FROM (r.kind, r.debit_account_id, r.credit_account_id, r.amount, r.currency)
        OR t.pending_id IS DISTINCT FROM r.pending_id
        OR t.timeout_seconds IS DISTINCT FROM r.timeout_seconds
     ORDER BY r.idx LIMIT 1;
    IF FOUND THEN
        PERFORM refuse('idempotency_conflict',
                       format('transfer %s already exists with different fields', bad.id),
                       jsonb_build_object('index', bad.idx - 1, 'id', bad.id));
    END IF;
END $$;
