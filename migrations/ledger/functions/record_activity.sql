-- What a batch's wallets staked, won, deposited and withdrew, added to their activity of this
-- hour per game (ADR 0014; `create_transfers`, rule 6), in key order so two batches never
-- deadlock on it.
CREATE OR REPLACE FUNCTION record_activity(moves wallet_move[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO wallet_activity AS a (account_id, hour, game, staked, won, deposited, withdrawn)
    SELECT m.wallet, date_trunc('hour', now()), m.game, sum(m.staked), sum(m.won), sum(m.deposited),
           sum(m.withdrawn)
      FROM unnest(moves) m GROUP BY m.wallet, m.game ORDER BY m.wallet, m.game
    ON CONFLICT (account_id, hour, game) DO UPDATE
       SET staked = a.staked + excluded.staked, won = a.won + excluded.won,
           deposited = a.deposited + excluded.deposited, withdrawn = a.withdrawn + excluded.withdrawn;
END $$;
