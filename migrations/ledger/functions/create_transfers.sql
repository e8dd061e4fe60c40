-- Applies a batch of transfers atomically (all or none) in one statement, so a single transfer
-- costs one round trip (ADR 0001). Each transfer's id is its idempotency key: a transfer that
-- already exists with the same money fields is returned as it is (`replayed`); with other money
-- fields it is refused (`check_requests`).
--
-- A transfer may carry a funds check (`p_check_accounts`, `p_check_amounts`, NULL where an item
-- has none): just before it in the batch, the named account's available balance is at least the
-- amount. A game that nets what a request stakes against what it pays back moves one transfer
-- and still refuses a wallet that could not have covered the stake (ADR 0010). A check is a
-- condition on applying a transfer, not part of it: it is not stored, and a replay is not
-- checked again.
--
-- The rules, each a function of its own called in this order, each raising its refusal
-- (`refuse`) and so undoing the whole batch:
-- 1. `check_requests` and `check_replays`: ids once per batch, holds that exist, replays that
--    match;
-- 2. `check_accounts`: accounts that exist, in the transfer's currency, a post within its hold;
-- 3. `wallet_moves` and `check_suspensions`: player protection's classification of each
--    wallet's part, and no stake from a wallet whose play is suspended (ADR 0014);
-- 4. `record_transfers`, `end_holds`: the journal and the holds;
-- 5. `post_balances`: the balances, and the funds checks on them;
-- 6. `check_limits` and `record_activity`: the money limits against the wallets' activity, then
--    the activity this batch adds (ADR 0014).
-- Checks a batch cannot fail are not called: every statement and every call costs its set-up on
-- every call (a called function some microseconds: ADR 0017), and most calls are one plain
-- transfer. Rules 1 and 2 run when the statement reading the requests' accounts finds something
-- for them to refuse (or the batch has more than one transfer, or ends a hold, or checks funds);
-- the suspension and limits only for a staking wallet that has one on record (issue 52).
CREATE OR REPLACE FUNCTION create_transfers(
    p_ids uuid[], p_debits uuid[], p_credits uuid[], p_amounts bigint[], p_currencies text[],
    p_kinds text[], p_pending_ids uuid[], p_timeouts integer[], p_metadata jsonb[], p_batch uuid,
    p_check_accounts uuid[] DEFAULT NULL, p_check_amounts bigint[] DEFAULT NULL
) RETURNS TABLE (
    idx integer, replayed boolean, seq bigint, id uuid, debit_account_id uuid, credit_account_id uuid,
    amount bigint, currency text, kind text, pending_id uuid, timeout_seconds integer,
    expires_at timestamptz, batch_id uuid, metadata jsonb, created_at timestamptz
) LANGUAGE plpgsql AS $$
DECLARE
    reqs transfer_request[];
    fresh transfer_request[];
    moves wallet_move[];
    has_holds boolean;       -- the batch ends a hold (post, void, expire)
    has_pending boolean;     -- the batch opens a hold
    replays boolean[];       -- by position: whether the journal holds the request already
    misaddressed boolean;    -- a new request whose accounts or hold `check_accounts` refuses
    guarded boolean;         -- a wallet staking in the batch has a limit or a suspension on record
BEGIN
    -- The requests, a post's or void's fields filled in from the hold it ends.
    SELECT array_agg(ROW(u.idx, u.id,
               coalesce(h.debit_account_id, u.debit), coalesce(h.credit_account_id, u.credit),
               CASE WHEN u.kind = 'post_pending' THEN coalesce(u.amount, h.amount)
                    WHEN u.kind IN ('void_pending', 'expire_pending') THEN h.amount
                    ELSE u.amount END,
               coalesce(h.currency, u.currency), u.kind, u.pending_id, u.timeout,
               coalesce(u.metadata, '{}'), h.amount,
               NULL, NULL, NULL, NULL, NULL, NULL, NULL)::transfer_request ORDER BY u.idx),
           bool_or(u.pending_id IS NOT NULL), bool_or(u.kind = 'pending')
      INTO reqs, has_holds, has_pending
      FROM unnest(p_ids, p_debits, p_credits, p_amounts, p_currencies, p_kinds, p_pending_ids,
                  p_timeouts, p_metadata) WITH ORDINALITY
               AS u(id, debit, credit, amount, currency, kind, pending_id, timeout, metadata, idx)
      LEFT JOIN transfers h ON h.id = u.pending_id AND h.kind = 'pending';

    -- The requests the journal does not hold yet (a replay is answered from the journal), with
    -- what the rules need to know of their accounts; and, in the same statement, whether rules 1
    -- and 2 have anything to find: most batches are one plain transfer, and then neither is
    -- called (each costs a call and a statement a stake).
    SELECT coalesce(array_agg(ROW(r.idx, r.id, r.debit_account_id, r.credit_account_id, r.amount, r.currency,
                                  r.kind, r.pending_id, r.timeout_seconds, r.metadata, r.hold_amount,
                                  da.currency, da.shards, da.no_negative, ca.currency, ca.shards,
                                  da.kind, ca.kind
                              )::transfer_request ORDER BY r.idx) FILTER (WHERE t.id IS NULL), '{}'),
           array_agg(t.id IS NOT NULL ORDER BY r.idx),
           coalesce(bool_or(t.id IS NULL AND (da.id IS NULL OR ca.id IS NULL OR da.id = ca.id
                                              OR da.currency <> r.currency OR ca.currency <> r.currency
                                              OR r.kind = 'post_pending')), false)
      INTO fresh, replays, misaddressed
      FROM unnest(reqs) r
      LEFT JOIN transfers t ON t.id = r.id
      LEFT JOIN accounts da ON da.id = r.debit_account_id
      LEFT JOIN accounts ca ON ca.id = r.credit_account_id;

    IF has_holds OR cardinality(reqs) > 1 THEN
        PERFORM check_requests(reqs, has_holds);
    END IF;
    IF true = ANY (replays) THEN
        PERFORM check_replays(reqs);
    END IF;

    IF cardinality(fresh) > 0 THEN
        IF misaddressed OR has_holds OR p_check_accounts IS NOT NULL THEN
            PERFORM check_accounts(fresh, p_check_accounts);
        END IF;
        moves := wallet_moves(fresh, p_check_accounts, p_check_amounts);
        -- Limits and suspensions are looked up only for a staking wallet that has any on record
        -- (most have none); a limit or suspension set after this point is ordered after the batch.
        guarded := cardinality(moves) > 0
                   AND EXISTS (SELECT 1 FROM unnest(moves) m
                                WHERE m.staked > 0
                                  AND (EXISTS (SELECT 1 FROM wallet_limits l WHERE l.account_id = m.wallet)
                                       OR EXISTS (SELECT 1 FROM wallet_suspensions p WHERE p.account_id = m.wallet)));
        IF guarded THEN
            PERFORM check_suspensions(moves);
        END IF;
        PERFORM record_transfers(fresh, p_batch, has_pending);
        IF has_holds THEN
            PERFORM end_holds(fresh);
        END IF;
        PERFORM post_balances(fresh, p_check_accounts, p_check_amounts);
        IF guarded THEN
            PERFORM check_limits(moves);
        END IF;
        IF cardinality(moves) > 0 THEN
            PERFORM record_activity(moves);
        END IF;
    END IF;

    RETURN QUERY
    SELECT r.idx, replays[r.idx], t.seq, t.id, t.debit_account_id,
           t.credit_account_id, t.amount, t.currency, t.kind, t.pending_id, t.timeout_seconds, t.expires_at,
           t.batch_id, t.metadata, t.created_at
      FROM unnest(reqs) r JOIN transfers t ON t.id = r.id
     ORDER BY r.idx;
END $$
-- Generic plans: the statements (and those of the functions it calls, which run under these
-- settings) are planned once per connection, not at every call. Every lookup is by key, so scans
-- and hash/merge joins are off: a table that looks small when a plan is made must not become a
-- full scan of a large one, and the balance update must walk its sorted input in order.
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off;
