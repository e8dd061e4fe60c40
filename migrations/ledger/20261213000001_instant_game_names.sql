-- One name per game in the wallets' activity (issue 48 §2): an instant game is `instant-<number>`
-- (`ledger_api::Game`), as `wallet_moves` now counts it however a transfer's metadata wrote it;
-- the hours counted before under its bare number are renamed. No row can hold the new name yet.
UPDATE wallet_activity SET game = 'instant-' || game WHERE game ~ '^[0-9]+$';
