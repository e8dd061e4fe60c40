-- The posting and the funds checks (`create_transfers`, rule 5): each transfer's debit and credit
-- legs summed per balance row and applied, and every account that may not go negative checked on
-- the balances the update returns.
--
-- Hot accounts: an account has `shards` balance rows. A credit, and a debit of an account that
-- may go negative, touch one row chosen by the transfer id, so concurrent wagers crediting the
-- house lock different rows. Only a debit of a "may not go negative" account touches all of its
-- rows, because only it needs the exact balance; so does an account named by a funds check,
-- whose leg moves nothing and sits just before its transfer's legs (`sub` 0) with the low point
-- it requires (`need`). Rows are updated (and so locked) in (account, shard) order, so two
-- batches never deadlock on balances.
--
-- Funds are checked in order (ADR 0001, decision 5 as revised): a debit is covered by what the
-- account held before it and the credits ahead of it in the batch, never by a credit after it.
CREATE OR REPLACE FUNCTION post_balances(fresh transfer_request[], p_check_accounts uuid[], p_check_amounts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    deltas balance_delta[];
    bad record;
    one transfer_request;
    debit balance_delta;
    credit balance_delta;
BEGIN
    IF cardinality(fresh) = 1 THEN
        one := fresh[1];
    END IF;
    -- (A funds check is found by the transfer's place in the request, replays counted.)
    IF one.kind = 'posted' AND p_check_accounts[one.idx] IS NULL
       AND NOT (one.debit_no_negative AND one.debit_shards > 1) THEN
        -- One plain transfer, the most common call: its two rows as the statement below would
        -- place them (a single leg dips nowhere below its own result), without that statement's
        -- running sums (this function's time a stake, 32 clients: 0.63-0.73 ms before, 0.41 after;
        -- issue 52).
        debit := ROW(one.debit_account_id,
                     CASE WHEN one.debit_shards = 1 THEN 0 ELSE abs(hashtext(one.id::text)::bigint) % one.debit_shards END,
                     one.amount, 0, 0, 0, one.debit_no_negative, 0);
        credit := ROW(one.credit_account_id,
                      CASE WHEN one.credit_shards = 1 THEN 0 ELSE abs(hashtext(one.id::text)::bigint) % one.credit_shards END,
                      0, one.amount, 0, 0, false, 0);
        deltas := CASE WHEN one.debit_account_id < one.credit_account_id THEN ARRAY[debit, credit]
                       ELSE ARRAY[credit, debit] END;
    ELSE
        WITH legs AS (
            SELECT r.idx, r.id AS tid, r.debit_account_id AS account_id, r.debit_shards AS shards,
                   CASE WHEN r.kind IN ('posted', 'post_pending') THEN r.amount ELSE 0 END AS d_posted,
                   0::bigint AS c_posted,
                   CASE WHEN r.kind = 'pending' THEN r.amount
                        WHEN r.pending_id IS NOT NULL THEN -r.hold_amount ELSE 0 END AS d_pending,
                   0::bigint AS c_pending,
                   r.debit_no_negative AND r.kind IN ('posted', 'pending', 'post_pending') AS checked,
                   0::bigint AS need, 1 AS sub
              FROM unnest(fresh) r
            UNION ALL
            SELECT r.idx, r.id, r.credit_account_id, r.credit_shards, 0,
                   CASE WHEN r.kind IN ('posted', 'post_pending') THEN r.amount ELSE 0 END,
                   0,
                   CASE WHEN r.kind = 'pending' THEN r.amount
                        WHEN r.pending_id IS NOT NULL THEN -r.hold_amount ELSE 0 END,
                   false, 0, 1
              FROM unnest(fresh) r
            UNION ALL
            SELECT c.idx::integer, NULL::uuid, c.account_id, a.shards, 0, 0, 0, 0, true, c.need, 0
              FROM unnest(p_check_accounts, p_check_amounts) WITH ORDINALITY AS c(account_id, need, idx)
              JOIN accounts a ON a.id = c.account_id
             WHERE c.account_id IS NOT NULL AND c.idx IN (SELECT f.idx FROM unnest(fresh) f)
        ), runs AS (
            -- Each leg's running effect on its account's available balance, in batch order (a
            -- transfer never debits and credits one account).
            SELECT l.*,
                   sum(l.c_posted - l.d_posted - l.d_pending) OVER (PARTITION BY l.account_id ORDER BY l.idx, l.sub) AS running,
                   sum(l.c_posted - l.d_posted - l.d_pending) OVER (PARTITION BY l.account_id) AS net
              FROM legs l
        ), dipped AS (
            -- How far below its final balance the account goes at its lowest point in the batch (a
            -- funds check's point is `need` below the balance just before its transfer).
            SELECT r.*, (max(r.net) OVER w - least(0, min(r.running - r.need) OVER w))::bigint AS dip
              FROM runs r WINDOW w AS (PARTITION BY r.account_id)
        ), placed AS (
            SELECT l.account_id,
                   CASE WHEN l.shards = 1 OR l.tid IS NULL THEN 0 ELSE abs(hashtext(l.tid::text)::bigint) % l.shards END::smallint AS shard,
                   l.d_posted, l.c_posted, l.d_pending, l.c_pending, l.checked, l.dip
              FROM dipped l
            UNION ALL
            SELECT c.account_id, s.shard::smallint, 0, 0, 0, 0, true, 0
              FROM (SELECT DISTINCT l.account_id, l.shards FROM legs l WHERE l.checked AND l.shards > 1) c,
                   generate_series(0, c.shards - 1) AS s(shard)
        )
        SELECT array_agg(ROW(g.account_id, g.shard, g.d_posted, g.c_posted, g.d_pending, g.c_pending, g.checked, g.dip)::balance_delta
                         ORDER BY g.account_id, g.shard)
          INTO deltas
          FROM (SELECT p.account_id, p.shard, sum(p.d_posted)::bigint AS d_posted, sum(p.c_posted)::bigint AS c_posted,
                       sum(p.d_pending)::bigint AS d_pending, sum(p.c_pending)::bigint AS c_pending,
                       bool_or(p.checked) AS checked, max(p.dip) AS dip
                  FROM placed p GROUP BY p.account_id, p.shard) g;
    END IF;

    -- The update walks the sorted deltas in a nested loop (hash and merge joins are off under
    -- `create_transfers`' settings), so rows are locked in key order; RETURNING gives the new
    -- balances to check.
    WITH updated AS (
        UPDATE balances b
           SET debits_posted = b.debits_posted + d.d_posted, credits_posted = b.credits_posted + d.c_posted,
               debits_pending = b.debits_pending + d.d_pending, credits_pending = b.credits_pending + d.c_pending
          FROM unnest(deltas) d
         WHERE b.account_id = d.account_id AND b.shard = d.shard
        RETURNING b.account_id, d.checked, d.dip, b.credits_posted - b.debits_posted - b.debits_pending AS available
    )
    SELECT u.account_id, sum(u.available) - max(u.dip) AS available INTO bad
      FROM updated u
     WHERE u.checked
     GROUP BY u.account_id
    HAVING sum(u.available) - max(u.dip) < 0
     LIMIT 1;
    IF FOUND THEN
        PERFORM refuse('insufficient_funds',
                       format('account %s would be left %s short', bad.account_id, -bad.available),
                       jsonb_build_object('account_id', bad.account_id,
                           'index', least((SELECT min(r.idx) - 1 FROM unnest(fresh) r
                                            WHERE r.debit_account_id = bad.account_id),
                                          (SELECT min(c.idx) - 1
                                             FROM unnest(p_check_accounts) WITH ORDINALITY AS c(account_id, idx)
                                            WHERE c.account_id = bad.account_id))));
    END IF;
END $$;
