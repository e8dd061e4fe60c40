-- The accounts of a batch's new transfers (`create_transfers`, rule 2): both exist and differ,
-- both are in the transfer's currency, a post takes no more than its hold, a hold is ended once;
-- and every account a funds check names exists (refused as a transfer to it would be).
CREATE OR REPLACE FUNCTION check_accounts(fresh transfer_request[], p_check_accounts uuid[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
    SELECT * INTO bad FROM unnest(fresh) r
     WHERE r.debit_currency IS NULL OR r.credit_currency IS NULL OR r.debit_account_id = r.credit_account_id
        OR r.debit_currency <> r.currency OR r.credit_currency <> r.currency
        OR (r.kind = 'post_pending' AND r.amount > r.hold_amount)
        OR (r.pending_id IS NOT NULL AND EXISTS (SELECT 1 FROM transfers t WHERE t.pending_id = r.pending_id))
     ORDER BY r.idx LIMIT 1;
    IF FOUND THEN
        IF bad.debit_currency IS NULL OR bad.credit_currency IS NULL THEN
            PERFORM refuse('account_not_found',
                           format('account %s does not exist',
                                  CASE WHEN bad.debit_currency IS NULL THEN bad.debit_account_id ELSE bad.credit_account_id END),
                           jsonb_build_object('index', bad.idx - 1, 'account_id',
                                  CASE WHEN bad.debit_currency IS NULL THEN bad.debit_account_id ELSE bad.credit_account_id END));
        ELSIF bad.debit_account_id = bad.credit_account_id THEN
            PERFORM refuse('same_account', 'debit and credit accounts must differ',
                           jsonb_build_object('index', bad.idx - 1));
        ELSIF bad.debit_currency <> bad.currency OR bad.credit_currency <> bad.currency THEN
            PERFORM refuse('currency_mismatch',
                           format('transfer is in %s but the accounts are in %s and %s',
                                  bad.currency, bad.debit_currency, bad.credit_currency),
                           jsonb_build_object('index', bad.idx - 1));
        ELSIF bad.kind = 'post_pending' AND bad.amount > bad.hold_amount THEN
            PERFORM refuse('amount_exceeds_hold',
                           format('cannot post %s from a hold of %s', bad.amount, bad.hold_amount),
                           jsonb_build_object('index', bad.idx - 1));
        ELSE
            PERFORM refuse('hold_already_ended', format('hold %s was already posted, voided or expired', bad.pending_id),
                           jsonb_build_object('index', bad.idx - 1, 'pending_id', bad.pending_id));
        END IF;
    END IF;

    IF p_check_accounts IS NOT NULL THEN
        SELECT c.idx, c.account_id INTO bad
          FROM unnest(p_check_accounts) WITH ORDINALITY AS c(account_id, idx)
         WHERE c.account_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.account_id)
         ORDER BY c.idx LIMIT 1;
        IF FOUND THEN
            PERFORM refuse('account_not_found', format('account %s does not exist', bad.account_id),
                           jsonb_build_object('index', bad.idx - 1, 'account_id', bad.account_id));
        END IF;
    END IF;
END $$;
