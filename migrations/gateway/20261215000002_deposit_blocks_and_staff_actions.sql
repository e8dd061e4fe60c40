-- Five failed deposits within 10 minutes stop a player's deposits until an operator clears it
-- (N.J.A.C. 13:69O-1.4; issue 49 §Staff).
ALTER TABLE players ADD COLUMN deposits_blocked_at timestamptz;

-- What staff did to a player, a setting or the money: who, what, the value before and after,
-- and why (Indiana 68 IAC 25-3-8's exception report; issue 49 §Staff). Appended, never changed.
CREATE TABLE staff_actions (
    id         uuid PRIMARY KEY,
    staff_id   text NOT NULL,
    action     text NOT NULL,
    subject    text NOT NULL,
    before     jsonb,
    after      jsonb,
    reason     text NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX staff_actions_by_subject ON staff_actions (subject, created_at);
