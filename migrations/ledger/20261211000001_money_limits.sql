-- Player protection's money (ADR 0014, issue 35): what each wallet stakes in games and wins
-- back, deposits and withdraws, kept per hour and game by the statement that moves it; and the
-- loss, wager and single-stake limits its stakes may not cross, checked in that statement.
--
-- Why here: twenty plays at once against a $10 loss limit must take exactly what it allows. A
-- check before the ledger call (in the gateway or a game) sees the total before the others'
-- stakes; here every batch that moves a wallet has locked that wallet's balance row (the
-- ordered balance update) before it counts, so the stakes of one wallet are counted one after
-- the other, and a stake that would cross a limit is refused whole with the rest of its batch.
--
-- What counts (classified by the accounts, not by the caller):
-- - staked: a transfer from a player's wallet to a game's account (escrow, house revenue, a
--   progressive pot, prize liability); won: one the other way (a prize, a push returned, a bet
--   taken down, a refund of a voided ticket: each nets a stake out of the loss). A transfer that
--   nets a request's stake against what it pays back carries the gross stake as its funds check
--   on the wallet (craps, `Legs::WalletNet`): staked is that stake, won the stake plus the net.
-- - deposited and withdrawn: a transfer between a wallet and cash clearing (a hold counts when
--   it is posted).
-- Windows roll: the last 24 hours, 7 days or 30 days, by the hour (a stake counts until the end
-- of the hour 24 hours after the hour it was made in: never less than the window, at most an
-- hour more). Loss is stakes less wins in the window; a batch's own wins do not make room for
-- its stakes (a stake is judged before its outcome is known to the player).
CREATE TABLE wallet_activity (
    account_id uuid NOT NULL,
    hour timestamptz NOT NULL,
    game text NOT NULL,           -- the transfer's `game` metadata ('' for cash)
    staked bigint NOT NULL DEFAULT 0,
    won bigint NOT NULL DEFAULT 0,
    deposited bigint NOT NULL DEFAULT 0,
    withdrawn bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, hour, game)
);

-- A wallet's money limits as set, each from when it applies: a lowered limit applies at once, a
-- raise or removal (`cents` NULL) from a later `effective_at` (the caller's delay, 24 hours for a
-- player). The limit in force for a kind, period and source is its latest row already in effect;
-- the lowest of the player's and the operator's binds.
CREATE TABLE wallet_limits (
    account_id uuid NOT NULL REFERENCES accounts (id),
    kind text NOT NULL CHECK (kind IN ('loss', 'wager', 'single_stake')),
    period text NOT NULL CHECK (period IN ('daily', 'weekly', 'monthly', 'each')),
    source text NOT NULL CHECK (source IN ('player', 'operator')),
    cents bigint CHECK (cents >= 0),
    effective_at timestamptz NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'single_stake') = (period = 'each')),
    PRIMARY KEY (account_id, kind, period, source, effective_at)
);

-- A wallet whose player is on a break, excluded or has closed the account (ADR 0014 §4): no
-- stake is taken from it until `until` (NULL: until lifted), whatever the game and however many
-- requests are in flight; prizes, refunds and withdrawals still move. The gateway sets it (and
-- keeps the rules: an exclusion is never shortened).
CREATE TABLE wallet_suspensions (
    account_id uuid PRIMARY KEY REFERENCES accounts (id),
    until timestamptz,
    reason text NOT NULL CHECK (reason IN ('time_out', 'self_exclusion', 'closure', 'exclusion_list')),
    set_at timestamptz NOT NULL DEFAULT now()
);

-- How far back a limit's period reaches.
CREATE FUNCTION limit_window(p_period text) RETURNS interval IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE p_period WHEN 'daily' THEN interval '24 hours' WHEN 'weekly' THEN interval '7 days'
                         WHEN 'monthly' THEN interval '30 days' ELSE interval '0' END
$$;

-- The limits in force on a wallet now, one per kind, period and source (none where removed).
CREATE FUNCTION limits_in_force(p_account uuid)
RETURNS TABLE (kind text, period text, source text, cents bigint) STABLE LANGUAGE sql AS $$
    SELECT f.kind, f.period, f.source, f.cents
      FROM (SELECT DISTINCT ON (l.kind, l.period, l.source) l.kind, l.period, l.source, l.cents
              FROM wallet_limits l WHERE l.account_id = p_account AND l.effective_at <= now()
             ORDER BY l.kind, l.period, l.source, l.effective_at DESC) f
     WHERE f.cents IS NOT NULL
$$;

-- One wallet's part in a transfer: what it counts as.
CREATE TYPE wallet_move AS (
    idx integer, wallet uuid, game text, staked bigint, won bigint, deposited bigint, withdrawn bigint
);

-- The accounts' kinds, which classify a transfer.
ALTER TYPE transfer_request ADD ATTRIBUTE debit_kind text, ADD ATTRIBUTE credit_kind text;

-- What wallets did before this migration, read from the journal (a craps request netted into one
-- transfer counts its net there: the gross stake was a check, not stored).
INSERT INTO wallet_activity (account_id, hour, game, staked, won, deposited, withdrawn)
SELECT m.wallet, date_trunc('hour', m.created_at), m.game,
       sum(CASE WHEN m.cash THEN 0 ELSE greatest(-m.net, 0) END),
       sum(CASE WHEN m.cash THEN 0 ELSE greatest(m.net, 0) END),
       sum(CASE WHEN m.cash THEN greatest(m.net, 0) ELSE 0 END),
       sum(CASE WHEN m.cash THEN greatest(-m.net, 0) ELSE 0 END)
  FROM (SELECT t.created_at,
               CASE WHEN da.kind = 'player_wallet' THEN t.debit_account_id ELSE t.credit_account_id END AS wallet,
               'cash_clearing' IN (da.kind, ca.kind) AS cash,
               CASE WHEN 'cash_clearing' IN (da.kind, ca.kind) THEN '' ELSE coalesce(t.metadata ->> 'game', '') END AS game,
               CASE WHEN da.kind = 'player_wallet' THEN -t.amount ELSE t.amount END AS net
          FROM transfers t
          JOIN accounts da ON da.id = t.debit_account_id
          JOIN accounts ca ON ca.id = t.credit_account_id
         WHERE t.kind IN ('posted', 'post_pending')
           AND (da.kind = 'player_wallet') <> (ca.kind = 'player_wallet')
           AND (CASE WHEN da.kind = 'player_wallet' THEN ca.kind ELSE da.kind END)
               IN ('game_escrow', 'house_revenue', 'progressive_pot', 'prize_liability', 'cash_clearing')) m
 GROUP BY 1, 2, 3;

-- `create_transfers` as in `20261206000001_funds_checks.sql`, with the accounts' kinds in its
-- requests and the wallets' activity and limits after the balances are updated.
DROP FUNCTION create_transfers(uuid[], uuid[], uuid[], bigint[], text[], text[], uuid[], integer[], jsonb[], uuid, uuid[], bigint[]);

CREATE FUNCTION create_transfers(
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
    moves wallet_move[];
    fresh transfer_request[];
    deltas balance_delta[];
    bad record;
    has_holds boolean;       -- the batch ends a hold (post, void, expire)
    has_pending boolean;     -- the batch opens a hold
BEGIN
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

    -- Checks a batch of one plain transfer cannot fail are skipped: every statement here costs
    -- its executor set-up on every call, and most calls are one plain transfer.
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

    -- Replays: the same id with the same fields is the same transfer; anything else is a conflict.
    SELECT r.idx, r.id INTO bad FROM unnest(reqs) r JOIN transfers t ON t.id = r.id
     WHERE (t.kind, t.debit_account_id, t.credit_account_id, t.amount, t.currency, t.metadata)
           IS DISTINCT FROM (r.kind, r.debit_account_id, r.credit_account_id, r.amount, r.currency, r.metadata)
        OR t.pending_id IS DISTINCT FROM r.pending_id
        OR t.timeout_seconds IS DISTINCT FROM r.timeout_seconds
     ORDER BY r.idx LIMIT 1;
    IF FOUND THEN
        PERFORM refuse('idempotency_conflict',
                       format('transfer %s already exists with different fields', bad.id),
                       jsonb_build_object('index', bad.idx - 1, 'id', bad.id));
    END IF;

    -- The transfers to apply now, with what the rules need to know of their accounts.
    SELECT coalesce(array_agg(ROW(r.idx, r.id, r.debit_account_id, r.credit_account_id, r.amount, r.currency,
                                  r.kind, r.pending_id, r.timeout_seconds, r.metadata, r.hold_amount,
                                  da.currency, da.shards, da.no_negative, ca.currency, ca.shards,
                                  da.kind, ca.kind
                              )::transfer_request ORDER BY r.idx), '{}')
      INTO fresh
      FROM unnest(reqs) r
      LEFT JOIN accounts da ON da.id = r.debit_account_id
      LEFT JOIN accounts ca ON ca.id = r.credit_account_id
     WHERE NOT EXISTS (SELECT 1 FROM transfers t WHERE t.id = r.id);

    IF cardinality(fresh) = 0 THEN
        RETURN QUERY
        SELECT r.idx, true, t.seq, t.id, t.debit_account_id, t.credit_account_id, t.amount, t.currency, t.kind,
               t.pending_id, t.timeout_seconds, t.expires_at, t.batch_id, t.metadata, t.created_at
          FROM unnest(reqs) r JOIN transfers t ON t.id = r.id
         ORDER BY r.idx;
        RETURN;
    END IF;

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

    -- A check on an account that does not exist is refused as a transfer to one would be.
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

    -- Player protection (see the top of this file): each wallet's part in the batch's transfers
    -- with games and cash. A wallet whose play is suspended stakes nothing, whatever it holds.
    SELECT coalesce(array_agg(ROW(m.idx, m.wallet, m.game,
                   CASE WHEN m.cash THEN 0 ELSE greatest(coalesce(c.need, 0), -m.net, 0) END,
                   CASE WHEN m.cash THEN 0 ELSE greatest(coalesce(c.need, 0), -m.net, 0) + m.net END,
                   CASE WHEN m.cash THEN greatest(m.net, 0) ELSE 0 END,
                   CASE WHEN m.cash THEN greatest(-m.net, 0) ELSE 0 END)::wallet_move ORDER BY m.idx), '{}')
      INTO moves
      FROM (SELECT r.idx,
                   CASE WHEN r.debit_kind = 'player_wallet' THEN r.debit_account_id ELSE r.credit_account_id END AS wallet,
                   'cash_clearing' IN (r.debit_kind, r.credit_kind) AS cash,
                   CASE WHEN 'cash_clearing' IN (r.debit_kind, r.credit_kind) THEN ''
                        ELSE coalesce(r.metadata ->> 'game', '') END AS game,
                   CASE WHEN r.debit_kind = 'player_wallet' THEN -r.amount ELSE r.amount END AS net
              FROM unnest(fresh) r
             WHERE r.kind IN ('posted', 'post_pending')
               AND (r.debit_kind = 'player_wallet') <> (r.credit_kind = 'player_wallet')
               AND (CASE WHEN r.debit_kind = 'player_wallet' THEN r.credit_kind ELSE r.debit_kind END)
                   IN ('game_escrow', 'house_revenue', 'progressive_pot', 'prize_liability', 'cash_clearing')) m
      LEFT JOIN unnest(p_check_accounts, p_check_amounts) WITH ORDINALITY AS c(account_id, need, idx)
             ON c.idx = m.idx AND c.account_id = m.wallet;

    IF cardinality(moves) > 0 THEN
        -- A wallet whose play is suspended stakes nothing.
        SELECT w.wallet, w.first_idx, p.until, p.reason INTO bad
          FROM (SELECT m.wallet, min(m.idx) AS first_idx FROM unnest(moves) m WHERE m.staked > 0 GROUP BY m.wallet) w
          JOIN wallet_suspensions p ON p.account_id = w.wallet AND (p.until IS NULL OR p.until > now())
         ORDER BY w.first_idx LIMIT 1;
        IF FOUND THEN
            PERFORM refuse('play_suspended',
                           format('no stake is taken from this wallet %s (%s)',
                                  coalesce('until ' || bad.until::text, 'for now'), replace(bad.reason, '_', ' ')),
                           jsonb_build_object('index', bad.first_idx - 1, 'account_id', bad.wallet,
                                              'until', bad.until, 'reason', bad.reason));
        END IF;
    END IF;

    -- Inserting first makes a concurrent request with the same id (or ending the same hold) wait
    -- here for the first to commit and then fail on a unique index; the service runs it again.
    INSERT INTO transfers (id, debit_account_id, credit_account_id, amount, currency, kind, pending_id,
                           timeout_seconds, expires_at, batch_id, metadata)
    SELECT r.id, r.debit_account_id, r.credit_account_id, r.amount, r.currency, r.kind, r.pending_id,
           r.timeout_seconds,
           CASE WHEN r.kind = 'pending' THEN now() + make_interval(secs => r.timeout_seconds) END,
           p_batch, r.metadata
      FROM unnest(fresh) r ORDER BY r.idx;

    IF has_holds THEN
        -- End each hold once: lock its open_holds row (in key order), check it, delete it.
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
    END IF;

    IF has_pending THEN
        INSERT INTO open_holds (transfer_id, expires_at)
        SELECT r.id, now() + make_interval(secs => r.timeout_seconds) FROM unnest(fresh) r WHERE r.kind = 'pending';
    END IF;

    -- Each transfer has a debit leg and a credit leg; sum them per balance row, sorted by key. A
    -- debited account that may not go negative gets a row for every shard, so all are updated
    -- (locked) and summed for the check; so does an account named by a funds check, whose leg
    -- moves nothing and sits just before its transfer's legs (`sub` 0) with the low point it
    -- requires (`need`).
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
        -- Funds are checked in order: each leg's running effect on its account's available
        -- balance, in batch order (a transfer never debits and credits one account).
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

    -- The update walks the sorted deltas in a nested loop (hash and merge joins are off for this
    -- function), so rows are locked in key order; RETURNING gives the new balances to check.
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

    -- The limits: each staking wallet's balance row is locked by now (the update above), so the
    -- sums below see every batch that moved it and committed before, and none that has not.
    IF cardinality(moves) > 0 THEN
        -- The limits in force on each wallet that stakes, against what it did in their windows
        -- before this batch: the first crossed (the least left) refuses the batch.
        SELECT s.wallet, s.first_idx, w.kind, w.period, w.cents, s.staked AS stake, u.first_hour,
               CASE w.kind WHEN 'single_stake' THEN w.cents WHEN 'wager' THEN w.cents - u.staked
                           ELSE w.cents - (u.staked - u.won) END AS left_before
          INTO bad
          FROM (SELECT m.wallet, sum(m.staked) AS staked, min(m.idx) FILTER (WHERE m.staked > 0) AS first_idx
                  FROM unnest(moves) m GROUP BY m.wallet HAVING sum(m.staked) > 0) s
          CROSS JOIN LATERAL (SELECT f.kind, f.period, min(f.cents) AS cents FROM limits_in_force(s.wallet) f
                               GROUP BY f.kind, f.period) w
          CROSS JOIN LATERAL (SELECT coalesce(sum(a.staked), 0) AS staked, coalesce(sum(a.won), 0) AS won,
                                     min(a.hour) FILTER (WHERE a.staked > 0) AS first_hour
                                FROM wallet_activity a
                               WHERE w.kind <> 'single_stake' AND a.account_id = s.wallet
                                 AND a.hour >= date_trunc('hour', now()) - limit_window(w.period)) u
         WHERE s.staked > CASE w.kind WHEN 'single_stake' THEN w.cents WHEN 'wager' THEN w.cents - u.staked
                                      ELSE w.cents - (u.staked - u.won) END
         ORDER BY left_before, w.kind, w.period
         LIMIT 1;
        IF FOUND THEN
            PERFORM refuse('limit_reached',
                           format('a stake of %s cents would pass the %s %s limit of %s cents (%s cents left)',
                                  bad.stake, bad.period, replace(bad.kind, '_', ' '), bad.cents,
                                  greatest(bad.left_before, 0)),
                           jsonb_build_object('index', bad.first_idx - 1, 'account_id', bad.wallet,
                               'kind', bad.kind, 'period', bad.period, 'limit', bad.cents, 'stake', bad.stake,
                               'left', greatest(bad.left_before, 0),
                               'resets_at', bad.first_hour + limit_window(bad.period) + interval '1 hour'));
        END IF;

        INSERT INTO wallet_activity AS a (account_id, hour, game, staked, won, deposited, withdrawn)
        SELECT m.wallet, date_trunc('hour', now()), m.game, sum(m.staked), sum(m.won), sum(m.deposited),
               sum(m.withdrawn)
          FROM unnest(moves) m GROUP BY m.wallet, m.game ORDER BY m.wallet, m.game
        ON CONFLICT (account_id, hour, game) DO UPDATE
           SET staked = a.staked + excluded.staked, won = a.won + excluded.won,
               deposited = a.deposited + excluded.deposited, withdrawn = a.withdrawn + excluded.withdrawn;
    END IF;

    RETURN QUERY
    SELECT r.idx, NOT (r.id = ANY (SELECT f.id FROM unnest(fresh) f)), t.seq, t.id, t.debit_account_id,
           t.credit_account_id, t.amount, t.currency, t.kind, t.pending_id, t.timeout_seconds, t.expires_at,
           t.batch_id, t.metadata, t.created_at
      FROM unnest(reqs) r JOIN transfers t ON t.id = r.id
     ORDER BY r.idx;
END $$
-- Generic plans: the statements are planned once per connection, not at every call. Every
-- lookup is by key, so scans and hash/merge joins are off: a table that looks small when a plan is
-- made must not become a full scan of a large one, and the balance update must walk its sorted
-- input in order.
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off;
