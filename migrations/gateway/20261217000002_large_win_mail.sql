-- Where the large-win mail has read the ledger's journal to (issue 49 §Email): one row per
-- reader, moved forward only; every replica reads past it, and a message's id derived from the
-- transfer keeps one message per win whoever writes it first.
CREATE TABLE mail_cursors (
    name  text PRIMARY KEY,
    after bigint NOT NULL CHECK (after >= 0)
);
