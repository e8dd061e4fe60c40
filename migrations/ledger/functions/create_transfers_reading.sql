-- A batch and the balances it is asked for in one call (ADR 0010, session 16): a game that
-- reads a wallet's balance just after its round's transfers (what the round record and the
-- player's answer show) read it with a second statement, a round trip of its own, after the
-- batch. The batch's rows come first, exactly as `create_transfers` answers them, then one row
-- with no transfer (`idx` NULL) whose `balances` are the posted balances of `p_balances_of`, in
-- their order, read just after the batch in the same transaction (a statement of a PL/pgSQL
-- function sees the writes of the ones before it).
CREATE OR REPLACE FUNCTION create_transfers_reading(
    p_ids uuid[], p_debits uuid[], p_credits uuid[], p_amounts bigint[], p_currencies text[],
    p_kinds text[], p_pending_ids uuid[], p_timeouts integer[], p_metadata jsonb[], p_batch uuid,
    p_check_accounts uuid[], p_check_amounts bigint[], p_balances_of uuid[]
) RETURNS TABLE (
    idx integer, replayed boolean, seq bigint, id uuid, debit_account_id uuid, credit_account_id uuid,
    amount bigint, currency text, kind text, pending_id uuid, timeout_seconds integer,
    expires_at timestamptz, batch_id uuid, metadata jsonb, created_at timestamptz, balances bigint[]
) LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
        SELECT t.*, NULL::bigint[]
          FROM create_transfers(p_ids, p_debits, p_credits, p_amounts, p_currencies, p_kinds,
                                p_pending_ids, p_timeouts, p_metadata, p_batch, p_check_accounts,
                                p_check_amounts) AS t;
    RETURN QUERY
        SELECT NULL::integer, NULL::boolean, NULL::bigint, NULL::uuid, NULL::uuid, NULL::uuid,
               NULL::bigint, NULL::text, NULL::text, NULL::uuid, NULL::integer, NULL::timestamptz,
               NULL::uuid, NULL::jsonb, NULL::timestamptz,
               ARRAY(SELECT coalesce((SELECT sum(b.credits_posted - b.debits_posted)
                                        FROM balances b WHERE b.account_id = u.account), 0)::bigint
                       FROM unnest(p_balances_of) WITH ORDINALITY AS u(account, n)
                      ORDER BY u.n);
END $$;
