-- No stake from a wallet whose player is on a break, excluded or has closed the account, whatever
-- it holds and however many requests are in flight (ADR 0014 §4; `create_transfers`, rule 3).
-- Prizes, refunds and withdrawals still move.
CREATE OR REPLACE FUNCTION check_suspensions(moves wallet_move[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
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
END $$;
