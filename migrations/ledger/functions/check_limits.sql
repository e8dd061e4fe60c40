-- The money limits (ADR 0014; `create_transfers`, rule 6): for each wallet that stakes in the
-- batch, the limits in force (the lowest of the player's and the operator's binds) against what
-- it did in their windows before this batch; the first crossed (the least left) refuses it.
--
-- Why here: twenty plays at once against a $10 loss limit must take exactly what it allows. A
-- check before the ledger call sees the total before the others' stakes; here each staking
-- wallet's balance rows are locked by now (`post_balances` updated them), so the sums below see
-- every batch that moved it and committed before, and none that has not.
--
-- Windows roll: the last 24 hours, 7 days or 30 days, by the hour (a stake counts until the end
-- of the hour 24 hours after the hour it was made in: never less than the window, at most an hour
-- more). Loss is stakes less wins in the window; a batch's own wins do not make room for its
-- stakes (a stake is judged before its outcome is known to the player).
CREATE OR REPLACE FUNCTION check_limits(moves wallet_move[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    bad record;
BEGIN
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
END $$;
