-- Manual balance adjustments (a goodwill credit, a correction): proposed by one operator,
-- approved by another (maker-checker), moved through the ledger under an id derived from the
-- adjustment, with the reason (issue 49 §Staff; ADR 0018). A row is the queue and the record:
-- proposed -> approving (the approver recorded, the money being moved) -> approved, or
-- proposed -> rejected. Each decision is also a staff action.
CREATE TABLE balance_adjustments (
    id              uuid PRIMARY KEY,
    player_id       uuid NOT NULL REFERENCES players (id),
    direction       text NOT NULL CHECK (direction IN ('credit', 'debit')),
    amount_cents    bigint NOT NULL CHECK (amount_cents BETWEEN 1 AND 100000000),
    reason          text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
    proposed_by     text NOT NULL,
    proposed_at     timestamptz NOT NULL DEFAULT now(),
    state           text NOT NULL DEFAULT 'proposed'
                    CHECK (state IN ('proposed', 'approving', 'approved', 'rejected')),
    decided_by      text,
    decided_at      timestamptz,
    decision_reason text CHECK (length(decision_reason) BETWEEN 1 AND 2000),
    CHECK ((state = 'proposed') = (decided_by IS NULL)),
    CHECK (decided_by IS DISTINCT FROM proposed_by)
);
CREATE INDEX balance_adjustments_by_state ON balance_adjustments (state, id);
CREATE INDEX balance_adjustments_by_player ON balance_adjustments (player_id, id);
