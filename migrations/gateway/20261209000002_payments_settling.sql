-- A payment's outcome is recorded before its money moves, so no row lock is held across the
-- call to the ledger (issue 33 §2): the webhook claims the pending payment as `settling` with
-- the provider's outcome and commits, the ledger moves the money (keyed by the payment, so a
-- repeat is a replay), and the payment becomes the outcome. A settling payment is finished by
-- the provider's next delivery or by the gateway's recovery pass.
ALTER TABLE payments DROP CONSTRAINT payments_state_check;
ALTER TABLE payments ADD CONSTRAINT payments_state_check
    CHECK (state IN ('pending', 'settling', 'succeeded', 'failed'));
ALTER TABLE payments ADD COLUMN outcome text CHECK (outcome IN ('succeeded', 'failed'));
ALTER TABLE payments ADD CONSTRAINT payments_settling_has_outcome CHECK (state <> 'settling' OR outcome IS NOT NULL);
CREATE INDEX payments_settling ON payments (updated_at) WHERE state = 'settling';
