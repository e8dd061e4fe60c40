-- A shop's address, printed under its name on the receipts its tills hand out (issue 32 §7).
-- Retailers added before it have none until an operator gives one.
ALTER TABLE retailers ADD COLUMN address text CHECK (address IS NULL OR length(address) BETWEEN 1 AND 300);
