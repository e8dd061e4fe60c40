-- Raises the ledger's refusals: the message is the stable code the service maps to a problem
-- (`ledger::store::transfers`), the detail a sentence, the hint the facts as JSON.
CREATE OR REPLACE FUNCTION refuse(code text, detail text, context jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', code USING ERRCODE = 'P0001', DETAIL = detail, HINT = context::text;
END $$;
