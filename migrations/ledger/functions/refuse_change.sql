-- Append-only: the journal and the accounts are never rewritten or removed (the triggers on
-- `transfers`, `accounts` and `balances` call this).
CREATE OR REPLACE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'append_only' USING
        ERRCODE = 'P0001',
        DETAIL = format('%s on %s is not allowed: the ledger is append-only', TG_OP, TG_TABLE_NAME);
END $$;
