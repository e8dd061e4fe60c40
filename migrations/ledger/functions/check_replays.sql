-- A batch's transfers sent again (`create_transfers`, rule 1, after `check_requests`): each the
-- same as the one the journal holds.
--
-- A replay is compared on what moves money (kind, accounts, amount, currency, hold, timeout),
-- not on its metadata: the metadata describes the money (`ledger_api::Purpose`), and a saga step
-- begun before an upgrade that describes it better is finished by sending its transfers again
-- under the same ids; the journal keeps the first description (issue 48 §2).
CREATE OR REPLACE FUNCTION check_replays(reqs transfer_request[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
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
