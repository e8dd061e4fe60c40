-- Each wallet's part in a batch's new transfers with games and cash, as player protection counts
-- it (ADR 0014; `create_transfers`, rule 3). Classified by the accounts, not by the caller:
-- - staked: a transfer from a player's wallet to a game's account (escrow, house revenue, a
--   progressive pot, prize liability); won: one the other way (a prize, a push returned, a bet
--   taken down, a refund of a voided ticket: each nets a stake out of the loss). A transfer that
--   nets a request's stake against what it pays back carries the gross stake as its funds check
--   on the wallet (craps, `Legs::WalletNet`): staked is that stake, won the stake plus the net.
-- - deposited and withdrawn: a transfer between a wallet and cash clearing (a hold counts when it
--   is posted).
-- The game is the transfer's `game` metadata ('' for cash), an instant game by its name
-- (`instant-<number>`) however it was written (`ledger_api::Game`).
CREATE OR REPLACE FUNCTION wallet_moves(fresh transfer_request[], p_check_accounts uuid[], p_check_amounts bigint[])
RETURNS wallet_move[] LANGUAGE plpgsql AS $$
BEGIN
    RETURN (
        SELECT coalesce(array_agg(ROW(m.idx, m.wallet, m.game,
                       CASE WHEN m.cash THEN 0 ELSE greatest(coalesce(c.need, 0), -m.net, 0) END,
                       CASE WHEN m.cash THEN 0 ELSE greatest(coalesce(c.need, 0), -m.net, 0) + m.net END,
                       CASE WHEN m.cash THEN greatest(m.net, 0) ELSE 0 END,
                       CASE WHEN m.cash THEN greatest(-m.net, 0) ELSE 0 END)::wallet_move ORDER BY m.idx), '{}')
          FROM (SELECT r.idx,
                       CASE WHEN r.debit_kind = 'player_wallet' THEN r.debit_account_id ELSE r.credit_account_id END AS wallet,
                       'cash_clearing' IN (r.debit_kind, r.credit_kind) AS cash,
                       CASE WHEN 'cash_clearing' IN (r.debit_kind, r.credit_kind) THEN ''
                            WHEN jsonb_typeof(r.metadata -> 'game') = 'number' THEN 'instant-' || (r.metadata ->> 'game')
                            ELSE coalesce(r.metadata ->> 'game', '') END AS game,
                       CASE WHEN r.debit_kind = 'player_wallet' THEN -r.amount ELSE r.amount END AS net
                  FROM unnest(fresh) r
                 WHERE r.kind IN ('posted', 'post_pending')
                   AND (r.debit_kind = 'player_wallet') <> (r.credit_kind = 'player_wallet')
                   AND (CASE WHEN r.debit_kind = 'player_wallet' THEN r.credit_kind ELSE r.debit_kind END)
                       IN ('game_escrow', 'house_revenue', 'progressive_pot', 'prize_liability', 'cash_clearing')) m
          LEFT JOIN unnest(p_check_accounts, p_check_amounts) WITH ORDINALITY AS c(account_id, need, idx)
                 ON c.idx = m.idx AND c.account_id = m.wallet);
END $$;
