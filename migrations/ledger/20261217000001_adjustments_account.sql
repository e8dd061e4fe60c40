-- The operator's account for manual balance adjustments (a goodwill credit, a correction), each
-- proposed by one operator and approved by another in the gateway (issue 49 §Staff). Its own
-- kind, so that player protection (`wallet_moves`) counts none of its moves as play or cash.
ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check CHECK (kind IN ('player_wallet', 'game_escrow',
    'house_revenue', 'prize_liability', 'progressive_pot', 'retailer_settlement', 'cash_clearing',
    'adjustments'));
