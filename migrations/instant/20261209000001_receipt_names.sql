-- A receipt names the shop (and its address) and the till by the names the operator gave them,
-- as they were when it was printed (issue 32 §7: receipts handed to players showed ids).
-- Receipts printed before carry none; they print the ids as before.
ALTER TABLE claim_receipts ADD COLUMN shop text, ADD COLUMN shop_address text, ADD COLUMN terminal_label text;
