-- Play now, second shape (ADR 0003): a ticket is recorded already drawn, then one ledger batch
-- takes the stake and pays the prize; a refused ticket keeps the numbers it was never shown.
ALTER TABLE keno_tickets DROP CONSTRAINT keno_tickets_check;
ALTER TABLE keno_tickets ADD CONSTRAINT keno_tickets_drawn_have_numbers
    CHECK (state IN ('open', 'staked') OR draw_numbers IS NOT NULL);
